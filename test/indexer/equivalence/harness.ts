/**
 * Builds an index of an equivalence chain (./chain.ts) with the code of one source tree and reads
 * everything the index answers: every explorer /api and /esplora/api route over HTTP, every
 * IndexQueries read (the explorer's and the custody services': the AMM's deposit reader and
 * launchpad read through it), every IndexHistory read and every attester fact (computeFact).
 *
 * The tree is a parameter (`loadStack(root)`): the recorder (./record.ts) passes a worktree of the
 * version-7 commit, the test passes this checkout. Only the chain and the enumeration are this
 * checkout's code; indexing, reading and serving are the tree's.
 *
 * The explorer is the tree's `createExplorerApp` over its IndexQueries, with no mempool (nothing
 * pending) and a node that serves only blocks: raw blocks and `getblockheader` facts from the
 * chain, as Esplora reads them by hash. Its routes are asked with node:http on loopback, not the
 * global fetch that test/helpers/openapi.ts wraps: what is compared here is bytes, and the
 * document's checks of these routes are the explorer suites'.
 *
 * A read is a `Route`, a JSON value naming what was asked ({http: url} or {call: [object, method,
 * ...args]} or {fact: [type, params, height]}), so that a fixture's routes can be asked again of
 * another index. Its answer is canonical text:
 * - HTTP: the status, Content-Type and Cache-Control, then the body exactly as sent (hex for a body
 *   that is not text; a body over 64 KB, the raw large mainnet blocks, as its SHA-256 and length);
 * - in-process reads: JSON with object keys in the order the read made them and arrays in order;
 *   bigints, bytes, Maps and generators tagged ({"$bigint"}, {"$bytes"}, {"$map"}); a thrown error
 *   as {"$error": {name, code, kind, message, details}}.
 * The only fields normalised are the index's record of when it last asked its node for the tip
 * (meta node_seen_at: IndexStatus.nodeSeenAt and /api/status node.seen_at), which is wall-clock time.
 * The shadow verifier's verdict time (zkp_uses.verified_at) is made fixed by giving it a fixed clock.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { NETWORKS, outputScriptToAddress, parseBlock, publicKeyToAddress } from "../../../src/doge";
import { parseDrc20 } from "../../../src/inscription/drc20";
import type { ChainBlock, EquivalenceChain } from "./chain";
import { fixedKey } from "./chain";
import { listenLocal } from "../../helpers/listen";

type DatabaseModule = typeof import("../../../src/indexer/database");
type StoreModule = typeof import("../../../src/indexer/store");
type IndexerModule = typeof import("../../../src/indexer/indexer");
type QueriesModule = typeof import("../../../src/indexer/queries");
type ShadowModule = typeof import("../../../src/indexer/zkp-shadow");
type ExplorerModule = typeof import("../../../src/services/explorer/app");
type FactsModule = typeof import("../../../src/attester/facts");
type DogeModule = typeof import("../../../src/doge");
type InscriptionModule = typeof import("../../../src/inscription");
type SqlDatabase = import("../../../src/db/sql").SqlDatabase;

/** The modules of one source tree that build, read and serve an index. */
export interface Stack {
  root: string;
  database: DatabaseModule;
  store: StoreModule;
  indexer: IndexerModule;
  queries: QueriesModule;
  shadow: ShadowModule;
  explorer: ExplorerModule;
  facts: FactsModule;
  doge: DogeModule;
  inscription: InscriptionModule;
}

export function loadStack(root: string): Stack {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = <T>(relative: string): T => require(path.join(root, relative)) as T;
  return {
    root,
    database: load("src/indexer/database"),
    store: load("src/indexer/store"),
    indexer: load("src/indexer/indexer"),
    queries: load("src/indexer/queries"),
    shadow: load("src/indexer/zkp-shadow"),
    explorer: load("src/services/explorer/app"),
    facts: load("src/attester/facts"),
    doge: load("src/doge"),
    inscription: load("src/inscription"),
  };
}

