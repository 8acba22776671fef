/**
 * The hot wallet's repository: rows of wallet_outputs, wallet_txs, wallet_labels and
 * wallet_inputs in and out. No chain access and no policy: HotWallet decides, this reads and writes.
 */
import type { Statement } from "better-sqlite3";
import type { Sqlite } from "../db/sqlite";
import type { WalletTx, WalletTxState } from "./types";

export type OutputState = "available" | "locked" | "spent";

export interface OutputRow {
  txid: string;
  vout: number;
  valueKoinu: bigint;
  scriptHex: string;
  height: number | null;
  depth: number;
  ancestors: number;
  state: OutputState;
  spentBy: string | null;
  carries: string | null;
  createdBy: string | null;
  heldUntil: number | null;
}

export interface TxRow {
  seq: number;
  txid: string;
  owner: string;
  label: string;
  kind: "funded" | "tracked";
  hex: string;
  state: WalletTxState;
  feeKoinu: bigint;
  feeRateKoinuPerKb: bigint | null;
  extraBytes: number;
  changeVout: number | null;
  height: number | null;
  confirmations: number;
  final: boolean;
  replacedBy: string | null;
  replaces: string | null;
  error: string | null;
  errorKind: string | null;
  createdAt: number;
  broadcastAt: number | null;
  attempts: number;
  /** 1 when the wallet itself sends it (a replacement of a transaction that had been broadcast). */
  rebroadcast: boolean;
}

export interface InputRow {
  txid: string;
  vin: number;
  prevTxid: string;
  prevVout: number;
  valueKoinu: bigint | null;
}

/** States of a transaction that may still confirm. */
export const LIVE_STATES: readonly WalletTxState[] = ["signed", "broadcast", "confirmed"];
const LIVE_SQL = "('signed', 'broadcast', 'confirmed')";

type Raw = Record<string, unknown>;

function outputRow(r: Raw): OutputRow {
  return {
    txid: r.txid as string,
    vout: Number(r.vout),
    valueKoinu: BigInt(r.value_koinu as string),
    scriptHex: r.script_hex as string,
    height: r.height === null ? null : Number(r.height),
    depth: Number(r.depth),
    ancestors: Number(r.ancestors),
    state: r.state as OutputState,
    spentBy: (r.spent_by as string | null) ?? null,
    carries: (r.carries as string | null) ?? null,
    createdBy: (r.created_by as string | null) ?? null,
    heldUntil: r.held_until === null ? null : Number(r.held_until),
  };
}

function txRow(r: Raw): TxRow {
  return {
    seq: Number(r.seq),
    txid: r.txid as string,
    owner: r.owner as string,
    label: r.label as string,
    kind: r.kind as TxRow["kind"],
    hex: r.hex as string,
    state: r.state as WalletTxState,
    feeKoinu: BigInt(r.fee_koinu as string),
    feeRateKoinuPerKb: r.fee_rate_koinu_per_kb === null ? null : BigInt(r.fee_rate_koinu_per_kb as string),
    extraBytes: Number(r.extra_bytes),
    changeVout: r.change_vout === null ? null : Number(r.change_vout),
    height: r.height === null ? null : Number(r.height),
    confirmations: Number(r.confirmations),
    final: Number(r.final) === 1,
    replacedBy: (r.replaced_by as string | null) ?? null,
    replaces: (r.replaces as string | null) ?? null,
    error: (r.error as string | null) ?? null,
    errorKind: (r.error_kind as string | null) ?? null,
    createdAt: Number(r.created_at),
    broadcastAt: r.broadcast_at === null ? null : Number(r.broadcast_at),
    attempts: Number(r.attempts),
    rebroadcast: Number(r.rebroadcast) === 1,
  };
}

export function toWalletTx(row: TxRow): WalletTx {
  return {
    txid: row.txid,
    owner: row.owner,
    label: row.label,
    hex: row.hex,
    state: row.state,
    feeKoinu: row.feeKoinu,
    height: row.height,
    replacedBy: row.replacedBy,
    error: row.error,
    createdAt: row.createdAt,
    broadcastAt: row.broadcastAt,
    attempts: row.attempts,
    confirmations: row.confirmations,
  };
}

