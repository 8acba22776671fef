/**
 * Commit/reveal builders for tests against the devnet (DESIGN.md 4.2), made with the project's own
 * codecs and signer: a funded P2PKH key pays the commit to the P2SH address(es) of the reveal, the
 * reveal's output 0 goes to the recipient, and `sendInscription` moves an inscribed output on (or
 * spends it entirely to fees). Every builder broadcasts what it builds and returns the txids, the
 * outputs the caller may spend next and the fees it paid.
 *
 * Fee and dust policy of the devnet (Dogecoin Core 1.14's): 0.001 DOGE/kB relay fee, 0.01 DOGE
 * extra for each output below 0.01 DOGE, outputs below 0.001 DOGE refused. Every transaction here
 * pays `TX_FEE_KOINU` (0.1 DOGE, far above the minimum for any size these builders make) and every
 * output is at least 0.01 DOGE.
 */
import {
  Transaction,
  TxOutput,
  bytesToHex,
  compileScript,
  nullDataScript,
  p2pkhScriptSig,
  serializeTransaction,
  signInput,
  txidOf,
} from "../../src/doge";
import {
  EnvelopeContent,
  doginalsScriptSig,
  encodeDoginalsReveal,
  planRevealScripts,
  revealScriptSig,
} from "../../src/inscription";
import type { RunningDevnet } from "./devnet";
import { Spendable, TestKey, p2shAddressOf } from "./keys";

export const KOINU_PER_DOGE = 100_000_000n;
/** Fee of every transaction the builders make (0.1 DOGE). */
export const TX_FEE_KOINU = 10_000_000n;
/** Value of an inscription's output 0 (1 DOGE). */
export const POSTAGE_KOINU = 100_000_000n;
/** Value of each continuation P2SH output of a multi-input v1 reveal: the soft dust limit, 0.01 DOGE. */
export const CONTINUATION_KOINU = 1_000_000n;
/** Below this a change output is not worth making (the soft dust limit); the rest goes to the fee. */
const MIN_CHANGE_KOINU = 1_000_000n;
/** An input sequence that lets a non-zero locktime apply. */
const LOCKTIME_SEQUENCE = 0xfffffffe;

export interface BuildOptions {
  /** Fee of each transaction built (default TX_FEE_KOINU). */
  feeKoinu?: bigint;
  /**
   * Locktime of the final transaction (the reveal, or the send), with input sequences that make it
   * count: the transaction is final only in blocks above this height. Tests use it to have a
   * transaction fall out of the mempool when a reorg lowers the tip below it.
   */
  locktime?: number;
  /** pay(): the key that signs each coin, in order (default: `key` for every coin), for payments funded from several addresses. */
  signers?: TestKey[];
}

export interface InscribeOptions extends BuildOptions {
  /** Value of the reveal's output 0, which carries the inscription (default POSTAGE_KOINU). */
  postageKoinu?: bigint;
}

export interface InscribeResult {
  /** `<first reveal txid>i0`. */
  inscriptionId: string;
  commitTxid: string;
  /** Reveal transactions in order (one for v1; one per part for Doginals). */
  revealTxids: string[];
  /** The reveal's output 0: the inscription sits on its first koinu. */
  output: Spendable;
  /** The funder's change from the commit, if any. */
  change: Spendable | null;
  /** Fees paid by the commit and by each reveal, in broadcast order. */
  feesKoinu: bigint[];
}

/** Signs input `index` of `tx` as a P2PKH spend by `key`. */
function signP2pkh(tx: Transaction, index: number, key: TestKey): void {
  tx.inputs[index].scriptSig = p2pkhScriptSig(signInput(tx, index, key.script, key.privateKey), key.publicKey);
}

async function broadcast(devnet: RunningDevnet, tx: Transaction): Promise<string> {
  const txid = await devnet.rpc<string>("sendrawtransaction", [bytesToHex(serializeTransaction(tx))]);
  if (txid !== txidOf(tx)) throw new Error(`devnet answered ${txid} for transaction ${txidOf(tx)}`);
  return txid;
}

