/**
 * The inscription side of block application: finds new inscriptions of both forms (v1 envelope in
 * P2SH redeem scripts, classic Doginals including multi-transaction chains), moves every
 * inscription with its koinu (flow.ts), and derives DRC-20 balances and launchpad collections from
 * them (src/inscription rules). Mutable tables are changed only through the undo journal;
 * append-only tables carry their height. Runs inside the block's SQLite transaction.
 *
 * Schema version 9: rows refer to ids, never hex text. Inside the tracker an inscription is named
 * by its key (the id of its genesis transaction, as a decimal string: the flow and the DRC-20 rules
 * take names as opaque strings), and so is an address in the DRC-20 rules (its addresses.id); the
 * ids come from the store (IndexIds), which knows this batch's transactions and addresses before
 * their rows are written.
 */
import type { SqlStatement } from "../db/sql";
import type { SqlDatabase } from "../db/sql";
import { DecodedTransaction } from "../doge";
import {
  DoginalsAssembly,
  Drc20Action,
  Drc20Balance,
  Drc20Effect,
  Drc20TickState,
  Drc20TransferState,
  Drc20View,
  IndexedLaunchpadDeploy,
  applyDrc20,
  findV1Inscription,
  judgeMint,
  parseDrc20,
  parseLaunchpadBody,
  readDoginalsInput,
} from "../inscription";
import { FlowInput, flowIntoCoinbase, flowThrough } from "./flow";
import { Journal } from "./journal";

/** What the indexer already knows about one spent input. */
export interface SpentInput {
  txid: string;
  /** The spent transaction's id in the index; null when the index does not hold the output (value 0, address null). */
  txId: number | null;
  vout: number;
  value: bigint;
  /** The id of the address the spent output paid (null for none); its text is read only when needed. */
  addressId: number | null;
}

/** The ids the tracker's rows refer to (IndexerStore provides them). */
export interface IndexIds {
  /** The id of an indexed transaction (this batch's included), or null. */
  txIdOf(txid: string): number | null;
  /** The id of an address some indexed output pays. */
  addressIdOf(address: string): number;
  /** The text of an address the index holds, by its id. */
  addressTextOf(addressId: number): string;
}

/** Journaled tables and their primary keys. */
export const JOURNALED_TABLES = {
  inscription_locations: ["inscription_id"],
  doginals_pending: ["outpoint"],
  drc20_ticks: ["tick_key"],
  drc20_balances: ["address_id", "tick_key"],
  drc20_transfers: ["inscription_id"],
  collections: ["slug"],
} as const;

const APPEND_ONLY_TABLES = [
  "inscriptions",
  "inscription_moves",
  "inscription_rejections",
  "drc20_operations",
  "collection_members",
  "launchpad_operations",
];

/** DRC-20 parse failures that mean "not a DRC-20 body at all" are not recorded as operations. */
const NOT_DRC20 = new Set(["UNSUPPORTED_CONTENT_TYPE", "BODY_NOT_UTF8", "BODY_TOO_SHORT", "INVALID_JSON", "NOT_DRC20"]);
/** Likewise for launchpad bodies. */
const NOT_LAUNCHPAD = new Set([
  "CONTENT_TYPE_NOT_ALLOWED",
  "BODY_NOT_UTF8",
  "INVALID_JSON",
  "NOT_AN_OBJECT",
  "WRONG_PROTOCOL",
]);

/** The "ord" push that every inscription form starts with: 0x03 'o' 'r' 'd'. */
const ORD_PUSH = Buffer.from([0x03, 0x6f, 0x72, 0x64]);

interface NewInscription {
  id: string;
  form: "v1" | "doginals";
  contentType: string;
  action: string | null;
  body: Uint8Array;
  envelopeHash: string | null;
  inputIndex: number;
  /** The funder's address id (null when unknown). */
  inscriberId: number | null;
  revealTxCount: number;
}

interface FeeBound {
  id: string;
  feeOffset: bigint;
  feeBase: bigint;
  txId: number;
  position: number;
  isNew: boolean;
}

/**
 * A fixed-size Bloom filter over the outpoints that carry (or carried) inscriptions, so that the
 * common spend of an ordinary output needs no database lookup. 16 MB holds ~10 million outpoints at
 * about 2% false positives (a false positive costs one indexed query); stale entries left by moved
 * inscriptions only add false positives and disappear at the next start.
 */
class OutpointFilter {
  private readonly bits = new Uint8Array(1 << 24);
  private readonly mask = (1 << 27) - 1;

