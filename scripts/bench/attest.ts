/**
 * npm run bench:attest: the attestation path as operators run it, every part its own process on
 * this machine: a devnet, a Hardhat node as the L2 with the contracts deployed, three indexes of the
 * devnet, three attester daemons, and the attest API daemon (with a relayer key). Prints:
 *   1. one attester's signed facts per second (POST /v1/fact under autocannon; target >= 1,000);
 *   2. signed facts per second end to end through GET /api/attest/doge-balance (target >= 500);
 *   3. paid requests: requestFact on the L2, then POST /api/attest/fulfill; time from the POST to
 *      the fulfilment mined, median and p95 over BENCH_REQUESTS (default 50; target within 3 s).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ChildProcess, spawn } from "node:child_process";
import { Contract, ContractFactory, JsonRpcProvider, NonceManager, Wallet } from "ethers";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon");
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { NETWORKS, encodeAddress, sha256 } from "../../src/doge";
import { FACT_TYPE_KEYS, ZERO_KEY, addressKey } from "../../src/facts";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { spawnDaemon, SpawnedDaemon } from "../../test/helpers/daemon";
import { startDevnet } from "../../test/helpers/devnet";
import { newKey } from "../../test/helpers/keys";

const ROOT = path.resolve(__dirname, "..", "..");
const L2_PORT = Number(process.env.BENCH_L2_PORT ?? 18545);
/** Hardhat's first default accounts (public test keys). */
const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const RELAYER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const REQUESTER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";

function artifact(dir: string, name: string): { abi: unknown[]; bytecode: string } {
  return JSON.parse(
    fs.readFileSync(path.join(ROOT, "artifacts", "contracts", dir, `${name}.sol`, `${name}.json`), "utf8"),
  );
}

function cannon(
  options: Record<string, unknown>,
): Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }> {
  return new Promise((resolve, reject) =>
    autocannon(options, (error: Error | null, result: never) => (error ? reject(error) : resolve(result))),
  );
}

