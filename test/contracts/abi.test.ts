import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import hre from "hardhat";
import {
  ABI_DIR,
  DOGEOS_TESTNET_CHAIN_ID,
  PUBLISHED_CONTRACTS,
  abiFileText,
  readAbiIndex,
} from "../../deploy/contracts";

describe("shared/abi", () => {
  for (const name of PUBLISHED_CONTRACTS) {
    it(`holds the current ABI of ${name} (regenerate with npx hardhat run scripts/export-abi.ts)`, async () => {
      const artifact = await hre.artifacts.readArtifact(name);
      const committed = fs.readFileSync(path.join(ABI_DIR, `${name}.json`), "utf8");
      expect(committed).to.equal(abiFileText(artifact.abi));
    });
  }

  it("lists DogeOS testnet as not deployed until a real deployment, with every published contract", () => {
    const entry = readAbiIndex()[String(DOGEOS_TESTNET_CHAIN_ID)];
    expect(entry.deployed).to.equal(false);
    expect(Object.keys(entry.contracts).sort()).to.deep.equal([...PUBLISHED_CONTRACTS].sort());
    for (const name of PUBLISHED_CONTRACTS)
      expect(entry.contracts[name]).to.deep.equal({ address: null, abi: `${name}.json` });
  });
});
