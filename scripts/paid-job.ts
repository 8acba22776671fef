/**
 * A paid base-chain job against a running system (npm start, or any deployment):
 *
 *   node --import tsx scripts/paid-job.ts anchor "<text of at most 76 bytes>"
 *   node --import tsx scripts/paid-job.ts inscribe <dogecoin recipient> "<text>"
 *
 * Pays DogeAnchor.requestAnchor or DogeInscriber.requestInscription (text/plain;charset=utf-8, no
 * ACTION) with the contract's fee from L2_PRIVATE_KEY (default: Hardhat's account 5, a public test
 * key), then follows the job until the relayer settles it, printing the base-chain txid. Addresses
 * come from the ABI index (src/l2/abi-index.ts: <data>/abi/index.json for the local chain, where
 * <data> is DOGEOS_DATA_DIR or data/, as paid-fact.ts reads it; shared/abi/index.json for other
 * chains; or ABI_INDEX). Env: L2_RPC_URL (default http://127.0.0.1:8545), DOGEOS_DATA_DIR,
 * ABI_INDEX, TIMEOUT_SECONDS (default 600).
 */
import fs from "node:fs";
import path from "node:path";
import { Contract, JsonRpcProvider, Wallet, toUtf8Bytes } from "ethers";
import { abiIndexFile, contractAddress } from "../src/l2/abi-index";

const ROOT = path.resolve(__dirname, "..");
const HARDHAT_ACCOUNT_5 = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";
const STATUS = ["None", "Open", "Settled", "Refunded"];

async function main(): Promise<void> {
  const [kind, ...rest] = process.argv.slice(2);
  if ((kind !== "anchor" || rest.length !== 1) && (kind !== "inscribe" || rest.length !== 2)) {
    throw new Error('usage: paid-job.ts anchor "<text>" | paid-job.ts inscribe <recipient> "<text>"');
  }
  const provider = new JsonRpcProvider(process.env.L2_RPC_URL ?? "http://127.0.0.1:8545");
  const { chainId } = await provider.getNetwork();
  const name = kind === "anchor" ? "DogeAnchor" : "DogeInscriber";
  const address = contractAddress(chainId, name);
  if (!address) throw new Error(`${abiIndexFile(chainId)} has no ${name} address for chain ${chainId}`);
  const abi = JSON.parse(fs.readFileSync(path.join(ROOT, "shared/abi", `${name}.json`), "utf8"));
  const service = new Contract(address, abi, new Wallet(process.env.L2_PRIVATE_KEY ?? HARDHAT_ACCOUNT_5, provider));
  const fee = (await service.fee()) as bigint;
  const args =
    kind === "anchor" ? [toUtf8Bytes(rest[0])] : ["text/plain;charset=utf-8", "", toUtf8Bytes(rest[1]), rest[0]];
  const method = kind === "anchor" ? "requestAnchor" : "requestInscription";
  const jobId = (await service[method].staticCall(...args, { value: fee })) as string;
  const receipt = await (await service[method](...args, { value: fee })).wait();
  process.stdout.write(`${method}: job ${jobId}, fee ${fee} wei, L2 block ${receipt.blockNumber}\n`);
  const deadline = Date.now() + Number(process.env.TIMEOUT_SECONDS ?? 600) * 1000;
  let last = "";
  for (;;) {
    const job = await service.jobOf(jobId);
    const status = STATUS[Number(job.status)];
    if (status !== last)
      process.stdout.write(
        `job ${status}${status === "Settled" ? `: base-chain tx ${job.l1Txid.slice(2)} at height ${job.l1Height}` : ""}\n`,
      );
    last = status;
    if (status === "Settled" || status === "Refunded") return;
    if (Date.now() > deadline) throw new Error("the job was not settled in time; see the relayer's GET /v1/status");
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

main().catch((error) => {
  process.stderr.write(`paid-job: ${(error as Error).message}\n`);
  process.exit(1);
});