  private positions(txid: string, vout: number): [number, number] {
    const a = Number.parseInt(txid.slice(0, 8), 16) ^ Math.imul(vout + 1, 0x9e3779b1);
    const b = Number.parseInt(txid.slice(8, 16), 16) ^ Math.imul(vout + 1, 0x85ebca6b);
    return [a & this.mask, b & this.mask];
  }

  add(txid: string, vout: number): void {
    for (const bit of this.positions(txid, vout)) this.bits[bit >>> 3] |= 1 << (bit & 7);
  }

  mightContain(txid: string, vout: number): boolean {
    for (const bit of this.positions(txid, vout)) if ((this.bits[bit >>> 3] & (1 << (bit & 7))) === 0) return false;
    return true;
  }
}

/**
 * A number (or null) per recent transaction id, in typed arrays: slot `id mod 2^19`, so the last
 * 524,288 transactions' entries are held (a newer id takes an older one's slot). No object per
 * entry: the tracker sets one for every transaction it sees.
 */
class RecentIdMap {
  private static readonly SLOTS = 1 << 19;
  private readonly ids = new Float64Array(RecentIdMap.SLOTS);
  /** The value, or NaN for null. */
  private readonly values = new Float64Array(RecentIdMap.SLOTS);

  /** `id` must be a positive integer (transaction ids start at 1; 0 marks an empty slot). */
  set(id: number, value: number | null): void {
    const slot = id % RecentIdMap.SLOTS;
    this.ids[slot] = id;
    this.values[slot] = value === null ? Number.NaN : value;
  }

  /** The value held for `id`, or undefined when its slot holds another id (or none). */
  get(id: number): number | null | undefined {
    const slot = id % RecentIdMap.SLOTS;
    if (this.ids[slot] !== id) return undefined;
    const value = this.values[slot];
    return Number.isNaN(value) ? null : value;
  }

  clear(): void {
    this.ids.fill(0);
  }
}

/**
 * A set of inscription keys (their genesis transaction's txs.id) as one bit per transaction id:
 * 50 MB at 400 million transactions. The tracker marks every DRC-20 transfer inscription here, so
 * that the move of any other inscription, by far the most common, asks drc20_transfers nothing. A
 * bit is never cleared: a rollback may leave one for a row it deleted (or an id given out again),
 * which costs a lookup that finds nothing; no transfer's row is without its bit.
 */
class IdBits {
  private bits = new Uint8Array(1 << 16);

