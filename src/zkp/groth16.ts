/**
 * Shadow (off-consensus) verifier for OP_CHECKZKP mode 0: Groth16 on BLS12-381 with exactly two
 * public inputs. The DIP does not settle the byte format, so the two interpretations of
 * ../shared/ZKP.md are tried in order and the result says which one decoded:
 *   1. "affine-be": big-endian affine proof coordinates; the key is the standard compressed
 *      (zcash/IETF) alpha | beta | gamma | delta | IC0 | IC1 | IC2; big-endian scalars.
 *   2. "affine-le-qed": little-endian affine proof coordinates; the key in QED's order
 *      alpha | K0 | K1 | K2 | beta | delta | gamma, points "MCL compressed little-endian";
 *      little-endian scalars.
 * Pure: no I/O. The queue at the end only orders work and yields to the event loop.
 */
import { bls12_381 } from "@noble/curves/bls12-381.js";
import type { WeierstrassPoint } from "@noble/curves/abstract/weierstrass.js";
import type { Fp12, Fp2 } from "@noble/curves/abstract/tower.js";
import { DecodeError, bytesToHex, hexToBytes, isHex, sha256 } from "../doge";
import { GROTH16_COORDINATE_SIZE, GROTH16_PUBLIC_INPUT_SIZE, GROTH16_VK_CHUNK_SIZE, ZkpUse } from "./extract";

export type Groth16Encoding = "affine-be" | "affine-le-qed";

/** The interpretations tried, in order. */
export const GROTH16_ENCODINGS: readonly Groth16Encoding[] = ["affine-be", "affine-le-qed"];

export const GROTH16_PROOF_BYTES = 8 * GROTH16_COORDINATE_SIZE;
export const GROTH16_VK_BYTES = 6 * GROTH16_VK_CHUNK_SIZE;

const { Fp, Fp2, Fp12: Fp12Field, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;

type G1Point = WeierstrassPoint<bigint>;
type G2Point = WeierstrassPoint<Fp2>;
type PairingPrecomputes = ReturnType<typeof bls12_381.utils.calcPairingPrecomputes>;

/** Curve constants b of y^2 = x^3 + b: 4 on G1, 4(1 + i) on the twist G2. */
const B_G1 = 4n;
const B_G2 = Fp2.fromBigTuple([4n, 4n]);

export interface Groth16Proof {
  a: G1Point;
  b: G2Point;
  c: G1Point;
}

export interface Groth16VerifyingKey {
  alpha: G1Point;
  beta: G2Point;
  gamma: G2Point;
  delta: G2Point;
  /** IC0, IC1, IC2 (QED calls them K0, K1, K2). */
  ic: [G1Point, G1Point, G1Point];
}

/** A key with the per-key pairing work done once: the cache holds these. */
export interface PreparedVerifyingKey {
  encoding: Groth16Encoding;
  key: Groth16VerifyingKey;
  /** Miller loop of e(alpha, beta), before the final exponentiation. */
  alphaBetaMiller: Fp12;
  gammaPrecomputes: PairingPrecomputes;
  deltaPrecomputes: PairingPrecomputes;
}

export interface Groth16ShadowResult {
  /** true / false when an interpretation decoded; null when none did. */
  shadow_valid: boolean | null;
  encoding: Groth16Encoding | null;
  /** Why nothing decoded (each interpretation's reason). */
  error?: string;
}

/** The fields of a mode-0 record the verifier reads (a ZkpUse, or a stored row). */
export interface Groth16ShadowInput {
  proof_hex: string | null;
  vk_hex: string | null;
  public_inputs: readonly string[];
}

function bigEndianToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt("0x" + bytesToHex(bytes));
}

function littleEndianToBigInt(bytes: Uint8Array): bigint {
  return bigEndianToBigInt(Uint8Array.from(bytes).reverse());
}

function readFieldElement(bytes: Uint8Array, encoding: Groth16Encoding, what: string, offset: number): bigint {
  const value = encoding === "affine-be" ? bigEndianToBigInt(bytes) : littleEndianToBigInt(bytes);
  if (value >= Fp.ORDER)
    throw new DecodeError("FIELD_ELEMENT_TOO_LARGE", `${what} is not below the field modulus`, offset);
  return value;
}

function g1FromAffine(x: bigint, y: bigint, what: string, offset: number): G1Point {
  if (!Fp.eql(Fp.sqr(y), Fp.add(Fp.mul(Fp.sqr(x), x), B_G1))) {
    throw new DecodeError("POINT_NOT_ON_CURVE", `${what} is not on the curve`, offset);
  }
  const point = G1.fromAffine({ x, y });
  if (!point.isTorsionFree())
    throw new DecodeError("POINT_NOT_IN_SUBGROUP", `${what} is not in the prime-order subgroup`, offset);
  return point;
}

