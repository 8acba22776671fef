/** DRC-20: balances by tick, deployed ticks, transfer inscriptions and where they moved. */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlDatabase } from "../../db/sql";
import { byInscriptionId, inscriptionIdOf, inscriptionTxidKey } from "./inscriptions";
import { PlanRunner, ReadPlan, hexOf, prepareAll, rowsOf, txidKey } from "./rows";
import { refuseWhileCatchUpLogged } from "./status";

export interface Drc20TickView {
  tick: string;
  maxSupply: string;
  mintLimit: string;
  minted: string;
  deployerAddress: string;
  inscriptionId: string;
  height: number;
}

export interface TransferInscriptionView {
  inscription_id: string;
  tick_key: string;
  tick: string;
  amount: string;
  owner_address: string;
  sent: number;
  receiver_address: string | null;
  returned: number;
  height: number;
  sent_height: number | null;
  reveal_txid: string;
  body: string;
  content_type: string;
  location_txid: string | null;
  location_vout: number | null;
}

/** A first send of a DRC-20 transfer inscription into an address (what a DRC-20 deposit is). */
export interface Drc20Receipt {
  tick: string;
  amount: string;
  sender: string;
  height: number;
}

// Schema version 9: inscriptions, transactions and addresses are ids, read back through txs and addresses.
const ADDRESS_ID = "(SELECT id FROM addresses WHERE address = ?)";

const TRANSFERS = `SELECT g.txid AS genesis_txid, t.tick_key, d.tick, t.amount, ow.address AS owner_address, t.sent,
  rc.address AS receiver_address, t.returned, t.height, t.sent_height, r.txid AS reveal_txid, i.body, i.content_type,
  lt.txid AS location_txid, l.vout AS location_vout
  FROM drc20_transfers t JOIN drc20_ticks d ON d.tick_key = t.tick_key JOIN inscriptions i ON i.id = t.inscription_id
  JOIN txs g ON g.id = t.inscription_id JOIN txs r ON r.id = i.reveal_tx_id JOIN addresses ow ON ow.id = t.owner_id
  LEFT JOIN addresses rc ON rc.id = t.receiver_id LEFT JOIN inscription_locations l ON l.inscription_id = t.inscription_id
  LEFT JOIN txs lt ON lt.id = l.tx_id WHERE t.owner_id = ${ADDRESS_ID}`;

const UNSENT_TRANSFER = `SELECT d.tick, t.amount FROM drc20_transfers t JOIN drc20_ticks d ON d.tick_key = t.tick_key
  WHERE t.inscription_id = ${TX_ID_OF_TXID} AND t.sent = 0`;

/** The tick and amount of the transfer inscription `inscriptionId` while it is unsent (a read plan, ./rows.ts). */
export function* unsentTransfer(inscriptionId: string): ReadPlan<{ tick: string; amount: string } | null> {
  const key = inscriptionTxidKey(inscriptionId);
  if (key === null) return null;
  const [row] = yield* rowsOf<{ tick: string; amount: string }>(UNSENT_TRANSFER, [key], { one: true });
  return row ?? null;
}

/** A TRANSFERS row as both backends return it. */
interface TransferRow {
  genesis_txid: Uint8Array;
  tick_key: string;
  tick: string;
  amount: string;
  owner_address: string;
  sent: number | bigint;
  receiver_address: string | null;
  returned: number | bigint;
  height: number | bigint;
  sent_height: number | bigint | null;
  reveal_txid: Uint8Array;
  body: Uint8Array;
  content_type: string;
  location_txid: Uint8Array | null;
  location_vout: number | null;
}

export class Drc20Reads {
  private readonly s;
  private readonly plans: PlanRunner;

