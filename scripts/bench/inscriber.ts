/**
 * npm run bench:inscriber: platform jobs through the real HTTP surface on a real devnet, the hot
 * wallet and a real index. Two phases:
 *   - burst: BENCH_JOBS (default 200) POST /inscribe at once; throughput = jobs / (first request to
 *     last reveal accepted by the node). Target >= 20 inscriptions per second.
 *   - paced: 20 requests per second for BENCH_SECONDS (default 10); latency = request to reveal
 *     accepted, per job. Target: median < 1 s.
 * The wallet is funded with one output per job beforehand (as an operator's fan-out keeps it), so
 * the figures measure the inscriber, not waiting for change to confirm.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createInscriberApp, sha256Hex } from "../../src/services/inscriber/app";
import { PlatformInscriber } from "../../src/services/inscriber/platform";
import { JobStore, openInscriberDatabase } from "../../src/services/inscriber/store";
import { UserSignedInscriber } from "../../src/services/inscriber/user-signed";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import { startDevnet } from "../../test/helpers/devnet";
import { newKey } from "../../test/helpers/keys";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { runEvery } from "../../src/ops/loop";

const KEY = "ik_bench";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function main(): Promise<void> {
  const burstJobs = Number(process.env.BENCH_JOBS ?? 200);
  const pacedSeconds = Number(process.env.BENCH_SECONDS ?? 10);
  const pacedRate = 20;
  const pacedJobs = pacedSeconds * pacedRate;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-inscriber-"));
  const devnet = await startDevnet();
  const client = new DogecoinRpcClient({ url: devnet.url });
  const indexDb = openIndexerDatabase(path.join(dir, "index.sqlite"));
  const indexer = new Indexer({
    store: new IndexerStore(indexDb),
    source: new RpcChainSource(client),
    network: NETWORKS.regtest,
  });
  const queries = new IndexQueries(indexDb);
  const key = newKey();
  const wallet = new HotWallet({
    db: openWalletDatabase(path.join(dir, "wallet.sqlite")),
    key,
    chain: indexNodeChain(queries, client),
    network: NETWORKS.regtest,
  });
  const revealedAt = new Map<string, number>();
  const db = openInscriberDatabase(path.join(dir, "inscriber.sqlite"));
  const jobs = new JobStore(db);
  const platform = new PlatformInscriber({
    store: jobs,
    wallet,
    network: NETWORKS.regtest,
    postageKoinu: 1_000_000n,
    feeRateKoinuPerKb: 1_000_000n,
    maxInFlight: 64,
    afterStep: (job, step) => {
      if (step === "revealed") revealedAt.set(job.id, performance.now());
    },
  });
  let stopLoop: () => Promise<void> = async () => undefined;
  const app = createInscriberApp({
    network: NETWORKS.regtest,
    projects: new Map([["bench", sha256Hex(KEY)]]),
    platform,
    jobs,
    maxPayloadBytes: 32_768,
    feeRateKoinuPerKb: 1_000_000n,
    postageKoinu: 1_000_000n,
    userSigned: new UserSignedInscriber({
      db,
      queries,
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: 1_000_000n,
      postageKoinu: 1_000_000n,
      rawTransactions: nodeRawTransactions(client),
    }),
  });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    process.stderr.write(`funding the hot wallet with ${burstJobs + pacedJobs} outputs...\n`);
    for (let i = 0; i < burstJobs + pacedJobs; i++) await devnet.rpc("devnet_faucet", [key.address, 10, false]);
    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    await indexer.syncOnce();
    await wallet.sync();
    const platformLoop = runEvery("inscriber_worker", 200, () => platform.runOnce());
    stopLoop = () => platformLoop.stop();

    const submit = async (i: number) => {
      const started = performance.now();
      const response = await fetch(`${base}/inscribe`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${KEY}` },
        body: JSON.stringify({
          project: "bench",
          content_type: "application/json",
          action: "LAUNCHPAD_MINT",
          content: JSON.stringify({ p: "service", op: "LAUNCHPAD_MINT", slug: "bench", id: String(i), max: "100000" }),
          recipient: newKey().address,
        }),
      });
      const body = (await response.json()) as { id: string };
      if (response.status !== 202)
        throw new Error(`POST /inscribe answered ${response.status}: ${JSON.stringify(body)}`);
      return { id: body.id, started };
    };
    const waitAll = async (ids: string[]) => {
      const deadline = Date.now() + 300_000;
      while (ids.some((id) => !revealedAt.has(id))) {
        const failed = ids.map((id) => jobs.get(id)!).find((job) => job.status === "failed");
        if (failed) throw new Error(`job ${failed.id} failed: ${failed.errorCode} ${failed.errorMessage}`);
        if (Date.now() > deadline) throw new Error("jobs did not reveal within 300 s");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    const burstStart = performance.now();
    const burst = await Promise.all(Array.from({ length: burstJobs }, (_, i) => submit(i)));
    await waitAll(burst.map((job) => job.id));
    const burstSeconds = (Math.max(...burst.map((job) => revealedAt.get(job.id)!)) - burstStart) / 1000;
    const rate = burstJobs / burstSeconds;

    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    const paced: { id: string; started: number }[] = [];
    const pacedStart = performance.now();
    for (let i = 0; i < pacedJobs; i++) {
      const due = pacedStart + (i * 1000) / pacedRate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      paced.push(await submit(burstJobs + i));
    }
    await waitAll(paced.map((job) => job.id));
    const latencies = paced.map((job) => revealedAt.get(job.id)! - job.started).sort((a, b) => a - b);
    const median = percentile(latencies, 0.5);

    const rateOk = rate >= 20;
    const latencyOk = median < 1000;
    process.stdout.write(
      `burst: ${burstJobs} jobs, commit+reveal broadcast in ${burstSeconds.toFixed(2)} s = ${rate.toFixed(1)} inscriptions/s (target >= 20) ${rateOk ? "ok" : "MISSED"}\n`,
    );
    process.stdout.write(
      `paced: ${pacedJobs} jobs at ${pacedRate}/s, request to reveal broadcast: median ${median.toFixed(0)} ms, p90 ${percentile(latencies, 0.9).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms, max ${latencies[latencies.length - 1].toFixed(0)} ms (target median < 1000 ms) ${latencyOk ? "ok" : "MISSED"}\n`,
    );
    process.exitCode = rateOk && latencyOk ? 0 : 1;
  } finally {
    await stopLoop();
    await platform.stop();
    server.close();
    await devnet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench:inscriber: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
