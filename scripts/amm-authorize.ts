/**
 * Prints the JSON body of a wallet-signed AMM authorization (docs/api.md "AMM"), for curl:
 *
 *   npx dogeos amm-authorize --key-file <wif file> --custody <address> --action claim-fees
 *   npx dogeos amm-authorize --key-file <wif file> --custody <address> --action remove-liquidity --tick WOOF --shares 1000
 *   (or node --import tsx scripts/amm-authorize.ts with the same options)
 *
 * The key is read from a 0600 file; the nonce is random and the authorization is valid 10 minutes.
 * `--custody` is the AMM's custody address (its /health shows it: the signed text names the
 * deployment), `--network` is regtest unless given. Pipe the output to `curl -d @-`.
 */
import crypto from "node:crypto";
import { ConfigError, loadDaemonConfig } from "../src/config/load";
import { getNetwork, signMessage } from "../src/doge";
import { authorizationMessage } from "../src/services/amm";
import { loadWalletKey } from "../src/wallet/keys";

export const SPEC = {
  "key-file": { kind: "string", required: true, description: "the wallet's WIF key file (chmod 600)" },
  custody: { kind: "string", required: true, description: "the AMM's custody address (its /health shows it)" },
  action: { kind: "string", required: true, description: "claim-fees or remove-liquidity" },
  tick: { kind: "string", description: "the pool's tick (remove-liquidity)" },
  shares: { kind: "string", description: "the shares to remove (remove-liquidity)" },
  network: { kind: "string", default: "regtest", description: "mainnet, testnet or regtest" },
} as const;

export const HELP = {
  summary: "Prints the JSON body of a wallet-signed AMM authorization, valid 10 minutes, for curl -d @-.",
};

/** Runs the task with `argv`; returns the exit status. */
export function run(argv: string[], name = "dogeos amm-authorize"): number {
  const config = loadDaemonConfig(
    name,
    SPEC,
    (values) => {
      if (values.action !== "claim-fees" && values.action !== "remove-liquidity")
        throw new ConfigError(`--action must be claim-fees or remove-liquidity, got "${values.action}"`);
      getNetwork(values.network);
    },
    HELP,
    argv,
  );
  const action = config.action as "claim-fees" | "remove-liquidity";
  const network = getNetwork(config.network);
  const key = loadWalletKey({ keyFile: config["key-file"], network });
  const fields: Record<string, string> =
    action === "remove-liquidity" ? { tick: config.tick ?? "", shares: config.shares ?? "" } : {};
  const auth = {
    address: key.address,
    nonce: crypto.randomBytes(12).toString("hex"),
    expiresAt: Math.floor(Date.now() / 1000) + 600,
  };
  const signature = signMessage(
    authorizationMessage({ network, custodyAddress: config.custody }, action, fields, auth),
    key.privateKey,
  );
  process.stdout.write(`${JSON.stringify({ ...fields, ...auth, signature })}\n`);
  return 0;
}

if (require.main === module) process.exitCode = run(process.argv.slice(2), "amm-authorize");
