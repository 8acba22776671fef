/**
 * The attest API's test stack: a devnet with a history the suite writes, indexes of it, three
 * attesters with their own keys over the contract set on the in-process Hardhat network, an
 * attester panel, and the attest API in front of them with the relayer's fulfilment of paid
 * requests. test/services/attest.test.ts runs it with an index per attester (its faults hold back
 * or corrupt one attester's) and the dapp kit's stack (test/kit/stack.ts) with one index for all.
 */
import http from "node:http";
import type express from "express";
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { Contract, Wallet, keccak256, toUtf8Bytes } from "ethers";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
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
import { DOGE, Purse, RunningAttester, blockRpc, deployContracts, startAttester } from "../attester/helpers";
import { RunningDevnet, startDevnet } from "./devnet";
import { InscribeResult, inscribeDoginals, inscribeV1 } from "./inscribe";
import { Spendable, TestKey, newKey } from "./keys";

const TEXT = "text/plain;charset=utf-8";

/** The devnet while the suite writes its history: alice's coins and one block per inscription. */
export interface AttestHistory {
  devnet: RunningDevnet;
  /** Holds the faucet's coins of 100 DOGE each (confirmed). */
  alice: TestKey;
  purse: Purse;
  /** Mines `blocks` and indexes them. */
  mine(blocks?: number): Promise<void>;
  /** `make` inscribes with a coin of at least 10 DOGE of alice's; its change goes back to the purse; one block. */
  inscribe(make: (coin: Spendable) => Promise<InscribeResult>): Promise<InscribeResult>;
  /** alice deploys the DRC-20 `tick` (max 1,000,000, mint limit 1,000) and mints `amount` to herself. */
  drc20(tick: string, amount: bigint): Promise<void>;
  /** alice deploys the free launchpad collection `slug` (at most 10) and mints `tokenId` of it to `holder`. */
  collection(slug: string, name: string, tokenId: bigint, holder: TestKey): Promise<void>;
}

export interface AttestStackOptions {
  /** The attesters' keys are keccak256 of `${attesterSeed} 1`, `... 2` and `... 3`. */
  attesterSeed: string;
  /** Faucet coins of 100 DOGE for alice before the history. */
  coins: number;
  /**
   * "shared": one index that the three attesters and the API read; "separate": an index per
   * attester (indexes 0-2) and the API's own (index 3, read through the node's RPC client).
   */
  indexes: "shared" | "separate";
  /** Writes the suite's history (six blocks deep when it returns, if the attesters are to sign it). */
  history(chain: AttestHistory): Promise<void>;
  /** Deploys the contract set for the attesters, returning DogeAttestation (default: deployContracts). */
  deploy?(attesterKeys: Wallet[]): Promise<Contract>;
}

export interface AttestStack {
  devnet: RunningDevnet;
  alice: TestKey;
  purse: Purse;
  /** The index databases and their indexers: one ("shared") or four ("separate", the API's last). */
  dbs: ReturnType<typeof openIndexerDatabase>[];
  indexers: Indexer[];
  /** The queries the attest API reads. */
  queries: IndexQueries;
  attesterKeys: Wallet[];
  attesters: RunningAttester[];
  attestation: Contract;
  chainId: bigint;
  /** The API's attester panel (no caches). */
  panel: AttesterPanel;
  app: express.Express;
  /** http://127.0.0.1:<port> of the attest API. */
  origin: string;
  /** Unix seconds as the attesters see them: the wall clock, moved to the Hardhat chain's time when that runs ahead. */
  clock(): number;
  /** Moves `clock` on by `seconds` (after the suite moved the Hardhat chain's time). */
  advanceClock(seconds: number): void;
  /** A panel over `urls` on `clock`, with no caches and a 3 s timeout. */
  panelFor(urls: string[]): AttesterPanel;
  /** Indexes what the devnet has, in the indexes `which` (default all). */
  sync(which?: number[]): Promise<void>;
  /** Mines `blocks` and indexes them in the indexes `which` (default all). */
  mine(blocks?: number, which?: number[]): Promise<void>;
  /** Stops the API, the attesters and the devnet. */
  close(): Promise<void>;
}

