/**
 * `npx dogeos` (bin/dogeos.js) as an operator runs it: every command's --help exits 0 and lists every
 * option of the table that validates the command (the table's names are read back from the
 * command's own "unknown option" refusal, which lists them); an unknown command exits 2 with one
 * clear line; `key new` makes a 0600 key file and never overwrites one.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { getNetwork } from "../../src/doge";
import { loadWalletKey } from "../../src/wallet/keys";

const ROOT = path.resolve(__dirname, "..", "..");
const BIN = path.join(ROOT, "bin", "dogeos.js");

function dogeos(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { status: number | null; stdout: string; stderr: string } {
  // A clean environment for the daemons' variables: only PATH, HOME and what the test sets.
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The options of a command's table, as its refusal of an unknown option lists them. */
function tableOptions(command: string[]): string[] {
  const { status, stderr } = dogeos([...command, "--no-such-option-zz", "1"]);
  expect(status, stderr).to.equal(2);
  const match = /unknown option --no-such-option-zz \(known: ([^;)]*)/.exec(stderr);
  expect(match, stderr).to.not.equal(null);
  return match![1].split(", ").filter(Boolean);
}

const DAEMONS = ["devnet", "indexer", "explorer", "inscriber", "attester", "attest-api", "relayer", "launchpad", "amm"];
const TASKS = [["project", "add"], ["bonding-key"], ["amm-authorize"], ["deploy"], ["abi", "export"]];

