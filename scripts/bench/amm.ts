/**
 * npm run bench:amm, printing each figure against its target:
 *   1. in-process quotes from src/amm (quoteExactIn, both directions alternately): >= 1,000,000/s.
 *   2. bonding-curve quotes from src/amm/bonding (quoteBuy and quoteSell alternately): >= 1,000,000/s.
 *   3. quote requests over HTTP (GET /api/swap/quote, 64 connections, keep-alive, each quote kept in
 *      the AMM's SQLite file): >= 2,000/s.
 *   4. executed swaps on one pool in the ledger (AmmLedger.executeSwap: deposit read, checks,
 *      pool update, ledger row, payout queued, in one IMMEDIATE transaction on a WAL file),
 *      excluding on-chain settlement: >= 500/s. The deposits come from an in-memory reader standing
 *      in for the index (the bench measures the ledger, not the indexer), and the swaps are made
 *      beforehand through quote and createSwap.
 * BENCH_QUOTES (default 3,000,000), BENCH_HTTP_SECONDS (default 5), BENCH_SWAPS (default 5,000).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import { spawn } from "node:child_process";
// @ts-expect-error autocannon ships no types
import autocannon from "autocannon";
import { quoteExactIn } from "../../src/amm";
import { buy, createCurve, quoteBuy, quoteSell } from "../../src/amm/bonding";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { AmmLedger, DepositReader, DogeDeposit, createAmmApp, openAmmDatabase } from "../../src/services/amm";
import { newKey } from "../../test/helpers/keys";

const QUOTES = Number(process.env.BENCH_QUOTES ?? 3_000_000);
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const SWAPS = Number(process.env.BENCH_SWAPS ?? 5_000);
const DOGE = 100_000_000n;

const rate = (count: number, ms: number) => Math.round((count * 1000) / ms);
const verdict = (value: number, target: number) => (value >= target ? "meets" : `MISSES by ${Math.round((1 - value / target) * 100)}%`);

function benchMathQuotes(): number {
  const dogeReserve = 1_000_000n * DOGE;
  const tokenReserve = 21_000_000_000n;
  let sink = 0n;
  for (let i = 0; i < 100_000; i++) sink += quoteExactIn(dogeReserve, tokenReserve, 100n, "DOGE_TO_TOKEN", DOGE + BigInt(i)).amountOut;
  const start = performance.now();
  for (let i = 0; i < QUOTES; i++) {
    sink += (i & 1) === 0
      ? quoteExactIn(dogeReserve, tokenReserve, 100n, "DOGE_TO_TOKEN", DOGE + BigInt(i & 1023)).amountOut
      : quoteExactIn(dogeReserve, tokenReserve, 100n, "TOKEN_TO_DOGE", 10_000n + BigInt(i & 1023)).amountOut;
  }
  const ms = performance.now() - start;
  if (sink === 0n) throw new Error("no quote paid anything");
  return rate(QUOTES, ms);
}

function benchCurveQuotes(): number {
  // Mid-curve: 10,000 DOGE bought, so that sells have tokens to take back.
  const curve = buy(createCurve({ totalSupply: 1_000_000_000n, sellableSupply: 800_000_000n, virtualDoge: 30_000n * DOGE, graduationThreshold: 100_000n * DOGE }), 10_000n * DOGE).state;
  let sink = 0n;
  const start = performance.now();
  for (let i = 0; i < QUOTES; i++) {
    sink += (i & 1) === 0 ? quoteBuy(curve, DOGE + BigInt(i & 1023)).tokensOut : quoteSell(curve, 1_000n + BigInt(i & 1023)).dogeOutKoinu;
  }
  const ms = performance.now() - start;
  if (sink === 0n) throw new Error("no curve quote paid anything");
  return rate(QUOTES, ms);
}

/** A deposit reader over a map: what the index would answer for the bench's deposits. */
class MapDeposits extends DepositReader {
  readonly dogeDeposits = new Map<string, DogeDeposit>();
  constructor(custody: string) {
    super(new IndexQueries(openIndexerDatabase(":memory:")), openIndexerDatabase(":memory:"), custody);
  }
  doge(txid: string): DogeDeposit | null {
    return this.dogeDeposits.get(txid) ?? null;
  }
}