export async function startAttestStack(options: AttestStackOptions): Promise<AttestStack> {
  const devnet = await startDevnet();
  const separate = options.indexes === "separate";
  const dbs: ReturnType<typeof openIndexerDatabase>[] = [];
  const indexers: Indexer[] = [];
  for (let i = 0; i < (separate ? 4 : 1); i++) {
    const db = openIndexerDatabase(":memory:");
    dbs.push(db);
    indexers.push(
      new Indexer({
        store: new IndexerStore(db),
        source:
          separate && i === 3
            ? new RpcChainSource(new DogecoinRpcClient({ url: devnet.url }))
            : new RpcChainSource(blockRpc(devnet)),
        network: NETWORKS.regtest,
      }),
    );
  }
  const sync = async (which = indexers.map((_, i) => i)) => {
    for (const i of which) await indexers[i].syncOnce();
  };
  const miner = newKey();
  const mine = async (blocks = 1, which?: number[]) => {
    await devnet.rpc("generatetoaddress", [blocks, miner.address]);
    await sync(which);
  };

  const alice = newKey();
  const purse = new Purse(alice);
  for (let i = 0; i < options.coins; i++)
    purse.give({
      txid: (await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 100, false])).txid,
      vout: 0,
      value: 100n * DOGE,
    });
  await mine();
  const inscribe: AttestHistory["inscribe"] = async (make) => {
    const result = await make(purse.take(10n * DOGE));
    purse.give(result.change);
    await mine();
    return result;
  };
  await options.history({
    devnet,
    alice,
    purse,
    mine: (blocks) => mine(blocks),
    inscribe,
    drc20: async (tick, amount) => {
      const tk = tickKey(tick);
      const drc20 = (body: Uint8Array) => (coin: Spendable) =>
        inscribeDoginals(devnet, alice, coin, { contentType: TEXT, body }, alice.script);
      await inscribe(
        drc20(encodeDrc20({ kind: "deploy", tick, tickKey: tk, maxSupply: 1_000_000n, mintLimit: 1_000n })),
      );
      await inscribe(drc20(encodeDrc20({ kind: "mint", tick, tickKey: tk, amount })));
    },
    collection: async (slug, name, tokenId, holder) => {
      const launchpad = (action: string, body: Uint8Array, recipient: TestKey) => (coin: Spendable) =>
        inscribeV1(devnet, alice, coin, { contentType: "application/json", action, body }, recipient.script);
      await inscribe(
        launchpad("LAUNCHPAD_DEPLOY", encodeLaunchpadDeploy({ slug, name, priceKoinu: 0n, maxSupply: 10n }), alice),
      );
      await inscribe(launchpad("LAUNCHPAD_MINT", encodeLaunchpadMint({ slug, tokenId, maxSupply: 10n }), holder));
    },
  });

  const attesterKeys = [1, 2, 3].map((n) => new Wallet(keccak256(toUtf8Bytes(`${options.attesterSeed} ${n}`))));
  const attestation = options.deploy
    ? await options.deploy(attesterKeys)
    : (await deployContracts(attesterKeys)).attestation;
  const { chainId } = await ethers.provider.getNetwork();
  // The in-process Hardhat chain may run ahead of the wall clock (other test files move its time):
  // the attesters' and the panel's clocks follow it, as they would follow a real L2's time.
  let clockOffset = Math.max(0, (await time.latest()) - Math.floor(Date.now() / 1000));
  const clock = () => Math.floor(Date.now() / 1000) + clockOffset;
  const panelFor = (urls: string[]) =>
    new AttesterPanel({ attesters: urls, timeoutMs: 3000, nowSeconds: clock, infoCacheMs: 0, answerCacheMs: 0 });
  const attestationAddress = await attestation.getAddress();
  const histories = dbs.slice(0, 3).map((db) => new IndexHistory(db));
  const attesters = await Promise.all(
    attesterKeys.map((signer, i) =>
      startAttester({
        name: `attester-${i + 1}`,
        history: histories[separate ? i : 0],
        signer,
        attestationAddress,
        chainId,
        clock,
      }),
    ),
  );
  const [, relayer] = await ethers.getSigners();
  const panel = panelFor(attesters.map((a) => a.url));
  const fulfiller = new FactRequestFulfiller({ attestation: attestation.connect(relayer) as Contract, panel });
  const queries = new IndexQueries(dbs[dbs.length - 1]);
  const app = createAttestApp({
    panel,
    queries,
    network: NETWORKS.regtest,
    minConfirmations: 6,
    fulfil: ({ requestId, params }) => fulfiller.fulfil(requestId, params),
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    devnet,
    alice,
    purse,
    dbs,
    indexers,
    queries,
    attesterKeys,
    attesters,
    attestation,
    chainId,
    panel,
    app,
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    clock,
    advanceClock: (seconds) => {
      clockOffset += seconds;
    },
    panelFor,
    sync,
    mine,
    close: async () => {
      server.close();
      server.closeAllConnections();
      for (const attester of attesters) await attester.close().catch(() => undefined);
      await devnet.stop();
    },
  };
}
