/**
 * Deploys the published contract set to the selected network and records the addresses:
 *
 *   npx hardhat run deploy/deploy.ts --network localhost
 *   DOGEOS_RPC_URL=... DOGEOS_PRIVATE_KEY=... DEPLOY_ATTESTERS=0x..,0x..,0x.. npx hardhat run deploy/deploy.ts --network dogeosTestnet
 *
 * DogeInscriber and DogeAnchor are wired to the DogeAttestation just deployed, with the same admin,
 * guardian and timelock delay and the treasury as their operator; the script reads the wiring of
 * every contract back from the chain before recording anything.
 *
 * Environment: DEPLOY_ATTESTERS (three addresses; on the local chains the Hardhat accounts 1-3 are
 * used when unset), DEPLOY_ADMIN, DEPLOY_GUARDIAN, DEPLOY_TREASURY (default: the deployer),
 * DEPLOY_TIMELOCK_DELAY seconds (default 86400; 3600 on local chains). The addresses go to
 * shared/abi/index.json under the chain id with `deployed: true`; the throwaway local chain 31337 is
 * recorded in data/abi/index.json instead, so a local run does not rewrite a committed file.
 */
import fs from "node:fs";
import path from "node:path";
import hre from "hardhat";
import { ABI_DIR, PUBLISHED_CONTRACTS, PublishedContract, abiFileText, indexEntry, indexFileText, readAbiIndex } from "./contracts";

const LOCAL_CHAIN_ID = 31337;

function addressList(value: string | undefined, what: string): string[] | null {
  if (!value) return null;
  const items = value.split(",").map((item) => item.trim());
  for (const item of items) if (!hre.ethers.isAddress(item)) throw new Error(`${what}: "${item}" is not an address`);
  return items;
}

interface JobServiceWiring {
  attestation: string;
  admin: string;
  guardian: string;
  operator: string;
  delay: number;
}

/** Reads a job service's wiring back from the chain and throws on any difference. */
async function checkJobServiceWiring(name: string, address: string, expected: JobServiceWiring): Promise<void> {
  const service = await hre.ethers.getContractAt(name, address);
  const actual: Record<keyof JobServiceWiring, string> = {
    attestation: await service.getFunction("attestation")(),
    admin: await service.getFunction("admin")(),
    guardian: await service.getFunction("guardian")(),
    operator: await service.getFunction("operator")(),
    delay: String(await service.getFunction("timelockDelay")()),
  };
  for (const key of Object.keys(actual) as (keyof JobServiceWiring)[]) {
    if (actual[key].toLowerCase() !== String(expected[key]).toLowerCase()) throw new Error(`${name} ${key} is ${actual[key]}, expected ${expected[key]}`);
  }
}

async function main(): Promise<void> {
  const { ethers } = hre;
  const chainId = Number((await ethers.provider.getNetwork()).chainId);
  const local = chainId === LOCAL_CHAIN_ID;
  const signers = await ethers.getSigners();
  if (signers.length === 0) throw new Error("no deployer account: set DOGEOS_PRIVATE_KEY for this network");
  const deployer = signers[0];
  const attesters = addressList(process.env.DEPLOY_ATTESTERS, "DEPLOY_ATTESTERS") ?? (local ? signers.slice(1, 4).map((s) => s.address) : null);
  if (!attesters || attesters.length !== 3) throw new Error("DEPLOY_ATTESTERS must name exactly three attester addresses");
  const admin = process.env.DEPLOY_ADMIN ?? deployer.address;
  const guardian = process.env.DEPLOY_GUARDIAN ?? deployer.address;
  const treasury = process.env.DEPLOY_TREASURY ?? deployer.address;
  const delay = Number(process.env.DEPLOY_TIMELOCK_DELAY ?? (local ? 3600 : 86400));

  process.stderr.write(`deploying to chain ${chainId} from ${deployer.address}...\n`);
  const addresses: Partial<Record<PublishedContract, string>> = {};
  const plugs = await (await ethers.getContractFactory("PlugsMarketplace")).deploy();
  await plugs.waitForDeployment();
  addresses.PlugsMarketplace = await plugs.getAddress();
  const envelope = await (await ethers.getContractFactory("EnvelopeHelper")).deploy();
  await envelope.waitForDeployment();
  addresses.EnvelopeHelper = await envelope.getAddress();
  // Attesters sorted ascending, as the quorum rule reads signatures in address order.
  const sortedAttesters = [...attesters].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  const attestation = await (await ethers.getContractFactory("DogeAttestation")).deploy(admin, guardian, treasury, sortedAttesters, delay, addresses.PlugsMarketplace);
  await attestation.waitForDeployment();
  addresses.DogeAttestation = await attestation.getAddress();
  // The job services settle through the attestation contract: same roles and delay, the treasury as operator.
  for (const name of ["DogeInscriber", "DogeAnchor"] as const) {
    const service = await (await ethers.getContractFactory(name)).deploy(addresses.DogeAttestation, admin, guardian, treasury, delay);
    await service.waitForDeployment();
    addresses[name] = await service.getAddress();
  }
  // Check the wiring on chain before recording anything.
  const wired = await (attestation as unknown as { plugsMarketplace(): Promise<string> }).plugsMarketplace();
  if (wired.toLowerCase() !== addresses.PlugsMarketplace.toLowerCase()) throw new Error(`DogeAttestation points at plugs ${wired}, expected ${addresses.PlugsMarketplace}`);
  for (const name of ["DogeInscriber", "DogeAnchor"] as const) await checkJobServiceWiring(name, addresses[name]!, { attestation: addresses.DogeAttestation, admin, guardian, operator: treasury, delay });

  const dir = local ? path.resolve(__dirname, "..", "data", "abi") : ABI_DIR;
  fs.mkdirSync(dir, { recursive: true });
  const indexFile = path.join(dir, "index.json");
  const index = local ? (fs.existsSync(indexFile) ? JSON.parse(fs.readFileSync(indexFile, "utf8")) : {}) : readAbiIndex();
  index[String(chainId)] = indexEntry(addresses);
  fs.writeFileSync(indexFile, indexFileText(index));
  if (local) {
    for (const name of PUBLISHED_CONTRACTS) {
      fs.writeFileSync(path.join(dir, `${name}.json`), abiFileText((await hre.artifacts.readArtifact(name)).abi));
    }
  }
  for (const name of PUBLISHED_CONTRACTS) process.stdout.write(`${name.padEnd(18)} ${addresses[name]}\n`);
  process.stdout.write(`abi index: ${indexFile}\n`);
}

main().catch((error) => {
  process.stderr.write(`deploy: ${(error as Error).message}\n`);
  process.exit(1);
});
