// The Forge suites (test/forge/**/*.t.sol) inside `npm test`: Forge runs once, in CI's profile, and
// every Forge test is one mocha test, so that their counts are in the final "N passed, N failed" line.
// The mocha tests are declared from the test files' function names (parsed when this file loads),
// not from Forge's answer: a Forge test that fails, or vanishes from Forge's results (a compile error,
// a contract Forge no longer sees as a test), is a failing mocha test, and a Forge result that no
// declaration names fails the last test. The committed gas snapshot is checked with `forge snapshot --check`.
// FOUNDRY_PROFILE picks another profile (default: ci, fuzz runs 10,000; see foundry.toml).
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import hre from "hardhat";
import { FORGE_ENVELOPE_VECTORS_FILE, buildForgeEnvelopeVectors } from "../../scripts/forge-envelope-vectors";

const ROOT = path.join(__dirname, "..", "..");
const FORGE_TEST_DIR = path.join(ROOT, "test", "forge");
/**
 * The forge binary of @foundry-rs/forge's platform package, run directly: the package's `bin.mjs`
 * wrapper (what `npx forge` runs) exits 0 whatever forge's exit code was (1.7.1), which would hide
 * a failed `forge snapshot --check`.
 */
const FORGE = (() => {
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string] ?? process.arch;
  const binary = process.platform === "win32" ? "forge.exe" : "forge";
  return require.resolve(`@foundry-rs/forge-${process.platform}-${arch}/bin/${binary}`);
})();
const PROFILE = process.env.FOUNDRY_PROFILE ?? "ci";
/** The gas snapshot covers the unit tests: a fuzz test's mean gas depends on the profile's run count. */
const SNAPSHOT_EXCLUDED = /^(testFuzz|invariant|statefulFuzz)/;
const SNAPSHOT_FILTER = ["--no-match-test", SNAPSHOT_EXCLUDED.source];
/** CI's profile on 2 cores: about 2 minutes (docs/contracts.md, "Foundry"); the ceiling leaves room for a loaded machine. */
const FORGE_RUN_TIMEOUT_MS = 20 * 60_000;

/** Function-name prefixes Forge 1.7 runs as tests (`forge test`'s "functions that start with `test`", and invariants). */
const TEST_FUNCTION = /^(test|invariant|statefulFuzz)/;

interface DeclaredContract {
  /** Forge's key of a test contract: `test/forge/File.t.sol:Contract`. */
  key: string;
  name: string;
  tests: string[];
}

interface ParsedContract {
  file: string;
  name: string;
  abstract: boolean;
  bases: string[];
  functions: string[];
}

/** Solidity source with comments and string literals blanked out (positions kept). */
function stripCommentsAndStrings(source: string): string {
  return source.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (match) =>
    match.replace(/[^\n]/g, " "),
  );
}

