/**
 * Loads the pages' PSBT code (./psbt-kit.ts) the first time a wallet step needs it. In a page it is
 * the separate script /wallet-psbt.js (next to the provider's own script), added to the document
 * once and awaited; where there is no document (Node: the tests and scripts that import these
 * modules) it is the module itself.
 */
import type * as Kit from "./psbt-kit";
import { WalletError } from "./wallets/adapter";

export type PsbtKit = typeof Kit;

/** The global the bundled kit defines (src/services/pages/wallet-provider.ts, walletPsbtBundle). */
export const PSBT_KIT_GLOBAL = "DogeWalletsPsbt";

let scriptUrl = "/wallet-psbt.js";
let loading: Promise<PsbtKit> | null = null;
let loaded: PsbtKit | null = null;

/** The PSBT code if it is loaded already, else null. */
export function loadedPsbtKit(): PsbtKit | null {
  return loaded;
}

/** Where the page loads the kit from (the provider sets it from its own script's URL). */
export function setPsbtScriptUrl(url: string): void {
  scriptUrl = url;
}

function fromScript(document: Document, scope: Record<string, unknown>): Promise<PsbtKit> {
  return new Promise((resolve, reject) => {
    const failed = (why: string) =>
      new WalletError(
        "PSBT_UNAVAILABLE",
        `the page could not load its PSBT code (${scriptUrl}: ${why}); check your connection and reload the page`,
      );
    const script = document.createElement("script");
    script.src = scriptUrl;
    script.async = true;
    script.addEventListener("load", () => {
      const kit = scope[PSBT_KIT_GLOBAL] as PsbtKit | undefined;
      if (kit) resolve(kit);
      else reject(failed(`it did not define ${PSBT_KIT_GLOBAL}`));
    });
    script.addEventListener("error", () => {
      script.remove();
      reject(failed("it did not load"));
    });
    document.head.append(script);
  });
}

/** The PSBT code, loaded once (a failed load is tried again at the next call). */
export function loadPsbtKit(): Promise<PsbtKit> {
  const scope = globalThis as unknown as Record<string, unknown>;
  const document = scope.document as Document | undefined;
  loading ??= (
    scope[PSBT_KIT_GLOBAL]
      ? Promise.resolve(scope[PSBT_KIT_GLOBAL] as PsbtKit)
      : document?.createElement
        ? fromScript(document, scope)
        : // Node (CommonJS): the module itself; the browser build leaves this path out.
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          Promise.resolve().then(() => require("./psbt-kit") as PsbtKit)
  ).then(
    (kit) => (loaded = kit),
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}