function inputOf(coin: Spendable, locktime: number | undefined) {
  return {
    prevTxid: coin.txid,
    vout: coin.vout,
    scriptSig: new Uint8Array(0),
    sequence: locktime ? LOCKTIME_SEQUENCE : 0xffffffff,
  };
}

/**
 * Pays `outputs` from `coins` (all owned by `key`) and sends the change back to `key`.
 * Returns the txid, the change (last output, when made) and the fee.
 */
export async function pay(
  devnet: RunningDevnet,
  key: TestKey,
  coins: Spendable[],
  outputs: TxOutput[],
  options: BuildOptions = {},
): Promise<{ txid: string; change: Spendable | null; feeKoinu: bigint; outputs: Spendable[] }> {
  const fee = options.feeKoinu ?? TX_FEE_KOINU;
  const inputTotal = coins.reduce((sum, coin) => sum + coin.value, 0n);
  const outputTotal = outputs.reduce((sum, output) => sum + output.value, 0n);
  const changeValue = inputTotal - outputTotal - fee;
  if (changeValue < 0n) throw new Error(`coins of ${inputTotal} koinu cannot pay ${outputTotal} plus a fee of ${fee}`);
  const tx: Transaction = {
    version: 1,
    inputs: coins.map((coin) => inputOf(coin, options.locktime)),
    outputs: changeValue >= MIN_CHANGE_KOINU ? [...outputs, { script: key.script, value: changeValue }] : [...outputs],
    locktime: options.locktime ?? 0,
  };
  tx.inputs.forEach((_, i) => signP2pkh(tx, i, options.signers?.[i] ?? key));
  const txid = await broadcast(devnet, tx);
  const made = tx.outputs.map((output, vout) => ({ txid, vout, value: output.value }));
  const hasChange = tx.outputs.length > outputs.length;
  return {
    txid,
    change: hasChange ? made[made.length - 1] : null,
    feeKoinu: inputTotal - tx.outputs.reduce((sum, output) => sum + output.value, 0n),
    outputs: made.slice(0, outputs.length),
  };
}

/** A broadcast v1 commit whose reveal is still to be made (to put the reveal in a later block). */
export interface V1Commit {
  commitTxid: string;
  change: Spendable | null;
  redeemScripts: Uint8Array[];
  /** Builds and broadcasts the reveal; `locktime` may be chosen now (see BuildOptions). */
  reveal(options?: { locktime?: number }): Promise<InscribeResult & { redeemScripts: Uint8Array[] }>;
}

/**
 * The commit of a v1 inscription: pays output i to the P2SH of planned redeem script i (several
 * when the body does not fit in one): the first carries the postage and the reveal's fee, each
 * continuation 0.01 DOGE (which the reveal adds to its fee). The reveal spends them all, in order,
 * and pays its output 0 to `recipientScript`.
 */
export async function commitV1(
  devnet: RunningDevnet,
  funder: TestKey,
  coin: Spendable,
  content: EnvelopeContent,
  recipientScript: Uint8Array,
  options: InscribeOptions = {},
): Promise<V1Commit> {
  const fee = options.feeKoinu ?? TX_FEE_KOINU;
  const postage = options.postageKoinu ?? POSTAGE_KOINU;
  const redeemScripts = planRevealScripts({ ...content, pubkey: funder.publicKey });
  const commitOutputs = redeemScripts.map((redeemScript, i) => ({
    script: p2shAddressOf(redeemScript).script,
    value: i === 0 ? postage + fee : CONTINUATION_KOINU,
  }));
  const commit = await pay(devnet, funder, [coin], commitOutputs, { feeKoinu: fee });
  const revealFee = commitOutputs.reduce((sum, output) => sum + output.value, 0n) - postage;
  return {
    commitTxid: commit.txid,
    change: commit.change,
    redeemScripts,
    async reveal(revealOptions = {}) {
      const locktime = revealOptions.locktime;
      const reveal: Transaction = {
        version: 1,
        inputs: commit.outputs.map((output) => inputOf(output, locktime)),
        outputs: [{ script: recipientScript, value: postage }],
        locktime: locktime ?? 0,
      };
      redeemScripts.forEach((redeemScript, i) => {
        reveal.inputs[i].scriptSig = revealScriptSig(
          signInput(reveal, i, redeemScript, funder.privateKey),
          redeemScript,
        );
      });
      const revealTxid = await broadcast(devnet, reveal);
      return {
        inscriptionId: `${revealTxid}i0`,
        commitTxid: commit.txid,
        revealTxids: [revealTxid],
        output: { txid: revealTxid, vout: 0, value: postage },
        change: commit.change,
        feesKoinu: [commit.feeKoinu, revealFee],
        redeemScripts,
      };
    },
  };
}

