/**
 * Many readers, one writer, several machines (issue 20, item 4), on loopback: a PostgreSQL primary
 * and a hot-standby replica made from it with pg_basebackup -R; the indexer daemon writes the
 * index to the primary as its own role; two explorer daemons read the replica and one the primary,
 * as a role that can only read. Once the replica has replayed the primary's WAL, the three answer
 * every request alike (status, the tip block, a transaction, an address's balance, history and
 * UTXOs in both APIs, DRC-20, OP_RETURN, an inscription), and again after the indexer has added
 * blocks while they ran.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { nullDataScript } from "../../src/doge";
import { SpawnedDaemon, spawnDaemon } from "../helpers/daemon";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { deployTick, faucetCoin, mintTick } from "../helpers/drc20";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";
import { PgCluster, pauseReplay, startCluster, startReplica, waitForReplay } from "../helpers/postgres";
import { until } from "../helpers/wait";

const DOGE = 100_000_000n;
const TICK = "RPLC";

// Waits for the PostgreSQL backend of the index (openIndexerDatabase / openIndexReader on a
// postgres:// location), which the lead is writing: until it is committed, the daemons refuse a
// postgres:// --db and this suite cannot run.
describe("PostgreSQL replica: explorers on a hot standby answer as on the primary", function () {
  this.timeout(300_000);
  let primary: PgCluster;
  let replica: PgCluster;
  let devnet: RunningDevnet;
  let dir: string;
  let indexer: SpawnedDaemon | undefined;
  const explorers: { name: string; daemon: SpawnedDaemon }[] = [];
  const miner = newKey();
  const alice = newKey();
  const bob = newKey();
  let paymentTxid: string;
  let deployInscription: string;

  /** The index's database as the indexer (owner) and as the read-only role, on a server. */
  const writerUrl = () => primary.url("dogeos_index").replace("postgres@", "indexer@");
  const readerUrl = (server: PgCluster) => server.url("dogeos_index").replace("postgres@", "explorer_ro@");

  async function startIndexer(): Promise<SpawnedDaemon> {
    // A long poll: once caught up the indexer writes nothing more (not even the node's height), so
    // the primary is quiet while the answers are compared.
    return spawnDaemon(
      "daemons/indexer/main.ts",
      ["--rpc-url", devnet.url, "--db", writerUrl(), "--network", "regtest", "--ops-port", "0", "--poll-ms", "600000"],
      "indexer",
    );
  }

  /** Runs the indexer until it has indexed the devnet's tip, then stops it. */
  async function indexToTip(): Promise<number> {
    const tip = await devnet.rpc<number>("getblockcount");
    indexer = await startIndexer();
    const daemon = indexer;
    await until(
      `the indexer at height ${tip}`,
      async () => {
        const health = (await (await fetch(`${daemon.url}/health`)).json()) as { indexedHeight: number };
        return health.indexedHeight === tip;
      },
      120_000,
      100,
    );
    expect(await daemon.stop(), daemon.stderr()).to.equal(0);
    indexer = undefined;
    return tip;
  }

  async function mine(blocks = 1): Promise<void> {
    await devnet.rpc("generatetoaddress", [blocks, miner.address]);
  }

  /** A payment from `from` with an OP_RETURN, mined later. */
  async function payWithNote(from: TestKey, to: TestKey, note: string): Promise<string> {
    const coin = await faucetCoin(devnet, from, 50);
    await mine();
    const tx = spendP2pkh(
      from,
      [coin],
      [
        { script: to.script, value: 20n * DOGE },
        { script: nullDataScript(Buffer.from(note)), value: 0n },
        { script: from.script, value: 29n * DOGE },
      ],
    );
    return devnet.rpc<string>("sendrawtransaction", [tx.hex]);
  }

  async function answer(base: string, route: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`${base}${route}`);
    return { status: response.status, body: await response.text() };
  }

  /** The requests compared across the three explorers. */
  function routes(): string[] {
    return [
      "/api/status",
      "/esplora/api/blocks/tip/height",
      "/esplora/api/blocks/tip/hash",
      `/api/tx/${paymentTxid}`,
      `/esplora/api/tx/${paymentTxid}`,
      `/esplora/api/tx/${paymentTxid}/status`,
      ...[alice, bob].flatMap((key) => [
        `/api/wallet/address/${key.address}/balance`,
        `/api/wallet/address/${key.address}/history`,
        `/api/wallet/address/${key.address}/utxos`,
        `/api/wallet/address/${key.address}/drc20`,
        `/esplora/api/address/${key.address}`,
        `/esplora/api/address/${key.address}/txs`,
        `/esplora/api/address/${key.address}/utxo`,
      ]),
      "/api/explorer/opreturn/recent",
      `/api/explorer/opreturn/tx/${paymentTxid}`,
      `/api/explorer/inscription/${deployInscription}`,
    ];
  }

  /** Waits until every explorer shows `height` (their status is cached 200 ms), then compares every route's answer. */
  async function expectSameAnswers(height: number): Promise<Record<string, { status: number; body: string }>> {
    for (const { name, daemon } of explorers) {
      await until(
        `${name} at height ${height}`,
        async () => {
          const status = JSON.parse((await answer(daemon.url.replace(/\/api$/, ""), "/api/status")).body) as {
            indexer: { indexed_height: number };
          };
          return status.indexer.indexed_height === height;
        },
        30_000,
        50,
      );
    }
    const seen: Record<string, Record<string, { status: number; body: string }>> = {};
    for (const { name, daemon } of explorers) {
      seen[name] = {};
      for (const route of routes()) seen[name][route] = await answer(daemon.url.replace(/\/api$/, ""), route);
    }
    const [first, ...others] = explorers.map((e) => e.name);
    // Every request is answered (a route failing alike everywhere would compare equal).
    const failed = routes()
      .filter((route) => seen[first][route].status !== 200)
      .map((route) => `${route}: ${seen[first][route].status} ${seen[first][route].body}`);
    const errors = explorers[0].daemon
      .stderr()
      .split("\n")
      .filter((line) => line.includes("http_internal_error"))
      .slice(-3)
      .join("\n");
    expect(failed, `${first}'s log:\n${errors}`).to.deep.equal([]);
    for (const other of others) {
      for (const route of routes())
        expect(seen[other][route], `${route} on ${other} and ${first}`).to.deep.equal(seen[first][route]);
    }
    return seen[first];
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-replica-"));
    primary = await startCluster({ primary: true });
    // The roles docs/operations.md ("PostgreSQL") recommends: the indexer owns the index's
    // database; readers can only read (pg_read_all_data), on the primary and on replicas alike.
    await primary.query("CREATE ROLE indexer LOGIN");
    await primary.query("CREATE ROLE explorer_ro LOGIN");
    await primary.query("GRANT pg_read_all_data TO explorer_ro");
    await primary.query(
      "CREATE DATABASE dogeos_index OWNER indexer TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
    );
    replica = await startReplica(primary);
    devnet = await startDevnet({ args: ["--promiscuousmempool", "--acceptnonstdtxn"] });

    // The chain: payments with OP_RETURNs, a DRC-20 deploy and mints.
    const funded = await faucetCoin(devnet, alice, 100);
    await mine();
    const pay = spendP2pkh(
      alice,
      [funded],
      [
        { script: bob.script, value: 30n * DOGE },
        { script: nullDataScript(Buffer.from("dogeos:replica")), value: 0n },
        { script: alice.script, value: 69n * DOGE },
      ],
    );
    paymentTxid = await devnet.rpc<string>("sendrawtransaction", [pay.hex]);
    deployInscription = await deployTick(devnet, alice, TICK, 21_000_000n, 1_000_000n);
    await mine();
    await mintTick(devnet, alice, TICK, 1_000_000n);
    await mintTick(devnet, bob, TICK, 250_000n);
    await mine(3);
  });

  after(async () => {
    for (const { daemon } of explorers) await daemon.stop();
    await indexer?.stop();
    await devnet?.stop();
    await replica?.stop();
    await primary?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("after the replica replays the indexer's writes, two explorers on it and one on the primary answer alike", async () => {
    const tip = await indexToTip();
    await waitForReplay(primary, replica);
    const servers: [string, PgCluster][] = [
      ["primary", primary],
      ["replica-1", replica],
      ["replica-2", replica],
    ];
    for (const [name, server] of servers) {
      const daemon = await spawnDaemon(
        "daemons/explorer/main.ts",
        [
          "--db",
          readerUrl(server),
          "--rpc-url",
          devnet.url,
          "--network",
          "regtest",
          "--port",
          "0",
          "--pqc-db",
          path.join(dir, `pqc-${name}.sqlite`),
          "--mempool-max-txs",
          "0",
        ],
        "explorer",
      );
      explorers.push({ name, daemon });
    }

    const answers = await expectSameAnswers(tip);
    // What they agree on is the chain, not three empty answers.
    const status = JSON.parse(answers["/api/status"].body);
    expect(status.indexer).to.include({ indexed_height: tip, synced: true, network: "regtest" });
    expect(answers[`/api/tx/${paymentTxid}`].status).to.equal(200);
    expect(JSON.parse(answers[`/api/tx/${paymentTxid}`].body).txid).to.equal(paymentTxid);
    const drc20 = JSON.parse(answers[`/api/wallet/address/${bob.address}/drc20`].body);
    expect(JSON.stringify(drc20)).to.include(TICK).and.include("250000");
    expect(answers["/api/explorer/opreturn/recent"].body).to.include(Buffer.from("dogeos:replica").toString("hex"));
    expect(answers[`/api/explorer/inscription/${deployInscription}`].status).to.equal(200);
    expect(answers[`/api/wallet/address/${bob.address}/history`].body).to.include(paymentTxid);
    expect(answers[`/esplora/api/address/${bob.address}/utxo`].body).to.include(paymentTxid);
  });

  it("blocks indexed while the explorers run reach the replica's explorers once replayed", async () => {
    paymentTxid = await payWithNote(bob, alice, "dogeos:replica second round");
    await mine(2);
    const tip = await indexToTip();
    await waitForReplay(primary, replica);
    const answers = await expectSameAnswers(tip);
    expect(answers[`/api/tx/${paymentTxid}`].status).to.equal(200);
    expect(answers["/api/explorer/opreturn/recent"].body).to.include(
      Buffer.from("dogeos:replica second round").toString("hex"),
    );
    // The replica's explorers never wrote: the standby would have refused it, and they kept serving.
    for (const { name, daemon } of explorers)
      expect(daemon.process.exitCode, `${name}: ${daemon.stderr()}`).to.equal(null);
  });

  // The replay-position INDEX_BEHIND rule (issue 20, item 4): the explorer asks its index handle's
  // replication() whether WAL it has received is not replayed yet (indexIsBehind).
  it("a replica that has received blocks it has not replayed answers 503 INDEX_BEHIND for them, not 404", async () => {
    const base = (name: string) => explorers.find((e) => e.name === name)!.daemon.url.replace(/\/api$/, "");
    await pauseReplay(replica);
    let txid: string;
    try {
      txid = await payWithNote(alice, bob, "dogeos:replica paused");
      await mine();
      await indexToTip();
      // The WAL with the new blocks has reached the replica; it applies none of it.
      const [{ lsn }] = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
      await until(
        "the replica to receive the new blocks",
        async () => {
          const [row] = await replica.query<{ received: boolean }>(
            "SELECT pg_last_wal_receive_lsn() >= $1::pg_lsn AS received",
            [lsn],
          );
          return row.received;
        },
        30_000,
      );
      expect((await answer(base("primary"), `/api/tx/${txid}`)).status).to.equal(200);
      for (const name of ["replica-1", "replica-2"]) {
        const response = await fetch(`${base(name)}/api/tx/${txid}`);
        const body = (await response.json()) as { error: { code: string } };
        expect(response.status, name).to.equal(503);
        expect(body.error.code, name).to.equal("INDEX_BEHIND");
        expect(response.headers.get("retry-after"), name).to.not.equal(null);
      }
    } finally {
      await pauseReplay(replica, false);
    }
    const tip = await devnet.rpc<number>("getblockcount");
    await waitForReplay(primary, replica);
    await expectSameAnswers(tip);
    expect((await answer(base("replica-1"), `/api/tx/${txid}`)).status).to.equal(200);
    // Caught up, an unknown transaction is absent again, not "behind".
    expect((await answer(base("replica-1"), `/api/tx/${"0".repeat(64)}`)).status).to.equal(404);
  });
});
