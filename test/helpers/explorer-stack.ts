/**
 * The explorer's test stack over a devnet: the devnet daemon, one in-memory index of it, the
 * explorer's mempool view over the node and the index, and the explorer's Express app with that
 * view and no status cache, as the explorer daemon wires them. The Esplora and mempool suites
 * (test/services/esplora-api, esplora-wallet, explorer-mempool) start it and serve the app (or
 * their own arrangement around it) with `listen`; `{ mempool: false }` wires the explorer without a
 * mempool view (its mempool figures zero, as a daemon without one answers: explorer-esplora).
 */
import http from "node:http";
import type express from "express";
import { NETWORKS } from "../../src/doge";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createExplorerApp } from "../../src/services/explorer/app";
import { MempoolView } from "../../src/services/explorer/mempool";
import { RunningDevnet, startDevnet } from "./devnet";
import { newKey } from "./keys";

/** `V`: the mempool view, null in a stack started with `{ mempool: false }`. */
export interface ExplorerStack<V extends MempoolView | null = MempoolView> {
  devnet: RunningDevnet;
  /** The devnet's RPC as the explorer's node. */
  client: DogecoinRpcClient;
  indexer: Indexer;
  queries: IndexQueries;
  /** The explorer's mempool view; null when started with `{ mempool: false }`. */
  view: V;
  /** The explorer with `view` as its mempool (none when null) and `statusCacheMs` 0. */
  app: express.Express;
  /** Serves `handler` on an ephemeral port of 127.0.0.1 until `close`; its origin (http://127.0.0.1:<port>). */
  listen(handler: http.RequestListener): Promise<string>;
  /** Mines `blocks` (to a fresh address unless one is given) and indexes them; the block hashes. */
  mine(blocks?: number, address?: string): Promise<string[]>;
  /** Closes every server `listen` started and stops the devnet. */
  close(): Promise<void>;
}

/** The stack with the explorer's mempool view; with `{ mempool: false }`, an explorer without one. */
export async function startExplorerStack(): Promise<ExplorerStack>;
export async function startExplorerStack(options: { mempool: false }): Promise<ExplorerStack<null>>;
export async function startExplorerStack(
  options: { mempool?: false } = {},
): Promise<ExplorerStack<MempoolView | null>> {
  const devnet = await startDevnet();
  const client = new DogecoinRpcClient({ url: devnet.url });
  const db = openIndexerDatabase(":memory:");
  const indexer = new Indexer({
    store: new IndexerStore(db),
    source: new RpcChainSource(client),
    network: NETWORKS.regtest,
  });
  const queries = new IndexQueries(db);
  const view =
    options.mempool === false ? null : new MempoolView({ node: client, index: queries, network: NETWORKS.regtest });
  const app = createExplorerApp({
    queries,
    network: NETWORKS.regtest,
    node: client,
    statusCacheMs: 0,
    ...(view ? { mempool: view } : {}),
  });
  const servers: http.Server[] = [];
  return {
    devnet,
    client,
    indexer,
    queries,
    view,
    app,
    listen: async (handler) => {
      const server = http.createServer(handler);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    },
    mine: async (blocks = 1, address = newKey().address) => {
      const hashes = await devnet.rpc<string[]>("generatetoaddress", [blocks, address]);
      await indexer.syncOnce();
      return hashes;
    },
    close: async () => {
      for (const server of servers) server.close();
      await devnet.stop();
    },
  };
}
