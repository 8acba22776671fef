/**
 * Commit/reveal planning for both inscription forms (DESIGN.md 4.2), shared by the platform path
 * (the hot wallet pays and signs) and the user-signed path (PSBTs the user's wallet signs).
 *
 * A plan is fixed before anything is signed: the redeem scripts, every reveal's fee (computed on its
 * size with a worst-case 73-byte signature, at the wallet's fee rate), and the commit outputs that
 * fund exactly those fees. Nothing here does I/O.
 *
 * v1: one reveal spending one P2SH output per redeem script. Output 0 of the commit carries the
 * postage and the reveal fee; each continuation output carries the soft dust limit (0.01 DOGE),
 * which the reveal adds to its fee (an output below it would cost 0.01 DOGE of fee anyway).
 * Doginals: reveal k spends output 0 of the previous transaction (the commit for k = 0), which pays
 * the P2SH of part k's redeem script; each reveal passes on the value less its own fee, the last one
 * pays the recipient the postage.
 */
import { Transaction, TxOutput, bytesToHex, hash160, p2shScript, transactionSize } from "../../doge";
import {
  DoginalsRevealPart,
  EnvelopeContent,
  doginalsScriptSig,
  encodeDoginalsReveal,
  envelopeHash,
  parseDrc20,
  planRevealScripts,
  revealScriptSig,
} from "../../inscription";
import { SOFT_DUST_LIMIT, dogecoinFee } from "../../wallet";

export type InscriptionForm = "v1" | "doginals";

/** A DER signature with its sighash byte is at most 73 bytes: sizes are planned with that. */
const MAX_SIGNATURE_BYTES = 73;
const PLACEHOLDER_SIGNATURE = new Uint8Array(MAX_SIGNATURE_BYTES).fill(0x30);

/** Each continuation output of a v1 commit (the soft dust limit). */
export const CONTINUATION_OUTPUT_KOINU = SOFT_DUST_LIMIT;

export interface InscriptionContent extends EnvelopeContent {
  action: string | null;
}

/**
 * The form an inscription goes out in: DRC-20 plain text (a text/plain body that parses as a
 * `{"p":"drc-20",...}` operation, no ACTION) in the Doginals form that every DRC-20 indexer reads;
 * everything else in the v1 envelope. A caller may ask for the Doginals form for any content
 * without an ACTION (the form has no ACTION field).
 */
export function chooseForm(content: InscriptionContent, requested: InscriptionForm | null): InscriptionForm {
  if (requested) return requested;
  return content.action === null &&
    /^text\/plain(;|$)/.test(content.contentType) &&
    parseDrc20(content.body, content.contentType).ok
    ? "doginals"
    : "v1";
}

export interface InscriptionPlan {
  form: InscriptionForm;
  content: InscriptionContent;
  /** envelopeHash of the content (DESIGN.md 4.2), whatever the form. */
  envelopeHash: string;
  pubkey: Uint8Array;
  recipientScript: Uint8Array;
  postageKoinu: bigint;
  /** v1: one redeem script per reveal input. Doginals: one per part (= per reveal transaction). */
  redeemScripts: Uint8Array[];
  doginalsParts: DoginalsRevealPart[];
  /** The commit's outputs before change, in order. */
  commitOutputs: TxOutput[];
  /** Fee of each reveal transaction as planned (v1: one). */
  revealFeesKoinu: bigint[];
  /** Number of reveal transactions. */
  revealCount: number;
}

export interface PlanOptions {
  feeRateKoinuPerKb: bigint;
  postageKoinu: bigint;
}

function p2shOf(redeemScript: Uint8Array): Uint8Array {
  return p2shScript(hash160(redeemScript));
}

