/**
 * What every explorer page shares: reading the API of this origin with exact integers, building
 * DOM from data (text nodes only: what the chain says is never parsed as HTML), the designed
 * loading, empty and error states, amounts and times in words, and the live tip with the banner
 * shown while the index is behind the node.
 */
import { isInteger, parse } from "lossless-json";

// ------------------------------------------------------------------------------------------------
// The API.

/** An answer the API refused, with its stable code (DESIGN.md section 6) and HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** JSON with every integer exact: a number when it fits a double exactly, else a bigint (koinu). */
export function parseJson(text: string): any {
  return parse(text, null, (value) => {
    if (!isInteger(value)) return Number(value);
    const big = BigInt(value);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  });
}

/** GET `path` of this origin as JSON; an error answer becomes an ApiError. */
export async function api<T = any>(path: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { accept: "application/json" } });
  } catch (error) {
    throw new ApiError(0, "NETWORK", `the explorer did not answer (${(error as Error).message})`);
  }
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (!response.ok) {
    if (type.includes("json")) {
      try {
        const body = parseJson(text);
        if (body?.error?.code)
          throw new ApiError(response.status, body.error.code, body.error.message, body.error.details ?? {});
      } catch (error) {
        if (error instanceof ApiError) throw error;
      }
    }
    // Esplora's routes answer errors as plain text.
    throw new ApiError(response.status, `HTTP_${response.status}`, text.trim().slice(0, 300) || response.statusText);
  }
  return (type.includes("json") ? parseJson(text) : text) as T;
}

/** Whether an ApiError means "this explorer has no such route" (its 404 for unknown paths). */
export const isMissingRoute = (error: unknown) =>
  error instanceof ApiError &&
  error.status === 404 &&
  error.code === "NOT_FOUND" &&
  /^no route for/.test(error.message);

// ------------------------------------------------------------------------------------------------
// DOM from data.

type Child = Node | string | number | bigint | null | undefined | false;
type Props = { [name: string]: string | number | boolean | undefined | ((event: Event) => void) };

/**
 * An element with attributes and children. Strings become text nodes; `on<event>` props become
 * listeners. Nothing here parses HTML.
 */