function g2FromAffine(x: Fp2, y: Fp2, what: string, offset: number): G2Point {
  if (!Fp2.eql(Fp2.sqr(y), Fp2.add(Fp2.mul(Fp2.sqr(x), x), B_G2))) {
    throw new DecodeError("POINT_NOT_ON_CURVE", `${what} is not on the curve`, offset);
  }
  const point = G2.fromAffine({ x, y });
  if (!point.isTorsionFree())
    throw new DecodeError("POINT_NOT_IN_SUBGROUP", `${what} is not in the prime-order subgroup`, offset);
  return point;
}

/** Standard compressed (zcash/IETF) point through @noble/curves, with the subgroup check made explicit. */
function decodeZcashPoint<P extends G1Point | G2Point>(
  bytes: Uint8Array,
  group: "G1" | "G2",
  what: string,
  offset: number,
): P {
  let point: G1Point | G2Point;
  try {
    point = group === "G1" ? G1.fromBytes(bytes) : G2.fromBytes(bytes);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    const code = /subgroup/i.test(reason) ? "POINT_NOT_IN_SUBGROUP" : "BAD_POINT_ENCODING";
    throw new DecodeError(code, `${what}: ${reason}`, offset);
  }
  if (!point.is0() && !point.isTorsionFree()) {
    throw new DecodeError("POINT_NOT_IN_SUBGROUP", `${what} is not in the prime-order subgroup`, offset);
  }
  return point as P;
}

/**
 * MCL compressed little-endian G1 (QED): x little-endian, bit 7 of the last byte is the parity of
 * y. QED's decoder masks the top 3 bits of the last byte before reading x; so does this one.
 * Checks the point is on the curve and in the prime-order subgroup; throws DecodeError.
 */
export function decodeQedG1(bytes: Uint8Array, what = "G1 point", offset = 0): G1Point {
  if (bytes.length !== 48)
    throw new DecodeError("BAD_POINT_LENGTH", `${what} is ${bytes.length} bytes, expected 48`, offset);
  const masked = Uint8Array.from(bytes);
  const yOdd = (masked[47] & 0x80) !== 0;
  masked[47] &= 0x1f;
  const x = readFieldElement(masked, "affine-le-qed", `${what} x`, offset);
  const ySquared = Fp.add(Fp.mul(Fp.sqr(x), x), B_G1);
  let y: bigint;
  try {
    y = Fp.sqrt(ySquared);
  } catch {
    throw new DecodeError("POINT_NOT_ON_CURVE", `${what} is not on the curve (no y for this x)`, offset);
  }
  if (((y & 1n) === 1n) !== yOdd) y = Fp.neg(y);
  return g1FromAffine(x, y, what, offset);
}

/**
 * MCL compressed little-endian G2 (QED): x.c0 then x.c1, each little-endian; bit 7 of the last
 * byte is the parity of y.c0 and is masked before reading x.c1. Same checks as decodeQedG1.
 */
export function decodeQedG2(bytes: Uint8Array, what = "G2 point", offset = 0): G2Point {
  if (bytes.length !== 96)
    throw new DecodeError("BAD_POINT_LENGTH", `${what} is ${bytes.length} bytes, expected 96`, offset);
  const masked = Uint8Array.from(bytes);
  const yOdd = (masked[95] & 0x80) !== 0;
  masked[95] &= 0x7f;
  const x = Fp2.fromBigTuple([
    readFieldElement(masked.subarray(0, 48), "affine-le-qed", `${what} x.c0`, offset),
    readFieldElement(masked.subarray(48, 96), "affine-le-qed", `${what} x.c1`, offset + 48),
  ]);
  const ySquared = Fp2.add(Fp2.mul(Fp2.sqr(x), x), B_G2);
  let y: Fp2;
  try {
    y = Fp2.sqrt(ySquared);
  } catch {
    throw new DecodeError("POINT_NOT_ON_CURVE", `${what} is not on the curve (no y for this x)`, offset);
  }
  if (((y.c0 & 1n) === 1n) !== yOdd) y = Fp2.neg(y);
  return g2FromAffine(x, y, what, offset);
}

function checkNotInfinity(point: G1Point | G2Point, what: string, offset: number): void {
  if (point.is0()) throw new DecodeError("POINT_AT_INFINITY", `${what} is the point at infinity`, offset);
}

