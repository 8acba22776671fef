/**
 * npm run bench:scale [-- --txs 10000000 --dir data/bench/scale --seed 20 --reuse --baseline saved-output.txt --profile attester --utxo-cache-mb 192 --page-size 16384]
 *
 * Indexes a mainnet-shaped chain of --txs transactions (scale-generator.ts; generated once in a
 * child process and cached under --dir) with the real Indexer into a fresh SQLite index under
 * --dir, and prints per step (a million transactions; a tenth of the run when it is shorter than
 * two million): the step's tx/s, database bytes per transaction and peak RSS. Read latencies of
 * the busiest address through IndexQueries (balance, first history page, a history page half way
 * back, first UTXO page; p50/p99) are measured after the first million (the indexer stops there,
 * finishes its catch-up as it would at a tip, and resumes) and at the end. Then a projection of a
 * full mainnet sync from named, printed assumptions, and issue 27's table: PASS/FAIL per target,
 * each figure beside its ratio to a baseline run's (--baseline, a saved output). Exits 0 unless
 * the bench itself fails (bad flags, a block the indexer refuses). --page-size gives the new index's
 * SQLite page size (default the indexer's, INDEX_PAGE_SIZE; --reuse keeps the index's own).
 * --batch-log FILE writes one tab-separated line per batch the indexer committed (its last height,
 * blocks, transactions, inputs, outputs, milliseconds on the indexing clock, CPU milliseconds of all
 * threads, bytes read from storage, database file + WAL bytes after it), to see where inside a step
 * the time went.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { NETWORKS } from "../../src/doge";
import { INDEX_PAGE_SIZE, indexPageSize, openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { isIndexProfile } from "../../src/indexer/profile";
import { DEFAULT_UTXO_CACHE_MB, IndexerStore } from "../../src/indexer/store";
import { chainDirectory, integerFlag, parseFlags, readChainMeta } from "./scale-generator";
import { dbBytes, hostSpeed, measureReads, peakRssMb, printReads, readTouches, storageReadBytes } from "./scale-reads";
import { CachedChainSource } from "./scale-source";

const ROOT = path.resolve(__dirname, "..", "..");

export interface StepFigures {
  txs: number;
  stepTxs: number;
  stepSeconds: number;
  stepCpuSeconds: number;
  txPerSecond: number;
  dbBytes: number;
  bytesPerTx: number;
  peakRssMb: number;
  /** Bytes read from storage during the step (storageReadBytes()), chain files included. */
  storageReadBytes: number;
  /** The step's inputs (coinbases' included) and outputs per transaction: what each transaction asked of the index. */
  inputsPerTx: number;
  outputsPerTx: number;
  /** The host's speed over the step: the median of hostSpeed() sampled after each of its batches. */
  hostSpeed: number;
  /** Those samples. */
  speedSamples: number[];
}

