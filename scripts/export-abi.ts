/**
 * Writes shared/abi/: one ABI file per published contract and index.json, keeping the entries of
 * chains that were deployed (contracts published since appear in them with a null address) and
 * making sure DogeOS testnet (6281971) is listed (deployed: false until a real deployment writes its
 * addresses).
 *
 *   npx dogeos abi export        (or: npx hardhat run scripts/export-abi.ts)
 */
import fs from "node:fs";
import path from "node:path";
import hre from "hardhat";
import {
  ABI_DIR,
  DOGEOS_TESTNET_CHAIN_ID,
  PUBLISHED_CONTRACTS,
  abiFileText,
  indexEntry,
  indexFileText,
  readAbiIndex,
} from "../deploy/contracts";

async function main(): Promise<void> {
  await hre.run("compile", { quiet: true });
  fs.mkdirSync(ABI_DIR, { recursive: true });
  for (const name of PUBLISHED_CONTRACTS) {
    const artifact = await hre.artifacts.readArtifact(name);
    fs.writeFileSync(path.join(ABI_DIR, `${name}.json`), abiFileText(artifact.abi));
  }
  const index = readAbiIndex();
  if (!index[String(DOGEOS_TESTNET_CHAIN_ID)]) index[String(DOGEOS_TESTNET_CHAIN_ID)] = indexEntry(null);
  // Every chain lists every published contract: one added to the set since a deployment appears
  // with a null address (its ABI file is there; the deployment does not have it yet).
  for (const entry of Object.values(index)) {
    for (const name of PUBLISHED_CONTRACTS) entry.contracts[name] ??= { address: null, abi: `${name}.json` };
  }
  fs.writeFileSync(path.join(ABI_DIR, "index.json"), indexFileText(index));
  process.stdout.write(`wrote ${PUBLISHED_CONTRACTS.length} ABI files and index.json to ${ABI_DIR}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
