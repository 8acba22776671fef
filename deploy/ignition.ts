/**
 * Deploys the published contract set with Hardhat Ignition (ignition/modules/DogeOS.ts) from a
 * parameters file, journaled so that a deployment that failed halfway resumes where it stopped:
 * a contract whose creation is in the journal is never sent again.
 *
 * - The journal of a real chain is Ignition's own, `ignition/deployments/chain-<id>` (commit it
 *   with shared/abi/index.json: it is the record of what was sent).
 * - The local chain 31337 (the Hardhat node of `npm start`) keeps its journal under the data dir,
 *   `<data>/ignition/chain-31337`, and forgets it when the node is a new one (its
 *   `hardhat_metadata` instance id changed), as Ignition's own deploy task does.
 * - The in-process Hardhat network (`hardhat run` without --network) journals to a temporary
 *   directory only to read the deploy transactions back.
 *
 * A resumed deployment first wipes the futures that failed (a reverted or refused creation sends
 * nothing that counts, so running it again deploys nothing twice); a future that timed out is left
 * for the operator (its transaction may still be mined): `npx hardhat ignition wipe <id> <future>`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { DeploymentResultType, deploy, listTransactions, status, wipe, type DeploymentParameters, type EIP1193Provider } from "@nomicfoundation/ignition-core";
import { HardhatArtifactResolver, errorDeploymentResultToExceptionMessage } from "@nomicfoundation/hardhat-ignition/helpers";
import DogeOSModule, { MODULE_ID } from "../ignition/modules/DogeOS";
import { PUBLISHED_CONTRACTS, type DeployedContractRecord, type PublishedContract } from "./contracts";

export { MODULE_ID };

/** The module's parameters (see ignition/modules/DogeOS.ts). */
export interface ContractSetParameters {
  attesters: string[];
  admin?: string;
  guardian?: string;
  treasury?: string;
  timelockDelay?: number;
}

/** The shortest timelock delay the contracts accept (MIN_TIMELOCK_DELAY, contracts/governance/AdminTimelock.sol). */
export const MIN_TIMELOCK_DELAY = 3600;

const isAddress = (value: unknown): value is string => typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value);

/**
 * Checks parameters as an operator wrote them and returns them ready for the module: exactly three
 * distinct non-zero attesters, sorted ascending (the order in which the quorum reads signatures),
 * addresses where addresses go, a delay of at least an hour. `where` names the source in messages.
 */
export function checkParameters(given: Partial<ContractSetParameters>, where: string): ContractSetParameters {
  const attesters = given.attesters;
  if (!Array.isArray(attesters) || attesters.length !== 3 || !attesters.every(isAddress)) {
    throw new Error(`${where}: attesters must name exactly three attester addresses (the attester hosts' keys)`);
  }
  if (attesters.some((a) => BigInt(a) === 0n)) throw new Error(`${where}: an attester is the zero address`);
  if (new Set(attesters.map((a) => a.toLowerCase())).size !== 3) throw new Error(`${where}: the three attesters must be distinct`);
  const out: ContractSetParameters = { attesters: [...attesters].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)) };
  for (const role of ["admin", "guardian", "treasury"] as const) {
    const value = given[role];
    if (value === undefined) continue;
    if (!isAddress(value) || BigInt(value) === 0n) throw new Error(`${where}: ${role} must be a non-zero address, got ${JSON.stringify(value)}`);
    out[role] = value;
  }
  if (given.timelockDelay !== undefined) {
    if (!Number.isInteger(given.timelockDelay) || given.timelockDelay < MIN_TIMELOCK_DELAY) {
      throw new Error(`${where}: timelockDelay must be a whole number of seconds, at least ${MIN_TIMELOCK_DELAY}`);
    }
    out.timelockDelay = given.timelockDelay;
  }
  return out;
}