/** Decodes the 480-byte key; throws DecodeError naming the part that failed. */
export function decodeGroth16VerifyingKey(vk: Uint8Array, encoding: Groth16Encoding): Groth16VerifyingKey {
  if (vk.length !== GROTH16_VK_BYTES) {
    throw new DecodeError("BAD_VK_LENGTH", `verifying key is ${vk.length} bytes, expected ${GROTH16_VK_BYTES}`, 0);
  }
  let key: Groth16VerifyingKey;
  if (encoding === "affine-be") {
    key = {
      alpha: decodeZcashPoint(vk.subarray(0, 48), "G1", "vk alpha", 0),
      beta: decodeZcashPoint(vk.subarray(48, 144), "G2", "vk beta", 48),
      gamma: decodeZcashPoint(vk.subarray(144, 240), "G2", "vk gamma", 144),
      delta: decodeZcashPoint(vk.subarray(240, 336), "G2", "vk delta", 240),
      ic: [
        decodeZcashPoint(vk.subarray(336, 384), "G1", "vk IC0", 336),
        decodeZcashPoint(vk.subarray(384, 432), "G1", "vk IC1", 384),
        decodeZcashPoint(vk.subarray(432, 480), "G1", "vk IC2", 432),
      ],
    };
  } else {
    key = {
      alpha: decodeQedG1(vk.subarray(0, 48), "vk alpha", 0),
      ic: [
        decodeQedG1(vk.subarray(48, 96), "vk K0", 48),
        decodeQedG1(vk.subarray(96, 144), "vk K1", 96),
        decodeQedG1(vk.subarray(144, 192), "vk K2", 144),
      ],
      beta: decodeQedG2(vk.subarray(192, 288), "vk beta", 192),
      delta: decodeQedG2(vk.subarray(288, 384), "vk delta", 288),
      gamma: decodeQedG2(vk.subarray(384, 480), "vk gamma", 384),
    };
  }
  // The pairing terms need these; the IC points may be infinity (they only enter a sum).
  const offsets = encoding === "affine-be" ? [0, 48, 144, 240] : [0, 192, 384, 288];
  checkNotInfinity(key.alpha, "vk alpha", offsets[0]);
  checkNotInfinity(key.beta, "vk beta", offsets[1]);
  checkNotInfinity(key.gamma, "vk gamma", offsets[2]);
  checkNotInfinity(key.delta, "vk delta", offsets[3]);
  return key;
}

/** Decodes and prepares a key for repeated verification; throws DecodeError. */
export function prepareGroth16VerifyingKey(vk: Uint8Array, encoding: Groth16Encoding): PreparedVerifyingKey {
  const key = decodeGroth16VerifyingKey(vk, encoding);
  const alpha = key.alpha.toAffine();
  return {
    encoding,
    key,
    alphaBetaMiller: bls12_381.millerLoopBatch([[bls12_381.utils.calcPairingPrecomputes(key.beta), alpha.x, alpha.y]]),
    gammaPrecomputes: bls12_381.utils.calcPairingPrecomputes(key.gamma),
    deltaPrecomputes: bls12_381.utils.calcPairingPrecomputes(key.delta),
  };
}

const PROOF_COORDINATE_NAMES = ["A.x", "A.y", "B.x.c0", "B.x.c1", "B.y.c0", "B.y.c1", "C.x", "C.y"] as const;

/** Decodes the 384-byte proof (8 affine coordinates of 48 bytes); throws DecodeError. */
export function decodeGroth16Proof(proof: Uint8Array, encoding: Groth16Encoding): Groth16Proof {
  if (proof.length !== GROTH16_PROOF_BYTES) {
    throw new DecodeError("BAD_PROOF_LENGTH", `proof is ${proof.length} bytes, expected ${GROTH16_PROOF_BYTES}`, 0);
  }
  const c = PROOF_COORDINATE_NAMES.map((name, i) =>
    readFieldElement(proof.subarray(48 * i, 48 * (i + 1)), encoding, `proof ${name}`, 48 * i),
  );
  return {
    a: g1FromAffine(c[0], c[1], "proof A", 0),
    b: g2FromAffine(Fp2.fromBigTuple([c[2], c[3]]), Fp2.fromBigTuple([c[4], c[5]]), "proof B", 96),
    c: g1FromAffine(c[6], c[7], "proof C", 288),
  };
}

