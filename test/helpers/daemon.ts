/**
 * Runs the project's daemons for tests: `spawnDaemon` starts one and waits for its `name  URL`
 * ready line; `runDaemonToExit` runs one that is meant to refuse to start, for its exit code and
 * stderr. `env` is added to (and may blank out) the test process's environment.
 */
import { ChildProcess, spawn } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");

export interface SpawnedDaemon {
  url: string;
  process: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
  crash(): Promise<void>;
  exited(): Promise<number | null>;
}

function start(entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
  });
}

/** Runs the daemon until it exits on its own (killed after 30 s); its exit code and stderr. */
export function runDaemonToExit(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string }> {
  const child = start(entry, args, env);
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

export async function spawnDaemon(
  entry: string,
  args: string[],
  name: string,
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; onStderr?: (stderrSoFar: string) => void } = {},
): Promise<SpawnedDaemon> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child = start(entry, args, options.env ?? {});
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
    options.onStderr?.(stderr);
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`${name} did not start in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    const pattern = new RegExp(`^${name} {2}(\\S+)$`, "m");
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      const match = pattern.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready: ${stderr}`));
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    process: child,
    stderr: () => stderr,
    exited: () => exit,
    async stop() {
      if (running()) child.kill("SIGTERM");
      return exit;
    },
    async crash() {
      if (running()) child.kill("SIGKILL");
      await exit;
    },
  };
}
