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
import {
  DogeNetwork,
  Transaction,
  addressToOutputScript,
  bytesToHex,
  equalBytes,
  hash160,
  hexToBytes,
  p2pkhScriptSig,
  parseTransactionHex,
  serializeTransaction,
  toBitcoinjsNetwork,
  txidOf,
} from "../../doge";
import type { Sqlite } from "../../db/sqlite";
import type { IndexQueries } from "../../indexer/queries";
import { Refusal, badRequest, conflict, notFound } from "../../errors";
import {
  RawTransactionSource,
  checkKeyOfAddress,
  checkSignature,
  newDogePsbt,
  onlySignature,
  parsePsbt,
  parsePublicKey,
  selectUserCoins,
  unsignedBytes,
} from "../user-psbt";
import {
  InscriptionForm,
  InscriptionPlan,
  planInscription,
  planSummary,
  revealInputScriptSig,
  revealInputs,
  revealRedeemScript,
  unsignedReveal,
} from "./plan";
import type { InscriptionInput } from "./request";

export type { RawTransactionSource };

export interface UserSignedOptions {
  db: Sqlite;
  queries: IndexQueries;
  rawTransactions: RawTransactionSource;
  network: DogeNetwork;
  feeRateKoinuPerKb: bigint;
  postageKoinu: bigint;
  /** How long a preparation waits for its signatures (default 30 minutes). */
  ttlMs?: number;
  /** Preparations not yet expired one client (IP, IPv6 /56) may have (default PREPARATIONS_PER_CLIENT). */
  maxPerClient?: number;
  /** Preparations not yet expired in all (default PREPARATIONS_TOTAL). */
  maxTotal?: number;
  /** How long a preparation stays readable after it expires before its row is deleted (default 1 hour). */
  retainMs?: number;
  now?: () => number;
}

/** Default cap of a client's preparations that have not expired yet. */
export const PREPARATIONS_PER_CLIENT = 20;
/** Default cap of all preparations that have not expired yet. */
export const PREPARATIONS_TOTAL = 1_000;

export type PrepareStatus = "awaiting_commit_signature" | "awaiting_reveal_signature" | "complete" | "expired";

interface PrepareRow {
  id: string;
  address: string;
  pubkey: string;
  recipient: string;
  form: string;
  content_type: string;
  action: string | null;
  body: Buffer;
  envelope_hash: string;
  fee_rate: string;
  postage: string;
  commit_psbt: string;
  commit_txid: string | null;
  commit_hex: string | null;
  reveal_hexes: string;
  status: string;
  created_at: number;
  expires_at: number;
  client: string;
}

export class UserSignedInscriber {
  private readonly now: () => number;
  private readonly network: ReturnType<typeof toBitcoinjsNetwork>;

  constructor(private readonly options: UserSignedOptions) {
    this.now = options.now ?? Date.now;
    this.network = toBitcoinjsNetwork(options.network);
  }

