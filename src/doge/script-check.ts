/**
 * Script validation through a real interpreter: bitcore-lib-doge's Script.Interpreter, shared by the
 * devnet's mempool and blocks (src/devnet/node.ts) and the explorer's package check
 * (src/services/explorer/pipeline.ts). Not exported from ./index.ts: importing it loads bitcore and
 * patches its interpreter (below), which only the script checkers need.
 *
 * TOOLCHAIN.md pitfalls handled here: bitcore's CLEANSTACK check is wrong (a valid P2PKH fails), so
 * CLEANSTACK is never set; its DISCOURAGE_UPGRADABLE_NOPS constant is overwritten by the WITNESS bit,
 * so the NOP policy is enforced by our own flag, checked by wrapping the interpreter's `step` at the
 * same point Core's EvalScript checks it (an executed OP_NOP1 or OP_NOP4..OP_NOP10; NOP2/NOP3 are
 * CLTV/CSV under their flags and count as upgradable NOPs without them).
 */
import * as tinysecp from "tiny-secp256k1";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bitcore = require("bitcore-lib-doge");
const Interpreter = bitcore.Script.Interpreter;
const Script = bitcore.Script;
const BitcoreTransaction = bitcore.Transaction;

export const FLAGS = Object.freeze({
  P2SH: Interpreter.SCRIPT_VERIFY_P2SH as number,
  STRICTENC: Interpreter.SCRIPT_VERIFY_STRICTENC as number,
  DERSIG: Interpreter.SCRIPT_VERIFY_DERSIG as number,
  LOW_S: Interpreter.SCRIPT_VERIFY_LOW_S as number,
  NULLDUMMY: Interpreter.SCRIPT_VERIFY_NULLDUMMY as number,
  MINIMALDATA: Interpreter.SCRIPT_VERIFY_MINIMALDATA as number,
  CHECKLOCKTIMEVERIFY: Interpreter.SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY as number,
  CHECKSEQUENCEVERIFY: Interpreter.SCRIPT_VERIFY_CHECKSEQUENCEVERIFY as number,
  NULLFAIL: Interpreter.SCRIPT_VERIFY_NULLFAIL as number,
  /** Our own bit (outside bitcore's range): refuse executed upgradable NOPs. */
  DISCOURAGE_UPGRADABLE_NOPS: 1 << 30,
});

/** Core 0.14 MANDATORY_SCRIPT_VERIFY_FLAGS: only P2SH; everything else in the standard set is policy. */
export const MANDATORY_FLAGS = FLAGS.P2SH;

/** Mempool policy (Core 0.14 STANDARD_SCRIPT_VERIFY_FLAGS minus segwit and the broken CLEANSTACK). */
export function standardFlags(promiscuous: boolean): number {
  let flags =
    MANDATORY_FLAGS |
    FLAGS.DERSIG |
    FLAGS.STRICTENC |
    FLAGS.MINIMALDATA |
    FLAGS.NULLDUMMY |
    FLAGS.CHECKLOCKTIMEVERIFY |
    FLAGS.CHECKSEQUENCEVERIFY |
    FLAGS.LOW_S |
    FLAGS.NULLFAIL;
  if (!promiscuous) flags |= FLAGS.DISCOURAGE_UPGRADABLE_NOPS;
  return flags;
}

const UPGRADABLE_NOPS = new Set([0xb0, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9]);
const OP_NOP2 = 0xb1;
const OP_NOP3 = 0xb2;

/*
 * The interpreter's own ECDSA check runs on bn.js and took most of the mempool's time. Swap only
 * that primitive for tiny-secp256k1 (libsecp256k1 compiled to WebAssembly, as Core itself uses
 * libsecp256k1): same inputs, same answer; the original is kept for keys or signatures it refuses to
 * parse (hybrid key encodings, out-of-range r or s), so the verdict there stays bitcore's.
 * High-S signatures stay valid here; LOW_S policy is the interpreter's separate check.
 */
