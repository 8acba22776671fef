/**
 * `npm start -- --node <url>` against an existing dogecoind, through the same code path an
 * operator uses: the devnet (test/helpers/devnet.ts, which speaks dogecoind's RPC) stands in for
 * the node. The whole stack starts on ports offset by --port-offset and a data directory of its
 * own; the test waits for the table of URLs, checks that the explorer indexed the node's chain
 * (the development wallets funded by mining and the 100 maturity blocks) and that other services
 * answer, that the terminal carried no JSON log lines (they are in <data>/logs/<name>.log), and
 * that Ctrl-C (SIGINT to the process group) leaves no process behind.
 */
import { ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { processesUnder } from "../helpers/processes";
import { until as waitUntil } from "../helpers/wait";
import { RunningDevnet, startDevnet } from "../helpers/devnet";

const ROOT = path.resolve(__dirname, "..", "..");
/** Well below the ephemeral range (32768 and up), apart from npm start's own 3001-3030, 8545, 18332. */
const PORT_OFFSET = 20_000;
/** The shared poll (test/helpers/wait.ts), every 250 ms: each probe of these tests reads /proc or a log. */
const until = <T>(what: string, probe: Parameters<typeof waitUntil<T>>[1], limitMs: number) =>
  waitUntil(what, probe, limitMs, 250);

describe("npm start -- --node <rpc url> (an existing node: the devnet through its dogecoind RPC)", function () {
  this.timeout(300_000);
  let devnet: RunningDevnet;
  let dataDir: string;
  let start: ChildProcess | null = null;

  before(async () => {
    devnet = await startDevnet();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "start-node-test-"));
  });

  after(async () => {
    if (start && start.exitCode === null && start.signalCode === null) process.kill(-start.pid!, "SIGKILL");
    await devnet?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs the whole stack on the node, shows the table, serves, and stops with nothing left", async () => {
    const child = spawn("npm", ["start", "--", "--node", devnet.url, "--port-offset", String(PORT_OFFSET)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, DOGEOS_DATA_DIR: dataDir, DOGECOIN_RPC_URL: "" },
    });
    start = child;
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<string>((resolve) =>
      child.once("exit", (code, signal) => resolve(signal ?? String(code))),
    );

    await until(
      "the table of services",
      () => {
        if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${stderr}`);
        return /^amm +http/m.test(stdout);
      },
      240_000,
    );

    // The table: every service with its URL, and no devnet of its own.
    for (const name of [
      "indexer",
      "explorer",
      "inscriber",
      "l2",
      "indexer-1",
      "attester-3",
      "attest",
      "relayer",
      "launchpad",
      "amm",
    ]) {
      expect(stdout, name).to.match(new RegExp(`^${name} +http://127\\.0\\.0\\.1:\\d+`, "m"));
    }
    expect(stdout).not.to.match(/^devnet /m);
    expect(stdout).to.include("funded by mining");
    expect(stdout.split("\n").filter((line) => line.startsWith("{"))).to.deep.equal([]);
    expect(stderr).to.match(/chain regtest \(regtest\)/);

    // Four wallets funded by mining (1 + 5 + 1 + 4 blocks) and 100 more to mature them.
    const height = await devnet.rpc<number>("getblockcount");
    expect(height).to.equal(111);
    const explorer = `http://127.0.0.1:${3001 + PORT_OFFSET}`;
    const status = await until(
      "the explorer at the node's height",
      async () => {
        const body = (await (await fetch(`${explorer}/api/status`)).json()) as {
          indexer: { indexed_height: number; network: string | null };
          node: { height: number | null };
        };
        return body.indexer.indexed_height === height ? body : undefined;
      },
      60_000,
    );
    expect(status.indexer.network).to.equal("regtest");
    expect(status.node.height).to.equal(height);

    // Other services answer.
    expect((await fetch(`http://127.0.0.1:${3005 + PORT_OFFSET}/openapi.json`)).status).to.equal(200);
    expect((await fetch(`http://127.0.0.1:${3003 + PORT_OFFSET}/openapi.json`)).status).to.equal(200);

    // The daemons' logs are in files.
    for (const name of ["indexer", "explorer", "inscriber", "l2", "deploy", "amm"]) {
      expect(fs.statSync(path.join(dataDir, "logs", `${name}.log`)).size, name).to.be.greaterThan(0);
    }
    const processes = processesUnder(dataDir, PORT_OFFSET);
    expect(processes.length).to.be.greaterThan(5);
    // The daemons get the node's password from a 0600 file, not on their command lines.
    const daemons = processes.filter((line) => line.includes("/daemons/"));
    expect(daemons.length).to.be.greaterThan(5);
    expect(daemons.filter((line) => line.includes("devnet:devnet@"))).to.deep.equal([]);
    expect(daemons.filter((line) => line.includes("daemons/indexer/main.ts"))[0]).to.include("--rpc-password-file");
    expect(fs.statSync(path.join(dataDir, "keys", "node-rpc-password")).mode & 0o777).to.equal(0o600);

    // Ctrl-C: SIGINT to the whole process group, as a terminal sends it.
    process.kill(-child.pid!, "SIGINT");
    // npm itself dies of the SIGINT; scripts/start.ts stops the stack in reverse order and exits 0.
    expect(await exited).to.be.oneOf(["0", "SIGINT"]);
    await until("no process left", () => processesUnder(dataDir, PORT_OFFSET).length === 0, 60_000);
    // The Hardhat node (which does not know our data directory) is gone too: its port is free.
    const l2 = await fetch(`http://127.0.0.1:${8545 + PORT_OFFSET}`, { method: "POST" }).then(
      () => "answered",
      () => "refused",
    );
    expect(l2).to.equal("refused");
  });
});
