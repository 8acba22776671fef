/**
 * The development wallet provider's browser script (DESIGN.md 7): web/src/dev-wallet.ts bundled
 * for the browser with esbuild, followed by the call that installs `window.wallet` over one devnet
 * key. The launchpad serves it at /wallet-provider.js when it is started with a development key (the
 * embedded default and the browser tests); otherwise that script installs nothing and the page uses
 * the wallet the browser brings.
 */
import path from "node:path";
import { build } from "esbuild";
import { DogeNetwork, decodeWif } from "../../doge";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const ENTRY = path.join(ROOT, "web", "src", "dev-wallet.ts");

/** What /wallet-provider.js is without a development key. */
export const NO_DEV_WALLET_SCRIPT =
  "/* No development wallet on this launchpad: the browser's wallet provides window.wallet. */\n";

let bundle: Promise<string> | null = null;

/** The provider bundle (an IIFE defining `DogeDevWallet`), built once per process. */
export function devWalletBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "iife",
    globalName: "DogeDevWallet",
    platform: "browser",
    target: "es2020",
    minify: true,
    write: false,
    logLevel: "silent",
    // src/doge/hash.ts takes SHA-256 and scrypt from node:crypto; the browser gets @noble/hashes.
    alias: { "node:crypto": path.join(ROOT, "web", "src", "browser-crypto.ts") },
    // ...and hex and base64 from Node's Buffer, which the browser has not.
    inject: [path.join(ROOT, "web", "src", "browser-buffer.ts")],
  }).then((result) => result.outputFiles[0].text);
  return bundle;
}

/** The script that installs the development wallet over `wif` (refused unless it is a key of `network`). */
export async function devWalletScript(wif: string, network: DogeNetwork): Promise<string> {
  if (network.name === "mainnet")
    throw new Error("the development wallet is for the devnet and testnet only: it hands its key to the page");
  decodeWif(wif, network);
  return `${await devWalletBundle()}\nDogeDevWallet.install(${JSON.stringify({ wif, network: network.name })});\n`;
}
