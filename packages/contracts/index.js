/**
 * @dogeos/contracts: the ABIs of the DogeOS contract set, the ABI index that records where each
 * chain's deployment is (address, deploy block, deploy transaction), and the Solidity interfaces
 * under ./contracts/ (import "@dogeos/contracts/contracts/attestation/IDogeAttestation.sol").
 * README.md shows each use.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** DogeOS testnet's chain id. */
const DOGEOS_TESTNET_CHAIN_ID = 6281971;
/** The throwaway local chain of `npm start` (a Hardhat node); its deployment is served, not bundled. */
const LOCAL_CHAIN_ID = 31337;
/** Where every daemon of the stack serves the index (and the ABI files beside it). */
const ABI_INDEX_PATH = "/shared/abi/index.json";

const CONTRACT_NAMES = Object.freeze([
  "DogeAttestation",
  "PlugsMarketplace",
  "EnvelopeHelper",
  "DogeInscriber",
  "DogeAnchor",
]);

/** The ABI index as published with this package (the real chains). */
const abiIndex = JSON.parse(fs.readFileSync(path.join(__dirname, "abi", "index.json"), "utf8"));

/** Each contract's ABI, by contract name. */
const abis = Object.freeze(
  Object.fromEntries(
    CONTRACT_NAMES.map((name) => [
      name,
      JSON.parse(fs.readFileSync(path.join(__dirname, "abi", `${name}.json`), "utf8")),
    ]),
  ),
);

/** The folder of the Solidity interfaces (contracts/attestation/IDogeAttestation.sol, ...). */
const contractsDir = path.join(__dirname, "contracts");

/**
 * The text of a Solidity file of this package by its import path
 * ("@dogeos/contracts/contracts/attestation/IDogeAttestation.sol" or "contracts/attestation/..."),
 * or null when it is not one: solc's import callback for compilers run without a remapping.
 */
function readSource(importPath) {
  const relative = importPath.replace(/^@dogeos\/contracts\//, "");
  const file = path.resolve(__dirname, relative);
  if (!file.startsWith(contractsDir + path.sep) || !file.endsWith(".sol") || !fs.existsSync(file)) return null;
  return fs.readFileSync(file, "utf8");
}

/** Throws unless `index` has the ABI index's shape. */
function checkIndex(index) {
  if (typeof index !== "object" || index === null || Array.isArray(index))
    throw new TypeError("an ABI index is an object keyed by chain id");
  for (const [chainId, entry] of Object.entries(index)) {
    if (!/^[0-9]+$/.test(chainId)) throw new TypeError(`ABI index key ${chainId} is not a chain id`);
    if (typeof entry?.deployed !== "boolean" || typeof entry.contracts !== "object" || entry.contracts === null)
      throw new TypeError(`ABI index entry ${chainId} lacks deployed or contracts`);
  }
  return index;
}

/**
 * A chain's deployment as `index` records it: `{chainId, deployed, contracts}` where each
 * contract has `address` (null when that deployment lacks it), `abi` (the ABI file's name) and,
 * when recorded, `deployBlock` and `deployTx`; null when the index does not list the chain.
 */
function deploymentsOf(chainId, index = abiIndex) {
  const entry = checkIndex(index)[String(chainId)];
  if (!entry) return null;
  return { chainId: Number(chainId), deployed: entry.deployed, contracts: entry.contracts };
}

/**
 * One deployed contract on `chainId`: `{name, address, deployBlock, deployTx, abi}` (abi is the ABI
 * array when this package has it). Throws one line when the chain is not deployed or lacks it.
 */
function deploymentOf(chainId, name, index = abiIndex) {
  const deployment = deploymentsOf(chainId, index);
  if (!deployment) throw new Error(`the ABI index does not list chain ${chainId}`);
  if (!deployment.deployed) throw new Error(`chain ${chainId} has no recorded deployment (deployed: false)`);
  const contract = deployment.contracts[name];
  if (!contract?.address) throw new Error(`the deployment on chain ${chainId} has no ${name}`);
  return {
    name,
    address: contract.address,
    deployBlock: contract.deployBlock ?? null,
    deployTx: contract.deployTx ?? null,
    abi: abis[name] ?? null,
  };
}

/**
 * The ABI index a daemon of the stack serves at `{origin}/shared/abi/index.json` (every HTTP daemon
 * does: the explorer, the launchpad, the attest API, ...), with the local chain's deployment.
 */
async function fetchAbiIndex(origin, fetchFn = globalThis.fetch) {
  const url = new URL(ABI_INDEX_PATH, origin).href;
  const response = await fetchFn(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return checkIndex(await response.json());
}

module.exports = {
  ABI_INDEX_PATH,
  CONTRACT_NAMES,
  DOGEOS_TESTNET_CHAIN_ID,
  LOCAL_CHAIN_ID,
  abiIndex,
  abis,
  contractsDir,
  deploymentOf,
  deploymentsOf,
  fetchAbiIndex,
  readSource,
};