export interface NewTx {
  txid: string;
  owner: string;
  label: string;
  kind: "funded" | "tracked";
  hex: string;
  feeKoinu: bigint;
  feeRateKoinuPerKb: bigint | null;
  extraBytes: number;
  changeVout: number | null;
  replaces: string | null;
  rebroadcast: boolean;
  createdAt: number;
}

/** An output as first written: a hold (heldUntil) is only ever set later. */
export type NewOutput = Omit<OutputRow, "heldUntil">;

export class WalletStore {
  private readonly s: Record<string, Statement<unknown[]>>;
  /** updateTx statements by the columns they set. */
  private readonly updates = new Map<string, Statement<unknown[]>>();

  constructor(readonly db: Sqlite) {
    const p = (sql: string) => db.prepare<unknown[]>(sql);
    this.s = {
      getMeta: p("SELECT value FROM meta WHERE key = ?"),
      setMeta: p("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
      output: p("SELECT * FROM wallet_outputs WHERE txid = ? AND vout = ?"),
      selectable: p(
        "SELECT * FROM wallet_outputs WHERE state = 'available' AND depth < ? AND (held_until IS NULL OR held_until <= ?)",
      ),
      unspentOutputs: p("SELECT * FROM wallet_outputs WHERE state IN ('available', 'locked')"),
      allOutputs: p("SELECT * FROM wallet_outputs"),
      outputsSpentBy: p("SELECT * FROM wallet_outputs WHERE spent_by = ? ORDER BY txid, vout"),
      outputsCreatedBy: p("SELECT * FROM wallet_outputs WHERE created_by = ? ORDER BY vout"),
      insertOutput:
        p(`INSERT INTO wallet_outputs (txid, vout, value_koinu, script_hex, height, depth, ancestors, state, spent_by, carries, created_by, held_until)
        VALUES (@txid, @vout, @value_koinu, @script_hex, @height, @depth, @ancestors, @state, @spent_by, @carries, @created_by, NULL)`),
      confirmOutput: p(
        "UPDATE wallet_outputs SET height = ?, depth = 0, ancestors = 0, carries = ?, state = ? WHERE txid = ? AND vout = ?",
      ),
      unconfirmOutput: p(
        "UPDATE wallet_outputs SET height = NULL, depth = MAX(depth, 1), ancestors = MAX(ancestors, 1) WHERE txid = ? AND vout = ?",
      ),
      spendOutput: p(
        "UPDATE wallet_outputs SET state = 'spent', spent_by = ?, held_until = NULL WHERE txid = ? AND vout = ?",
      ),
      releaseOutput: p(
        "UPDATE wallet_outputs SET state = ?, spent_by = NULL, held_until = ? WHERE txid = ? AND vout = ?",
      ),
      deleteOutput: p("DELETE FROM wallet_outputs WHERE txid = ? AND vout = ?"),
      deleteOutputsSpentBy: p("DELETE FROM wallet_outputs WHERE spent_by = ?"),
      tx: p("SELECT * FROM wallet_txs WHERE txid = ?"),
      current: p(
        "SELECT t.* FROM wallet_labels l JOIN wallet_txs t ON t.txid = l.txid WHERE l.owner = ? AND l.label = ?",
      ),
      versions: p("SELECT * FROM wallet_txs WHERE owner = ? AND label = ? ORDER BY seq"),
      txsOf: p("SELECT * FROM wallet_txs WHERE owner = ? ORDER BY seq"),
      followed: p(
        `SELECT * FROM wallet_txs WHERE final = 0 AND (state IN ('broadcast', 'confirmed') OR (state = 'signed' AND rebroadcast = 1)) ORDER BY seq`,
      ),
      watchedReplaced:
        p(`SELECT r.* FROM wallet_txs r JOIN wallet_labels l ON l.owner = r.owner AND l.label = r.label JOIN wallet_txs c ON c.txid = l.txid
        WHERE r.state = 'replaced' AND r.broadcast_at IS NOT NULL AND c.txid != r.txid AND c.final = 0 AND c.state IN ${LIVE_SQL} ORDER BY r.seq`),
      insertTx:
        p(`INSERT INTO wallet_txs (txid, owner, label, kind, hex, state, fee_koinu, fee_rate_koinu_per_kb, extra_bytes, change_vout, replaces, rebroadcast, created_at)
        VALUES (@txid, @owner, @label, @kind, @hex, 'signed', @fee_koinu, @fee_rate, @extra_bytes, @change_vout, @replaces, @rebroadcast, @created_at)`),
      setLabel: p(
        "INSERT INTO wallet_labels (owner, label, txid) VALUES (?, ?, ?) ON CONFLICT (owner, label) DO UPDATE SET txid = excluded.txid",
      ),
      deleteLabel: p("DELETE FROM wallet_labels WHERE owner = ? AND label = ?"),
      deleteTx: p("DELETE FROM wallet_txs WHERE txid = ?"),
      insertInput: p("INSERT INTO wallet_inputs (txid, vin, prev_txid, prev_vout, value_koinu) VALUES (?, ?, ?, ?, ?)"),
      inputs: p("SELECT * FROM wallet_inputs WHERE txid = ? ORDER BY vin"),
      deleteInputs: p("DELETE FROM wallet_inputs WHERE txid = ?"),
      liveSpender: p(
        `SELECT t.txid FROM wallet_inputs i JOIN wallet_txs t ON t.txid = i.txid WHERE i.prev_txid = ? AND i.prev_vout = ? AND t.state IN ${LIVE_SQL} LIMIT 1`,
      ),
      liveChildren: p(
        `SELECT DISTINCT t.* FROM wallet_inputs i JOIN wallet_txs t ON t.txid = i.txid WHERE i.prev_txid = ? AND t.state IN ${LIVE_SQL} ORDER BY t.seq`,
      ),
      parents: p(
        "SELECT DISTINCT t.* FROM wallet_inputs i JOIN wallet_txs t ON t.txid = i.prev_txid WHERE i.txid = ? ORDER BY t.seq",
      ),
    };
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  getMeta(key: string): string | null {
    const row = this.s.getMeta.get(key) as { value: string } | undefined;
    return row ? row.value : null;
  }

  setMeta(key: string, value: string): void {
    this.s.setMeta.run(key, value);
  }

  // ------------------------------------------------------------------ outputs

  output(txid: string, vout: number): OutputRow | null {
    const row = this.s.output.get(txid, vout) as Raw | undefined;
    return row ? outputRow(row) : null;
  }

  selectable(maxDepth: number, now: number): OutputRow[] {
    return (this.s.selectable.all(maxDepth, now) as Raw[]).map(outputRow);
  }

  unspentOutputs(): OutputRow[] {
    return (this.s.unspentOutputs.all() as Raw[]).map(outputRow);
  }

  allOutputs(): OutputRow[] {
    return (this.s.allOutputs.all() as Raw[]).map(outputRow);
  }

  outputsSpentBy(txid: string): OutputRow[] {
    return (this.s.outputsSpentBy.all(txid) as Raw[]).map(outputRow);
  }

  outputsCreatedBy(txid: string): OutputRow[] {
    return (this.s.outputsCreatedBy.all(txid) as Raw[]).map(outputRow);
  }

  insertOutput(output: NewOutput): void {
    this.s.insertOutput.run({
      txid: output.txid,
      vout: output.vout,
      value_koinu: output.valueKoinu.toString(),
      script_hex: output.scriptHex,
      height: output.height,
      depth: output.depth,
      ancestors: output.ancestors,
      state: output.state,
      spent_by: output.spentBy,
      carries: output.carries,
      created_by: output.createdBy,
    });
  }

  confirmOutput(txid: string, vout: number, height: number, carries: string | null, state: OutputState): void {
    this.s.confirmOutput.run(height, carries, state, txid, vout);
  }

  unconfirmOutput(txid: string, vout: number): void {
    this.s.unconfirmOutput.run(txid, vout);
  }

  spendOutput(txid: string, vout: number, spender: string): void {
    this.s.spendOutput.run(spender, txid, vout);
  }

  releaseOutput(txid: string, vout: number, state: "available" | "locked", heldUntil: number | null): void {
    this.s.releaseOutput.run(state, heldUntil, txid, vout);
  }

  deleteOutput(txid: string, vout: number): void {
    this.s.deleteOutput.run(txid, vout);
  }

  deleteOutputsSpentBy(txid: string): void {
    this.s.deleteOutputsSpentBy.run(txid);
  }

  // ------------------------------------------------------------------ transactions

  tx(txid: string): TxRow | null {
    const row = this.s.tx.get(txid) as Raw | undefined;
    return row ? txRow(row) : null;
  }

  /** The current transaction of (owner, label). */
  current(owner: string, label: string): TxRow | null {
    const row = this.s.current.get(owner, label) as Raw | undefined;
    return row ? txRow(row) : null;
  }

  versions(owner: string, label: string): TxRow[] {
    return (this.s.versions.all(owner, label) as Raw[]).map(txRow);
  }

  txsOf(owner: string): TxRow[] {
    return (this.s.txsOf.all(owner) as Raw[]).map(txRow);
  }

  /** Transactions the wallet follows: broadcast, confirmed below the tracking depth, replacements it sends itself. */
  followed(): TxRow[] {
    return (this.s.followed.all() as Raw[]).map(txRow);
  }

  /** Replaced versions that had been broadcast while their label's current version may still confirm. */
  watchedReplaced(): TxRow[] {
    return (this.s.watchedReplaced.all() as Raw[]).map(txRow);
  }

  insertTx(tx: NewTx): TxRow {
    this.s.insertTx.run({
      txid: tx.txid,
      owner: tx.owner,
      label: tx.label,
      kind: tx.kind,
      hex: tx.hex,
      fee_koinu: tx.feeKoinu.toString(),
      fee_rate: tx.feeRateKoinuPerKb === null ? null : tx.feeRateKoinuPerKb.toString(),
      extra_bytes: tx.extraBytes,
      change_vout: tx.changeVout,
      replaces: tx.replaces,
      rebroadcast: tx.rebroadcast ? 1 : 0,
      created_at: tx.createdAt,
    });
    this.s.setLabel.run(tx.owner, tx.label, tx.txid);
    return this.tx(tx.txid)!;
  }

  setLabel(owner: string, label: string, txid: string): void {
    this.s.setLabel.run(owner, label, txid);
  }

  /** Updates the named columns of a transaction row. */
  updateTx(
    txid: string,
    changes: Partial<
      Record<
        | "state"
        | "height"
        | "confirmations"
        | "final"
        | "replaced_by"
        | "error"
        | "error_kind"
        | "broadcast_at"
        | "attempts"
        | "rebroadcast",
        unknown
      >
    >,
  ): void {
    const columns = Object.keys(changes);
    if (columns.length === 0) return;
    const key = columns.join(",");
    let statement = this.updates.get(key);
    if (!statement) {
      statement = this.db.prepare<unknown[]>(
        `UPDATE wallet_txs SET ${columns.map((c) => `${c} = @${c}`).join(", ")} WHERE txid = @txid`,
      );
      this.updates.set(key, statement);
    }
    const values: Record<string, unknown> = { txid };
    for (const [column, value] of Object.entries(changes))
      values[column] = typeof value === "boolean" ? (value ? 1 : 0) : value;
    statement.run(values);
  }

  deleteTx(owner: string, label: string, txids: readonly string[]): void {
    for (const txid of txids) {
      this.s.deleteInputs.run(txid);
      this.s.deleteTx.run(txid);
    }
    this.s.deleteLabel.run(owner, label);
  }

  // ------------------------------------------------------------------ inputs

  insertInput(txid: string, vin: number, prevTxid: string, prevVout: number, valueKoinu: bigint | null): void {
    this.s.insertInput.run(txid, vin, prevTxid, prevVout, valueKoinu === null ? null : valueKoinu.toString());
  }

  inputs(txid: string): InputRow[] {
    return (this.s.inputs.all(txid) as Raw[]).map((r) => ({
      txid: r.txid as string,
      vin: Number(r.vin),
      prevTxid: r.prev_txid as string,
      prevVout: Number(r.prev_vout),
      valueKoinu: r.value_koinu === null ? null : BigInt(r.value_koinu as string),
    }));
  }

  /** The live transaction spending an outpoint, if any. */
  liveSpender(txid: string, vout: number): string | null {
    const row = this.s.liveSpender.get(txid, vout) as { txid: string } | undefined;
    return row ? row.txid : null;
  }

  /** Live transactions spending outputs of `txid`, oldest first. */
  liveChildren(txid: string): TxRow[] {
    return (this.s.liveChildren.all(txid) as Raw[]).map(txRow);
  }

  /** Stored transactions whose outputs `txid` spends. */
  parents(txid: string): TxRow[] {
    return (this.s.parents.all(txid) as Raw[]).map(txRow);
  }
}
