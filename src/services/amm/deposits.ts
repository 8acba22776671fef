/**
 * Deposits as the explorer's index shows them (the AMM never trusts a client's word for money).
 *
 * A deposit is bound to its depositor by where its money came from: the AMM pays out to the swap's
 * or the provider's address, and only a transaction funded from that address counts as its
 * deposit. So someone else's deposit txid cannot be claimed for another swap, and each txid is
 * consumed once (the `deposits` table).
 *
 * - DOGE: the transaction is in an indexed block; every one of its inputs spends an output of the
 *   depositor's address; the deposit is the sum of its outputs paying the custody address.
 * - DRC-20: the transaction moves a DRC-20 transfer inscription of the tick, inscribed by the
 *   depositor (the transfer's owner), to the custody address (the indexer credited it: `sent`, not
 *   returned); the deposit is the transfer's amount. One transaction may move several.
 */
import type { Sqlite } from "../../db/sqlite";
import { IndexQueries } from "../../indexer/queries";
import { conflict, unprocessable } from "../http/errors";

export interface DogeDeposit {
  txid: string;
  height: number;
  blockTime: number;
  /** Koinu paid to the custody address. */
  amount: bigint;
  /** The address every input spent from, or null when the inputs came from several or unknown addresses. */
  payer: string | null;
}

export interface Drc20Deposit {
  txid: string;
  height: number;
  blockTime: number;
  tick: string;
  /** Whole units credited to the custody address. */
  amount: bigint;
  /** The transfers' owner, or null when the transfers moved were inscribed by several addresses. */
  payer: string | null;
}

export class DepositReader {
  private readonly s;

  constructor(private readonly queries: IndexQueries, indexDb: Sqlite, readonly custodyAddress: string) {
    this.s = {
      drc20Moves: indexDb.prepare(`SELECT d.tick, t.amount, t.owner_address, m.height FROM inscription_moves m
        JOIN drc20_transfers t ON t.inscription_id = m.inscription_id JOIN drc20_ticks d ON d.tick_key = t.tick_key
        WHERE m.txid = ? AND t.sent = 1 AND t.returned = 0 AND t.receiver_address = ? AND t.sent_height = m.height`),
    };
  }

  /** The indexed height (what "not found" means: not in a block up to this height). */
  indexedHeight(): number {
    return this.queries.status().indexedHeight;
  }

  /** A DOGE deposit to the custody address, or null when the transaction is not in an indexed block. */
  doge(txid: string): DogeDeposit | null {
    const tx = this.queries.tx(txid);
    if (!tx) return null;
    const amount = tx.outputs.filter((o) => o.address === this.custodyAddress).reduce((sum, o) => sum + o.valueKoinu, 0n);
    const payers = new Set([...this.queries.txInputs(txid).values()].map((input) => input.address));
    const payer = payers.size === 1 ? [...payers][0] : null;
    return { txid, height: tx.height, blockTime: tx.blockTime, amount, payer };
  }

  /** The DRC-20 `tick` credited to the custody address by `txid`, or null when it is not in an indexed block. */
  drc20(txid: string, tick: string): Drc20Deposit | null {
    const tx = this.queries.tx(txid);
    if (!tx) return null;
    const moves = (this.s.drc20Moves.all(txid, this.custodyAddress) as { tick: string; amount: string; owner_address: string; height: number }[])
      .filter((m) => m.tick.toLowerCase() === tick.toLowerCase());
    const payers = new Set(moves.map((m) => m.owner_address));
    return {
      txid, height: tx.height, blockTime: tx.blockTime, tick,
      amount: moves.reduce((sum, m) => sum + BigInt(m.amount), 0n),
      payer: payers.size === 1 ? [...payers][0] : null,
    };
  }
}

/**
 * The deposits the AMM consumed (its `deposits` table: a txid once, whatever used it: a swap, a
 * liquidity add, a bonding buy or sell). Calls run inside the caller's write transaction.
 */
export class UsedDeposits {
  private readonly s;

  constructor(db: Sqlite) {
    this.s = {
      get: db.prepare("SELECT kind, ref_id FROM deposits WHERE txid = ?"),
      use: db.prepare("INSERT INTO deposits (txid, kind, ref_id, asset, amount, address, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    };
  }

  /** What consumed `txid`, or null. */
  usedBy(txid: string): { kind: string; refId: string } | null {
    const row = this.s.get.get(txid) as { kind: string; ref_id: string } | undefined;
    return row ? { kind: row.kind, refId: row.ref_id } : null;
  }

  /** 409 DEPOSIT_ALREADY_USED when `txid` was consumed before. */
  refuseUsed(txid: string): void {
    const used = this.usedBy(txid);
    if (used) throw conflict("DEPOSIT_ALREADY_USED", `deposit ${txid} was already used (${used.kind} ${used.refId})`, { deposit_txid: txid, used_by: used.refId });
  }

  use(txid: string, kind: string, refId: string, asset: "DOGE" | "DRC20", amount: bigint, address: string, now: number): void {
    this.s.use.run(txid, kind, refId, asset, amount.toString(), address, now);
  }
}

/**
 * The refusals that consume nothing, because the deposit is not this depositor's: it pays no
 * `asset` to the custody (422 DEPOSIT_NOT_TO_CUSTODY), or it is not funded from `address` only
 * (422 DEPOSIT_NOT_FROM_ADDRESS; `whose` names the address in the message, e.g. "the swap's address").
 */
export function checkDepositOwner(deposit: DogeDeposit | Drc20Deposit, custodyAddress: string, asset: string, address: string, whose: string): void {
  if (deposit.amount === 0n) {
    throw unprocessable("DEPOSIT_NOT_TO_CUSTODY", `${deposit.txid} pays no ${asset} to the deposit address ${custodyAddress}`, { deposit_txid: deposit.txid, deposit_address: custodyAddress });
  }
  if (deposit.payer !== address) {
    throw unprocessable("DEPOSIT_NOT_FROM_ADDRESS", `${deposit.txid} is not funded from ${whose} ${address} only`, { deposit_txid: deposit.txid, address, payer: deposit.payer });
  }
}
