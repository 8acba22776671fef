/**
 * npm run bench:launchpad:
 *   1. claims per second on one process: BENCH_CLAIMS (default 5,000) signed-in claimants claim on
 *      one collection, 64 at a time, over HTTP; then every claimed index is checked to be distinct.
 *      Target >= 1,000 claims/s with no duplicate index. The per-IP write limits and the per-session
 *      claim limit are on, set high enough that the benchmark (one IP) passes, so that their
 *      bookkeeping is in the figure; the per-IP reservation cap is off, since one IP holding 5,000
 *      live reservations is not what it is for (its check counts at most the cap's rows).
 *   2. a mint's confirmation reaching an open page's counter: on a devnet with the real inscriber,
 *      BENCH_MINTS (default 5) free mints; the time from the inscriber job turning `confirmed` to
 *      the `minted` event on an open event stream (the launchpad worker polls every 500 ms, as the
 *      daemon does). Target within 2 s.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { NETWORKS, privateKeyToPublicKey, publicKeyToAddress, signMessage } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { createLaunchpadApp, openLaunchpadDatabase } from "../../src/services/launchpad";
import { startLaunchpadStack } from "../../test/helpers/launchpad-stack";
import { until } from "../../test/helpers/wait";

const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
/** The operator key free listings need (X-Operator-Key), and what the bench's apps are given. */
const OPERATOR_KEY = "lk_bench_operator_key";
const OPERATOR_KEY_SHA256 = crypto.createHash("sha256").update(OPERATOR_KEY).digest("hex");