export type Route =
  { http: string } | { call: [string, string, ...unknown[]] } | { fact: [string, Record<string, string>, number] };
export type RouteKind = "explorer" | "esplora" | "queries" | "history" | "attester";

export function routeKind(route: Route): RouteKind {
  if ("http" in route) return route.http.startsWith("/esplora/") ? "esplora" : "explorer";
  if ("fact" in route) return "attester";
  return route.call[0] === "history" ? "history" : "queries";
}

export function routeName(route: Route): string {
  if ("http" in route) return `GET ${route.http}`;
  if ("fact" in route) return `fact ${route.fact[0]} ${JSON.stringify(route.fact[1])} at ${route.fact[2]}`;
  const [object, method, ...args] = route.call;
  return `${object}.${method}(${args.map((a) => JSON.stringify(a)).join(", ")})`;
}

/** One snapshot's reads and answers, in the order asked. */
export type Answers = [Route, string][];

/** A fixed stamp for facts: the time and attester set are the signer's, not the index's. */
const FACT_ATTESTED_AT = 1_700_000_000;
const FACT_ATTESTER_SET = 1;
/** The shadow verifier's clock (unix seconds). */
const SHADOW_CLOCK = 1_700_000_000;

/** A ChainSource whose active chain the caller switches between syncs (reorgs). */
class SteppedSource {
  active: { hash: string }[] = [];
  constructor(
    private readonly chain: EquivalenceChain,
    private readonly startHeight: number,
  ) {}
  async getTipHeight(): Promise<number> {
    return this.startHeight + this.active.length - 1;
  }
  async getBlockHash(height: number): Promise<string | null> {
    return this.active[height - this.startHeight]?.hash ?? null;
  }
  async getRawBlock(hash: string): Promise<Uint8Array> {
    const raw = this.chain.blocksByHash.get(hash);
    if (!raw) throw new Error(`block ${hash} is not in chain ${this.chain.name}`);
    return raw;
  }
}

/**
 * Indexes `chain` step by step into `db` with the stack's indexer (the shadow verifier run after
 * each step) and calls `onSnapshot` with the active chain at each named step.
 */
export async function buildIndex(
  stack: Stack,
  chain: EquivalenceChain,
  db: SqlDatabase,
  onSnapshot: (name: string, active: ChainBlock[]) => Promise<void>,
): Promise<void> {
  const source = new SteppedSource(chain, chain.startHeight);
  const indexer = new stack.indexer.Indexer({
    store: new stack.store.IndexerStore(db),
    source,
    network: stack.doge.NETWORKS[chain.network],
    startHeight: chain.startHeight,
  });
  const shadow = new stack.shadow.ZkpShadowService(db, { clock: () => SHADOW_CLOCK });
  for (const step of chain.steps) {
    source.active = step.blocks;
    await indexer.syncOnce();
    shadow.enqueuePending();
    await shadow.drain();
    if (step.snapshot) await onSnapshot(step.snapshot, step.blocks);
  }
}

/** Canonical text of an in-process value (see the header). */
export function canonical(value: unknown): string {
  return JSON.stringify(plain(value));
}

function plain(value: unknown): unknown {
  if (typeof value === "bigint") return { $bigint: value.toString() };
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString("hex") };
  if (value instanceof Map) return { $map: [...value.entries()].map(([k, v]) => [plain(k), plain(v)]) };
  if (Array.isArray(value)) return value.map(plain);
  if (value === undefined) return { $undefined: true };
  if (value !== null && typeof value === "object") {
    if (typeof (value as Iterator<unknown>).next === "function" && Symbol.iterator in value)
      return { $iterated: [...(value as Iterable<unknown>)].map(plain) };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}

function errorAnswer(error: unknown): string {
  const e = error as { name?: string; code?: unknown; kind?: unknown; message?: string; details?: unknown };
  return canonical({
    $error: {
      name: e.name ?? null,
      code: e.code ?? null,
      kind: e.kind ?? null,
      message: e.message ?? String(error),
      details: e.details ?? null,
    },
  });
}

