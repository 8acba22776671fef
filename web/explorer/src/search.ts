/**
 * The search page (/search?q=): works out what was searched and opens its page. A txid, an
 * address, an inscription id and a block height or hash each have one page; a 64-hex string is
 * tried as a transaction, a block, a document anchored in an OP_RETURN, then a verifying key.
 */
import {
  ApiError,
  api,
  empty,
  errorState,
  h,
  isMissingRoute,
  link,
  main,
  fill,
  paths,
  setTitle,
  startPage,
} from "./lib";

interface Found {
  href: string;
  what: string;
}

/** Whether a lookup found something: false on a 404 (or a missing route), the error otherwise. */
async function exists(path: string): Promise<boolean> {
  try {
    await api(path);
    return true;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || isMissingRoute(error))) return false;
    throw error;
  }
}

let blockRoutes = true;
let tickRoutes = true;

async function blockExists(hash: string): Promise<boolean> {
  try {
    await api(`/esplora/api/block/${hash}`);
    return true;
  } catch (error) {
    if (isMissingRoute(error)) blockRoutes = false;
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

async function resolve(q: string): Promise<Found[]> {
  if (/^[0-9a-f]{64}i[0-9]+$/i.test(q)) return [{ href: paths.inscription(q.toLowerCase()), what: "inscription" }];
  if (/^[0-9]{1,9}$/.test(q)) return [{ href: paths.block(q), what: "block" }];
  if (/^[0-9a-f]{64}$/i.test(q)) {
    const hex = q.toLowerCase();
    if (await exists(`/api/tx/${hex}`)) return [{ href: paths.tx(hex), what: "transaction" }];
    if (await blockExists(hex)) return [{ href: paths.block(hex), what: "block" }];
    const anchored = await api(`/api/explorer/opreturn/sha256/${hex}`);
    if (anchored.anchored)
      return anchored.matches.map((m: any) => ({
        href: paths.tx(m.txid),
        what: `OP_RETURN anchoring this SHA-256 (output ${m.vout}, block #${m.block})`,
      }));
    if (await exists(`/api/explorer/zkp/vk/${hex}?limit=1`)) return [{ href: paths.vk(hex), what: "verifying key" }];
    return [];
  }
  if (/^[1-9A-HJ-NP-Za-km-z]{25,40}$/.test(q)) {
    try {
      await api(`/api/wallet/address/${encodeURIComponent(q)}/balance`);
      return [{ href: paths.address(q), what: "address" }];
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
    }
  }
  if (/^\S{1,16}$/.test(q)) {
    try {
      await api(`/api/explorer/drc20/${encodeURIComponent(q)}`);
      return [{ href: paths.tick(q), what: "DRC-20 tick" }];
    } catch (error) {
      if (isMissingRoute(error)) tickRoutes = false;
      else if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 400)) throw error;
    }
  }
  return [];
}

async function run() {
  const q = (new URLSearchParams(location.search).get("q") ?? "").trim();
  const region = main();
  if (!q) {
    setTitle("Search");
    fill(
      region,
      h("h1", null, "Search"),
      empty("Type a txid, address, inscription id, block height or hash in the box above."),
    );
    return;
  }
  setTitle(`Search: ${q.slice(0, 40)}`);
  fill(region, h("h1", null, "Search"), h("p", { className: "state loading", role: "status" }, "Searching…"));
  try {
    const found = await resolve(q);
    if (found.length === 1) {
      location.replace(found[0].href);
      return;
    }
    const heading = h("h1", null, "Search");
    if (found.length === 0) {
      fill(
        region,
        heading,
        h(
          "div",
          { className: "state empty", role: "status" },
          h("p", null, "Nothing found for ", h("q", null, q), "."),
          h(
            "p",
            null,
            "A search finds a transaction id, an address, an inscription id (<txid>i<n>), a block height or hash, the SHA-256 of a document anchored in an OP_RETURN, or a verifying key's SHA-256.",
          ),
          blockRoutes
            ? null
            : h("p", null, "Block search is not available on this explorer (no Esplora block routes)."),
          tickRoutes
            ? null
            : h("p", null, "DRC-20 tick search is not available on this explorer yet (its API has no tick route)."),
        ),
      );
      return;
    }
    fill(
      region,
      heading,
      h("p", null, `${found.length} results for `, h("q", null, q), ":"),
      h("ul", null, ...found.map((f) => h("li", null, link(f.href, f.what, "")))),
    );
  } catch (error) {
    fill(region, h("h1", null, "Search"), errorState(error, "the search"));
  }
}

startPage();
void run();
