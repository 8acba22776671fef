/**
 * The pages' wallet provider script (/wallet-provider.js of the launchpad and the AMM daemons):
 * web/src/wallet-provider.ts bundled for the browser with esbuild (an IIFE defining `DogeWallets`),
 * followed by the call that installs `window.wallet` for the page's network. The person's own
 * wallets (MyDoge, DogeLabs, UniSat-style) are found in the page; on devnet and testnet a daemon
 * given a development key offers our development wallet too (its key is handed to the page, so
 * never on mainnet).
 *
 * The PSBT code (bitcoinjs-lib's Psbt and what signs, checks, builds and finalises PSBTs with it,
 * web/src/psbt-kit.ts) is a second script, /wallet-psbt.js (walletPsbtBundle), which the provider
 * loads only when a page first signs or builds a PSBT: a page that never pays does not load it.
 */
import path from "node:path";
import { BuildOptions, Plugin, build } from "esbuild";
import { DogeNetwork, decodeWif } from "../../doge";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const ENTRY = path.join(ROOT, "web", "src", "wallet-provider.ts");
const PSBT_ENTRY = path.join(ROOT, "web", "src", "psbt-kit.ts");

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

/**
 * The provider's modules the PSBT script takes from it (web/src/wallet-provider.ts `shared`, by these
 * names) instead of bundling its own copy: one class per error for both scripts, the DRC-20
 * transfer steps, the curve and Buffer once. src/doge is not among them: sharing it would keep all
 * of it in the provider, which costs more at first render than the PSBT script's own tree-shaken copy.
 */
const SHARED_MODULES: Record<string, string> = {
  adapter: path.join(ROOT, "web", "src", "wallets", "adapter.ts"),
  drc20Transfer: path.join(ROOT, "web", "src", "wallets", "drc20-transfer.ts"),
  paymentError: path.join(ROOT, "web", "src", "payment-error.ts"),
  secp256k1: path.join(ROOT, "node_modules", "@noble", "curves", "secp256k1.js"),
  buffer: path.join(ROOT, "node_modules", "buffer", "index.js"),
};

/**
 * In the PSBT script, each of SHARED_MODULES is the provider's own module object: an import that
 * resolves to one of those files resolves to a module of this plugin's namespace instead (CommonJS
 * there, whatever the file's package says), which reads it from the provider's global.
 */
const fromProvider: Plugin = {
  name: "shared-from-provider",
  setup(pluginBuild) {
    const names = new Map(Object.entries(SHARED_MODULES).map(([name, file]) => [path.normalize(file), name]));
    const namespace = "dogewallets-shared";
    pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === namespace || args.namespace !== "file") return undefined;
      const { path: resolved, errors } = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: namespace,
      });
      const name = errors.length === 0 ? names.get(path.normalize(resolved)) : undefined;
      return name === undefined ? undefined : { path: name, namespace };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace }, (args) => ({
      contents: `module.exports = DogeWallets.shared[${JSON.stringify(args.path)}];`,
      loader: "js",
    }));
  },
};

/** In the provider, web/src/psbt-load.ts's import of the kit (the path it takes in Node) is left out. */
const withoutKit: Plugin = {
  name: "without-psbt-kit",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\/psbt-kit$/ }, (args) => ({ path: args.path, external: true }));
  },
};

async function bundleOf(entry: string, globalName: string, plugins: Plugin[]): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "iife",
    globalName,
    ...BROWSER_BUILD,
    plugins,
    minify: true,
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

let bundle: Promise<string> | null = null;
let psbtBundle: Promise<string> | null = null;

/** The provider bundle (an IIFE defining `DogeWallets`), built once per process. */
export function walletProviderBundle(): Promise<string> {
  bundle ??= bundleOf(ENTRY, "DogeWallets", [withoutKit]).then((text) => {
    if (Buffer.byteLength(text) > MAX_PAGE_SCRIPT_BYTES)
      throw new Error(`the wallet provider bundle is ${Buffer.byteLength(text)} bytes, over ${MAX_PAGE_SCRIPT_BYTES}`);
    return text;
  });
  return bundle;
}

/**
 * The PSBT script served at /wallet-psbt.js (an IIFE defining `DogeWalletsPsbt`, web/src/psbt-kit.ts),
 * built once per process. It runs after the provider, whose modules it shares (SHARED_MODULES); the
 * provider and it together stay within a page's script budget.
 */
export function walletPsbtBundle(): Promise<string> {
  psbtBundle ??= Promise.all([walletProviderBundle(), bundleOf(PSBT_ENTRY, "DogeWalletsPsbt", [fromProvider])]).then(
    ([provider, text]) => {
      const total = Buffer.byteLength(provider) + Buffer.byteLength(text);
      if (total > MAX_PAGE_SCRIPT_BYTES)
        throw new Error(
          `the wallet provider and PSBT bundles are ${total} bytes together, over ${MAX_PAGE_SCRIPT_BYTES}`,
        );
      return text;
    },
  );
  return psbtBundle;
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
