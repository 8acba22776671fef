import path from "node:path";
import { subtask } from "hardhat/config";
import { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } from "hardhat/builtin-tasks/task-names";
import type { HardhatUserConfig } from "hardhat/config";
import "@nomicfoundation/hardhat-toolbox";
// The DOGEOS_PRIVATE_KEY_FILE account and the dogeos:* timelock admin tasks (deploy/systemd/README.md, docs/operations.md).
import "./tasks/key-file";
import "./tasks/admin";

const SOLC_VERSION = "0.8.28";

// Compile with the pinned `solc` npm package instead of downloading a compiler (TOOLCHAIN.md).
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args: { solcVersion: string }, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require("solc");
  return {
    compilerPath: path.join(path.dirname(require.resolve("solc/package.json")), "soljson.js"),
    isSolcJs: true,
    version: SOLC_VERSION,
    longVersion: solc.version(),
  };
});

const testnetAccounts = process.env.DOGEOS_PRIVATE_KEY ? [process.env.DOGEOS_PRIVATE_KEY] : [];

const config: HardhatUserConfig = {
  solidity: {
    version: SOLC_VERSION,
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" },
  },
  networks: {
    hardhat: { chainId: 31337 },
    localhost: { url: process.env.L2_RPC_URL ?? "http://127.0.0.1:8545" },
    dogeosTestnet: {
      chainId: 6281971,
      url: process.env.DOGEOS_RPC_URL ?? "http://127.0.0.1:8545",
      accounts: testnetAccounts,
    },
  },
  mocha: {
    timeout: 120_000,
    reporter: path.join(__dirname, "scripts", "mocha-reporter.js"),
    // Property tests draw from one fixed seed so that every run of the suite tries the same cases
    // (FC_SEED=<n> explores others; a failure prints the seed and path that reproduce it).
    rootHooks: {
      beforeAll() {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("fast-check").configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261123) });
        // Every answer of our HTTP surfaces is checked against that surface's /openapi.json (issue 18).
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("./test/helpers/openapi").installResponseValidation();
      },
      afterEach() {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const violations: string[] = require("./test/helpers/openapi").takeViolations();
        if (violations.length > 0)
          throw new Error(`answers that their OpenAPI document refuses:\n  ${violations.join("\n  ")}`);
      },
    },
  },
  gasReporter: { enabled: process.env.REPORT_GAS === "true", offline: true },
};

export default config;
