/**
 * The paid fresh-fact flow against a running system (npm start, or any deployment):
 *
 *   node --import tsx scripts/paid-fact.ts <dogecoin address> [tick]
 *
 * Reads the DogeAttestation address from the ABI index (src/l2/abi-index.ts: data/abi/index.json for the local chain, or ABI_INDEX), pays
 * requestFee for DOGE_BALANCE (or DRC20_BALANCE with a tick) with requestFact from L2_PRIVATE_KEY
 * (default: Hardhat's account 5, a public test key), posts the request id and inputs to
 * ATTEST_URL/fulfill, and prints the answer and the stored fact. Env: L2_RPC_URL (default
 * http://127.0.0.1:8545), ATTEST_URL (default http://127.0.0.1:3004/api/attest), PLUG_ID (default 0).
 */
import { JsonRpcProvider, Wallet } from "ethers";
import { FACT_TYPE_KEYS, ZERO_KEY, addressKey, tickKey } from "../src/facts";
import { abiIndexFile, contractAddress } from "../src/l2/abi-index";
import { attestationAt } from "../src/l2/contracts";

const HARDHAT_ACCOUNT_5 = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

async function main(): Promise<void> {
  const [address, tick] = process.argv.slice(2);
  if (!address) throw new Error("usage: paid-fact.ts <dogecoin address> [tick]");
  const provider = new JsonRpcProvider(process.env.L2_RPC_URL ?? "http://127.0.0.1:8545");
  const { chainId } = await provider.getNetwork();
  const attestationAddress = contractAddress(chainId, "DogeAttestation");
  if (!attestationAddress)
    throw new Error(`${abiIndexFile(chainId)} has no DogeAttestation address for chain ${chainId}`);
  const requester = new Wallet(process.env.L2_PRIVATE_KEY ?? HARDHAT_ACCOUNT_5, provider);
  const attestation = attestationAt(attestationAddress, requester);
  const type = tick ? FACT_TYPE_KEYS.DRC20_BALANCE : FACT_TYPE_KEYS.DOGE_BALANCE;
  const args = [type, addressKey(address), tick ? tickKey(tick) : ZERO_KEY, BigInt(process.env.PLUG_ID ?? 0)] as const;
  const fee = await attestation.requestFee(type);
  process.stdout.write(`requestFee: ${fee} wei\n`);
  const requestId = await attestation.requestFact.staticCall(...args, { value: fee });
  const receipt = await (await attestation.requestFact(...args, { value: fee })).wait();
  if (!receipt) throw new Error("requestFact was not mined");
  process.stdout.write(`requestFact: request ${requestId} in L2 block ${receipt.blockNumber}\n`);
  const started = Date.now();
  const response = await fetch(`${process.env.ATTEST_URL ?? "http://127.0.0.1:3004/api/attest"}/fulfill`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ requestId, address, ...(tick ? { tick } : {}) }),
  });
  process.stdout.write(
    `POST /fulfill: ${response.status} in ${Date.now() - started} ms\n${JSON.stringify(await response.json(), null, 2)}\n`,
  );
  const [value, l1Height, attestedAt] = tick
    ? await attestation.drc20Balance(address, tick)
    : await attestation.dogeBalance(address);
  process.stdout.write(`on chain: value ${value} at base-chain height ${l1Height}, attested at ${attestedAt}\n`);
}

main().catch((error) => {
  process.stderr.write(`paid-fact: ${(error as Error).message}\n`);
  process.exit(1);
});
