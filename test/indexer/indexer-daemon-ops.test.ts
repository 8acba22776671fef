import { expect } from "chai";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { runDaemonToExit, spawnDaemon } from "../helpers/daemon";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey } from "../helpers/keys";
import { until } from "../helpers/wait";

/** A TCP port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The JSON log lines (pino) of a daemon's stderr. */
function jsonLines(stderr: string): Record<string, any>[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

/**
 * The indexer daemon as an operator runs it (issue 19): it refuses a node on another network
 * before writing anything, shows its progress while catching up, and stops within 5 s of SIGTERM
 * when its node does not answer.
 */
describe("indexer daemon: start-up check, progress, stopping", function () {
  this.timeout(180_000);
  let devnet: RunningDevnet;
  let dir: string;
  let dbFile: string;
  const BLOCKS = 300;

  before(async () => {
    devnet = await startDevnet();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-ops-"));
    dbFile = path.join(dir, "index.sqlite");
    await devnet.rpc("generatetoaddress", [BLOCKS, newKey().address]);
  });

  after(async () => {
    await devnet?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("exits 2 with one line naming both networks when --network mainnet meets the (regtest) devnet", async () => {
    const info = await devnet.rpc<{ chain: string }>("getblockchaininfo");
    expect(info.chain).to.equal("regtest");
    const run = await runDaemonToExit("daemons/indexer/main.ts", [
      "--rpc-url",
      devnet.url,
      "--db",
      dbFile,
      "--network",
      "mainnet",
      "--ops-port",
      "0",
    ]);
    expect(run.code).to.equal(2);
    const lines = run.stderr.split("\n").filter((line) => line.startsWith("indexer:"));
    const host = new URL(devnet.url).host;
    expect(lines).to.deep.equal([
      `indexer: the node at http://${host}/ is on regtest ("regtest") but --network is mainnet; pass --network regtest or point --rpc-url at a mainnet node`,
    ]);
    // The password of the URL is nowhere in what it printed.
    expect(run.stderr).to.not.include(`:${decodeURIComponent(new URL(devnet.url).password)}@`);
  });

  it("logs catch-up progress lines (height, target, blocks/s, tx/s, ETA) and moves its gauges while catching up", async () => {
    // The same database: the refused start recorded no network, so regtest is accepted now. The
    // credentials come from a cookie file (dogecoind's "user:password" form, mode 0600).
    const url = new URL(devnet.url);
    const cookie = path.join(dir, ".cookie");
    fs.writeFileSync(cookie, `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`, {
      mode: 0o600,
    });
    const daemon = await spawnDaemon(
      "daemons/indexer/main.ts",
      [
        "--rpc-url",
        `http://${url.host}/`,
        "--rpc-cookie-file",
        cookie,
        "--db",
        dbFile,
        "--network",
        "regtest",
        "--ops-port",
        "0",
        "--batch-blocks",
        "20",
        "--progress-ms",
        "0",
      ],
      "indexer",
      { env: { LOG_LEVEL: "info" } },
    );
    try {
      await until("the synced line", () =>
        jsonLines(daemon.stderr()).find((line) => line.event === "synced" && line.indexedHeight === BLOCKS),
      );
      const progress = jsonLines(daemon.stderr()).filter((line) => line.event === "catch_up");
      // 301 blocks (0..300) in batches of at most 20: a line after every batch but the last.
      expect(progress.length).to.be.within(15, 301);
      for (const line of progress) {
        expect(line.level).to.equal(30);
        expect(line).to.include.keys("height", "target", "remaining", "blocks_per_s", "tx_per_s", "eta_s");
        expect(line.target).to.equal(BLOCKS);
        expect(line.remaining).to.equal(BLOCKS - line.height);
        expect(line.blocks_per_s).to.be.a("number").greaterThan(0);
        expect(line.tx_per_s).to.be.a("number").at.least(line.blocks_per_s);
        expect(line.eta_s).to.be.a("number").at.least(0);
      }
      const heights = progress.map((line) => line.height);
      heights.forEach((height, i) =>
        expect(height)
          .to.be.above(i === 0 ? -1 : heights[i - 1])
          .and.below(BLOCKS),
      );
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).to.match(new RegExp(`^indexer_indexed_height ${BLOCKS}$`, "m"));
      expect(metrics).to.match(new RegExp(`^indexer_blocks_applied_total ${BLOCKS + 1}$`, "m"));
      expect(metrics).to.match(new RegExp(`^indexer_transactions_applied_total ${BLOCKS + 1}$`, "m"));
    } finally {
      expect(await daemon.stop()).to.equal(0);
    }
  });

  it("stops within 5 s of SIGTERM while its node is unreachable (RPC retries and back-off abandoned)", async () => {
    const port = await closedPort();
    // A long poll: after a failed sync the back-off would be 30 s (the 31 s stop).
    const daemon = await spawnDaemon(
      "daemons/indexer/main.ts",
      [
        "--rpc-url",
        `http://user:secret@127.0.0.1:${port}`,
        "--db",
        path.join(dir, "unreachable.sqlite"),
        "--network",
        "regtest",
        "--ops-port",
        "0",
        "--poll-ms",
        "20000",
      ],
      "indexer",
      { env: { LOG_LEVEL: "info" } },
    );
    // The first call failed and the client is retrying it: SIGTERM lands inside a sync.
    await until("the client's first retry", () =>
      jsonLines(daemon.stderr()).some((line) => line.msg === "dogecoind RPC call failed, retrying"),
    );
    const started = Date.now();
    const code = await daemon.stop();
    expect(Date.now() - started).to.be.below(5_000);
    expect(code).to.equal(0);
    expect(jsonLines(daemon.stderr()).some((line) => line.event === "stopped")).to.equal(true);
  });
});
