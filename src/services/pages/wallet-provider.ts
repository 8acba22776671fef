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
import fs from "node:fs";
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
 * transfer steps, the curve, SHA-256 and RIPEMD-160 (oneNobleHashes below sends bitcoinjs-lib's
 * and bs58check's there too) and Buffer once. src/doge is not among them: sharing it would keep all
 * of it in the provider, which costs more at first render than the PSBT script's own tree-shaken copy.
 */
const SHARED_MODULES: Record<string, string> = {
  adapter: path.join(ROOT, "web", "src", "wallets", "adapter.ts"),
  drc20Transfer: path.join(ROOT, "web", "src", "wallets", "drc20-transfer.ts"),
  paymentError: path.join(ROOT, "web", "src", "payment-error.ts"),
  secp256k1: path.join(ROOT, "node_modules", "@noble", "curves", "secp256k1.js"),
  sha2: path.join(ROOT, "node_modules", "@noble", "hashes", "sha2.js"),
  legacy: path.join(ROOT, "node_modules", "@noble", "hashes", "legacy.js"),
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

/**
 * bitcoinjs-lib and bs58check each bring their own @noble/hashes 1.x (`@noble/hashes/sha256`,
 * `/ripemd160`, `/sha1`), beside the 2.x the rest of the PSBT script already holds: 11 KB of the
 * same three hash functions twice more. Their imports resolve to 2.x's `sha2.js` and `legacy.js`
 * instead, which export the same functions by the same names; both packages only call them on
 * bytes (`sha256(data)`), which 1.x and 2.x hash alike.
 */
const oneNobleHashes: Plugin = {
  name: "one-noble-hashes",
  setup(pluginBuild) {
    const into: Record<string, string> = { sha256: "sha2.js", ripemd160: "legacy.js", sha1: "legacy.js" };
    pluginBuild.onResolve({ filter: /^@noble\/hashes\/(sha256|ripemd160|sha1)$/ }, (args) => {
      if (!/[\\/]node_modules[\\/](bitcoinjs-lib|bs58check)[\\/]/.test(args.importer)) return undefined;
      return { path: path.join(ROOT, "node_modules", "@noble", "hashes", into[args.path.split("/")[2]]) };
    });
  },
};

/**
 * bitcoinjs-lib, bip174 and varuint-bitcoin each have their own copy of uint8array-tools (npm nests
 * one per package when the top-level copy is another version): the same 0.0.10 three times. An
 * import of it from a package whose copy has the version of bitcoinjs-lib's resolves to
 * bitcoinjs-lib's, so the script holds it once.
 */
const oneUint8ArrayTools: Plugin = {
  name: "one-uint8array-tools",
  setup(pluginBuild) {
    const owner = path.join(ROOT, "node_modules", "bitcoinjs-lib");
    const versionIn = (dir: string): string | null => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "uint8array-tools", "package.json"), "utf8"))
          .version;
      } catch {
        return null;
      }
    };
    const wanted = versionIn(owner);
    pluginBuild.onResolve({ filter: /^uint8array-tools$/ }, async (args) => {
      const from = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(args.importer)?.[1];
      if (!from || from === owner || wanted === null || versionIn(from) !== wanted) return undefined;
      const { path: resolved, errors } = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: owner,
        pluginData: args.pluginData,
      });
      return errors.length === 0 ? { path: resolved } : undefined;
    });
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
  psbtBundle ??= Promise.all([
    walletProviderBundle(),
    bundleOf(PSBT_ENTRY, "DogeWalletsPsbt", [fromProvider, oneNobleHashes, oneUint8ArrayTools]),
  ]).then(([provider, text]) => {
    const total = Buffer.byteLength(provider) + Buffer.byteLength(text);
    if (total > MAX_PAGE_SCRIPT_BYTES)
      throw new Error(
        `the wallet provider and PSBT bundles are ${total} bytes together, over ${MAX_PAGE_SCRIPT_BYTES}`,
      );
    return text;
  });
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
