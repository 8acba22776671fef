/**
 * The classic Doginals positional form (apezord's doginals / ord-dogecoin, which wonky-ord-dogecoin
 * keeps): input 0's scriptSig of a reveal is
 *
 *   "ord" <piece count> <content type> <countdown> <chunk> ... <signature> <redeem script>
 *
 * with countdowns running from (piece count - 1) down to 0, chunks of up to 240 bytes, and a redeem
 * script `<pubkey> OP_CHECKSIGVERIFY OP_DROP... OP_TRUE` that drops every piece. A body too large
 * for one scriptSig continues in the next transactions: each spends output 0 of the previous one
 * and its input 0 carries further countdown/chunk pairs (no header). The inscription id is the
 * FIRST reveal's txid with `i0`; it lands on output 0 of the transaction that completes it.
 *
 * Reading follows ord-dogecoin's parser: the scriptSig must decode as pushes only (OP_0, OP_1..16,
 * direct pushes, PUSHDATA1/2/4; anything else, OP_1NEGATE included, makes it unreadable), numbers
 * are unsigned little-endian of up to 8 bytes, and reading stops at the first pair whose countdown
 * is not the expected one. Nothing here throws on chain data.
 */
import {
  OP,
  ScriptChunk,
  bytesToHex,
  concatBytes,
  encodePush,
  encodeScriptNum,
  hexToBytes,
  isHex,
  parseScript,
} from "../doge";
import { DogeosError } from "../errors";

/** Chunk size of apezord's inscriber (MAX_CHUNK_LEN). */
export const DOGINALS_CHUNK_BYTES = 240;
/** Largest push-only part of one reveal scriptSig apezord's inscriber builds (MAX_PAYLOAD_LEN). */
export const DOGINALS_MAX_PARTIAL_BYTES = 1500;

const PROTOCOL_ID_BYTES = Uint8Array.of(0x6f, 0x72, 0x64); // "ord"
const utf8Encoder = new TextEncoder();
const lossyUtf8Decoder = new TextDecoder("utf-8");

export interface DoginalsPiece {
  countdown: number;
  data: Uint8Array;
}

export type DoginalsInvalidReason =
  "MALFORMED_PUSH" | "NOT_PUSH_ONLY" | "TRUNCATED_HEADER" | "BAD_PIECE_COUNT" | "ZERO_PIECES";

export interface DoginalsStartRead {
  kind: "start";
  totalPieces: number;
  contentType: string;
  /** Pieces read in this scriptSig, in order (countdowns totalPieces-1, totalPieces-2, ...). */
  pieces: DoginalsPiece[];
  /** The last push after the pieces (the redeem script of a well-formed reveal), if any. */
  redeemScript: Uint8Array | null;
}

export interface DoginalsContinuationRead {
  kind: "continuation";
  /** Consecutive countdown/chunk pairs from the start of the scriptSig. */
  pieces: DoginalsPiece[];
  redeemScript: Uint8Array | null;
}

/**
 * What input 0 of a transaction says in the Doginals form. `continuation` is only a shape (the
 * scriptSig starts with a number followed by data, which many ordinary multisig spends also do):
 * it means something only when the input spends the output a pending inscription waits on.
 */
export type DoginalsInputRead =
  DoginalsStartRead | DoginalsContinuationRead | { kind: "none" } | { kind: "invalid"; reason: DoginalsInvalidReason };

/** ord-dogecoin's decode_push_datas: the pushed data of each chunk, or null if any chunk is not a push. */
function decodePushDatas(chunks: ScriptChunk[]): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  for (const chunk of chunks) {
    if (chunk.malformed) return null;
    if (chunk.data) out.push(chunk.data);
    else if (chunk.opcode >= OP.OP_1 && chunk.opcode <= OP.OP_16) out.push(Uint8Array.of(chunk.opcode - OP.OP_1 + 1));
    else return null;
  }
  return out;
}