async function startL2(): Promise<ChildProcess> {
  const cli = require.resolve("hardhat/internal/cli/cli.js");
  const child = spawn(process.execPath, [cli, "node", "--hostname", "127.0.0.1", "--port", String(L2_PORT)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("the Hardhat node did not start in 60 s")), 60_000);
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      if (out.includes("Started HTTP")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`the Hardhat node exited with ${code}`)));
  });
  return child;
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const requests = Number(process.env.BENCH_REQUESTS ?? 50);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-attest-"));
  const daemons: SpawnedDaemon[] = [];
  const devnet = await startDevnet();
  let l2: ChildProcess | null = null;
  try {
    process.stderr.write("building a devnet history and three indexes...\n");
    const holders = Array.from({ length: 20 }, () => newKey());
    for (const holder of holders) await devnet.rpc("devnet_faucet", [holder.address, 10, false]);
    await devnet.rpc("generatetoaddress", [7, newKey().address]);
    const client = new DogecoinRpcClient({ url: devnet.url });
    const indexFiles = [1, 2, 3].map((n) => path.join(dir, `index-${n}.sqlite`));
    for (const file of indexFiles) {
      const db = openIndexerDatabase(file);
      await new Indexer({
        store: new IndexerStore(db),
        source: new RpcChainSource(client),
        network: NETWORKS.regtest,
      }).syncOnce();
      db.close();
    }

    process.stderr.write("starting the L2 and deploying...\n");
    l2 = await startL2();
    const provider = new JsonRpcProvider(`http://127.0.0.1:${L2_PORT}`, undefined, {
      staticNetwork: true,
      pollingInterval: 100,
    });
    const deployer = new NonceManager(new Wallet(DEPLOYER_KEY, provider));
    const attesterKeys = [1, 2, 3].map(() => Wallet.createRandom());
    const sorted = attesterKeys.map((w) => w.address).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const plugsArtifact = artifact("plugs", "PlugsMarketplace");
    const plugs = await new ContractFactory(plugsArtifact.abi as never, plugsArtifact.bytecode, deployer).deploy();
    await plugs.waitForDeployment();
    const attestationArtifact = artifact("attestation", "DogeAttestation");
    const admin = await deployer.getAddress();
    const attestation = await new ContractFactory(
      attestationArtifact.abi as never,
      attestationArtifact.bytecode,
      deployer,
    ).deploy(admin, admin, admin, sorted, 3600, await plugs.getAddress());
    await attestation.waitForDeployment();
    const attestationAddress = await attestation.getAddress();

    for (let n = 1; n <= 3; n++) {
      const keyFile = path.join(dir, `attester-${n}.key`);
      fs.writeFileSync(keyFile, `${attesterKeys[n - 1].privateKey}\n`, { mode: 0o600 });
      daemons.push(
        await spawnDaemon(
          "daemons/attester/main.ts",
          [
            "--index-db",
            indexFiles[n - 1],
            "--l2-rpc-url",
            `http://127.0.0.1:${L2_PORT}`,
            "--attestation-address",
            attestationAddress,
            "--chain-id",
            "31337",
            "--key-file",
            keyFile,
            "--port",
            "0",
            "--name",
            `attester-${n}`,
          ],
          `attester-${n}`,
        ),
      );
    }
    const relayerKeyFile = path.join(dir, "relayer.key");
    fs.writeFileSync(relayerKeyFile, `${RELAYER_KEY}\n`, { mode: 0o600 });
    const api = await spawnDaemon(
      "daemons/attest-api/main.ts",
      [
        "--attesters",
        daemons.map((d) => d.url).join(","),
        "--index-db",
        indexFiles[0],
        "--l2-rpc-url",
        `http://127.0.0.1:${L2_PORT}`,
        "--attestation-address",
        attestationAddress,
        "--relayer-key-file",
        relayerKeyFile,
        "--port",
        "0",
      ],
      "attest",
    );
    daemons.push(api);

    // 1. One attester signing.
    const info = (await (await fetch(`${daemons[0].url}/v1/info`)).json()) as {
      signable_height: number;
      attester_set_id: string;
    };
    const body = JSON.stringify({
      type: "DOGE_BALANCE",
      params: { address: holders[0].address },
      l1_height: info.signable_height,
      attested_at: Math.floor(Date.now() / 1000),
      attester_set_id: info.attester_set_id,
    });
    const signing = await cannon({
      url: `${daemons[0].url}/v1/fact`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      connections: 8,
      duration: seconds,
    });
    const signingOk = signing.requests.average >= 1000 && signing.non2xx === 0;
    process.stdout.write(
      `one attester, POST /v1/fact: ${signing.requests.average.toFixed(0)} signed facts/s, p50 ${signing.latency.p50} ms, p99 ${signing.latency.p99} ms, non-2xx ${signing.non2xx} (target >= 1000) ${signingOk ? "ok" : "MISSED"}\n`,
    );

    // 2. End to end through the attest API: subjects from a pool of 20 (a signed fact is handed out
    // again for 3 s at the same height), then a new subject on every request (every fact signed).
    const apiPath = new URL(api.url).pathname;
    const cycle = (addresses: string[]) => {
      let i = 0;
      return [
        {
          method: "GET",
          setupRequest: (request: { path: string }) => ({
            ...request,
            path: `${apiPath}/doge-balance?address=${addresses[i++ % addresses.length]}`,
          }),
        },
      ];
    };
    const pool = await cannon({
      url: api.url,
      requests: cycle(holders.map((h) => h.address)),
      connections: 16,
      duration: seconds,
    });
    const e2eOk = pool.requests.average >= 500 && pool.non2xx === 0;
    process.stdout.write(
      `attest API, GET /doge-balance over 20 addresses: ${pool.requests.average.toFixed(0)} facts/s, p50 ${pool.latency.p50} ms, p99 ${pool.latency.p99} ms, non-2xx ${pool.non2xx} (target >= 500) ${e2eOk ? "ok" : "MISSED"}\n`,
    );
    const unique = Array.from({ length: 200_000 }, (_, i) =>
      encodeAddress(sha256(Buffer.from(`bench address ${i}`)).subarray(0, 20), "pubkeyhash", NETWORKS.regtest),
    );
    const fresh = await cannon({ url: api.url, requests: cycle(unique), connections: 16, duration: seconds });
    process.stdout.write(
      `attest API, GET /doge-balance with a new address every request (2 attesters sign each): ${fresh.requests.average.toFixed(0)} facts/s, p50 ${fresh.latency.p50} ms, p99 ${fresh.latency.p99} ms, non-2xx ${fresh.non2xx} (target >= 500) ${fresh.requests.average >= 500 ? "ok" : "MISSED"}\n`,
    );

    // 3. Paid requests fulfilled on the local L2.
    const requester = new NonceManager(new Wallet(REQUESTER_KEY, provider));
    const asRequester = new Contract(attestationAddress, attestationArtifact.abi as never, requester);
    const fee = (await asRequester.requestFee(FACT_TYPE_KEYS.DOGE_BALANCE)) as bigint;
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      const holder = holders[i % holders.length];
      const args = [FACT_TYPE_KEYS.DOGE_BALANCE, addressKey(holder.address), ZERO_KEY, 0n] as const;
      const requestId = (await asRequester.requestFact.staticCall(...args, { value: fee })) as string;
      await (await asRequester.requestFact(...args, { value: fee })).wait();
      const started = performance.now();
      const response = await fetch(`${api.url}/fulfill`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ requestId, address: holder.address }),
      });
      const answer = (await response.json()) as { status?: string };
      if (response.status !== 200 || answer.status !== "fulfilled")
        throw new Error(`fulfil answered ${response.status}: ${JSON.stringify(answer)}`);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))];
    const paidOk = p95 < 3000;
    process.stdout.write(
      `paid requests: ${requests} fulfilled on the local L2, POST to fulfilment mined: median ${median.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms (target within 3000 ms) ${paidOk ? "ok" : "MISSED"}\n`,
    );
    process.exitCode = signingOk && e2eOk && paidOk ? 0 : 1;
  } finally {
    for (const daemon of daemons) await daemon.stop();
    l2?.kill("SIGTERM");
    await devnet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench:attest: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