  add(id: number): void {
    if (id >>> 3 >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (id >>> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[id >>> 3] |= 1 << (id & 7);
  }

  has(id: number): boolean {
    return id >>> 3 < this.bits.length && (this.bits[id >>> 3] & (1 << (id & 7))) !== 0;
  }
}

/**
 * The inscriptions an outpoint (tx_id, vout) carries, by offset (then txs.id, for a stable read);
 * inscriptionsOnOutpoint puts ties in the writer's order. It names no chain table, so it leaves
 * the store's buffered batch alone (store.ts, trackerDatabase).
 */
export const INSCRIPTIONS_ON_OUTPOINT =
  "SELECT inscription_id, offset FROM inscription_locations WHERE tx_id = ? AND vout = ? ORDER BY offset, inscription_id";
/** The txid of an inscription's genesis transaction (its key is that transaction's txs.id). */
export const GENESIS_TXID = "SELECT txid FROM txs WHERE id = ?";

/**
 * The inscriptions on outpoint (txId, vout) in the order the writer moves them (and so the order
 * of their DRC-20 send events): by offset, then by text id `<txid>i0`, i.e. the genesis txid's
 * bytes, as version 8's text keys sorted and as the readers sort (byInscriptionId in
 * ./read/inscriptions.ts); not by the txs.id key, which follows chain order. A tie (one offset of
 * one output) needs an input that adds no koinu before an inscribed one (./flow.ts): rare, so only
 * then are the genesis txids read (a read of txs, which writes out the store's buffered rows).
 */
export function inscriptionsOnOutpoint(
  q: { onOutpoint: SqlStatement; genesisTxid: SqlStatement },
  txId: number,
  vout: number,
): { id: string; offset: bigint }[] {
  const rows = q.onOutpoint.all(txId, vout) as { inscription_id: number | bigint; offset: number | bigint }[];
  const found = rows.map((row) => ({ id: String(row.inscription_id), offset: BigInt(row.offset) }));
  if (!found.some((item, index) => index > 0 && item.offset === found[index - 1].offset)) return found;
  const txids = new Map(
    found.map((item) => {
      const row = q.genesisTxid.get(Number(item.id)) as { txid: Uint8Array };
      return [item.id, Buffer.from(row.txid)];
    }),
  );
  return found.sort((a, b) =>
    a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : Buffer.compare(txids.get(a.id)!, txids.get(b.id)!),
  );
}

export class InscriptionTracker {
  private readonly journal: Journal;
  private readonly q: Record<string, SqlStatement>;
  private pendingDoginals: number;
  private nextNumber: number;
  /** Per block: fees of earlier transactions and inscriptions waiting for the coinbase. */
  private feeBase = 0n;
  private feeBound: FeeBound[] = [];
  private opSeq = 0;
  private readonly inscribedOutpoints = new OutpointFilter();
  /** The keys of DRC-20 transfer inscriptions (drc20_transfers' rows, and perhaps some rolled back). */
  private readonly transferKeys = new IdBits();

  constructor(
    private readonly db: SqlDatabase,
    private readonly ids: IndexIds,
  ) {
    this.journal = new Journal(db, JOURNALED_TABLES);
    const p = (sql: string) => db.prepare(sql);
    this.q = {
      onOutpoint: p(INSCRIPTIONS_ON_OUTPOINT),
      genesisTxid: p(GENESIS_TXID),
      setLocation: p(
        "INSERT OR REPLACE INTO inscription_locations (inscription_id, tx_id, vout, offset, owner_id, height) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      insertInscription:
        p(`INSERT INTO inscriptions (id, number, form, content_type, action, body, body_size, envelope_hash, collection_key,
        reveal_tx_id, reveal_tx_count, inscriber_id, height, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertMove: p(
        "INSERT OR REPLACE INTO inscription_moves (inscription_id, height, position, tx_id, kind, to_tx_id, to_vout, to_offset, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      insertRejection: p(
        "INSERT OR IGNORE INTO inscription_rejections (tx_id, height, position, form, reason) VALUES (?, ?, ?, ?, ?)",
      ),
      getPending: p("SELECT inscription_id, state, inscriber_address FROM doginals_pending WHERE outpoint = ?"),
      putPending: p(
        "INSERT OR REPLACE INTO doginals_pending (outpoint, inscription_id, state, inscriber_address, height) VALUES (?, ?, ?, ?, ?)",
      ),
      deletePending: p("DELETE FROM doginals_pending WHERE outpoint = ?"),
      countPending: p("SELECT COUNT(*) AS n FROM doginals_pending"),
      maxNumber: p("SELECT COALESCE(MAX(number), -1) AS n FROM inscriptions"),
      // The address id of the output the commit (its id bound twice) spent with input 0: marked on
      // its row (found through outputs_by_spent_tx) or, during a catch-up, logged in spend_log
      // (found by its key).
      funder: p(`SELECT o.address_id FROM outputs o WHERE o.spent_tx_id = ? AND o.spent_vin = 0
        UNION ALL SELECT o.address_id FROM spend_log s JOIN outputs o ON o.tx_id = s.tx_id AND o.vout = s.vout
        WHERE s.spent_tx_id = ? AND s.spent_vin = 0 LIMIT 1`),
      getTick: p("SELECT tick, max_supply, mint_limit, minted FROM drc20_ticks WHERE tick_key = ?"),
      putTick: p(
        "INSERT INTO drc20_ticks (tick_key, tick, max_supply, mint_limit, minted, deployer_id, inscription_id, height) VALUES (?, ?, ?, ?, '0', ?, ?, ?)",
      ),
      setMinted: p("UPDATE drc20_ticks SET minted = ? WHERE tick_key = ?"),
      getBalance: p("SELECT available, transferable FROM drc20_balances WHERE address_id = ? AND tick_key = ?"),
      putBalance: p(
        "INSERT OR REPLACE INTO drc20_balances (address_id, tick_key, available, transferable) VALUES (?, ?, ?, ?)",
      ),
      getTransfer: p("SELECT tick_key, amount, owner_id, sent FROM drc20_transfers WHERE inscription_id = ?"),
      putTransfer: p(
        "INSERT INTO drc20_transfers (inscription_id, tick_key, amount, owner_id, sent, receiver_id, returned, height) VALUES (?, ?, ?, ?, 0, NULL, 0, ?)",
      ),
      markSent: p(
        "UPDATE drc20_transfers SET sent = 1, receiver_id = ?, returned = ?, sent_height = ? WHERE inscription_id = ?",
      ),
      insertOperation:
        p(`INSERT INTO drc20_operations (height, position, seq, inscription_id, event, op, tick_key, tick, amount, address_id, valid, reason, note)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      getCollection: p("SELECT slug, name, price_koinu, max_supply, inscriber_id FROM collections WHERE slug = ?"),
      putCollection: p(
        "INSERT INTO collections (slug, name, price_koinu, max_supply, inscriber_id, deploy_inscription, height, minted_count) VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
      ),
      bumpMinted: p("UPDATE collections SET minted_count = minted_count + 1 WHERE slug = ?"),
      memberExists: p("SELECT 1 FROM collection_members WHERE slug = ? AND token_id = ?"),
      insertMember: p("INSERT INTO collection_members (slug, token_id, inscription_id, height) VALUES (?, ?, ?, ?)"),
      insertLaunchpadOp: p(
        "INSERT OR REPLACE INTO launchpad_operations (inscription_id, height, position, op, slug, token_id, valid, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ),
    };
    this.pendingDoginals = (this.q.countPending.get() as { n: number }).n;
    this.nextNumber = (this.q.maxNumber.get() as { n: number }).n + 1;
    this.loadFilter();
    for (const row of db.prepare("SELECT inscription_id FROM drc20_transfers").iterate() as Iterable<{
      inscription_id: number | bigint;
    }>)
      this.transferKeys.add(Number(row.inscription_id));
  }

  private loadFilter(): void {
    for (const row of this.db
      .prepare("SELECT t.txid, l.vout FROM inscription_locations l JOIN txs t ON t.id = l.tx_id")
      .iterate() as Iterable<{ txid: Buffer; vout: number }>) {
      this.inscribedOutpoints.add(Buffer.from(row.txid).toString("hex"), Number(row.vout));
    }
  }

  /** The id of a transaction the index holds (this batch's included). */
  private txId(txid: string): number {
    const id = this.ids.txIdOf(txid);
    if (id === null) throw new Error(`transaction ${txid} has no id in the index`);
    return id;
  }

  /** The key of the inscription with text id `<txid>i0`: its genesis transaction's id, as a string. */
  private keyOf(textId: string): string {
    return String(this.txId(textId.slice(0, 64)));
  }

  beginBlock(): void {
    this.feeBase = 0n;
    this.feeBound = [];
    this.opSeq = 0;
  }

  /**
   * Handles one non-coinbase transaction: `spent` describes its inputs, `outputAddressIds` the ids
   * of its outputs' addresses (null for none). `fee` is null when an input predates the index (then
   * nothing flows to fees).
   */
  applyTransaction(
    tx: DecodedTransaction,
    txId: number,
    position: number,
    height: number,
    spent: SpentInput[],
    outputAddressIds: (number | null)[],
    fee: bigint | null,
  ): void {
    this.rememberFirstInput(txId, spent[0]);
    const inputs: FlowInput[] = [];
    const moving: { id: string; offset: bigint }[] = [];
    let anyInscribedInput = false;
    spent.forEach((input) => {
      const inscriptions =
        input.txId !== null && this.inscribedOutpoints.mightContain(input.txid, input.vout)
          ? inscriptionsOnOutpoint(
              { onOutpoint: this.q.onOutpoint, genesisTxid: this.q.genesisTxid },
              input.txId,
              input.vout,
            )
          : [];
      if (inscriptions.length > 0) anyInscribedInput = true;
      moving.push(...inscriptions);
      inputs.push({ value: input.txId !== null ? input.value : 0n, inscriptions });
    });

    const created = this.detectNew(tx, position, height, spent, inputs);
    if (!anyInscribedInput && !created) {
      if (fee !== null) this.feeBase += fee;
      return;
    }
    const outputValues = tx.outputs.map((output) => output.value);
    const flow = flowThrough(inputs, outputValues, created ? [{ id: created.id, inputIndex: created.inputIndex }] : []);
    // owner: the output's address id, as the DRC-20 rules name it (null without an address).
    const landed = new Map<string, { vout: number; offset: bigint; owner: string | null }>();
    for (const item of flow.toOutputs) {
      const ownerId = outputAddressIds[item.vout] ?? null;
      landed.set(item.id, { vout: item.vout, offset: item.offset, owner: ownerId === null ? null : String(ownerId) });
      const key = Number(item.id);
      this.journal.remember(height, "inscription_locations", [key]);
      this.q.setLocation.run(key, txId, item.vout, item.offset, ownerId, height);
      this.inscribedOutpoints.add(tx.txid, item.vout);
      this.q.insertMove.run(
        key,
        height,
        position,
        txId,
        item.id === created?.id ? "genesis" : "move",
        txId,
        item.vout,
        item.offset,
        ownerId,
      );
    }
    for (const item of flow.toFee) {
      this.journal.remember(height, "inscription_locations", [Number(item.id)]);
      // Until the coinbase is placed at the end of the block, the inscription sits nowhere.
      this.q.setLocation.run(Number(item.id), null, null, null, null, height);
      this.feeBound.push({
        id: item.id,
        feeOffset: item.feeOffset,
        feeBase: this.feeBase,
        txId,
        position,
        isNew: item.id === created?.id,
      });
    }
    if (fee !== null) this.feeBase += fee;

    if (created) this.recordNew(created, tx, position, height, landed.get(created.id) ?? null);
    // DRC-20 transfer inscriptions are settled by their first send (ignored for other inscriptions).
    for (const { id } of moving) {
      const destination = landed.get(id);
      this.applyDrc20Event(id, position, height, { kind: "send", toAddress: destination ? destination.owner : null });
    }
  }

  /** Places fee-bound inscriptions into the block's coinbase (call after every transaction). */
  endBlock(coinbase: DecodedTransaction, height: number, outputAddressIds: (number | null)[]): void {
    if (this.feeBound.length === 0) return;
    const values = coinbase.outputs.map((output) => output.value);
    const claimed = values.reduce((sum, value) => sum + value, 0n);
    // The subsidy is inferred as what the coinbase claims beyond the block's fees (exact whenever
    // the miner claims everything, which is the rule in practice).
    const subsidy = claimed > this.feeBase ? claimed - this.feeBase : 0n;
    const coinbaseId = this.txId(coinbase.txid);
    for (const bound of this.feeBound) {
      const place = flowIntoCoinbase(subsidy, bound.feeBase, bound.feeOffset, values);
      const owner = place ? (outputAddressIds[place.vout] ?? null) : null;
      this.q.setLocation.run(
        Number(bound.id),
        place ? coinbaseId : null,
        place ? place.vout : null,
        place ? place.offset : null,
        owner,
        height,
      );
      if (place) this.inscribedOutpoints.add(coinbase.txid, place.vout);
      this.q.insertMove.run(
        Number(bound.id),
        height,
        bound.position,
        bound.txId,
        place ? "fee" : "lost",
        place ? coinbaseId : null,
        place?.vout ?? null,
        place?.offset ?? null,
        owner,
      );
    }
    this.feeBound = [];
  }

  /** Deletes append-only rows above `height` and replays the journal; inside the rollback transaction. */
  rollbackAbove(height: number): void {
    this.journal.rollbackAbove(height);
    for (const table of APPEND_ONLY_TABLES) this.db.prepare(`DELETE FROM ${table} WHERE height > ?`).run(height);
    this.reloadCounters();
    // Restored locations are outpoints the filter has seen before; nothing to remove (a Bloom filter
    // only over-approximates).
    this.loadFilter();
  }

  /** Re-reads the in-memory counters from the database (after a rollback or a failed batch). */
  reloadCounters(): void {
    this.firstInputOwners.clear();
    this.pendingDoginals = (this.q.countPending.get() as { n: number }).n;
    this.nextNumber = (this.q.maxNumber.get() as { n: number }).n + 1;
    this.feeBound = [];
    this.feeBase = 0n;
  }

  pruneJournal(belowHeight: number): void {
    this.journal.prune(belowHeight);
  }

  /** Changes below `height` go unjournaled (Journal.recordFrom): the batch prunes below it when it ends. */
  journalFrom(height: number): void {
    this.journal.recordFrom(height);
  }

  // ---------------------------------------------------------------- detection

  private detectNew(
    tx: DecodedTransaction,
    position: number,
    height: number,
    spent: SpentInput[],
    inputs: FlowInput[],
  ): NewInscription | null {
    // A Doginals reveal continuing a pending chain spends the outpoint it waits on with input 0.
    if (this.pendingDoginals > 0 && spent.length > 0) {
      const outpoint = `${spent[0].txid}:${spent[0].vout}`;
      const pending = this.q.getPending.get(outpoint) as
        { inscription_id: string; state: string; inscriber_address: string | null } | undefined;
      if (pending) {
        this.journal.remember(height, "doginals_pending", [outpoint]);
        this.q.deletePending.run(outpoint);
        this.pendingDoginals -= 1;
        const assembly = DoginalsAssembly.fromJSON(JSON.parse(pending.state)).continueWith(
          readDoginalsInput(tx.inputs[0].scriptSig),
        );
        if (assembly.error) {
          this.q.insertRejection.run(
            this.txId(tx.txid),
            height,
            position,
            "doginals",
            `CHAIN_BROKEN_${assembly.error}`,
          );
          return null;
        }
        if (!assembly.complete) {
          this.storePending(`${tx.txid}:0`, pending.inscription_id, assembly, pending.inscriber_address, height);
          return null;
        }
        return {
          id: this.keyOf(pending.inscription_id),
          form: "doginals",
          contentType: assembly.contentType,
          action: null,
          body: assembly.body,
          envelopeHash: null,
          inputIndex: 0,
          inscriberId: pending.inscriber_address === null ? null : this.ids.addressIdOf(pending.inscriber_address),
          revealTxCount: assembly.transactionCount,
        };
      }
    }
    if (
      !tx.inputs.some((input) =>
        Buffer.from(input.scriptSig.buffer, input.scriptSig.byteOffset, input.scriptSig.byteLength).includes(ORD_PUSH),
      )
    )
      return null;

    const id = `${tx.txid}i0`;
    const read = readDoginalsInput(tx.inputs[0].scriptSig);
    if (read.kind === "start") {
      if (inputs[0]?.inscriptions.some((i) => i.offset === 0n)) {
        this.q.insertRejection.run(this.txId(tx.txid), height, position, "doginals", "REINSCRIPTION");
        return null;
      }
      const assembly = DoginalsAssembly.start(read);
      const inscriber = this.funderOf(spent[0]);
      if (!assembly.complete) {
        // The pending row keeps the inscriber's address text (doginals_pending.inscriber_address).
        const inscriberText = inscriber === null ? null : this.ids.addressTextOf(inscriber);
        this.storePending(`${tx.txid}:0`, id, assembly, inscriberText, height);
        return null;
      }
      return {
        id: this.keyOf(id),
        form: "doginals",
        contentType: assembly.contentType,
        action: null,
        body: assembly.body,
        envelopeHash: null,
        inputIndex: 0,
        inscriberId: inscriber,
        revealTxCount: 1,
      };
    }
    if (read.kind === "invalid" && tx.inputs[0].scriptSig.subarray(0, 4).every((b, i) => b === ORD_PUSH[i])) {
      this.q.insertRejection.run(this.txId(tx.txid), height, position, "doginals", read.reason);
    }
    const search = findV1Inscription(tx);
    if (!search.inscription) {
      for (const issue of search.issues) this.q.insertRejection.run(this.txId(tx.txid), height, position, "v1", issue);
      return null;
    }
    const found = search.inscription;
    if (inputs[found.firstInput]?.inscriptions.some((i) => i.offset === 0n)) {
      this.q.insertRejection.run(this.txId(tx.txid), height, position, "v1", "REINSCRIPTION");
      return null;
    }
    return {
      id: this.keyOf(id),
      form: "v1",
      contentType: found.contentType,
      action: found.action,
      body: found.body,
      envelopeHash: found.envelopeHash,
      inputIndex: found.firstInput,
      inscriberId: this.funderOf(spent[found.firstInput]),
      revealTxCount: 1,
    };
  }

  private storePending(
    outpoint: string,
    inscriptionId: string,
    assembly: DoginalsAssembly,
    inscriber: string | null,
    height: number,
  ): void {
    this.journal.remember(height, "doginals_pending", [outpoint]);
    this.q.putPending.run(outpoint, inscriptionId, JSON.stringify(assembly.toJSON()), inscriber, height);
    this.pendingDoginals += 1;
  }

  /** The address id of who funded the commit a reveal input spends: the owner of the commit's input 0. */
  private funderOf(input: SpentInput | undefined): number | null {
    if (!input || input.txId === null) return null;
    const remembered = this.firstInputOwners.get(input.txId);
    if (remembered !== undefined) return remembered;
    // The commit's id is known: no lookup by txid.
    const row = this.q.funder.get(input.txId, input.txId) as { address_id: number | bigint | null } | undefined;
    return row?.address_id == null ? null : Number(row.address_id);
  }

  /**
   * Owners of recent transactions' input 0 (what `funder` would read back), so that a reveal of a
   * recent commit (nearly always in the same or the next few blocks) needs no query. Cleared with
   * every rollback and failed batch (transaction ids are then given out again).
   */
  private readonly firstInputOwners = new RecentIdMap();

  /** Remembers who paid transaction `txId`'s input 0 (keyed by the transaction's id in the index). */
  private rememberFirstInput(txId: number, input: SpentInput | undefined): void {
    this.firstInputOwners.set(txId, input && input.txId !== null ? input.addressId : null);
  }

  // ---------------------------------------------------------------- new inscriptions and protocols

  private recordNew(
    found: NewInscription,
    tx: DecodedTransaction,
    position: number,
    height: number,
    landing: { owner: string | null } | null,
  ): void {
    const launchpad = found.contentType.startsWith("application/json")
      ? parseLaunchpadBody(found.body, found.contentType, found.action)
      : null;
    const collectionKey = launchpad && launchpad.ok ? launchpad.body.slug : null;
    const key = Number(found.id);
    // The inscriber as the launchpad rules compare it: its address id (a string), like a deploy's.
    const inscriber = found.inscriberId === null ? null : String(found.inscriberId);
    this.q.insertInscription.run(
      key,
      this.nextNumber++,
      found.form,
      found.contentType,
      found.action,
      Buffer.from(found.body),
      found.body.length,
      found.envelopeHash === null ? null : Buffer.from(found.envelopeHash, "hex"),
      collectionKey,
      this.txId(tx.txid),
      found.revealTxCount,
      inscriber === null ? null : Number(inscriber),
      height,
      position,
    );

    // DRC-20: classic Doginals text bodies from single-transaction reveals (as wonky-ord-dogecoin reads them).
    if (found.form === "doginals" && found.revealTxCount === 1) {
      const parsed = parseDrc20(found.body, found.contentType);
      if (parsed.ok) {
        this.applyDrc20Event(found.id, position, height, {
          kind: "inscribe",
          operation: parsed.op,
          ownerAddress: landing ? landing.owner : null,
        });
      } else if (!NOT_DRC20.has(parsed.reason)) {
        this.q.insertOperation.run(
          height,
          position,
          this.opSeq++,
          key,
          "inscribe",
          null,
          null,
          null,
          null,
          landing?.owner == null ? null : Number(landing.owner),
          0,
          parsed.reason,
          parsed.field ?? null,
        );
      }
    }

    if (launchpad) {
      if (!launchpad.ok) {
        if (!NOT_LAUNCHPAD.has(launchpad.reason))
          this.q.insertLaunchpadOp.run(key, height, position, "invalid", null, null, 0, launchpad.reason);
      } else if (launchpad.body.kind === "deploy") {
        const body = launchpad.body;
        if (this.q.getCollection.get(body.slug)) {
          this.q.insertLaunchpadOp.run(key, height, position, "deploy", body.slug, null, 0, "SLUG_TAKEN");
        } else if (inscriber === null) {
          this.q.insertLaunchpadOp.run(key, height, position, "deploy", body.slug, null, 0, "INSCRIBER_UNKNOWN");
        } else {
          this.journal.remember(height, "collections", [body.slug]);
          this.q.putCollection.run(
            body.slug,
            body.name,
            body.priceKoinu.toString(),
            body.maxSupply.toString(),
            Number(inscriber),
            key,
            height,
          );
          this.q.insertLaunchpadOp.run(key, height, position, "deploy", body.slug, null, 1, null);
        }
      } else {
        const mint = launchpad.body;
        const row = this.q.getCollection.get(mint.slug) as
          | { slug: string; name: string; price_koinu: string; max_supply: string; inscriber_id: number | bigint }
          | undefined;
        const deploy: IndexedLaunchpadDeploy | null = row
          ? {
              kind: "deploy",
              slug: row.slug,
              name: row.name,
              priceKoinu: BigInt(row.price_koinu),
              maxSupply: BigInt(row.max_supply),
              inscriberAddress: String(row.inscriber_id),
            }
          : null;
        const alreadyMinted = this.q.memberExists.get(mint.slug, mint.tokenId.toString()) !== undefined;
        const verdict = judgeMint(mint, deploy, { alreadyMinted, inscriberAddress: inscriber ?? "" });
        if (verdict.member) {
          this.q.insertMember.run(mint.slug, mint.tokenId.toString(), key, height);
          this.journal.remember(height, "collections", [mint.slug]);
          this.q.bumpMinted.run(mint.slug);
        }
        this.q.insertLaunchpadOp.run(
          key,
          height,
          position,
          "mint",
          mint.slug,
          mint.tokenId.toString(),
          verdict.member ? 1 : 0,
          verdict.reason ?? null,
        );
      }
    }
  }

  private readonly drc20View: Drc20View = {
    getTick: (tickKey: string): Drc20TickState | null => {
      const row = this.q.getTick.get(tickKey) as
        { tick: string; max_supply: string; mint_limit: string; minted: string } | undefined;
      return row
        ? {
            tick: row.tick,
            maxSupply: BigInt(row.max_supply),
            mintLimit: BigInt(row.mint_limit),
            minted: BigInt(row.minted),
          }
        : null;
    },
    getBalance: (address: string, tickKey: string): Drc20Balance => {
      const row = this.q.getBalance.get(Number(address), tickKey) as
        { available: string; transferable: string } | undefined;
      return row
        ? { available: BigInt(row.available), transferable: BigInt(row.transferable) }
        : { available: 0n, transferable: 0n };
    },
    getTransfer: (inscriptionId: string): Drc20TransferState | null => {
      const row = this.q.getTransfer.get(Number(inscriptionId)) as
        { tick_key: string; amount: string; owner_id: number | bigint; sent: number } | undefined;
      return row
        ? {
            tickKey: row.tick_key,
            amount: BigInt(row.amount),
            ownerAddress: String(row.owner_id),
            sent: Number(row.sent) !== 0,
          }
        : null;
    },
  };

  private applyDrc20Event(inscriptionId: string, position: number, height: number, action: Drc20Action): void {
    // Most inscriptions that move are not DRC-20 transfers: those need no read.
    if (action.kind === "send" && !this.transferKeys.has(Number(inscriptionId))) return;
    const transfer = action.kind === "send" ? this.drc20View.getTransfer(inscriptionId) : null;
    if (action.kind === "send" && !transfer) return; // not a DRC-20 transfer inscription
    const outcome = applyDrc20(action, { inscriptionId, height }, this.drc20View);
    for (const effect of outcome.effects) this.applyEffect(effect, height);
    // Later sends of a spent transfer inscription change no balance but are recorded like every
    // other ignored operation, with their reason (TRANSFER_ALREADY_SENT; DESIGN.md 4.4).
    const op = action.kind === "inscribe" ? action.operation : null;
    const address = action.kind === "inscribe" ? action.ownerAddress : action.toAddress;
    // Send rows name the transfer's tick and amount so that queries by tick find them too.
    const tickKey = op?.tickKey ?? transfer?.tickKey ?? null;
    const tick = op?.tick ?? (transfer ? (this.drc20View.getTick(transfer.tickKey)?.tick ?? null) : null);
    const amount = op
      ? (op.kind === "deploy" ? op.maxSupply : op.amount).toString()
      : transfer
        ? transfer.amount.toString()
        : null;
    this.q.insertOperation.run(
      height,
      position,
      this.opSeq++,
      Number(inscriptionId),
      action.kind,
      op?.kind ?? (transfer ? "transfer" : null),
      tickKey,
      tick,
      amount,
      address === null ? null : Number(address),
      outcome.valid ? 1 : 0,
      outcome.reason ?? null,
      outcome.note ?? null,
    );
  }

  private applyEffect(effect: Drc20Effect, height: number): void {
    const balance = (address: string, tickKey: string) => {
      this.journal.remember(height, "drc20_balances", [Number(address), tickKey]);
      return this.drc20View.getBalance(address, tickKey);
    };
    switch (effect.type) {
      case "createTick":
        this.journal.remember(height, "drc20_ticks", [effect.tickKey]);
        this.q.putTick.run(
          effect.tickKey,
          effect.tick,
          effect.maxSupply.toString(),
          effect.mintLimit.toString(),
          Number(effect.deployerAddress),
          Number(effect.inscriptionId),
          height,
        );
        break;
      case "addMinted": {
        const tick = this.drc20View.getTick(effect.tickKey)!;
        this.journal.remember(height, "drc20_ticks", [effect.tickKey]);
        this.q.setMinted.run((tick.minted + effect.amount).toString(), effect.tickKey);
        break;
      }
      case "creditAvailable": {
        const b = balance(effect.address, effect.tickKey);
        this.q.putBalance.run(
          Number(effect.address),
          effect.tickKey,
          (b.available + effect.amount).toString(),
          b.transferable.toString(),
        );
        break;
      }
      case "moveAvailableToTransferable": {
        const b = balance(effect.address, effect.tickKey);
        this.q.putBalance.run(
          Number(effect.address),
          effect.tickKey,
          (b.available - effect.amount).toString(),
          (b.transferable + effect.amount).toString(),
        );
        break;
      }
      case "debitTransferable": {
        const b = balance(effect.address, effect.tickKey);
        this.q.putBalance.run(
          Number(effect.address),
          effect.tickKey,
          b.available.toString(),
          (b.transferable - effect.amount).toString(),
        );
        break;
      }
      case "createTransfer":
        this.journal.remember(height, "drc20_transfers", [Number(effect.inscriptionId)]);
        this.transferKeys.add(Number(effect.inscriptionId));
        this.q.putTransfer.run(
          Number(effect.inscriptionId),
          effect.tickKey,
          effect.amount.toString(),
          Number(effect.ownerAddress),
          height,
        );
        break;
      case "markTransferSent":
        this.journal.remember(height, "drc20_transfers", [Number(effect.inscriptionId)]);
        this.q.markSent.run(
          Number(effect.receiverAddress),
          effect.returnedToSender ? 1 : 0,
          height,
          Number(effect.inscriptionId),
        );
        break;
    }
  }
}