/** What the index knows about from the chain's bytes (active branch) and the orphaned branches. */
interface Subjects {
  /** The active chain's transactions, but of the blocks that hold only a coinbase the first three and the last. */
  txids: string[];
  /** Hashes of the blocks asked about: those with more than a coinbase, and the coinbase-only ones above. */
  blockHashes: string[];
  orphanTxids: string[];
  outputs: { txid: string; vout: number; address: string | null }[];
  addresses: string[];
  heights: number[];
}

function subjectsOf(chain: EquivalenceChain, active: ChainBlock[]): Subjects {
  const network = NETWORKS[chain.network];
  const txids: string[] = [];
  const outputs: Subjects["outputs"] = [];
  const addresses = new Set<string>();
  const activeHashes = new Set(active.map((b) => b.hash));
  const blockHashes: string[] = [];
  let bareBlocks = 0;
  for (const block of active) {
    const parsed = parseBlock(block.raw);
    if (!parsed.ok) throw parsed.error;
    const bare = parsed.value.txs.length === 1;
    const keep = !bare || ++bareBlocks <= 3 || block === active[active.length - 1];
    if (keep) blockHashes.push(block.hash);
    for (const tx of parsed.value.txs) {
      if (keep) txids.push(tx.txid);
      tx.outputs.forEach((output, vout) => {
        const address = outputScriptToAddress(output.script, network);
        if (address) addresses.add(address);
        outputs.push({ txid: tx.txid, vout, address });
      });
    }
  }
  const activeTxids = new Set(txids);
  const orphanTxids: string[] = [];
  for (const [hash, raw] of chain.blocksByHash) {
    if (activeHashes.has(hash)) continue;
    blockHashes.push(hash);
    const parsed = parseBlock(raw);
    if (!parsed.ok) throw parsed.error;
    for (const tx of parsed.value.txs) {
      if (activeTxids.has(tx.txid)) continue;
      orphanTxids.push(tx.txid);
      tx.outputs.forEach((output) => {
        const address = outputScriptToAddress(output.script, network);
        if (address) addresses.add(address);
      });
    }
  }
  // An address nothing ever paid.
  addresses.add(publicKeyToAddress(fixedKey("nobody").publicKey, network));
  const heights = active.map((_, i) => chain.startHeight + i);
  return { txids, blockHashes, orphanTxids, outputs, addresses: [...addresses], heights };
}

/**
 * How many transactions and addresses of one chain are asked about: an even sample, first and last
 * included, of at most READ_SAMPLE for the in-process reads (every one on the devnet chain and the
 * small mainnet blocks), of which HTTP_SAMPLE also over HTTP. Sized for the shared 2-core machine,
 * where a read costs up to a few milliseconds on PostgreSQL (a synchronous round trip per
 * statement) and an HTTP request 2-5: the fixture stays under 5 MB and the test near a minute per
 * backend.
 */
const READ_SAMPLE = 150;
const HTTP_SAMPLE = 60;

/** `limit` items of `items` spread evenly, the first and the last among them (all when there are fewer). */
function sample<T>(items: T[], limit: number): T[] {
  if (items.length <= limit) return items;
  const out: T[] = [];
  for (let i = 0; i < limit; i++) out.push(items[Math.round((i * (items.length - 1)) / (limit - 1))]);
  return out;
}

function blockTxCount(raw: Uint8Array): number {
  const parsed = parseBlock(raw);
  if (!parsed.ok) throw parsed.error;
  return parsed.value.txs.length;
}

/** Bodies above this size (raw blocks of the large mainnet blocks) are kept as their SHA-256 and length. */
const LARGE_BODY_BYTES = 64 * 1024;

/** The devnet chain's keys that deploy, mint, hold and move things (chain.ts). */
const DEVNET_NAMES = ["alice", "bob", "carol", "dave", "eve"];

const UNKNOWN_TXID = "00".repeat(31) + "01";
const UNKNOWN_SHA = "ab".repeat(32);

