/**
 * DOGEOS_PRIVATE_KEY_FILE: the deployer's or admin's key from a file only its owner can read
 * (chmod 600), for `hardhat run deploy/deploy.ts` and the dogeos:* admin tasks, instead of the key
 * in the environment (DOGEOS_PRIVATE_KEY) where `ps e` and /proc/<pid>/environ show it. When set,
 * it is the only account of every HTTP network (localhost, dogeosTestnet).
 */
import { extendConfig } from "hardhat/config";
import { evmPrivateKey, loadSecret } from "../src/config/secret-file";

extendConfig((config) => {
  const file = process.env.DOGEOS_PRIVATE_KEY_FILE;
  if (!file) return;
  const key = loadSecret({
    what: "DOGEOS_PRIVATE_KEY_FILE key",
    file,
    parse: evmPrivateKey({ allowBare: true }),
  }).privateKey;
  for (const network of Object.values(config.networks)) {
    if ("url" in network) network.accounts = [key];
  }
});
