/**
 * @dogeos/sdk: DogeOS for dapp teams in TypeScript (ethers v6). README.md shows each use.
 */
export * from "./errors";
export * from "./keys";
export * from "./eip712";
export * from "./attestation";
export * from "./verify";
export * from "./requests";
export * from "./clients";
export {
  ABI_INDEX_PATH,
  DOGEOS_TESTNET_CHAIN_ID,
  LOCAL_CHAIN_ID,
  abis,
  deploymentOf,
  deploymentsOf,
  fetchAbiIndex,
} from "@dogeos/contracts";
export type { AbiIndex, ChainDeployments, ContractDeployment } from "@dogeos/contracts";
