/** @dogeos/contracts (index.js): ABIs, the ABI index and its deployments, the Solidity interfaces. */

export type ContractName = "DogeAttestation" | "PlugsMarketplace" | "EnvelopeHelper" | "DogeInscriber" | "DogeAnchor";

/** One contract of a chain's entry in the ABI index. */
export interface AbiIndexContract {
  /** Checksummed address, or null when the chain's deployment does not have this contract. */
  address: string | null;
  /** The ABI file's name, beside index.json. */
  abi: string;
  /** The block that holds the contract's creation (when the deployment recorded it). */
  deployBlock?: number;
  /** The transaction that created it (when the deployment recorded it). */
  deployTx?: string;
}

export interface AbiIndexEntry {
  deployed: boolean;
  contracts: Record<string, AbiIndexContract>;
}

/** `{ "<chain id>": { deployed, contracts } }` */
export type AbiIndex = Record<string, AbiIndexEntry>;

export interface ChainDeployments {
  chainId: number;
  deployed: boolean;
  contracts: Record<string, AbiIndexContract>;
}

export interface ContractDeployment {
  name: string;
  address: string;
  deployBlock: number | null;
  deployTx: string | null;
  /** The ABI, when this package carries it. */
  abi: readonly Record<string, unknown>[] | null;
}

export declare const DOGEOS_TESTNET_CHAIN_ID: 6281971;
export declare const LOCAL_CHAIN_ID: 31337;
export declare const ABI_INDEX_PATH: "/shared/abi/index.json";
export declare const CONTRACT_NAMES: readonly ContractName[];
export declare const abiIndex: AbiIndex;
export declare const abis: Readonly<Record<ContractName, readonly Record<string, unknown>[]>>;
export declare const contractsDir: string;
export declare function readSource(importPath: string): string | null;
export declare function deploymentsOf(chainId: number | bigint, index?: AbiIndex): ChainDeployments | null;
export declare function deploymentOf(chainId: number | bigint, name: string, index?: AbiIndex): ContractDeployment;
export declare function fetchAbiIndex(origin: string, fetchFn?: typeof fetch): Promise<AbiIndex>;