  constructor(db: SqlDatabase) {
    this.plans = new PlanRunner(db);
    this.s = prepareAll(db, {
      balances: `SELECT b.tick_key, t.tick, b.available, b.transferable FROM drc20_balances b JOIN drc20_ticks t ON t.tick_key = b.tick_key
        WHERE b.address_id = ${ADDRESS_ID} AND (b.available != '0' OR b.transferable != '0') ORDER BY b.tick_key`,
      balance: `SELECT available, transferable FROM drc20_balances WHERE address_id = ${ADDRESS_ID} AND tick_key = ?`,
      tick: `SELECT d.tick, d.max_supply, d.mint_limit, d.minted, a.address AS deployer_address, g.txid AS genesis_txid, d.height
        FROM drc20_ticks d JOIN addresses a ON a.id = d.deployer_id JOIN txs g ON g.id = d.inscription_id WHERE d.tick_key = ?`,
      unsentTransfer: UNSENT_TRANSFER,
      carriers: `SELECT lt.txid, l.tx_id, l.vout, l.offset, g.txid AS genesis_txid, t.amount FROM inscription_locations l
        JOIN drc20_transfers t ON t.inscription_id = l.inscription_id AND t.sent = 0 JOIN txs lt ON lt.id = l.tx_id
        JOIN txs g ON g.id = l.inscription_id WHERE l.owner_id = ${ADDRESS_ID} AND t.tick_key = ?`,
      unspentOutput: `SELECT o.value, x.height FROM outputs o JOIN txs x ON x.id = o.tx_id
        WHERE o.tx_id = ? AND o.vout = ? AND o.spent_tx_id IS NULL`,
      transfers: TRANSFERS,
      transfersRevealedBy: `${TRANSFERS} AND i.reveal_tx_id = ${TX_ID_OF_TXID}`,
      // The transaction's moves are found through its block (the key of inscription_moves starts with the height): moves have no transaction index.
      receipts: `SELECT d.tick, t.amount, ow.address AS owner_address, m.height, g.txid AS genesis_txid FROM txs x
        JOIN inscription_moves m ON m.height = x.height AND m.tx_id = x.id
        JOIN drc20_transfers t ON t.inscription_id = m.inscription_id JOIN drc20_ticks d ON d.tick_key = t.tick_key
        JOIN addresses ow ON ow.id = t.owner_id JOIN txs g ON g.id = t.inscription_id
        WHERE x.id = ${TX_ID_OF_TXID} AND t.sent = 1 AND t.returned = 0 AND t.receiver_id = ${ADDRESS_ID} AND t.sent_height = m.height`,
    });
    this.s.carriers.safeIntegers(true);
    this.s.unspentOutput.safeIntegers(true);
  }

  /** `address`'s non-zero balances, by tick key. */
  balances(address: string): { tick: string; available: string; transferable: string }[] {
    return (this.s.balances.all(address) as { tick: string; available: string; transferable: string }[]).map((r) => ({
      tick: r.tick,
      available: r.available,
      transferable: r.transferable,
    }));
  }

  /** `address`'s balance of the tick keyed `tickKey` (the tick in lower case); zero when it holds none. */
  balance(address: string, tickKey: string): { available: bigint; transferable: bigint } {
    const row = this.s.balance.get(address, tickKey) as { available: string; transferable: string } | undefined;
    return row
      ? { available: BigInt(row.available), transferable: BigInt(row.transferable) }
      : { available: 0n, transferable: 0n };
  }

  /** The deployed tick keyed `tickKey`, or null when no valid deploy is indexed. */
  tick(tickKey: string): Drc20TickView | null {
    const r = this.s.tick.get(tickKey) as
      | {
          tick: string;
          max_supply: string;
          mint_limit: string;
          minted: string;
          deployer_address: string;
          genesis_txid: Uint8Array;
          height: number;
        }
      | undefined;
    return r
      ? {
          tick: r.tick,
          maxSupply: r.max_supply,
          mintLimit: r.mint_limit,
          minted: r.minted,
          deployerAddress: r.deployer_address,
          inscriptionId: inscriptionIdOf(r.genesis_txid),
          height: Number(r.height),
        }
      : null;
  }

  /** The tick and amount of the transfer inscription `inscriptionId` while it is unsent. */
  unsentTransfer(inscriptionId: string): { tick: string; amount: string } | null {
    const key = inscriptionTxidKey(inscriptionId);
    if (key === null) return null;
    return (this.s.unsentTransfer.get(key) as { tick: string; amount: string } | undefined) ?? null;
  }

