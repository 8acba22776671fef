/**
 * dogecoind's JSON shapes (src/core_write.cpp TxToUniv/ScriptPubKeyToUniv, src/rpc/blockchain.cpp
 * blockToJSON/blockheaderToJSON) for the devnet's RPC answers. Amounts are written as dogecoind
 * writes them: JSON numbers with exactly eight decimals.
 */
import {
  Block,
  BlockHeader,
  DecodedTransaction,
  DogeNetwork,
  bitsToTarget,
  bytesToHex,
  classifyOutputScript,
  isCoinbase,
  outputScriptToAddress,
  scriptToAsm,
  serializeTransaction,
  encodeAddress,
  hash160,
} from "../doge";

/** A koinu amount that the JSON writer prints as a DOGE number with eight decimals. */
export class Amount {
  constructor(readonly koinu: bigint) {}
  toJSON(): string {
    return `\u0000AMOUNT:${formatDoge(this.koinu)}`;
  }
}

export function formatDoge(koinu: bigint): string {
  const negative = koinu < 0n;
  const abs = negative ? -koinu : koinu;
  const whole = abs / 100_000_000n;
  const fraction = (abs % 100_000_000n).toString().padStart(8, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

/** JSON.stringify that prints Amount values as bare numbers with eight decimals. */
export function stringifyRpc(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000AMOUNT:(-?\d+\.\d{8})"/g, "$1");
}

export function scriptPubKeyJson(script: Uint8Array, network: DogeNetwork): Record<string, unknown> {
  const kind = classifyOutputScript(script);
  const out: Record<string, unknown> = { asm: scriptToAsm(script), hex: bytesToHex(script) };
  if (kind.type === "nonstandard" || kind.type === "nulldata") {
    out.type = kind.type;
    return out;
  }
  out.reqSigs = kind.required ?? 1;
  out.type = kind.type;
  if (kind.type === "multisig") {
    out.addresses = (kind.pubkeys ?? []).map((key) => encodeAddress(hash160(key), "pubkeyhash", network));
  } else {
    const address = outputScriptToAddress(script, network);
    if (address) out.addresses = [address];
  }
  return out;
}

export function txJson(tx: DecodedTransaction, network: DogeNetwork, includeHex: boolean): Record<string, unknown> {
  const coinbase = isCoinbase(tx);
  const out: Record<string, unknown> = {
    txid: tx.txid,
    hash: tx.txid,
    size: tx.size,
    vsize: tx.size,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.inputs.map((input) =>
      coinbase
        ? { coinbase: bytesToHex(input.scriptSig), sequence: input.sequence }
        : {
            txid: input.prevTxid,
            vout: input.vout,
            scriptSig: { asm: scriptToAsm(input.scriptSig, true), hex: bytesToHex(input.scriptSig) },
            sequence: input.sequence,
          },
    ),
    vout: tx.outputs.map((output, n) => ({
      value: new Amount(output.value),
      n,
      scriptPubKey: scriptPubKeyJson(output.script, network),
    })),
  };
  if (includeHex) out.hex = bytesToHex(serializeTransaction(tx));
  return out;
}

/** Difficulty relative to the minimum difficulty 0x1e0fffff of Dogecoin mainnet (Core's GetDifficulty). */
export function difficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

export interface HeaderContext {
  hash: string;
  height: number;
  confirmations: number;
  mediantime: number;
  chainwork: bigint;
  nextHash?: string;
}

export function headerJson(header: BlockHeader, ctx: HeaderContext): Record<string, unknown> {
  const out: Record<string, unknown> = {
    hash: ctx.hash,
    confirmations: ctx.confirmations,
    height: ctx.height,
    version: header.version,
    versionHex: (header.version >>> 0).toString(16).padStart(8, "0"),
    merkleroot: header.merkleRoot,
    time: header.time,
    mediantime: ctx.mediantime,
    nonce: header.nonce,
    bits: header.bits.toString(16).padStart(8, "0"),
    difficulty: difficulty(header.bits),
    chainwork: ctx.chainwork.toString(16).padStart(64, "0"),
  };
  if (header.prevHash !== "0".repeat(64)) out.previousblockhash = header.prevHash;
  if (ctx.nextHash) out.nextblockhash = ctx.nextHash;
  return out;
}

export function blockJson(
  block: Block,
  ctx: HeaderContext,
  verbosity: 1 | 2,
  network: DogeNetwork,
): Record<string, unknown> {
  const header = headerJson(block.header, ctx);
  const out: Record<string, unknown> = {
    hash: header.hash,
    confirmations: header.confirmations,
    strippedsize: block.size,
    size: block.size,
    weight: block.size * 4,
    height: header.height,
    version: header.version,
    versionHex: header.versionHex,
    merkleroot: header.merkleroot,
    tx: verbosity === 1 ? block.txs.map((tx) => tx.txid) : block.txs.map((tx) => txJson(tx, network, true)),
    time: header.time,
    mediantime: header.mediantime,
    nonce: header.nonce,
    bits: header.bits,
    difficulty: header.difficulty,
    chainwork: header.chainwork,
  };
  if (header.previousblockhash) out.previousblockhash = header.previousblockhash;
  if (header.nextblockhash) out.nextblockhash = header.nextblockhash;
  return out;
}

export { bitsToTarget };
