/**
 * The ABI index: where the published contract set is deployed, per L2 chain id, with each
 * contract's ABI file, address, deploy block and deploy transaction. deploy/deploy.ts writes it
 * (scripts/export-abi.ts keeps its list of contracts in step with shared/abi/); the daemons read it
 * here to default their contract addresses and `--from-block`.
 *
 * Where it is: `shared/abi/index.json` for real chains (committed with the ABI files), and
 * `<data dir>/abi/index.json` for the throwaway local chain 31337 (the Hardhat node of `npm start`;
 * the data dir is DOGEOS_DATA_DIR or `data/`). ABI_INDEX names another file for every chain.
 *
 *   {
 *     "6281971": {
 *       "deployed": true,
 *       "contracts": {
 *         "DogeAttestation": { "address": "0x…", "abi": "DogeAttestation.json", "deployBlock": 123, "deployTx": "0x…" },
 *         …
 *       }
 *     }
 *   }
 *
 * `deployBlock` and `deployTx` are present only for contracts a deployment recorded (entries from
 * before they were recorded, and chains not deployed, have none).
 */
import fs from "node:fs";
import path from "node:path";

/** The repository root (this file is src/l2/abi-index.ts). */
const ROOT = path.resolve(__dirname, "..", "..");

/** The Hardhat network's chain id: its index lives under the data dir, not in shared/abi/. */
export const LOCAL_CHAIN_ID = 31337;

export interface AbiIndexContract {
  /** Checksummed address, or null when the chain's deployment does not have this contract. */
  address: string | null;
  /** The ABI file's name, beside index.json. */
  abi: string;
  /** The block that holds the contract's creation. */
  deployBlock?: number;
  /** The hash of the transaction that created it. */
  deployTx?: string;
}

export interface AbiIndexEntry {
  deployed: boolean;
  contracts: Record<string, AbiIndexContract>;
}

export type AbiIndex = Record<string, AbiIndexEntry>;

export interface AbiIndexLocation {
  /** An explicit index file (default: ABI_INDEX, else by chain id as described above). */
  file?: string;
  /** The data dir for the local chain (default: DOGEOS_DATA_DIR, else `<repo>/data`). */
  dataDir?: string;
  /** The environment to read ABI_INDEX and DOGEOS_DATA_DIR from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The index file that describes `chainId`. */
export function abiIndexFile(chainId: number | bigint, location: AbiIndexLocation = {}): string {
  const env = location.env ?? process.env;
  if (location.file) return path.resolve(location.file);
  if (env.ABI_INDEX) return path.resolve(env.ABI_INDEX);
  if (Number(chainId) === LOCAL_CHAIN_ID)
    return path.join(location.dataDir ?? env.DOGEOS_DATA_DIR ?? path.join(ROOT, "data"), "abi", "index.json");
  return path.join(ROOT, "shared", "abi", "index.json");
}

/** The whole index in `file` ({} when the file does not exist). */
export function readAbiIndexFile(file: string): AbiIndex {
  if (!fs.existsSync(file)) return {};
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as AbiIndex;
  } catch (error) {
    throw new Error(`cannot read the ABI index ${file}: ${(error as Error).message}`);
  }
}

/** A chain's deployment as the index records it. */
export interface ChainDeployment {
  chainId: number;
  /** The index file it came from. */
  file: string;
  deployed: boolean;
  contracts: Record<string, AbiIndexContract>;
}

/** The entry of `chainId`, or null when the index does not list that chain. */
export function readChainDeployment(chainId: number | bigint, location: AbiIndexLocation = {}): ChainDeployment | null {
  const file = abiIndexFile(chainId, location);
  const entry = readAbiIndexFile(file)[String(chainId)];
  if (!entry) return null;
  return { chainId: Number(chainId), file, deployed: entry.deployed, contracts: entry.contracts };
}

/**
 * The recorded address of `contract` on `chainId`, or null when the chain is not deployed or the
 * deployment lacks it. A daemon's default for its `--<contract>-address`.
 */
export function contractAddress(
  chainId: number | bigint,
  contract: string,
  location: AbiIndexLocation = {},
): string | null {
  const deployment = readChainDeployment(chainId, location);
  if (!deployment?.deployed) return null;
  return deployment.contracts[contract]?.address ?? null;
}

/**
 * The block from which to read the events of `contracts` on `chainId`: the lowest deploy block
 * among them (no event of theirs can be older), or null when any of them has no recorded deploy
 * block. A daemon's default for `--from-block`.
 */
export function deployBlock(
  chainId: number | bigint,
  contracts: string | string[],
  location: AbiIndexLocation = {},
): number | null {
  const deployment = readChainDeployment(chainId, location);
  if (!deployment?.deployed) return null;
  let lowest: number | null = null;
  for (const name of Array.isArray(contracts) ? contracts : [contracts]) {
    const block = deployment.contracts[name]?.deployBlock;
    if (block === undefined || deployment.contracts[name]?.address == null) return null;
    lowest = lowest === null ? block : Math.min(lowest, block);
  }
  return lowest;
}

/**
 * Like `contractAddress`, but for a daemon that cannot start without it: throws one line naming
 * the index file and the flag to give instead.
 */
export function requireContractAddress(
  chainId: number | bigint,
  contract: string,
  flag: string,
  location: AbiIndexLocation = {},
): string {
  const address = contractAddress(chainId, contract, location);
  if (address) return address;
  const file = abiIndexFile(chainId, location);
  throw new Error(
    `no ${contract} address recorded for chain ${chainId} in ${file}: deploy it (npx hardhat run deploy/deploy.ts) or give ${flag}`,
  );
}

/**
 * A daemon's contract addresses: each flag's value when given, else the address the ABI index of
 * `chainId` records for that contract (`contracts` maps flag name to contract name, e.g.
 * `{"attestation-address": "DogeAttestation"}`). Throws one line naming the flag when neither is
 * there, or when an address is missing and no `--chain-id` says which deployment to read.
 */
export function contractAddresses<K extends string>(
  chainId: number | undefined,
  given: { [P in NoInfer<K>]?: string },
  contracts: Record<K, string>,
  location: AbiIndexLocation = {},
): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const flag of Object.keys(contracts) as K[]) {
    const value = given[flag];
    if (value) out[flag] = value;
    else if (chainId === undefined)
      throw new Error(`missing --${flag}: give it, or --chain-id to read it from the ABI index`);
    else out[flag] = requireContractAddress(chainId, contracts[flag], `--${flag}`, location);
  }
  return out;
}