  /** Unspent outputs of `address` carrying unsent DRC-20 transfer inscriptions of one tick. */
  tickCarriers(address: string, tickKey: string) {
    this.plans.run(refuseWhileCatchUpLogged({ address, tick: tickKey }));
    const carriers = [];
    const rows = (
      this.s.carriers.all(address, tickKey) as {
        txid: Uint8Array;
        tx_id: bigint;
        vout: bigint;
        offset: bigint;
        genesis_txid: Uint8Array;
        amount: string;
      }[]
    ).map((r) => ({ ...r, inscriptionId: inscriptionIdOf(r.genesis_txid) }));
    rows.sort(byInscriptionId((r) => r.inscriptionId));
    for (const r of rows) {
      const output = this.s.unspentOutput.get(r.tx_id, r.vout) as { value: bigint; height: bigint } | undefined;
      if (!output) continue;
      carriers.push({
        txid: hexOf(r.txid),
        vout: Number(r.vout),
        offset: Number(r.offset),
        inscriptionId: r.inscriptionId,
        amount: r.amount,
        valueKoinu: BigInt(output.value),
        height: Number(output.height),
      });
    }
    // Oldest output first, then by outpoint (ties keep the inscription id order they were read in).
    return carriers.sort(
      (a, b) => a.height - b.height || (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0) || a.vout - b.vout,
    );
  }

  /**
   * DRC-20 transfer inscriptions inscribed by `address` (only those revealed by `revealTxid` when
   * given), oldest or newest first; `total` counts them (all of the address's are read).
   */
  transferInscriptions(
    address: string,
    options: { order: "asc" | "desc"; count: number; revealTxid: string | null },
  ): { total: number; items: TransferInscriptionView[] } {
    const found = (
      options.revealTxid === null
        ? this.s.transfers.all(address)
        : this.s.transfersRevealedBy.all(address, txidKey(options.revealTxid))
    ) as TransferRow[];
    // Built key by key in the view's order (the answer is serialised in it).
    const rows: TransferInscriptionView[] = found.map((r) => ({
      inscription_id: inscriptionIdOf(r.genesis_txid),
      tick_key: r.tick_key,
      tick: r.tick,
      amount: r.amount,
      owner_address: r.owner_address,
      sent: Number(r.sent),
      receiver_address: r.receiver_address,
      returned: Number(r.returned),
      height: Number(r.height),
      sent_height: r.sent_height === null ? null : Number(r.sent_height),
      reveal_txid: hexOf(r.reveal_txid),
      body: hexOf(r.body),
      content_type: r.content_type,
      location_txid: r.location_txid === null ? null : hexOf(r.location_txid),
      location_vout: r.location_vout,
    }));
    // Bytewise order of the ids on ties, as both backends compare strings.
    rows.sort(
      (a, b) =>
        (options.order === "asc" ? 1 : -1) *
        (a.height - b.height ||
          (a.inscription_id < b.inscription_id ? -1 : a.inscription_id > b.inscription_id ? 1 : 0)),
    );
    return { total: rows.length, items: rows.slice(0, options.count) };
  }

  /**
   * First sends, by transaction `txid`, of DRC-20 transfer inscriptions to `address` that credited
   * it (not returned to their sender), with who sent each: the DRC-20 deposits of `txid` to `address`.
   */
  receiptsOf(txid: string, address: string): Drc20Receipt[] {
    const rows = (
      this.s.receipts.all(txidKey(txid), address) as {
        tick: string;
        amount: string;
        owner_address: string;
        height: number;
        genesis_txid: Uint8Array;
      }[]
    ).map((r) => ({ ...r, inscriptionId: inscriptionIdOf(r.genesis_txid) }));
    rows.sort(byInscriptionId((r) => r.inscriptionId));
    return rows.map((r) => ({ tick: r.tick, amount: r.amount, sender: r.owner_address, height: Number(r.height) }));
  }
}