/** Every read of the index this harness knows, asked of `db` with the stack's readers and explorer. */
export async function readEverything(
  stack: Stack,
  chain: EquivalenceChain,
  db: SqlDatabase,
  active: ChainBlock[],
): Promise<Answers> {
  const subjects = subjectsOf(chain, active);
  const reader = new Reader(stack, chain, db);
  await reader.start();
  try {
    await enumerate(reader, stack, chain, active, subjects);
  } finally {
    await reader.stop();
  }
  return reader.answers;
}

/** Asks the index one route at a time and keeps the answers (also used to replay a fixture's routes). */
export class Reader {
  readonly answers: Answers = [];
  readonly queries: InstanceType<QueriesModule["IndexQueries"]>;
  readonly history: InstanceType<QueriesModule["IndexHistory"]>;
  private server: http.Server | null = null;
  private base = "";
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(
    private readonly stack: Stack,
    private readonly chain: EquivalenceChain,
    db: SqlDatabase,
  ) {
    this.queries = new stack.queries.IndexQueries(db);
    this.history = new stack.queries.IndexHistory(db);
  }

  async start(): Promise<void> {
    const blocks = this.chain.blocksByHash;
    const app = this.stack.explorer.createExplorerApp({
      queries: this.queries,
      network: this.stack.doge.NETWORKS[this.chain.network],
      node: {
        sendRawTransaction: async () => {
          throw new Error("the equivalence test broadcasts nothing");
        },
        getBlockHex: async (hash: string) => {
          const raw = blocks.get(hash);
          if (!raw) throw new Error(`no block ${hash}`);
          return Buffer.from(raw).toString("hex");
        },
        getBlockHeader: async (hash: string) => {
          const facts = this.chain.headers.get(hash);
          if (!facts) throw new Error(`no block ${hash}`);
          return facts;
        },
      } as never,
    });
    const { server, base } = await listenLocal(app);
    // A read on a loaded machine may take longer than Node's 5 s default between two requests of
    // one kept-alive socket, which the server would then close under the client (ECONNRESET).
    server.keepAliveTimeout = 10 * 60_000;
    this.server = server;
    this.base = base;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.agent.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** Asks `route` and records the answer; returns it parsed where it is JSON (for the enumeration). */
  async ask(route: Route): Promise<unknown> {
    const answer = await this.answer(route);
    this.answers.push([route, answer.text]);
    return answer.value;
  }

  /** Asks several routes at once (HTTP overlaps); records them in the order given. */
  async askAll(routes: Route[]): Promise<unknown[]> {
    const answers = await Promise.all(routes.map((route) => this.answer(route)));
    answers.forEach((answer, i) => this.answers.push([routes[i], answer.text]));
    return answers.map((answer) => answer.value);
  }

  async answer(route: Route): Promise<{ text: string; value: unknown }> {
    if ("http" in route) return this.get(route.http);
    if ("fact" in route) {
      const [type, params, height] = route.fact;
      try {
        const fact = this.stack.facts.computeFact(this.history, type as never, params, {
          l1Height: height,
          attestedAt: FACT_ATTESTED_AT,
          attesterSetId: FACT_ATTESTER_SET,
        });
        return { text: canonical(fact), value: fact };
      } catch (error) {
        return { text: errorAnswer(error), value: null };
      }
    }
    const [object, method, ...args] = route.call;
    const target = (object === "history" ? this.history : this.queries) as unknown as Record<
      string,
      (...a: unknown[]) => unknown
    >;
    try {
      let value = target[method](...args);
      if (
        value !== null &&
        typeof value === "object" &&
        Symbol.iterator in value &&
        !Array.isArray(value) &&
        !(value instanceof Map)
      )
        value = [...(value as Iterable<unknown>)];
      if (object === "queries" && method === "status") value = { ...(value as object), nodeSeenAt: "<wall clock>" };
      return { text: canonical(value), value };
    } catch (error) {
      return { text: errorAnswer(error), value: null };
    }
  }

  private async get(url: string): Promise<{ text: string; value: unknown }> {
    const response = await new Promise<{ status: number; type: string; cache: string; bytes: Buffer }>(
      (resolve, reject) => {
        http
          .get(this.base + url, { agent: this.agent }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                type: String(res.headers["content-type"] ?? ""),
                cache: String(res.headers["cache-control"] ?? ""),
                bytes: Buffer.concat(chunks),
              }),
            );
            res.on("error", reject);
          })
          .on("error", reject);
      },
    );
    const { type, bytes } = response;
    const textual = /json|text/.test(type);
    let body =
      bytes.length > LARGE_BODY_BYTES
        ? `sha256:${createHash("sha256").update(bytes).digest("hex")} (${bytes.length} bytes)`
        : textual
          ? bytes.toString("utf8")
          : `hex:${bytes.toString("hex")}`;
    if (url === "/api/status") body = body.replace(/"seen_at":\d+/, '"seen_at":"<wall clock>"');
    const text = `${response.status} ${type} | ${response.cache}\n${body}`;
    let value: unknown = null;
    if (type.includes("json")) value = JSON.parse(bytes.toString("utf8"));
    return { text, value };
  }
}

