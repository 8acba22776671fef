/**
 * The dapp kit's tests' stack (test/kit/): what `npm start` runs for a dapp team, in one process
 * and sized for a fast suite. A devnet with a small history (a launchpad collection with one token
 * held by `holder`, a DRC-20 with 700 held by `alice`), one index of it that three attesters with
 * their own keys sign from, the real contract set on the in-process Hardhat network (served over
 * JSON-RPC like `npm start`'s L2), the attest API with the relayer's fulfilment of paid requests,
 * the explorer and the launchpad, and the ABI index recording the local deployment
 * (DOGEOS_DATA_DIR/abi/index.json, served by every daemon at /shared/abi/index.json).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import type express from "express";
import hre, { ethers } from "hardhat";
import { JsonRpcServer } from "hardhat/internal/hardhat-network/jsonrpc/server";
import type { Contract, Wallet } from "ethers";
import { NETWORKS } from "../../src/doge";
import { createExplorerApp } from "../../src/services/explorer/app";
import { createLaunchpadApp, openLaunchpadDatabase } from "../../src/services/launchpad";
import { indexEntry, indexFileText, PUBLISHED_CONTRACTS, ABI_DIR } from "../../deploy/contracts";
import { startAttestStack } from "../helpers/attest-stack";
import type { RunningDevnet } from "../helpers/devnet";
import { TestKey, newKey } from "../helpers/keys";
import { listenLocal } from "../helpers/listen";

export const KIT_SLUG = "kit-pups";
export const KIT_TICK = "kitw";

export interface KitStack {
  devnet: RunningDevnet;
  attestation: Contract;
  chainId: bigint;
  attesterKeys: Wallet[];
  /** Holds one token of KIT_SLUG. */
  holder: TestKey;
  /** Holds 700 KIT_TICK. */
  alice: TestKey;
  /** Holds nothing. */
  stranger: TestKey;
  l2Url: string;
  attestOrigin: string;
  explorerOrigin: string;
  launchpadOrigin: string;
  dataDir: string;
  /** Mines `blocks` on the devnet and indexes them. */
  mine(blocks?: number): Promise<void>;
  /** Unix seconds as the attesters see them (the Hardhat chain's time may run ahead of the wall clock). */
  clock(): number;
  close(): Promise<void>;
}

async function listen(app: express.Express): Promise<{ origin: string; server: Server }> {
  const { server, base } = await listenLocal(app);
  return { origin: base, server };
}

export async function startKitStack(): Promise<KitStack> {
  const savedDataDir = process.env.DOGEOS_DATA_DIR;
  const holder = newKey();
  const stranger = newKey();
  // The contract set as deploy/deploy.ts wires it, with the deploy block and transaction of each.
  const records: Record<string, { address: string; deployBlock: number; deployTx: string }> = {};
  const deployKit = async (attesterKeys: Wallet[]): Promise<Contract> => {
    const [deployer] = await ethers.getSigners();
    const deploy = async (name: string, args: unknown[]): Promise<Contract> => {
      const contract = (await ethers.deployContract(name, args)) as unknown as Contract;
      const receipt = (await contract.deploymentTransaction()!.wait())!;
      records[name] = {
        address: await contract.getAddress(),
        deployBlock: receipt.blockNumber,
        deployTx: receipt.hash,
      };
      return contract;
    };
    const plugs = await deploy("PlugsMarketplace", []);
    const sorted = attesterKeys.map((w) => w.address).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const attestation = await deploy("DogeAttestation", [
      deployer.address,
      deployer.address,
      deployer.address,
      sorted,
      3600,
      await plugs.getAddress(),
    ]);
    const jobArgs = [await attestation.getAddress(), deployer.address, deployer.address, deployer.address, 3600];
    await deploy("EnvelopeHelper", []);
    await deploy("DogeInscriber", jobArgs);
    await deploy("DogeAnchor", jobArgs);
    return attestation;
  };
  // One index of the devnet that the three attesters sign from and the API, the explorer and the
  // launchpad read.
  const stack = await startAttestStack({
    attesterSeed: "dapp kit test attester",
    coins: 4,
    indexes: "shared",
    history: async (chain) => {
      await chain.drc20(KIT_TICK, 700n);
      await chain.collection(KIT_SLUG, "Kit Pups", 1n, holder);
      await chain.mine(6);
    },
    deploy: deployKit,
  });
  const { devnet, attestation, chainId, attesterKeys, alice, queries } = stack;

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "dapp-kit-"));
  fs.mkdirSync(path.join(dataDir, "abi"));
  fs.writeFileSync(
    path.join(dataDir, "abi", "index.json"),
    indexFileText({ [String(chainId)]: indexEntry(records as never) }),
  );
  for (const name of PUBLISHED_CONTRACTS)
    fs.copyFileSync(path.join(ABI_DIR, `${name}.json`), path.join(dataDir, "abi", `${name}.json`));
  process.env.DOGEOS_DATA_DIR = dataDir;

  const servers: Server[] = [];
  const serve = async (app: express.Express) => {
    const { origin, server } = await listen(app);
    servers.push(server);
    return origin;
  };
  const explorerOrigin = await serve(
    createExplorerApp({ queries, network: NETWORKS.regtest, node: { sendRawTransaction: async () => "" } }),
  );
  const launchpadOrigin = await serve(
    createLaunchpadApp({ db: openLaunchpadDatabase(":memory:"), queries, network: NETWORKS.regtest }),
  );
  // The L2 over JSON-RPC, as `npm start`'s Hardhat node serves it.
  const rpcServer = new JsonRpcServer({ hostname: "127.0.0.1", port: 0, provider: hre.network.provider });
  const { port: rpcPort } = await rpcServer.listen();

  return {
    devnet,
    attestation,
    chainId,
    attesterKeys,
    holder,
    alice,
    stranger,
    l2Url: `http://127.0.0.1:${rpcPort}`,
    attestOrigin: stack.origin,
    explorerOrigin,
    launchpadOrigin,
    dataDir,
    mine: (blocks) => stack.mine(blocks),
    clock: stack.clock,
    close: async () => {
      await rpcServer.close().catch(() => undefined);
      for (const server of servers) {
        server.close();
        server.closeAllConnections();
      }
      await stack.close();
      if (savedDataDir === undefined) delete process.env.DOGEOS_DATA_DIR;
      else process.env.DOGEOS_DATA_DIR = savedDataDir;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
