/**
 * Esplora's mempool and fee routes (esplora.ts mounts them): the node's mempool as a backlog,
 * its txids, the latest arrivals, and fee estimates in Esplora's units.
 *
 * Units: Esplora writes fee rates in sat/vB. Dogecoin has no witness, so a virtual byte is a byte,
 * and a koinu is Dogecoin's satoshi: rates here are koinu per byte. The node writes rates in DOGE
 * per 1000 bytes: koinu/byte = DOGE/kB x 100,000,000 / 1000 = DOGE/kB x 100,000.
 *
 * Fee estimates never go below FEE_FLOOR_KOINU_PER_BYTE: 0.01 DOGE per kB, 1000 koinu per byte,
 * Dogecoin Core's wallet minimum (-mintxfee, DEFAULT_TRANSACTION_MINFEE in src/wallet/wallet.h,
 * RECOMMENDED_FEE_RATE in src/doge/policy.ts) and the rate doc/fee-recommendation.md names; it is
 * ten times the node's relay minimum (0.001 DOGE/kB), so a transaction paying it relays on every
 * 1.14.4+ node. A spendable output below 0.01 DOGE costs 0.01 DOGE more on top (the dust surcharge),
 * which no per-byte rate can express.
 */
import { RECOMMENDED_FEE_RATE, parseTransactionHex } from "../../doge";
import type { DecodedTransaction } from "../../doge";
import { dogeToKoinu } from "../../chain/dogecoin-rpc";
import { Refusal } from "../../errors";

/** The node calls these routes make. DogecoinRpcClient fits. */
export interface EsploraMempoolNode {
  /** A JSON-RPC call by name: `getrawmempool true` (the client has no typed verbose form). */
  call?<T>(method: string, params?: unknown[]): Promise<T>;
  /** `estimatesmartfee <blocks>`: DOGE per kB, -1 when the node has no estimate. */
  estimateSmartFee?(blocks: number): Promise<{ feerate: number; blocks: number }>;
  /** `getrawtransaction <txid> 0`: a mempool transaction's bytes (for /mempool/recent's value). */
  getRawTransactionHex?(txid: string): Promise<string>;
}

/** 0.01 DOGE per kB in koinu per byte: RECOMMENDED_FEE_RATE (koinu per 1000 bytes) / 1000. */
export const FEE_FLOOR_KOINU_PER_BYTE = Number(RECOMMENDED_FEE_RATE) / 1000;

/**
 * The confirmation targets answered: Esplora's (API.md: 2, 3, 4, 5, 6, 10, 20, 25, 144, 504,
 * 1008) and 1, which Esplora servers answer too. The node estimates up to 25 blocks (Dogecoin Core
 * 1.14's estimator tracks no longer targets); 144, 504 and 1008 take the 25-block figure.
 */
export const FEE_TARGETS = [1, 2, 3, 4, 5, 6, 10, 20, 25, 144, 504, 1008] as const;
const NODE_MAX_TARGET = 25;

/** Esplora's fee histogram bin: a bin closes once it holds more than this many vbytes (electrs's width). */
export const FEE_HISTOGRAM_BIN_VSIZE = 50_000;

/** How many of the latest arrivals /mempool/recent lists (Esplora: 10). */
export const MEMPOOL_RECENT = 10;

/** One transaction of the node's mempool (`getrawmempool true`). */
export interface NodeMempoolEntry {
  txid: string;
  size: number;
  feeKoinu: bigint;
  /** When the node took it in (unix seconds). */
  time: number;
}

/**
 * The node's mempool and fee estimates as the routes read them: one node call in flight at a time
 * per kind, each answer reused for `cacheMs` (0: a new read per request once the last finished).
 */
export class EsploraMempoolSource {
  private mempool: { at: number; value: Promise<NodeMempoolEntry[]> } | null = null;
  private fees: { at: number; value: Promise<Record<string, number>> } | null = null;

  constructor(
    private readonly node: EsploraMempoolNode,
    private readonly cacheMs: number,
    private readonly pending?: { rawTx(txid: string): DecodedTransaction | null | undefined },
  ) {}

  entries(): Promise<NodeMempoolEntry[]> {
    this.mempool = this.reuse(this.mempool, () => this.readMempool());
    return this.mempool.value;
  }

