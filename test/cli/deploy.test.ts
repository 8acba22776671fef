/**
 * `dogeos deploy` drives deploy/deploy.ts through Hardhat against a real local node (a Hardhat node
 * on a free port): the options reach the script as its variables (--rpc-url as L2_RPC_URL), the
 * addresses are printed and recorded under DOGEOS_DATA_DIR, and a second run deploys nothing again.
 * A key file that others can read is refused before Hardhat starts.
 */
import { ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.resolve(__dirname, "..", "..");
const BIN = path.join(ROOT, "bin", "dogeos.js");

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function dogeos(args: string[], env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 180_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("dogeos deploy", function () {
  this.timeout(300_000);
  let dir: string;
  let node: ChildProcess | undefined;
  let rpcUrl: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-deploy-"));
    const port = await freePort();
    rpcUrl = `http://127.0.0.1:${port}`;
    node = spawn(
      process.execPath,
      [require.resolve("hardhat/internal/cli/cli.js"), "node", "--hostname", "127.0.0.1", "--port", String(port)],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    node.stderr!.resume();
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`the Hardhat node did not start: ${out}`)), 120_000);
      node!.stdout!.on("data", (chunk) => {
        out += chunk;
        if (out.includes("Started HTTP")) {
          clearTimeout(timer);
          resolve();
        }
      });
      node!.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the Hardhat node exited with ${code}: ${out}`));
      });
    });
  });

  after(async () => {
    if (node && node.exitCode === null && node.signalCode === null) {
      const exited = new Promise((resolve) => node!.once("exit", resolve));
      node.kill("SIGTERM");
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("deploys to the node given by --rpc-url, records the addresses, and deploys nothing twice", () => {
    const env = { DOGEOS_DATA_DIR: path.join(dir, "data") };
    const first = dogeos(["deploy", "--rpc-url", rpcUrl], env);
    expect(first.status, first.stderr).to.equal(0);
    const addresses = (text: string) =>
      Object.fromEntries([...text.matchAll(/^(\w+)\s+(0x[0-9a-fA-F]{40})$/gm)].map((m) => [m[1], m[2]]));
    const deployed = addresses(first.stdout);
    expect(Object.keys(deployed)).to.include.members(["DogeAttestation", "DogeInscriber", "DogeAnchor"]);
    const index = JSON.parse(fs.readFileSync(path.join(dir, "data", "abi", "index.json"), "utf8")) as Record<
      string,
      { contracts: Record<string, { address: string | null }> }
    >;
    expect(index["31337"].contracts.DogeAttestation.address).to.equal(deployed.DogeAttestation);

    const second = dogeos(["deploy", "--rpc-url", rpcUrl], env);
    expect(second.status, second.stderr).to.equal(0);
    expect(addresses(second.stdout)).to.deep.equal(deployed);
  });

  it("refuses a key file that group or others can read, before starting Hardhat", () => {
    const key = path.join(dir, "deployer.key");
    fs.writeFileSync(key, `0x${"11".repeat(32)}\n`, { mode: 0o644 });
    fs.chmodSync(key, 0o644);
    const result = dogeos(["deploy", "--rpc-url", rpcUrl, "--key-file", key], {});
    expect(result.status).to.equal(2);
    expect(result.stderr.trim()).to.equal(
      `dogeos deploy: the deployer key file ${key} has mode 644; group and others must have no access: chmod 600 ${key}`,
    );
  });
});