/** Inscribes `content` in the v1 envelope: `commitV1` and its reveal right after (see there). */
export async function inscribeV1(
  devnet: RunningDevnet,
  funder: TestKey,
  coin: Spendable,
  content: EnvelopeContent,
  recipientScript: Uint8Array,
  options: InscribeOptions = {},
): Promise<InscribeResult & { redeemScripts: Uint8Array[] }> {
  const commit = await commitV1(devnet, funder, coin, content, recipientScript, options);
  return commit.reveal({ locktime: options.locktime });
}

/**
 * Inscribes `content` in the classic Doginals form: one reveal transaction per part of
 * `encodeDoginalsReveal`, reveal k spending output 0 of the previous transaction (the commit for
 * k = 0), which pays the P2SH of part k's redeem script; the last reveal pays `recipientScript`.
 * `beforeReveal(k, revealed)` runs before reveal k is broadcast, with the txids of the reveals broadcast so
 * far (to mine blocks between the parts).
 */
export async function inscribeDoginals(
  devnet: RunningDevnet,
  funder: TestKey,
  coin: Spendable,
  content: { contentType: string; body: Uint8Array },
  recipientScript: Uint8Array,
  options: InscribeOptions & { beforeReveal?: (index: number, revealed: readonly string[]) => Promise<void> } = {},
): Promise<InscribeResult & { partCount: number }> {
  const fee = options.feeKoinu ?? TX_FEE_KOINU;
  const postage = options.postageKoinu ?? POSTAGE_KOINU;
  const parts = encodeDoginalsReveal({ ...content, pubkey: funder.publicKey });
  // Each reveal pays its fee out of what the previous transaction left on output 0.
  const valueBefore = (index: number) => postage + fee * BigInt(parts.length - index);
  const commit = await pay(
    devnet,
    funder,
    [coin],
    [{ script: p2shAddressOf(parts[0].redeemScript).script, value: valueBefore(0) }],
    { feeKoinu: fee },
  );
  const revealTxids: string[] = [];
  let previous: Spendable = commit.outputs[0];
  for (let k = 0; k < parts.length; k++) {
    const last = k === parts.length - 1;
    const reveal: Transaction = {
      version: 1,
      inputs: [inputOf(previous, options.locktime)],
      outputs: [
        { script: last ? recipientScript : p2shAddressOf(parts[k + 1].redeemScript).script, value: valueBefore(k + 1) },
      ],
      locktime: options.locktime ?? 0,
    };
    reveal.inputs[0].scriptSig = doginalsScriptSig(
      parts[k],
      signInput(reveal, 0, parts[k].redeemScript, funder.privateKey),
    );
    if (options.beforeReveal) await options.beforeReveal(k, revealTxids);
    const txid = await broadcast(devnet, reveal);
    revealTxids.push(txid);
    previous = { txid, vout: 0, value: reveal.outputs[0].value };
  }
  return {
    inscriptionId: `${revealTxids[0]}i0`,
    commitTxid: commit.txid,
    revealTxids,
    output: previous,
    change: commit.change,
    feesKoinu: [commit.feeKoinu, ...parts.map(() => fee)],
    partCount: parts.length,
  };
}

