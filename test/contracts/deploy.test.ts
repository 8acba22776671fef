import { expect } from "chai";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import hre from "hardhat";
import { PUBLISHED_CONTRACTS } from "../../deploy/contracts";

const ROOT = path.resolve(__dirname, "..", "..");

/**
 * True under `npx hardhat coverage`. The deploy runs in a `hardhat run` subprocess, which compiles
 * plain artifacts over the instrumented ones: every test file after this one would then run
 * uninstrumented and count as uncovered.
 */
const underCoverage = () =>
  (hre as unknown as { __SOLIDITY_COVERAGE_RUNNING?: boolean }).__SOLIDITY_COVERAGE_RUNNING === true;

describe("deploy/deploy.ts", function () {
  this.timeout(180_000);

  it("deploys the whole set in one command, wires attestation to the marketplace and the inscriber and anchor to attestation, and records the addresses", function () {
    if (underCoverage()) this.skip();
    const output = execFileSync(
      process.execPath,
      [require.resolve("hardhat/internal/cli/cli.js"), "run", "deploy/deploy.ts"],
      {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, DEPLOY_TIMELOCK_DELAY: "7200" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const addresses = Object.fromEntries(
      [...output.matchAll(/^(\w+)\s+(0x[0-9a-fA-F]{40})$/gm)].map((m) => [m[1], m[2]]),
    );
    expect(Object.keys(addresses).sort()).to.deep.equal([...PUBLISHED_CONTRACTS].sort());
    const index = JSON.parse(fs.readFileSync(path.join(ROOT, "data", "abi", "index.json"), "utf8"));
    expect(index["31337"].deployed).to.equal(true);
    for (const name of PUBLISHED_CONTRACTS) expect(index["31337"].contracts[name].address).to.equal(addresses[name]);
  });
});
