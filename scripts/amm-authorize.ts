/**
 * Prints the JSON body of a wallet-signed AMM authorization (docs/api.md "AMM"), for curl:
 *
 *   node --import tsx scripts/amm-authorize.ts --key-file <wif file> --custody <address> --action claim-fees
 *   node --import tsx scripts/amm-authorize.ts --key-file <wif file> --custody <address> --action remove-liquidity --tick WOOF --shares 1000
 *
 * The key is read from a 0600 file; the nonce is random and the authorization is valid 10 minutes.
 * `--custody` is the AMM's custody address (its /health shows it: the signed text names the
 * deployment), `--network` is regtest unless given. Pipe the output to `curl -d @-`.
 */
import crypto from "node:crypto";
import { getNetwork, signMessage } from "../src/doge";
import { authorizationMessage } from "../src/services/amm";
import { loadWalletKey } from "../src/wallet/keys";

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const keyFile = flag("key-file");
const action = flag("action");
const custodyAddress = flag("custody");
if (!keyFile || !custodyAddress || (action !== "claim-fees" && action !== "remove-liquidity")) {
  process.stderr.write("usage: amm-authorize.ts --key-file <wif file> --custody <address> --action claim-fees|remove-liquidity [--tick T --shares N] [--network regtest]\n");
  process.exit(2);
}
const network = getNetwork(flag("network") ?? "regtest");
const key = loadWalletKey({ keyFile, network });
const fields: Record<string, string> = action === "remove-liquidity" ? { tick: flag("tick") ?? "", shares: flag("shares") ?? "" } : {};
const auth = { address: key.address, nonce: crypto.randomBytes(12).toString("hex"), expiresAt: Math.floor(Date.now() / 1000) + 600 };
const signature = signMessage(authorizationMessage({ network, custodyAddress }, action, fields, auth), key.privateKey);
process.stdout.write(`${JSON.stringify({ ...fields, ...auth, signature })}\n`);
