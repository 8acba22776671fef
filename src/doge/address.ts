/**
 * Base58Check addresses and WIF keys for the three Dogecoin networks (DESIGN.md 4.1).
 * Only P2PKH and P2SH exist on Dogecoin; there is no segwit and no bech32.
 */
import { bytesToHex, concatBytes, equalBytes } from "./bytes";
import { hash160, sha256d } from "./hash";
import { DogeNetwork, NETWORKS, NetworkName } from "./networks";
import { classifyOutputScript, p2pkhScript, p2shScript } from "./script";
import { DogeosError } from "../errors";

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BASE58_INDEX = new Map<string, number>([...BASE58_ALPHABET].map((ch, i) => [ch, i]));

export class AddressError extends DogeosError {
  constructor(code: string, message: string) {
    super("invalid", code, message);
  }
}

export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = "";
  while (value > 0n) {
    out = BASE58_ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  return "1".repeat(zeros) + out;
}

export function base58Decode(text: string): Uint8Array {
  // Input from JSON or a query string may be anything: answer with an AddressError, not a TypeError.
  if (typeof text !== "string") throw new AddressError("BAD_BASE58", "base58 input must be a string");
  let zeros = 0;
  while (zeros < text.length && text[zeros] === "1") zeros++;
  let value = 0n;
  for (const ch of text) {
    const digit = BASE58_INDEX.get(ch);
    if (digit === undefined) throw new AddressError("BAD_BASE58", `invalid base58 character "${ch}"`);
    value = value * 58n + BigInt(digit);
  }
  const body: number[] = [];
  while (value > 0n) {
    body.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  return Uint8Array.from([...new Array(zeros).fill(0), ...body]);
}

export function base58CheckEncode(payload: Uint8Array): string {
  const checksum = sha256d(payload).subarray(0, 4);
  return base58Encode(concatBytes(payload, checksum));
}

export function base58CheckDecode(text: string): Uint8Array {
  const raw = base58Decode(text);
  if (raw.length < 5) throw new AddressError("BAD_LENGTH", "base58check string too short");
  const payload = raw.subarray(0, raw.length - 4);
  const checksum = raw.subarray(raw.length - 4);
  if (!equalBytes(sha256d(payload).subarray(0, 4), checksum))
    throw new AddressError("BAD_CHECKSUM", "base58check checksum mismatch");
  return Uint8Array.from(payload);
}

export type AddressType = "pubkeyhash" | "scripthash";

export interface DecodedAddress {
  network: DogeNetwork;
  type: AddressType;
  /** The 20-byte HASH160 the address commits to. */
  hash: Uint8Array;
}

export function encodeAddress(hash: Uint8Array, type: AddressType, network: DogeNetwork): string {
  if (hash.length !== 20) throw new AddressError("BAD_LENGTH", `address hash must be 20 bytes, got ${hash.length}`);
  const version = type === "pubkeyhash" ? network.pubKeyHash : network.scriptHash;
  return base58CheckEncode(concatBytes(Uint8Array.of(version), hash));
}

/**
 * Decodes an address. With `network` it must belong to that network; without, the first network
 * whose version byte matches is reported (testnet and regtest share the P2SH byte 0xc4, so a P2SH
 * address without a network is reported as testnet).
 */
export function decodeAddress(address: string, network?: DogeNetwork): DecodedAddress {
  if (typeof address !== "string" || address.length < 26 || address.length > 36) {
    throw new AddressError("BAD_ADDRESS", "address must be a 26-36 character base58check string");
  }
  const payload = base58CheckDecode(address);
  if (payload.length !== 21)
    throw new AddressError("BAD_LENGTH", `address payload must be 21 bytes, got ${payload.length}`);
  const version = payload[0];
  const hash = payload.subarray(1);
  const candidates = network ? [network] : (["mainnet", "testnet", "regtest"] as NetworkName[]).map((n) => NETWORKS[n]);
  for (const candidate of candidates) {
    if (version === candidate.pubKeyHash) return { network: candidate, type: "pubkeyhash", hash };
    if (version === candidate.scriptHash) return { network: candidate, type: "scripthash", hash };
  }
  throw new AddressError(
    "WRONG_NETWORK",
    network
      ? `address version byte 0x${version.toString(16)} is not a ${network.name} address`
      : `unknown address version byte 0x${version.toString(16)}`,
  );
}

export function isValidAddress(address: string, network: DogeNetwork): boolean {
  try {
    decodeAddress(address, network);
    return true;
  } catch {
    return false;
  }
}

export function addressToOutputScript(address: string, network: DogeNetwork): Uint8Array {
  const decoded = decodeAddress(address, network);
  return decoded.type === "pubkeyhash" ? p2pkhScript(decoded.hash) : p2shScript(decoded.hash);
}

/**
 * The address an output pays to, as dogecoind reports it: P2PKH and P2SH, and bare pay-to-pubkey
 * outputs reported as the P2PKH address of the key. Null for anything else.
 */
export function outputScriptToAddress(script: Uint8Array, network: DogeNetwork): string | null {
  const classified = classifyOutputScript(script);
  switch (classified.type) {
    case "pubkeyhash":
      return encodeAddress(classified.hash!, "pubkeyhash", network);
    case "scripthash":
      return encodeAddress(classified.hash!, "scripthash", network);
    case "pubkey":
      return encodeAddress(hash160(classified.pubkeys![0]), "pubkeyhash", network);
    default:
      return null;
  }
}

export interface DecodedWif {
  network: DogeNetwork;
  privateKey: Uint8Array;
  compressed: boolean;
}

export function encodeWif(privateKey: Uint8Array, network: DogeNetwork, compressed = true): string {
  if (privateKey.length !== 32) throw new AddressError("BAD_LENGTH", "private key must be 32 bytes");
  const parts = [Uint8Array.of(network.wif), privateKey];
  if (compressed) parts.push(Uint8Array.of(1));
  return base58CheckEncode(concatBytes(...parts));
}

export function decodeWif(wif: string, network?: DogeNetwork): DecodedWif {
  const payload = base58CheckDecode(wif);
  const candidates = network ? [network] : (["mainnet", "testnet", "regtest"] as NetworkName[]).map((n) => NETWORKS[n]);
  const match = candidates.find((n) => n.wif === payload[0]);
  if (!match) throw new AddressError("WRONG_NETWORK", `WIF version byte 0x${payload[0].toString(16)} does not match`);
  if (payload.length === 34 && payload[33] === 1)
    return { network: match, privateKey: payload.subarray(1, 33), compressed: true };
  if (payload.length === 33) return { network: match, privateKey: payload.subarray(1, 33), compressed: false };
  throw new AddressError("BAD_LENGTH", "WIF payload has the wrong length");
}

export function hashToHex(hash: Uint8Array): string {
  return bytesToHex(hash);
}
