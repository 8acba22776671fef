/**
 * Typed clients of the stack's HTTP surfaces, made with openapi-fetch from the OpenAPI documents
 * the daemons publish (shared/openapi/; the package carries them in dist/openapi/): every path, query,
 * body and answer is typed from the document, e.g.
 *
 *   const attest = attestClient("http://127.0.0.1:3004");
 *   const { data, error } = await attest.GET("/api/attest/collection-count", {
 *     params: { query: { address, collection: "dogeos-pups" } },
 *   });
 *
 * The base URL is the surface's origin (the documents' paths start with /api/...). The explorer
 * writes koinu amounts as JSON integers of every digit; JSON.parse reads those above 2^53 inexactly
 * (pass a `fetch` that parses with a lossless JSON reader where such balances matter).
 */
import createClient from "openapi-fetch";
import type { Client, ClientOptions } from "openapi-fetch";
import type { paths as AmmPaths } from "./openapi/amm";
import type { paths as AttestPaths } from "./openapi/attest";
import type { paths as ExplorerPaths } from "./openapi/explorer";
import type { paths as InscriberPaths } from "./openapi/inscriber";
import type { paths as LaunchpadPaths } from "./openapi/launchpad";

export type { AmmPaths, AttestPaths, ExplorerPaths, InscriberPaths, LaunchpadPaths };

type Options = Omit<ClientOptions, "baseUrl">;

/** The explorer (`npm start`: http://127.0.0.1:3001): addresses, transactions, inscriptions, DRC-20, the ABI index. */
export function explorerClient(origin: string, options: Options = {}): Client<ExplorerPaths> {
  return createClient<ExplorerPaths>({ ...options, baseUrl: origin });
}

/** The attest API (http://127.0.0.1:3004): facts signed by two of three attesters, paid-request fulfilment. */
export function attestClient(origin: string, options: Options = {}): Client<AttestPaths> {
  return createClient<AttestPaths>({ ...options, baseUrl: origin });
}

/** The launchpad (http://127.0.0.1:3002): collections, claims, mints, membership. */
export function launchpadClient(origin: string, options: Options = {}): Client<LaunchpadPaths> {
  return createClient<LaunchpadPaths>({ ...options, baseUrl: origin });
}

/** The AMM (http://127.0.0.1:3003): pools, quotes, swaps, liquidity, bonding curves. */
export function ammClient(origin: string, options: Options = {}): Client<AmmPaths> {
  return createClient<AmmPaths>({ ...options, baseUrl: origin });
}

/** The inscriber (http://127.0.0.1:3005): inscription jobs for projects (X-Project-Key) and user-signed ones. */
export function inscriberClient(origin: string, options: Options = {}): Client<InscriberPaths> {
  return createClient<InscriberPaths>({ ...options, baseUrl: origin });
}
