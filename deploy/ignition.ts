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
 * Before resuming, the journal is repaired where that is safe, so that the operator only has to run
 * the same command again:
 * - a future that failed (its creation reverted, or its simulation did: nothing was deployed), or
 *   that started without a transaction being prepared, is wiped and runs again with the current
 *   parameters;
 * - a transaction prepared (its nonce taken) whose hash the journal lacks, because the connection
 *   dropped while it was sent, is looked up on chain by sender and nonce and, when it is the very
 *   transaction prepared, tracked (Ignition's `track-tx`), so it is not sent twice;
 * - a future that timed out is left for the operator (its transaction may still be mined):
 *   `npx hardhat ignition wipe <deployment id> <future id>`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import {
  DeploymentResultType,
  deploy,
  listTransactions,
  status,
  trackTransaction,
  wipe,
  type DeploymentParameters,
  type EIP1193Provider,
} from "@nomicfoundation/ignition-core";
import {
  HardhatArtifactResolver,
  errorDeploymentResultToExceptionMessage,
} from "@nomicfoundation/hardhat-ignition/helpers";
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
  if (new Set(attesters.map((a) => a.toLowerCase())).size !== 3)
    throw new Error(`${where}: the three attesters must be distinct`);
  const out: ContractSetParameters = { attesters: [...attesters].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)) };
  for (const role of ["admin", "guardian", "treasury"] as const) {
    const value = given[role];
    if (value === undefined) continue;
    if (!isAddress(value) || BigInt(value) === 0n)
      throw new Error(`${where}: ${role} must be a non-zero address, got ${JSON.stringify(value)}`);
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
  if (typeof own !== "object" || own === null)
    throw new Error(`${file}: no "${MODULE_ID}" object (Ignition parameters are per module)`);
  return own as Partial<ContractSetParameters>;
}

interface JournalMessage {
  type: string;
  futureId: string;
  networkInteractionId?: number;
  nonce?: number;
  from?: string;
  networkInteraction?: { id: number; to?: string; data: string };
  receipt?: { blockNumber: number };
}

function readJournal(deploymentDir: string): JournalMessage[] {
  return fs
    .readFileSync(path.join(deploymentDir, JOURNAL), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as JournalMessage);
}

type Request = (method: string, params?: unknown[]) => Promise<unknown>;

/**
 * The hash of the transaction `from` sent with `nonce`, mined at or after block `since`: the block
 * is found by bisecting the sender's nonce (eth_getTransactionCount at a block), then read.
 * Undefined when no mined transaction has that nonce yet.
 */
async function minedTransactionWithNonce(
  request: Request,
  from: string,
  nonce: number,
  since: number,
): Promise<{ hash: string; to: string | null; input: string } | undefined> {
  const count = async (block: number) =>
    Number(await request("eth_getTransactionCount", [from, `0x${block.toString(16)}`]));
  let high = Number(await request("eth_blockNumber"));
  if ((await count(high)) <= nonce) return undefined;
  let low = Math.max(0, since);
  if ((await count(low)) > nonce) low = 0; // `since` was too late: search the whole chain
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if ((await count(mid)) > nonce) high = mid;
    else low = mid + 1;
  }
  const block = (await request("eth_getBlockByNumber", [`0x${high.toString(16)}`, true])) as {
    transactions: { hash: string; from: string; nonce: string; to: string | null; input: string }[];
  };
  return block.transactions.find((tx) => tx.from.toLowerCase() === from.toLowerCase() && Number(tx.nonce) === nonce);
}

