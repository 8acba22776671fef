/** Transactions and their outputs: one transaction with what the index derived from it, one output. */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlDatabase } from "../../db/sql";
import { REVEALED_IN_TX, revealedInscription } from "./inscriptions";
import { OpReturnReads, OpReturnView } from "./opreturn";
import { PlanRunner, ReadPlan, hexOf, prepareAll, rowsOf, txidKey } from "./rows";
import { refuseWhileCatchUpLogged } from "./status";
import { ZkpReads } from "./zkp";

export interface TxOutputView {
  vout: number;
  valueKoinu: bigint;
  scriptHex: string;
  address: string | null;
  spent: { txid: string; vin: number; height: number } | null;
}

export interface TxInputView {
  vin: number;
  prevTxid: string;
  prevVout: number;
  valueKoinu: bigint | null;
  address: string | null;
}

export interface TxView {
  txid: string;
  height: number;
  position: number;
  blockHash: string;
  blockTime: number;
  size: number;
  feeKoinu: bigint | null;
  coinbase: boolean;
  outputs: TxOutputView[];
  opReturns: Pick<OpReturnView, "vout" | "payloadHex" | "magic" | "sha256" | "size">[];
  inscriptions: {
    id: string;
    number: number;
    form: string;
    contentType: string;
    action: string | null;
    envelopeHash: string | null;
  }[];
  zkpUses: Record<string, unknown>[];
}

/** A transaction as its own rows hold it: TxView without what other subjects derived from it. */
export type TxCoreView = Omit<TxView, "opReturns" | "inscriptions" | "zkpUses">;

/** An output a transaction spends, as the index holds it. */
export interface SpentOutputView {
  prevTxid: string;
  prevVout: number;
  valueKoinu: bigint;
  address: string | null;
  scriptHex: string;
}

// Outputs keep no script when it is their address's standard one (addresses.script), and refer to
// their spender by transaction id.
const OUTPUT = `SELECT o.vout, o.value, COALESCE(o.script, a.script) AS script, a.address, o.spent_tx_id, o.spent_vin
  FROM outputs o LEFT JOIN addresses a ON a.id = o.address_id`;

const SQL = {
  tx: `SELECT t.id, t.height, t.position, t.size, t.fee, t.coinbase, b.hash AS block_hash, b.time AS block_time FROM txs t JOIN blocks b ON b.height = t.height WHERE t.id = ${TX_ID_OF_TXID}`,
  outputs: `SELECT o.vout, o.value, COALESCE(o.script, a.script) AS script, a.address, s.txid AS spent_txid, o.spent_vin, s.height AS spent_height
    FROM outputs o LEFT JOIN addresses a ON a.id = o.address_id LEFT JOIN txs s ON s.id = o.spent_tx_id WHERE o.tx_id = ? ORDER BY o.vout`,
  // Spends marked on the outputs' rows, and (during a catch-up) those in spend_log, found by the spender's key.
  inputs: `SELECT t.txid, o.vout, o.value, COALESCE(o.script, a.script) AS script, a.address, i.spent_vin
    FROM (SELECT tx_id, vout, spent_vin FROM outputs WHERE spent_tx_id = ${TX_ID_OF_TXID}
      UNION ALL SELECT tx_id, vout, spent_vin FROM spend_log WHERE spent_tx_id = ${TX_ID_OF_TXID}) i
    JOIN outputs o ON o.tx_id = i.tx_id AND o.vout = i.vout JOIN txs t ON t.id = o.tx_id
    LEFT JOIN addresses a ON a.id = o.address_id ORDER BY i.spent_vin`,
  output: `${OUTPUT} WHERE o.tx_id = ${TX_ID_OF_TXID} AND o.vout = ?`,
};

interface TxRow {
  id: bigint;
  height: bigint;
  position: bigint;
  size: bigint;
  fee: bigint | null;
  coinbase: bigint;
  block_hash: Uint8Array;
  block_time: bigint;
}

/** The transaction's own row (with its block's hash and time), or null (a read plan, ./rows.ts). */
export function* txRowOf(txid: string): ReadPlan<{
  id: bigint;
  height: number;
  position: number;
  size: number;
  feeKoinu: bigint | null;
  coinbase: boolean;
  blockHash: string;
  blockTime: number;
} | null> {
  const key = txidKey(txid);
  if (key === null) return null;
  const [row] = yield* rowsOf<TxRow>(SQL.tx, [key], { safe: true, one: true });
  if (!row) return null;
  return {
    id: row.id,
    height: Number(row.height),
    position: Number(row.position),
    size: Number(row.size),
    feeKoinu: row.fee === null ? null : BigInt(row.fee),
    coinbase: BigInt(row.coinbase) !== 0n,
    blockHash: hexOf(row.block_hash),
    blockTime: Number(row.block_time),
  };
}

/** A transaction with its outputs and their spenders, or null when the index does not hold it (a read plan). */
export function* txCoreOf(txid: string): ReadPlan<TxCoreView | null> {
  const row = yield* txRowOf(txid);
  if (!row) return null;
  yield* refuseWhileCatchUpLogged({ txid });
  const outputs = (yield* rowsOf<{
    vout: bigint;
    value: bigint;
    script: Buffer;
    address: string | null;
    spent_txid: Buffer | null;
    spent_vin: bigint | null;
    spent_height: bigint | null;
  }>(SQL.outputs, [row.id], { safe: true })).map((o) => ({
    vout: Number(o.vout),
    valueKoinu: o.value,
    scriptHex: hexOf(o.script),
    address: o.address,
    spent: o.spent_txid
      ? { txid: hexOf(o.spent_txid), vin: Number(o.spent_vin), height: Number(o.spent_height) }
      : null,
  }));
  return {
    txid,
    height: row.height,
    position: row.position,
    blockHash: row.blockHash,
    blockTime: row.blockTime,
    size: row.size,
    feeKoinu: row.feeKoinu,
    coinbase: row.coinbase,
    outputs,
  };
}