/** Decodes the two 32-byte public inputs as scalars below the group order r; throws DecodeError. */
export function decodeGroth16PublicInputs(inputs: readonly Uint8Array[], encoding: Groth16Encoding): [bigint, bigint] {
  if (inputs.length !== 2)
    throw new DecodeError("BAD_PUBLIC_INPUT_COUNT", `${inputs.length} public inputs, expected 2`, 0);
  const scalars = inputs.map((input, i) => {
    if (input.length !== GROTH16_PUBLIC_INPUT_SIZE) {
      throw new DecodeError(
        "BAD_PUBLIC_INPUT_LENGTH",
        `public input ${i} is ${input.length} bytes, expected ${GROTH16_PUBLIC_INPUT_SIZE}`,
        32 * i,
      );
    }
    const value = encoding === "affine-be" ? bigEndianToBigInt(input) : littleEndianToBigInt(input);
    if (value >= Fr.ORDER)
      throw new DecodeError("SCALAR_TOO_LARGE", `public input ${i} is not below the group order r`, 32 * i);
    return value;
  });
  return [scalars[0], scalars[1]];
}

/**
 * The Groth16 equation e(A, B) = e(alpha, beta) · e(IC0 + x0·IC1 + x1·IC2, gamma) · e(C, delta),
 * checked as e(-A, B) · e(alpha, beta) · e(L, gamma) · e(C, delta) = 1 with one final exponentiation.
 */
export function checkGroth16Pairing(
  prepared: PreparedVerifyingKey,
  proof: Groth16Proof,
  inputs: readonly [bigint, bigint],
): boolean {
  const { ic } = prepared.key;
  const sum = ic[0].add(ic[1].multiplyUnsafe(inputs[0])).add(ic[2].multiplyUnsafe(inputs[1]));
  const minusA = proof.a.negate().toAffine();
  const c = proof.c.toAffine();
  const terms: [PairingPrecomputes, bigint, bigint][] = [
    [bls12_381.utils.calcPairingPrecomputes(proof.b), minusA.x, minusA.y],
    [prepared.deltaPrecomputes, c.x, c.y],
  ];
  // A term with the point at infinity is 1 and is left out (noble refuses it).
  if (!sum.is0()) {
    const l = sum.toAffine();
    terms.push([prepared.gammaPrecomputes, l.x, l.y]);
  }
  const miller = Fp12Field.mul(bls12_381.millerLoopBatch(terms), prepared.alphaBetaMiller);
  return Fp12Field.eql(Fp12Field.finalExponentiate(miller), Fp12Field.ONE);
}

type CachedDecode = { ok: true; prepared: PreparedVerifyingKey } | { ok: false; error: DecodeError };

/**
 * Bounded LRU of prepared keys, keyed by the SHA-256 of the key bytes (`vk_sha256`), one slot per
 * interpretation. Keys that fail to decode are cached as failures too.
 */
export class VerifyingKeyCache {
  readonly capacity: number;
  hits = 0;
  misses = 0;
  private readonly entries = new Map<string, Partial<Record<Groth16Encoding, CachedDecode>>>();

