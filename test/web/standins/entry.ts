/** The stand-ins' browser entry: `WalletStandins.install(kind, config)` (test/web/standins/index.ts bundles it). */
import type { StandinConfig } from "./common";
import { installMyDoge } from "./mydoge";
import { installUnisatStyle } from "./unisat-style";
import { installWalletConnect } from "./walletconnect";

export function install(kind: "mydoge" | "dogelabs" | "unisat" | "walletconnect", config: StandinConfig): void {
  if (kind === "mydoge") installMyDoge(config);
  else if (kind === "walletconnect") installWalletConnect(config);
  else installUnisatStyle(config, kind === "unisat" ? "unisat" : "dogeLabs");
}
