/**
 * Deposits as the explorer's index shows them (the AMM never trusts a client's word for money), and
 * the one procedure that binds a deposit to an order (docs/security.md "AMM and bonding custody").
 *
 * The binding rule (DESIGN.md section 8, the payer-signed order):
 * - The payer of a DOGE deposit is the address of its first input (vin 0): a wallet that funds a
 *   payment from several of its addresses still has one payer, who signs and is refunded. The
 *   payer of a DRC-20 deposit is the owner of the transfer inscriptions it moves to the custody.
 * - A deposit counts only for an order whose address is its payer, and only when that payer signed
 *   the order's terms together with the deposit's txid (orders.ts: the message names the service,
 *   the network and the custody address). Nobody but the payer can bind a deposit, so a deposit
 *   mined before someone else's order for the payer's address never counts for it.
 * - No transaction with an input from a service address (the custody itself, the operator's
 *   wallets) is a deposit: the custody's own change and the inscriber's postage never count.
 * - A deposit counts only once it is `confirmations` deep (a per-network default, floor 1); until
 *   then the order waits (pending) and nothing is consumed, so a deposit reorged out or
 *   double-spent before that depth is never credited.
 * - Each txid is consumed once (the `deposits` table), whatever consumed it.
 */
import type { Sqlite } from "../../db/sqlite";
import { DogeNetwork, NETWORKS, addressToOutputScript, bytesToHex } from "../../doge";
import type { IndexQueries } from "../../indexer/queries";
import { OutputFacts, UnspendableReason, unspendableReason } from "../../wallet/spendable";
import { Refusal, conflict, unprocessable } from "../../errors";

interface DepositBase {
  txid: string;
  height: number;
  blockTime: number;
  /** Blocks from the indexed tip down to the deposit's block, both counted (1 = in the tip). */
  confirmations: number;
  /** Base units paid to the custody address: koinu, or whole DRC-20 units. */
  amount: bigint;
  /** Who paid (see the binding rule), or null when no payer can be named (a coinbase, no transfer). */
  payer: string | null;
  /** True when an input of the transaction spent an output of a service address: never a deposit. */
  serviceFunded: boolean;
}

export interface DogeDeposit extends DepositBase {
  /**
   * Outputs the index attributes to the custody address that the custody cannot spend with its own
   * key (src/wallet/spendable.ts): not counted in `amount`.
   */
  unspendable: { vout: number; valueKoinu: bigint; reason: UnspendableReason }[];
}
export interface Drc20Deposit extends DepositBase {
  tick: string;
}
export type Deposit = DogeDeposit | Drc20Deposit;

export interface DepositReaderOptions {
  /** Depth at which a deposit counts (floor 1; default 1; daemons pass src/chain/depth.ts's per-network default). */
  confirmations?: number;
  /** Addresses of wallets the service controls besides the custody (the inscriber's, the operator's). */
  serviceAddresses?: readonly string[];
  /** The network of the custody address (its P2PKH script and coinbase maturity); default: read from the address's prefix. */
  network?: DogeNetwork;
}

/** The network whose P2PKH prefix `address` carries. */
function networkOfAddress(address: string): DogeNetwork {
  for (const network of Object.values(NETWORKS)) {
    try {
      addressToOutputScript(address, network);
      return network;
    } catch {
      // another network's prefix
    }
  }
  throw new RangeError(`${address} is not a Dogecoin address of a known network`);
}

export class DepositReader {
  /** Depth at which a deposit counts. */
  readonly confirmations: number;
  /** The custody address and every other address the service controls. */
  readonly serviceAddresses: ReadonlySet<string>;
  private readonly network: DogeNetwork;
  /** The custody's own P2PKH script (hex): the only script whose outputs it can spend. */
  private readonly custodyScriptHex: string;

  constructor(
    private readonly queries: IndexQueries,
    readonly custodyAddress: string,
    options: DepositReaderOptions = {},
  ) {
    const confirmations = options.confirmations ?? 1;
    if (!Number.isInteger(confirmations) || confirmations < 1)
      throw new RangeError(`deposit confirmations must be an integer of at least 1, got ${confirmations}`);
    this.confirmations = confirmations;
    this.serviceAddresses = new Set([custodyAddress, ...(options.serviceAddresses ?? [])]);
    this.network = options.network ?? networkOfAddress(custodyAddress);
    this.custodyScriptHex = bytesToHex(addressToOutputScript(custodyAddress, this.network));
  }