export interface SendOptions extends BuildOptions {
  /** Inputs spent ahead of the inscribed one (their koinu come first, so they shift its offset). */
  before?: { key: TestKey; coin: Spendable }[];
  /**
   * Spend the inscription entirely to fees: the outputs take only the `before` inputs' koinu (less
   * the fee), so the inscribed koinu fall beyond them. Without `before` inputs the only output is
   * an empty OP_RETURN.
   */
  toFees?: boolean;
}

export interface SendResult {
  txid: string;
  /** The output the inscribed input's koinu went to (null when spent to fees). */
  output: Spendable | null;
  /** Koinu ahead of the inscribed input's (the `before` inputs' total). */
  beforeKoinu: bigint;
  /** Total outputs of the transaction. */
  outputKoinu: bigint;
  feeKoinu: bigint;
}

/**
 * Moves the inscription on `inscribed` (an output of `owner`'s P2PKH) to `recipientScript`: all
 * inputs go to one output, so an inscription at offset o of `inscribed` lands on output 0 at offset
 * (before inputs' total) + o. With `toFees`, see SendOptions.
 */
export async function sendInscription(
  devnet: RunningDevnet,
  owner: TestKey,
  inscribed: Spendable,
  recipientScript: Uint8Array,
  options: SendOptions = {},
): Promise<SendResult> {
  const fee = options.feeKoinu ?? TX_FEE_KOINU;
  const before = options.before ?? [];
  const beforeKoinu = before.reduce((sum, item) => sum + item.coin.value, 0n);
  let outputs: TxOutput[];
  if (options.toFees) {
    outputs =
      beforeKoinu - fee >= MIN_CHANGE_KOINU
        ? [{ script: recipientScript, value: beforeKoinu - fee }]
        : [{ script: nullDataScript(), value: 0n }];
  } else {
    outputs = [{ script: recipientScript, value: beforeKoinu + inscribed.value - fee }];
  }
  const signers = [...before.map((item) => item.key), owner];
  const tx: Transaction = {
    version: 1,
    inputs: [...before.map((item) => inputOf(item.coin, options.locktime)), inputOf(inscribed, options.locktime)],
    outputs,
    locktime: options.locktime ?? 0,
  };
  signers.forEach((key, i) => signP2pkh(tx, i, key));
  const txid = await broadcast(devnet, tx);
  const outputKoinu = outputs.reduce((sum, output) => sum + output.value, 0n);
  return {
    txid,
    output: options.toFees ? null : { txid, vout: 0, value: outputs[0].value },
    beforeKoinu,
    outputKoinu,
    feeKoinu: beforeKoinu + inscribed.value - outputKoinu,
  };
}

/**
 * A P2SH commit of `redeemScript` funded by `funder`; `spend(items, toScript)` then spends it with
 * the scriptSig `<items...> <redeemScript>` (for redeem scripts that need no signature).
 */
export async function commitP2sh(
  devnet: RunningDevnet,
  funder: TestKey,
  coin: Spendable,
  redeemScript: Uint8Array,
  options: BuildOptions = {},
): Promise<{
  commitTxid: string;
  change: Spendable | null;
  spend(items: Uint8Array[], toScript: Uint8Array): Promise<{ txid: string; output: Spendable }>;
}> {
  const fee = options.feeKoinu ?? TX_FEE_KOINU;
  const commit = await pay(
    devnet,
    funder,
    [coin],
    [{ script: p2shAddressOf(redeemScript).script, value: POSTAGE_KOINU + fee }],
    { feeKoinu: fee },
  );
  return {
    commitTxid: commit.txid,
    change: commit.change,
    async spend(items, toScript) {
      const spend: Transaction = {
        version: 1,
        inputs: [{ ...inputOf(commit.outputs[0], undefined), scriptSig: compileScript([...items, redeemScript]) }],
        outputs: [{ script: toScript, value: POSTAGE_KOINU }],
        locktime: 0,
      };
      const txid = await broadcast(devnet, spend);
      return { txid, output: { txid, vout: 0, value: POSTAGE_KOINU } };
    },
  };
}
