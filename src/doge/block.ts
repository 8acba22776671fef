/**
 * Dogecoin block codec: 80-byte header, the merge-mining proof (AuxPoW) when the version carries
 * the flag 0x100, and the transactions. Block hash = double SHA-256 of the 80-byte header; the
 * proof of work is checked on the scrypt hash of the same 80 bytes (see hash.ts).
 */
import {
  ByteReader,
  ByteWriter,
  DecodeError,
  ParseResult,
  bytesToHexReversed,
  concatBytes,
  hexReversedToBytes,
} from "./bytes";
import { sha256d } from "./hash";
import { DecodedTransaction, Transaction, readTransaction, serializeTransaction, writeTransaction } from "./tx";

export const HEADER_SIZE = 80;
/** Version bit that marks a block carrying an AuxPoW (Dogecoin Core primitives/pureheader.h VERSION_AUXPOW). */
export const VERSION_AUXPOW = 0x100;
/** Chain id multiplier inside the version (pureheader.h VERSION_CHAIN_START = 1 << 16). */
export const VERSION_CHAIN_START = 0x10000;

export interface BlockHeader {
  version: number;
  /** Display hex of the previous block hash. */
  prevHash: string;
  /** Display hex of the merkle root. */
  merkleRoot: string;
  time: number;
  bits: number;
  nonce: number;
}

export interface MerkleBranch {
  /** Display hex of each sibling hash. */
  hashes: string[];
  index: number;
}

/** The merge-mining proof of an AuxPoW block (Dogecoin Core primitives/auxpow.h CAuxPow). */
export interface AuxPow {
  coinbaseTx: DecodedTransaction;
  /** The parent block hash field (unused by consensus, kept for byte-exact re-serialization). */
  parentBlockHash: string;
  coinbaseBranch: MerkleBranch;
  chainBranch: MerkleBranch;
  parentHeader: BlockHeader;
  /** Display hex of the parent header's double SHA-256. */
  parentHash: string;
}

export interface Block {
  hash: string;
  header: BlockHeader;
  auxpow: AuxPow | null;
  txs: DecodedTransaction[];
  /** Total serialized size in bytes. */
  size: number;
}

export function chainIdOf(version: number): number {
  return Math.floor(version / VERSION_CHAIN_START) & 0xffff;
}

export function baseVersionOf(version: number): number {
  return version % 0x100;
}

export function isAuxPowVersion(version: number): boolean {
  return (version & VERSION_AUXPOW) !== 0;
}

export function readHeader(reader: ByteReader): BlockHeader {
  return {
    version: reader.i32("block version"),
    prevHash: bytesToHexReversed(reader.slice(32, "previous block hash")),
    merkleRoot: bytesToHexReversed(reader.slice(32, "merkle root")),
    time: reader.u32("block time"),
    bits: reader.u32("block bits"),
    nonce: reader.u32("block nonce"),
  };
}

export function writeHeader(writer: ByteWriter, header: BlockHeader): void {
  writer.i32(header.version);
  writer.bytes(hexReversedToBytes(header.prevHash));
  writer.bytes(hexReversedToBytes(header.merkleRoot));
  writer.u32(header.time);
  writer.u32(header.bits);
  writer.u32(header.nonce);
}

export function serializeHeader(header: BlockHeader): Uint8Array {
  const writer = new ByteWriter(HEADER_SIZE);
  writeHeader(writer, header);
  return writer.finish();
}

export function headerHash(header: BlockHeader): string {
  return bytesToHexReversed(sha256d(serializeHeader(header)));
}

function readBranch(reader: ByteReader, what: string): MerkleBranch {
  const count = reader.varint(`${what} length`);
  if (count > reader.remaining / 32)
    throw new DecodeError("BAD_BRANCH", `${what} length ${count} exceeds the data`, reader.offset);
  const hashes: string[] = new Array(count);
  for (let i = 0; i < count; i++) hashes[i] = bytesToHexReversed(reader.slice(32, what));
  const index = reader.i32(`${what} index`);
  return { hashes, index };
}

function writeBranch(writer: ByteWriter, branch: MerkleBranch): void {
  writer.varint(branch.hashes.length);
  for (const hash of branch.hashes) writer.bytes(hexReversedToBytes(hash));
  writer.i32(branch.index);
}