  constructor(capacity = 256) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError(`VerifyingKeyCache capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.entries.size;
  }

  has(vkSha256: string): boolean {
    return this.entries.has(vkSha256);
  }

  /** The prepared key for `vk` under `encoding`, decoded on a miss; throws the DecodeError. */
  resolve(vk: Uint8Array, encoding: Groth16Encoding, vkSha256 = bytesToHex(sha256(vk))): PreparedVerifyingKey {
    let entry = this.entries.get(vkSha256);
    if (entry) {
      // Re-insert to mark it most recently used.
      this.entries.delete(vkSha256);
      this.entries.set(vkSha256, entry);
    } else {
      entry = {};
      this.entries.set(vkSha256, entry);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    }
    let cached = entry[encoding];
    if (cached) {
      this.hits++;
    } else {
      this.misses++;
      try {
        cached = { ok: true, prepared: prepareGroth16VerifyingKey(vk, encoding) };
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        cached = { ok: false, error: e };
      }
      entry[encoding] = cached;
    }
    if (!cached.ok) throw cached.error;
    return cached.prepared;
  }
}

function decodeHexField(hex: string | null, what: string): Uint8Array {
  if (hex === null || !isHex(hex)) throw new DecodeError("BAD_HEX", `${what} is missing or not hex`, 0);
  return hexToBytes(hex);
}

/**
 * Verifies a mode-0 use off consensus, trying each interpretation in order; the first whose proof,
 * key and public inputs all decode gives the answer. Never throws.
 */
export function verifyGroth16Shadow(input: Groth16ShadowInput, cache?: VerifyingKeyCache): Groth16ShadowResult {
  let proof: Uint8Array;
  let vk: Uint8Array;
  let publicInputs: Uint8Array[];
  try {
    proof = decodeHexField(input.proof_hex, "proof_hex");
    vk = decodeHexField(input.vk_hex, "vk_hex");
    publicInputs = input.public_inputs.map((hex, i) => decodeHexField(hex, `public input ${i}`));
  } catch (e) {
    return { shadow_valid: null, encoding: null, error: e instanceof Error ? e.message : String(e) };
  }
  const vkSha256 = bytesToHex(sha256(vk));
  const reasons: string[] = [];
  for (const encoding of GROTH16_ENCODINGS) {
    try {
      const prepared = cache ? cache.resolve(vk, encoding, vkSha256) : prepareGroth16VerifyingKey(vk, encoding);
      const decodedProof = decodeGroth16Proof(proof, encoding);
      const scalars = decodeGroth16PublicInputs(publicInputs, encoding);
      return { shadow_valid: checkGroth16Pairing(prepared, decodedProof, scalars), encoding };
    } catch (e) {
      reasons.push(`${encoding}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { shadow_valid: null, encoding: null, error: reasons.join("; ") };
}

/** True for the records the shadow verifier applies to: mode 0 that parsed. */
export function isShadowVerifiable(use: ZkpUse): boolean {
  return use.mode === 0 && use.parse_error === null && use.proof_hex !== null && use.vk_hex !== null;
}

export interface ShadowVerification {
  use: ZkpUse;
  result: Groth16ShadowResult;
}

export interface ShadowVerifierQueueOptions {
  /** Stores one batch of results (e.g. in one database transaction). A throw re-queues the batch. */
  persist: (results: ShadowVerification[]) => void | Promise<void>;
  cache?: VerifyingKeyCache;
  /** Results per persist call; default 8. */
  batchSize?: number;
  /** The verifier; replaceable in tests. */
  verify?: (input: Groth16ShadowInput, cache: VerifyingKeyCache) => Groth16ShadowResult;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * In-memory queue of mode-0 uses awaiting shadow verification, fed by the indexer after it has
 * written a block, so pairings (tens of milliseconds each) stay off the indexing hot path.
 * `drain()` verifies in batches, yielding to the event loop between items, and hands each batch
 * to `persist`. Work is lost on exit; the indexer re-queues rows whose `shadow_valid` is still null.
 */
export class ShadowVerifierQueue {
  readonly cache: VerifyingKeyCache;
  private readonly pendingUses: ZkpUse[] = [];
  private readonly persist: ShadowVerifierQueueOptions["persist"];
  private readonly batchSize: number;
  private readonly verify: NonNullable<ShadowVerifierQueueOptions["verify"]>;
  private running: Promise<number> | null = null;

  constructor(options: ShadowVerifierQueueOptions) {
    this.persist = options.persist;
    this.cache = options.cache ?? new VerifyingKeyCache();
    this.batchSize = options.batchSize ?? 8;
    if (!Number.isSafeInteger(this.batchSize) || this.batchSize < 1) {
      throw new RangeError(`ShadowVerifierQueue batchSize must be a positive integer, got ${this.batchSize}`);
    }
    this.verify = options.verify ?? verifyGroth16Shadow;
  }

  /** Number of uses waiting. */
  get pending(): number {
    return this.pendingUses.length;
  }

  get draining(): boolean {
    return this.running !== null;
  }

  /** Queues the verifiable uses among `uses` (mode 0, parsed); returns how many were queued. */
  enqueue(uses: Iterable<ZkpUse>): number {
    let queued = 0;
    for (const use of uses) {
      if (!isShadowVerifiable(use)) continue;
      this.pendingUses.push(use);
      queued++;
    }
    return queued;
  }

  /**
   * Verifies everything queued (including what is queued meanwhile) and resolves with how many
   * results were persisted. A call while draining joins the running drain.
   */
  drain(): Promise<number> {
    if (!this.running) {
      this.running = this.run().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async run(): Promise<number> {
    let persisted = 0;
    while (this.pendingUses.length > 0) {
      const batch = this.pendingUses.splice(0, this.batchSize);
      const results: ShadowVerification[] = [];
      for (const use of batch) {
        await yieldToEventLoop();
        results.push({ use, result: this.verify(use, this.cache) });
      }
      try {
        await this.persist(results);
      } catch (e) {
        this.pendingUses.unshift(...batch);
        throw e;
      }
      persisted += results.length;
    }
    return persisted;
  }
}
