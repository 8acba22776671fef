/**
 * The pages' wallet provider script (/wallet-provider.js of the launchpad and the AMM daemons):
 * web/src/wallet-provider.ts bundled for the browser with esbuild (an IIFE defining `DogeWallets`),
 * followed by the call that installs `window.wallet` for the page's network. The person's own
 * wallets (MyDoge, DogeLabs, UniSat-style) are found in the page; on devnet and testnet a daemon
 * given a development key offers our development wallet too (its key is handed to the page, so
 * never on mainnet).
 */
import path from "node:path";
import { BuildOptions, build } from "esbuild";
import { DogeNetwork, decodeWif } from "../../doge";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const ENTRY = path.join(ROOT, "web", "src", "wallet-provider.ts");

/** A page may load at most this much script (issue 29); the bundle is checked against it when built. */
export const MAX_PAGE_SCRIPT_BYTES = 300 * 1024;

/**
 * How src/ code is built for a page (the provider here, the wallet stand-ins in the tests): hashes
 * from @noble/hashes instead of node:crypto, and Node's Buffer from the `buffer` package.
 */
export const BROWSER_BUILD = {
  platform: "browser",
  target: "es2020",
  alias: { "node:crypto": path.join(ROOT, "web", "src", "browser-crypto.ts") },
  inject: [path.join(ROOT, "web", "src", "browser-buffer.ts")],
} as const satisfies BuildOptions;

let bundle: Promise<string> | null = null;

/** The provider bundle (an IIFE defining `DogeWallets`), built once per process. */
export function walletProviderBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "iife",
    globalName: "DogeWallets",
    ...BROWSER_BUILD,
    minify: true,
    write: false,
    logLevel: "silent",
  }).then((result) => {
    const text = result.outputFiles[0].text;
    if (Buffer.byteLength(text) > MAX_PAGE_SCRIPT_BYTES)
      throw new Error(`the wallet provider bundle is ${Buffer.byteLength(text)} bytes, over ${MAX_PAGE_SCRIPT_BYTES}`);
    return text;
  });
  return bundle;
}

export interface WalletProviderScriptOptions {
  network: DogeNetwork;
  /** The explorer's public base URL, where pages read UTXOs and broadcast. */
  explorerUrl?: string | null;
  /** A development key (WIF of `network`) offered as the development wallet; refused on mainnet. */
  devWalletWif?: string;
}

/** The script a daemon serves at /wallet-provider.js. */
export async function walletProviderScript(options: WalletProviderScriptOptions): Promise<string> {
  const { network } = options;
  let devWallet: { wif: string } | null = null;
  if (options.devWalletWif !== undefined) {
    if (network.name === "mainnet")
      throw new Error("the development wallet is for the devnet and testnet only: it hands its key to the page");
    decodeWif(options.devWalletWif, network);
    devWallet = { wif: options.devWalletWif };
  }
  const config = { network: network.name, explorerUrl: options.explorerUrl ?? null, devWallet };
  return `${await walletProviderBundle()}\nDogeWallets.install(${JSON.stringify(config)});\n`;
}
