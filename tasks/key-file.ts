/**
 * DOGEOS_PRIVATE_KEY_FILE: the deployer's or admin's key from a file only its owner can read
 * (chmod 600), for `hardhat run deploy/deploy.ts` and the dogeos:* admin tasks, instead of the key
 * in the environment (DOGEOS_PRIVATE_KEY) where `ps e` and /proc/<pid>/environ show it. When set,
 * it is the only account of every HTTP network (localhost, dogeosTestnet).
 */
import { extendConfig } from "hardhat/config";
import { readSecretLine } from "../src/config/secret-file";

extendConfig((config) => {
  const file = process.env.DOGEOS_PRIVATE_KEY_FILE;
  if (!file) return;
  const raw = readSecretLine(file, "DOGEOS_PRIVATE_KEY_FILE key").trim();
  const key = raw.startsWith("0x") ? raw : `0x${raw}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error(`DOGEOS_PRIVATE_KEY_FILE ${file} must hold one 32-byte hex private key`);
  for (const network of Object.values(config.networks)) {
    if ("url" in network) network.accounts = [key];
  }
});
