/**
 * `npm start -- --l2 <rpc url> --l2-key-file <file>` against an existing EVM L2, through the same
 * code path an operator uses: a separate Hardhat node (chain 31337) stands in for DogeOS, and its
 * account 0 (the key of Hardhat's public "test test ... junk" mnemonic) is the deployer. The first
 * run deploys the contract set there and funds the relayer's and the attest API's own keys; the
 * second run against the same node reuses the addresses the ABI index recorded and sends nothing
 * from the deployer's account. Ctrl-C (SIGINT to the process group) leaves no process behind and
 * does not touch the L2.
 */
import { ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { processesUnder } from "../helpers/processes";
import { until as waitUntil } from "../helpers/wait";

const ROOT = path.resolve(__dirname, "..", "..");
/**
 * Apart from the --node tests' 20,000 and 22,000 and npm start's own ports. This stack starts its own
 * devnet (18332 + offset), so the offset keeps every port below Linux's ephemeral range (32768 and
 * up, /proc/sys/net/ipv4/ip_local_port_range): at 21,000 the devnet's 39332 was once taken by an
 * outgoing connection of another test and npm start stopped with EADDRINUSE.
 */
const PORT_OFFSET = 12_000;
/** The shared poll (test/helpers/wait.ts), every 250 ms: each probe of these tests reads /proc or a log. */
const until = <T>(what: string, probe: Parameters<typeof waitUntil<T>>[1], limitMs: number) =>
  waitUntil(what, probe, limitMs, 250);
const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
/** Hardhat's account 0 (mnemonic "test test ... junk"), public knowledge: funded on every Hardhat node. */
const ACCOUNT_0_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const ACCOUNT_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const CONTRACTS = ["DogeAttestation", "PlugsMarketplace", "EnvelopeHelper", "DogeInscriber", "DogeAnchor"];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe("npm start -- --l2 <rpc url> --l2-key-file <file> (an existing L2: a separate Hardhat node)", function () {
  this.timeout(600_000);
  let l2: ChildProcess;
  let l2Url: string;
  let dataDir: string;
  let keyFile: string;
  let start: ChildProcess | null = null;

  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(l2Url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: unknown };
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result as T;
  };

  before(async () => {
    const port = await freePort();
    l2Url = `http://127.0.0.1:${port}`;
    l2 = spawn(process.execPath, [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", String(port)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    l2.stdout!.on("data", (chunk) => {
      out += chunk;
    });
    await until(
      "the Hardhat node",
      () => {
        if (l2.exitCode !== null) throw new Error(`the Hardhat node exited ${l2.exitCode}: ${out}`);
        return out.includes("Started HTTP and WebSocket JSON-RPC server");
      },
      120_000,
    );
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "start-l2-test-"));
    keyFile = path.join(dataDir, "deployer.key");
    fs.writeFileSync(keyFile, `${ACCOUNT_0_KEY}\n`, { mode: 0o600 });
  });

  after(async () => {
    if (start && start.exitCode === null && start.signalCode === null) process.kill(-start.pid!, "SIGKILL");
    if (l2 && l2.exitCode === null) {
      const gone = new Promise((resolve) => l2.once("exit", resolve));
      l2.kill("SIGTERM");
      await gone;
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** One `npm start` against the node until its table; returns what it printed and how to stop it. */
  async function runStack(
    extra: string[] = [],
  ): Promise<{ stdout: string; stderr: () => string; stop: () => Promise<void> }> {
    const child = spawn(
      "npm",
      ["start", "--", "--l2", l2Url, "--l2-key-file", keyFile, "--port-offset", String(PORT_OFFSET), ...extra],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: {
          ...process.env,
          DOGEOS_DATA_DIR: dataDir,
          DOGECOIN_RPC_URL: "",
          DOGEOS_PRIVATE_KEY_FILE: "",
          DEPLOY_PARAMETERS: "",
        },
      },
    );
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
      300_000,
    );
    return {
      stdout,
      stderr: () => stderr,
      stop: async () => {
        process.kill(-child.pid!, "SIGINT");
        expect(await exited).to.be.oneOf(["0", "SIGINT"]);
        await until("no process left", () => processesUnder(dataDir, PORT_OFFSET).length === 0, 60_000);
        start = null;
      },
    };
  }

  const addressesIn = (stdout: string): Record<string, string> =>
    Object.fromEntries(
      CONTRACTS.map((name) => {
        const match = new RegExp(`^ +${name} +(0x[0-9a-fA-F]{40})$`, "m").exec(stdout);
        expect(match, `${name} in the table`).to.not.equal(null);
        return [name, match![1]];
      }),
    );

  let firstAddresses: Record<string, string>;

  it("deploys the contract set on the L2, funds the relayer's and the attest API's keys, serves, and stops with nothing left", async () => {
    const stack = await runStack();
    const { stdout } = stack;
    expect(stack.stderr()).to.include(`${l2Url} is chain 31337`);
    expect(stdout).to.match(new RegExp(`^l2 +${l2Url.replace(/\./g, "\\.")} \\(existing L2, chain 31337\\)$`, "m"));
    expect(stdout).not.to.include("nothing deployed");
    for (const name of [
      "indexer",
      "explorer",
      "inscriber",
      "attester-1",
      "attester-3",
      "attest",
      "relayer",
      "launchpad",
      "amm",
    ]) {
      expect(stdout, name).to.match(new RegExp(`^${name} +http://127\\.0\\.0\\.1:\\d+`, "m"));
    }
    firstAddresses = addressesIn(stdout);
    for (const [name, address] of Object.entries(firstAddresses))
      expect(await rpc<string>("eth_getCode", [address, "latest"]), name).to.not.equal("0x");

    // The keys npm start made: 0600 files; the relayer's and the attest API's funded with 1 ETH.
    for (const name of ["l2-attester-1", "l2-attester-2", "l2-attester-3", "l2-relayer", "l2-attest"]) {
      expect(fs.statSync(path.join(dataDir, "keys", `${name}.key`)).mode & 0o777, name).to.equal(0o600);
    }
    const { Wallet } = await import("ethers");
    const addressOf = (name: string) =>
      new Wallet(fs.readFileSync(path.join(dataDir, "keys", `${name}.key`), "utf8").trim()).address;
    for (const name of ["l2-relayer", "l2-attest"]) {
      expect(BigInt(await rpc<string>("eth_getBalance", [addressOf(name), "latest"])), name).to.be.at.least(
        10n ** 18n / 2n,
      );
    }
    expect(stdout).to.include(`L2 key: ${addressOf("l2-relayer")}`);
    // The attesters on chain are the keys npm start made.
    const daemons = processesUnder(dataDir, PORT_OFFSET).filter((line) => line.includes("daemons/attester/main.ts"));
    expect(daemons.length).to.equal(3);
    expect(daemons[0]).to.include(`--l2-rpc-url ${l2Url}`).and.include("--chain-id 31337");

    // The attest API and the relayer answer.
    expect((await fetch(`http://127.0.0.1:${3004 + PORT_OFFSET}/openapi.json`)).status).to.equal(200);
    expect((await fetch(`http://127.0.0.1:${3030 + PORT_OFFSET}/openapi.json`)).status).to.equal(200);

    await stack.stop();
    // The L2 is not ours: it still answers.
    expect(Number(await rpc<string>("eth_chainId"))).to.equal(31337);
  });

  it("a second start against the same L2 reuses the recorded addresses and sends nothing from the deployer", async () => {
    expect(firstAddresses, "the first run's addresses").to.not.equal(undefined);
    const nonceBefore = await rpc<string>("eth_getTransactionCount", [ACCOUNT_0, "latest"]);
    const stack = await runStack();
    expect(stack.stdout).to.include("recorded deployment, nothing deployed");
    expect(addressesIn(stack.stdout)).to.deep.equal(firstAddresses);
    expect(await rpc<string>("eth_getTransactionCount", [ACCOUNT_0, "latest"])).to.equal(nonceBefore);
    expect((await fetch(`http://127.0.0.1:${3004 + PORT_OFFSET}/openapi.json`)).status).to.equal(200);
    expect((await fetch(`http://127.0.0.1:${3030 + PORT_OFFSET}/openapi.json`)).status).to.equal(200);
    await stack.stop();
  });

  it("stops in one line when the recorded attesters are not its keys, and runs with --l2-attester-key-files naming them", async () => {
    // The attester keys move elsewhere: npm start makes new ones, which are not the recorded set.
    const elsewhere = fs.mkdtempSync(path.join(dataDir, "attesters-"));
    const moved = [1, 2, 3].map((n) => {
      const file = path.join(elsewhere, `attester-${n}.key`);
      fs.renameSync(path.join(dataDir, "keys", `l2-attester-${n}.key`), file);
      return file;
    });
    const child = spawn(
      "npm",
      ["start", "--", "--l2", l2Url, "--l2-key-file", keyFile, "--port-offset", String(PORT_OFFSET)],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: { ...process.env, DOGEOS_DATA_DIR: dataDir, DOGECOIN_RPC_URL: "" },
      },
    );
    start = child;
    let stderr = "";
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    start = null;
    expect(code).to.not.equal(0);
    expect(stderr).to.match(
      /^start: the DogeAttestation recorded for chain 31337 .* pass their key files with --l2-attester-key-files a,b,c$/m,
    );
    await until("no process left", () => processesUnder(dataDir, PORT_OFFSET).length === 0, 60_000);

    const nonceBefore = await rpc<string>("eth_getTransactionCount", [ACCOUNT_0, "latest"]);
    const stack = await runStack(["--l2-attester-key-files", moved.join(",")]);
    expect(stack.stdout).to.include("recorded deployment, nothing deployed");
    expect(addressesIn(stack.stdout)).to.deep.equal(firstAddresses);
    expect(await rpc<string>("eth_getTransactionCount", [ACCOUNT_0, "latest"])).to.equal(nonceBefore);
    await stack.stop();
  });

  it("refuses a key file that group or others can read, in one line", async () => {
    const loose = path.join(dataDir, "loose.key");
    fs.writeFileSync(loose, `${ACCOUNT_0_KEY}\n`, { mode: 0o644 });
    fs.chmodSync(loose, 0o644);
    const child = spawn(
      "npm",
      ["start", "--", "--l2", l2Url, "--l2-key-file", loose, "--port-offset", String(PORT_OFFSET)],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: { ...process.env, DOGEOS_DATA_DIR: dataDir, DOGECOIN_RPC_URL: "" },
      },
    );
    start = child;
    let stderr = "";
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    start = null;
    expect(code).to.not.equal(0);
    expect(stderr).to.match(/^start: .*has mode 644.*chmod 600/m);
    await until("no process left", () => processesUnder(dataDir, PORT_OFFSET).length === 0, 60_000);
  });
});
