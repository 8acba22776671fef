/**
 * scripts/paid-job.ts reads the local chain's contract addresses where the stack that deployed
 * them keeps its ABI index: <DOGEOS_DATA_DIR>/abi/index.json (npm start --node keeps its state in
 * data/node), as scripts/paid-fact.ts does. A stand-in L2 answers only eth_chainId (31337); the
 * script stops at the address, before it pays anything.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.resolve(__dirname, "..", "..");

function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ABI_INDEX: "", ...env },
    });
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (code) => resolve({ code, stderr }));
  });
}

describe("paid-job.ts and paid-fact.ts read the ABI index of DOGEOS_DATA_DIR", function () {
  this.timeout(60_000);
  let server: http.Server;
  let l2Url: string;
  let dataDir: string;

  before(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const calls = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
        const answer = (call: { id: number; method: string }) =>
          call.method === "eth_chainId"
            ? { jsonrpc: "2.0", id: call.id, result: "0x7a69" }
            : { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "not here" } };
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    l2Url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "paid-job-data-dir-"));
    fs.mkdirSync(path.join(dataDir, "abi"));
    // A deployment recorded without the contract the script needs: it names the file it read.
    fs.writeFileSync(
      path.join(dataDir, "abi", "index.json"),
      JSON.stringify({ 31337: { deployed: true, contracts: {} } }),
    );
  });

  after(() => {
    server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  for (const [script, args, contract] of [
    ["scripts/paid-job.ts", ["anchor", "hello"], "DogeAnchor"],
    ["scripts/paid-fact.ts", ["nXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"], "DogeAttestation"],
  ] as const) {
    it(`${script} looks for ${contract} in <DOGEOS_DATA_DIR>/abi/index.json`, async () => {
      const { code, stderr } = await runScript(script, [...args], { L2_RPC_URL: l2Url, DOGEOS_DATA_DIR: dataDir });
      expect(code).to.not.equal(0);
      expect(stderr).to.include(
        `${path.join(dataDir, "abi", "index.json")} has no ${contract} address for chain 31337`,
      );
    });
  }
});