function request(
  base: string,
  method: string,
  p: string,
  token?: string,
  body?: unknown,
  operator = false,
): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/api${p}`,
      {
        method,
        agent,
        headers: {
          ...(payload ? { "Content-Type": "application/json", "Content-Length": payload.length } : {}),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(operator ? { "X-Operator-Key": OPERATOR_KEY } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        });
      },
    );
    req.setNoDelay(true);
    req.on("error", reject);
    req.end(payload);
  });
}

function keyPair() {
  const privateKey = secp256k1.utils.randomSecretKey();
  return { privateKey, address: publicKeyToAddress(privateKeyToPublicKey(privateKey), NETWORKS.regtest) };
}

async function signIn(base: string, key: { privateKey: Uint8Array; address: string }): Promise<string> {
  const { challenge } = (await request(base, "GET", `/session/challenge?address=${key.address}`)).body;
  const session = await request(base, "POST", "/session", undefined, {
    address: key.address,
    challenge,
    signature: signMessage(challenge, key.privateKey),
  });
  if (session.status !== 201) throw new Error(`sign-in failed: ${JSON.stringify(session.body)}`);
  return session.body.token;
}

async function pool<T>(count: number, width: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await run(i);
      }
    }),
  );
  return out;
}

async function listen(app: http.RequestListener): Promise<{ server: Server; base: string }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

async function claimsPerSecond(dir: string): Promise<boolean> {
  const claims = Number(process.env.BENCH_CLAIMS ?? 5000);
  const app = createLaunchpadApp({
    db: openLaunchpadDatabase(path.join(dir, "claims.sqlite")),
    queries: new IndexQueries(openIndexerDatabase(":memory:")),
    network: NETWORKS.regtest,
    operatorKeySha256: OPERATOR_KEY_SHA256,
    rateLimitPerMinute: 10 * claims,
    claimsPerSessionPerMinute: 10,
    maxReservationsPerClient: 0,
  });
  const { server, base } = await listen(app);
  try {
    process.stderr.write(`signing in ${claims} claimants...\n`);
    const keys = Array.from({ length: claims }, keyPair);
    const tokens = await pool(claims, 32, (i) => signIn(base, keys[i]));
    const lister = tokens[0];
    const listed = await request(
      base,
      "POST",
      "/collections",
      lister,
      { slug: "bench-claims", name: "Bench", price_koinu: "0", max: 1_000_000, creator_address: keys[0].address },
      true,
    );
    if (listed.status !== 201) throw new Error(`listing failed: ${JSON.stringify(listed.body)}`);
    const started = performance.now();
    const answers = await pool(claims, 64, (i) =>
      request(base, "POST", "/collections/bench-claims/claim", tokens[i], {}),
    );
    const seconds = (performance.now() - started) / 1000;
    const indices = answers.map((a) => a.body?.index);
    const refused = answers.filter((a) => a.status !== 201).length;
    const distinct = new Set(indices).size;
    const rate = claims / seconds;
    const ok = rate >= 1000 && refused === 0 && distinct === claims;
    process.stdout.write(
      `claims: ${claims} claimants, 64 at a time: ${rate.toFixed(0)} claims/s, ${distinct} distinct indices, ${refused} refused (target >= 1000/s, no duplicate) ${ok ? "ok" : "MISSED"}\n`,
    );
    return ok;
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

async function counterLatency(): Promise<boolean> {
  const mints = Number(process.env.BENCH_MINTS ?? 5);
  // The mint path's stack (devnet, index, the real inscriber over HTTP, the launchpad), with the
  // launchpad's worker following jobs every 500 ms as the daemon does.
  const stack = await startLaunchpadStack({ launchpad: { operatorKeySha256: OPERATOR_KEY_SHA256 } });
  const { jobs, platform } = stack;
  const launchpad = { base: stack.base };
  stack.runMints(500);
  /** When the inscriber's own store says `jobId` is confirmed (the moment the latency counts from). */
  const confirm = async (jobId: string): Promise<number> => {
    await until(`job ${jobId} revealed`, () => ["revealed", "confirmed"].includes(jobs.get(jobId)!.status));
    await stack.mine();
    await platform.checkConfirmations();
    await until(`job ${jobId} confirmed`, () => jobs.get(jobId)!.status === "confirmed", 60_000);
    return performance.now();
  };
  try {
    const lister = keyPair();
    const token = await signIn(launchpad.base, lister);
    const listed = await request(
      launchpad.base,
      "POST",
      "/collections",
      token,
      { slug: "bench-live", name: "Live", price_koinu: "0", max: 100, creator_address: lister.address },
      true,
    );
    await confirm(listed.body.deploy.job_id);
    // An open page: the event stream, read as a browser's EventSource would.
    const events: { minted: number; at: number }[] = [];
    const stream = await fetch(`${launchpad.base}/api/collections/bench-live/events`);
    const reader = stream.body!.getReader();
    void (async () => {
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += Buffer.from(value).toString();
        for (const match of buffer.matchAll(/event: minted\ndata: (\{[^\n]*\})\n\n/g))
          events.push({ minted: JSON.parse(match[1]).minted, at: performance.now() });
        buffer = buffer.slice(buffer.lastIndexOf("\n\n") + 2);
      }
    })();
    const latencies: number[] = [];
    for (let i = 0; i < mints; i++) {
      const claimant = keyPair();
      const claimantToken = await signIn(launchpad.base, claimant);
      const reservation = (await request(launchpad.base, "POST", "/collections/bench-live/claim", claimantToken, {}))
        .body;
      const mint = await request(launchpad.base, "POST", "/collections/bench-live/mint", claimantToken, {
        reservation_id: reservation.reservation_id,
      });
      if (mint.status !== 202) throw new Error(`mint failed: ${JSON.stringify(mint.body)}`);
      const confirmedAt = await confirm(mint.body.inscriber_job_id);
      const seen = await until(`the counter at ${i + 1}`, () => events.find((e) => e.minted === i + 1), 30_000);
      latencies.push(seen.at - confirmedAt);
    }
    await reader.cancel();
    latencies.sort((a, b) => a - b);
    const worst = latencies[latencies.length - 1];
    const ok = worst < 2000;
    process.stdout.write(
      `counter: ${mints} mints, inscriber job confirmed to the open page's event: median ${latencies[Math.floor(latencies.length / 2)].toFixed(0)} ms, max ${worst.toFixed(0)} ms (target within 2000 ms) ${ok ? "ok" : "MISSED"}\n`,
    );
    return ok;
  } finally {
    await stack.stop();
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-launchpad-"));
  try {
    const claimsOk = await claimsPerSecond(dir);
    const counterOk = await counterLatency();
    process.exitCode = claimsOk && counterOk ? 0 : 1;
  } finally {
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench:launchpad: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