/** The module's parameters from a parameters file (`{"DogeOS": {...}}`, Ignition's format). */
export function readParametersFile(file: string): Partial<ContractSetParameters> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`cannot read the parameters file ${file}: ${(error as Error).message}`);
  }
  const own = (parsed as Record<string, unknown> | null)?.[MODULE_ID];
  if (typeof own !== "object" || own === null) throw new Error(`${file}: no "${MODULE_ID}" object (Ignition parameters are per module)`);
  return own as Partial<ContractSetParameters>;
}

export interface DeployContractSetOptions {
  parameters: ContractSetParameters;
  /** Where the journal goes; undefined journals to a temporary directory removed afterwards. */
  deploymentDir?: string;
  /** The provider to send through (default: the network's). */
  provider?: EIP1193Provider;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface ContractSetDeployment {
  chainId: number;
  contracts: Record<PublishedContract, DeployedContractRecord>;
  /** The futures this run wiped because a previous run had failed them. */
  wiped: string[];
}

const JOURNAL = "journal.jsonl";

/**
 * Deploys (or finishes deploying) the set and returns every contract's address, deploy block and
 * deploy transaction, read from the journal and the chain.
 */
export async function deployContractSet(hre: HardhatRuntimeEnvironment, options: DeployContractSetOptions): Promise<ContractSetDeployment> {
  const provider = options.provider ?? (hre.network.provider as unknown as EIP1193Provider);
  const log = options.log ?? (() => undefined);
  const temporary = options.deploymentDir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-ignition-")) : undefined;
  const deploymentDir = options.deploymentDir ?? temporary!;
  const artifactResolver = new HardhatArtifactResolver(hre);
  try {
    const wiped: string[] = [];
    if (fs.existsSync(path.join(deploymentDir, JOURNAL))) {
      const previous = await status(deploymentDir);
      log(`resuming the deployment journaled in ${deploymentDir} (${previous.successful.length} futures done)`);
      for (const failed of previous.failed) {
        log(`wiping ${failed.futureId}, which failed in the previous run: ${failed.error}`);
        await wipe(deploymentDir, artifactResolver, failed.futureId);
        wiped.push(failed.futureId);
      }
    }
    const accounts = (await provider.request({ method: "eth_accounts" })) as string[];
    if (accounts.length === 0) throw new Error("no deployer account: configure one for this network (DOGEOS_PRIVATE_KEY_FILE)");
    const result = await deploy({
      config: hre.config.ignition,
      artifactResolver,
      provider,
      deploymentDir,
      ignitionModule: DogeOSModule,
      deploymentParameters: { [MODULE_ID]: { ...options.parameters } } as unknown as DeploymentParameters,
      accounts,
    });
    if (result.type !== DeploymentResultType.SUCCESSFUL_DEPLOYMENT) {
      throw new Error(`${errorDeploymentResultToExceptionMessage(result)}\nthe journal is in ${deploymentDir}: run the same command again to resume`);
    }
    const chainId = Number(await provider.request({ method: "eth_chainId" }));
    const transactions = await listTransactions(deploymentDir, artifactResolver);
    const contracts = {} as Record<PublishedContract, DeployedContractRecord>;
    for (const name of PUBLISHED_CONTRACTS) {
      const address = result.contracts[`${MODULE_ID}#${name}`]?.address;
      if (!address) throw new Error(`the deployment result has no ${name}`);
      const creation = transactions.find((tx) => tx.address !== undefined && tx.address.toLowerCase() === address.toLowerCase());
      if (!creation) throw new Error(`the journal in ${deploymentDir} has no creation of ${name} at ${address}`);
      const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [creation.txHash] })) as { blockNumber: string } | null;
      if (!receipt) throw new Error(`no receipt for ${name}'s creation ${creation.txHash}`);
      contracts[name] = { address, deployBlock: Number(receipt.blockNumber), deployTx: creation.txHash };
    }
    return { chainId, contracts, wiped };
  } finally {
    if (temporary) fs.rmSync(temporary, { recursive: true, force: true });
  }
}