/** The outputs `txid`'s inputs spend, as the index knows them, by input index (a read plan). */
export function* spentOutputsOf(txid: string): ReadPlan<Map<number, SpentOutputView>> {
  const out = new Map<number, SpentOutputView>();
  const key = txidKey(txid);
  if (key === null) return out;
  for (const row of yield* rowsOf<{
    txid: Buffer;
    vout: bigint;
    value: bigint;
    script: Buffer;
    address: string | null;
    spent_vin: bigint;
  }>(SQL.inputs, [key, key], { safe: true })) {
    out.set(Number(row.spent_vin), {
      prevTxid: hexOf(row.txid),
      prevVout: Number(row.vout),
      valueKoinu: BigInt(row.value),
      address: row.address,
      scriptHex: hexOf(row.script),
    });
  }
  return out;
}

/** One output, spent or not, as the index holds it, or null (a read plan). */
export function* outputOf(
  txid: string,
  vout: number,
): ReadPlan<{ valueKoinu: bigint; scriptHex: string; address: string | null } | null> {
  const key = txidKey(txid);
  if (key === null) return null;
  const [row] = yield* rowsOf<{ value: bigint; script: Buffer; address: string | null }>(SQL.output, [key, vout], {
    safe: true,
    one: true,
  });
  return row ? { valueKoinu: BigInt(row.value), scriptHex: hexOf(row.script), address: row.address } : null;
}

export class TxReads {
  private readonly s;
  private readonly plans: PlanRunner;

  constructor(
    db: SqlDatabase,
    private readonly opReturns: OpReturnReads,
    private readonly zkp: ZkpReads,
  ) {
    this.plans = new PlanRunner(db);
    this.s = {
      ...this.plans.prepare(SQL),
      ...prepareAll(db, {
        hasTx: `SELECT 1 FROM txs WHERE id = ${TX_ID_OF_TXID}`,
        inscriptions: REVEALED_IN_TX,
        unspent: `${OUTPUT} WHERE o.tx_id = ${TX_ID_OF_TXID} AND o.vout = ? AND o.spent_tx_id IS NULL`,
        outspend: `SELECT s.txid AS spent_txid, o.spent_vin, s.height AS spent_height FROM outputs o LEFT JOIN txs s ON s.id = o.spent_tx_id
        WHERE o.tx_id = ${TX_ID_OF_TXID} AND o.vout = ?`,
      }),
    };
    for (const key of ["unspent", "outspend"] as const) this.s[key].safeIntegers(true);
  }

  /** Whether the index holds the transaction. */
  hasTx(txid: string): boolean {
    return this.s.hasTx.get(txidKey(txid)) !== undefined;
  }

  tx(txid: string): TxView | null {
    const core = this.plans.run(txCoreOf(txid));
    if (!core) return null;
    const opReturns = this.opReturns
      .ofTx(txid)
      .map((o) => ({ vout: o.vout, payloadHex: o.payloadHex, magic: o.magic, sha256: o.sha256, size: o.size }));
    const inscriptions = (this.s.inscriptions.all(txidKey(txid)) as Record<string, unknown>[]).map(revealedInscription);
    return { ...core, opReturns, inscriptions, zkpUses: this.zkp.ofTx(txid) };
  }

  /** Spent outputs of a transaction's inputs, as the index knows them (by input index). */
  txInputs(
    txid: string,
  ): Map<number, { prevTxid: string; prevVout: number; valueKoinu: bigint; address: string | null }> {
    const out = new Map<number, { prevTxid: string; prevVout: number; valueKoinu: bigint; address: string | null }>();
    for (const [vin, o] of this.plans.run(spentOutputsOf(txid)))
      out.set(vin, { prevTxid: o.prevTxid, prevVout: o.prevVout, valueKoinu: o.valueKoinu, address: o.address });
    return out;
  }

  /** An output that is unspent in the index, with its script. */
  unspentOutput(txid: string, vout: number): { value: bigint; script: Uint8Array } | null {
    this.plans.run(refuseWhileCatchUpLogged({ txid, vout }));
    const row = this.s.unspent.get(txidKey(txid), vout) as { value: bigint; script: Buffer } | undefined;
    return row ? { value: BigInt(row.value), script: new Uint8Array(row.script) } : null;
  }

  /** One output, spent or not, as the index holds it. */
  output(txid: string, vout: number): { valueKoinu: bigint; scriptHex: string; address: string | null } | null {
    return this.plans.run(outputOf(txid, vout));
  }

  /**
   * Who spent output `vout` of `txid`: the spending transaction, its input index and height; spent
   * null while unspent; null when the index holds no such output (an OP_RETURN output is not one).
   */
  outspend(txid: string, vout: number): { spent: { txid: string; vin: number; height: number } | null } | null {
    this.plans.run(refuseWhileCatchUpLogged({ txid, vout }));
    const row = this.s.outspend.get(txidKey(txid), vout) as
      { spent_txid: Buffer | null; spent_vin: bigint | null; spent_height: bigint | null } | undefined;
    if (!row) return null;
    return {
      spent: row.spent_txid
        ? { txid: hexOf(row.spent_txid), vin: Number(row.spent_vin), height: Number(row.spent_height) }
        : null,
    };
  }
}
