/**
 * The user-signed path: the inscriber builds unsigned PSBTs funded from the user's own confirmed
 * outputs (as the index reports them) and the user's wallet signs them with `signPSBT`; the reveal's
 * redeem scripts use the user's key. The inscriber never holds the user's key and never broadcasts
 * these transactions: the user's page hands them to the explorer (`POST /api/tx/broadcast`, or
 * `/api/tx/pipeline` for the whole package).
 *
 * Steps, each checked against what this service built (a PSBT whose unsigned transaction differs is
 * refused):
 *   1. `prepare`: plan + commit PSBT (P2PKH inputs with their previous transactions).
 *   2. `submitCommit`: the signed commit PSBT; answers the commit transaction and the PSBT of reveal 0.
 *   3. `submitReveal`: the signed PSBT of reveal k; answers reveal k and, for a Doginals chain, the
 *      PSBT of reveal k + 1 (its input is reveal k's output, known only once reveal k is signed).
 */
import crypto from "node:crypto";
import { Psbt, Transaction as BitcoinjsTransaction } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  DogeNetwork, SIGHASH_ALL, Transaction, addressToOutputScript, bytesToHex, decodeAddress, equalBytes, hash160, hexToBytes, legacySighash,
  p2pkhScriptSig, parseTransactionHex, serializeTransaction, toBitcoinjsNetwork, transactionSize, txidOf,
} from "../../doge";
import type { Sqlite } from "../../db/sqlite";
import type { IndexQueries } from "../../indexer/queries";
import { SOFT_DUST_LIMIT, dogecoinFee } from "../../wallet";
import { AppError, badRequest, conflict, notFound } from "../http/errors";
import {
  InscriptionForm, InscriptionPlan, planInscription, planSummary, revealInputScriptSig, revealInputs, revealRedeemScript, unsignedReveal,
} from "./plan";
import type { InscriptionInput } from "./request";

/** What the user-signed path asks the node. */
export interface RawTransactionSource {
  /** A confirmed transaction's raw bytes (getrawtransaction; needs -txindex on dogecoind). */
  rawTransaction(txid: string): Promise<string>;
  /**
   * Whether an output is still unspent counting the node's mempool (gettxout with mempool): the
   * index only knows blocks, and a commit already broadcast must not have its coins offered again.
   */
  unspentWithMempool(txid: string, vout: number): Promise<boolean>;
}

export interface UserSignedOptions {
  db: Sqlite;
  queries: IndexQueries;
  rawTransactions: RawTransactionSource;
  network: DogeNetwork;
  feeRateKoinuPerKb: bigint;
  postageKoinu: bigint;
  /** How long a preparation waits for its signatures (default 30 minutes). */
  ttlMs?: number;
  now?: () => number;
}

export type PrepareStatus = "awaiting_commit_signature" | "awaiting_reveal_signature" | "complete" | "expired";

interface PrepareRow {
  id: string; address: string; pubkey: string; recipient: string; form: string; content_type: string; action: string | null; body: Buffer;
  envelope_hash: string; fee_rate: string; postage: string; commit_psbt: string; commit_txid: string | null; commit_hex: string | null;
  reveal_hexes: string; status: string; created_at: number; expires_at: number;
}

/** Input of a P2PKH spend: outpoint, scriptSig of 1 + 73 + 1 + 33 bytes, sequence. */
const P2PKH_INPUT_BYTES = 32 + 4 + 1 + 108 + 4;
/** Bytes of a P2PKH output: value, script length, 25-byte script. */
const P2PKH_OUTPUT_BYTES = 8 + 1 + 25;
/** A commit spends at most this many of the user's outputs. */
const MAX_COMMIT_INPUTS = 50;

export class UserSignedInscriber {
  private readonly now: () => number;
  private readonly network: ReturnType<typeof toBitcoinjsNetwork>;

  constructor(private readonly options: UserSignedOptions) {
    this.now = options.now ?? Date.now;
    this.network = toBitcoinjsNetwork(options.network);
  }