/** The contracts of one file, with their base names and the functions declared directly in them. */
function parseContracts(file: string, source: string): ParsedContract[] {
  const code = stripCommentsAndStrings(source);
  const contracts: ParsedContract[] = [];
  const header = /\b(abstract\s+)?(contract|library|interface)\s+(\w+)\s*(?:is\s+([^{]*))?\{/g;
  for (let match = header.exec(code); match !== null; match = header.exec(code)) {
    // The body runs to the brace that closes the header's.
    let depth = 1;
    let end = header.lastIndex;
    while (depth > 0 && end < code.length) {
      if (code[end] === "{") depth += 1;
      else if (code[end] === "}") depth -= 1;
      end += 1;
    }
    const body = code.slice(header.lastIndex, end - 1);
    header.lastIndex = end;
    if (match[2] !== "contract") continue;
    const bases = (match[4] ?? "")
      .split(",")
      .map((base) => base.trim().split(/[\s(]/)[0])
      .filter((base) => base.length > 0);
    const functions = [...body.matchAll(/\bfunction\s+(\w+)\s*\(/g)].map((found) => found[1]);
    contracts.push({ file, name: match[3], abstract: match[1] !== undefined, bases, functions });
  }
  return contracts;
}

function solidityFiles(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs
    .readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? solidityFiles(path.join(directory, entry.name))
        : entry.name.endsWith(".sol")
          ? [path.join(directory, entry.name)]
          : [],
    )
    .sort();
}

/** Every concrete test contract under test/forge with its test functions, its own and inherited. */
function declaredForgeTests(): DeclaredContract[] {
  const parsed = solidityFiles(FORGE_TEST_DIR).flatMap((file) =>
    parseContracts(path.relative(ROOT, file).split(path.sep).join("/"), fs.readFileSync(file, "utf8")),
  );
  const byName = new Map(parsed.map((contract) => [contract.name, contract]));
  const testsOf = (contract: ParsedContract, seen: Set<string>): string[] => {
    if (seen.has(contract.name)) return [];
    seen.add(contract.name);
    const inherited = contract.bases.flatMap((base) => {
      const parent = byName.get(base);
      return parent ? testsOf(parent, seen) : [];
    });
    return [...inherited, ...contract.functions.filter((name) => TEST_FUNCTION.test(name))];
  };
  return parsed
    .filter((contract) => !contract.abstract && contract.file.endsWith(".t.sol"))
    .map((contract) => ({
      key: `${contract.file}:${contract.name}`,
      name: contract.name,
      tests: [...new Set(testsOf(contract, new Set()))].sort(),
    }))
    .filter((contract) => contract.tests.length > 0);
}

interface ForgeTestResult {
  status: string;
  reason: string | null;
  counterexample: unknown;
  decoded_logs?: string[];
}
type ForgeResults = Record<string, { test_results: Record<string, ForgeTestResult> }>;

interface ForgeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runForge(args: string[], env: NodeJS.ProcessEnv): Promise<ForgeRun> {
  return new Promise((resolve) => {
    execFile(
      FORGE,
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 512 * 1024 * 1024, timeout: FORGE_RUN_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, stdout, stderr: error && code === null ? `${stderr}\n${error.message}` : stderr });
      },
    );
  });
}

