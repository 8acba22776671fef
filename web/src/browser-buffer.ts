/**
 * Node's Buffer for the pages' bundles (esbuild injects this as the global `Buffer`, BROWSER_BUILD
 * in src/services/pages/wallet-provider.ts): src/doge reads and writes hex and base64 through it.
 * The `buffer` package is the browser implementation of Node's API that bundlers use; a hand-written
 * subset once ignored toString's start and end and gave every txid 64 extra zeros.
 */
export { Buffer } from "buffer";
