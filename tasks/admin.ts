/**
 * Hardhat tasks for the timelocked admin calls of DogeAttestation, DogeInscriber and DogeAnchor
 * (contracts/governance/AdminTimelock.sol: the admin schedules an ABI-encoded setter call with a
 * salt; it becomes executable `timelockDelay()` seconds later, for EXECUTION_WINDOW = 14 days).
 *
 *   npx hardhat dogeos:schedule DogeAttestation setAttesters 0xA...,0xB...,0xC... --network dogeosTestnet
 *   npx hardhat dogeos:operations DogeAttestation --network dogeosTestnet
 *   npx hardhat dogeos:execute DogeAttestation setAttesters 0xA...,0xB...,0xC... --network dogeosTestnet
 *   npx hardhat dogeos:execute DogeAttestation --operation 0x<id> --network dogeosTestnet
 *   npx hardhat dogeos:cancel DogeAttestation --operation 0x<id> --network dogeosTestnet
 *
 * Arguments after the setter are its arguments in order; an array argument is one comma-separated
 * word (or a JSON array). The contract's address comes from the ABI index of the network's chain
 * (src/l2/abi-index.ts) unless --address is given; the sender is the network's first account
 * (DOGEOS_PRIVATE_KEY_FILE) unless --from names another, and must be the contract's admin. --salt
 * (a 32-byte hex value, or any text, hashed) tells apart two schedulings of the same call; give
 * the same salt to execute.
 */
import { task, types } from "hardhat/config";
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import type { Contract, EventLog, FunctionFragment, ParamType } from "ethers";
import { contractAddress, deployBlock, abiIndexFile } from "../src/l2/abi-index";

export const ADMIN_CONTRACTS = ["DogeAttestation", "DogeInscriber", "DogeAnchor"] as const;

interface TargetArgs {
  contract: string;
  address?: string;
  from?: string;
}

interface CallArgs extends TargetArgs {
  setter?: string;
  args: string[];
  salt?: string;
  operation?: string;
}

const ZERO_SALT = `0x${"00".repeat(32)}`;

/** The salt as bytes32: a 32-byte hex value as it is, other text hashed (keccak256 of its UTF-8). */
export function saltOf(hre: HardhatRuntimeEnvironment, salt: string | undefined): string {
  if (salt === undefined || salt === "") return ZERO_SALT;
  return /^0x[0-9a-fA-F]{64}$/.test(salt) ? salt.toLowerCase() : hre.ethers.id(salt);
}

/** A command-line word as the value of a parameter of type `param`. */
function argumentValue(param: ParamType, word: string): unknown {
  if (param.baseType === "array") {
    const items: string[] = word.trim().startsWith("[")
      ? JSON.parse(word)
      : word
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item !== "");
    return items.map((item) => argumentValue(param.arrayChildren!, String(item)));
  }
  if (param.baseType === "bool") {
    if (word !== "true" && word !== "false")
      throw new Error(`${param.name || param.type} must be true or false, got "${word}"`);
    return word === "true";
  }
  return word;
}

async function target(
  hre: HardhatRuntimeEnvironment,
  args: TargetArgs,
): Promise<{ contract: Contract; chainId: number; address: string }> {
  if (!(ADMIN_CONTRACTS as readonly string[]).includes(args.contract))
    throw new Error(`${args.contract} has no timelock: one of ${ADMIN_CONTRACTS.join(", ")}`);
  const chainId = Number((await hre.ethers.provider.getNetwork()).chainId);
  const address = args.address ?? contractAddress(chainId, args.contract);
  if (!address)
    throw new Error(
      `no ${args.contract} address recorded for chain ${chainId} in ${abiIndexFile(chainId)}: give --address`,
    );
  const signers = await hre.ethers.getSigners();
  const signer = args.from ? signers.find((s) => s.address.toLowerCase() === args.from!.toLowerCase()) : signers[0];
  if (!signer)
    throw new Error(
      args.from
        ? `--from ${args.from} is not an account of network ${hre.network.name}`
        : `no account for network ${hre.network.name}: set DOGEOS_PRIVATE_KEY_FILE`,
    );
  const contract = (await hre.ethers.getContractAt(args.contract, address, signer)) as unknown as Contract;
  return { contract, chainId, address };
}

async function requireAdmin(contract: Contract): Promise<void> {
  const admin: string = await contract.getFunction("admin")();
  const sender = await (contract.runner as unknown as { getAddress(): Promise<string> }).getAddress();
  if (admin.toLowerCase() !== sender.toLowerCase())
    throw new Error(`the sender ${sender} is not the admin ${admin} of ${await contract.getAddress()}`);
}