  /**
   * Step 1: plans the inscription for the user's key and builds the commit PSBT from their outputs.
   * `client` is who asks (its IP key): it may hold at most `maxPerClient` preparations that have not
   * expired, all clients together `maxTotal`; past either, 429 TOO_MANY_PREPARATIONS with Retry-After.
   */
  async prepare(address: string, publicKeyHex: string, input: InscriptionInput, client: string) {
    this.prune();
    this.checkRoom(client);
    const pubkey = parsePublicKey(publicKeyHex);
    checkKeyOfAddress(
      address,
      pubkey,
      this.options.network,
      "public_key is not the key of address (a P2PKH address of that key is needed)",
    );
    const plan = this.plan({
      form: input.form,
      content: input.content,
      pubkey,
      recipient: input.recipient,
      feeRate: this.options.feeRateKoinuPerKb,
      postage: this.options.postageKoinu,
    });
    const ownScript = addressToOutputScript(address, this.options.network);
    const { coins, fee, change } = await selectUserCoins({
      queries: this.options.queries,
      node: this.options.rawTransactions,
      address,
      fixed: plan.commitOutputs,
      feeRateKoinuPerKb: this.options.feeRateKoinuPerKb,
      purpose: "this inscription",
    });
    const outputs = change > 0n ? [...plan.commitOutputs, { script: ownScript, value: change }] : plan.commitOutputs;
    const psbt = newDogePsbt(this.network);
    for (const coin of coins) {
      const raw = hexToBytes(await this.options.rawTransactions.rawTransaction(coin.txid));
      psbt.addInput({ hash: coin.txid, index: coin.vout, nonWitnessUtxo: raw });
    }
    for (const output of outputs) psbt.addOutput({ script: output.script, value: output.value });
    const id = `prep_${crypto.randomBytes(12).toString("hex")}`;
    const at = this.now();
    // Checked again after the awaits above: no await between this check and the insert, so
    // concurrent requests of one client cannot pass the cap together.
    this.checkRoom(client);
    this.options.db
      .prepare(
        `INSERT INTO prepares (id, address, pubkey, recipient, form, content_type, action, body, envelope_hash, fee_rate, postage,
      commit_psbt, status, created_at, expires_at, client) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'awaiting_commit_signature', ?, ?, ?)`,
      )
      .run(
        id,
        address,
        bytesToHex(pubkey),
        input.recipient,
        plan.form,
        input.content.contentType,
        input.content.action,
        Buffer.from(input.content.body),
        plan.envelopeHash,
        this.options.feeRateKoinuPerKb.toString(),
        this.options.postageKoinu.toString(),
        psbt.toBase64(),
        at,
        at + (this.options.ttlMs ?? 30 * 60_000),
        client,
      );
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
    if (row.status !== "awaiting_commit_signature")
      throw conflict("WRONG_STEP", `preparation ${id} is ${row.status}, not awaiting the commit signature`, {
        id,
        status: row.status,
      });
    const expected = Psbt.fromBase64(row.commit_psbt, { network: this.network });
    const signed = parsePsbt(psbtBase64, this.network);
    const tx = ownTransaction(expected);
    sameUnsignedTransaction(signed, tx);
    tx.inputs.forEach((input, i) => {
      const prevScript = prevOutScript(expected, i);
      const { signature, pubkey } = onlySignature(signed, i);
      if (!equalBytes(hash160(pubkey), classifyP2pkh(prevScript)))
        throw badRequest("WRONG_SIGNER", `input ${i} is signed by a key that does not own it`, { input: i });
      checkSignature(tx, i, prevScript, pubkey, signature);
      input.scriptSig = p2pkhScriptSig(signature, pubkey);
    });
    const hex = bytesToHex(serializeTransaction(tx));
    const txid = txidOf(tx);
    this.options.db
      .prepare(
        "UPDATE prepares SET commit_txid = ?, commit_hex = ?, status = 'awaiting_reveal_signature' WHERE id = ? AND status = 'awaiting_commit_signature'",
      )
      .run(txid, hex, id);
    return { ...this.view(this.row(id)), commit: { txid, hex }, next_reveal: this.revealPsbt(this.row(id)) };
  }