function seededLedger(dir: string, name: string) {
  const custody = newKey();
  const deposits = new MapDeposits(custody.address);
  const ledger = new AmmLedger({ db: openAmmDatabase(path.join(dir, `${name}.sqlite`)), network: NETWORKS.regtest, deposits, tickDeployed: (tick) => tick });
  ledger.seedPool({ tick: "PUPS", doge: 1_000_000n * DOGE, token: 21_000_000_000n, provider: custody.address, refId: "bench-seed", holdings: { doge: 2_000_000n * DOGE, token: 21_000_000_000n } });
  return { ledger, deposits };
}

/**
 * The AMM's HTTP server runs in its own process, as the daemon does, so that the load generator
 * (autocannon, in this process) does not take its CPU.
 */
async function benchHttpQuotes(dir: string): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", __filename, "--serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once("exit", (code) => reject(new Error(`the AMM server exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}/api/swap/quote?tick=PUPS&direction=DOGE_TO_TOKEN&amountIn=${10n * DOGE}&slippageBps=100`;
  const result = await autocannon({ url, connections: 64, duration: HTTP_SECONDS, pipelining: 1 });
  child.kill();
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`quote requests failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  process.stdout.write(`  http quotes: ${result.requests.total} in ${HTTP_SECONDS} s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms\n`);
  return Math.round(result.requests.average);
}

/** The server process: serves the AMM over a seeded ledger and prints its port. */
async function serve(dir: string): Promise<void> {
  const { ledger } = seededLedger(dir, "http");
  const server: Server = createAmmApp({ ledger, network: NETWORKS.regtest }).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
}

function benchExecutes(dir: string): number {
  const { ledger, deposits } = seededLedger(dir, "swaps");
  const trader = newKey();
  const swaps: { id: string; txid: string }[] = [];
  for (let i = 0; i < SWAPS; i++) {
    const amountIn = DOGE + BigInt(i % 1000) * 1_000_000n;
    const quote = ledger.quote({ tick: "PUPS", direction: "DOGE_TO_TOKEN", amountIn, slippageBps: 10_000 });
    const { swap } = ledger.createSwap(quote.id, trader.address);
    const txid = i.toString(16).padStart(64, "0");
    deposits.dogeDeposits.set(txid, { txid, height: 1, blockTime: swap.createdAt, amount: amountIn, payer: trader.address });
    swaps.push({ id: swap.id, txid });
  }
  const start = performance.now();
  for (const swap of swaps) {
    if (ledger.executeSwap(swap.id, swap.txid).outcome !== "executed") throw new Error(`swap ${swap.id} was not executed`);
  }
  const ms = performance.now() - start;
  return rate(SWAPS, ms);
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-amm-"));
  try {
    const math = benchMathQuotes();
    process.stdout.write(`quotes in-process (src/amm): ${math.toLocaleString("en")}/s (target 1,000,000: ${verdict(math, 1_000_000)})\n`);
    const curve = benchCurveQuotes();
    process.stdout.write(`curve quotes in-process (src/amm/bonding): ${curve.toLocaleString("en")}/s (target 1,000,000: ${verdict(curve, 1_000_000)})\n`);
    const http = await benchHttpQuotes(dir);
    process.stdout.write(`quote requests over HTTP: ${http.toLocaleString("en")}/s (target 2,000: ${verdict(http, 2_000)})\n`);
    const executes = benchExecutes(dir);
    process.stdout.write(`executed swaps on one pool (ledger): ${executes.toLocaleString("en")}/s (target 500: ${verdict(executes, 500)})\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--serve") {
  void serve(process.argv[3]);
} else {
  main().catch((error) => {
    process.stderr.write(`bench:amm failed: ${(error as Error).stack}\n`);
    process.exit(1);
  });
}