export function h(tag: string, props: Props | null = null, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === "className") element.className = String(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `parent`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** The page's main region. */
export const main = () => document.getElementById("content")!;

export const paths = {
  tx: (txid: string) => `/tx/${encodeURIComponent(txid)}`,
  address: (address: string) => `/address/${encodeURIComponent(address)}`,
  inscription: (id: string) => `/inscription/${encodeURIComponent(id)}`,
  block: (id: string | number) => `/block/${encodeURIComponent(String(id))}`,
  tick: (tick: string) => `/drc20/${encodeURIComponent(tick)}`,
  vk: (sha: string) => `/zkp/vk/${encodeURIComponent(sha)}`,
  magic: (magic: string) => `/opreturn?magic=${encodeURIComponent(magic)}`,
};

/** A link to one of our pages; a long id is allowed to wrap. */
export const link = (href: string, text: Child, className = "id") => h("a", { href, className }, text);

/** An identifier (hash, address) in monospace that wraps anywhere. */
export const mono = (text: string) => h("span", { className: "id" }, text);

/** A definition list of label/value rows (rows with a null value are left out). */
export function facts(rows: [string, Child | Child[]][]): HTMLElement {
  const list = h("dl", { className: "facts" });
  for (const [label, value] of rows) {
    if (value === null || value === undefined) continue;
    append(list, h("dt", null, label), h("dd", null, ...(Array.isArray(value) ? value : [value])));
  }
  return list;
}

/**
 * A table with a caption and column headers. On a phone each row becomes a card: every cell
 * carries its column's name (data-label), shown beside it by the stylesheet.
 */
export function table(caption: string, columns: string[], rows: Child[][], className = ""): HTMLElement {
  return h(
    "div",
    { className: "table-wrap" },
    h(
      "table",
      { className },
      h("caption", null, caption),
      h("thead", null, h("tr", null, ...columns.map((column) => h("th", { scope: "col" }, column)))),
      h("tbody", null, ...rows.map((row) => tableRow(columns, row))),
    ),
  );
}

export function tableRow(columns: string[], cells: Child[]): HTMLElement {
  return h("tr", null, ...cells.map((cell, i) => h("td", { "data-label": columns[i] }, cell)));
}

/** A section with a heading. */
export const section = (title: string, ...children: Child[]) =>
  h("section", { "aria-label": title }, h("h2", null, title), ...children);

// ------------------------------------------------------------------------------------------------
// States.

export const loading = (what: string) => h("p", { className: "state loading", role: "status" }, `Loading ${what}…`);
export const empty = (text: string) => h("p", { className: "state empty" }, text);

/** What to tell a person about a refusal: the service's message, its code, and what to do. */
export function errorState(error: unknown, what: string): HTMLElement {
  const e =
    error instanceof ApiError ? error : new ApiError(0, "PAGE_ERROR", (error as Error)?.message ?? String(error));
  let advice: string;
  if (e.status === 503)
    advice = "The index has not reached it yet. This page checks again when a new block is indexed.";
  else if (e.status === 404) advice = "Check the identifier, or search for it from the box above.";
  else if (e.status === 400) advice = "This does not look like a valid identifier; check it and search again.";
  else if (e.status === 0) advice = "Check your connection and reload the page.";
  else advice = "Reload the page; if it persists, the explorer's operator has the details in its log.";
  return h(
    "div",
    { className: "state error", role: "alert" },
    h("p", null, h("strong", null, `Could not load ${what}: `), e.message, e.status ? ` (${e.code})` : null),
    h("p", null, advice),
  );
}

/** Renders `render()`'s result into the main region, with the loading and error states around it. */
export async function renderMain(what: string, render: () => Promise<Child | Child[]>): Promise<boolean> {
  const region = main();
  region.setAttribute("aria-busy", "true");
  if (!region.firstElementChild || region.querySelector(".state.loading")) fill(region, loading(what));
  try {
    const content = await render();
    fill(region, ...(Array.isArray(content) ? content : [content]));
    return true;
  } catch (error) {
    fill(region, h("h1", null, titleCase(what)), errorState(error, what));
    return false;
  } finally {
    region.removeAttribute("aria-busy");
  }
}

const titleCase = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Sets the document title (the tab) after the page knows what it shows. */
export const setTitle = (title: string) => {
  document.title = `${title} · DogeOS explorer`;
};

// ------------------------------------------------------------------------------------------------
// Amounts, times, words.

export const KOINU_PER_DOGE = 100_000_000n;

/** Koinu as DOGE with every digit kept (trailing zeros dropped), grouped by thousands. */
export function doge(koinu: number | bigint | null | undefined): string {
  if (koinu === null || koinu === undefined) return "unknown";
  const value = BigInt(koinu);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = (abs / KOINU_PER_DOGE).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = (abs % KOINU_PER_DOGE).toString().padStart(8, "0").replace(/0+$/, "");
  return `${negative ? "−" : ""}${whole}${fraction ? `.${fraction}` : ""} DOGE`;
}

export const count = (n: number | bigint, one: string, many = `${one}s`) =>
  `${n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",")} ${BigInt(n) === 1n ? one : many}`;

/** A unix time in UTC, to the second. */
export const time = (unixSeconds: number) =>
  `${new Date(unixSeconds * 1000).toISOString().replace("T", " ").slice(0, 19)} UTC`;

export const confirmations = (n: number) => (n === 0 ? "pending (in the mempool)" : count(n, "confirmation"));

/** A query parameter of the page's URL. */
export const query = (name: string) => new URLSearchParams(location.search).get(name);

/** The path segment after `prefix` ("/tx/" -> the txid), decoded. */
export function pathParam(prefix: string): string {
  const rest = location.pathname.startsWith(prefix) ? location.pathname.slice(prefix.length) : "";
  try {
    return decodeURIComponent(rest.replace(/\/$/, ""));
  } catch {
    return rest;
  }
}

// ------------------------------------------------------------------------------------------------
// The live tip.

export interface IndexStatus {
  indexer: { indexed_height: number; indexed_hash: string | null; synced: boolean; network: string | null };
  node: { height: number | null; seen_at: number | null };
  capture_start_height: number;
  progress: number | null;
}

type TipListener = (status: IndexStatus, changed: boolean) => void;
const tipListeners: TipListener[] = [];
let lastTip: IndexStatus | null = null;
/** How often the tip is read (a Dogecoin block comes about every minute). */
const TIP_EVERY_MS = 5_000;

/** Calls `listener` with every status read (changed: a new block was indexed since the last one). */
export function onTip(listener: TipListener): void {
  tipListeners.push(listener);
  if (lastTip) listener(lastTip, false);
}

let shownTip = "";

function showTip(status: IndexStatus): void {
  // Live regions are announced when they change: write them only when something did.
  const key = JSON.stringify([status.indexer, status.node.height, status.progress]);
  if (key === shownTip) return;
  shownTip = key;
  const tip = document.getElementById("tip");
  if (tip) {
    const hash = status.indexer.indexed_hash;
    fill(
      tip,
      "Tip: ",
      hash ? link(paths.block(hash), `#${status.indexer.indexed_height}`, "") : `#${status.indexer.indexed_height}`,
      status.indexer.network ? ` · ${status.indexer.network}` : null,
    );
  }
  const banner = document.getElementById("banner");
  if (!banner) return;
  const node = status.node.height;
  if (node === null) {
    banner.hidden = false;
    banner.className = "banner warn";
    fill(banner, "The explorer has not heard from its node yet: what is shown may be behind the chain.");
  } else if (!status.indexer.synced) {
    const behind = node - status.indexer.indexed_height;
    banner.hidden = false;
    banner.className = "banner warn";
    fill(
      banner,
      `The index is ${count(behind, "block")} behind the node (indexed #${status.indexer.indexed_height}, node #${node})`,
      status.progress !== null ? `, ${(status.progress * 100).toFixed(1)}% synced` : null,
      ". Recent transactions may be missing until it catches up.",
    );
  } else {
    banner.hidden = true;
    banner.replaceChildren();
  }
}

async function pollTip(): Promise<void> {
  try {
    const status = await api<IndexStatus>("/api/status");
    const changed = lastTip !== null && lastTip.indexer.indexed_hash !== status.indexer.indexed_hash;
    lastTip = status;
    showTip(status);
    for (const listener of tipListeners) listener(status, changed);
  } catch {
    const tip = document.getElementById("tip");
    shownTip = "";
    if (tip) fill(tip, "Tip: the explorer did not answer; trying again");
  }
  setTimeout(() => void pollTip(), document.hidden ? TIP_EVERY_MS * 4 : TIP_EVERY_MS);
}

/** Starts a page: the search box keeps what was searched, and the tip is followed. */
export function startPage(): void {
  const box = document.getElementById("q") as HTMLInputElement | null;
  const searched = query("q");
  if (box && searched && location.pathname === "/search") box.value = searched;
  void pollTip();
}
