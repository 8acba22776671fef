/**
 * What src/doge/hash.ts takes from node:crypto, for the browser bundle of the development wallet
 * (the bundler maps "node:crypto" here): one-shot SHA-256 and scrypt, from @noble/hashes.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { scrypt } from "@noble/hashes/scrypt.js";

export function hash(algorithm: string, data: Uint8Array, _encoding: "buffer"): Uint8Array {
  if (algorithm !== "sha256") throw new Error(`the browser bundle hashes only sha256, not ${algorithm}`);
  return sha256(data);
}

export function scryptSync(
  password: Uint8Array,
  salt: Uint8Array,
  keylen: number,
  options: { N: number; r: number; p: number },
): Uint8Array {
  return scrypt(password, salt, { N: options.N, r: options.r, p: options.p, dkLen: keylen });
}
