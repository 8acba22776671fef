// Mocha reporter: the usual spec output, plus a JSON summary written for .ci/run to count from
// (TEST_RESULTS_FILE, default .test-results.json). CommonJS because mocha loads reporters with require.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const Mocha = require("mocha");

const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_TEST_FAIL, EVENT_TEST_PASS, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class SpecWithSummary extends Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    let passed = 0;
    let pending = 0;
    runner.on(EVENT_TEST_PASS, () => {
      passed += 1;
    });
    runner.on(EVENT_TEST_PENDING, () => {
      pending += 1;
    });
    runner.on(EVENT_TEST_FAIL, (test, err) => {
      failures.push({ title: test.fullTitle(), message: String(err && err.message) });
    });
    runner.once(EVENT_RUN_END, () => {
      const file = process.env.TEST_RESULTS_FILE || path.join(process.cwd(), ".test-results.json");
      const summary = { passed, failed: failures.length, pending, failures };
      fs.writeFileSync(file, JSON.stringify(summary, null, 2));
    });
  }
}

module.exports = SpecWithSummary;