/** ord-dogecoin's push_data_to_number: unsigned little-endian, up to 8 bytes; null if longer (or unsafe). */
export function doginalsNumber(data: Uint8Array): number | null {
  if (data.length > 8) return null;
  let value = 0n;
  for (let i = data.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(data[i]);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}

function isProtocolId(data: Uint8Array | undefined): boolean {
  return data !== undefined && data.length === 3 && data[0] === 0x6f && data[1] === 0x72 && data[2] === 0x64;
}

/** Reads pairs from `from` while each countdown is the expected one, stopping after countdown 0. */
function readPieces(
  pushes: Uint8Array[],
  from: number,
  firstCountdown: number | null,
): { pieces: DoginalsPiece[]; next: number } {
  const pieces: DoginalsPiece[] = [];
  let expected = firstCountdown;
  let i = from;
  while (i + 1 < pushes.length) {
    const countdown = doginalsNumber(pushes[i]);
    if (countdown === null || (expected !== null && countdown !== expected)) break;
    pieces.push({ countdown, data: pushes[i + 1] });
    i += 2;
    if (countdown === 0) break;
    expected = countdown - 1;
  }
  return { pieces, next: i };
}

/** Classifies one scriptSig (input 0 of a transaction) in the Doginals form. Never throws. */
export function readDoginalsInput(scriptSig: Uint8Array): DoginalsInputRead {
  const parsed = parseScript(scriptSig);
  const pushes = decodePushDatas(parsed.chunks);
  if (pushes === null) {
    if (isProtocolId(parsed.chunks[0]?.data) && !parsed.chunks[0].malformed) {
      return { kind: "invalid", reason: parsed.malformed ? "MALFORMED_PUSH" : "NOT_PUSH_ONLY" };
    }
    return { kind: "none" };
  }
  if (pushes.length === 0) return { kind: "none" };
  if (isProtocolId(pushes[0])) {
    if (pushes.length < 3) return { kind: "invalid", reason: "TRUNCATED_HEADER" };
    const totalPieces = doginalsNumber(pushes[1]);
    if (totalPieces === null) return { kind: "invalid", reason: "BAD_PIECE_COUNT" };
    if (totalPieces === 0) return { kind: "invalid", reason: "ZERO_PIECES" };
    const { pieces, next } = readPieces(pushes, 3, totalPieces - 1);
    return {
      kind: "start",
      totalPieces,
      contentType: lossyUtf8Decoder.decode(pushes[2]),
      pieces,
      redeemScript: next < pushes.length ? pushes[pushes.length - 1] : null,
    };
  }
  if (pushes.length >= 2 && doginalsNumber(pushes[0]) !== null) {
    const { pieces, next } = readPieces(pushes, 0, null);
    return { kind: "continuation", pieces, redeemScript: next < pushes.length ? pushes[pushes.length - 1] : null };
  }
  return { kind: "none" };
}

// ---------------------------------------------------------------------------------------------
// Assembly over several transactions

export type DoginalsAssemblyError = "NOT_A_CONTINUATION" | "COUNTDOWN_MISMATCH" | "ALREADY_COMPLETE" | "ALREADY_FAILED";

export interface DoginalsAssemblyResult {
  complete: boolean;
  body: Uint8Array;
  contentType: string;
  missingPieces: number;
  /** Set when a continuation did not fit: the inscription is abandoned (ord-dogecoin's None). */
  error: DoginalsAssemblyError | null;
}

/** JSON form of a pending assembly, for the indexer to store keyed by the outpoint it waits on. */
export interface DoginalsPendingState {
  contentType: string;
  totalPieces: number;
  receivedPieces: number;
  transactionCount: number;
  bodyHex: string;
}

/**
 * Immutable assembler of one Doginals inscription. The indexer starts it from a `start` read and,
 * while it is incomplete, keeps it keyed by `<txid>:0` of the latest reveal; the transaction whose
 * input 0 spends that outpoint is fed to `continueWith`.
 */
export class DoginalsAssembly {
  readonly contentType: string;
  readonly totalPieces: number;
  readonly receivedPieces: number;
  /** Reveal transactions consumed so far (1 for a single-transaction inscription). */
  readonly transactionCount: number;
  readonly error: DoginalsAssemblyError | null;
  private readonly chunks: readonly Uint8Array[];

  private constructor(
    contentType: string,
    totalPieces: number,
    chunks: readonly Uint8Array[],
    receivedPieces: number,
    transactionCount: number,
    error: DoginalsAssemblyError | null,
  ) {
    this.contentType = contentType;
    this.totalPieces = totalPieces;
    this.chunks = chunks;
    this.receivedPieces = receivedPieces;
    this.transactionCount = transactionCount;
    this.error = error;
  }

  static start(read: DoginalsStartRead): DoginalsAssembly {
    return new DoginalsAssembly(
      read.contentType,
      read.totalPieces,
      read.pieces.map((p) => p.data),
      read.pieces.length,
      1,
      null,
    );
  }

  static fromJSON(state: DoginalsPendingState): DoginalsAssembly {
    const body = isHex(state.bodyHex) ? hexToBytes(state.bodyHex) : new Uint8Array(0);
    return new DoginalsAssembly(
      state.contentType,
      state.totalPieces,
      [body],
      state.receivedPieces,
      state.transactionCount,
      null,
    );
  }

  get complete(): boolean {
    return this.error === null && this.receivedPieces === this.totalPieces;
  }

  get missingPieces(): number {
    return this.totalPieces - this.receivedPieces;
  }

  /** The countdown the next continuation must start with; null when complete. */
  get nextCountdown(): number | null {
    return this.missingPieces > 0 ? this.missingPieces - 1 : null;
  }

  get body(): Uint8Array {
    return concatBytes(...this.chunks);
  }

  /** Feeds input 0 of the transaction that spends the pending outpoint. */
  continueWith(read: DoginalsInputRead): DoginalsAssembly {
    const fail = (error: DoginalsAssemblyError): DoginalsAssembly =>
      new DoginalsAssembly(
        this.contentType,
        this.totalPieces,
        this.chunks,
        this.receivedPieces,
        this.transactionCount + 1,
        error,
      );
    if (this.error !== null) return fail("ALREADY_FAILED");
    if (this.complete) return fail("ALREADY_COMPLETE");
    // A scriptSig opening with "ord" is a new header, not a continuation (as a countdown, "ord"
    // would read 6582895).
    if (read.kind !== "continuation") return fail("NOT_A_CONTINUATION");
    const pieces = read.pieces;
    if (pieces.length === 0 || pieces[0].countdown !== this.nextCountdown) return fail("COUNTDOWN_MISMATCH");
    const take = pieces.slice(0, this.missingPieces);
    return new DoginalsAssembly(
      this.contentType,
      this.totalPieces,
      [...this.chunks, ...take.map((p) => p.data)],
      this.receivedPieces + take.length,
      this.transactionCount + 1,
      null,
    );
  }

  result(): DoginalsAssemblyResult {
    return {
      complete: this.complete,
      body: this.body,
      contentType: this.contentType,
      missingPieces: this.missingPieces,
      error: this.error,
    };
  }

  toJSON(): DoginalsPendingState {
    return {
      contentType: this.contentType,
      totalPieces: this.totalPieces,
      receivedPieces: this.receivedPieces,
      transactionCount: this.transactionCount,
      bodyHex: bytesToHex(this.body),
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding (our inscriber and the tests)

export interface DoginalsRevealPart {
  /** The push-only head of the scriptSig: the header (first part only) and the pairs. */
  pushes: Uint8Array;
  /** `<pubkey> OP_CHECKSIGVERIFY OP_DROP x (number of pushes) OP_TRUE`; its P2SH output is spent by this part. */
  redeemScript: Uint8Array;
  /** Number of data pushes in `pushes` (= OP_DROPs in the redeem script). */
  pushCount: number;
}

export class DoginalsEncodeError extends DogeosError<
  | "EMPTY_BODY"
  | "EMPTY_CONTENT_TYPE"
  | "CONTENT_TYPE_TOO_LONG"
  | "BAD_PUBKEY"
  | "BAD_CHUNK_SIZE"
  | "UNENCODABLE_CONTENT_TYPE"
  | "UNENCODABLE_BODY"
> {
  constructor(code: DoginalsEncodeError["code"], message: string) {
    super("invalid", code, message);
  }
}

/**
 * A single byte 1..16 or 0x81 has no data push a standard node relays: minimal encoding
 * (MINIMALDATA) turns it into OP_1..OP_16 / OP_1NEGATE, which Doginals readers (wonky-ord-dogecoin
 * takes only data pushes) do not read as data.
 */
function isOpcodeByte(piece: Uint8Array): boolean {
  return piece.length === 1 && ((piece[0] >= 1 && piece[0] <= 16) || piece[0] === 0x81);
}

/** A countdown or piece count as a push: OP_0..OP_16, else a minimal script number. */
function numberPush(value: number): Uint8Array {
  return encodePush(encodeScriptNum(value));
}

/** `<pubkey> OP_CHECKSIGVERIFY OP_DROP x dropCount OP_TRUE`. */
export function doginalsRedeemScript(pubkey: Uint8Array, dropCount: number): Uint8Array {
  return concatBytes(
    encodePush(pubkey),
    Uint8Array.of(OP.OP_CHECKSIGVERIFY),
    new Uint8Array(dropCount).fill(OP.OP_DROP),
    Uint8Array.of(OP.OP_TRUE),
  );
}

/**
 * Splits an inscription into the scriptSig parts of its reveal chain exactly as apezord's inscriber
 * does: pieces of 240 bytes, and each part takes whole pairs while its pushes stay within 1500 bytes.
 * Part k is spent by reveal k, which pays its output 0 to the P2SH of part k+1's redeem script
 * (the last reveal pays the recipient).
 */
export function encodeDoginalsReveal(request: {
  contentType: string;
  body: Uint8Array;
  pubkey: Uint8Array;
  chunkBytes?: number;
  maxPartialBytes?: number;
}): DoginalsRevealPart[] {
  const chunkBytes = request.chunkBytes ?? DOGINALS_CHUNK_BYTES;
  const maxPartialBytes = request.maxPartialBytes ?? DOGINALS_MAX_PARTIAL_BYTES;
  const contentType = utf8Encoder.encode(request.contentType);
  const pubkey = request.pubkey;
  if (request.body.length === 0)
    throw new DoginalsEncodeError("EMPTY_BODY", "a Doginals inscription needs at least one piece");
  if (contentType.length === 0) throw new DoginalsEncodeError("EMPTY_CONTENT_TYPE", "content type must not be empty");
  if (contentType.length > 520)
    throw new DoginalsEncodeError("CONTENT_TYPE_TOO_LONG", `content type of ${contentType.length} bytes exceeds 520`);
  if (!((pubkey.length === 33 && (pubkey[0] === 2 || pubkey[0] === 3)) || (pubkey.length === 65 && pubkey[0] === 4))) {
    throw new DoginalsEncodeError("BAD_PUBKEY", `expected a 33- or 65-byte public key, got ${pubkey.length} bytes`);
  }
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > 520)
    throw new DoginalsEncodeError("BAD_CHUNK_SIZE", `chunk size ${chunkBytes} is not in 1..520`);

  if (isOpcodeByte(contentType))
    throw new DoginalsEncodeError(
      "UNENCODABLE_CONTENT_TYPE",
      "a one-byte content type of value 1-16 or 0x81 has no data push a standard node relays",
    );
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < request.body.length; offset += chunkBytes)
    pieces.push(request.body.subarray(offset, offset + chunkBytes));
  // Only the last piece can be short. If it is one byte that minimal pushes turn into an opcode,
  // the piece before it gives it one byte (readers concatenate pieces, so the body is unchanged);
  // this is where we depart from apezord's inscriber, whose reveal would not be relayed.
  const last = pieces.length - 1;
  if (isOpcodeByte(pieces[last])) {
    if (last === 0 || pieces[last - 1].length < 3)
      throw new DoginalsEncodeError(
        "UNENCODABLE_BODY",
        "a one-byte body (or piece) of value 1-16 or 0x81 has no data push a standard node relays",
      );
    const end = request.body.length;
    pieces[last - 1] = request.body.subarray(end - 1 - pieces[last - 1].length, end - 2);
    pieces[last] = request.body.subarray(end - 2, end);
  }
  if (pieces.some(isOpcodeByte))
    throw new DoginalsEncodeError(
      "UNENCODABLE_BODY",
      "a one-byte piece of value 1-16 or 0x81 has no data push a standard node relays",
    );
  // The inscription as one list of pushes, which the loop below deals out to the parts.
  const queue: Uint8Array[] = [encodePush(PROTOCOL_ID_BYTES), numberPush(pieces.length), encodePush(contentType)];
  pieces.forEach((piece, n) => queue.push(numberPush(pieces.length - n - 1), encodePush(piece)));

  const parts: DoginalsRevealPart[] = [];
  let cursor = 0;
  while (cursor < queue.length) {
    const taken: Uint8Array[] = [];
    let size = 0;
    if (parts.length === 0) {
      taken.push(queue[cursor++]);
      size += taken[0].length;
    }
    const pairsStart = taken.length;
    while (size <= maxPartialBytes && cursor < queue.length) {
      taken.push(queue[cursor], queue[cursor + 1]);
      size += queue[cursor].length + queue[cursor + 1].length;
      cursor += 2;
    }
    if (size > maxPartialBytes && taken.length - pairsStart > 2) {
      cursor -= 2;
      taken.splice(taken.length - 2, 2);
    }
    parts.push({
      pushes: concatBytes(...taken),
      redeemScript: doginalsRedeemScript(pubkey, taken.length),
      pushCount: taken.length,
    });
  }
  return parts;
}

/** The scriptSig spending one part: its pushes, then `<signature> <redeemScript>`. */
export function doginalsScriptSig(part: DoginalsRevealPart, signature: Uint8Array): Uint8Array {
  return concatBytes(part.pushes, encodePush(signature), encodePush(part.redeemScript));
}