/** The middle value of `values` (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    txs: "10000000",
    seed: "20",
    dir: "data/bench/scale",
    reuse: false,
    samples: "200",
    // Projection assumptions (see the printout): not measured here.
    "mainnet-txs": "400000000",
    "mainnet-blocks": "6000000",
    // The indexer drops its read-side indexes when further behind than this (its default: 1000 blocks).
    "defer-indexes-behind": "",
    // A saved output of an earlier run (any schema version) whose figures each line is compared to.
    baseline: "",
    // The index profile (src/indexer/profile.ts): full, or attester (spent outputs deeper than the reorg limit deleted).
    profile: "full",
    // MB of unspent outputs the indexer holds in memory (dogeos indexer --utxo-cache-mb; 0 for none).
    "utxo-cache-mb": String(DEFAULT_UTXO_CACHE_MB),
    "page-size": String(INDEX_PAGE_SIZE),
    "batch-log": "",
  });
  const profile = String(flags.profile);
  if (!isIndexProfile(profile)) throw new Error(`--profile must be full or attester, not "${profile}"`);
  const deferIndexesBehind =
    flags["defer-indexes-behind"] === "" ? undefined : integerFlag(flags, "defer-indexes-behind");
  const txs = integerFlag(flags, "txs");
  const seed = integerFlag(flags, "seed");
  const samples = Math.max(10, integerFlag(flags, "samples"));
  const mainnetTxs = integerFlag(flags, "mainnet-txs");
  const mainnetBlocks = integerFlag(flags, "mainnet-blocks");
  const root = path.resolve(ROOT, String(flags.dir));
  const chainDir = chainDirectory(root, { txs, seed });

  let meta = readChainMeta(chainDir);
  if (!meta) {
    process.stderr.write(
      `generating ${txs.toLocaleString("en-US")} transactions into ${path.relative(ROOT, chainDir)} (cached for later runs)...\n`,
    );
    // A child process, so the generator's UTXO set does not count in the indexer's peak RSS.
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(__dirname, "scale-generator.ts"),
        "--txs",
        String(txs),
        "--seed",
        String(seed),
        "--dir",
        chainDir,
      ],
      { stdio: "inherit" },
    );
    if (child.status !== 0) throw new Error(`the generator failed (exit ${child.status ?? child.signal})`);
    meta = readChainMeta(chainDir);
    if (!meta) throw new Error(`the generator left no meta.json in ${chainDir}`);
  }
  const pct = (n: number) => `${((100 * n) / meta!.txs).toFixed(2)}%`;
  process.stdout.write(
    `chain ${path.relative(ROOT, chainDir)}: ${meta.blocks.toLocaleString("en-US")} blocks, ${meta.txs.toLocaleString("en-US")} txs, ${(meta.bytes / 1e9).toFixed(2)} GB` +
      ` (generated in ${meta.generatedSeconds.toFixed(0)} s)\n  inscriptions ${pct(meta.reveals)} (DRC-20 deploy ${meta.drc20.deploy}, mint ${meta.drc20.mint}, transfer ${meta.drc20.transfer}; other ${meta.otherInscriptions}),` +
      ` their commits ${pct(meta.commits)}, OP_RETURN ${pct(meta.opReturns)}; ${meta.addressPool.toLocaleString("en-US")} addresses, busiest ${meta.busiest.address} in ${meta.busiest.txs.toLocaleString("en-US")} txs` +
      ` (exchange addresses: ${meta.hotTxs.map((n) => n.toLocaleString("en-US")).join(", ")})\n`,
  );

  fs.mkdirSync(root, { recursive: true });
  const indexFile = path.join(root, "index.sqlite");
  if (!flags.reuse) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(indexFile + suffix, { force: true });
  const source = new CachedChainSource(chainDir);
  const touches = readTouches(chainDir, meta);
  const db = openIndexerDatabase(indexFile, { pageSize: integerFlag(flags, "page-size") });
  const restores: { atTxs: number; ms: number; cpuMs: number; readBytes: number }[] = [];
  let indexedTxs = 0;
  const step = meta.txs >= 2_000_000 ? 1_000_000 : Math.max(1, Math.floor(meta.txs / 10));
  const steps: StepFigures[] = [];
  let clockMs = 0; // indexing time only (reads and the mid-run index rebuild excluded)
  // The process's CPU time over the same spans: on a shared machine the wall-clock rate mostly
  // measures the other processes' load, the rate per CPU second much less so.
  const cpuNow = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  let cpuMs = 0;
  let cpuStart = 0;
  let stepStartCpu = 0;
  // Storage reads since the step began (the reads and rebuild at the first read point excluded).
  let stepStartRead = storageReadBytes();
  let restoreCpuStart = 0;
  let restoreReadStart = 0;
  const cpuTotal = () => cpuMs + (cpuNow() - cpuStart);
  let clockStart = 0;
  let stepStartTxs = 0;
  let stepStartMs = 0;
  let stepInputs = 0;
  let stepOutputs = 0;
  // hostSpeed() samples of the step under way (their time is outside the indexing clock).
  let speedSamples: number[] = [];
  const nowMs = () => clockMs + (performance.now() - clockStart);
  const batchLog: string[] | null =
    flags["batch-log"] === ""
      ? null
      : ["height\tblocks\ttxs\tinputs\toutputs\tms\tcpu_ms\tstorage_read_bytes\tdb_bytes"];
  // The clocks and the storage reads when the last batch ended (set again after the mid-run reads).
  let lastBatch = { t: 0, c: 0, r: storageReadBytes() };
  const indexer = new Indexer({
    store: new IndexerStore(db, { utxoCacheMb: integerFlag(flags, "utxo-cache-mb") }),
    source,
    network: NETWORKS.mainnet,
    profile,
    ...(deferIndexesBehind === undefined ? {} : { deferIndexesBehind }),
    log: (event, fields) => {
      if (event === "read_indexes_restoring") {
        restoreCpuStart = cpuNow();
        restoreReadStart = storageReadBytes();
      }
      if (event === "read_indexes_restored")
        restores.push({
          atTxs: indexedTxs,
          ms: Number(fields?.ms ?? 0),
          cpuMs: cpuNow() - restoreCpuStart,
          readBytes: storageReadBytes() - restoreReadStart,
        });
    },
    onProgress: (progress) => {
      if (batchLog !== null) {
        const t = nowMs();
        const c = cpuTotal();
        const r = storageReadBytes();
        batchLog.push(
          [
            progress.indexedHeight,
            progress.blocks,
            progress.transactions,
            progress.inputs,
            progress.outputs,
            (t - lastBatch.t).toFixed(1),
            (c - lastBatch.c).toFixed(1),
            r - lastBatch.r,
            dbBytes(indexFile),
          ].join("\t"),
        );
        lastBatch = { t, c, r };
      }
      const probeStarted = performance.now();
      speedSamples.push(hostSpeed());
      const probeMs = performance.now() - probeStarted;
      clockStart += probeMs;
      cpuStart += probeMs;
      indexedTxs += progress.transactions;
      stepInputs += progress.inputs;
      stepOutputs += progress.outputs;
      // Batches are whole (up to 2000 blocks): step k ends with the first batch that reaches k steps
      // of transactions from the start, so the steps do not drift by a batch each and the last one
      // is the run's last million (less the part of a batch).
      if (indexedTxs >= (steps.length + 1) * step || indexedTxs === meta!.txs) {
        const t = nowMs();
        const c = cpuTotal();
        // A last remainder shorter than half a step is folded into the step before it (a rate over
        // a few hundred transactions says nothing).
        const fold = indexedTxs - stepStartTxs < step / 2 && steps.length > 0;
        if (fold) {
          const previous = steps.pop()!;
          stepStartTxs -= previous.stepTxs;
          stepStartMs -= previous.stepSeconds * 1000;
          stepStartCpu -= previous.stepCpuSeconds * 1000;
          stepStartRead -= previous.storageReadBytes;
          stepInputs += previous.inputsPerTx * previous.stepTxs;
          stepOutputs += previous.outputsPerTx * previous.stepTxs;
          speedSamples = [...previous.speedSamples, ...speedSamples];
        }
        const figures: StepFigures = {
          txs: indexedTxs,
          stepTxs: indexedTxs - stepStartTxs,
          stepSeconds: (t - stepStartMs) / 1000,
          stepCpuSeconds: (c - stepStartCpu) / 1000,
          storageReadBytes: storageReadBytes() - stepStartRead,
          txPerSecond: 0,
          dbBytes: dbBytes(indexFile),
          bytesPerTx: 0,
          peakRssMb: peakRssMb(),
          inputsPerTx: stepInputs / (indexedTxs - stepStartTxs),
          outputsPerTx: stepOutputs / (indexedTxs - stepStartTxs),
          hostSpeed: median(speedSamples),
          speedSamples,
        };
        figures.txPerSecond = figures.stepTxs / figures.stepSeconds;
        figures.bytesPerTx = figures.dbBytes / indexedTxs;
        steps.push(figures);
        stepStartTxs = indexedTxs;
        stepStartMs = t;
        stepStartCpu = c;
        stepStartRead += figures.storageReadBytes;
        stepInputs = 0;
        stepOutputs = 0;
        speedSamples = [];
        process.stdout.write(
          `  ${figures.txs.toLocaleString("en-US").padStart(12)} txs${fold ? " (last step, the remainder included)" : ""}  ${figures.txPerSecond.toFixed(0).padStart(7)} tx/s (${(figures.stepTxs / figures.stepCpuSeconds).toFixed(0)} per CPU s)  ${figures.bytesPerTx.toFixed(0).padStart(5)} B/tx` +
            `  db ${(figures.dbBytes / 1e9).toFixed(2)} GB  peak RSS ${figures.peakRssMb.toFixed(0)} MB` +
            `  ${figures.inputsPerTx.toFixed(2)} in ${figures.outputsPerTx.toFixed(2)} out per tx  host x${(figures.hostSpeed / steps[0].hostSpeed).toFixed(2)}` +
            `  storage reads ${(figures.storageReadBytes / figures.stepTxs).toFixed(0)} B/tx\n`,
        );
      }
    },
  });
  if (flags.reuse) indexedTxs = 0;
  // The probe's loop compiled and run hot before the first step's samples (its first runs are slower).
  for (let i = 0; i < 8; i++) hostSpeed();
  const sync = async (): Promise<void> => {
    clockStart = performance.now();
    cpuStart = cpuNow();
    await indexer.syncOnce();
    clockMs += performance.now() - clockStart;
    cpuMs += cpuNow() - cpuStart;
  };

  process.stdout.write(
    `\nread-side indexes deferred during catch-up: ${deferIndexesBehind === undefined ? "when > 1000 blocks behind (the indexer's default)" : `when > ${deferIndexesBehind} blocks behind (--defer-indexes-behind)`}`,
  );
  process.stdout.write(
    `\nindexing into ${path.relative(ROOT, indexFile)} (${indexPageSize(db)}-byte pages), profile ${profile}, UTXO cache ${flags["utxo-cache-mb"]} MB (per ${step.toLocaleString("en-US")} txs: that step's rate, database file + WAL per tx so far, peak RSS so far, the step's inputs and outputs per tx, the host's speed against the first step's, bytes read from storage, not the page cache, per tx of the step)\n`,
  );
  const firstReadTxs = Math.min(1_000_000, Math.floor(meta.txs / 2));
  const firstReadHeight = source.heightAtTxs(firstReadTxs);
  source.limitTip(firstReadHeight);
  await sync();
  // The indexer rebuilt its deferred read indexes on reaching this (temporary) tip: not part of a
  // continuous sync, so that time comes off the clock.
  const midRestore = restores.length > 0 ? restores[restores.length - 1].ms : 0;
  clockMs -= midRestore;
  cpuMs -= restores.length > 0 ? restores[restores.length - 1].cpuMs : 0;
  stepStartRead += restores.length > 0 ? restores[restores.length - 1].readBytes : 0;
  const readsStarted = storageReadBytes();
  const reads1 = measureReads(indexFile, meta, touches, firstReadHeight, indexedTxs, samples);
  stepStartRead += storageReadBytes() - readsStarted;
  const touchesAt1 = (() => {
    let n = 0;
    while (n * 2 < touches.length && touches[n * 2] <= firstReadHeight) n++;
    return n;
  })();
  printReads(reads1, touchesAt1);
  process.stdout.write("\n");
  // The clocks stand still from here to the next sync (the rebuild and the reads are not indexing).
  lastBatch = { t: clockMs, c: cpuMs, r: storageReadBytes() };
  source.limitTip(null);
  await sync();
  const finalRestore = restores.length > 1 ? restores[restores.length - 1].ms : 0;
  const totalSeconds = clockMs / 1000;
  const finalBytes = dbBytes(indexFile);
  const tip = indexer.indexedHeight();
  if (tip !== meta.blocks - 1) throw new Error(`indexed to height ${tip}, the chain ends at ${meta.blocks - 1}`);
  if (indexedTxs !== meta.txs && !flags.reuse)
    throw new Error(`indexed ${indexedTxs} transactions, the chain holds ${meta.txs}`);
  if (batchLog !== null) fs.writeFileSync(String(flags["batch-log"]), batchLog.join("\n") + "\n");
  const reads2 = measureReads(indexFile, meta, touches, tip, indexedTxs, samples);
  db.close(); // checkpoints the WAL into the file
  source.close();
  const closedBytes = dbBytes(indexFile);

  printReads(reads2, meta.busiest.txs);
  if (reads2.historyTotal !== meta.busiest.txs)
    process.stdout.write(
      `  NOTE: the index counts ${reads2.historyTotal} txs for the busiest address, the generator ${meta.busiest.txs}\n`,
    );

  const overall = meta.txs / totalSeconds;
  const overallCpu = meta.txs / (cpuMs / 1000);
  if (steps.length === 0)
    throw new Error("nothing was indexed (with --reuse the index was already complete: run without it)");
  const first = steps[0];
  const last = steps[steps.length - 1];
  const peak = peakRssMb();
  process.stdout.write(
    `\nindexed ${meta.txs.toLocaleString("en-US")} txs (${meta.blocks.toLocaleString("en-US")} blocks) in ${totalSeconds.toFixed(0)} s: ${overall.toFixed(0)} tx/s overall,` +
      ` including the final rebuild of the deferred read indexes (${(finalRestore / 1000).toFixed(1)} s; the rebuild at the first read point, ${(midRestore / 1000).toFixed(1)} s, excluded)\n`,
  );
  process.stdout.write(
    `database ${(finalBytes / 1e9).toFixed(2)} GB with its WAL = ${(finalBytes / meta.txs).toFixed(0)} bytes/tx (${(closedBytes / meta.txs).toFixed(0)} bytes/tx once checkpointed); chain ${(meta.bytes / meta.txs).toFixed(0)} bytes/tx raw; peak RSS ${peak.toFixed(0)} MB\n`,
  );
  // Since generator version 2 the chain keeps one shape (scale-generator.ts); version 1's changed
  // where its UTXO pool reached a target sized from --txs. Printed so that a change shows.
  process.stdout.write(
    `work per transaction: ${first.inputsPerTx.toFixed(2)} inputs and ${first.outputsPerTx.toFixed(2)} outputs in the first step, ${last.inputsPerTx.toFixed(2)} and ${last.outputsPerTx.toFixed(2)} in the last` +
      ` (each input is a spend to look up and mark: the last step's rate is per transaction of that step's shape)\n`,
  );

  // Projection. Both mainnet figures are assumptions given as flags, not measurements: issue 20
  // gives "about six million blocks and hundreds of millions of transactions"; no sourced total
  // transaction count was available offline, so --mainnet-txs defaults to 400,000,000.
  const pessimistic = last.txPerSecond;
  const hours = (rate: number) => mainnetTxs / rate / 3600;
  const diskGb = ((closedBytes / meta.txs) * mainnetTxs) / 1e9;
  process.stdout.write(
    `\nprojection of a full mainnet sync (ASSUMPTIONS, change with flags):\n` +
      `  --mainnet-txs ${mainnetTxs.toLocaleString("en-US")} transactions, --mainnet-blocks ${mainnetBlocks.toLocaleString("en-US")} blocks (issue 20: "about six million blocks and hundreds of millions of transactions"; not a sourced count)\n` +
      `  the rate stays at this run's (overall / last step; beyond ${meta.txs.toLocaleString("en-US")} txs the B-trees keep growing, so the real rate is lower: extrapolated, not measured),\n` +
      `  blocks come from local files (an RPC source adds getblock per block: ${mainnetBlocks.toLocaleString("en-US")} calls), bytes per tx stay at this run's ${(closedBytes / meta.txs).toFixed(0)} (checkpointed)\n` +
      `  time: ${hours(overall).toFixed(1)} h at ${overall.toFixed(0)} tx/s, ${hours(pessimistic).toFixed(1)} h at the last step's ${pessimistic.toFixed(0)} tx/s; disk: ${diskGb.toFixed(0)} GB of index\n`,
  );

  // The issue's table (issue 27): each figure against its target, and beside it the ratio to a
  // baseline run's figure (--baseline: the saved output of an earlier bench:scale, of any schema
  // version, on this host: hosts differ by 3x, so a ratio on one host says more than a figure).
  const baseline = flags.baseline === "" ? null : readBaseline(path.resolve(ROOT, String(flags.baseline)));
  const bytesPerTx = closedBytes / meta.txs;
  const readsP99 = Math.max(...reads2.results.map((r) => r.p99));
  const keep = (last.txPerSecond / first.txPerSecond) * 100;
  const keepAtHostSpeed = keep * (first.hostSpeed / last.hostSpeed);
  // The first step of the last step's shape (inputs per transaction within 2%): the ratio of the two
  // measures the index's growth alone, without a change of the chain's shape (the first step
  // itself on generator version 2's chain).
  const sameShape = steps.find((s) => Math.abs(s.inputsPerTx - last.inputsPerTx) <= 0.02 * last.inputsPerTx)!;
  const keepSameShape = (last.txPerSecond / sameShape.txPerSecond) * 100;
  const lines: TableLine[] = [
    {
      name: "overall rate, deferred index builds included",
      value: `${overall.toFixed(0)} tx/s`,
      target: ">= 10,000 tx/s",
      ok: overall >= 10_000,
      ratio: baseline && overall / baseline.overall,
    },
    {
      name: "last step's rate against the first",
      value: `${keep.toFixed(0)}% (${last.txPerSecond.toFixed(0)} / ${first.txPerSecond.toFixed(0)} tx/s)`,
      target: ">= 70%",
      ok: keep >= 70,
      ratio: baseline && keep / baseline.keepPct,
    },
    {
      // The same ratio with each step's rate divided by the host's speed over it (hostSpeed()).
      name: "(not a target) the same, at the host's speed of each step",
      value: `${keepAtHostSpeed.toFixed(0)}% (host x${(last.hostSpeed / first.hostSpeed).toFixed(2)} in the last)`,
      target: "-",
      ok: true,
      ratio: null,
    },
    {
      name: "(not a target) the same, against the first step of its shape",
      value: `${keepSameShape.toFixed(0)}% (from ${sameShape.txs.toLocaleString("en-US")} txs)`,
      target: "-",
      ok: true,
      ratio: null,
    },
    {
      name: "bytes per transaction, checkpointed",
      value: `${bytesPerTx.toFixed(0)} B`,
      target: "<= 600 B",
      ok: bytesPerTx <= 600,
      ratio: baseline && bytesPerTx / baseline.bytesPerTx,
    },
    {
      name: "peak RSS, indexing and rebuilds",
      value: `${peak.toFixed(0)} MB`,
      target: "< 2,048 MB",
      ok: peak < 2048,
      ratio: baseline && peak / baseline.peakRssMb,
    },
    {
      name: "(not a target) rate per CPU second, deferred builds included",
      value: `${overallCpu.toFixed(0)} tx/s`,
      target: "-",
      ok: true,
      ratio: baseline && baseline.overallCpu !== null ? overallCpu / baseline.overallCpu : null,
    },
    {
      name: `busiest address (${reads2.historyTotal.toLocaleString("en-US")} txs): ${reads2.results.length} reads, worst p99`,
      value: `${readsP99.toFixed(2)} ms`,
      target: "< 50 ms",
      ok: readsP99 < 50,
      ratio: baseline && readsP99 / baseline.readsP99,
    },
    {
      name: `mainnet projection (${(mainnetTxs / 1e6).toFixed(0)}M txs): time at the overall rate`,
      value: `${hours(overall).toFixed(1)} h`,
      target: "< 12 h",
      ok: hours(overall) < 12,
      ratio: baseline && overall > 0 ? baseline.overall / overall : null,
    },
    {
      name: `mainnet projection (${(mainnetTxs / 1e6).toFixed(0)}M txs): disk`,
      value: `${diskGb.toFixed(0)} GB`,
      target: "< 250 GB",
      ok: diskGb < 250,
      ratio: baseline && bytesPerTx / baseline.bytesPerTx,
    },
  ];
  process.stdout.write(
    `\nissue 27's table at ${meta.txs.toLocaleString("en-US")} txs (2 shared cores: other processes' load is in these figures; the targets are set at 10,000,000)` +
      (baseline
        ? `; ratio = this run / the baseline ${path.relative(ROOT, path.resolve(ROOT, String(flags.baseline)))} (${baseline.txs.toLocaleString("en-US")} txs)`
        : "; no --baseline given") +
      "\n",
  );
  for (const line of lines)
    process.stdout.write(
      `  ${line.ok ? "PASS" : "FAIL"}  ${line.name.padEnd(62)} ${line.value.padStart(26)}  target ${line.target.padEnd(15)}${line.ratio === null || line.ratio === undefined ? "" : `  x${line.ratio.toFixed(2)} of baseline`}\n`,
    );
  const passed = lines.filter((t) => t.ok && t.target !== "-").length;
  const counted = lines.filter((t) => t.target !== "-").length;
  process.stdout.write(
    `\nbench:scale ${meta.txs.toLocaleString("en-US")} txs: ${overall.toFixed(0)} tx/s overall (first step ${first.txPerSecond.toFixed(0)}, last ${last.txPerSecond.toFixed(0)}),` +
      ` ${(finalBytes / meta.txs).toFixed(0)} B/tx (${bytesPerTx.toFixed(0)} checkpointed), peak RSS ${peak.toFixed(0)} MB, history p99 ${reads2.results[1].p99.toFixed(2)} ms, UTXO page p99 ${reads2.results[3].p99.toFixed(2)} ms: ${passed}/${counted} targets PASS\n` +
      `cpu: ${overallCpu.toFixed(0)} tx per CPU second overall\n`,
  );
}

interface TableLine {
  name: string;
  value: string;
  target: string;
  ok: boolean;
  /** This run's figure over the baseline's (null without a baseline). */
  ratio: number | null;
}

