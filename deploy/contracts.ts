/**
 * The published contract set: what deploy/ deploys and what shared/abi/ describes. One list for
 * the exporter, the deployer and the test that guards the committed ABI files.
 */
import fs from "node:fs";
import path from "node:path";

export const PUBLISHED_CONTRACTS = ["DogeAttestation", "PlugsMarketplace", "EnvelopeHelper", "DogeInscriber", "DogeAnchor"] as const;
export type PublishedContract = (typeof PUBLISHED_CONTRACTS)[number];

export const ABI_DIR = path.resolve(__dirname, "..", "shared", "abi");
/** DogeOS test network (DESIGN.md section 1). */
export const DOGEOS_TESTNET_CHAIN_ID = 6281971;

export interface AbiIndexEntry {
  deployed: boolean;
  contracts: Record<string, { address: string | null; abi: string }>;
}

export type AbiIndex = Record<string, AbiIndexEntry>;

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

/** The entry for a chain: every published contract, with addresses when deployed. */
export function indexEntry(addresses: Partial<Record<PublishedContract, string>> | null): AbiIndexEntry {
  const contracts: AbiIndexEntry["contracts"] = {};
  for (const name of PUBLISHED_CONTRACTS) contracts[name] = { address: addresses?.[name] ?? null, abi: `${name}.json` };
  return { deployed: addresses !== null, contracts };
}