/** The encoded setter call from the command line's setter and arguments. */
function encodeCall(contract: Contract, setter: string, words: string[]): { call: string; fragment: FunctionFragment } {
  let fragment: FunctionFragment | null;
  try {
    fragment = contract.interface.getFunction(setter);
  } catch {
    fragment = null;
  }
  if (!fragment) throw new Error(`${setter} is not a function of this contract`);
  if (words.length !== fragment.inputs.length) {
    throw new Error(`${fragment.format("sighash")} takes ${fragment.inputs.length} argument(s), got ${words.length}`);
  }
  const values = fragment.inputs.map((param, i) => argumentValue(param, words[i]));
  return { call: contract.interface.encodeFunctionData(fragment, values), fragment };
}

const iso = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

/** The scheduled call and salt of `operationId`, from its OperationScheduled event. */
async function scheduledOperation(
  hre: HardhatRuntimeEnvironment,
  contract: Contract,
  chainId: number,
  name: string,
  operationId: string,
): Promise<{ call: string; salt: string }> {
  const from = deployBlock(chainId, name) ?? 0;
  const events = (await contract.queryFilter(contract.filters.OperationScheduled(operationId), from)) as EventLog[];
  if (events.length === 0)
    throw new Error(`no OperationScheduled ${operationId} on ${await contract.getAddress()} since block ${from}`);
  const last = events[events.length - 1];
  return { call: last.args.call as string, salt: last.args.salt as string };
}

export interface ScheduleResult {
  operationId: string;
  call: string;
  salt: string;
  readyAt: bigint;
  expiresAt: bigint;
  txHash: string;
}

task(
  "dogeos:schedule",
  "Schedules a timelocked setter call of DogeAttestation, DogeInscriber or DogeAnchor (admin only)",
)
  .addPositionalParam("contract", "DogeAttestation, DogeInscriber or DogeAnchor")
  .addPositionalParam(
    "setter",
    "the setter, e.g. setAttesters, setRequestFee, setTreasury, setFee, setOperator, setGuardian, setAdmin",
  )
  .addOptionalVariadicPositionalParam(
    "args",
    "the setter's arguments in order; an array as one comma-separated word",
    [],
  )
  .addOptionalParam("salt", "32-byte hex, or text that is hashed; default zero", undefined, types.string)
  .addOptionalParam("address", "the contract's address (default: the ABI index of this chain)", undefined, types.string)
  .addOptionalParam("from", "the admin account to send from (default: the first account)", undefined, types.string)
  .setAction(async (args: CallArgs, hre): Promise<ScheduleResult> => {
    const { contract } = await target(hre, args);
    await requireAdmin(contract);
    const { call, fragment } = encodeCall(contract, args.setter!, args.args);
    const salt = saltOf(hre, args.salt);
    const tx = await contract.getFunction("schedule")(call, salt);
    const receipt = await tx.wait();
    const operationId: string = await contract.getFunction("hashOperation")(call, salt);
    const operation = await contract.getFunction("operationOf")(operationId);
    const result = {
      operationId,
      call,
      salt,
      readyAt: operation.readyAt as bigint,
      expiresAt: operation.expiresAt as bigint,
      txHash: receipt!.hash,
    };
    process.stdout.write(
      [
        `scheduled  ${fragment.format("sighash")} on ${args.contract} ${await contract.getAddress()}`,
        `operation  ${operationId}`,
        `salt       ${salt}`,
        `call       ${call}`,
        `ready at   ${iso(result.readyAt)} (${result.readyAt})`,
        `expires at ${iso(result.expiresAt)} (${result.expiresAt})`,
        `tx         ${result.txHash}`,
        `then:      npx hardhat dogeos:execute ${args.contract} --operation ${operationId} --network ${hre.network.name}`,
      ].join("\n") + "\n",
    );
    return result;
  });

