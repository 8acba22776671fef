/**
 * The supervisor of `npm start` (src/ops/supervisor.ts) and the daemons' stop guarantees
 * (src/config/daemon.ts), with real child processes (test/ops/fixtures/child.ts, a small daemon
 * that uses stopOnSignals as every daemon does): a child killed with SIGKILL is restarted with
 * back-off while the other keeps serving; a supervisor killed with SIGKILL leaves no child
 * running; a daemon whose stop hangs still exits within 5 s of SIGTERM.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { until as waitUntil } from "../helpers/wait";
import { Supervisor, SupervisorEvent, isErrorLine } from "../../src/ops/supervisor";

const ROOT = path.resolve(__dirname, "..", "..");
const CHILD = path.join(__dirname, "fixtures", "child.ts");

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "supervisor-test-"));
}

/** Whether a process is running (a zombie waiting for its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The shared poll (test/helpers/wait.ts), every 100 ms, 30 s at most unless told. */
const until = <T>(what: string, probe: Parameters<typeof waitUntil<T>>[1], limitMs = 30_000) =>
  waitUntil(what, probe, limitMs, 100);

const childSpec = (name: string, env: NodeJS.ProcessEnv = {}) => ({
  name,
  args: () => ["--import", "tsx", CHILD],
  ready: new RegExp(`^${name} {2}(\\S+)$`, "m"),
  env: { CHILD_NAME: name, ...env },
  cwd: ROOT,
});

const getJson = async (url: string) => (await fetch(url)).json() as Promise<{ name: string; pid: number }>;