/** Plans the commit outputs and the reveals of `content` for the key `pubkey`. */
export function planInscription(
  content: InscriptionContent,
  form: InscriptionForm,
  pubkey: Uint8Array,
  recipientScript: Uint8Array,
  options: PlanOptions,
): InscriptionPlan {
  const postage = options.postageKoinu;
  const hash = envelopeHash(content);
  if (form === "v1") {
    const redeemScripts = planRevealScripts({ ...content, pubkey });
    const draft: Transaction = {
      version: 1,
      inputs: redeemScripts.map((redeemScript) => ({
        prevTxid: "00".repeat(32),
        vout: 0,
        scriptSig: revealScriptSig(PLACEHOLDER_SIGNATURE, redeemScript),
        sequence: 0xffffffff,
      })),
      outputs: [{ script: recipientScript, value: postage }],
      locktime: 0,
    };
    const fee = dogecoinFee(transactionSize(draft), draft.outputs, options.feeRateKoinuPerKb);
    const continuation = BigInt(redeemScripts.length - 1) * CONTINUATION_OUTPUT_KOINU;
    const first = postage + (fee > continuation ? fee - continuation : 0n);
    const commitOutputs = redeemScripts.map((redeemScript, i) => ({
      script: p2shOf(redeemScript),
      value: i === 0 ? first : CONTINUATION_OUTPUT_KOINU,
    }));
    return {
      form,
      content,
      envelopeHash: hash,
      pubkey,
      recipientScript,
      postageKoinu: postage,
      redeemScripts,
      doginalsParts: [],
      commitOutputs,
      revealFeesKoinu: [first + continuation - postage],
      revealCount: 1,
    };
  }
  if (content.action !== null) throw new Error("the Doginals form has no ACTION");
  const parts = encodeDoginalsReveal({ contentType: content.contentType, body: content.body, pubkey });
  const fees = parts.map((part, k) => {
    const last = k === parts.length - 1;
    const draft: Transaction = {
      version: 1,
      inputs: [
        {
          prevTxid: "00".repeat(32),
          vout: 0,
          scriptSig: doginalsScriptSig(part, PLACEHOLDER_SIGNATURE),
          sequence: 0xffffffff,
        },
      ],
      outputs: [{ script: last ? recipientScript : p2shOf(parts[k + 1].redeemScript), value: postage }],
      locktime: 0,
    };
    return dogecoinFee(transactionSize(draft), draft.outputs, options.feeRateKoinuPerKb);
  });
  const total = fees.reduce((sum, fee) => sum + fee, 0n);
  return {
    form,
    content,
    envelopeHash: hash,
    pubkey,
    recipientScript,
    postageKoinu: postage,
    redeemScripts: parts.map((part) => part.redeemScript),
    doginalsParts: parts,
    commitOutputs: [{ script: p2shOf(parts[0].redeemScript), value: postage + total }],
    revealFeesKoinu: fees,
    revealCount: parts.length,
  };
}

/** An output a reveal spends. */
export interface PrevOut {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
}

/** The outputs reveal `k` spends: the commit's outputs (v1, k = 0) or output 0 of the previous transaction. */
export function revealInputs(plan: InscriptionPlan, k: number, previousTxid: string): PrevOut[] {
  if (plan.form === "v1")
    return plan.commitOutputs.map((output, vout) => ({
      txid: previousTxid,
      vout,
      value: output.value,
      script: output.script,
    }));
  const value = k === 0 ? plan.commitOutputs[0].value : valueAfterReveal(plan, k - 1);
  return [{ txid: previousTxid, vout: 0, value, script: p2shOf(plan.doginalsParts[k].redeemScript) }];
}

function valueAfterReveal(plan: InscriptionPlan, k: number): bigint {
  let value = plan.commitOutputs[0].value;
  for (let j = 0; j <= k; j++) value -= plan.revealFeesKoinu[j];
  return value;
}

/** Reveal `k` with empty scriptSigs, spending `previousTxid` (the commit for k = 0, reveal k - 1 after). */
export function unsignedReveal(plan: InscriptionPlan, k: number, previousTxid: string): Transaction {
  const inputs = revealInputs(plan, k, previousTxid).map((prev) => ({
    prevTxid: prev.txid,
    vout: prev.vout,
    scriptSig: new Uint8Array(0),
    sequence: 0xffffffff,
  }));
  if (plan.form === "v1")
    return { version: 1, inputs, outputs: [{ script: plan.recipientScript, value: plan.postageKoinu }], locktime: 0 };
  const last = k === plan.revealCount - 1;
  const script = last ? plan.recipientScript : p2shOf(plan.doginalsParts[k + 1].redeemScript);
  return { version: 1, inputs, outputs: [{ script, value: valueAfterReveal(plan, k) }], locktime: 0 };
}

/** The redeem script input `index` of reveal `k` spends (its sighash script code). */
export function revealRedeemScript(plan: InscriptionPlan, k: number, index: number): Uint8Array {
  return plan.form === "v1" ? plan.redeemScripts[index] : plan.doginalsParts[k].redeemScript;
}

/** The final scriptSig of input `index` of reveal `k` given its signature (DER + sighash byte). */
export function revealInputScriptSig(
  plan: InscriptionPlan,
  k: number,
  index: number,
  signature: Uint8Array,
): Uint8Array {
  if (plan.form === "v1") return revealScriptSig(signature, plan.redeemScripts[index]);
  return doginalsScriptSig(plan.doginalsParts[k], signature);
}

/** A compact, stable description of a plan for job rows and API answers. */
export function planSummary(plan: InscriptionPlan) {
  return {
    form: plan.form,
    envelope_hash: plan.envelopeHash,
    reveal_count: plan.revealCount,
    reveal_inputs: plan.form === "v1" ? plan.redeemScripts.length : 1,
    postage_koinu: plan.postageKoinu.toString(),
    reveal_fees_koinu: plan.revealFeesKoinu.map(String),
    commit_outputs: plan.commitOutputs.map((output) => ({
      script_hex: bytesToHex(output.script),
      value_koinu: output.value.toString(),
    })),
  };
}
