/**
 * The hot wallet's key: one compressed P2PKH key, from a key file or an environment variable,
 * never from the repository. Error messages never quote the key.
 */
import fs from "node:fs";
import { SecretError, loadSecret } from "../config/secret-file";
import path from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  AddressError,
  DogeNetwork,
  addressToOutputScript,
  decodeWif,
  encodeWif,
  privateKeyToPublicKey,
  publicKeyToAddress,
} from "../doge";
import { WalletKeyError } from "./errors";
import type { WalletKey } from "./types";

/** The environment variable read when no key file is given. */
export const DEFAULT_WALLET_KEY_ENV = "DOGEOS_WALLET_WIF";

export interface LoadWalletKeyOptions {
  /** A file holding one WIF (surrounding whitespace ignored). Must not be readable by group or others. */
  keyFile?: string;
  /** Environment to read `envVar` from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Variable holding a WIF (default DOGEOS_WALLET_WIF). */
  envVar?: string;
  network: DogeNetwork;
}

/** The wallet key of a private key on `network`. */
export function walletKeyFromPrivateKey(privateKey: Uint8Array, network: DogeNetwork): WalletKey {
  const publicKey = privateKeyToPublicKey(privateKey, true);
  const address = publicKeyToAddress(publicKey, network);
  return {
    privateKey: Uint8Array.from(privateKey),
    publicKey,
    address,
    script: addressToOutputScript(address, network),
  };
}

/** Decodes a WIF for `network`; `source` names where it came from in error messages. */
export function walletKeyFromWif(wif: string, network: DogeNetwork, source: string): WalletKey {
  if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(wif))
    throw new WalletKeyError("MALFORMED", `${source} does not hold a WIF private key (one base58 string)`);
  let decoded;
  try {
    decoded = decodeWif(wif);
  } catch (error) {
    const reason = error instanceof AddressError ? error.code : "BAD_WIF";
    throw new WalletKeyError("MALFORMED", `${source} does not hold a valid WIF private key (${reason})`);
  }
  if (decoded.network.name !== network.name) {
    throw new WalletKeyError(
      "WRONG_NETWORK",
      `${source} holds a ${decoded.network.name} key; this wallet runs on ${network.name}`,
    );
  }
  if (!decoded.compressed) {
    throw new WalletKeyError(
      "UNCOMPRESSED",
      `${source} holds an uncompressed key; the hot wallet signs with compressed keys only (export the key in compressed WIF form)`,
    );
  }
  if (!secp256k1.utils.isValidSecretKey(decoded.privateKey))
    throw new WalletKeyError("MALFORMED", `${source} holds an out-of-range private key`);
  return walletKeyFromPrivateKey(decoded.privateKey, network);
}

/**
 * Loads the wallet key. A key file, when given, is used (and the environment ignored); otherwise
 * the environment variable. A key file that group or others may read is refused (on POSIX
 * systems): `chmod 600` it. Refuses keys of another network and uncompressed keys.
 */
export function loadWalletKey(options: LoadWalletKeyOptions): WalletKey {
  const envVar = options.envVar ?? DEFAULT_WALLET_KEY_ENV;
  try {
    return loadSecret({
      what: "hot wallet key",
      file: options.keyFile,
      env: { name: envVar, from: options.env },
      hint: `give a key file (one WIF, mode 600) or set ${envVar} to a ${options.network.name} WIF`,
      parse: (wif, source) => walletKeyFromWif(wif, options.network, source),
    });
  } catch (error) {
    // The wallet's refusals keep their own class (with its reasons past the loader's: WRONG_NETWORK, UNCOMPRESSED).
    if (error instanceof SecretError) throw new WalletKeyError(error.code, error.message);
    throw error;
  }
}

/**
 * Writes a fresh random compressed key as a WIF (one line) to `file` with mode 0600, creating its
 * directory (mode 0700) if needed. Never overwrites an existing file. Returns the key.
 */
export function generateWalletKeyFile(file: string, network: DogeNetwork): WalletKey {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  const privateKey = secp256k1.utils.randomSecretKey();
  try {
    fs.writeFileSync(file, `${encodeWif(privateKey, network, true)}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new WalletKeyError("EXISTS", `the wallet key file ${file} already exists; refusing to overwrite a key`);
    throw error;
  }
  // The umask may have cleared bits of 0600 but never adds any; make the mode exact anyway.
  fs.chmodSync(file, 0o600);
  return walletKeyFromPrivateKey(privateKey, network);
}