const ECDSA = bitcore.crypto.ECDSA;
const bitcoreVerify = ECDSA.verify;
ECDSA.verify = function fastVerify(
  hashbuf: Buffer,
  sig: { r: { toBuffer(o: { size: number }): Buffer }; s: { toBuffer(o: { size: number }): Buffer } },
  pubkey: { toBuffer(): Buffer },
  opts?: { endian?: string },
): boolean {
  let compact: Uint8Array;
  try {
    compact = Buffer.concat([sig.r.toBuffer({ size: 32 }), sig.s.toBuffer({ size: 32 })]);
  } catch {
    return false; // r or s wider than 32 bytes: not a valid signature
  }
  if (compact.length !== 64) return false;
  const digest = opts?.endian === "little" ? Buffer.from(hashbuf).reverse() : hashbuf;
  try {
    return tinysecp.verify(digest, pubkey.toBuffer(), compact, false);
  } catch {
    return bitcoreVerify(hashbuf, sig, pubkey, opts);
  }
};

const originalStep = Interpreter.prototype.step;
Interpreter.prototype.step = function patchedStep(this: {
  flags: number;
  pc: number;
  vfExec: boolean[];
  errstr: string;
  script: { chunks: { opcodenum: number }[] };
}) {
  if (this.flags & FLAGS.DISCOURAGE_UPGRADABLE_NOPS) {
    const chunk = this.script.chunks[this.pc];
    if (chunk && this.vfExec.indexOf(false) === -1) {
      const op = chunk.opcodenum;
      const upgradable =
        UPGRADABLE_NOPS.has(op) ||
        (op === OP_NOP2 && !(this.flags & FLAGS.CHECKLOCKTIMEVERIFY)) ||
        (op === OP_NOP3 && !(this.flags & FLAGS.CHECKSEQUENCEVERIFY));
      if (upgradable) {
        this.errstr = "SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS";
        return false;
      }
    }
  }
  return originalStep.call(this);
};

/** Dogecoin Core's ScriptErrorString texts (src/script/script_error.cpp), keyed by bitcore's errstr. */
const CORE_SCRIPT_ERRORS: Record<string, string> = {
  SCRIPT_ERR_EVAL_FALSE: "Script evaluated without error but finished with a false/empty top stack element",
  SCRIPT_ERR_EVAL_FALSE_NO_RESULT: "Script evaluated without error but finished with a false/empty top stack element",
  SCRIPT_ERR_EVAL_FALSE_IN_STACK: "Script evaluated without error but finished with a false/empty top stack element",
  SCRIPT_ERR_EVAL_FALSE_NO_P2SH_STACK:
    "Script evaluated without error but finished with a false/empty top stack element",
  SCRIPT_ERR_EVAL_FALSE_IN_P2SH_STACK:
    "Script evaluated without error but finished with a false/empty top stack element",
  SCRIPT_ERR_OP_RETURN: "OP_RETURN was encountered",
  SCRIPT_ERR_SCRIPT_SIZE: "Script is too big",
  SCRIPT_ERR_PUSH_SIZE: "Push value size limit exceeded",
  SCRIPT_ERR_OP_COUNT: "Operation limit exceeded",
  SCRIPT_ERR_STACK_SIZE: "Stack size limit exceeded",
  SCRIPT_ERR_SIG_COUNT: "Signature count negative or greater than pubkey count",
  SCRIPT_ERR_PUBKEY_COUNT: "Pubkey count negative or limit exceeded",
  SCRIPT_ERR_VERIFY: "Script failed an OP_VERIFY operation",
  SCRIPT_ERR_EQUALVERIFY: "Script failed an OP_EQUALVERIFY operation",
  SCRIPT_ERR_CHECKMULTISIGVERIFY: "Script failed an OP_CHECKMULTISIGVERIFY operation",
  SCRIPT_ERR_CHECKSIGVERIFY: "Script failed an OP_CHECKSIGVERIFY operation",
  SCRIPT_ERR_NUMEQUALVERIFY: "Script failed an OP_NUMEQUALVERIFY operation",
  SCRIPT_ERR_BAD_OPCODE: "Opcode missing or not understood",
  SCRIPT_ERR_UNDEFINED_OPCODE: "Opcode missing or not understood",
  SCRIPT_ERR_DISABLED_OPCODE: "Attempted to use a disabled opcode",
  SCRIPT_ERR_INVALID_STACK_OPERATION: "Operation not valid with the current stack size",
  SCRIPT_ERR_INVALID_ALTSTACK_OPERATION: "Operation not valid with the current altstack size",
  SCRIPT_ERR_UNBALANCED_CONDITIONAL: "Invalid OP_IF construction",
  SCRIPT_ERR_NEGATIVE_LOCKTIME: "Negative locktime",
  SCRIPT_ERR_UNSATISFIED_LOCKTIME: "Locktime requirement not satisfied",
  SCRIPT_ERR_SIG_HASHTYPE: "Signature hash type missing or not understood",
  SCRIPT_ERR_SIG_DER: "Non-canonical DER signature",
  SCRIPT_ERR_SIG_DER_INVALID_FORMAT: "Non-canonical DER signature",
  SCRIPT_ERR_MINIMALDATA: "Data push larger than necessary",
  SCRIPT_ERR_SIG_PUSHONLY: "Only non-push operators allowed in signatures",
  SCRIPT_ERR_SIG_HIGH_S: "Non-canonical signature: S value is unnecessarily high",
  SCRIPT_ERR_SIG_DER_HIGH_S: "Non-canonical signature: S value is unnecessarily high",
  SCRIPT_ERR_SIG_NULLDUMMY: "Dummy CHECKMULTISIG argument must be zero",
  SCRIPT_ERR_PUBKEYTYPE: "Public key is neither compressed or uncompressed",
  SCRIPT_ERR_CLEANSTACK: "Extra items left on stack after execution",
  SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS: "NOPx reserved for soft-fork upgrades",
  SCRIPT_ERR_SIG_NULLFAIL: "Signature must be zero for failed CHECK(MULTI)SIG operation",
  SCRIPT_ERR_MINIMALIF: "OP_IF/NOTIF argument must be minimal",
};

