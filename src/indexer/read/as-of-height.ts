/**
 * The index read "as of a height": the state after block H, from the rows that carry their height
 * (address history, inscription moves, DRC-20 operations, collection members, transactions), never
 * from the tables that hold only the current state. Attesters compute facts through this, so three
 * attesters over three independently built indexes of the same chain read the same values.
 *
 * Every method is a pure function of (database, H). Callers run a group of reads inside
 * `snapshot()` so that a concurrent indexer batch (or rollback) cannot change the state between
 * them. Never calls the node.
 */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlStatement } from "../../db/sql";
import type { SqlDatabase } from "../../db/sql";
import { envelopeHash } from "../../inscription/envelope";
import { hashHexOrNull, inscriptionIdOf, inscriptionTxidKey } from "./inscriptions";
import { blockAt, indexedTip } from "./blocks";
import { PlanRunner, TxIdBounds, hexOf, txidKey } from "./rows";

/** The indexed tip: height and hash of the last fully written block. */
export interface IndexedTip {
  height: number;
  hash: string;
}

/** An inscription as revealed (what does not change after its reveal). */
export interface InscriptionAtHeight {
  id: string;
  form: string;
  contentType: string;
  action: string | null;
  /** envelopeHash (hex): the v1 form's from its envelope, the Doginals form's computed from (content type, body); null when none can be encoded. */
  envelopeHash: string | null;
  revealTxid: string;
  height: number;
}

/** Where an inscription sat after block H: the last move at or below H. */
export interface InscriptionPlace {
  /** genesis, move, fee (into the coinbase) or lost (fees the miner did not claim). */
  kind: string;
  /** The output's address; null when lost or when the output's script has no address. */
  ownerAddress: string | null;
  txid: string | null;
  vout: number | null;
  height: number;
}

/** A DRC-20 transfer inscription as of H. */
export interface Drc20TransferAtHeight {
  /** The tick as the transfer body wrote it. */
  tick: string;
  amount: bigint;
  /** The inscribing reserved the amount (valid inscribe operation). */
  inscribedValid: boolean;
  /** A first send moved the amount on at or below H. */
  sent: boolean;
}

/** The inscription a reveal transaction created, with where its reveal put it. */
export interface RevealedInscription extends InscriptionAtHeight {
  /** The genesis landing's address (null when it went to fees or to a script without address). */
  genesisOwner: string | null;
}

type Row = Record<string, unknown>;

export class IndexHistory {
  private readonly s: Record<string, SqlStatement>;
  private readonly bounds: TxIdBounds;
  /** Runs the block reads (./blocks.ts), the ones the other readers share. */
  private readonly plans: PlanRunner;

