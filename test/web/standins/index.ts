/**
 * The wallet stand-ins as a script for `BrowserContext.addInitScript`: MyDoge (window.doge),
 * DogeLabs (window.dogeLabs) and UniSat (window.unisat), each over a real key, bundled with esbuild
 * the way the pages' provider is (node:crypto and Buffer mapped for the browser). Test-only.
 */
import path from "node:path";
import { build } from "esbuild";
import type { StandinConfig } from "./common";

export type StandinKind = "mydoge" | "dogelabs" | "unisat" | "walletconnect";
export type { StandinConfig };

const ROOT = path.resolve(__dirname, "..", "..", "..");
let bundle: Promise<string> | null = null;

function standinBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [path.join(__dirname, "entry.ts")],
    bundle: true,
    format: "iife",
    globalName: "WalletStandins",
    platform: "browser",
    target: "es2020",
    write: false,
    logLevel: "silent",
    alias: { "node:crypto": path.join(ROOT, "web", "src", "browser-crypto.ts") },
    inject: [path.join(ROOT, "web", "src", "browser-buffer.ts")],
  }).then((result) => result.outputFiles[0].text);
  return bundle;
}

/** The init script injecting the stand-ins of `kinds`, each with its config. */
export async function standinScript(wallets: { kind: StandinKind; config: StandinConfig }[]): Promise<string> {
  const installs = wallets.map(
    ({ kind, config }) => `WalletStandins.install(${JSON.stringify(kind)}, ${JSON.stringify(config)});`,
  );
  return `${await standinBundle()}\n${installs.join("\n")}\n`;
}