describe("dogeos command line", () => {
  it("dogeos --help lists every command and exits 0", () => {
    const { status, stdout } = dogeos(["--help"]);
    expect(status).to.equal(0);
    for (const command of [...DAEMONS, "key", "project", "bonding-key", "amm-authorize", "deploy", "abi"]) {
      expect(stdout).to.match(new RegExp(`^  ${command}\\b`, "m"), command);
    }
    const key = dogeos(["key", "--help"]);
    expect(key.status).to.equal(0);
    expect(key.stdout).to.match(/^ {2}new \[options\] <file>/m);
  });

  for (const command of [...DAEMONS.map((name) => [name]), ...TASKS]) {
    it(`dogeos ${command.join(" ")} --help exits 0 and lists every option of its table`, function () {
      const options = tableOptions(command);
      for (const flag of ["--help", "-h"]) {
        const { status, stdout, stderr } = dogeos([...command, flag]);
        expect(status, stderr).to.equal(0);
        expect(stdout).to.match(/^Usage: /);
        expect(stdout).to.include("--config <file>");
        for (const option of options) expect(stdout, `--${option}`).to.match(new RegExp(`^  --${option}[ ,]`, "m"));
      }
    });
  }

  it("answers to the attest API's former name, attest, with the same options", () => {
    const now = dogeos(["attest-api", "--help"]);
    const before = dogeos(["attest", "--help"]);
    expect(before.status, before.stderr).to.equal(0);
    expect(before.stdout).to.equal(now.stdout);
    expect(now.stdout).to.include("daemons/attest-api/main.ts");
  });

  it("key new --help lists --network", () => {
    const { status, stdout } = dogeos(["key", "new", "--help"]);
    expect(status).to.equal(0);
    expect(stdout).to.include("--network <name>");
  });

  it("an unknown command exits 2 with one clear line", () => {
    const { status, stdout, stderr } = dogeos(["no-such-command"]);
    expect(status).to.equal(2);
    expect(stdout).to.equal("");
    expect(stderr.split("\n")[0]).to.equal("dogeos: unknown command 'no-such-command'");
  });

  it("a daemon's bad option exits 2 with one line naming it", () => {
    const { status, stderr } = dogeos(["indexer", "--rpc-url", "http://127.0.0.1:1/", "--start-height", "-5"]);
    expect(status).to.equal(2);
    expect(stderr.trim()).to.equal("indexer: start-height (--start-height or INDEXER_START_HEIGHT) must be at least 0");
  });

  it("dogeos devnet runs the daemon in its own process: it serves RPC and stops on SIGTERM with status 0", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-devnet-"));
    const child = spawn(process.execPath, [BIN, "devnet", "--datadir", dataDir, "--port", "0", "--automine", "0"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "info" },
    });
    try {
      let stderr = "";
      child.stderr!.on("data", (chunk) => {
        stderr += chunk;
      });
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = "";
        const timer = setTimeout(() => reject(new Error(`no ready line in 60 s: ${stderr}`)), 60_000);
        child.stdout!.on("data", (chunk) => {
          stdout += chunk;
          const match = /^devnet {2}(\S+)$/m.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        child.once("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`exited with ${code}: ${stderr}`));
        });
      });
      const parsed = new URL(url);
      const response = await fetch(`http://${parsed.host}/`, {
        method: "POST",
        headers: { Authorization: "Basic " + Buffer.from(`${parsed.username}:${parsed.password}`).toString("base64") },
        body: JSON.stringify({ jsonrpc: "1.0", id: 1, method: "getblockchaininfo", params: [] }),
      });
      expect(((await response.json()) as { result: { chain: string } }).result.chain).to.equal("regtest");
      // The daemon's log lines carry the pid of the dogeos process itself: no second process. The
      // ready line on stderr may arrive after the one on stdout (two pipes): wait for it (10 s at most).
      const readyLine = () =>
        stderr
          .split("\n")
          .filter((line) => line.endsWith("}"))
          .map((line) => JSON.parse(line) as { event?: string; pid: number })
          .find((line) => line.event === "ready");
      for (let waited = 0; readyLine() === undefined && waited < 10_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readyLine()?.pid).to.equal(child.pid);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).to.equal(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe("key new", () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-key-"));
    });
    afterEach(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("creates a 0600 WIF file and prints its address", () => {
      const file = path.join(dir, "keys", "hot.wif");
      const { status, stdout, stderr } = dogeos(["key", "new", file, "--network", "testnet"]);
      expect(status, stderr).to.equal(0);
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
      const key = loadWalletKey({ keyFile: file, network: getNetwork("testnet") });
      expect(stdout).to.equal(`${key.address}\n`);
    });

    it("refuses to overwrite a file, which keeps its content", () => {
      const file = path.join(dir, "hot.wif");
      expect(dogeos(["key", "new", file]).status).to.equal(0);
      const before = fs.readFileSync(file, "utf8");
      const again = dogeos(["key", "new", file]);
      expect(again.status).to.equal(1);
      expect(again.stderr).to.include("already exists; refusing to overwrite");
      expect(fs.readFileSync(file, "utf8")).to.equal(before);
    });

    it("refuses an unknown network with exit 2", () => {
      const result = dogeos(["key", "new", path.join(dir, "x.wif"), "--network", "moonnet"]);
      expect(result.status).to.equal(2);
      expect(fs.existsSync(path.join(dir, "x.wif"))).to.equal(false);
    });
  });

  describe("operator tasks", () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-task-"));
    });
    afterEach(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("project add prints a key, with options or the two positionals of the older form", () => {
      const file = path.join(dir, "projects.json");
      const one = dogeos(["project", "add", "--projects-file", file, "--name", "launchpad"]);
      expect(one.status, one.stderr).to.equal(0);
      expect(one.stdout).to.match(/^ik_\S+\n$/);
      const two = dogeos(["project", "add", file, "relayer"]);
      expect(two.status, two.stderr).to.equal(0);
      expect(Object.keys(JSON.parse(fs.readFileSync(file, "utf8")).projects)).to.have.members(["launchpad", "relayer"]);
      const missing = dogeos(["project", "add", "--projects-file", file]);
      expect(missing.status).to.equal(2);
      expect(missing.stderr).to.match(/^dogeos project add: missing name \(--name\)/);
    });

    it("bonding-key issues then revokes a key", () => {
      const db = path.join(dir, "amm.sqlite");
      const issued = dogeos(["bonding-key", "--db", db, "--label", "desk"]);
      expect(issued.status, issued.stderr).to.equal(0);
      const { id, key } = JSON.parse(issued.stdout) as { id: string; key: string };
      expect(id).to.match(/^bkey_/);
      expect(key).to.match(/^bk_/);
      expect(dogeos(["bonding-key", "--db", db, "--revoke", id]).stdout).to.equal(`revoked ${id}\n`);
      expect(dogeos(["bonding-key", "--db", db, "--revoke", id]).stdout).to.equal(`no live key ${id}\n`);
    });
  });
});
