/** Shared pieces of the attester tests: in-process indexers over the devnet, coins, the contract set as deploy/deploy.ts wires it. */
import type { Server } from "node:http";
import type { Express } from "express";
import { ethers } from "hardhat";
import type { Contract, Wallet } from "ethers";
import { NETWORKS } from "../../src/doge";
import { attestationDomain } from "../../src/facts";
import type { AttestationDomain } from "../../src/facts";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { Indexer } from "../../src/indexer/indexer";
import { BlockRpc, RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createAttesterApp, ethersAttesterL2 } from "../../src/attester";
import type { AttesterAppOptions } from "../../src/attester";
import type { RunningDevnet } from "../helpers/devnet";
import type { Spendable, TestKey } from "../helpers/keys";
import { jsonRequest } from "../helpers/http";
import { listenLocal } from "../helpers/listen";

export const DOGE = 100_000_000n;

export function blockRpc(devnet: RunningDevnet): BlockRpc {
  return {
    getBlockCount: () => devnet.rpc<number>("getblockcount"),
    getBlockHash: (height) => devnet.rpc<string>("getblockhash", [height]),
    getBlockHex: (hash) => devnet.rpc<string>("getblock", [hash, false]),
  };
}

/** An indexer with its own in-memory database over the devnet, and the history view an attester reads. */
export function newIndex(devnet: RunningDevnet): { indexer: Indexer; history: IndexHistory } {
  const db = openIndexerDatabase(":memory:");
  const indexer = new Indexer({
    store: new IndexerStore(db),
    source: new RpcChainSource(blockRpc(devnet)),
    network: NETWORKS.regtest,
  });
  return { indexer, history: new IndexHistory(db) };
}

/** A key's coins, spent in turn. */
export class Purse {
  constructor(
    readonly key: TestKey,
    private readonly coins: Spendable[] = [],
  ) {}
  take(minimumKoinu = 0n): Spendable {
    const index = this.coins.findIndex((coin) => coin.value >= minimumKoinu);
    if (index < 0) throw new Error(`${this.key.address} has no coin of ${minimumKoinu} koinu left`);
    return this.coins.splice(index, 1)[0];
  }
  give(coin: Spendable | null | undefined): void {
    if (coin) this.coins.push(coin);
  }
}

/** The contract set as deploy/deploy.ts wires it: DogeAttestation with `attesters`, DogeInscriber and DogeAnchor settling through it. */
export async function deployContracts(attesters: readonly Wallet[]): Promise<{
  attestation: Contract;
  inscriber: Contract;
  anchor: Contract;
  domain: AttestationDomain;
  chainId: bigint;
}> {
  const [deployer] = await ethers.getSigners();
  const plugs = await ethers.deployContract("PlugsMarketplace");
  const sorted = attesters.map((w) => w.address).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  const attestation = await ethers.deployContract("DogeAttestation", [
    deployer.address,
    deployer.address,
    deployer.address,
    sorted,
    3600,
    await plugs.getAddress(),
  ]);
  const args = [await attestation.getAddress(), deployer.address, deployer.address, deployer.address, 3600] as const;
  const inscriber = await ethers.deployContract("DogeInscriber", [...args]);
  const anchor = await ethers.deployContract("DogeAnchor", [...args]);
  const { chainId } = await ethers.provider.getNetwork();
  return {
    attestation,
    inscriber,
    anchor,
    chainId,
    domain: attestationDomain(chainId, await attestation.getAddress()),
  };
}

export interface RunningAttester {
  url: string;
  /** The attester's Express app (its surface: surfaceOf(app)). */
  app: Express;
  server: Server;
  close(): Promise<void>;
}

/** An attester app on an ephemeral port over the in-process Hardhat network. */
export async function startAttester(
  options: Omit<AttesterAppOptions, "l2" | "network" | "domain"> & {
    attestationAddress: string;
    chainId: bigint;
    domain?: AttestationDomain;
    l2?: AttesterAppOptions["l2"];
  },
): Promise<RunningAttester> {
  const app = createAttesterApp({
    ...options,
    network: NETWORKS.regtest,
    domain: options.domain ?? attestationDomain(options.chainId, options.attestationAddress),
    l2: options.l2 ?? ethersAttesterL2(ethers.provider, options.attestationAddress),
  });
  const { server } = await listenLocal(app);
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** JSON over HTTP: status and parsed body. */
export function call(
  url: string,
  method: "GET" | "POST" = "GET",
  body?: unknown,
): Promise<{ status: number; body: any }> {
  return jsonRequest(url, method, { body });
}

/** Unix seconds now. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);
