/**
 * Dogecoin Core 1.14's context-free transaction checks, shared by the devnet's mempool
 * (src/devnet/node.ts) and the explorer's package check (src/services/explorer/pipeline.ts):
 * CheckTransaction (consensus), IsStandardTx and AreInputsStandard (relay policy), each refusing
 * with Core's reject code and reason. The script checks are ./script-check.ts; the values are
 * ./policy.ts.
 */
import { MAX_MONEY, isCoinbase } from "./tx";
import type { DecodedTransaction } from "./tx";
import { OP, classifyOutputScript, isPushOnly, parseScript } from "./script";
import {
  HARD_DUST_LIMIT,
  MAX_BLOCK_SIZE,
  MAX_DATA_CARRIER_SCRIPT,
  MAX_P2SH_SIGOPS,
  MAX_STANDARD_SCRIPTSIG_SIZE,
  MAX_STANDARD_TX_SIZE,
  REJECT,
  RPC_VERIFY_REJECTED,
} from "./policy";
import { DogeosError } from "../errors";

/**
 * A transaction refused by mempool policy or consensus, in Core's "<reject code>: <reason>" form;
 * dogecoind answers it to sendrawtransaction as RPC_VERIFY_REJECTED (`code`).
 */
export class TxRejected extends DogeosError<typeof RPC_VERIFY_REJECTED> {
  constructor(
    readonly rejectCode: number,
    readonly reason: string,
  ) {
    super("unprocessable", RPC_VERIFY_REJECTED, `${rejectCode}: ${reason}`, {
      details: { reject_code: rejectCode, reason },
    });
  }
}

/** Core's CheckTransaction (src/consensus/tx_verify.cpp in later versions; main.cpp in 1.14): context-free consensus checks. */
export function checkTransaction(tx: DecodedTransaction): void {
  if (tx.inputs.length === 0) throw new TxRejected(REJECT.INVALID, "bad-txns-vin-empty");
  if (tx.outputs.length === 0) throw new TxRejected(REJECT.INVALID, "bad-txns-vout-empty");
  if (tx.size > MAX_BLOCK_SIZE) throw new TxRejected(REJECT.INVALID, "bad-txns-oversize");
  let total = 0n;
  for (const output of tx.outputs) {
    if (output.value < 0n) throw new TxRejected(REJECT.INVALID, "bad-txns-vout-negative");
    if (output.value > MAX_MONEY) throw new TxRejected(REJECT.INVALID, "bad-txns-vout-toolarge");
    total += output.value;
    if (total > MAX_MONEY) throw new TxRejected(REJECT.INVALID, "bad-txns-txouttotal-toolarge");
  }
  const seen = new Set<string>();
  for (const input of tx.inputs) {
    const key = `${input.prevTxid}:${input.vout}`;
    if (seen.has(key)) throw new TxRejected(REJECT.INVALID, "bad-txns-inputs-duplicate");
    seen.add(key);
  }
  if (isCoinbase(tx)) {
    const length = tx.inputs[0].scriptSig.length;
    if (length < 2 || length > 100) throw new TxRejected(REJECT.INVALID, "bad-cb-length");
  } else if (tx.inputs.some((input) => input.vout === 0xffffffff && /^0+$/.test(input.prevTxid))) {
    throw new TxRejected(REJECT.INVALID, "bad-txns-prevout-null");
  }
}

/** Core's IsStandardTx (src/policy/policy.cpp) with Dogecoin's dust rule (outputs below the hard dust limit are refused). */
export function checkStandard(tx: DecodedTransaction): void {
  if (tx.version < 1 || tx.version > 2) throw new TxRejected(REJECT.NONSTANDARD, "version");
  if (tx.size >= MAX_STANDARD_TX_SIZE) throw new TxRejected(REJECT.NONSTANDARD, "tx-size");
  for (const input of tx.inputs) {
    if (input.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE)
      throw new TxRejected(REJECT.NONSTANDARD, "scriptsig-size");
    const parsed = parseScript(input.scriptSig);
    if (parsed.malformed || !isPushOnly(parsed)) throw new TxRejected(REJECT.NONSTANDARD, "scriptsig-not-pushonly");
  }
  let dataOutputs = 0;
  for (const output of tx.outputs) {
    const kind = classifyOutputScript(output.script);
    if (kind.type === "nonstandard") throw new TxRejected(REJECT.NONSTANDARD, "scriptpubkey");
    if (kind.type === "nulldata") {
      if (output.script.length > MAX_DATA_CARRIER_SCRIPT) throw new TxRejected(REJECT.NONSTANDARD, "scriptpubkey");
      dataOutputs += 1;
      continue;
    }
    if (kind.type === "multisig" && ((kind.pubkeys?.length ?? 0) > 3 || (kind.required ?? 0) < 1)) {
      throw new TxRejected(REJECT.NONSTANDARD, "scriptpubkey");
    }
    if (output.value < HARD_DUST_LIMIT) throw new TxRejected(REJECT.NONSTANDARD, "dust");
  }
  if (dataOutputs > 1) throw new TxRejected(REJECT.NONSTANDARD, "multi-op-return");
}

/** Core's AreInputsStandard (src/policy/policy.cpp): known output types only, P2SH redeem scripts within MAX_P2SH_SIGOPS. */
export function checkInputsStandard(tx: DecodedTransaction, spent: readonly { script: Uint8Array }[]): void {
  spent.forEach((output, i) => {
    const kind = classifyOutputScript(output.script);
    if (kind.type === "nonstandard") throw new TxRejected(REJECT.NONSTANDARD, "bad-txns-nonstandard-inputs");
    if (kind.type === "scripthash") {
      const pushes = parseScript(tx.inputs[i].scriptSig);
      const last = pushes.chunks[pushes.chunks.length - 1];
      if (!last || !last.data) throw new TxRejected(REJECT.NONSTANDARD, "bad-txns-nonstandard-inputs");
      if (countSigOps(last.data) > MAX_P2SH_SIGOPS)
        throw new TxRejected(REJECT.NONSTANDARD, "bad-txns-nonstandard-inputs");
    }
  });
}

/** Accurate sigop count of a script (Core's GetSigOpCount(true)). */
export function countSigOps(script: Uint8Array): number {
  const parsed = parseScript(script);
  let count = 0;
  let previous = -1;
  for (const chunk of parsed.chunks) {
    if (chunk.opcode === OP.OP_CHECKSIG || chunk.opcode === OP.OP_CHECKSIGVERIFY) count += 1;
    else if (chunk.opcode === OP.OP_CHECKMULTISIG || chunk.opcode === OP.OP_CHECKMULTISIGVERIFY) {
      count += previous >= OP.OP_1 && previous <= OP.OP_16 ? previous - OP.OP_1 + 1 : 20;
    }
    previous = chunk.opcode;
  }
  return count;
}