type Json = Record<string, any>;

/** Follows `next_cursor` from `first` (a URL without a cursor), at most `maxPages` pages. */
async function walkPages(reader: Reader, first: string, maxPages = 30): Promise<void> {
  let url = first;
  for (let page = 0; page < maxPages; page++) {
    const body = (await reader.ask({ http: url })) as Json | null;
    const cursor = body?.next_cursor;
    if (typeof cursor !== "string") return;
    url = `${first}${first.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(cursor)}`;
  }
}

/** The explorer's and Esplora's routes of one address; DRC-20 ticks found there go to `drc20Pairs`. */
async function askAddressRoutes(
  reader: Reader,
  address: string,
  drc20Pairs: Set<string>,
  maxPages: number,
): Promise<void> {
  const a = `/api/wallet/address/${address}`;
  const e = `/esplora/api/address/${address}`;
  const [, , drc20, transfers, , , , , txs] = (await reader.askAll(
    [
      `${a}/balance`,
      `${a}/utxos`,
      `${a}/drc20`,
      `${a}/transfer_inscriptions`,
      `${a}/transfer_inscriptions?order=asc&count=2&envelope=true`,
      `${a}/history`,
      e,
      `${e}/utxo`,
      `${e}/txs`,
      `${e}/txs/chain`,
      `${e}/txs/mempool`,
    ].map((url) => ({ http: url })),
  )) as (Json | null)[];
  for (const b of drc20?.balances ?? []) drc20Pairs.add(`${address} ${b.tick}`);
  for (const t of transfers?.items ?? []) {
    drc20Pairs.add(`${address} ${t.tick}`);
    await reader.ask({ http: `${a}/transfer_inscriptions?txid=${t.reveal_txid}` });
  }
  await walkPages(reader, `${a}/utxos?limit=2`, maxPages);
  await walkPages(reader, `${a}/history?limit=2`, maxPages);
  if (Array.isArray(txs) && txs.length > 0) {
    const last = (txs[txs.length - 1] as Json).txid;
    await reader.askAll([{ http: `${e}/txs/chain/${last}` }, { http: `${e}/txs?after_txid=${last}` }]);
  }
}