export function readAuxPow(reader: ByteReader): AuxPow {
  const coinbaseTx = readTransaction(reader);
  const parentBlockHash = bytesToHexReversed(reader.slice(32, "auxpow parent block hash"));
  const coinbaseBranch = readBranch(reader, "auxpow coinbase branch");
  const chainBranch = readBranch(reader, "auxpow chain branch");
  const parentStart = reader.offset;
  const parentHeader = readHeader(reader);
  const parentHash = bytesToHexReversed(sha256d(reader.bytes.subarray(parentStart, reader.offset)));
  return { coinbaseTx, parentBlockHash, coinbaseBranch, chainBranch, parentHeader, parentHash };
}

/** Reads a whole block at the reader's offset; throws DecodeError with the offset on failure. */
export function readBlock(reader: ByteReader): Block {
  const start = reader.offset;
  const header = readHeader(reader);
  const hash = bytesToHexReversed(sha256d(reader.bytes.subarray(start, start + HEADER_SIZE)));
  const auxpow = isAuxPowVersion(header.version) ? readAuxPow(reader) : null;
  const txCount = reader.varint("transaction count");
  if (txCount > reader.remaining / 60) {
    throw new DecodeError("BAD_TX_COUNT", `transaction count ${txCount} exceeds the data`, reader.offset);
  }
  const txs: DecodedTransaction[] = new Array(txCount);
  for (let i = 0; i < txCount; i++) txs[i] = readTransaction(reader);
  return { hash, header, auxpow, txs, size: reader.offset - start };
}

/** Parses a whole serialized block; never throws. Trailing bytes are an error. */
export function parseBlock(bytes: Uint8Array): ParseResult<Block> {
  try {
    const reader = new ByteReader(bytes);
    const block = readBlock(reader);
    if (reader.remaining !== 0) {
      return {
        ok: false,
        error: new DecodeError("TRAILING_BYTES", `${reader.remaining} bytes after the block`, reader.offset),
      };
    }
    return { ok: true, value: block };
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, error };
    return { ok: false, error: new DecodeError("INTERNAL", String(error), 0) };
  }
}

/** Parses only the 80-byte header (and hash) at the start of a block or header blob. */
export function parseHeader(bytes: Uint8Array): ParseResult<BlockHeader & { hash: string }> {
  try {
    const header = readHeader(new ByteReader(bytes));
    return { ok: true, value: { ...header, hash: bytesToHexReversed(sha256d(bytes.subarray(0, HEADER_SIZE))) } };
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, error };
    return { ok: false, error: new DecodeError("INTERNAL", String(error), 0) };
  }
}

export function serializeBlock(block: {
  header: BlockHeader;
  auxpow?: AuxPow | null;
  txs: readonly Transaction[];
}): Uint8Array {
  const writer = new ByteWriter(1024);
  writeHeader(writer, block.header);
  if (block.auxpow) {
    writeTransaction(writer, block.auxpow.coinbaseTx);
    writer.bytes(hexReversedToBytes(block.auxpow.parentBlockHash));
    writeBranch(writer, block.auxpow.coinbaseBranch);
    writeBranch(writer, block.auxpow.chainBranch);
    writeHeader(writer, block.auxpow.parentHeader);
  }
  writer.varint(block.txs.length);
  for (const tx of block.txs) writeTransaction(writer, tx);
  return writer.finish();
}

/**
 * Merkle root over txids (display hex), as Core's BlockMerkleRoot: pairs hashed with double
 * SHA-256, an odd last node paired with itself. Returns display hex.
 */
export function merkleRoot(txids: readonly string[]): string {
  if (txids.length === 0) return "0".repeat(64);
  let level = txids.map((txid) => hexReversedToBytes(txid));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = i + 1 < level.length ? level[i + 1] : level[i];
      next.push(sha256d(concatBytes(level[i], right)));
    }
    level = next;
  }
  return bytesToHexReversed(level[0]);
}

/** Expands compact "bits" into the 256-bit target. */
export function bitsToTarget(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  if (exponent <= 3) return mantissa >> BigInt(8 * (3 - exponent));
  return mantissa << BigInt(8 * (exponent - 3));
}

/** Work a block with these bits adds to its chain (Core's GetBlockProof: 2^256 / (target + 1)). */
export function blockWork(bits: number): bigint {
  const target = bitsToTarget(bits);
  if (target <= 0n) return 0n;
  return (1n << 256n) / (target + 1n);
}

/** Re-serializes the header and transactions of a parsed block: a helper for round-trip checks. */
export function blockToBytes(block: Block): Uint8Array {
  return serializeBlock(block);
}

export { serializeTransaction };
