/**
 * The kit's npm workspace packages (packages/contracts, packages/sdk): their copies of the
 * repository's one sources (the Solidity interfaces, shared/abi/) are current, and @dogeos/contracts answers deployments from the ABI index and compiles a
 * consumer contract that imports it by its package path.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import {
  ABI_INDEX_PATH,
  CONTRACT_NAMES,
  abiIndex,
  abis,
  deploymentOf,
  deploymentsOf,
  readSource,
} from "../../packages/contracts";

const ROOT = path.resolve(__dirname, "..", "..");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const contractsSync = require("../../packages/contracts/sync.js") as { expectedFiles(): Map<string, string> };

const hint = (pkg: string) => `packages/${pkg} is stale: run node packages/${pkg}/sync.js and commit it`;

describe("the kit's packages", () => {
  it("@dogeos/contracts carries the current interfaces, ABI files and ABI index", () => {
    const expected = contractsSync.expectedFiles();
    expect(expected.size).to.be.greaterThan(10);
    for (const [relative, text] of expected) {
      const file = path.join(ROOT, "packages", "contracts", relative);
      expect(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null, `${relative}: ${hint("contracts")}`).to.equal(
        text,
      );
    }
  });

  it("answers each chain's deployment from the ABI index, and refuses one that is not deployed", () => {
    expect(CONTRACT_NAMES).to.deep.equal(Object.keys(abiIndex["6281971"].contracts).filter((name) => name in abis));
    expect(deploymentsOf(6281971)?.deployed).to.equal(false);
    expect(deploymentsOf(1)).to.equal(null);
    expect(() => deploymentOf(6281971, "DogeAttestation")).to.throw(/deployed: false/);
    const recorded = {
      "31337": {
        deployed: true,
        contracts: {
          DogeAttestation: {
            address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
            abi: "DogeAttestation.json",
            deployBlock: 3,
            deployTx: `0x${"ab".repeat(32)}`,
          },
          DogeAnchor: { address: null, abi: "DogeAnchor.json" },
        },
      },
    };
    expect(deploymentOf(31337n, "DogeAttestation", recorded)).to.deep.include({
      address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      deployBlock: 3,
      deployTx: `0x${"ab".repeat(32)}`,
    });
    expect(deploymentOf(31337, "DogeAttestation", recorded).abi).to.equal(abis.DogeAttestation);
    expect(() => deploymentOf(31337, "DogeAnchor", recorded)).to.throw(/has no DogeAnchor/);
    expect(() => deploymentsOf(1, { x: {} } as never)).to.throw(TypeError);
    expect(ABI_INDEX_PATH).to.equal("/shared/abi/index.json");
  });

  it("compiles a contract importing the interfaces by package path, with solc and readSource alone", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const solc = require("solc");
    const source = fs
      .readFileSync(path.join(ROOT, "contracts", "examples", "HolderGatedMint.sol"), "utf8")
      .replace(
        '"../attestation/IDogeAttestation.sol"',
        '"@dogeos/contracts/contracts/attestation/IDogeAttestation.sol"',
      );
    const input = {
      language: "Solidity",
      sources: {
        "HolderGatedMint.sol": { content: source },
        "Jobs.sol": {
          content:
            'pragma solidity 0.8.28; import {IDogeInscriber} from "@dogeos/contracts/contracts/services/IDogeInscriber.sol"; import {IPlugsMarketplace} from "@dogeos/contracts/contracts/plugs/IPlugsMarketplace.sol"; import {IEnvelopeHelper} from "@dogeos/contracts/contracts/envelope/IEnvelopeHelper.sol"; import {IDogeAnchor} from "@dogeos/contracts/contracts/services/IDogeAnchor.sol";',
        },
      },
      settings: { outputSelection: { "*": { "*": ["abi"] } } },
    };
    const imports = (importPath: string) => {
      const contents = readSource(importPath);
      return contents === null ? { error: `not found: ${importPath}` } : { contents };
    };
    const output = JSON.parse(solc.compile(JSON.stringify(input), { import: imports }));
    const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
    expect(errors, JSON.stringify(errors)).to.deep.equal([]);
    expect(
      output.contracts["HolderGatedMint.sol"].HolderGatedMint.abi.map((e: { name?: string }) => e.name),
    ).to.include("HolderGatedMintFactStale");
    expect(readSource("@dogeos/contracts/contracts/../package.json")).to.equal(null);
    expect(readSource("@dogeos/contracts/index.js")).to.equal(null);
  });
});
