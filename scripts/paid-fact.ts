/**
 * The paid fresh-fact flow against a running system (npm start, or any deployment):
 *
 *   node --import tsx scripts/paid-fact.ts <dogecoin address> [tick]
 *
 * Reads the DogeAttestation address from data/abi/index.json (the local chain) or ABI_INDEX, pays
 * requestFee for DOGE_BALANCE (or DRC20_BALANCE with a tick) with requestFact from L2_PRIVATE_KEY
 * (default: Hardhat's account 5, a public test key), posts the request id and inputs to
 * ATTEST_URL/fulfill, and prints the answer and the stored fact. Env: L2_RPC_URL (default
 * http://127.0.0.1:8545), ATTEST_URL (default http://127.0.0.1:3004/api/attest), PLUG_ID (default 0).
 */
import fs from "node:fs";
import path from "node:path";
import { Contract, JsonRpcProvider, Wallet } from "ethers";
import { FACT_TYPE_KEYS, ZERO_KEY, addressKey, tickKey } from "../src/facts";

const ROOT = path.resolve(__dirname, "..");
const HARDHAT_ACCOUNT_5 = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

async function main(): Promise<void> {
  const [address, tick] = process.argv.slice(2);
  if (!address) throw new Error("usage: paid-fact.ts <dogecoin address> [tick]");
  const provider = new JsonRpcProvider(process.env.L2_RPC_URL ?? "http://127.0.0.1:8545");
  const { chainId } = await provider.getNetwork();
  const indexFile = process.env.ABI_INDEX ?? path.join(ROOT, chainId === 31337n ? "data/abi/index.json" : "shared/abi/index.json");
  const entry = JSON.parse(fs.readFileSync(indexFile, "utf8"))[String(chainId)];
  const attestationAddress = entry?.contracts?.DogeAttestation?.address;
  if (!attestationAddress) throw new Error(`${indexFile} has no DogeAttestation address for chain ${chainId}`);
  const abi = JSON.parse(fs.readFileSync(path.join(ROOT, "shared/abi/DogeAttestation.json"), "utf8"));
  const requester = new Wallet(process.env.L2_PRIVATE_KEY ?? HARDHAT_ACCOUNT_5, provider);
  const attestation = new Contract(attestationAddress, abi, requester);
  const type = tick ? FACT_TYPE_KEYS.DRC20_BALANCE : FACT_TYPE_KEYS.DOGE_BALANCE;
  const args = [type, addressKey(address), tick ? tickKey(tick) : ZERO_KEY, BigInt(process.env.PLUG_ID ?? 0)] as const;
  const fee = (await attestation.requestFee(type)) as bigint;
  process.stdout.write(`requestFee: ${fee} wei\n`);
  const requestId = (await attestation.requestFact.staticCall(...args, { value: fee })) as string;
  const receipt = await (await attestation.requestFact(...args, { value: fee })).wait();
  process.stdout.write(`requestFact: request ${requestId} in L2 block ${receipt.blockNumber}\n`);
  const started = Date.now();
  const response = await fetch(`${process.env.ATTEST_URL ?? "http://127.0.0.1:3004/api/attest"}/fulfill`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ requestId, address, ...(tick ? { tick } : {}) }),
  });
  process.stdout.write(`POST /fulfill: ${response.status} in ${Date.now() - started} ms\n${JSON.stringify(await response.json(), null, 2)}\n`);
  const [value, l1Height, attestedAt] = tick ? await attestation.drc20Balance(address, tick) : await attestation.dogeBalance(address);
  process.stdout.write(`on chain: value ${value} at base-chain height ${l1Height}, attested at ${attestedAt}\n`);
}

main().catch((error) => {
  process.stderr.write(`paid-fact: ${(error as Error).message}\n`);
  process.exit(1);
});
