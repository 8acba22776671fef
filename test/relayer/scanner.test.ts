import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { JobScanner, RelayerStore, openRelayerDatabase } from "../../src/relayer";
import { FakeL2, announced } from "./fake-l2";

/** The relayer's L2 scan over a fake chain whose blocks a test replaces (L2 reorgs of a few blocks). */
describe("relayer L2 scan", () => {
  const newStore = () => new RelayerStore(openRelayerDatabase(":memory:"));
  const ids = (store: RelayerStore) =>
    store
      .live(100)
      .map((job) => job.jobId)
      .sort();

  it("records each announced job once with the event's parameters, and moves the cursor to the last block and its hash", async () => {
    const chain = new FakeL2(3);
    const a = announced("inscription", 0, { contentType: "image/png", action: "LIST", dogeRecipient: "nSomeone" });
    const b = announced("anchor", 0);
    chain.extend(3, { 1: [a], 2: [b] });
    const store = newStore();
    const result = await new JobScanner({ source: chain, store }).scan();
    expect(result).to.deep.equal({ fromBlock: 0, toBlock: 5, head: 5, newJobs: 2, reorg: false });
    expect(store.cursor()).to.deep.equal({ blockNumber: 5, blockHash: chain.blocks[5].hash });
    const stored = store.get(a.jobId)!;
    expect(stored).to.deep.include({
      kind: "inscription",
      contentType: "image/png",
      action: "LIST",
      dogeRecipient: "nSomeone",
      resultHash: a.resultHash,
      l2Block: 4,
      status: "seen",
      round: 1,
    });
    expect(stored.payload).to.deep.equal(a.payload);
    expect(stored.feeWei).to.equal(a.feeWei);
    expect(store.get(b.jobId)!.l2Block).to.equal(5);
    expect((await new JobScanner({ source: chain, store }).scan()).newJobs).to.equal(0);
  });

  it("resumes from the stored cursor after a restart instead of the first block", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "relayer-scan-")), "relayer.sqlite");
    const chain = new FakeL2(10);
    const first = openRelayerDatabase(file);
    await new JobScanner({ source: chain, store: new RelayerStore(first), fromBlock: 4 }).scan();
    expect(chain.ranges).to.deep.equal([[4, 9]]);
    first.close();
    const job = announced("anchor", 0);
    chain.extend(2, { 1: [job] });
    const again = openRelayerDatabase(file);
    const store = new RelayerStore(again);
    const result = await new JobScanner({ source: chain, store, fromBlock: 4 }).scan();
    expect(chain.ranges).to.deep.equal([
      [4, 9],
      [10, 11],
    ]);
    expect(result.newJobs).to.equal(1);
    expect(store.get(job.jobId)!.l2Block).to.equal(11);
    again.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it("re-scans the last blocks when the cursor's block was replaced, keeping one row per job id", async () => {
    const chain = new FakeL2(5);
    const kept = announced("anchor", 0);
    const moved = announced("inscription", 0);
    chain.extend(5, { 1: [kept], 3: [moved] }); // blocks 5..9: kept at 6, moved at 8
    const store = newStore();
    const logs: string[] = [];
    const scanner = new JobScanner({ source: chain, store, reorgDepth: 4, log: (event) => logs.push(event) });
    await scanner.scan();
    // Blocks 8 and 9 replaced by three others: `moved` is announced again at 9, a new job at 10.
    const fresh = announced("anchor", 0);
    chain.reorg(8, 3, { 1: [moved], 2: [fresh] });
    const result = await scanner.scan();
    expect(result.reorg).to.equal(true);
    expect(chain.ranges.at(-1)).to.deep.equal([6, 10]);
    expect(result.newJobs).to.equal(1);
    expect(ids(store)).to.deep.equal([kept.jobId, moved.jobId, fresh.jobId].sort());
    expect(store.cursor()).to.deep.equal({ blockNumber: 10, blockHash: chain.blocks[10].hash });
    expect(logs).to.include("relayer_l2_reorg");
  });

  it("moves the cursor back when the chain became shorter, and finds the jobs of the new branch as it grows", async () => {
    const chain = new FakeL2(12);
    const store = newStore();
    const scanner = new JobScanner({ source: chain, store, reorgDepth: 3 });
    await scanner.scan();
    chain.reorg(10, 0); // head 9: the cursor's block 11 is gone
    const shorter = await scanner.scan();
    expect(shorter.reorg).to.equal(true);
    expect(store.cursor()).to.deep.equal({ blockNumber: 9, blockHash: chain.blocks[9].hash });
    const job = announced("inscription", 0);
    chain.extend(2, { 1: [job] });
    const grown = await scanner.scan();
    expect(grown.reorg).to.equal(false);
    expect(grown.newJobs).to.equal(1);
    expect(store.get(job.jobId)!.l2Block).to.equal(11);
  });

  it("stays the configured number of confirmations behind the head", async () => {
    const chain = new FakeL2(4);
    const job = announced("anchor", 0);
    chain.extend(1, { 0: [job] }); // block 4
    const store = newStore();
    const scanner = new JobScanner({ source: chain, store, confirmations: 2 });
    expect((await scanner.scan()).toBlock).to.equal(2);
    expect(store.get(job.jobId)).to.equal(null);
    chain.extend(2);
    expect((await scanner.scan()).newJobs).to.equal(1);
    expect(store.cursor()!.blockNumber).to.equal(4);
  });

  it("reads long ranges in getLogs calls of at most maxBlockRange blocks, committing the cursor after each", async () => {
    const chain = new FakeL2(25);
    const store = newStore();
    await new JobScanner({ source: chain, store, fromBlock: 3, maxBlockRange: 10 }).scan();
    expect(chain.ranges).to.deep.equal([
      [3, 12],
      [13, 22],
      [23, 24],
    ]);
    expect(store.cursor()!.blockNumber).to.equal(24);
  });

  it("keeps the cursor when the chain changes during a read, and reads the range again on the next scan", async () => {
    const chain = new FakeL2(6);
    const store = newStore();
    const scanner = new JobScanner({ source: chain, store });
    await scanner.scan();
    const lost = announced("anchor", 0);
    const job = announced("anchor", 0);
    chain.extend(2, { 1: [lost] }); // 6, 7
    chain.duringRead = () => chain.reorg(7, 1, { 0: [job] });
    const moved = await scanner.scan();
    expect(moved.toBlock).to.equal(null);
    expect(store.cursor()!.blockNumber).to.equal(5);
    expect(store.get(lost.jobId)).to.equal(null);
    const again = await scanner.scan();
    expect(again.toBlock).to.equal(7);
    expect(store.get(job.jobId)!.l2Block).to.equal(7);
    expect(store.get(lost.jobId)).to.equal(null);
  });

  it("refuses a database of another schema", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "relayer-schema-")), "other.sqlite");
    const db = openRelayerDatabase(file);
    db.prepare("UPDATE meta SET value = 'inscriber' WHERE key = 'schema'").run();
    db.close();
    expect(() => openRelayerDatabase(file)).to.throw(/"inscriber" schema/);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