/** The figures of a baseline run, read from its saved output (the summary line and the byte figures). */
export interface BaselineFigures {
  txs: number;
  overall: number;
  keepPct: number;
  bytesPerTx: number;
  peakRssMb: number;
  readsP99: number;
  /** Absent from outputs of versions before issue 27. */
  overallCpu: number | null;
}

/**
 * Reads a saved bench:scale output: the closing summary line ("bench:scale N txs: R tx/s overall
 * (first step A, last B), ..."), "(N bytes/tx once checkpointed)" and the read table's p99 column.
 * Versions before issue 27 print the same lines.
 */
export function readBaseline(file: string): BaselineFigures {
  const text = fs.readFileSync(file, "utf8");
  const num = (s: string) => Number(s.replace(/,/g, ""));
  const summary = /bench:scale ([\d,]+) txs: (\d+) tx\/s overall \(first step (\d+), last (\d+)\)/.exec(text);
  const checkpointed = /\((\d+) bytes\/tx once checkpointed\)/.exec(text);
  const peak = /peak RSS (\d+) MB, history p99/.exec(text);
  if (!summary || !checkpointed || !peak)
    throw new Error(`${file} is not a saved bench:scale output (no summary line)`);
  // The last read table (at the end of the run): every "p99 <ms>" after the last "reads at".
  const lastReads = text.slice(text.lastIndexOf("\nreads at "));
  const p99s = [...lastReads.matchAll(/p99\s+([\d.]+) ms/g)].map((m) => Number(m[1]));
  return {
    txs: num(summary[1]),
    overall: num(summary[2]),
    keepPct: (100 * num(summary[4])) / num(summary[3]),
    bytesPerTx: num(checkpointed[1]),
    peakRssMb: num(peak[1]),
    readsP99: Math.max(...p99s.slice(0, 4)),
    overallCpu: /cpu: (\d+) tx per CPU second overall/.exec(text)
      ? num(/cpu: (\d+) tx per CPU second/.exec(text)![1])
      : null,
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:scale: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