  /** The indexed height (what "not found" means: not in a block up to this height). */
  indexedHeight(): number {
    return this.queries.status().indexedHeight;
  }

  /** Whether `address` is one the service controls (the custody's, an operator's): never an order's address. */
  isServiceAddress(address: string): boolean {
    return this.serviceAddresses.has(address);
  }

  private funding(txid: string): { firstInputAddress: string | null; serviceFunded: boolean } {
    const inputs = this.queries.txInputs(txid);
    let serviceFunded = false;
    for (const input of inputs.values())
      if (input.address !== null && this.serviceAddresses.has(input.address)) serviceFunded = true;
    return { firstInputAddress: inputs.get(0)?.address ?? null, serviceFunded };
  }

  /** Why the custody cannot spend an output with its own key (the hot wallet's rule), or null. */
  private unspendable(output: OutputFacts): UnspendableReason | null {
    return unspendableReason(output, this.custodyScriptHex, this.network);
  }

  /**
   * The koinu the custody can spend with its own key as the index shows it now: its unspent outputs
   * that pass the hot wallet's rule (src/wallet/spendable.ts), never the address's balance, which
   * also counts inscribed and bare P2PK outputs. Reads every unspent output of the custody: for
   * rare checks (a graduation's seed), not a request's path.
   */
  spendableKoinu(): bigint {
    const tip = this.indexedHeight();
    let sum = 0n;
    for (const utxo of this.queries.allUtxos(this.custodyAddress)) {
      const reason = this.unspendable({
        scriptHex: utxo.scriptHex,
        inscriptionCount: utxo.inscriptions.length + utxo.drc20.length,
        coinbase: utxo.coinbase,
        confirmations: tip - utxo.height + 1,
      });
      if (reason === null) sum += utxo.valueKoinu;
    }
    return sum;
  }

  /**
   * A DOGE deposit to the custody address, or null when the transaction is not in an indexed block.
   * Its amount counts only the outputs the custody can spend with its own key (the hot wallet's
   * rule, src/wallet/spendable.ts): its P2PKH script, no inscription on it as the index reckons it
   * now, no immature coinbase. Any other output to the address is listed in `unspendable`.
   */
  doge(txid: string): DogeDeposit | null {
    const tx = this.queries.tx(txid);
    if (!tx) return null;
    const confirmations = this.indexedHeight() - tx.height + 1;
    let amount = 0n;
    const unspendable: DogeDeposit["unspendable"] = [];
    for (const output of tx.outputs) {
      if (output.address !== this.custodyAddress) continue;
      const reason = this.unspendable({
        scriptHex: output.scriptHex,
        inscriptionCount: this.queries.inscriptionsOn(txid, output.vout).length,
        coinbase: tx.coinbase,
        confirmations,
      });
      if (reason === null) amount += output.valueKoinu;
      else unspendable.push({ vout: output.vout, valueKoinu: output.valueKoinu, reason });
    }
    const { firstInputAddress, serviceFunded } = this.funding(txid);
    return {
      txid,
      height: tx.height,
      blockTime: tx.blockTime,
      confirmations,
      amount,
      payer: firstInputAddress,
      serviceFunded,
      unspendable,
    };
  }

  /** The DRC-20 `tick` credited to the custody address by `txid`, or null when it is not in an indexed block. */
  drc20(txid: string, tick: string): Drc20Deposit | null {
    const tx = this.queries.tx(txid);
    if (!tx) return null;
    const moves = this.queries
      .drc20Receipts(txid, this.custodyAddress)
      .filter((m) => m.tick.toLowerCase() === tick.toLowerCase());
    const owners = new Set(moves.map((m) => m.sender));
    return {
      txid,
      height: tx.height,
      blockTime: tx.blockTime,
      confirmations: this.indexedHeight() - tx.height + 1,
      tick,
      amount: moves.reduce((sum, m) => sum + BigInt(m.amount), 0n),
      // Transfers of several owners moved in one transaction have no single payer: they count for nobody.
      payer: owners.size === 1 ? [...owners][0] : null,
      serviceFunded: this.funding(txid).serviceFunded || [...owners].some((owner) => this.serviceAddresses.has(owner)),
    };
  }

  /** The deposit of `asset` (DRC-20 of `tick`) made by `txid`, or null when it is not in an indexed block. */
  read(asset: "DOGE" | "DRC20", txid: string, tick: string): Deposit | null {
    return asset === "DOGE" ? this.doge(txid) : this.drc20(txid, tick);
  }
}

