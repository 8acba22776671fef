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
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { JsonRpcServer } from "hardhat/internal/hardhat-network/jsonrpc/server";
import { Contract, Wallet, keccak256, toUtf8Bytes } from "ethers";
import { NETWORKS } from "../../src/doge";
import { tickKey } from "../../src/facts";
import { encodeDrc20, encodeLaunchpadDeploy, encodeLaunchpadMint } from "../../src/inscription";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { FactRequestFulfiller } from "../../src/relayer/fact-requests";
import { createAttestApp } from "../../src/services/attest-api/app";
import { AttesterPanel } from "../../src/services/attest-api/panel";
import { createExplorerApp } from "../../src/services/explorer/app";
import { createLaunchpadApp, openLaunchpadDatabase } from "../../src/services/launchpad";
import { indexEntry, indexFileText, PUBLISHED_CONTRACTS, ABI_DIR } from "../../deploy/contracts";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { InscribeResult, inscribeDoginals, inscribeV1 } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { DOGE, Purse, RunningAttester, blockRpc, startAttester } from "../attester/helpers";

export const KIT_SLUG = "kit-pups";
export const KIT_TICK = "kitw";
const TEXT = "text/plain;charset=utf-8";

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
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

export async function startKitStack(): Promise<KitStack> {
  const savedDataDir = process.env.DOGEOS_DATA_DIR;
  const devnet = await startDevnet();
  const db = openIndexerDatabase(":memory:");
  const indexer = new Indexer({
    store: new IndexerStore(db),
    source: new RpcChainSource(blockRpc(devnet)),
    network: NETWORKS.regtest,
  });
  const miner = newKey();
  const mine = async (blocks = 1) => {
    await devnet.rpc("generatetoaddress", [blocks, miner.address]);
    await indexer.syncOnce();
  };

  const alice = newKey();
  const holder = newKey();
  const stranger = newKey();
  const purse = new Purse(alice);
  for (let i = 0; i < 4; i++)
    purse.give({
      txid: (await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 100, false])).txid,
      vout: 0,
      value: 100n * DOGE,
    });
  await mine();
  const inscribe = async (make: (coin: ReturnType<Purse["take"]>) => Promise<InscribeResult>) => {
    const result = await make(purse.take(10n * DOGE));
    purse.give(result.change);
    await mine();
  };
  const tk = tickKey(KIT_TICK);
  await inscribe((coin) =>
    inscribeDoginals(
      devnet,
      alice,
      coin,
      {
        contentType: TEXT,
        body: encodeDrc20({ kind: "deploy", tick: KIT_TICK, tickKey: tk, maxSupply: 1_000_000n, mintLimit: 1_000n }),
      },
      alice.script,
    ),
  );
  await inscribe((coin) =>
    inscribeDoginals(
      devnet,
      alice,
      coin,
      { contentType: TEXT, body: encodeDrc20({ kind: "mint", tick: KIT_TICK, tickKey: tk, amount: 700n }) },
      alice.script,
    ),
  );
  await inscribe((coin) =>
    inscribeV1(
      devnet,
      alice,
      coin,
      {
        contentType: "application/json",
        action: "LAUNCHPAD_DEPLOY",
        body: encodeLaunchpadDeploy({ slug: KIT_SLUG, name: "Kit Pups", priceKoinu: 0n, maxSupply: 10n }),
      },
      alice.script,
    ),
  );
  await inscribe((coin) =>
    inscribeV1(
      devnet,
      alice,
      coin,
      {
        contentType: "application/json",
        action: "LAUNCHPAD_MINT",
        body: encodeLaunchpadMint({ slug: KIT_SLUG, tokenId: 1n, maxSupply: 10n }),
      },
      holder.script,
    ),
  );
  await mine(6);

  // The contract set as deploy/deploy.ts wires it, with the deploy block and transaction of each.
  const attesterKeys = [1, 2, 3].map((n) => new Wallet(keccak256(toUtf8Bytes(`dapp kit test attester ${n}`))));
  const [deployer, relayer] = await ethers.getSigners();
  const records: Record<string, { address: string; deployBlock: number; deployTx: string }> = {};
  const deploy = async (name: string, args: unknown[]): Promise<Contract> => {
    const contract = (await ethers.deployContract(name, args)) as unknown as Contract;
    const receipt = (await contract.deploymentTransaction()!.wait())!;
    records[name] = { address: await contract.getAddress(), deployBlock: receipt.blockNumber, deployTx: receipt.hash };
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
  const { chainId } = await ethers.provider.getNetwork();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "dapp-kit-"));
  fs.mkdirSync(path.join(dataDir, "abi"));
  fs.writeFileSync(
    path.join(dataDir, "abi", "index.json"),
    indexFileText({ [String(chainId)]: indexEntry(records as never) }),
  );
  for (const name of PUBLISHED_CONTRACTS)
    fs.copyFileSync(path.join(ABI_DIR, `${name}.json`), path.join(dataDir, "abi", `${name}.json`));
  process.env.DOGEOS_DATA_DIR = dataDir;

  const clockOffset = Math.max(0, (await time.latest()) - Math.floor(Date.now() / 1000));
  const clock = () => Math.floor(Date.now() / 1000) + clockOffset;
  const attestationAddress = await attestation.getAddress();
  const history = new IndexHistory(db);
  const attesters: RunningAttester[] = await Promise.all(
    attesterKeys.map((signer, i) =>
      startAttester({ name: `attester-${i + 1}`, history, signer, attestationAddress, chainId, clock }),
    ),
  );
  const panel = new AttesterPanel({
    attesters: attesters.map((a) => a.url),
    timeoutMs: 3000,
    nowSeconds: clock,
    infoCacheMs: 0,
    answerCacheMs: 0,
  });
  const fulfiller = new FactRequestFulfiller({ attestation: attestation.connect(relayer) as Contract, panel });
  const queries = new IndexQueries(db);
  const servers: Server[] = [];
  const serve = async (app: express.Express) => {
    const { origin, server } = await listen(app);
    servers.push(server);
    return origin;
  };
  const attestOrigin = await serve(
    createAttestApp({
      panel,
      queries,
      network: NETWORKS.regtest,
      minConfirmations: 6,
      fulfil: ({ requestId, params }) => fulfiller.fulfil(requestId, params),
    }),
  );
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
    attestOrigin,
    explorerOrigin,
    launchpadOrigin,
    dataDir,
    mine,
    clock,
    close: async () => {
      await rpcServer.close().catch(() => undefined);
      for (const server of servers) {
        server.close();
        server.closeAllConnections();
      }
      for (const attester of attesters) await attester.close().catch(() => undefined);
      await devnet.stop();
      if (savedDataDir === undefined) delete process.env.DOGEOS_DATA_DIR;
      else process.env.DOGEOS_DATA_DIR = savedDataDir;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