  constructor(readonly db: SqlDatabase) {
    const p = (sql: string) => db.prepare(sql);
    this.bounds = new TxIdBounds(db);
    this.plans = new PlanRunner(db);
    this.s = {
      startHeight: p("SELECT value FROM meta WHERE key = 'start_height'"),
      // Sum over the address's transactions up to H of (received - sent): the outputs created at or
      // below H that no transaction at or below H spent.
      // Transaction ids are in chain order: "at or below H" is "id below the first id above H".
      dogeBalance: p(
        `SELECT COALESCE(SUM(received - sent), 0) AS koinu FROM address_history
        WHERE address_id = (SELECT id FROM addresses WHERE address = ?) AND tx_id < ?`,
      ).safeIntegers(true),
      txAt: p(
        `SELECT t.height, b.hash FROM txs t JOIN blocks b ON b.height = t.height WHERE t.id = ${TX_ID_OF_TXID} AND t.height <= ?`,
      ),
      // Schema version 9: an inscription is keyed by its genesis transaction's id, transactions and
      // addresses are ids (read back through txs and addresses).
      inscription: p(`SELECT g.txid AS genesis_txid, i.form, i.content_type, i.action, i.body, i.envelope_hash,
        r.txid AS reveal_txid, i.height FROM txs g JOIN inscriptions i ON i.id = g.id JOIN txs r ON r.id = i.reveal_tx_id
        WHERE g.id = ${TX_ID_OF_TXID} AND i.height <= ?`),
      revealedIn: p(`SELECT i.id, g.txid AS genesis_txid, i.form, i.content_type, i.action, i.body, i.envelope_hash,
        r.txid AS reveal_txid, i.height FROM txs r JOIN inscriptions i ON i.reveal_tx_id = r.id JOIN txs g ON g.id = i.id
        WHERE r.id = ${TX_ID_OF_TXID} ORDER BY i.number LIMIT 1`),
      genesis: p(`SELECT a.address AS owner_address FROM inscription_moves m LEFT JOIN addresses a ON a.id = m.owner_id
        WHERE m.inscription_id = ? AND m.kind = 'genesis' AND m.tx_id = ${TX_ID_OF_TXID}`),
      place:
        p(`SELECT m.kind, a.address AS owner_address, d.txid AS to_txid, m.to_vout, m.height FROM inscription_moves m
        LEFT JOIN addresses a ON a.id = m.owner_id LEFT JOIN txs d ON d.id = m.to_tx_id
        WHERE m.inscription_id = ${TX_ID_OF_TXID} AND m.height <= ?
        ORDER BY m.height DESC, m.position DESC LIMIT 1`),
      // Member tokens minted at or below H whose last move at or below H landed on the address.
      collectionCount: p(`SELECT COUNT(*) AS n FROM collection_members m WHERE m.slug = ? AND m.height <= ?
        AND (SELECT mv.owner_id FROM inscription_moves mv WHERE mv.inscription_id = m.inscription_id AND mv.height <= ?
             ORDER BY mv.height DESC, mv.position DESC LIMIT 1) = (SELECT id FROM addresses WHERE address = ?)`),
      mints:
        p(`SELECT amount, note FROM drc20_operations WHERE address_id = (SELECT id FROM addresses WHERE address = ?)
        AND tick_key = ? AND height <= ? AND event = 'inscribe' AND op = 'mint' AND valid = 1`),
      received: p(`SELECT amount FROM drc20_operations WHERE address_id = (SELECT id FROM addresses WHERE address = ?)
        AND tick_key = ? AND height <= ? AND event = 'send' AND valid = 1`),
      // First sends of the address's transfer inscriptions to another address (a send spent to fees,
      // address NULL, returned the amount to the sender: no change to its total).
      sentAway:
        p(`SELECT s.amount FROM drc20_operations i JOIN drc20_operations s ON s.inscription_id = i.inscription_id
        WHERE i.address_id = (SELECT id FROM addresses WHERE address = ?) AND i.tick_key = ? AND i.event = 'inscribe'
        AND i.op = 'transfer' AND i.valid = 1 AND s.event = 'send' AND s.valid = 1 AND s.height <= ? AND s.address_id IS NOT NULL`),
      maxSupply: p("SELECT max_supply FROM drc20_ticks WHERE tick_key = ?"),
      uncappedMints: p(
        "SELECT amount FROM drc20_operations WHERE tick_key = ? AND event = 'inscribe' AND op = 'mint' AND valid = 1 AND note IS NULL",
      ),
      transferInscribe: p(`SELECT tick, amount, valid FROM drc20_operations WHERE inscription_id = ${TX_ID_OF_TXID}
        AND event = 'inscribe' AND op = 'transfer' AND tick IS NOT NULL AND height <= ? ORDER BY height, position, seq LIMIT 1`),
      transferSent: p(`SELECT 1 FROM drc20_operations WHERE inscription_id = ${TX_ID_OF_TXID}
        AND event = 'send' AND valid = 1 AND height <= ? LIMIT 1`),
      opReturnShas: p(`SELECT sha256 FROM op_returns WHERE tx_id = ${TX_ID_OF_TXID} ORDER BY vout`),
    };
  }

  /** Runs `read` in one read transaction: every query in it sees the same committed state. */
  snapshot<T>(read: () => T): T {
    if (this.db.inTransaction) return read();
    return this.db.transaction(read)();
  }

  /** The first height this index covers (0 for an index built from genesis). */
  startHeight(): number {
    const row = this.s.startHeight.get() as { value: string } | undefined;
    return row ? Number(row.value) : 0;
  }

  tip(): IndexedTip | null {
    return this.plans.run(indexedTip());
  }

  /** Hash of the indexed block at `height`, or null when it is not indexed. */
  blockHashAt(height: number): string | null {
    return this.plans.run(blockAt(height))?.hash ?? null;
  }

  /** Koinu held by `address` after block `height`: outputs created at or below it and not spent at or below it. */
  dogeBalanceAt(address: string, height: number): bigint {
    return BigInt((this.s.dogeBalance.get(address, this.bounds.above(height)) as { koinu: bigint }).koinu);
  }

  /** The block that includes `txid`, when at or below `height`. */
  txInclusionAt(txid: string, height: number): { height: number; blockHash: string } | null {
    const row = this.s.txAt.get(txidKey(txid), height) as { height: number; hash: Uint8Array } | undefined;
    return row ? { height: Number(row.height), blockHash: hexOf(row.hash) } : null;
  }

  /** The inscription `id` when it was revealed at or below `height`. */
  inscriptionAt(id: string, height: number): InscriptionAtHeight | null {
    const key = inscriptionTxidKey(id);
    if (key === null) return null;
    const row = this.s.inscription.get(key, height) as Row | undefined;
    return row ? inscriptionOf(row) : null;
  }

