/**
 * The EIP-712 digests of facts and receipts computed directly, and signing and recovery over
 * libsecp256k1 (tiny-secp256k1, WebAssembly): the hot path of attesters (one signature per fact)
 * and of the attest API (one recovery per signature it passes on). The same bytes as
 * `factDigest` / `receiptDigest` (ethers' TypedDataEncoder) and as ethers' signatures: a property
 * test holds them equal. Pure.
 *
 * Every field of both structs is static, so `abi.encode` of a struct is its words concatenated
 * (EIP-712 `encodeData`): hashStruct = keccak256(typeHash || words), digest = keccak256(0x1901 ||
 * domainSeparator || hashStruct).
 */
import * as secp from "tiny-secp256k1";
import { getAddress, keccak256 } from "ethers";
import { FACT_TYPEHASH, RECEIPT_TYPEHASH, domainSeparator } from "./eip712";
import type { AttestationDomain, Fact, Receipt } from "./eip712";

const UINT256_MAX = (1n << 256n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex"));
}

function putBytes32(out: Uint8Array, offset: number, hex: string, field: string): void {
  const bytes = hexBytes(hex);
  if (bytes.length !== 32) throw new RangeError(`${field} must be 32 bytes`);
  out.set(bytes, offset);
}

function putUint(out: Uint8Array, offset: number, value: bigint, max: bigint, field: string): void {
  if (value < 0n || value > max) throw new RangeError(`${field} out of range`);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[offset + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function putAddress(out: Uint8Array, offset: number, address: string, field: string): void {
  const bytes = hexBytes(getAddress(address));
  if (bytes.length !== 20) throw new RangeError(`${field} must be an address`);
  out.set(bytes, offset + 12);
}

const separators = new Map<string, Uint8Array>();

function separatorOf(domain: AttestationDomain): Uint8Array {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract.toLowerCase()}`;
  let separator = separators.get(key);
  if (!separator) {
    separator = hexBytes(domainSeparator(domain));
    if (separators.size > 64) separators.clear();
    separators.set(key, separator);
  }
  return separator;
}

function digestOf(
  domain: AttestationDomain,
  typeHash: string,
  fill: (words: Uint8Array) => void,
  words: number,
): string {
  const struct = new Uint8Array(32 * (words + 1));
  putBytes32(struct, 0, typeHash, "typeHash");
  fill(struct);
  const message = new Uint8Array(66);
  message[0] = 0x19;
  message[1] = 0x01;
  message.set(separatorOf(domain), 2);
  message.set(hexBytes(keccak256(struct)), 34);
  return keccak256(message);
}

/** The digest attesters sign for `fact` (equal to `factDigest(domain, fact)`). */
export function fastFactDigest(domain: AttestationDomain, fact: Fact): string {
  return digestOf(
    domain,
    FACT_TYPEHASH,
    (w) => {
      putBytes32(w, 32, fact.factType, "factType");
      putBytes32(w, 64, fact.subject, "subject");
      putBytes32(w, 96, fact.qualifier, "qualifier");
      putUint(w, 128, fact.value, UINT256_MAX, "value");
      putBytes32(w, 160, fact.data, "data");
      putUint(w, 192, fact.l1Height, UINT64_MAX, "l1Height");
      putUint(w, 224, fact.attestedAt, UINT64_MAX, "attestedAt");
      putUint(w, 256, fact.attesterSetId, UINT64_MAX, "attesterSetId");
    },
    8,
  );
}

/** The digest attesters sign for `receipt` (equal to `receiptDigest(domain, receipt)`). */
export function fastReceiptDigest(domain: AttestationDomain, receipt: Receipt): string {
  return digestOf(
    domain,
    RECEIPT_TYPEHASH,
    (w) => {
      putBytes32(w, 32, receipt.jobId, "jobId");
      putAddress(w, 64, receipt.jobContract, "jobContract");
      putBytes32(w, 96, receipt.l1Txid, "l1Txid");
      putBytes32(w, 128, receipt.resultHash, "resultHash");
      putUint(w, 160, receipt.l1Height, UINT64_MAX, "l1Height");
      putUint(w, 192, receipt.attestedAt, UINT64_MAX, "attestedAt");
      putUint(w, 224, receipt.attesterSetId, UINT64_MAX, "attesterSetId");
    },
    7,
  );
}

/**
 * A 65-byte signature `r || s || v` (v 27 or 28, s low, RFC 6979 nonce) over `digest` by the
 * 32-byte `privateKey`: what ethers' `Wallet.signTypedData` gives for the same digest.
 */
export function signDigest(privateKey: Uint8Array, digest: string): string {
  const { signature, recoveryId } = secp.signRecoverable(hexBytes(digest), privateKey);
  return `0x${Buffer.from(signature).toString("hex")}${(27 + recoveryId).toString(16)}`;
}

/** The address that signed `digest` with the 65-byte `signature`, or null when it does not recover (or s is high). */
export function recoverDigestSigner(digest: string, signature: string): string | null {
  const bytes = hexBytes(signature);
  if (bytes.length !== 65) return null;
  const v = bytes[64];
  if (v !== 27 && v !== 28) return null;
  const compact = bytes.subarray(0, 64);
  // High-s signatures recover on ecrecover but OpenZeppelin's tryRecover refuses them: so do we.
  if (
    BigInt(`0x${Buffer.from(compact.subarray(32)).toString("hex")}`) >
    0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n
  )
    return null;
  let publicKey: Uint8Array | null;
  try {
    publicKey = secp.recover(hexBytes(digest), compact, (v - 27) as 0 | 1, false);
  } catch {
    return null;
  }
  if (!publicKey) return null;
  return getAddress(`0x${keccak256(publicKey.subarray(1)).slice(-40)}`);
}