task(
  "dogeos:execute",
  "Executes a scheduled setter call once it is ready (admin only): the same setter, arguments and salt, or --operation <id>",
)
  .addPositionalParam("contract", "DogeAttestation, DogeInscriber or DogeAnchor")
  .addOptionalPositionalParam("setter", "the setter that was scheduled (or give --operation)", undefined, types.string)
  .addOptionalVariadicPositionalParam("args", "the setter's arguments as scheduled", [])
  .addOptionalParam("salt", "the salt it was scheduled with", undefined, types.string)
  .addOptionalParam(
    "operation",
    "the operation id printed by dogeos:schedule (its call and salt are read from the chain)",
    undefined,
    types.string,
  )
  .addOptionalParam("address", "the contract's address (default: the ABI index of this chain)", undefined, types.string)
  .addOptionalParam("from", "the admin account to send from (default: the first account)", undefined, types.string)
  .setAction(async (args: CallArgs, hre): Promise<{ operationId: string; txHash: string }> => {
    const { contract, chainId } = await target(hre, args);
    await requireAdmin(contract);
    let call: string;
    let salt: string;
    if (args.operation) {
      if (args.setter) throw new Error("give either --operation or the setter and its arguments, not both");
      ({ call, salt } = await scheduledOperation(hre, contract, chainId, args.contract, args.operation));
    } else {
      if (!args.setter) throw new Error("give the setter and its arguments as scheduled, or --operation <id>");
      call = encodeCall(contract, args.setter, args.args).call;
      salt = saltOf(hre, args.salt);
    }
    const operationId: string = await contract.getFunction("hashOperation")(call, salt);
    const operation = await contract.getFunction("operationOf")(operationId);
    if (operation.readyAt === 0n)
      throw new Error(`operation ${operationId} is not scheduled (check the arguments and --salt)`);
    if (operation.executed) throw new Error(`operation ${operationId} was executed already`);
    const now = BigInt((await hre.ethers.provider.getBlock("latest"))!.timestamp);
    if (now < operation.readyAt)
      throw new Error(
        `operation ${operationId} is not ready: it is at ${iso(operation.readyAt)}, the chain's time is ${iso(now)}`,
      );
    if (now > operation.expiresAt)
      throw new Error(`operation ${operationId} expired at ${iso(operation.expiresAt)}; schedule it again`);
    const receipt = await (await contract.getFunction("execute")(call, salt)).wait();
    process.stdout.write(`executed   ${operationId}\ntx         ${receipt!.hash}\n`);
    return { operationId, txHash: receipt!.hash };
  });

task("dogeos:cancel", "Cancels a scheduled, not yet executed operation (admin only)")
  .addPositionalParam("contract", "DogeAttestation, DogeInscriber or DogeAnchor")
  .addParam("operation", "the operation id", undefined, types.string)
  .addOptionalParam("address", "the contract's address (default: the ABI index of this chain)", undefined, types.string)
  .addOptionalParam("from", "the admin account to send from (default: the first account)", undefined, types.string)
  .setAction(async (args: CallArgs, hre): Promise<{ txHash: string }> => {
    const { contract } = await target(hre, args);
    await requireAdmin(contract);
    const receipt = await (await contract.getFunction("cancel")(args.operation)).wait();
    process.stdout.write(`cancelled  ${args.operation}\ntx         ${receipt!.hash}\n`);
    return { txHash: receipt!.hash };
  });

export interface OperationRow {
  operationId: string;
  call: string;
  function: string;
  salt: string;
  readyAt: bigint;
  expiresAt: bigint;
  state: "scheduled" | "ready" | "executed" | "cancelled" | "expired";
}

task("dogeos:operations", "Lists the operations scheduled on a contract since its deployment, with their state")
  .addPositionalParam("contract", "DogeAttestation, DogeInscriber or DogeAnchor")
  .addOptionalParam("address", "the contract's address (default: the ABI index of this chain)", undefined, types.string)
  .addOptionalParam(
    "fromBlock",
    "the first block to read (default: the contract's deploy block from the ABI index, else 0)",
    undefined,
    types.int,
  )
  .setAction(async (args: TargetArgs & { fromBlock?: number }, hre): Promise<OperationRow[]> => {
    const { contract, chainId } = await target(hre, args);
    const from = args.fromBlock ?? deployBlock(chainId, args.contract) ?? 0;
    const now = BigInt((await hre.ethers.provider.getBlock("latest"))!.timestamp);
    const rows: OperationRow[] = [];
    for (const event of (await contract.queryFilter(contract.filters.OperationScheduled(), from)) as EventLog[]) {
      const operationId = event.args.operationId as string;
      const operation = await contract.getFunction("operationOf")(operationId);
      const call = event.args.call as string;
      let fn = call.slice(0, 10);
      try {
        fn = contract.interface.parseTransaction({ data: call })?.signature ?? fn;
      } catch {
        // not one of this ABI's functions: show the selector
      }
      const state =
        operation.readyAt === 0n
          ? "cancelled"
          : operation.executed
            ? "executed"
            : now > operation.expiresAt
              ? "expired"
              : now >= operation.readyAt
                ? "ready"
                : "scheduled";
      // A cancelled then rescheduled operation appears once per scheduling; keep the last.
      const row: OperationRow = {
        operationId,
        call,
        function: fn,
        salt: event.args.salt as string,
        readyAt: event.args.readyAt as bigint,
        expiresAt: event.args.expiresAt as bigint,
        state,
      };
      const i = rows.findIndex((r) => r.operationId === operationId);
      if (i >= 0) rows.splice(i, 1);
      rows.push(row);
    }
    for (const row of rows)
      process.stdout.write(`${row.operationId}  ${row.state.padEnd(9)}  ready ${iso(row.readyAt)}  ${row.function}\n`);
    if (rows.length === 0) process.stdout.write(`no operation scheduled on ${args.contract} since block ${from}\n`);
    return rows;
  });
