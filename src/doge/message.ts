/**
 * Dogecoin signed messages (DESIGN.md 4.1): a compact recoverable secp256k1 signature over
 * double-SHA-256(prefix || varint(len(message)) || message), base64 encoded, with the header byte
 * 27 + recovery id (+ 4 when the key is compressed), exactly as Dogecoin Core's signmessage and
 * verifymessage (src/rpc/misc.cpp, CPubKey::RecoverCompact) and Dogecoin wallets do.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { AddressError, decodeAddress, encodeAddress } from "./address";
import { ByteWriter, equalBytes } from "./bytes";
import { hash160, sha256d } from "./hash";
import { DogeNetwork, MESSAGE_PREFIX } from "./networks";

/** The 32-byte digest a Dogecoin message signature signs. */
export function messageHash(message: string | Uint8Array): Uint8Array {
  const body = typeof message === "string" ? new TextEncoder().encode(message) : message;
  const prefix = new TextEncoder().encode(MESSAGE_PREFIX);
  const writer = new ByteWriter(prefix.length + body.length + 9);
  writer.bytes(prefix);
  writer.varint(body.length);
  writer.bytes(body);
  return sha256d(writer.finish());
}

/** Signs a message with a 32-byte private key; returns the 65-byte compact signature in base64. */
export function signMessage(message: string | Uint8Array, privateKey: Uint8Array, compressed = true): string {
  const digest = messageHash(message);
  // @noble/curves v2 "recovered" format: recovery byte first, then r (32) and s (32); low-s.
  const recovered = secp256k1.sign(digest, privateKey, { prehash: false, format: "recovered" });
  const out = new Uint8Array(65);
  out[0] = 27 + recovered[0] + (compressed ? 4 : 0);
  out.set(recovered.subarray(1), 1);
  return Buffer.from(out).toString("base64");
}

/**
 * Public-key recovery from a 64-byte compact signature (r || s) over a 32-byte digest: the key
 * (33 bytes when `compressed`, else 65), or null when it does not recover. Any implementation must
 * answer what libsecp256k1's does; `nobleRecover` is pure JavaScript (and bundles for the browser),
 * message-native.ts's WebAssembly libsecp256k1 is the servers' faster one.
 */
export type CompactRecover = (
  digest: Uint8Array,
  signature64: Uint8Array,
  recoveryId: number,
  compressed: boolean,
) => Uint8Array | null;

/** Recovery with @noble/curves. */
export const nobleRecover: CompactRecover = (digest, signature64, recoveryId, compressed) => {
  const recoveredFormat = new Uint8Array(65);
  recoveredFormat[0] = recoveryId;
  recoveredFormat.set(signature64, 1);
  const point = secp256k1.recoverPublicKey(recoveredFormat, digest, { prehash: false });
  return compressed ? point : secp256k1.Point.fromBytes(point).toBytes(false);
};

/** Recovers the public key of a compact message signature, or null if it does not recover. */
export function recoverMessagePublicKey(
  message: string | Uint8Array,
  signatureBase64: string,
  recover: CompactRecover = nobleRecover,
): { publicKey: Uint8Array; compressed: boolean } | null {
  if (typeof signatureBase64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(signatureBase64)) return null;
  const sig = Buffer.from(signatureBase64, "base64");
  if (sig.length !== 65) return null;
  const header = sig[0];
  if (header < 27 || header > 34) return null;
  const compressed = header >= 31;
  const recoveryId = (header - 27) & 3;
  try {
    const publicKey = recover(messageHash(message), new Uint8Array(sig.subarray(1)), recoveryId, compressed);
    return publicKey ? { publicKey, compressed } : null;
  } catch {
    return null;
  }
}

/**
 * Verifies a message signature against a P2PKH address of the given network, as dogecoind's
 * verifymessage does. Returns false for a well-formed signature by another key; throws AddressError
 * for an address that is not a P2PKH address of the network (dogecoind: "Invalid address").
 */
export function verifyMessage(
  address: string,
  signatureBase64: string,
  message: string | Uint8Array,
  network: DogeNetwork,
  recover: CompactRecover = nobleRecover,
): boolean {
  const decoded = decodeAddress(address, network);
  if (decoded.type !== "pubkeyhash")
    throw new AddressError("ADDRESS_NOT_PUBKEYHASH", "address does not refer to a key");
  const recovered = recoverMessagePublicKey(message, signatureBase64, recover);
  if (!recovered) return false;
  return equalBytes(hash160(recovered.publicKey), decoded.hash);
}

/** The P2PKH address of a public key. */
export function publicKeyToAddress(publicKey: Uint8Array, network: DogeNetwork): string {
  return encodeAddress(hash160(publicKey), "pubkeyhash", network);
}

/** Public key of a private key (compressed by default). */
export function privateKeyToPublicKey(privateKey: Uint8Array, compressed = true): Uint8Array {
  return secp256k1.getPublicKey(privateKey, compressed);
}