/** Forge's JSON document out of `forge test --json`'s stdout (compiler notices may come before it). */
function parseForgeJson(stdout: string): ForgeResults {
  const start = stdout.search(/^\{/m);
  if (start < 0) throw new Error("no JSON document in forge's output");
  return JSON.parse(stdout.slice(start)) as ForgeResults;
}

/** "testX(uint256,address)" -> "testX". */
const functionName = (signature: string) => signature.replace(/\(.*$/s, "");

function describeFailure(result: ForgeTestResult): string {
  const lines = [`forge: ${result.status}${result.reason ? `: ${result.reason}` : ""}`];
  if (result.counterexample) lines.push(`counterexample: ${JSON.stringify(result.counterexample)}`);
  if (result.decoded_logs && result.decoded_logs.length > 0) lines.push(...result.decoded_logs);
  return lines.join("\n");
}

const declared = declaredForgeTests();

describe(`contracts/Forge suites (test/forge, FOUNDRY_PROFILE=${PROFILE})`, function () {
  let results: ForgeResults | undefined;
  let runError: Error | undefined;

  before(async function () {
    this.timeout(FORGE_RUN_TIMEOUT_MS + 60_000);
    const run = await runForge(["test", "--json"], { FOUNDRY_PROFILE: PROFILE });
    try {
      results = parseForgeJson(run.stdout);
    } catch (error) {
      // A compile error or a crash: every declared test fails with what Forge said.
      runError = new Error(
        `forge test exited with ${run.code} and no results (${(error as Error).message}):\n${run.stderr}\n${run.stdout}`.slice(
          0,
          20_000,
        ),
      );
    }
  });

  /** Forge's result for `contractKey`'s `testName`, or a thrown reason why there is none. */
  function resultOf(contractKey: string, testName: string): ForgeTestResult {
    if (runError) throw runError;
    const suite = results?.[contractKey];
    if (!suite) throw new Error(`forge ran no test contract ${contractKey}`);
    const found = Object.entries(suite.test_results).filter(([signature]) => functionName(signature) === testName);
    if (found.length === 0) throw new Error(`forge has no result for ${contractKey} ${testName}`);
    if (found.length > 1) throw new Error(`forge has ${found.length} results named ${testName} (overloads)`);
    return found[0][1];
  }

  it("finds Forge tests to run", function () {
    expect(declared.length).to.be.greaterThan(0);
  });

  for (const contract of declared) {
    describe(contract.key, function () {
      for (const testName of contract.tests) {
        it(testName, function () {
          const result = resultOf(contract.key, testName);
          if (result.status !== "Success") throw new Error(describeFailure(result));
        });
      }
    });
  }

  it("declares a mocha test for every result Forge reported", function () {
    if (runError) throw runError;
    const expected = new Set(declared.flatMap((contract) => contract.tests.map((test) => `${contract.key} ${test}`)));
    const undeclared = Object.entries(results ?? {}).flatMap(([contractKey, suite]) =>
      Object.keys(suite.test_results)
        .map((signature) => `${contractKey} ${functionName(signature)}`)
        .filter((entry) => !expected.has(entry)),
    );
    expect(undeclared, "Forge results no mocha test declares (a parse gap in forge.test.ts?)").to.deep.equal([]);
  });

  it("matches the committed gas snapshot (forge snapshot --check .gas-snapshot)", async function () {
    this.timeout(FORGE_RUN_TIMEOUT_MS);
    if (runError) throw runError;
    const run = await runForge(["snapshot", "--check", ".gas-snapshot", ...SNAPSHOT_FILTER], {
      FOUNDRY_PROFILE: PROFILE,
    });
    if (run.code !== 0)
      throw new Error(
        `forge snapshot --check failed (exit ${run.code}); if the change is intended, run ` +
          `\`npx forge snapshot ${SNAPSHOT_FILTER.map((arg) => `'${arg}'`).join(" ")}\` and commit .gas-snapshot:\n` +
          `${run.stdout}\n${run.stderr}`.slice(-20_000),
      );
  });

  it("has no gas snapshot entry for a test that no longer exists (forge snapshot --check ignores them)", function () {
    const unitTests = new Set(
      declared.flatMap((contract) =>
        contract.tests.filter((test) => !SNAPSHOT_EXCLUDED.test(test)).map((test) => `${contract.name}:${test}`),
      ),
    );
    const entries = fs
      .readFileSync(path.join(ROOT, ".gas-snapshot"), "utf8")
      .split("\n")
      .filter((line) => line.trim().length > 0)
      .map((line) => line.replace(/\(.*$/s, ""));
    expect(
      entries.filter((entry) => !unitTests.has(entry)),
      "entries of .gas-snapshot without a test",
    ).to.deep.equal([]);
  });

  it("reads envelope vectors that scripts/forge-envelope-vectors.ts still writes from the TypeScript envelope", function () {
    const committed: unknown = JSON.parse(fs.readFileSync(FORGE_ENVELOPE_VECTORS_FILE, "utf8"));
    expect(committed, "run `node --import tsx scripts/forge-envelope-vectors.ts` and commit").to.deep.equal(
      buildForgeEnvelopeVectors(),
    );
  });

  it("compiles with Hardhat's solc version and optimizer settings (forge config)", async function () {
    this.timeout(120_000);
    const run = await runForge(["config", "--json"], { FOUNDRY_PROFILE: PROFILE });
    expect(run.code, run.stderr).to.equal(0);
    const forgeConfig = JSON.parse(run.stdout) as {
      solc: string;
      optimizer: boolean;
      optimizer_runs: number;
      evm_version: string;
      offline: boolean;
      ffi: boolean;
    };
    const hardhatCompiler = hre.config.solidity.compilers[0];
    const shim = await new Promise<string>((resolve, reject) =>
      execFile(path.join(ROOT, forgeConfig.solc), ["--version"], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(shim).to.match(new RegExp(`^Version: ${hardhatCompiler.version.replace(/\./g, "\\.")}\\+commit\\.`, "m"));
    expect(forgeConfig.optimizer).to.equal(hardhatCompiler.settings.optimizer.enabled);
    expect(forgeConfig.optimizer_runs).to.equal(hardhatCompiler.settings.optimizer.runs);
    expect(forgeConfig.evm_version.toLowerCase()).to.equal(String(hardhatCompiler.settings.evmVersion).toLowerCase());
    expect(forgeConfig.offline, "offline: Forge never downloads a compiler").to.equal(true);
    expect(forgeConfig.ffi, "ffi off: no test shells out").to.equal(false);
  });
});
