/**
 * Deploys the published contract set to the selected network with Hardhat Ignition and records it
 * in the ABI index:
 *
 *   npx hardhat run deploy/deploy.ts --network localhost
 *   DOGEOS_RPC_URL=https://... DOGEOS_PRIVATE_KEY_FILE=/etc/dogeos/deployer.key npx hardhat run deploy/deploy.ts --network dogeosTestnet
 *
 * The parameters come from ignition/parameters/<network>.json (devnet.json for the local chain
 * 31337, dogeos.json for DogeOS 6281971, else <hardhat network name>.json), or the file named by
 * DEPLOY_PARAMETERS; see ignition/modules/DogeOS.ts for what they mean. DEPLOY_ATTESTERS (three
 * comma-separated addresses), DEPLOY_ADMIN, DEPLOY_GUARDIAN, DEPLOY_TREASURY and
 * DEPLOY_TIMELOCK_DELAY (seconds) override the file's values.
 *
 * The run is journaled (deploy/ignition.ts says where); if it fails halfway, run the same command
 * again: what was deployed stays, the rest is deployed, nothing twice. The script reads the wiring
 * of every contract back from the chain before recording anything. It prints one line per contract
 * (`<name> <address>`, which `npm start` reads) and writes the addresses, deploy blocks and deploy
 * transactions to shared/abi/index.json under the chain id with `deployed: true`; the throwaway
 * local chain 31337 is recorded in <data>/abi/index.json instead (data/ or DOGEOS_DATA_DIR), with
 * the ABI files beside it, so a local run does not rewrite a committed file.
 */
import fs from "node:fs";
import path from "node:path";
import hre from "hardhat";
import {
  ABI_DIR,
  DOGEOS_TESTNET_CHAIN_ID,
  PUBLISHED_CONTRACTS,
  abiFileText,
  indexEntry,
  indexFileText,
  readAbiIndex,
} from "./contracts";
import { checkParameters, deployContractSet, readParametersFile, type ContractSetParameters } from "./ignition";
import { LOCAL_CHAIN_ID } from "../src/l2/abi-index";

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = process.env.DOGEOS_DATA_DIR ?? path.join(ROOT, "data");

/** The parameters file for a chain. */
function parametersFileFor(chainId: number, networkName: string): string {
  if (process.env.DEPLOY_PARAMETERS) return path.resolve(process.env.DEPLOY_PARAMETERS);
  const name = chainId === LOCAL_CHAIN_ID ? "devnet" : chainId === DOGEOS_TESTNET_CHAIN_ID ? "dogeos" : networkName;
  return path.join(ROOT, "ignition", "parameters", `${name}.json`);
}

/** The file's parameters with the DEPLOY_* environment overrides applied. */
function parametersWithOverrides(file: string): Partial<ContractSetParameters> {
  const params = readParametersFile(file);
  const env = process.env;
  if (env.DEPLOY_ATTESTERS) params.attesters = env.DEPLOY_ATTESTERS.split(",").map((item) => item.trim());
  if (env.DEPLOY_ADMIN) params.admin = env.DEPLOY_ADMIN;
  if (env.DEPLOY_GUARDIAN) params.guardian = env.DEPLOY_GUARDIAN;
  if (env.DEPLOY_TREASURY) params.treasury = env.DEPLOY_TREASURY;
  if (env.DEPLOY_TIMELOCK_DELAY) params.timelockDelay = Number(env.DEPLOY_TIMELOCK_DELAY);
  return params;
}

/**
 * The journal directory: Ignition's for a real chain; under the data dir for a local Hardhat node,
 * forgotten when the node is a new instance; none (a temporary one) for the in-process network.
 */
async function deploymentDirFor(chainId: number): Promise<string | undefined> {
  if (hre.network.name === "hardhat") return undefined;
  if (chainId !== LOCAL_CHAIN_ID) return path.join(hre.config.paths.ignition, "deployments", `chain-${chainId}`);
  const dir = path.join(DATA_DIR, "ignition", `chain-${chainId}`);
  let instance: string | undefined;
  try {
    instance = ((await hre.network.provider.request({ method: "hardhat_metadata" })) as { instanceId: string })
      .instanceId;
  } catch {
    return dir; // not a Hardhat node: keep the journal as for any chain
  }
  const instanceFile = `${dir}.instance`;
  const known = fs.existsSync(instanceFile) ? fs.readFileSync(instanceFile, "utf8").trim() : undefined;
  if (known !== instance) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.writeFileSync(instanceFile, `${instance}\n`);
  }
  return dir;
}

