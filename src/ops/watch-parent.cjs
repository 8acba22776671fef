/**
 * Preloaded (`node --require src/ops/watch-parent.cjs ...`) into every process that
 * src/ops/supervisor.ts starts, ours or not (the Hardhat node, the deploy step, the devnet and the
 * indexer, which handle their own signals): once a second it compares process.ppid with the
 * parent the process started under, and when the parent is gone (the supervisor was killed, even
 * with SIGKILL, and this process was re-parented) it sends itself SIGTERM, so that the process
 * stops as it would on Ctrl-C, and exits 1 five seconds later if it is still there. Plain
 * CommonJS so that it needs no loader. The timers are unref'd: they never keep a process alive.
 */
"use strict";
const parent = process.ppid;
const timer = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(timer);
  setTimeout(() => process.exit(1), 5_000).unref();
  try {
    process.kill(process.pid, "SIGTERM");
  } catch {
    process.exit(1);
  }
}, 1_000);
timer.unref();