  /** The inscription whose (last) reveal transaction is `txid`, with its genesis landing. */
  inscriptionRevealedIn(txid: string): RevealedInscription | null {
    const key = txidKey(txid);
    if (key === null) return null;
    const row = this.s.revealedIn.get(key) as Row | undefined;
    if (!row) return null;
    const genesis = this.s.genesis.get(row.id, key) as { owner_address: string | null } | undefined;
    return { ...inscriptionOf(row), genesisOwner: genesis?.owner_address ?? null };
  }

  /** Where the inscription sat after block `height` (null when it did not exist yet). */
  inscriptionPlaceAt(id: string, height: number): InscriptionPlace | null {
    const key = inscriptionTxidKey(id);
    if (key === null) return null;
    const row = this.s.place.get(key, height) as
      | {
          kind: string;
          owner_address: string | null;
          to_txid: Uint8Array | null;
          to_vout: number | null;
          height: number;
        }
      | undefined;
    return row
      ? {
          kind: row.kind,
          ownerAddress: row.owner_address,
          txid: hashHexOrNull(row.to_txid),
          vout: row.to_vout,
          height: row.height,
        }
      : null;
  }

  /** Member tokens of collection `slug` that `address` held after block `height`. */
  collectionCountAt(address: string, slug: string, height: number): number {
    return (this.s.collectionCount.get(slug, height, height, address) as { n: number }).n;
  }

  /**
   * available + transferable of `address` for the tick keyed `tickKey` (the indexer's key: the tick
   * in lower case) after block `height`: valid mints credited to it, plus first sends of transfer
   * inscriptions it received, minus first sends of its own transfer inscriptions to others
   * (inscribing a transfer only moves available to transferable; a send spent to fees returns it).
   */
  drc20BalanceAt(address: string, tickKey: string, height: number): bigint {
    let total = 0n;
    let capped = false;
    for (const row of this.s.mints.all(address, tickKey, height) as { amount: string; note: string | null }[]) {
      if (row.note === "MINT_CAPPED_TO_REMAINDER") capped = true;
      else total += BigInt(row.amount);
    }
    if (capped) total += this.cappedMintAmount(tickKey);
    for (const row of this.s.received.all(address, tickKey, height) as { amount: string }[])
      total += BigInt(row.amount);
    for (const row of this.s.sentAway.all(address, tickKey, height) as { amount: string }[])
      total -= BigInt(row.amount);
    return total;
  }

  /**
   * What the one mint capped to the remainder credited: the operation row keeps the amount asked
   * for. Every valid mint before it was uncapped and none after it is valid (the tick was full),
   * so it credited max supply minus the sum of the uncapped valid mints.
   */
  private cappedMintAmount(tickKey: string): bigint {
    const tick = this.s.maxSupply.get(tickKey) as { max_supply: string } | undefined;
    if (!tick) return 0n;
    let uncapped = 0n;
    for (const row of this.s.uncappedMints.all(tickKey) as { amount: string }[]) uncapped += BigInt(row.amount);
    return BigInt(tick.max_supply) - uncapped;
  }

  /** The DRC-20 transfer body revealed as inscription `id` at or below `height`, and whether it was sent by then. */
  drc20TransferAt(id: string, height: number): Drc20TransferAtHeight | null {
    const key = inscriptionTxidKey(id);
    if (key === null) return null;
    const row = this.s.transferInscribe.get(key, height) as
      { tick: string; amount: string | null; valid: number } | undefined;
    if (!row) return null;
    return {
      tick: row.tick,
      amount: row.amount === null ? 0n : BigInt(row.amount),
      inscribedValid: row.valid === 1,
      sent: this.s.transferSent.get(key, height) !== undefined,
    };
  }

  /** SHA-256 (hex) of each OP_RETURN payload of `txid`, in output order. */
  opReturnShasOf(txid: string): string[] {
    return (this.s.opReturnShas.all(txidKey(txid)) as { sha256: Uint8Array }[]).map((row) => hexOf(row.sha256));
  }
}

function inscriptionOf(row: Row): InscriptionAtHeight {
  const action = (row.action as string | null) ?? null;
  let hash = hashHexOrNull(row.envelope_hash as Uint8Array | null);
  if (hash === null) {
    // Doginals-form rows carry no envelope; envelopeHash commits to (content type, ACTION, body)
    // whatever the form, as the explorer computes it (./inscriptions.ts).
    try {
      hash = envelopeHash({
        contentType: row.content_type as string,
        action,
        body: new Uint8Array(row.body as Buffer),
      });
    } catch {
      hash = null; // no envelope encoding (e.g. an empty content type)
    }
  }
  return {
    id: inscriptionIdOf(row.genesis_txid as Uint8Array),
    form: row.form as string,
    contentType: row.content_type as string,
    action,
    envelopeHash: hash,
    revealTxid: hexOf(row.reveal_txid as Uint8Array),
    height: Number(row.height),
  };
}
