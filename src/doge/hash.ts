/** Hash functions used by Dogecoin: SHA-256, double SHA-256, HASH160, and scrypt proof of work. */
import { hash as oneShotHash, scryptSync } from "node:crypto";
import { ripemd160 } from "@noble/hashes/legacy.js";

// node:crypto's one-shot hash (Node >= 20.12) avoids a Hash object per call: block parsing
// hashes every transaction, and the allocations were most of its cost.
export function sha256(data: Uint8Array): Uint8Array {
  return oneShotHash("sha256", data, "buffer");
}

/** SHA-256 applied twice: txids, block hashes, merkle nodes, base58 checksums. */
export function sha256d(data: Uint8Array): Uint8Array {
  return oneShotHash("sha256", oneShotHash("sha256", data, "buffer"), "buffer");
}

/** RIPEMD-160 of SHA-256: the 20-byte hash inside P2PKH and P2SH addresses. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

/**
 * Dogecoin's proof-of-work hash (inherited from Litecoin): scrypt with the 80-byte header as both
 * password and salt, N = 1024, r = 1, p = 1, 32-byte output (Litecoin's scrypt_1024_1_1_256).
 */
export function scryptPowHash(header: Uint8Array): Uint8Array {
  return new Uint8Array(scryptSync(header, header, 32, { N: 1024, r: 1, p: 1 }));
}