export function coreScriptError(errstr: string): string {
  if (CORE_SCRIPT_ERRORS[errstr]) return CORE_SCRIPT_ERRORS[errstr];
  if (errstr.startsWith("SCRIPT_ERR_UNKNOWN_ERROR")) return "unknown error";
  return "unknown error";
}

export interface SpentOutput {
  script: Uint8Array;
  value: bigint;
}

export type ScriptCheckResult = { ok: true } | { ok: false; inputIndex: number; error: string };

/** A transaction prepared once for the interpreter (bitcore parses the raw bytes). */
export class PreparedTransaction {
  private readonly tx: unknown;
  private readonly scriptSigs: unknown[];
  constructor(rawTx: Uint8Array) {
    this.tx = new BitcoreTransaction(Buffer.from(rawTx));
    this.scriptSigs = (this.tx as { inputs: { script: unknown }[] }).inputs.map((input) => input.script);
  }

  /** Runs every input's scripts with `flags`; stops at the first failure. */
  verify(spent: readonly SpentOutput[], flags: number): ScriptCheckResult {
    for (let i = 0; i < spent.length; i++) {
      const interpreter = new Interpreter();
      const scriptPubKey = Script.fromBuffer(Buffer.from(spent[i].script));
      const ok = interpreter.verify(this.scriptSigs[i], scriptPubKey, this.tx, i, flags);
      if (!ok) return { ok: false, inputIndex: i, error: coreScriptError(String(interpreter.errstr)) };
    }
    return { ok: true };
  }
}

export type MempoolScriptVerdict =
  { ok: true } | { ok: false; rejectCode: 16 | 64; reason: string; inputIndex: number };

/**
 * Core 0.14 AcceptToMemoryPool's script check: try the standard flags; on failure retry with only
 * the mandatory ones to tell a policy refusal (64) from an invalid script (16).
 */
export function checkScriptsForMempool(
  prepared: PreparedTransaction,
  spent: readonly SpentOutput[],
  promiscuous: boolean,
): MempoolScriptVerdict {
  const standard = prepared.verify(spent, standardFlags(promiscuous));
  if (standard.ok) return { ok: true };
  const mandatory = prepared.verify(spent, MANDATORY_FLAGS);
  if (mandatory.ok) {
    return {
      ok: false,
      rejectCode: 64,
      reason: `non-mandatory-script-verify-flag (${standard.error})`,
      inputIndex: standard.inputIndex,
    };
  }
  return {
    ok: false,
    rejectCode: 16,
    reason: `mandatory-script-verify-flag-failed (${mandatory.error})`,
    inputIndex: mandatory.inputIndex,
  };
}
