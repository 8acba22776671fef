/** DRC-20: balances by tick, deployed ticks, transfer inscriptions and where they moved. */
import type { SqlDatabase } from "../../db/sql";
import { ReadPlan, hexOf, prepareAll, rowsOf, txidKey } from "./rows";

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

const TRANSFERS = `SELECT t.inscription_id, t.tick_key, d.tick, t.amount, t.owner_address, t.sent, t.receiver_address, t.returned, t.height, t.sent_height,
  i.reveal_txid, i.body, i.content_type, l.txid AS location_txid, l.vout AS location_vout
  FROM drc20_transfers t JOIN drc20_ticks d ON d.tick_key = t.tick_key JOIN inscriptions i ON i.id = t.inscription_id
  LEFT JOIN inscription_locations l ON l.inscription_id = t.inscription_id WHERE t.owner_address = ?`;

const UNSENT_TRANSFER =
  "SELECT d.tick, t.amount FROM drc20_transfers t JOIN drc20_ticks d ON d.tick_key = t.tick_key WHERE t.inscription_id = ? AND t.sent = 0";

/** The tick and amount of the transfer inscription `inscriptionId` while it is unsent (a read plan, ./rows.ts). */
export function* unsentTransfer(inscriptionId: string): ReadPlan<{ tick: string; amount: string } | null> {
  const [row] = yield* rowsOf<{ tick: string; amount: string }>(UNSENT_TRANSFER, [inscriptionId], { one: true });
  return row ?? null;
}

export class Drc20Reads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      balances: `SELECT b.tick_key, t.tick, b.available, b.transferable FROM drc20_balances b JOIN drc20_ticks t ON t.tick_key = b.tick_key
        WHERE b.address = ? AND (b.available != '0' OR b.transferable != '0') ORDER BY b.tick_key`,
      balance: "SELECT available, transferable FROM drc20_balances WHERE address = ? AND tick_key = ?",
      tick: "SELECT tick, max_supply, mint_limit, minted, deployer_address, inscription_id, height FROM drc20_ticks WHERE tick_key = ?",
      unsentTransfer: UNSENT_TRANSFER,
      // The carriers' outputs are read one by one (locations keep the txid as text, outputs its id).
      carriers: `SELECT l.txid, l.vout, l.offset, l.inscription_id, t.amount FROM inscription_locations l
        JOIN drc20_transfers t ON t.inscription_id = l.inscription_id AND t.sent = 0
        WHERE l.owner_address = ? AND t.tick_key = ? AND l.txid IS NOT NULL ORDER BY l.inscription_id`,
      unspentOutput: `SELECT o.value, x.height FROM txs x JOIN outputs o ON o.tx_id = x.id AND o.vout = ?
        WHERE x.txid = ? AND o.spent_tx_id IS NULL`,
      transfers: TRANSFERS,
      transfersRevealedBy: `${TRANSFERS} AND i.reveal_txid = ?`,
      // The transaction's moves are found through its block (inscription_moves_by_height): moves have no txid index.
      receipts: `SELECT d.tick, t.amount, t.owner_address, m.height FROM txs x
        JOIN inscription_moves m ON m.height = x.height AND m.txid = ?
        JOIN drc20_transfers t ON t.inscription_id = m.inscription_id JOIN drc20_ticks d ON d.tick_key = t.tick_key
        WHERE x.txid = ? AND t.sent = 1 AND t.returned = 0 AND t.receiver_address = ? AND t.sent_height = m.height ORDER BY t.inscription_id`,
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
          inscription_id: string;
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
          inscriptionId: r.inscription_id,
          height: Number(r.height),
        }
      : null;
  }

  /** The tick and amount of the transfer inscription `inscriptionId` while it is unsent. */
  unsentTransfer(inscriptionId: string): { tick: string; amount: string } | null {
    return (this.s.unsentTransfer.get(inscriptionId) as { tick: string; amount: string } | undefined) ?? null;
  }

  /** Unspent outputs of `address` carrying unsent DRC-20 transfer inscriptions of one tick. */
  tickCarriers(address: string, tickKey: string) {
    const carriers = [];
    for (const r of this.s.carriers.all(address, tickKey) as {
      txid: string;
      vout: bigint;
      offset: bigint;
      inscription_id: string;
      amount: string;
    }[]) {
      const output = this.s.unspentOutput.get(r.vout, txidKey(r.txid)) as { value: bigint; height: bigint } | undefined;
      if (!output) continue;
      carriers.push({
        txid: r.txid,
        vout: Number(r.vout),
        offset: Number(r.offset),
        inscriptionId: r.inscription_id,
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
        : this.s.transfersRevealedBy.all(address, options.revealTxid)
    ) as (Omit<TransferInscriptionView, "body"> & { body: Buffer })[];
    const rows = found.map((r) => ({
      ...r,
      height: Number(r.height),
      sent: Number(r.sent),
      returned: Number(r.returned),
      sent_height: r.sent_height === null ? null : Number(r.sent_height),
      body: hexOf(r.body),
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
    return (
      this.s.receipts.all(txid, txidKey(txid), address) as {
        tick: string;
        amount: string;
        owner_address: string;
        height: number;
      }[]
    ).map((r) => ({ tick: r.tick, amount: r.amount, sender: r.owner_address, height: Number(r.height) }));
  }
}