  /** Step 1: plans the inscription for the user's key and builds the commit PSBT from their outputs. */
  async prepare(address: string, publicKeyHex: string, input: InscriptionInput) {
    const pubkey = parsePublicKey(publicKeyHex);
    const decoded = decodeAddress(address, this.options.network);
    if (decoded.type !== "pubkeyhash" || !equalBytes(decoded.hash, hash160(pubkey))) {
      throw badRequest("KEY_ADDRESS_MISMATCH", "public_key is not the key of address (a P2PKH address of that key is needed)", { field: "public_key" });
    }
    const plan = this.plan({ form: input.form, content: input.content, pubkey, recipient: input.recipient, feeRate: this.options.feeRateKoinuPerKb, postage: this.options.postageKoinu });
    const ownScript = addressToOutputScript(address, this.options.network);
    const { coins, fee, change } = await this.selectCoins(address, plan);
    const outputs = change > 0n ? [...plan.commitOutputs, { script: ownScript, value: change }] : plan.commitOutputs;
    const psbt = this.newPsbt();
    for (const coin of coins) {
      const raw = hexToBytes(await this.options.rawTransactions.rawTransaction(coin.txid));
      psbt.addInput({ hash: coin.txid, index: coin.vout, nonWitnessUtxo: raw });
    }
    for (const output of outputs) psbt.addOutput({ script: output.script, value: output.value });
    const id = `prep_${crypto.randomBytes(12).toString("hex")}`;
    const at = this.now();
    this.options.db.prepare(`INSERT INTO prepares (id, address, pubkey, recipient, form, content_type, action, body, envelope_hash, fee_rate, postage,
      commit_psbt, status, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'awaiting_commit_signature', ?, ?)`).run(
      id, address, bytesToHex(pubkey), input.recipient, plan.form, input.content.contentType, input.content.action, Buffer.from(input.content.body),
      plan.envelopeHash, this.options.feeRateKoinuPerKb.toString(), this.options.postageKoinu.toString(), psbt.toBase64(), at, at + (this.options.ttlMs ?? 30 * 60_000));
    return {
      ...this.view(this.row(id)),
      commit: {
        psbt: psbt.toBase64(),
        fee_koinu: fee.toString(),
        inputs: coins.map((coin) => ({ txid: coin.txid, vout: coin.vout, value_koinu: coin.value.toString() })),
        change_koinu: change.toString(),
      },
    };
  }

  /** Step 2: the signed commit PSBT in; the commit transaction and the PSBT of the first reveal out. */
  submitCommit(id: string, psbtBase64: unknown) {
    const row = this.live(id);
    if (row.status !== "awaiting_commit_signature") throw conflict("WRONG_STEP", `preparation ${id} is ${row.status}, not awaiting the commit signature`, { id, status: row.status });
    const expected = Psbt.fromBase64(row.commit_psbt, { network: this.network });
    const signed = parsePsbt(psbtBase64, this.network);
    const tx = ownTransaction(expected);
    sameUnsignedTransaction(signed, tx);
    tx.inputs.forEach((input, i) => {
      const prevScript = prevOutScript(expected, i);
      const { signature, pubkey } = onlySignature(signed, i);
      if (!equalBytes(hash160(pubkey), classifyP2pkh(prevScript))) throw badRequest("WRONG_SIGNER", `input ${i} is signed by a key that does not own it`, { input: i });
      checkSignature(tx, i, prevScript, pubkey, signature);
      input.scriptSig = p2pkhScriptSig(signature, pubkey);
    });
    const hex = bytesToHex(serializeTransaction(tx));
    const txid = txidOf(tx);
    this.options.db.prepare("UPDATE prepares SET commit_txid = ?, commit_hex = ?, status = 'awaiting_reveal_signature' WHERE id = ? AND status = 'awaiting_commit_signature'").run(txid, hex, id);
    return { ...this.view(this.row(id)), commit: { txid, hex }, next_reveal: this.revealPsbt(this.row(id)) };
  }

