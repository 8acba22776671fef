/**
 * Dogecoin message verification for servers, with libsecp256k1 compiled to WebAssembly
 * (tiny-secp256k1) doing the public-key recovery: 263 µs a recovery against @noble/curves'
 * 1,338 µs on this machine (a one-off measurement of 2,000 recoveries each), which is most of what a
 * signed AMM order or a launchpad sign-in costs. Kept apart from message.ts because the browser
 * bundle of the development wallet takes message.ts and cannot load the WebAssembly module.
 */
import * as ecc from "tiny-secp256k1";
import { CompactRecover, verifyMessage } from "./message";
import type { DogeNetwork } from "./networks";

/** Recovery with libsecp256k1 (`secp256k1_ecdsa_recover`), as Core's CPubKey::RecoverCompact. */
export const nativeRecover: CompactRecover = (digest, signature64, recoveryId, compressed) =>
  ecc.recover(digest, signature64, recoveryId as 0 | 1 | 2 | 3, compressed) ?? null;

/** verifyMessage (message.ts) with libsecp256k1's recovery: the same answers, faster. */
export function verifyMessageNative(
  address: string,
  signatureBase64: string,
  message: string | Uint8Array,
  network: DogeNetwork,
): boolean {
  return verifyMessage(address, signatureBase64, message, network, nativeRecover);
}