interface Wiring {
  attestation: string;
  admin: string;
  guardian: string;
  operator: string;
  delay: number;
}

/** Reads a job service's wiring back from the chain and throws on any difference. */
async function checkJobServiceWiring(name: string, address: string, expected: Wiring): Promise<void> {
  const service = await hre.ethers.getContractAt(name, address);
  const actual: Record<keyof Wiring, string> = {
    attestation: await service.getFunction("attestation")(),
    admin: await service.getFunction("admin")(),
    guardian: await service.getFunction("guardian")(),
    operator: await service.getFunction("operator")(),
    delay: String(await service.getFunction("timelockDelay")()),
  };
  for (const key of Object.keys(actual) as (keyof Wiring)[]) {
    if (actual[key].toLowerCase() !== String(expected[key]).toLowerCase())
      throw new Error(`${name} ${key} is ${actual[key]}, expected ${expected[key]}`);
  }
}

async function main(): Promise<void> {
  const { ethers } = hre;
  const chainId = Number((await ethers.provider.getNetwork()).chainId);
  const local = chainId === LOCAL_CHAIN_ID;
  const signers = await ethers.getSigners();
  if (signers.length === 0)
    throw new Error("no deployer account: set DOGEOS_PRIVATE_KEY_FILE (a 0600 file holding the key) for this network");
  const deployer = signers[0].address;
  const file = parametersFileFor(chainId, hre.network.name);
  const parameters = checkParameters(parametersWithOverrides(file), path.relative(ROOT, file));
  const deploymentDir = await deploymentDirFor(chainId);

  process.stderr.write(
    `deploying to chain ${chainId} from ${deployer} with ${path.relative(ROOT, file)}${deploymentDir ? `, journal ${deploymentDir}` : ""}...\n`,
  );
  const deployment = await deployContractSet(hre, {
    parameters,
    deploymentDir,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const addresses = Object.fromEntries(
    PUBLISHED_CONTRACTS.map((name) => [name, deployment.contracts[name].address]),
  ) as Record<(typeof PUBLISHED_CONTRACTS)[number], string>;

  // Check the wiring on chain before recording anything.
  const admin = parameters.admin ?? deployer;
  const guardian = parameters.guardian ?? deployer;
  const treasury = parameters.treasury ?? deployer;
  const delay = parameters.timelockDelay ?? 86400;
  const attestation = await ethers.getContractAt("DogeAttestation", addresses.DogeAttestation);
  const wired = await attestation.getFunction("plugsMarketplace")();
  if (wired.toLowerCase() !== addresses.PlugsMarketplace.toLowerCase())
    throw new Error(`DogeAttestation points at plugs ${wired}, expected ${addresses.PlugsMarketplace}`);
  const [attesters] = await attestation.getFunction("attesters")();
  if ([...attesters].join(",").toLowerCase() !== parameters.attesters.join(",").toLowerCase())
    throw new Error(
      `DogeAttestation's attesters are ${[...attesters].join(",")}, expected ${parameters.attesters.join(",")}`,
    );
  for (const name of ["DogeInscriber", "DogeAnchor"] as const)
    await checkJobServiceWiring(name, addresses[name], {
      attestation: addresses.DogeAttestation,
      admin,
      guardian,
      operator: treasury,
      delay,
    });

  const dir = local ? path.join(DATA_DIR, "abi") : ABI_DIR;
  fs.mkdirSync(dir, { recursive: true });
  const indexFile = path.join(dir, "index.json");
  const index = local
    ? fs.existsSync(indexFile)
      ? JSON.parse(fs.readFileSync(indexFile, "utf8"))
      : {}
    : readAbiIndex();
  index[String(chainId)] = indexEntry(deployment.contracts);
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
