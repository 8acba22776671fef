/**
 * Byte helpers shared by the Dogecoin codecs: hex, little-endian readers and writers,
 * Bitcoin-style CompactSize varints. Pure: no I/O.
 */
import { DogeosError } from "../errors";

/** A decode failure that says what was wrong and at which byte offset it was found. */
export class DecodeError extends DogeosError {
  readonly offset: number;
  constructor(code: string, message: string, offset: number) {
    super("invalid", code, `${message} (at byte ${offset})`, { details: { offset } });
    this.offset = offset;
  }
}

/** Outcome of a parser that never throws on chain data. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: DecodeError };

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

export function isHex(text: string): boolean {
  return typeof text === "string" && HEX_RE.test(text);
}

export function hexToBytes(hex: string): Uint8Array {
  if (!isHex(hex)) throw new DecodeError("BAD_HEX", "not an even-length hex string", 0);
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Hex of the bytes in reverse order: how txids and block hashes are displayed. */
const REVERSE_SCRATCH = Buffer.alloc(64);

export function bytesToHexReversed(bytes: Uint8Array): string {
  return hexReversedAt(bytes, 0, bytes.length);
}

/**
 * Display hex of `length` bytes at `offset`, reversed. Hot path of every txid and outpoint: the
 * bytes are reversed into a reused scratch buffer so the only allocation is the result string.
 */
export function hexReversedAt(bytes: Uint8Array, offset: number, length: number): string {
  const target = length <= REVERSE_SCRATCH.length ? REVERSE_SCRATCH : Buffer.alloc(length);
  const last = offset + length - 1;
  for (let i = 0; i < length; i++) target[i] = bytes[last - i];
  return target.toString("hex", 0, length);
}

export function hexReversedToBytes(hex: string): Uint8Array {
  const bytes = hexToBytes(hex);
  bytes.reverse();
  return bytes;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Sequential little-endian reader over a byte array; every read checks bounds. */
export class ByteReader {
  readonly bytes: Uint8Array;
  offset: number;
  private readonly view: DataView;

  constructor(bytes: Uint8Array, offset = 0) {
    this.bytes = bytes;
    this.offset = offset;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(count: number, what: string): void {
    if (count > this.bytes.length - this.offset) {
      throw new DecodeError(
        "UNEXPECTED_END",
        `unexpected end of data reading ${what}: need ${count} bytes, ${this.bytes.length - this.offset} left`,
        this.offset,
      );
    }
  }

  u8(what = "uint8"): number {
    this.need(1, what);
    return this.bytes[this.offset++];
  }

  u16(what = "uint16"): number {
    this.need(2, what);
    const value = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return value;
  }

  u32(what = "uint32"): number {
    this.need(4, what);
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }

  i32(what = "int32"): number {
    this.need(4, what);
    const value = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return value;
  }

  i64(what = "int64"): bigint {
    this.need(8, what);
    const value = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return value;
  }

  /** Display hex (reversed) of the next 32 bytes: a txid or block hash, without a view object. */
  hash32(what = "hash"): string {
    this.need(32, what);
    const hex = hexReversedAt(this.bytes, this.offset, 32);
    this.offset += 32;
    return hex;
  }

  /** Returns a view (no copy) of the next `count` bytes. */
  slice(count: number, what = "bytes"): Uint8Array {
    this.need(count, what);
    const out = this.bytes.subarray(this.offset, this.offset + count);
    this.offset += count;
    return out;
  }

  /** CompactSize integer; rejects non-canonical encodings as Bitcoin Core does. */
  varint(what = "compact size"): number {
    const start = this.offset;
    const first = this.u8(what);
    if (first < 0xfd) return first;
    let value: number;
    if (first === 0xfd) {
      value = this.u16(what);
      if (value < 0xfd) throw new DecodeError("NON_CANONICAL_VARINT", `non-canonical ${what}`, start);
    } else if (first === 0xfe) {
      value = this.u32(what);
      if (value < 0x10000) throw new DecodeError("NON_CANONICAL_VARINT", `non-canonical ${what}`, start);
    } else {
      this.need(8, what);
      const big = this.view.getBigUint64(this.offset, true);
      this.offset += 8;
      if (big < 0x100000000n) throw new DecodeError("NON_CANONICAL_VARINT", `non-canonical ${what}`, start);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new DecodeError("VARINT_TOO_LARGE", `${what} too large`, start);
      }
      value = Number(big);
    }
    return value;
  }

  /** A varint length followed by that many bytes (view, no copy). */
  varBytes(what = "var bytes"): Uint8Array {
    const length = this.varint(what);
    return this.slice(length, what);
  }
}

/** Growable little-endian writer. */
export class ByteWriter {
  private buffer: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(initialCapacity = 256) {
    this.buffer = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buffer.buffer);
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < this.length + extra) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  u8(value: number): this {
    this.ensure(1);
    this.buffer[this.length++] = value & 0xff;
    return this;
  }

  u16(value: number): this {
    this.ensure(2);
    this.view.setUint16(this.length, value, true);
    this.length += 2;
    return this;
  }

  u32(value: number): this {
    this.ensure(4);
    this.view.setUint32(this.length, value >>> 0, true);
    this.length += 4;
    return this;
  }

  i32(value: number): this {
    this.ensure(4);
    this.view.setInt32(this.length, value | 0, true);
    this.length += 4;
    return this;
  }

  i64(value: bigint): this {
    this.ensure(8);
    this.view.setBigInt64(this.length, value, true);
    this.length += 8;
    return this;
  }

  bytes(data: Uint8Array): this {
    this.ensure(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
    return this;
  }

  varint(value: number): this {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`bad compact size ${value}`);
    if (value < 0xfd) return this.u8(value);
    if (value <= 0xffff) return this.u8(0xfd).u16(value);
    if (value <= 0xffffffff) return this.u8(0xfe).u32(value);
    this.ensure(9);
    this.buffer[this.length++] = 0xff;
    this.view.setBigUint64(this.length, BigInt(value), true);
    this.length += 8;
    return this;
  }

  varBytes(data: Uint8Array): this {
    return this.varint(data.length).bytes(data);
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}

export function varintSize(value: number): number {
  if (value < 0xfd) return 1;
  if (value <= 0xffff) return 3;
  if (value <= 0xffffffff) return 5;
  return 9;
}
