/**
 * The published contract set: what deploy/ deploys and what shared/abi/ describes. One list for
 * the exporter, the deployer and the test that guards the committed ABI files. The index's types
 * and its reader for the daemons are in src/l2/abi-index.ts.
 */
import fs from "node:fs";
import path from "node:path";
import type { AbiIndex, AbiIndexEntry } from "../src/l2/abi-index";

export type { AbiIndex, AbiIndexContract, AbiIndexEntry } from "../src/l2/abi-index";

export const PUBLISHED_CONTRACTS = [
  "DogeAttestation",
  "PlugsMarketplace",
  "EnvelopeHelper",
  "DogeInscriber",
  "DogeAnchor",
] as const;
export type PublishedContract = (typeof PUBLISHED_CONTRACTS)[number];

export const ABI_DIR = path.resolve(__dirname, "..", "shared", "abi");
/** DogeOS test network (DESIGN.md section 1). */
export const DOGEOS_TESTNET_CHAIN_ID = 6281971;

export function readAbiIndex(): AbiIndex {
  const file = path.join(ABI_DIR, "index.json");
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as AbiIndex) : {};
}

/** Canonical text of an ABI file: the ABI array, two-space JSON, trailing newline. */
export function abiFileText(abi: unknown): string {
  return JSON.stringify(abi, null, 2) + "\n";
}

export function indexFileText(index: AbiIndex): string {
  const ordered: AbiIndex = {};
  for (const chainId of Object.keys(index).sort((a, b) => Number(a) - Number(b))) ordered[chainId] = index[chainId];
  return JSON.stringify(ordered, null, 2) + "\n";
}

/** Where and how a contract was deployed. */
export interface DeployedContractRecord {
  address: string;
  /** The block that holds the creation. */
  deployBlock: number;
  /** The creating transaction. */
  deployTx: string;
}

/**
 * The entry for a chain: every published contract, with addresses when deployed. `addresses`
 * gives either bare addresses or records with the deploy block and transaction.
 */
export function indexEntry(
  addresses: Partial<Record<PublishedContract, string | DeployedContractRecord>> | null,
): AbiIndexEntry {
  const contracts: AbiIndexEntry["contracts"] = {};
  for (const name of PUBLISHED_CONTRACTS) {
    const given = addresses?.[name];
    if (given === undefined) contracts[name] = { address: null, abi: `${name}.json` };
    else if (typeof given === "string") contracts[name] = { address: given, abi: `${name}.json` };
    else
      contracts[name] = {
        address: given.address,
        abi: `${name}.json`,
        deployBlock: given.deployBlock,
        deployTx: given.deployTx,
      };
  }
  return { deployed: addresses !== null, contracts };
}
