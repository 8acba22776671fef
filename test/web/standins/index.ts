/**
 * The wallet stand-ins as a script for `BrowserContext.addInitScript`: MyDoge (window.doge),
 * DogeLabs (window.dogeLabs) and UniSat (window.unisat), each over a real key, bundled with esbuild
 * the way the pages' provider is (node:crypto and Buffer mapped for the browser). Test-only.
 */
import path from "node:path";
import { build } from "esbuild";
import { BROWSER_BUILD } from "../../../src/services/pages/wallet-provider";
import type { StandinConfig } from "./common";

export type StandinKind = "mydoge" | "dogelabs" | "unisat" | "walletconnect";
export type { StandinConfig };

let bundle: Promise<string> | null = null;

function standinBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [path.join(__dirname, "entry.ts")],
    bundle: true,
    format: "iife",
    globalName: "WalletStandins",
    ...BROWSER_BUILD,
    write: false,
    logLevel: "silent",
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