  /** Step 3: a signed reveal PSBT in; the reveal and (Doginals chains) the next PSBT out. */
  submitReveal(id: string, psbtBase64: unknown) {
    const row = this.live(id);
    if (row.status !== "awaiting_reveal_signature") throw conflict("WRONG_STEP", `preparation ${id} is ${row.status}, not awaiting a reveal signature`, { id, status: row.status });
    const plan = this.rowPlan(row);
    const reveals = JSON.parse(row.reveal_hexes) as string[];
    const k = reveals.length;
    const previousTxid = k === 0 ? row.commit_txid! : txidOfHex(reveals[k - 1]);
    const tx = unsignedReveal(plan, k, previousTxid);
    const signed = parsePsbt(psbtBase64, this.network);
    sameUnsignedTransaction(signed, tx);
    const pubkey = hexToBytes(row.pubkey);
    tx.inputs.forEach((input, i) => {
      const { signature, pubkey: signer } = onlySignature(signed, i);
      if (!equalBytes(signer, pubkey)) throw badRequest("WRONG_SIGNER", `reveal input ${i} must be signed by the prepared public key`, { input: i });
      checkSignature(tx, i, revealRedeemScript(plan, k, i), pubkey, signature);
      input.scriptSig = revealInputScriptSig(plan, k, i, signature);
    });
    const hex = bytesToHex(serializeTransaction(tx));
    reveals.push(hex);
    const complete = reveals.length === plan.revealCount;
    this.options.db.prepare("UPDATE prepares SET reveal_hexes = ?, status = ? WHERE id = ? AND status = 'awaiting_reveal_signature'")
      .run(JSON.stringify(reveals), complete ? "complete" : "awaiting_reveal_signature", id);
    const updated = this.row(id);
    return { ...this.view(updated), reveal: { index: k, txid: txidOf(tx), hex }, next_reveal: complete ? null : this.revealPsbt(updated) };
  }

  /** A preparation as the API shows it (404 when unknown). */
  get(id: string) {
    const row = this.options.db.prepare("SELECT * FROM prepares WHERE id = ?").get(id) as PrepareRow | undefined;
    if (!row) throw notFound("PREPARATION_NOT_FOUND", `no preparation ${id}`, { id });
    return { ...this.view(row), next_reveal: row.status === "awaiting_reveal_signature" && row.expires_at > this.now() ? this.revealPsbt(row) : null };
  }

  private row(id: string): PrepareRow {
    return this.options.db.prepare("SELECT * FROM prepares WHERE id = ?").get(id) as PrepareRow;
  }

  /** A preparation that can still take a step: known, and not past its expiry unless complete. */
  private live(id: string): PrepareRow {
    const row = this.options.db.prepare("SELECT * FROM prepares WHERE id = ?").get(id) as PrepareRow | undefined;
    if (!row) throw notFound("PREPARATION_NOT_FOUND", `no preparation ${id}`, { id });
    if (row.status !== "complete" && row.expires_at <= this.now()) {
      throw new AppError(410, "PREPARATION_EXPIRED", `preparation ${id} expired; prepare again (the user's coins were never reserved)`, { id, expires_at: new Date(row.expires_at).toISOString() });
    }
    return row;
  }

  private view(row: PrepareRow) {
    const reveals = JSON.parse(row.reveal_hexes) as string[];
    const revealTxids = reveals.map(txidOfHex);
    const plan = this.rowPlan(row);
    const status: PrepareStatus = row.status !== "complete" && row.expires_at <= this.now() ? "expired" : (row.status as PrepareStatus);
    return {
      id: row.id,
      status,
      address: row.address,
      recipient: row.recipient,
      content_type: row.content_type,
      action: row.action,
      ...planSummary(plan),
      commit_txid: row.commit_txid,
      reveal_txids: revealTxids,
      inscription_id: revealTxids.length > 0 ? `${revealTxids[0]}i0` : null,
      // The transactions to hand to the explorer, in order (commit first), once they are signed.
      transactions: row.commit_hex ? [row.commit_hex, ...reveals] : [],
      expires_at: new Date(row.expires_at).toISOString(),
    };
  }

  private plan(args: { form: InscriptionForm; content: InscriptionInput["content"]; pubkey: Uint8Array; recipient: string; feeRate: bigint; postage: bigint }): InscriptionPlan {
    return planInscription(args.content, args.form, args.pubkey, addressToOutputScript(args.recipient, this.options.network), {
      feeRateKoinuPerKb: args.feeRate, postageKoinu: args.postage,
    });
  }