/**
 * The deposits the AMM consumed (its `deposits` table: a txid once, whatever used it: a swap, a
 * liquidity add, a bonding buy or sell, a refund asked by its payer). Calls run inside the caller's
 * write transaction.
 */
export class UsedDeposits {
  private readonly s;

  constructor(db: Sqlite) {
    this.s = {
      get: db.prepare("SELECT kind, ref_id FROM deposits WHERE txid = ?"),
      use: db.prepare(
        "INSERT INTO deposits (txid, kind, ref_id, asset, amount, address, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      ofRef: db.prepare("SELECT txid FROM deposits WHERE ref_id = ?"),
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
    if (used)
      throw conflict("DEPOSIT_ALREADY_USED", `deposit ${txid} was already used (${used.kind} ${used.refId})`, {
        deposit_txid: txid,
        used_by: used.refId,
      });
  }

  use(
    txid: string,
    kind: string,
    refId: string,
    asset: "DOGE" | "DRC20",
    amount: bigint,
    address: string,
    now: number,
  ): void {
    this.s.use.run(txid, kind, refId, asset, amount.toString(), address, now);
  }

  /** The txids an order (swap, liquidity add, reservation, refund) consumed. */
  txidsOf(refId: string): string[] {
    return (this.s.ofRef.all(refId) as { txid: string }[]).map((r) => r.txid);
  }
}

/** What an order expects of its deposit. */
export interface DepositOrder {
  /** What consumes the deposit (the `deposits` row's kind). */
  kind: string;
  /** The order's id (swap, liquidity operation, reservation). */
  id: string;
  /** The order's address: the deposit's payer must be it. */
  address: string;
  asset: "DOGE" | "DRC20";
  /** The DRC-20 tick of a token deposit (the pool's or curve's tick; also named in DOGE messages). */
  tick: string;
  /** The exact deposit the order asks; less is refunded in full, more is the caller's to refund. 0n: any amount. */
  amountIn: bigint;
  /** The deposit's block must not be later than this (unix seconds), or null. */
  expiresAt: number | null;
  /** How the order's address is named in messages ("the swap's address"). */
  whose: string;
}

/** What binding a deposit to an order came to. Only `credited` and `refund` consumed the deposit. */
export type DepositOutcome =
  /** Not in an indexed block, or not yet `confirmations` deep: nothing consumed; try again later. */
  | { kind: "pending"; reason: "NOT_INDEXED" | "NOT_DEEP_ENOUGH"; confirmations: number }
  /** Not this order's deposit (nothing consumed): the error says why. */
  | { kind: "refused"; error: Refusal }
  /** Consumed, but it cannot serve the order (late, too small): to be refunded in full to the payer. */
  | { kind: "refund"; deposit: Deposit; error: Refusal }
  /** Consumed for the order. */
  | { kind: "credited"; deposit: Deposit };

/**
 * What binding deposit `txid` to `order` would come to, by the rule at the top of this file,
 * consuming nothing: a txid already consumed is refused by its own 409; a deposit not indexed or not
 * deep enough is pending; one funded by the service, paying nothing to the custody, or paid by
 * another address is refused; a deposit mined after the order expired or smaller than asked is to
 * be refunded; otherwise it is credited.
 */
export function inspectDeposit(
  reader: DepositReader,
  used: UsedDeposits,
  order: DepositOrder,
  txid: string,
): DepositOutcome {
  const already = used.usedBy(txid);
  if (already) {
    return {
      kind: "refused",
      error: conflict("DEPOSIT_ALREADY_USED", `deposit ${txid} was already used (${already.kind} ${already.refId})`, {
        deposit_txid: txid,
        used_by: already.refId,
      }),
    };
  }
  const deposit = reader.read(order.asset, txid, order.tick);
  if (!deposit) return { kind: "pending", reason: "NOT_INDEXED", confirmations: 0 };
  const assetName = order.asset === "DOGE" ? "DOGE" : order.tick;
  if (deposit.serviceFunded) {
    return {
      kind: "refused",
      error: unprocessable(
        "DEPOSIT_FROM_SERVICE",
        `${txid} is funded by a wallet of this service; it is not a deposit`,
        { deposit_txid: txid },
      ),
    };
  }
  if (deposit.amount === 0n && "unspendable" in deposit && deposit.unspendable.length > 0) {
    return {
      kind: "refused",
      error: unprocessable(
        "DEPOSIT_NOT_SPENDABLE",
        `${txid} pays the deposit address ${reader.custodyAddress} only in outputs the custody cannot spend with its own key (${deposit.unspendable.map((o) => `output ${o.vout}: ${o.reason}`).join(", ")}); they count for nothing`,
        {
          deposit_txid: txid,
          deposit_address: reader.custodyAddress,
          unspendable: deposit.unspendable.map((o) => ({
            vout: o.vout,
            value_koinu: o.valueKoinu.toString(),
            reason: o.reason,
          })),
        },
      ),
    };
  }
  if (deposit.amount === 0n) {
    return {
      kind: "refused",
      error: unprocessable(
        "DEPOSIT_NOT_TO_CUSTODY",
        `${txid} pays no ${assetName} to the deposit address ${reader.custodyAddress}`,
        { deposit_txid: txid, deposit_address: reader.custodyAddress },
      ),
    };
  }
  if (deposit.payer !== order.address) {
    return {
      kind: "refused",
      error: unprocessable(
        "DEPOSIT_NOT_FROM_ADDRESS",
        `${txid} is paid by ${deposit.payer ?? "no single address"}, not by ${order.whose} ${order.address}`,
        {
          deposit_txid: txid,
          address: order.address,
          payer: deposit.payer,
        },
      ),
    };
  }
  if (deposit.confirmations < reader.confirmations)
    return { kind: "pending", reason: "NOT_DEEP_ENOUGH", confirmations: deposit.confirmations };
  if (order.expiresAt !== null && deposit.blockTime > order.expiresAt) {
    return {
      kind: "refund",
      deposit,
      error: unprocessable(
        "DEPOSIT_LATE",
        `the deposit was mined at ${deposit.blockTime}, after the order expired at ${order.expiresAt}; it is refunded`,
        {
          block_time: deposit.blockTime,
          expires_at: order.expiresAt,
        },
      ),
    };
  }
  if (deposit.amount < order.amountIn) {
    return {
      kind: "refund",
      deposit,
      error: unprocessable(
        "DEPOSIT_TOO_SMALL",
        `the deposit is ${deposit.amount}, the order needs exactly ${order.amountIn}; it is refunded`,
        {
          deposit_amount: deposit.amount.toString(),
          amount_in: order.amountIn.toString(),
        },
      ),
    };
  }
  return { kind: "credited", deposit };
}

/** Consumes the deposit of an outcome that takes it (credited, or to be refunded) for `order` (inside the caller's write). */
export function consumeDeposit(used: UsedDeposits, order: DepositOrder, outcome: DepositOutcome, now: number): void {
  if (outcome.kind !== "credited" && outcome.kind !== "refund") return;
  used.use(outcome.deposit.txid, order.kind, order.id, order.asset, outcome.deposit.amount, order.address, now);
}

/** inspectDeposit, then the deposit consumed when the outcome takes it (inside the caller's write transaction). */
export function bindDeposit(
  reader: DepositReader,
  used: UsedDeposits,
  order: DepositOrder,
  txid: string,
  now: number,
): DepositOutcome {
  const outcome = inspectDeposit(reader, used, order, txid);
  consumeDeposit(used, order, outcome, now);
  return outcome;
}

/** A pending outcome as the refusal of a caller that cannot wait (409: retry once the deposit is mined and deep enough). */
export function pendingError(
  outcome: Extract<DepositOutcome, { kind: "pending" }>,
  txid: string,
  reader: DepositReader,
): Refusal {
  if (outcome.reason === "NOT_INDEXED") {
    return new Refusal(
      "conflict",
      "DEPOSIT_NOT_FOUND",
      `${txid} is not in a block the index holds (height ${reader.indexedHeight()}); retry once it is mined`,
      {
        deposit_txid: txid,
        indexed_height: reader.indexedHeight(),
      },
      { retryAfterSeconds: 10 },
    );
  }
  return new Refusal(
    "conflict",
    "DEPOSIT_NOT_DEEP_ENOUGH",
    `${txid} has ${outcome.confirmations} confirmations; deposits count at ${reader.confirmations}`,
    {
      deposit_txid: txid,
      confirmations: outcome.confirmations,
      required: reader.confirmations,
    },
    { retryAfterSeconds: 10 },
  );
}