  feeEstimates(): Promise<Record<string, number>> {
    this.fees = this.reuse(this.fees, () => this.readFees());
    return this.fees.value;
  }

  /** The outputs' total of a mempool transaction: the explorer's mempool view, else the node. */
  async value(txid: string): Promise<bigint | null> {
    let tx = this.pending?.rawTx(txid) ?? null;
    if (!tx && this.node.getRawTransactionHex) {
      try {
        const parsed = parseTransactionHex(await this.node.getRawTransactionHex(txid));
        tx = parsed.ok ? parsed.value : null;
      } catch {
        tx = null; // left the mempool between the two reads
      }
    }
    return tx ? tx.outputs.reduce((sum, o) => sum + o.value, 0n) : null;
  }

  private reuse<T>(
    cached: { at: number; value: Promise<T> } | null,
    read: () => Promise<T>,
  ): { at: number; value: Promise<T> } {
    const now = Date.now();
    if (cached && (now - cached.at <= this.cacheMs || !settled.has(cached.value))) return cached;
    const value = read();
    value.then(
      () => settled.add(value),
      () => settled.add(value),
    );
    return { at: now, value };
  }

  private async readMempool(): Promise<NodeMempoolEntry[]> {
    if (!this.node.call)
      throw new Refusal("unavailable", "MEMPOOL_UNAVAILABLE", "this explorer's node client cannot read the mempool");
    let verbose: Record<string, { size: number; fee: number; time: number }>;
    try {
      verbose = await this.node.call("getrawmempool", [true]);
    } catch (error) {
      throw new Refusal("upstream", "NODE_UNAVAILABLE", "the base-chain node did not answer getrawmempool", {
        node_message: error instanceof Error ? error.message : String(error),
      });
    }
    return Object.entries(verbose).map(([txid, entry]) => ({
      txid,
      size: entry.size,
      feeKoinu: dogeToKoinu(entry.fee),
      time: entry.time,
    }));
  }

  private async readFees(): Promise<Record<string, number>> {
    const estimate = this.node.estimateSmartFee?.bind(this.node);
    const byTarget = new Map<number, number>();
    for (const target of FEE_TARGETS) {
      const asked = Math.min(target, NODE_MAX_TARGET);
      let rate = byTarget.get(asked);
      if (rate === undefined) {
        rate = FEE_FLOOR_KOINU_PER_BYTE;
        if (estimate) {
          try {
            const answer = await estimate(asked);
            // DOGE per kB -> koinu per byte; -1 (no estimate) leaves the floor.
            if (answer.feerate > 0) rate = Math.max(rate, Number(dogeToKoinu(answer.feerate)) / 1000);
          } catch (error) {
            throw new Refusal("upstream", "NODE_UNAVAILABLE", "the base-chain node did not answer estimatesmartfee", {
              node_message: error instanceof Error ? error.message : String(error),
            });
          }
        }
        byTarget.set(asked, rate);
      }
      byTarget.set(target, rate);
    }
    return Object.fromEntries(FEE_TARGETS.map((target) => [String(target), byTarget.get(target)!]));
  }
}

const settled = new WeakSet<Promise<unknown>>();

/** Esplora's /mempool: count, total size, total fee and the fee-rate histogram (koinu/byte, vbytes). */
export function backlog(entries: readonly NodeMempoolEntry[]) {
  const rated = entries
    .map((e) => ({ rate: Number(e.feeKoinu) / e.size, size: e.size }))
    .sort((a, b) => b.rate - a.rate);
  // Highest rates first; a bin closes once it holds more than FEE_HISTOGRAM_BIN_VSIZE and the rate
  // changes, and is written as (its lowest rate, its vbytes).
  const histogram: [number, number][] = [];
  let binSize = 0;
  let lastRate: number | null = null;
  for (const { rate, size } of rated) {
    if (lastRate !== null && binSize > FEE_HISTOGRAM_BIN_VSIZE && rate !== lastRate) {
      histogram.push([lastRate, binSize]);
      binSize = 0;
    }
    binSize += size;
    lastRate = rate;
  }
  if (lastRate !== null) histogram.push([lastRate, binSize]);
  return {
    count: entries.length,
    vsize: entries.reduce((sum, e) => sum + e.size, 0),
    total_fee: entries.reduce((sum, e) => sum + e.feeKoinu, 0n),
    fee_histogram: histogram,
  };
}