async function enumerate(
  reader: Reader,
  stack: Stack,
  chain: EquivalenceChain,
  active: ChainBlock[],
  s: Subjects,
): Promise<void> {
  const q = (method: string, ...args: unknown[]) => reader.ask({ call: ["queries", method, ...args] });
  const h = (method: string, ...args: unknown[]) => reader.ask({ call: ["history", method, ...args] });
  const get = (url: string) => reader.ask({ http: url });
  const tickKey = stack.inscription.drc20TickKey;

  // The index's state and the tip.
  await get("/api/status");
  await q("status");
  await q("tipHeight");
  await get("/esplora/api/blocks/tip/height");
  await get("/esplora/api/blocks/tip/hash");

  // Blocks (Esplora): by height, by hash (the orphaned ones too), pages of the chain.
  const tip = s.heights[s.heights.length - 1];
  for (const start of [...new Set([s.heights[0], Math.floor((s.heights[0] + tip) / 2), tip])])
    await get(`/esplora/api/blocks/${start}`);
  await get("/esplora/api/blocks");
  const kept = new Set(s.blockHashes);
  const blockHeights = s.heights.filter((_, i) => kept.has(active[i].hash));
  for (const height of [...blockHeights, tip + 1]) await get(`/esplora/api/block-height/${height}`);
  for (const hash of [...s.blockHashes, UNKNOWN_SHA]) {
    const b = `/esplora/api/block/${hash}`;
    const raw = chain.blocksByHash.get(hash);
    const txCount = raw ? blockTxCount(raw) : 1;
    await reader.askAll(
      [
        b,
        `${b}/status`,
        `${b}/txids`,
        `${b}/txid/0`,
        `${b}/txid/${txCount}`,
        `${b}/txs`,
        ...(txCount > 25 ? [`${b}/txs/25`, `${b}/txs/${Math.floor((txCount - 1) / 25) * 25}`] : []),
        `${b}/raw`,
        `${b}/header`,
      ].map((url) => ({ http: url })),
    );
  }
  await get(`/esplora/api/address-prefix/${s.addresses[0].slice(0, 4)}`);

  // Transactions: explorer, Esplora and IndexQueries; inscriptions and OP_RETURN hashes found on the way.
  const inscriptionIds: string[] = [];
  const opReturnShas = new Set<string>();
  const opReturnPayloads = new Set<string>();
  const magics = new Set<string>();
  const vks = new Set<string>();
  const outputsByTx = new Map<string, Subjects["outputs"]>();
  for (const o of s.outputs) outputsByTx.set(o.txid, [...(outputsByTx.get(o.txid) ?? []), o]);
  const allTxids = sample([...s.txids, ...s.orphanTxids, UNKNOWN_TXID], READ_SAMPLE);
  const httpTxids = new Set(sample(allTxids, HTTP_SAMPLE));
  for (const txid of allTxids) {
    const sampled = httpTxids.has(txid);
    const [tx] = (await reader.askAll(
      (sampled
        ? [
            `/api/tx/${txid}`,
            `/api/explorer/zkp/tx/${txid}`,
            `/api/explorer/opreturn/tx/${txid}`,
            `/esplora/api/tx/${txid}`,
            `/esplora/api/tx/${txid}/status`,
            `/esplora/api/tx/${txid}/hex`,
            `/esplora/api/tx/${txid}/raw`,
            `/esplora/api/tx/${txid}/merkle-proof`,
            `/esplora/api/tx/${txid}/merkleblock-proof`,
            `/esplora/api/tx/${txid}/outspends`,
            `/esplora/api/tx/${txid}/outspend/0`,
          ]
        : []
      ).map((url) => ({ http: url })),
    )) as (Json | null)[];
    const view = (await q("tx", txid)) as Json | null;
    for (const i of view?.inscriptions ?? []) if (!inscriptionIds.includes(i.id)) inscriptionIds.push(i.id);
    for (const o of view?.opReturns ?? []) {
      opReturnShas.add(o.sha256);
      opReturnPayloads.add(o.payloadHex);
      if (o.magic) magics.add(o.magic);
    }
    for (const z of view?.zkpUses ?? []) if (typeof z.vk_sha256 === "string") vks.add(z.vk_sha256);
    void tx;
    await q("hasTx", txid);
    await q("txInputs", txid);
    await q("opReturnsOfTx", txid);
    await q("zkpOfTx", txid);
    await h("txInclusionAt", txid, s.heights[s.heights.length - 1]);
    await h("inscriptionRevealedIn", txid);
    await h("opReturnShasOf", txid);
    await h("drc20TransferAt", `${txid}i0`, s.heights[s.heights.length - 1]);
    for (const o of outputsByTx.get(txid) ?? []) {
      await q("output", txid, o.vout);
      await q("unspentOutput", txid, o.vout);
      await q("inscriptionsOn", txid, o.vout);
      if (o.address) await q("drc20Receipts", txid, o.address);
    }
  }

  // Inscriptions, and the DRC-20 ticks their bodies name.
  const ticks: string[] = [...chain.ticks];
  const drc20Pairs = new Set<string>();
  for (const id of [...inscriptionIds, `${UNKNOWN_TXID}i0`]) {
    const found = (await get(`/api/explorer/inscription/${id}`)) as Json | null;
    await get(`/api/explorer/inscription/${id}/content`);
    await q("inscription", id);
    const body = (await q("inscriptionBody", id)) as { contentType: string; body: Uint8Array } | null;
    await q("launchpadOperation", id);
    if (body) {
      const parsed = parseDrc20(body.body, body.contentType);
      if (parsed.ok) {
        if (!ticks.some((t) => tickKey(t) === parsed.op.tickKey)) ticks.push(parsed.op.tick);
        for (const a of [found?.inscriber_address, found?.owner_address])
          if (typeof a === "string") drc20Pairs.add(`${a} ${parsed.op.tick}`);
      }
    }
  }

  // DRC-20 ticks and launchpad collections.
  for (const tick of ticks) await q("drc20Tick", tickKey(tick));
  for (const slug of chain.slugs) {
    await q("collectionDeploy", slug);
    await q("hasCollection", slug);
  }

  // Addresses: explorer, Esplora, IndexQueries (the custody's reads among them).
  const smallChain = chain.network === "regtest";
  const addresses = sample(s.addresses, READ_SAMPLE);
  const httpAddresses = new Set(sample(addresses, HTTP_SAMPLE));
  for (const address of addresses) {
    // Cursor pages of two: every page on the devnet chain, the first five of a busy mainnet address.
    if (httpAddresses.has(address)) await askAddressRoutes(reader, address, drc20Pairs, smallChain ? 30 : 5);
    await q("balance", address);
    await q("txoStats", address);
    await q("utxos", address, null, 1000);
    await q("allUtxos", address, smallChain ? 2 : 100);
    const history = (await q("history", address, null, 2)) as { items: { height: number; position: number }[] } | null;
    const lastItem = history?.items[history.items.length - 1];
    if (lastItem) await q("history", address, { height: lastItem.height, position: lastItem.position }, 1000);
    const balances = (await q("drc20Balances", address)) as { tick: string }[] | null;
    for (const b of balances ?? []) drc20Pairs.add(`${address} ${b.tick}`);
    const transfers = (await q("transferInscriptions", address, { order: "desc", count: 100, revealTxid: null })) as {
      items: { tick: string }[];
    } | null;
    for (const t of transfers?.items ?? []) drc20Pairs.add(`${address} ${t.tick}`);
    await q("transferInscriptions", address, { order: "asc", count: 2, revealTxid: null });
    for (const slug of chain.slugs) await q("collectionTokensHeld", slug, address);
  }
  // On the devnet chain every named key against every tick, held or not.
  if (smallChain)
    for (const name of DEVNET_NAMES) for (const tick of ticks) drc20Pairs.add(`${fixedKey(name).address} ${tick}`);
  drc20Pairs.add(`${addresses[0]} zzzz`);
  for (const pair of drc20Pairs) {
    const [address, tick] = pair.split(" ");
    if (httpAddresses.has(address)) await get(`/api/wallet/address/${address}/drc20/${encodeURIComponent(tick)}/utxos`);
    await q("drc20Balance", address, tickKey(tick));
    await q("tickCarriers", address, tickKey(tick));
  }

  // OP_RETURN outputs: recent pages, by magic, by SHA-256, anchors.
  await get("/api/explorer/opreturn/recent");
  await walkPages(reader, "/api/explorer/opreturn/recent?limit=3");
  await q("opReturnRecent", null, null, 1000);
  for (const magic of [...magics].slice(0, 40)) {
    await walkPages(reader, `/api/explorer/opreturn/recent?magic=${magic}&limit=2`, 5);
    await q("opReturnRecent", magic, null, 1000);
  }
  for (const sha of [...opReturnShas, UNKNOWN_SHA]) {
    await get(`/api/explorer/opreturn/sha256/${sha}`);
    await q("opReturnsBySha", sha);
  }
  for (const payload of opReturnPayloads) await q("firstAnchor", payload);

  // OP_CHECKZKP.
  await get("/api/explorer/zkp/status");
  await get("/api/explorer/zkp/recent");
  await get("/api/explorer/zkp/recent?limit=1");
  await q("zkpSummary");
  await q("zkpRecent", 100);
  for (const vk of [...vks, UNKNOWN_SHA]) {
    await get(`/api/explorer/zkp/vk/${vk}`);
    await walkPages(reader, `/api/explorer/zkp/vk/${vk}?limit=1`);
    await q("zkpVkUsed", vk);
    await q("zkpByVk", vk, null, 100);
  }

  // The attester's reads as of each height, then its facts at every signable height.
  await h("startHeight");
  await h("tip");
  // Collections exist on the devnet chain only: the named keys against each slug.
  const slugPairs = smallChain
    ? DEVNET_NAMES.flatMap((name) => chain.slugs.map((slug) => [fixedKey(name).address, slug]))
    : [];
  const pairs = [...drc20Pairs].map((p) => p.split(" "));
  // Heights asked about: on the devnet chain every third height from the first that holds more
  // than a coinbase (its first 64 blocks are coinbases only) and the last nine (the reorgs and the
  // blocks above them); on mainnet every height of the chain.
  const readHeights = smallChain
    ? s.heights.filter((height) => height >= 63 && ((height - 63) % 3 === 0 || height > tip - 9))
    : s.heights;
  for (const height of readHeights) {
    await h("blockHashAt", height);
    for (const address of addresses) await h("dogeBalanceAt", address, height);
    for (const [address, tick] of pairs) await h("drc20BalanceAt", address, tickKey(tick), height);
    for (const [address, slug] of slugPairs) await h("collectionCountAt", address, slug, height);
    for (const id of inscriptionIds) {
      await h("inscriptionAt", id, height);
      await h("inscriptionPlaceAt", id, height);
    }
  }
  const fact = (type: string, params: Record<string, string>, height: number) =>
    reader.ask({ fact: [type, params, height] });
  // An index that does not start at genesis refuses every fact before reading (INDEX_INCOMPLETE):
  // a few subjects show it. On the devnet chain, balances of the named keys and a few others.
  const some = <T>(items: T[]): T[] => (chain.startHeight === 0 ? items : items.slice(0, 3));
  const named = new Set(DEVNET_NAMES.map((name) => fixedKey(name).address));
  const balanceSubjects = smallChain
    ? [...named, ...addresses.filter((a) => !named.has(a)).slice(0, 8)]
    : addresses.slice(0, 3);
  // Facts at every other of those heights, the last nine and one past the tip (refused: not
  // indexed); the last five are refused as not deep enough.
  const factHeights = readHeights.filter((height, i) => i % 2 === 0 || height > tip - 9);
  for (const height of [...factHeights, tip + 1]) {
    await fact("L1_TIP", {}, height);
    for (const address of balanceSubjects) await fact("DOGE_BALANCE", { address }, height);
    for (const [address, tick] of some(pairs)) await fact("DRC20_BALANCE", { address, tick }, height);
    for (const [address, slug] of some(slugPairs)) await fact("COLLECTION_COUNT", { address, slug }, height);
    for (const id of some(inscriptionIds)) {
      await fact("INSCRIPTION_OWNER", { inscription_id: id }, height);
      await fact("INSCRIPTION_VALID", { inscription_id: id }, height);
      await fact("INSCRIPTION_ACTION", { inscription_id: id }, height);
    }
  }
  for (const txid of some(allTxids)) {
    await fact("TX_INCLUDED", { txid }, tip - 5);
    await fact("DRC20_TRANSFER_VALID", { txid }, tip - 5);
  }
}