describe("npm start's supervisor", function () {
  this.timeout(90_000);

  it("restarts a child killed with SIGKILL (logged, counted, with back-off) while the other keeps serving", async () => {
    const logDir = tempDir();
    const events: SupervisorEvent[] = [];
    const supervisor = new Supervisor({
      logDir,
      onEvent: (event) => events.push(event),
      initialBackoffMs: 200,
      maxBackoffMs: 400,
    });
    try {
      const alphaUrl = await supervisor.start(childSpec("alpha"));
      const betaUrl = await supervisor.start(childSpec("beta"));
      const beta = await getJson(betaUrl);
      const firstPid = supervisor.pids().alpha!;
      expect((await getJson(alphaUrl)).pid).to.equal(firstPid);

      let killedPid = firstPid;
      for (const expectedDelay of [200, 400, 400]) {
        process.kill(killedPid, "SIGKILL");
        const exited = await until("the exit event", () =>
          events.find((e) => e.type === "exited" && e.pid === killedPid),
        );
        expect(exited).to.include({ name: "alpha", signal: "SIGKILL", restartInMs: expectedDelay });
        // beta serves all along, the same process.
        expect(await getJson(betaUrl)).to.deep.equal(beta);
        const restarted = await until("alpha's restart", () =>
          events.find(
            (e) =>
              e.type === "started" &&
              e.name === "alpha" &&
              e.pid !== killedPid &&
              !events.some((x) => x.type === "exited" && x.pid === e.pid),
          ),
        );
        if (restarted.type !== "started") throw new Error("unreachable");
        const answer = await getJson(restarted.url);
        expect(answer).to.deep.equal({ name: "alpha", pid: restarted.pid });
        killedPid = restarted.pid;
      }
      expect(supervisor.restartCounts()).to.deep.equal({ alpha: 3, beta: 0 });
      // Each run's output is appended to the same log file: four ready lines.
      const log = fs.readFileSync(path.join(logDir, "alpha.log"), "utf8");
      expect(log.match(/^alpha {2}http/gm)).to.have.length(4);
    } finally {
      const pids = Object.values(supervisor.pids()).filter((pid): pid is number => pid !== null);
      await supervisor.stopAll();
      for (const pid of pids) expect(alive(pid), `pid ${pid}`).to.equal(false);
      fs.rmSync(logDir, { recursive: true, force: true });
    }
  });

  it("resets the back-off once a run stayed up long enough", async () => {
    const logDir = tempDir();
    const events: SupervisorEvent[] = [];
    const supervisor = new Supervisor({
      logDir,
      onEvent: (event) => events.push(event),
      initialBackoffMs: 100,
      maxBackoffMs: 10_000,
      resetAfterMs: 1_000,
    });
    try {
      await supervisor.start(childSpec("gamma"));
      const delays: number[] = [];
      for (const upFor of [0, 0, 1_500]) {
        const pid = supervisor.pids().gamma!;
        // Up for at least `upFor` ms after its ready line before the kill.
        await new Promise((resolve) => setTimeout(resolve, upFor));
        process.kill(pid, "SIGKILL");
        const exited = await until("the exit event", () => events.find((e) => e.type === "exited" && e.pid === pid));
        if (exited.type === "exited") delays.push(exited.restartInMs!);
        await until("the restart", () =>
          events.some(
            (e) => e.type === "started" && e.name === "gamma" && e.pid !== pid && e.restarts === delays.length,
          ),
        );
      }
      // 100, doubled to 200 after a short run, back to 100 after a run longer than resetAfterMs.
      expect(delays).to.deep.equal([100, 200, 100]);
    } finally {
      await supervisor.stopAll();
      fs.rmSync(logDir, { recursive: true, force: true });
    }
  });

  it("a supervised daemon (DOGEOS_SUPERVISED=1) runs its stop when its parent is killed with SIGKILL", async () => {
    const dir = tempDir();
    const log = path.join(dir, "child.log");
    // A bare parent (no supervisor, no preload): only stopOnSignals' own watch can stop the child.
    const parentScript = `const { spawn } = require("node:child_process"); const fs = require("node:fs");
      const fd = fs.openSync(${JSON.stringify(log)}, "a");
      const child = spawn(process.execPath, ["--import", "tsx", ${JSON.stringify(CHILD)}], { cwd: ${JSON.stringify(ROOT)}, stdio: ["ignore", fd, fd], env: { ...process.env, CHILD_NAME: "orphan", DOGEOS_SUPERVISED: "1" } });
      console.log("child " + child.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    parent.stdout!.on("data", (chunk) => {
      stdout += chunk;
    });
    try {
      const pid = await until("the child's pid", () => Number(/^child (\d+)$/m.exec(stdout)?.[1]) || undefined);
      await until(
        "the child's ready line",
        () => fs.existsSync(log) && /^orphan {2}http/m.test(fs.readFileSync(log, "utf8")),
        60_000,
      );
      parent.kill("SIGKILL");
      await until("the child gone", () => !alive(pid), 10_000);
      expect(fs.readFileSync(log, "utf8")).to.match(/"event":"stopping","reason":"parent_exited"/);
    } finally {
      parent.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves no child running when the supervisor itself is killed with SIGKILL", async () => {
    const logDir = tempDir();
    const supervisorProcess = spawn(
      process.execPath,
      ["--import", "tsx", path.join(__dirname, "fixtures", "supervise.ts")],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, SUPERVISE_LOG_DIR: logDir },
      },
    );
    let stdout = "";
    let stderr = "";
    supervisorProcess.stdout!.on("data", (chunk) => {
      stdout += chunk;
    });
    supervisorProcess.stderr!.on("data", (chunk) => {
      stderr += chunk;
    });
    try {
      const pids = await until(
        "the children's pids",
        () => {
          if (supervisorProcess.exitCode !== null) throw new Error(`supervisor exited: ${stderr}`);
          const match = /^pids (.+)$/m.exec(stdout);
          return match ? (JSON.parse(match[1]) as Record<string, number>) : undefined;
        },
        60_000,
      );
      expect(Object.keys(pids)).to.deep.equal(["alpha", "beta", "gamma"]);
      for (const pid of Object.values(pids)) expect(alive(pid)).to.equal(true);
      supervisorProcess.kill("SIGKILL");
      // Parent watch once a second plus a stop that the deadline bounds at 4 s: well within 10 s.
      await until("every child gone", () => Object.values(pids).every((pid) => !alive(pid)), 10_000);
      // Our daemons ran their own stop (stopOnSignals), from the parent watch or the preload's SIGTERM.
      for (const name of ["alpha", "beta"]) {
        expect(fs.readFileSync(path.join(logDir, `${name}.log`), "utf8")).to.match(
          /"event":"stopping","reason":"(parent_exited|SIGTERM)"/,
        );
      }
    } finally {
      supervisorProcess.kill("SIGKILL");
      fs.rmSync(logDir, { recursive: true, force: true });
    }
  });

  it("a daemon whose stop never finishes still exits (code 1) within 5 s of SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CHILD_NAME: "stuck", CHILD_STOP: "hang" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
    });
    try {
      await until("the ready line", () => /^stuck {2}http/m.test(stdout), 60_000);
      const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
        child.once("exit", (code) => resolve({ code, at: Date.now() })),
      );
      const sentAt = Date.now();
      child.kill("SIGTERM");
      const { code, at } = await exited;
      expect(code).to.equal(1);
      expect(at - sentAt).to.be.below(5_000);
      expect(stderr).to.match(/"event":"stop_deadline"/);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("tells pino's error and fatal lines from the rest", () => {
    expect(isErrorLine('{"level":50,"msg":"x"}')).to.equal(true);
    expect(isErrorLine('{"level":60,"msg":"x"}')).to.equal(true);
    expect(isErrorLine('{"level":40,"msg":"x"}')).to.equal(false);
    expect(isErrorLine("explorer  http://127.0.0.1:3001/api")).to.equal(false);
    expect(isErrorLine("{not json")).to.equal(false);
  });
});