  /** Step 3: a signed reveal PSBT in; the reveal and (Doginals chains) the next PSBT out. */
  submitReveal(id: string, psbtBase64: unknown) {
    const row = this.live(id);
    if (row.status !== "awaiting_reveal_signature")
      throw conflict("WRONG_STEP", `preparation ${id} is ${row.status}, not awaiting a reveal signature`, {
        id,
        status: row.status,
      });
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
      if (!equalBytes(signer, pubkey))
        throw badRequest("WRONG_SIGNER", `reveal input ${i} must be signed by the prepared public key`, { input: i });
      checkSignature(tx, i, revealRedeemScript(plan, k, i), pubkey, signature);
      input.scriptSig = revealInputScriptSig(plan, k, i, signature);
    });
    const hex = bytesToHex(serializeTransaction(tx));
    reveals.push(hex);
    const complete = reveals.length === plan.revealCount;
    this.options.db
      .prepare("UPDATE prepares SET reveal_hexes = ?, status = ? WHERE id = ? AND status = 'awaiting_reveal_signature'")
      .run(JSON.stringify(reveals), complete ? "complete" : "awaiting_reveal_signature", id);
    const updated = this.row(id);
    return {
      ...this.view(updated),
      reveal: { index: k, txid: txidOf(tx), hex },
      next_reveal: complete ? null : this.revealPsbt(updated),
    };
  }

  /** A preparation as the API shows it (404 when unknown). */
  get(id: string) {
    const row = this.options.db.prepare("SELECT * FROM prepares WHERE id = ?").get(id) as PrepareRow | undefined;
    if (!row) throw notFound("PREPARATION_NOT_FOUND", `no preparation ${id}`, { id });
    return {
      ...this.view(row),
      next_reveal:
        row.status === "awaiting_reveal_signature" && row.expires_at > this.now() ? this.revealPsbt(row) : null,
    };
  }

  /** Deletes the preparations that expired more than `retainMs` ago (complete or not). */
  prune(): number {
    return this.options.db
      .prepare("DELETE FROM prepares WHERE expires_at <= ?")
      .run(this.now() - (this.options.retainMs ?? 3_600_000)).changes;
  }

  /** Refuses a new preparation when the client, or everyone together, holds the most allowed. */
  private checkRoom(client: string): void {
    const now = this.now();
    const caps = [
      {
        scope: "client",
        limit: this.options.maxPerClient ?? PREPARATIONS_PER_CLIENT,
        where: "client = ? AND expires_at > ?",
        args: [client, now],
      },
      { scope: "total", limit: this.options.maxTotal ?? PREPARATIONS_TOTAL, where: "expires_at > ?", args: [now] },
    ];
    for (const cap of caps) {
      const { n, first } = this.options.db
        .prepare(`SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM prepares WHERE ${cap.where}`)
        .get(...cap.args) as { n: number; first: number | null };
      if (n < cap.limit) continue;
      const retryAfter = Math.max(1, Math.ceil(((first ?? now) - now) / 1000));
      throw new Refusal(
        "rate_limited",
        "TOO_MANY_PREPARATIONS",
        cap.scope === "client"
          ? `this client made ${n} preparations that have not expired yet (complete or not); retry once the oldest expires`
          : "the inscriber holds as many preparations as it keeps; retry once the oldest expires",
        { scope: cap.scope, limit: cap.limit },
        { retryAfterSeconds: retryAfter },
      );
    }
  }

  private row(id: string): PrepareRow {
    return this.options.db.prepare("SELECT * FROM prepares WHERE id = ?").get(id) as PrepareRow;
  }

  /** A preparation that can still take a step: known, and not past its expiry unless complete. */
  private live(id: string): PrepareRow {
    const row = this.options.db.prepare("SELECT * FROM prepares WHERE id = ?").get(id) as PrepareRow | undefined;
    if (!row) throw notFound("PREPARATION_NOT_FOUND", `no preparation ${id}`, { id });
    if (row.status !== "complete" && row.expires_at <= this.now()) {
      throw new Refusal(
        "gone",
        "PREPARATION_EXPIRED",
        `preparation ${id} expired; prepare again (the user's coins were never reserved)`,
        { id, expires_at: new Date(row.expires_at).toISOString() },
      );
    }
    return row;
  }

  private view(row: PrepareRow) {
    const reveals = JSON.parse(row.reveal_hexes) as string[];
    const revealTxids = reveals.map(txidOfHex);
    const plan = this.rowPlan(row);
    const status: PrepareStatus =
      row.status !== "complete" && row.expires_at <= this.now() ? "expired" : (row.status as PrepareStatus);
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

  private plan(args: {
    form: InscriptionForm;
    content: InscriptionInput["content"];
    pubkey: Uint8Array;
    recipient: string;
    feeRate: bigint;
    postage: bigint;
  }): InscriptionPlan {
    return planInscription(
      args.content,
      args.form,
      args.pubkey,
      addressToOutputScript(args.recipient, this.options.network),
      {
        feeRateKoinuPerKb: args.feeRate,
        postageKoinu: args.postage,
      },
    );
  }

  private rowPlan(row: PrepareRow): InscriptionPlan {
    return this.plan({
      form: row.form as InscriptionForm,
      content: { contentType: row.content_type, action: row.action, body: new Uint8Array(row.body) },
      pubkey: hexToBytes(row.pubkey),
      recipient: row.recipient,
      feeRate: BigInt(row.fee_rate),
      postage: BigInt(row.postage),
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
    const psbt = newDogePsbt(this.network);
    revealInputs(plan, k, previousTxid).forEach((prev, i) => {
      psbt.addInput({
        hash: prev.txid,
        index: prev.vout,
        nonWitnessUtxo: hexToBytes(previousHex),
        redeemScript: revealRedeemScript(plan, k, i),
      });
    });
    for (const output of tx.outputs) psbt.addOutput({ script: output.script, value: output.value });
    return { index: k, psbt: psbt.toBase64() };
  }
}

/** The txid of a transaction this service serialised itself. */
function txidOfHex(hex: string): string {
  const parsed = parseTransactionHex(hex);
  if (!parsed.ok) throw new Error(`stored transaction does not decode: ${parsed.error.message}`);
  return parsed.value.txid;
}

/** Our own Transaction for a PSBT's unsigned transaction. */
function ownTransaction(psbt: Psbt): Transaction {
  const parsed = parseTransactionHex(bytesToHex(unsignedBytes(psbt)));
  if (!parsed.ok) throw new Error(`stored PSBT does not decode: ${parsed.error.message}`);
  const { version, inputs, outputs, locktime } = parsed.value;
  return { version, inputs: inputs.map((input) => ({ ...input })), outputs, locktime };
}

function sameUnsignedTransaction(signed: Psbt, expected: Transaction): void {
  const unsigned = unsignedBytes(signed);
  const blank = { ...expected, inputs: expected.inputs.map((input) => ({ ...input, scriptSig: new Uint8Array(0) })) };
  if (!equalBytes(unsigned, serializeTransaction(blank))) {
    throw badRequest("PSBT_MISMATCH", "the PSBT's transaction is not the one this service built for this step", {
      field: "psbt",
    });
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
