/**
 * Runs the real devnet daemon as a child process for tests: a fresh data directory, an ephemeral
 * port, automine off. `stop()` sends SIGTERM; `crash()` sends SIGKILL (kill -9).
 */
import { ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");

export interface RunningDevnet {
  url: string;
  dataDir: string;
  process: ChildProcess;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  rpcRaw(
    method: string,
    params?: unknown[],
    auth?: string,
  ): Promise<{ status: number; body: { result: unknown; error: { code: number; message: string } | null } | null }>;
  stop(): Promise<void>;
  crash(): Promise<void>;
}

export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Temporary data directories made here, removed when the test process exits. */
const createdDirs = new Set<string>();
process.once("exit", () => {
  for (const dir of createdDirs) fs.rmSync(dir, { recursive: true, force: true });
});

export async function startDevnet(options: { dataDir?: string; args?: string[] } = {}): Promise<RunningDevnet> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "devnet-test-"));
  if (!options.dataDir) createdDirs.add(dataDir);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(ROOT, "daemons/devnet/main.ts"),
      "--datadir",
      dataDir,
      "--port",
      "0",
      "--automine",
      "0",
      ...(options.args ?? []),
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "warn" },
    },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`devnet did not start in 30 s: ${stderr}`)), 30_000);
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
      reject(new Error(`devnet exited with ${code}: ${stderr}`));
    });
  });
  const parsed = new URL(url);
  const endpoint = `${parsed.protocol}//${parsed.host}/`;
  const defaultAuth =
    "Basic " +
    Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString("base64");
  let id = 0;
  const rpcRaw: RunningDevnet["rpcRaw"] = async (method, params = [], auth = defaultAuth) => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: auth },
      body: JSON.stringify({ jsonrpc: "1.0", id: ++id, method, params }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const waitExit = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
  return {
    url,
    dataDir,
    process: child,
    rpcRaw,
    async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
      const { body } = await rpcRaw(method, params);
      if (!body) throw new Error(`empty RPC answer to ${method}`);
      if (body.error) throw new RpcCallError(body.error.code, body.error.message);
      return body.result as T;
    },
    async stop() {
      child.kill("SIGTERM");
      await waitExit();
    },
    async crash() {
      child.kill("SIGKILL");
      await waitExit();
    },
  };
}