/** Repairs the journal of an interrupted deployment where that is safe (see the file's comment); returns the futures wiped. */
async function repairJournal(
  deploymentDir: string,
  artifactResolver: HardhatArtifactResolver,
  provider: EIP1193Provider,
  log: (line: string) => void,
): Promise<string[]> {
  const request: Request = (method, params) => provider.request({ method, params });
  const messages = readJournal(deploymentDir);
  const previous = await status(deploymentDir);
  log(`resuming the deployment journaled in ${deploymentDir} (${previous.successful.length} futures done)`);
  const key = (m: JournalMessage) => `${m.futureId}/${m.networkInteractionId}`;
  const sent = new Set(messages.filter((m) => m.type === "TRANSACTION_SEND").map(key));
  const prepared = messages.filter((m) => m.type === "TRANSACTION_PREPARE_SEND");
  const fromOf = new Map(messages.filter((m) => m.from !== undefined).map((m) => [m.futureId, m.from!]));
  const interactionOf = new Map(
    messages
      .filter((m) => m.type === "NETWORK_INTERACTION_REQUEST" && m.networkInteraction)
      .map((m) => [`${m.futureId}/${m.networkInteraction!.id}`, m.networkInteraction!]),
  );
  const lastConfirmedBlock = Math.max(
    0,
    ...messages.filter((m) => m.type === "TRANSACTION_CONFIRM" && m.receipt).map((m) => m.receipt!.blockNumber),
  );

  // Transactions whose sending was cut off: find them on chain and track them.
  for (const lost of prepared.filter((m) => !sent.has(key(m)))) {
    const from = fromOf.get(lost.futureId)!;
    const interaction = interactionOf.get(key(lost));
    const tx = await minedTransactionWithNonce(request, from, lost.nonce!, lastConfirmedBlock);
    const track = `npx hardhat ignition track-tx <txHash> ${path.basename(deploymentDir)} --network <network>`;
    if (!tx) {
      throw new Error(
        `${lost.futureId}: its transaction (nonce ${lost.nonce} from ${from}) was prepared but is not mined yet; wait for it and run again, or if it was dropped see ${track}`,
      );
    }
    const same =
      interaction !== undefined &&
      (tx.to ?? undefined)?.toLowerCase() === interaction.to?.toLowerCase() &&
      tx.input === interaction.data;
    if (!same)
      throw new Error(
        `${lost.futureId}: nonce ${lost.nonce} from ${from} was used by another transaction (${tx.hash}); check it, then ${track}`,
      );
    log(
      `found ${lost.futureId}'s transaction ${tx.hash} (nonce ${lost.nonce}) on chain: tracking it instead of sending it again`,
    );
    await trackTransaction(deploymentDir, tx.hash, provider);
  }

  // Futures that failed, or started without taking a nonce: nothing of theirs is on chain.
  const preparedFutures = new Set(prepared.map((m) => m.futureId));
  const wipeable = [
    ...previous.failed.map((f) => ({ futureId: f.futureId, why: `failed in the previous run: ${f.error}` })),
    ...previous.started
      .filter((id) => !preparedFutures.has(id))
      .map((futureId) => ({ futureId, why: "started in the previous run, no transaction sent" })),
  ];
  for (const { futureId, why } of wipeable) {
    log(`wiping ${futureId}, which ${why}`);
    await wipe(deploymentDir, artifactResolver, futureId);
  }
  return wipeable.map((w) => w.futureId);
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
export async function deployContractSet(
  hre: HardhatRuntimeEnvironment,
  options: DeployContractSetOptions,
): Promise<ContractSetDeployment> {
  const provider = options.provider ?? (hre.network.provider as unknown as EIP1193Provider);
  const log = options.log ?? (() => undefined);
  const temporary =
    options.deploymentDir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-ignition-")) : undefined;
  const deploymentDir = options.deploymentDir ?? temporary!;
  const artifactResolver = new HardhatArtifactResolver(hre);
  try {
    const wiped = fs.existsSync(path.join(deploymentDir, JOURNAL))
      ? await repairJournal(deploymentDir, artifactResolver, provider, log)
      : [];
    const accounts = (await provider.request({ method: "eth_accounts" })) as string[];
    if (accounts.length === 0)
      throw new Error("no deployer account: configure one for this network (DOGEOS_PRIVATE_KEY_FILE)");
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
      throw new Error(
        `${errorDeploymentResultToExceptionMessage(result)}\nthe journal is in ${deploymentDir}: run the same command again to resume`,
      );
    }
    const chainId = Number(await provider.request({ method: "eth_chainId" }));
    const transactions = await listTransactions(deploymentDir, artifactResolver);
    const contracts = {} as Record<PublishedContract, DeployedContractRecord>;
    for (const name of PUBLISHED_CONTRACTS) {
      const address = result.contracts[`${MODULE_ID}#${name}`]?.address;
      if (!address) throw new Error(`the deployment result has no ${name}`);
      const creation = transactions.find(
        (tx) => tx.address !== undefined && tx.address.toLowerCase() === address.toLowerCase(),
      );
      if (!creation) throw new Error(`the journal in ${deploymentDir} has no creation of ${name} at ${address}`);
      const receipt = (await provider.request({ method: "eth_getTransactionReceipt", params: [creation.txHash] })) as {
        blockNumber: string;
      } | null;
      if (!receipt) throw new Error(`no receipt for ${name}'s creation ${creation.txHash}`);
      contracts[name] = { address, deployBlock: Number(receipt.blockNumber), deployTx: creation.txHash };
    }
    return { chainId, contracts, wiped };
  } finally {
    if (temporary) fs.rmSync(temporary, { recursive: true, force: true });
  }
}
