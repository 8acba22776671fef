/**
 * The three Dogecoin networks and their version bytes (DESIGN.md 4.1; values as in Dogecoin Core's
 * src/chainparams.cpp base58Prefixes for main, testnet and regtest).
 */

export type NetworkName = "mainnet" | "testnet" | "regtest";

export interface DogeNetwork {
  readonly name: NetworkName;
  /** Version byte of P2PKH addresses. */
  readonly pubKeyHash: number;
  /** Version byte of P2SH addresses. */
  readonly scriptHash: number;
  /** Version byte of WIF private keys. */
  readonly wif: number;
  readonly bip32: { readonly public: number; readonly private: number };
  readonly messagePrefix: string;
}

export const MESSAGE_PREFIX = "\x19Dogecoin Signed Message:\n";

export const NETWORKS: Readonly<Record<NetworkName, DogeNetwork>> = Object.freeze({
  mainnet: {
    name: "mainnet",
    pubKeyHash: 0x1e,
    scriptHash: 0x16,
    wif: 0x9e,
    bip32: { public: 0x02facafd, private: 0x02fac398 },
    messagePrefix: MESSAGE_PREFIX,
  },
  testnet: {
    name: "testnet",
    pubKeyHash: 0x71,
    scriptHash: 0xc4,
    wif: 0xf1,
    bip32: { public: 0x043587cf, private: 0x04358394 },
    messagePrefix: MESSAGE_PREFIX,
  },
  regtest: {
    name: "regtest",
    pubKeyHash: 0x6f,
    scriptHash: 0xc4,
    wif: 0xef,
    bip32: { public: 0x043587cf, private: 0x04358394 },
    messagePrefix: MESSAGE_PREFIX,
  },
});

export function getNetwork(name: string): DogeNetwork {
  if (name === "main") name = "mainnet";
  if (name === "test") name = "testnet";
  const network = (NETWORKS as Record<string, DogeNetwork>)[name];
  if (!network) throw new Error(`unknown Dogecoin network "${name}" (expected mainnet, testnet or regtest)`);
  return network;
}

/**
 * The network object in the shape bitcoinjs-lib, ecpair and bip32 expect. Dogecoin has no segwit,
 * so bech32 gets a placeholder prefix that no Dogecoin address uses.
 */
export function toBitcoinjsNetwork(network: DogeNetwork) {
  return {
    messagePrefix: network.messagePrefix,
    bech32: `doge-${network.name}-no-bech32`,
    bip32: { public: network.bip32.public, private: network.bip32.private },
    pubKeyHash: network.pubKeyHash,
    scriptHash: network.scriptHash,
    wif: network.wif,
  };
}

/** 1 DOGE = 100,000,000 koinu. */
export const KOINU_PER_DOGE = 100_000_000n;