  private rowPlan(row: PrepareRow): InscriptionPlan {
    return this.plan({
      form: row.form as InscriptionForm, content: { contentType: row.content_type, action: row.action, body: new Uint8Array(row.body) },
      pubkey: hexToBytes(row.pubkey), recipient: row.recipient, feeRate: BigInt(row.fee_rate), postage: BigInt(row.postage),
    });
  }

  /** The PSBT of the next reveal of a preparation whose commit (and earlier reveals) are signed. */
  private revealPsbt(row: PrepareRow): { index: number; psbt: string } {
    const plan = this.rowPlan(row);
    const reveals = JSON.parse(row.reveal_hexes) as string[];
    const k = reveals.length;
    const previousHex = k === 0 ? row.commit_hex! : reveals[k - 1];
    const previousTxid = txidOfHex(previousHex);
    const tx = unsignedReveal(plan, k, previousTxid);
    const psbt = this.newPsbt();
    revealInputs(plan, k, previousTxid).forEach((prev, i) => {
      psbt.addInput({ hash: prev.txid, index: prev.vout, nonWitnessUtxo: hexToBytes(previousHex), redeemScript: revealRedeemScript(plan, k, i) });
    });
    for (const output of tx.outputs) psbt.addOutput({ script: output.script, value: output.value });
    return { index: k, psbt: psbt.toBase64() };
  }

  private newPsbt(): Psbt {
    const psbt = new Psbt({ network: this.network });
    psbt.setVersion(1);
    // Dogecoin fees are far above bitcoinjs' default ceiling in koinu per byte.
    psbt.setMaximumFeeRate(100_000_000);
    return psbt;
  }

  /** The user's confirmed outputs that pay the plan's commit outputs and its fee (largest first). */
  private async selectCoins(address: string, plan: InscriptionPlan) {
    const candidates: { txid: string; vout: number; value: bigint }[] = [];
    let after: { height: number; txid: string; vout: number } | null = null;
    for (;;) {
      const page = this.options.queries.utxos(address, after, 500);
      for (const item of page.items) {
        if (item.inscriptions.length === 0 && item.drc20.length === 0) candidates.push({ txid: item.txid, vout: item.vout, value: item.valueKoinu });
      }
      if (page.items.length < 500) break;
      const last = page.items[page.items.length - 1];
      after = { height: last.height, txid: last.txid, vout: last.vout };
    }
    candidates.sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
    const outputsTotal = plan.commitOutputs.reduce((sum, output) => sum + output.value, 0n);
    const baseSize = transactionSize({ version: 1, inputs: [], outputs: plan.commitOutputs, locktime: 0 });
    const coins: typeof candidates = [];
    let total = 0n;
    for (const coin of candidates) {
      if (coins.length === MAX_COMMIT_INPUTS) break;
      if (!(await this.options.rawTransactions.unspentWithMempool(coin.txid, coin.vout))) continue;
      coins.push(coin);
      total += coin.value;
      const sizeWithChange = baseSize + coins.length * P2PKH_INPUT_BYTES + P2PKH_OUTPUT_BYTES + 2;
      const feeWithChange = dogecoinFee(sizeWithChange, plan.commitOutputs, this.options.feeRateKoinuPerKb);
      const change = total - outputsTotal - feeWithChange;
      if (change >= SOFT_DUST_LIMIT) return { coins, fee: feeWithChange, change };
      const feeWithout = dogecoinFee(baseSize + coins.length * P2PKH_INPUT_BYTES + 2, plan.commitOutputs, this.options.feeRateKoinuPerKb);
      if (total - outputsTotal >= feeWithout) return { coins, fee: total - outputsTotal, change: 0n };
    }
    const needed = outputsTotal + dogecoinFee(baseSize + P2PKH_INPUT_BYTES + 2, plan.commitOutputs, this.options.feeRateKoinuPerKb);
    throw new AppError(422, "INSUFFICIENT_FUNDS", `${address} has ${candidates.reduce((s, c) => s + c.value, 0n)} koinu in confirmed outputs that carry no inscription; this inscription needs about ${needed}`, {
      address, needed_koinu: needed.toString(),
    });
  }
}

/** The txid of a transaction this service serialised itself. */
function txidOfHex(hex: string): string {
  const parsed = parseTransactionHex(hex);
  if (!parsed.ok) throw new Error(`stored transaction does not decode: ${parsed.error.message}`);
  return parsed.value.txid;
}

