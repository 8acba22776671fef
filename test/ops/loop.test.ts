/**
 * runEvery (src/ops/loop.ts), the daemons' one periodic loop, with short real timers: passes never
 * overlap, stop() waits for the pass in flight and nothing runs after it, failures back off
 * (doubling up to the cap, reset by a success) and are logged once per streak, and the loop's
 * timers never keep the process alive. Only lower bounds of delays are asserted (a timer never
 * fires early by more than a millisecond); waits are bounded by `until`.
 */
import { expect } from "chai";
import { until } from "../helpers/wait";
import { runEvery } from "../../src/ops/loop";

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const activeTimeouts = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("runEvery (src/ops/loop.ts)", () => {
  it("runs the first pass at once, then one pass at a time, `ms` after the previous one ended", async () => {
    const gates: Deferred[] = [];
    const ends: number[] = [];
    const starts: number[] = [];
    let running = 0;
    let overlapped = false;
    const loop = runEvery("test_loop", 20, async () => {
      starts.push(Date.now());
      running++;
      if (running > 1) overlapped = true;
      const gate = deferred();
      gates.push(gate);
      await gate.promise;
      running--;
      ends.push(Date.now());
    });
    expect(gates.length, "the first pass starts synchronously").to.equal(1);
    // A slow pass: no second pass starts while it runs.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(gates.length).to.equal(1);
    gates[0].resolve();
    await until("the second pass", () => gates.length === 2, 5_000, 5);
    expect(starts[1] - ends[0]).to.be.at.least(19);
    gates[1].resolve();
    await until("the third pass", () => gates.length === 3, 5_000, 5);
    expect(starts[2] - ends[1]).to.be.at.least(19);
    gates[2].resolve();
    await loop.stop();
    expect(overlapped).to.equal(false);
  });

  it("stop() waits for the pass in flight, and no pass starts after it", async () => {
    const gate = deferred();
    let passes = 0;
    const loop = runEvery("test_loop", 5, async () => {
      passes++;
      await gate.promise;
    });
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await tick();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped, "stop() resolved while the pass was running").to.equal(false);
    gate.resolve();
    await stopping;
    expect(stopped).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(passes).to.equal(1);
    await loop.stop(); // a second stop is harmless
  });

  it("stop() resolves even when the pass in flight fails, and cancels the pass that was due", async () => {
    const gate = deferred();
    let passes = 0;
    const loop = runEvery("test_loop", 5, async () => {
      passes++;
      if (passes === 1) return;
      await gate.promise;
    });
    await until("the second pass", () => passes === 2, 5_000, 2);
    const stopping = loop.stop();
    gate.reject(new Error("boom"));
    await stopping;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(passes).to.equal(2);

    // Stopped between passes: the timer is cancelled.
    let idle = 0;
    const waiting = runEvery("test_loop", 10_000, () => {
      idle++;
    });
    await tick();
    const started = Date.now();
    await waiting.stop();
    expect(Date.now() - started).to.be.below(1_000);
    expect(idle).to.equal(1);
  });

  it("backs off on failure, doubling up to the cap, logs a streak once and resets on success", async () => {
    const events: { event: string; fields: Record<string, unknown> }[] = [];
    const starts: number[] = [];
    const outcomes = [false, false, false, false, true, true, false, true];
    let index = 0;
    const loop = runEvery(
      "test_loop",
      10,
      () => {
        starts.push(Date.now());
        const ok = outcomes[index++];
        if (ok === undefined) return undefined;
        if (!ok) throw new Error(`failure ${index}`);
        return undefined;
      },
      { log: (event, fields) => events.push({ event, fields }), backoff: { maxMs: 50 } },
    );
    await until("every scripted pass", () => index >= outcomes.length, 10_000, 5);
    await loop.stop();
    const gaps = starts.slice(1, outcomes.length).map((at, i) => at - starts[i]);
    // After failures 1..4: 20, 40, 50 (capped), 50; after the success: 10; after the failure: 20.
    const expected = [20, 40, 50, 50, 10, 10, 20];
    gaps.forEach((gap, i) => expect(gap, `gap ${i}`).to.be.at.least(expected[i] - 1));
    expect(gaps[4], "a success resets the delay").to.be.below(40);
    expect(events.map((e) => e.event)).to.deep.equal([
      "test_loop_failed",
      "test_loop_recovered",
      "test_loop_failed",
      "test_loop_recovered",
    ]);
    expect(events[0].fields).to.deep.include({ loop: "test_loop", err: "failure 1", retry_ms: 20 });
    expect(events[1].fields).to.deep.equal({ loop: "test_loop", failures: 4 });
    expect(events[2].fields).to.deep.include({ loop: "test_loop", err: "failure 7" });
    expect(events[3].fields).to.deep.equal({ loop: "test_loop", failures: 1 });
  });

  it("without back-off keeps the interval after a failure", async () => {
    const starts: number[] = [];
    const events: string[] = [];
    const loop = runEvery(
      "test_loop",
      15,
      () => {
        starts.push(Date.now());
        throw new Error("always");
      },
      { log: (event) => events.push(event), backoff: false },
    );
    await until("four passes", () => starts.length >= 4, 5_000, 5);
    await loop.stop();
    for (let i = 1; i < 4; i++) expect(starts[i] - starts[i - 1]).to.be.at.least(14);
    expect(starts[3] - starts[0], "no doubling (15 + 15 + 15, not 30 + 60 + 120)").to.be.below(200);
    expect(events).to.deep.equal(["test_loop_failed"]);
  });

  it("never keeps the process alive: its timers are unref'd", async () => {
    let passes = 0;
    const loop = runEvery("test_loop", 60_000, () => {
      passes++;
    });
    await tick();
    await tick();
    expect(passes).to.equal(1);
    // The pending next pass is not counted among the handles that keep the process alive...
    const during = activeTimeouts();
    await loop.stop();
    expect(activeTimeouts(), "stopping the loop released a ref'd timer").to.equal(during);
    // ...as a ref'd timer would be.
    const control = setTimeout(() => undefined, 60_000);
    expect(activeTimeouts()).to.equal(during + 1);
    clearTimeout(control);
  });

  it("refuses an interval that is not a number of ms", () => {
    expect(() => runEvery("test_loop", -1, () => undefined)).to.throw(RangeError, /test_loop/);
    expect(() => runEvery("test_loop", Number.NaN, () => undefined)).to.throw(RangeError);
  });
});
