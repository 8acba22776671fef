/**
 * `npm start -- --node <url>` on a node funded the way a real Dogecoin Core regtest node is: no
 * faucet, only coinbases. The stack funds its wallets itself (`generatetoaddress` to each key, then
 * the maturity blocks, whose own coinbases go to the inscriber's hot wallet), and an operator mines
 * one block every few seconds, as docs/operations.md ("A real Dogecoin Core node") tells them to.
 * The devnet stands in for the node and enforces coinbase maturity as Core does, so a wallet that
 * spends an immature coinbase meets `bad-txns-premature-spend-of-coinbase` here as on Core.
 *
 * A node refuses a job's transaction now and then (on Core: a premature coinbase spend, a fee above
 * its -maxtxfee): here the demo pool's deploy job is made to fail the way such a refusal fails it
 * (the job the AMM's demo asks for, under the demo's own idempotency key, broadcast while the
 * node's -maxtxfee is below the commit's fee: `256: absurdly-high-fee`, final for the inscriber). The demo must notice the failed job,
 * say so as a warning line in the terminal, and try again with a new job.
 *
 * Checks that the AMM's demo pool (WOOF/DOGE) is seeded and its demo curve (MOON) takes its supply,
 * that no job was refused for a premature coinbase spend, that the failures were warning lines in
 * the terminal, and that --node kept all its state (ABI index, Ignition journal) under its own data
 * directory.
 */
import { ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { until as waitUntil } from "../helpers/wait";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey } from "../helpers/keys";
import { NETWORKS } from "../../src/doge";
import { drc20TickKey, encodeDrc20 } from "../../src/inscription/drc20";
import { AMM_DEMO_POOL } from "../../src/services/amm/demo";
import { loadWalletKey } from "../../src/wallet";

const ROOT = path.resolve(__dirname, "..", "..");
/** Apart from the other --node test's 20,000 and npm start's own ports. */
const PORT_OFFSET = 22_000;
/** The operator's miner: one block this often (a real chain keeps growing). */
const BLOCK_EVERY_MS = 2_000;
const until = <T>(what: string, probe: Parameters<typeof waitUntil<T>>[1], limitMs: number) =>
  waitUntil(what, probe, limitMs, 500);