function parsePublicKey(hex: string): Uint8Array {
  if (!/^(02|03)[0-9a-fA-F]{64}$/.test(hex)) throw badRequest("INVALID_PUBLIC_KEY", "public_key must be a compressed secp256k1 public key (66 hexadecimal characters)", { field: "public_key" });
  const bytes = hexToBytes(hex);
  try {
    secp256k1.Point.fromBytes(bytes);
  } catch {
    throw badRequest("INVALID_PUBLIC_KEY", "public_key is not a point on secp256k1", { field: "public_key" });
  }
  return bytes;
}

function parsePsbt(value: unknown, network: ReturnType<typeof toBitcoinjsNetwork>): Psbt {
  if (typeof value !== "string" || value.length === 0) throw badRequest("INVALID_PSBT", "psbt must be a base64 string", { field: "psbt" });
  try {
    return Psbt.fromBase64(value, { network });
  } catch (error) {
    throw badRequest("INVALID_PSBT", `psbt does not decode: ${(error as Error).message}`, { field: "psbt" });
  }
}

/** Our own Transaction for a PSBT's unsigned transaction. */
function ownTransaction(psbt: Psbt): Transaction {
  const unsigned = (psbt.data.globalMap.unsignedTx as unknown as { toBuffer(): Uint8Array }).toBuffer();
  const parsed = parseTransactionHex(bytesToHex(unsigned));
  if (!parsed.ok) throw new Error(`stored PSBT does not decode: ${parsed.error.message}`);
  const { version, inputs, outputs, locktime } = parsed.value;
  return { version, inputs: inputs.map((input) => ({ ...input })), outputs, locktime };
}

function sameUnsignedTransaction(signed: Psbt, expected: Transaction): void {
  const unsigned = (signed.data.globalMap.unsignedTx as unknown as { toBuffer(): Uint8Array }).toBuffer();
  const blank = { ...expected, inputs: expected.inputs.map((input) => ({ ...input, scriptSig: new Uint8Array(0) })) };
  if (!equalBytes(unsigned, serializeTransaction(blank))) {
    throw badRequest("PSBT_MISMATCH", "the PSBT's transaction is not the one this service built for this step", { field: "psbt" });
  }
}

function prevOutScript(psbt: Psbt, index: number): Uint8Array {
  const raw = psbt.data.inputs[index].nonWitnessUtxo!;
  const prev = BitcoinjsTransaction.fromBuffer(raw);
  return prev.outs[psbt.txInputs[index].index].script;
}

function classifyP2pkh(script: Uint8Array): Uint8Array {
  return script.subarray(3, 23);
}

/** The one partial signature of input `index` (a finalised input is refused: we finalise ourselves). */
function onlySignature(psbt: Psbt, index: number): { signature: Uint8Array; pubkey: Uint8Array } {
  const input = psbt.data.inputs[index];
  const partial = input?.partialSig ?? [];
  if (partial.length !== 1) {
    throw badRequest("MISSING_SIGNATURE", `input ${index} must carry exactly one partial signature (got ${partial.length}${input?.finalScriptSig ? ", and it is already finalised" : ""})`, { input: index });
  }
  return { signature: partial[0].signature, pubkey: partial[0].pubkey };
}

/** A DER signature with SIGHASH_ALL over input `index`, low-s, by `pubkey`. */
function checkSignature(tx: Transaction, index: number, scriptCode: Uint8Array, pubkey: Uint8Array, signature: Uint8Array): void {
  if (signature.length < 9 || signature[signature.length - 1] !== SIGHASH_ALL) {
    throw badRequest("INVALID_SIGNATURE", `input ${index}: signatures must use SIGHASH_ALL`, { input: index });
  }
  const digest = legacySighash(tx, index, scriptCode, SIGHASH_ALL);
  let ok = false;
  try {
    ok = secp256k1.verify(signature.subarray(0, signature.length - 1), digest, pubkey, { prehash: false, format: "der", lowS: true });
  } catch {
    ok = false;
  }
  if (!ok) throw badRequest("INVALID_SIGNATURE", `input ${index}: the signature does not verify (it must be a low-s DER signature over this transaction)`, { input: index });
}
