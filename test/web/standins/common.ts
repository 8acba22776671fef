/**
 * What the wallet stand-ins share: a real regtest (or mainnet) key that signs, the explorer they read
 * balances from and broadcast through (the real wallets use their own servers), and the knobs a test
 * turns: methods left out (an older build without them), requests the person declines, and requests
 * never answered.
 * Test-only: bundled by test/web/standins/index.ts and injected into Chromium by the tests; never
 * served by the pages.
 */
import { Psbt } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  bytesToHex,
  decodeWif,
  getNetwork,
  privateKeyToPublicKey,
  publicKeyToAddress,
  signMessage,
  toBitcoinjsNetwork,
} from "../../../src/doge";

export interface StandinConfig {
  wif: string;
  network: string;
  explorerUrl: string;
  /** Methods this build does not have (deleted from the injected object). */
  omit?: string[];
  /** Methods whose request the person declines. */
  decline?: string[];
  /**
   * Methods whose first request is never answered: MyDoge's page script settles a request only on a
   * response carrying `data` or `error` (mydoge-com/mydogemask scripts/inject-script.js), so a popup
   * that goes away otherwise leaves the page's promise pending for good. Later requests are answered.
   */
  unanswered?: string[];
}

export function standinKey(config: StandinConfig) {
  const network = getNetwork(config.network);
  const { privateKey } = decodeWif(config.wif, network);
  const publicKey = privateKeyToPublicKey(privateKey);
  const address = publicKeyToAddress(publicKey, network);
  const btcNetwork = toBitcoinjsNetwork(network);
  const signer = {
    publicKey,
    sign: (hash: Uint8Array) => secp256k1.sign(hash, privateKey, { prehash: false, lowS: true }),
  };
  return {
    network,
    btcNetwork,
    address,
    /** The key as web/src/wallets/drc20-transfer.ts takes it (inscribes and sends DRC-20 transfers for real). */
    transferKey: { network, privateKey, publicKey, address, explorerUrl: config.explorerUrl },
    publicKeyHex: bytesToHex(publicKey),
    signer,
    signMessage: (text: string) => signMessage(text, privateKey),
    /** Signs `indexes` (every input when omitted) of a PSBT in hex; finalises them when asked. */
    signPsbtHex(hex: string, indexes: number[] | null, finalize: boolean): Psbt {
      const psbt = Psbt.fromHex(hex, { network: btcNetwork });
      psbt.setMaximumFeeRate(100_000_000);
      const targets = indexes ?? psbt.txInputs.map((_, i) => i);
      for (const i of targets) psbt.signInput(i, signer);
      if (finalize) for (const i of targets) psbt.finalizeInput(i);
      return psbt;
    },
  };
}

/** The address's balance by the test's explorer (zero for an address of another network, which that explorer refuses). */
export async function explorerBalance(config: StandinConfig, address: string) {
  const response = await fetch(`${config.explorerUrl}/api/wallet/address/${address}/balance`);
  const body = await response.json();
  if (!response.ok) return { confirmed: 0n, unconfirmed: 0n };
  return { confirmed: BigInt(body.confirmed_koinu), unconfirmed: BigInt(body.unconfirmed_koinu) };
}

export async function broadcast(config: StandinConfig, hex: string): Promise<string> {
  const response = await fetch(`${config.explorerUrl}/api/tx/broadcast`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ hex }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error?.message ?? `broadcast refused (HTTP ${response.status})`);
  return body.txid;
}

/** Drops the methods of `config.omit` from `target` (a build without them). */
export function omitMethods(target: object, config: StandinConfig): void {
  for (const name of config.omit ?? []) {
    // Methods live on the class's prototype: shadow them with undefined on the instance.
    Object.defineProperty(target, name, { value: undefined, configurable: true, enumerable: false });
  }
}

export const declines = (config: StandinConfig, method: string) => (config.decline ?? []).includes(method);

/** A promise that never settles, for the first request of each of `config.unanswered`; null otherwise. */
export function leftUnanswered(config: StandinConfig, method: string): Promise<never> | null {
  const index = (config.unanswered ?? []).indexOf(method);
  if (index === -1) return null;
  config.unanswered = config.unanswered!.filter((_, i) => i !== index);
  return new Promise<never>(() => {});
}

/** GET from the test's explorer, its JSON; a refusal throws its message. */
export async function explorerJson(config: StandinConfig, path: string): Promise<any> {
  const response = await fetch(`${config.explorerUrl}${path}`);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error?.message ?? `the explorer refused ${path} (HTTP ${response.status})`);
  return body;
}