describe("npm start -- --node on a node whose only funding is coinbases", function () {
  this.timeout(420_000);
  let devnet: RunningDevnet;
  let dataDir: string;
  let start: ChildProcess | null = null;
  let miner: NodeJS.Timeout | null = null;

  before(async () => {
    devnet = await startDevnet();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "start-node-demo-"));
  });

  after(async () => {
    if (miner) clearInterval(miner);
    if (start && start.exitCode === null && start.signalCode === null) process.kill(-start.pid!, "SIGKILL");
    await devnet?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("seeds the demo pool and the demo curve past a refused job, warns of it, and keeps its state in its data directory", async () => {
    const operator = newKey();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "scripts/start.ts", "--node", devnet.url, "--port-offset", String(PORT_OFFSET)],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: { ...process.env, DOGEOS_DATA_DIR: dataDir, DOGECOIN_RPC_URL: "" },
      },
    );
    start = child;
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<string>((resolve) =>
      child.once("exit", (code, signal) => resolve(signal ?? String(code))),
    );

    // The operator starts mining once the stack has funded its wallets (the maturity blocks mined).
    await until(
      "the stack's funding by mining",
      () => {
        if (child.exitCode !== null) throw new Error(`start exited ${child.exitCode}:\n${stderr}`);
        return /blocks so that those coinbases mature/.test(stderr);
      },
      120_000,
    );
    miner = setInterval(() => {
      devnet.rpc("generatetoaddress", [1, operator.address]).catch(() => undefined);
    }, BLOCK_EVERY_MS);

    const amm = `http://127.0.0.1:${3003 + PORT_OFFSET}/api`;
    const inscriber = `http://127.0.0.1:${3005 + PORT_OFFSET}`;
    // The inscriber answers long before the AMM starts (the last service; the table comes after it).
    await until(
      "the inscriber",
      () =>
        fetch(`${inscriber}/openapi.json`).then(
          (response) => response.ok,
          () => false,
        ),
      120_000,
    );
    expect(stdout).not.to.match(/^amm +http/m);

    // The demo pool's deploy job, as the AMM's demo asks for it, refused by the node.
    const custody = loadWalletKey({ keyFile: path.join(dataDir, "amm", "custody.wif"), network: NETWORKS.regtest });
    const projectKey = fs.readFileSync(path.join(dataDir, "amm", "inscriber-project.key"), "utf8").trim();
    const { tick, supply } = AMM_DEMO_POOL;
    const content = encodeDrc20({
      kind: "deploy",
      tick,
      tickKey: drc20TickKey(tick),
      maxSupply: supply,
      mintLimit: supply,
    });
    await devnet.rpc("devnet_setmaxtxfee", [0.00000001]);
    const created = await fetch(`${inscriber}/inscribe`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${projectKey}`,
        "Content-Type": "application/json",
        "Idempotency-Key": "amm-demo-deploy",
      },
      body: JSON.stringify({
        project: "amm",
        content_type: "text/plain;charset=utf-8",
        content: Buffer.from(content).toString("base64"),
        encoding: "base64",
        recipient: custody.address,
      }),
    });
    expect(created.status, await created.clone().text()).to.equal(202);
    const job = (await created.json()) as { id: string };
    const failed = await until(
      "the refused deploy job failed",
      async () => {
        const response = await fetch(`${inscriber}/jobs/${job.id}`, {
          headers: { Authorization: `Bearer ${projectKey}` },
        });
        const body = (await response.json()) as { status: string; error?: { code: string } | null };
        return body.status === "failed" ? body : undefined;
      },
      60_000,
    );
    expect(JSON.stringify(failed)).to.include("TX_REJECTED");
    await devnet.rpc("devnet_setmaxtxfee", [100]);

    await until(
      "the table of services",
      () => {
        if (child.exitCode !== null) throw new Error(`start exited ${child.exitCode}:\n${stderr}`);
        return /^amm +http/m.test(stdout);
      },
      240_000,
    );

    const seeded = await until(
      "the demo pool seeded and the demo curve supplied",
      async () => {
        const pools = (await (await fetch(`${amm}/pools`)).json()) as { pools: { tick: string; lpSupply: string }[] };
        const curve = (await (await fetch(`${amm}/bonding/MOON`)).json()) as { status?: string };
        const woof = pools.pools.some((pool) => pool.tick === "WOOF" && BigInt(pool.lpSupply) > 0n);
        return woof && curve.status === "active" ? { pools, curve } : undefined;
      },
      240_000,
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\nterminal:\n${stderr}\ninscriber log:\n${tail(dataDir, "inscriber")}\namm log:\n${tail(dataDir, "amm")}`,
      );
    });
    expect(seeded.curve.status).to.equal("active");

    // No job was refused for a premature coinbase spend (the wallets spend only mature coinbases).
    const log = fs.readFileSync(path.join(dataDir, "logs", "inscriber.log"), "utf8");
    expect(log).not.to.include("premature-spend-of-coinbase");
    // The refused job is a warning line in the terminal, from the inscriber and from the demo that retried.
    expect(stderr).to.match(/^inscriber: warning: inscriber_job_failed/m);
    expect(stderr).to.match(/^amm: warning: amm_demo_job_failed/m);

    // --node keeps the ABI index and Ignition's journal under its data directory, never in data/.
    expect(fs.existsSync(path.join(dataDir, "abi", "index.json"))).to.equal(true);
    expect(fs.readdirSync(path.join(dataDir, "ignition"))).to.include("chain-31337");

    process.kill(-child.pid!, "SIGINT");
    expect(await exited).to.be.oneOf(["0", "SIGINT"]);
  });
});

function tail(dataDir: string, name: string): string {
  const file = path.join(dataDir, "logs", `${name}.log`);
  if (!fs.existsSync(file)) return "(no log)";
  return fs.readFileSync(file, "utf8").split("\n").slice(-25).join("\n");
}
