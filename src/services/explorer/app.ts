/**
 * The explorer's REST API over our own index (base path /api). Routes read the index through
 * IndexQueries and never call the node, except broadcast, which hands a signed transaction to it.
 */
import express, { Response } from "express";
import { DogeNetwork, coinbaseMatureWith, parseTransactionHex } from "../../doge";
import { drc20TickKey } from "../../inscription";
import { IndexQueries, isZkpUseKey } from "../../indexer/queries";
import type { AsyncIndexReads } from "../../indexer/read/async";
import { indexIsBehind } from "../../indexer/read/status";
import type { IncomingMessage, ServerResponse } from "node:http";
import { SERVICE_DESC_LINK, TO_EXPRESS, fastJsonGet, publicCors } from "../http/app";
import { ApiSurface, coded, parseAs, queryInteger, z } from "../http/openapi";
import * as S from "./api-schema";
import { AppError, absentOrBehind, badRequest, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import { rateLimited } from "../http/rate-limit";
import * as v from "../http/validation";
import { PqcRegistry, bindingJson } from "./pqc";
import { BroadcastNode, mapBroadcastError } from "./broadcast";
import { createEsploraRouter } from "./esplora";
import { mountExplorerPages } from "./pages";
import { MAX_PACKAGE_SIZE, runPipeline } from "./pipeline";
import { exactJson, opReturnRecord, zkpRecord } from "./records";
import type { MempoolReader, MempoolTx } from "./mempool";
import { serveAbiIndex } from "../http/abi-index-route";

export interface ExplorerOptions {
  queries: IndexQueries;
  network: DogeNetwork;
  node: BroadcastNode;
  /** Confirmations after which answers are cached as immutable (default 100, the reorg limit). */
  immutableDepth?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** How long the index status may be reused between requests (default 200 ms). */
  statusCacheMs?: number;
  /** The post-quantum key registry; its routes are served when given. */
  pqc?: PqcRegistry;
  /** Extra routes (a daemon's /health and /metrics), mounted before the 404 handler. */
  mount?: (app: express.Express, surface: ApiSurface) => void;
  /**
   * Public writes allowed per client IP and minute on each of broadcast, pipeline and the PQC
   * registry's writes (default EXPLORER_WRITES_PER_MINUTE; 0 = no limit). Past it: 429 RATE_LIMITED.
   */
  rateLimitPerMinute?: number;
  /** The node's mempool (./mempool.ts); without it nothing is pending (unconfirmed_koinu 0). */
  mempool?: MempoolReader;
  /**
   * The address reads (balance, history, UTXOs, and Esplora's address and script-hash routes) from
   * a PostgreSQL connection pool, when the index is on PostgreSQL (src/indexer/read/async.ts):
   * requests then overlap their queries. Without it those routes read through `queries`,
   * synchronously (SQLite).
   */
  addressReads?: AddressReads;
}

/** The address reads an explorer may answer from a pool: AsyncIndexReads, same answers as IndexQueries'. */
export type AddressReads = Pick<AsyncIndexReads, "balance" | "history" | "utxos" | "run">;

type MaybePromise<T> = T | Promise<T>;

/** `f` of a value read synchronously (SQLite) or of a promised one (the pool), without a promise for the former. */
function andThen<T, U>(value: MaybePromise<T>, f: (value: T) => U): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/** The three address reads, from the pool when there is one, else synchronously from the index. */
function addressReadsOf(queries: IndexQueries, pooled: AddressReads | undefined) {
  return {
    balance: (address: string): MaybePromise<{ confirmedKoinu: bigint; txCount: number }> =>
      pooled ? pooled.balance(address) : queries.balance(address),
    history: (address: string, before: { height: number; position: number } | null, pageSize: number) =>
      pooled ? pooled.history(address, before, pageSize) : queries.history(address, before, pageSize),
    utxos: (address: string, after: { height: number; txid: string; vout: number } | null, pageSize: number) =>
      pooled ? pooled.utxos(address, after, pageSize) : queries.utxos(address, after, pageSize),
  };
}

type AddressReadsOf = ReturnType<typeof addressReadsOf>;

/** The explorer's default public write limit per client IP and minute (`--rate-limit`). */
export const EXPLORER_WRITES_PER_MINUTE = 60;

// Koinu fields are bigints in the bodies below and JSON integers of every digit on the wire
// (exactJson), whatever their size: one type per field (issue 18; the spec's "integer, koinu").

export function createExplorerApp(options: ExplorerOptions): express.Express {
  const { queries, network, node, mempool } = options;
  const reads = addressReadsOf(queries, options.addressReads);
  const immutableDepth = options.immutableDepth ?? 100;
  const log = options.log ?? (() => undefined);
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  // Pages on other origins (the launchpad's, a wallet's) read this API and broadcast through it.
  app.use("/api", publicCors);
  // Limits next, so that a refused request costs no body parsing (DESIGN.md section 8).
  const writesPerMinute = options.rateLimitPerMinute ?? EXPLORER_WRITES_PER_MINUTE;
  // One broadcast budget per client, whichever path it broadcasts through (ours or Esplora's POST /tx).
  const broadcastLimit = rateLimited({ name: "explorer broadcast", limit: writesPerMinute });
  app.post("/api/tx/broadcast", broadcastLimit);
  app.post("/api/tx/pipeline", rateLimited({ name: "explorer pipeline", limit: writesPerMinute }));
  app.post(
    ["/api/pqc/register", "/api/pqc/revoke"],
    rateLimited({ name: "pqc registry writes", limit: writesPerMinute }),
  );
  app.use(express.json({ limit: "2mb" }));
  // Every answer, errors included, through the exact writer: bigints become JSON integers.
  app.use((_req, res, next) => {
    res.json = (body: unknown) => {
      if (!res.get("Content-Type")) res.type("application/json");
      return res.send(exactJson(body));
    };
    next();
  });
  const api = express.Router();
  const surface = new ApiSurface({
    title: "dogeos-stack explorer",
    description:
      "REST over our own Dogecoin index (transactions, balances, UTXOs, history, DRC-20, inscriptions, every OP_RETURN output and OP_CHECKZKP use, the post-quantum key registry), the node's mempool, broadcast, and Blockstream Esplora's read API under /esplora/api. Koinu fields are exact JSON integers.",
  });
  const get = surface.on(api, "/api");
  const AddressParams = z.object({ address: v.Address(network) });

  // The index status changes once per block: reading it at most every 200 ms spares two queries on
  // every request under load.
  let statusCache: { at: number; value: ReturnType<IndexQueries["status"]> } | null = null;
  const status = () => {
    const now = Date.now();
    if (!statusCache || now - statusCache.at > (options.statusCacheMs ?? 200))
      statusCache = { at: now, value: queries.status() };
    return statusCache.value;
  };
  const cacheFor = (res: Response, confirmations: number) => {
    res.setHeader(
      "Cache-Control",
      confirmations >= immutableDepth ? "public, max-age=31536000, immutable" : "no-store",
    );
  };
  /** Not found in the index: absent, or not indexed yet (503 while the index is behind: indexIsBehind). */
  const missing = (code: string, message: string, details: Record<string, unknown>): AppError =>
    absentOrBehind(status(), code, message, details);

  get.get(
    "/status",
    {
      summary: "The index's height, its node's and the sync progress",
      tags: ["index"],
      responses: { 200: S.StatusBody },
    },
    (_input, _req, res) => {
      const s = status();
      res.setHeader("Cache-Control", "no-store");
      res.json({
        indexer: {
          indexed_height: s.indexedHeight,
          indexed_hash: s.indexedHash,
          synced: s.nodeHeight !== null && !indexIsBehind(s),
          network: s.network,
        },
        node: { height: s.nodeHeight, seen_at: s.nodeSeenAt },
        capture_start_height: s.startHeight,
        progress:
          s.nodeHeight === null || s.nodeHeight < s.startHeight
            ? null
            : Math.min(1, (s.indexedHeight - s.startHeight + 1) / (s.nodeHeight - s.startHeight + 1)),
      });
    },
  );

  get.get(
    "/tx/:txid",
    {
      summary:
        "A transaction, confirmed (from the index) or pending (from the node's mempool: block null, confirmations 0)",
      tags: ["transactions"],
      params: z.object({ txid: v.Txid }),
      responses: { 200: S.TxBody },
    },
    ({ params: { txid } }, _req, res) => {
      const tx = queries.tx(txid);
      if (!tx) {
        const pending = mempool?.tx(txid);
        if (!pending) throw missing("TX_NOT_FOUND", `transaction ${txid} is not in the index`, { txid });
        res.setHeader("Cache-Control", "no-store");
        res.json(pendingTxBody(pending, mempool!));
        return;
      }
      const inputs = queries.txInputs(txid);
      const tip = status().indexedHeight;
      const confirmations = tip - tx.height + 1;
      cacheFor(res, confirmations);
      res.json({
        txid: tx.txid,
        block: { height: tx.height, hash: tx.blockHash, time: tx.blockTime, position: tx.position },
        confirmations,
        size: tx.size,
        coinbase: tx.coinbase,
        fee_koinu: tx.feeKoinu,
        inputs: [...inputs.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([vin, prev]) => ({
            vin,
            prev_txid: prev.prevTxid,
            prev_vout: prev.prevVout,
            value_koinu: prev.valueKoinu,
            address: prev.address,
          })),
        outputs: tx.outputs.map((o) => ({
          vout: o.vout,
          value_koinu: o.valueKoinu,
          script_hex: o.scriptHex,
          address: o.address,
          spent: o.spent
            ? { txid: o.spent.txid, vin: o.spent.vin, height: o.spent.height }
            : pendingSpend(mempool, tx.txid, o.vout),
        })),
        op_returns: tx.opReturns.map((o) => opReturnRecord({ ...o, txid: tx.txid, height: tx.height }, tip)),
        inscriptions: tx.inscriptions.map((i) => ({
          id: i.id,
          number: i.number,
          form: i.form,
          content_type: i.contentType,
          action: i.action,
          envelope_hash: i.envelopeHash,
        })),
        zkp: tx.zkpUses.map((use) => zkpRecord(use, tip)),
      });
    },
  );

  get.post(
    "/tx/broadcast",
    {
      summary: "Hands a signed transaction to the node",
      tags: ["transactions"],
      body: z.object({ hex: z.string().openapi({ description: "the raw transaction, hexadecimal" }) }).strict(),
      responses: { 200: S.BroadcastAnswer },
    },
    async ({ body: { hex } }, _req, res) => {
      const parsed = parseTransactionHex(hex);
      if (!parsed.ok)
        throw badRequest("TX_DECODE_FAILED", `not a transaction: ${parsed.error.message}`, {
          offset: parsed.error.offset,
        });
      try {
        const txid = await node.sendRawTransaction(hex);
        res.status(200).json({ txid });
      } catch (error) {
        throw mapBroadcastError(error);
      }
    },
  );

  const Package = coded(
    z
      .array(z.string())
      .min(1)
      .max(MAX_PACKAGE_SIZE)
      .openapi({ description: "raw transactions in hexadecimal, parents first" }),
    "INVALID_PACKAGE",
    (field) => `${field} must be a list of 1 to ${MAX_PACKAGE_SIZE} raw transaction hex strings, parents first`,
  );
  get.post(
    "/tx/pipeline",
    {
      summary:
        "Checks a package of transactions (parents first) against the index and the node's policy, then broadcasts it",
      description:
        "200 when every transaction was valid and broadcast; 422 when one was refused (nothing is broadcast); 502 when the node refused a broadcast.",
      tags: ["transactions"],
      body: z.object({ transactions: Package }).strict(),
      responses: { 200: S.PipelineOutcome, 422: S.PipelineOutcome, 502: S.PipelineOutcome },
    },
    async ({ body }, _req, res) => {
      const outcome = await runPipeline(body.transactions, queries, node);
      res.status(outcome.accepted ? (outcome.broadcast ? 200 : 502) : 422).json(outcome);
    },
  );

  get.get(
    "/wallet/address/:address/balance",
    {
      summary: "An address's confirmed balance and what its pending transactions change",
      tags: ["addresses"],
      params: AddressParams,
      responses: { 200: S.BalanceBody },
    },
    ({ params: { address } }, _req, res) => {
      const height = status().indexedHeight;
      return andThen(reads.balance(address), (balance) => {
        res.setHeader("Cache-Control", "no-store");
        res.json(balanceBody(balance, mempool, address, height));
      });
    },
  );

  get.get(
    "/wallet/address/:address/utxos",
    {
      summary: "An address's unspent outputs: confirmed ones oldest first, then unconfirmed ones",
      tags: ["addresses"],
      params: AddressParams,
      query: z.object({ limit: queryInteger(1, 500).optional(), cursor: v.Cursor.optional() }),
      responses: { 200: S.UtxoPage },
    },
    ({ params: { address }, query }, _req, res) => {
      const limit = query.limit ?? 100;
      const after = v.cursor<{ h: number; t: string; v: number }>(query.cursor, {
        h: "number",
        t: "string",
        v: "number",
      });
      const key = after ? { height: after.h, txid: after.t, vout: after.v } : null;
      return andThen(reads.utxos(address, key, limit), (page) => {
        const tip = status().indexedHeight;
        const items: Record<string, unknown>[] = page.items.map((u) => {
          // At least 1 even when the cached tip lags the row just read: 0 means pending.
          const confirmations = Math.max(1, tip - u.height + 1);
          // Maturity by the coinbase's own height (30 before Digishield on mainnet, 240 from it).
          const mature = !u.coinbase || coinbaseMatureWith(network, confirmations, u.height);
          const spentInMempool = mempool?.spentBy(u.txid, u.vout) ?? null;
          return {
            txid: u.txid,
            vout: u.vout,
            value_koinu: u.valueKoinu,
            height: u.height,
            confirmations,
            script_hex: u.scriptHex,
            inscriptions: u.inscriptions.map((i) => ({ id: i.id, offset: i.offset, content_type: i.contentType })),
            drc20: u.drc20,
            carrier: u.inscriptions.length > 0 ? (u.drc20.length > 0 ? "drc20" : "inscription") : null,
            coinbase: u.coinbase,
            mature,
            spent_in_mempool: spentInMempool,
            spendable: mature && spentInMempool === null,
          };
        });
        // Unconfirmed outputs come after every confirmed one (oldest first), keyed at height
        // PENDING_HEIGHT by txid and vout, so that one cursor pages through both.
        let last: { h: number; t: string; v: number } | null =
          page.items.length > 0
            ? {
                h: page.items[page.items.length - 1].height,
                t: page.items[page.items.length - 1].txid,
                v: page.items[page.items.length - 1].vout,
              }
            : null;
        const unconfirmed = mempool ? mempool.outputs(address) : [];
        if (items.length < limit) {
          const from = key && key.height === PENDING_HEIGHT ? key : null;
          for (const o of unconfirmed) {
            if (items.length >= limit) break;
            if (from && (o.txid < from.txid || (o.txid === from.txid && o.vout <= from.vout))) continue;
            items.push({
              txid: o.txid,
              vout: o.vout,
              value_koinu: o.valueKoinu,
              height: null,
              confirmations: 0,
              script_hex: o.scriptHex,
              inscriptions: [],
              drc20: [],
              carrier: null,
              coinbase: false,
              mature: true,
              spent_in_mempool: o.spentBy,
              spendable: o.spentBy === null,
            });
            last = { h: PENDING_HEIGHT, t: o.txid, v: o.vout };
          }
        }
        res.setHeader("Cache-Control", "no-store");
        res.json({
          address,
          items,
          next_cursor: items.length === limit && last ? v.encodeCursor(last) : null,
        });
      });
    },
  );

  get.get(
    "/wallet/address/:address/drc20",
    {
      summary: "An address's DRC-20 balances, by tick",
      tags: ["drc20"],
      params: AddressParams,
      responses: { 200: S.Drc20Balances },
    },
    ({ params: { address } }, _req, res) => {
      res.setHeader("Cache-Control", "no-store");
      res.json({ address, balances: queries.drc20Balances(address) });
    },
  );

  get.get(
    "/wallet/address/:address/drc20/:tick/utxos",
    {
      summary: "The outputs of an address that carry unsent transfer inscriptions of a tick",
      tags: ["drc20"],
      params: AddressParams.extend({ tick: v.Tick }),
      responses: { 200: S.TickCarriers },
    },
    ({ params: { address, tick } }, _req, res) => {
      const tip = status().indexedHeight;
      res.setHeader("Cache-Control", "no-store");
      res.json({
        address,
        tick,
        items: queries.tickCarriers(address, drc20TickKey(tick)).map((c) => ({
          txid: c.txid,
          vout: c.vout,
          value_koinu: c.valueKoinu,
          confirmations: tip - c.height + 1,
          inscription_id: c.inscriptionId,
          offset: c.offset,
          amount: c.amount,
        })),
      });
    },
  );

  get.get(
    "/wallet/address/:address/transfer_inscriptions",
    {
      summary: "An address's DRC-20 transfer inscriptions and their state",
      tags: ["drc20"],
      params: AddressParams,
      query: z.object({
        count: queryInteger(1, 100).optional(),
        order: coded(z.enum(["asc", "desc"]), "INVALID_ORDER", () => "order must be asc or desc").optional(),
        envelope: coded(z.enum(["true", "false"]), "INVALID_ENVELOPE", () => "envelope must be true or false")
          .optional()
          .openapi({ description: "true adds each inscription's content type and body" }),
        txid: v.Txid.optional().openapi({ description: "only the inscriptions revealed by this transaction" }),
      }),
      responses: { 200: S.TransferInscriptions },
    },
    ({ params: { address }, query }, _req, res) => {
      const count = query.count ?? 20;
      const order = query.order ?? "desc";
      const envelope = query.envelope === "true";
      const revealTxid = query.txid ?? null;
      const page = queries.transferInscriptions(address, { order, count, revealTxid });
      res.setHeader("Cache-Control", "no-store");
      res.json({
        address,
        total: page.total,
        items: page.items.map((t) => ({
          inscription_id: t.inscription_id,
          reveal_txid: t.reveal_txid,
          tick: t.tick,
          amount: t.amount,
          block_height: t.height,
          state: t.sent ? (t.returned ? "returned" : "sent") : "transferable",
          receiver_address: t.receiver_address,
          sent_height: t.sent_height,
          location: t.location_txid === null ? null : { txid: t.location_txid, vout: t.location_vout },
          ...(envelope ? { content_type: t.content_type, body: Buffer.from(t.body, "hex").toString("utf8") } : {}),
        })),
      });
    },
  );

  get.get(
    "/wallet/address/:address/history",
    {
      summary: "An address's transactions, newest first, pending ones before the confirmed",
      tags: ["addresses"],
      params: AddressParams,
      query: HistoryQuery,
      responses: { 200: S.HistoryBody },
    },
    ({ params: { address }, query }, _req, res) => {
      return andThen(
        historyBody(reads, mempool, address, query.limit, query.cursor, status().indexedHeight),
        (body) => {
          res.setHeader("Cache-Control", "no-store");
          res.json(body);
        },
      );
    },
  );

  get.get(
    "/explorer/drc20/:tick",
    {
      summary: "A DRC-20 tick: its deploy, supply minted, and its holders, largest first, in pages",
      tags: ["drc20"],
      params: z.object({ tick: v.Tick }),
      query: z.object({ limit: queryInteger(1, 100).optional(), cursor: v.Cursor.optional() }),
      responses: { 200: S.Drc20TickBody },
    },
    ({ params: { tick }, query }, _req, res) => {
      const limit = query.limit ?? 25;
      const after = v.cursor<{ a: string; d: string }>(query.cursor, { a: "string", d: "string" });
      if (after && !/^(0|[1-9][0-9]{0,77})$/.test(after.a))
        throw badRequest("INVALID_CURSOR", "cursor is not a cursor this API issued", { field: "cursor" });
      const key = drc20TickKey(tick);
      const found = queries.drc20Tick(key);
      if (!found) throw missing("TICK_NOT_FOUND", `DRC-20 tick ${tick} is not deployed in the index`, { tick });
      const page = queries.drc20TickHolders(key, after ? { total: BigInt(after.a), address: after.d } : null, limit);
      res.setHeader("Cache-Control", "no-store");
      res.json({
        tick: found.tick,
        max_supply: found.maxSupply,
        mint_limit: found.mintLimit,
        minted: found.minted,
        deployer_address: found.deployerAddress,
        inscription_id: found.inscriptionId,
        height: found.height,
        holder_count: page.holderCount,
        holders: page.items,
        next_cursor: page.next ? v.encodeCursor({ a: page.next.total.toString(), d: page.next.address }) : null,
      });
    },
  );

  const InscriptionParams = z.object({ id: v.InscriptionId });
  get.get(
    "/explorer/inscription/:id",
    {
      summary: "An inscription and where it is now",
      tags: ["inscriptions"],
      params: InscriptionParams,
      responses: { 200: S.InscriptionBody },
    },
    ({ params: { id } }, _req, res) => {
      const found = queries.inscription(id);
      if (!found) throw missing("INSCRIPTION_NOT_FOUND", `inscription ${id} is not in the index`, { id });
      res.setHeader("Cache-Control", "no-store");
      res.json({
        id: found.id,
        number: found.number,
        form: found.form,
        content_type: found.contentType,
        action: found.action,
        body_size: found.bodySize,
        envelope_hash: found.envelopeHash,
        genesis_txid: found.genesisTxid,
        reveal_txid: found.revealTxid,
        reveal_tx_count: found.revealTxCount,
        inscriber_address: found.inscriberAddress,
        height: found.height,
        location: found.location,
        owner_address: found.ownerAddress,
        content_url: `/api/explorer/inscription/${found.id}/content`,
      });
    },
  );

  get.get(
    "/explorer/inscription/:id/content",
    {
      summary: "An inscription's body, with its own content type, sandboxed (never run on this origin)",
      tags: ["inscriptions"],
      params: InscriptionParams,
      responses: { 200: { description: "the body, as inscribed", contentType: "application/octet-stream" } },
    },
    ({ params: { id } }, _req, res) => {
      const found = queries.inscriptionBody(id);
      if (!found) throw missing("INSCRIPTION_NOT_FOUND", `inscription ${id} is not in the index`, { id });
      // The body is whatever the inscriber wrote: never let a browser sniff or run it on our origin.
      res.setHeader("Content-Type", found.contentType);
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.setHeader("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox");
      res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
      res.send(Buffer.from(found.body));
    },
  );

  get.get(
    "/explorer/inscription/:id/moves",
    {
      summary: "An inscription's owner history: where it was inscribed and every move since, oldest first, in pages",
      tags: ["inscriptions"],
      params: InscriptionParams,
      query: z.object({ limit: queryInteger(1, 200).optional(), cursor: v.Cursor.optional() }),
      responses: { 200: S.InscriptionMoves },
    },
    ({ params: { id }, query }, _req, res) => {
      const limit = query.limit ?? 50;
      const after = v.cursor<{ h: number; p: number; k: string }>(query.cursor, {
        h: "number",
        p: "number",
        k: "string",
      });
      const items = queries.inscriptionMoves(
        id,
        after ? { height: after.h, position: after.p, kind: after.k } : null,
        limit,
      );
      if (items.length === 0 && !after && !queries.inscription(id))
        throw missing("INSCRIPTION_NOT_FOUND", `inscription ${id} is not in the index`, { id });
      const last = items[items.length - 1];
      res.setHeader("Cache-Control", "no-store");
      res.json({
        id,
        items: items.map((m) => ({
          height: m.height,
          txid: m.txid,
          kind: m.kind,
          to_txid: m.toTxid,
          to_vout: m.toVout,
          to_offset: m.toOffset,
          owner_address: m.ownerAddress,
        })),
        next_cursor:
          items.length === limit && last ? v.encodeCursor({ h: last.height, p: last.position, k: last.kind }) : null,
      });
    },
  );

  get.get(
    "/explorer/zkp/status",
    {
      summary: "OP_CHECKZKP: the proposal, its modes, and what the index and the shadow verifier have seen",
      tags: ["zkp"],
      responses: { 200: S.ZkpStatus },
    },
    (_input, _req, res) => {
      const summary = queries.zkpSummary();
      const s = status();
      res.setHeader("Cache-Control", "no-store");
      res.json({
        proposal: "DIP-69 OP_CHECKZKP (draft)",
        opcode: { name: "OP_CHECKZKP", byte: "0xb9", replaces: "OP_NOP10" },
        modes: [
          { mode: 0, name: "groth16-bls12-381", public_inputs: 2, shadow_verifier: true },
          { mode: 1, name: "plonk-halo2-kzg-bn256", shadow_verifier: false },
        ],
        activation_height: null,
        consensus_enforced: false,
        status: "shadow (not consensus-enforced)",
        event_count: summary.events,
        indexing: { indexed_height: s.indexedHeight, node_height: s.nodeHeight, capture_start_height: s.startHeight },
        verifier: { pending: summary.pending, valid: summary.valid, invalid: summary.invalid },
      });
    },
  );

  get.get(
    "/explorer/zkp/recent",
    {
      summary: "The latest OP_CHECKZKP uses",
      tags: ["zkp"],
      query: z.object({ limit: queryInteger(1, 100).optional() }),
      responses: { 200: S.ZkpList },
    },
    ({ query }, _req, res) => {
      res.setHeader("Cache-Control", "no-store");
      const tip = status().indexedHeight;
      res.json({ items: queries.zkpRecent(query.limit ?? 25).map((use) => zkpRecord(use, tip)) });
    },
  );

  get.get(
    "/explorer/zkp/tx/:txid",
    {
      summary: "The OP_CHECKZKP uses of a transaction",
      tags: ["zkp"],
      params: z.object({ txid: v.Txid }),
      responses: { 200: S.ZkpOfTx },
    },
    ({ params: { txid } }, _req, res) => {
      const tx = queries.tx(txid);
      if (!tx) throw missing("TX_NOT_FOUND", `transaction ${txid} is not in the index`, { txid });
      res.setHeader("Cache-Control", "no-store");
      const tip = status().indexedHeight;
      res.json({ txid, items: queries.zkpOfTx(txid).map((use) => zkpRecord(use, tip)) });
    },
  );

  get.get(
    "/explorer/zkp/vk/:sha256",
    {
      summary: "Every OP_CHECKZKP use of a verifying key (by its SHA-256), newest first, in pages",
      tags: ["zkp"],
      params: z.object({ sha256: v.Sha256Hex }),
      query: z.object({ limit: queryInteger(1, 100).optional(), cursor: v.Cursor.optional() }),
      responses: { 200: S.ZkpByVk },
    },
    ({ params: { sha256: sha }, query }, _req, res) => {
      const limit = query.limit ?? 50;
      const before = v.cursor<{ h: number; p: number; u: string }>(query.cursor, {
        h: "number",
        p: "number",
        u: "string",
      });
      if (before && !isZkpUseKey(before.u))
        throw badRequest("INVALID_CURSOR", "cursor is not a cursor this API issued", { field: "cursor" });
      const found = queries.zkpByVk(
        sha,
        before ? { height: before.h, position: before.p, use: before.u } : null,
        limit,
      );
      if (found.items.length === 0 && !queries.zkpVkUsed(sha))
        throw missing("VK_NOT_FOUND", `no OP_CHECKZKP use with verifying key ${sha}`, { vk_sha256: sha });
      const tip = status().indexedHeight;
      res.setHeader("Cache-Control", "no-store");
      res.json({
        vk_sha256: sha,
        items: found.items.map((use) => zkpRecord(use, tip)),
        next_cursor: found.next
          ? v.encodeCursor({ h: found.next.height, p: found.next.position, u: found.next.use })
          : null,
      });
    },
  );

  get.get(
    "/explorer/opreturn/recent",
    {
      summary: "The latest OP_RETURN outputs, optionally of one magic prefix, in pages",
      tags: ["opreturn"],
      query: z.object({ limit: queryInteger(1, 100).optional(), magic: Magic.optional(), cursor: v.Cursor.optional() }),
      responses: { 200: S.OpReturnPage },
    },
    ({ query }, _req, res) => {
      const limit = query.limit ?? 25;
      const magic = query.magic ?? null;
      const before = v.cursor<{ h: number; p: number; v: number }>(query.cursor, {
        h: "number",
        p: "number",
        v: "number",
      });
      const page = queries.opReturnRecent(
        magic,
        before ? { height: before.h, position: before.p, vout: before.v } : null,
        limit,
      );
      const last = page.items[page.items.length - 1];
      res.setHeader("Cache-Control", "no-store");
      res.json({
        items: page.items.map((o) => opReturnRecord(o, status().indexedHeight)),
        next_cursor:
          page.items.length === limit && last
            ? v.encodeCursor({ h: last.height, p: last.position, v: last.vout })
            : null,
      });
    },
  );

  get.get(
    "/explorer/opreturn/tx/:txid",
    {
      summary: "The OP_RETURN outputs of a transaction",
      tags: ["opreturn"],
      params: z.object({ txid: v.Txid }),
      responses: { 200: S.OpReturnsOfTx },
    },
    ({ params: { txid } }, _req, res) => {
      if (!queries.tx(txid)) throw missing("TX_NOT_FOUND", `transaction ${txid} is not in the index`, { txid });
      res.setHeader("Cache-Control", "no-store");
      const tip = status().indexedHeight;
      res.json({ txid, items: queries.opReturnsOfTx(txid).map((o) => opReturnRecord(o, tip)) });
    },
  );

  get.get(
    "/explorer/opreturn/sha256/:hash",
    {
      summary: "Whether a document's SHA-256 is anchored in an OP_RETURN payload, and where",
      tags: ["opreturn"],
      params: z.object({ hash: v.Sha256Hex }),
      responses: { 200: S.OpReturnBySha },
    },
    ({ params: { hash: sha } }, _req, res) => {
      const matches = queries.opReturnsBySha(sha);
      res.setHeader("Cache-Control", "no-store");
      const tip = status().indexedHeight;
      res.json({
        sha256: sha,
        anchored: matches.length > 0,
        first: matches[0] ? opReturnRecord(matches[0], tip) : null,
        matches: matches.map((o) => opReturnRecord(o, tip)),
      });
    },
  );

  const pqc = options.pqc;
  if (pqc) {
    const Address = v.Address(network);
    const signed = {
      issued_at: z.number().int().openapi({ description: "unix seconds the signatures were made at" }),
      dogecoin_signature: z
        .string()
        .openapi({ description: "the address's signed message (base64), DESIGN.md section 7" }),
    };
    get.post(
      "/pqc/register",
      {
        summary:
          "Binds an ML-DSA-44 key to an address (signed by both); 201 when new, 200 when the same binding exists",
        tags: ["pqc"],
        body: z
          .object({ address: Address, mldsa_public_key: v.HexBytes(4096), mldsa_signature: z.string(), ...signed })
          .strict(),
        responses: { 200: S.PqcBinding, 201: S.PqcBinding },
      },
      ({ body }, _req, res) => {
        const { binding, created } = pqc.register(body.address, body.mldsa_public_key, body);
        res.status(created ? 201 : 200).json(bindingJson(binding));
      },
    );
    get.post(
      "/pqc/revoke",
      {
        summary: "Revokes an address's ML-DSA-44 key (signed by the address)",
        tags: ["pqc"],
        body: z.object({ address: Address, key_sha256: v.Sha256Hex, ...signed }).strict(),
        responses: { 200: S.PqcBinding },
      },
      ({ body }, _req, res) => {
        res.json(bindingJson(pqc.revoke(body.address, body.key_sha256, body)));
      },
    );
    get.get(
      "/pqc/address/:address",
      {
        summary: "An address's active ML-DSA-44 key",
        tags: ["pqc"],
        params: AddressParams,
        responses: { 200: S.PqcBinding },
      },
      ({ params: { address } }, _req, res) => {
        const binding = pqc.byAddress(address);
        if (!binding) throw notFound("BINDING_NOT_FOUND", "the address has no active ML-DSA-44 key", { address });
        res.setHeader("Cache-Control", "no-store");
        res.json(bindingJson(binding));
      },
    );
    get.get(
      "/pqc/key/:sha256",
      {
        summary: "The binding of an ML-DSA-44 key, by the SHA-256 of the key",
        tags: ["pqc"],
        params: z.object({ sha256: v.Sha256Hex }),
        responses: { 200: S.PqcBinding },
      },
      ({ params: { sha256: sha } }, _req, res) => {
        const binding = pqc.byKey(sha);
        if (!binding) throw notFound("BINDING_NOT_FOUND", "no binding for this key", { key_sha256: sha });
        res.setHeader("Cache-Control", "no-store");
        res.json(bindingJson(binding));
      },
    );
    get.post(
      "/pqc/verify",
      {
        summary:
          "Verifies an ML-DSA-44 signature by an address's registered key; give exactly one of message (UTF-8) or message_hex",
        tags: ["pqc"],
        body: z
          .object({
            address: Address,
            message: coded(z.string(), "INVALID_MESSAGE", (field) => `${field} must be a string`).optional(),
            message_hex: v.HexBytes(1 << 20).optional(),
            signature: v.HexBytes(8192),
          })
          .strict(),
        responses: { 200: S.PqcVerdict },
      },
      ({ body }, _req, res) => {
        if ((body.message === undefined) === (body.message_hex === undefined))
          throw badRequest("INVALID_MESSAGE", "give exactly one of message (UTF-8 text) or message_hex", {
            field: "message",
          });
        const message = body.message !== undefined ? new TextEncoder().encode(body.message) : body.message_hex!;
        const result = pqc.verify(body.address, message, body.signature);
        res.json({ address: body.address, key_sha256: result.binding.keySha256, valid: result.valid });
      },
    );
  }

  app.use("/api", api);
  app.use(
    "/esplora/api",
    createEsploraRouter({
      queries,
      network,
      node,
      broadcastLimit,
      mempool,
      plans: options.addressReads,
      surface,
      log,
      cacheMs: options.statusCacheMs ?? 1000,
    }),
  );
  surface.serve(app);
  serveAbiIndex(app, surface);
  options.mount?.(app, surface);
  mountExplorerPages(app, surface);
  app.use(unknownRoute);
  app.use(errorMiddleware(log));
  return app;
}

function balanceBody(
  balance: { confirmedKoinu: bigint; txCount: number },
  mempool: MempoolReader | undefined,
  address: string,
  indexedHeight: number,
) {
  return {
    address,
    confirmed_koinu: balance.confirmedKoinu,
    unconfirmed_koinu: mempool ? mempool.unconfirmedKoinu(address) : 0n,
    tx_count: balance.txCount,
    indexed_height: indexedHeight,
  };
}

/** The seed's history object { address, items } with pagination fields beside them. */
function historyBody(
  reads: AddressReadsOf,
  mempool: MempoolReader | undefined,
  address: string,
  limitParam: number | undefined,
  cursorParam: string | undefined,
  tip: number,
) {
  const limit = limitParam ?? 50;
  const before = v.cursor<{ h: number; p: number }>(cursorParam, { h: "number", p: "number" });
  // Pending items head the first page (newest first, at most `limit`); the confirmed ones fill the
  // rest of it and the pages after, from the index.
  const pendingAll = mempool ? mempool.history(address) : [];
  const pending = before ? [] : pendingAll.slice(0, limit);
  const confirmedLimit = limit - pending.length;
  const read = reads.history(address, before ? { height: before.h, position: before.p } : null, confirmedLimit);
  return andThen(read, (page) => {
    const last = page.items[page.items.length - 1];
    const nextCursor =
      confirmedLimit === 0
        ? page.total > 0
          ? v.encodeCursor({ h: Number.MAX_SAFE_INTEGER, p: 0 })
          : null
        : page.items.length === confirmedLimit && last
          ? v.encodeCursor({ h: last.height, p: last.position })
          : null;
    return {
      address,
      items: [
        ...pending.map((item) => ({
          txid: item.txid,
          direction: item.direction,
          counterparty_address: item.counterparty,
          block_height: null,
          amount_koinu: item.amountKoinu,
          is_doginal: false,
          confirmations: 0,
        })),
        ...page.items.map((item) => ({
          txid: item.txid,
          direction: item.direction,
          counterparty_address: item.counterparty,
          block_height: item.height,
          amount_koinu: item.amountKoinu,
          is_doginal: item.isDoginal,
          confirmations: Math.max(1, tip - item.height + 1),
        })),
      ],
      total: page.total + pendingAll.length,
      next_cursor: nextCursor,
    };
  });
}

/** Where unconfirmed outputs sort in the UTXO list's cursor: after every block. */
const PENDING_HEIGHT = Number.MAX_SAFE_INTEGER;

/** A confirmed output's spend by a pending transaction, written as the index's spends (height null). */
function pendingSpend(mempool: MempoolReader | undefined, txid: string, vout: number) {
  const spender = mempool?.spentBy(txid, vout);
  return spender ? { txid: spender.txid, vin: spender.vin, height: null } : null;
}

/**
 * A pending transaction in /tx/:txid's shape: block null, confirmations 0. OP_RETURN records,
 * inscriptions and OP_CHECKZKP uses are the index's work and appear once it is mined.
 */
function pendingTxBody(tx: MempoolTx, mempool: MempoolReader) {
  return {
    txid: tx.txid,
    block: null,
    confirmations: 0,
    size: tx.size,
    coinbase: false,
    fee_koinu: tx.feeKoinu,
    inputs: tx.inputs.map((i) => ({
      vin: i.vin,
      prev_txid: i.prevTxid,
      prev_vout: i.prevVout,
      value_koinu: i.valueKoinu,
      address: i.address,
    })),
    outputs: tx.outputs
      .filter((o) => !o.scriptHex.startsWith("6a"))
      .map((o) => ({
        vout: o.vout,
        value_koinu: o.valueKoinu,
        script_hex: o.scriptHex,
        address: o.address,
        spent: pendingSpend(mempool, tx.txid, o.vout),
      })),
    op_returns: [],
    inscriptions: [],
    zkp: [],
  };
}

const WALLET_READ_PATH = /^\/api\/wallet\/address\/([^/?#]+)\/(balance|history)\/?(?:\?(.*))?$/;

/**
 * The two most requested reads (balance and history) served straight from node:http in front of
 * the Express app: they skip Express's router and response helpers, which were most of their cost
 * per request (npm run bench:api). Same validation, bodies and errors as the Express routes.
 * Returns false for every other request. With `addressReads` (the index on PostgreSQL) the read is
 * awaited; a refusal before it, and a read that fails, are answered by `toExpress` (the app, whose
 * route reads again and answers the error as every route does).
 */
export function createWalletFastPath(options: {
  queries: IndexQueries;
  network: DogeNetwork;
  mempool?: MempoolReader;
  addressReads?: AddressReads;
  toExpress?: (req: IncomingMessage, res: ServerResponse) => void;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  let statusCache: { at: number; height: number } | null = null;
  const Address = v.Address(options.network);
  const reads = addressReadsOf(options.queries, options.addressReads);
  const answer = (match: RegExpExecArray) => {
    const address = parseAs(Address, decodeURIComponent(match[1]), "address");
    const now = Date.now();
    if (!statusCache || now - statusCache.at > 200)
      statusCache = { at: now, height: options.queries.status().indexedHeight };
    const height = statusCache.height;
    if (match[2] === "balance")
      return andThen(reads.balance(address), (balance) => balanceBody(balance, options.mempool, address, height));
    const query = new URLSearchParams(match[3] ?? "");
    for (const key of query.keys()) if (key !== "limit" && key !== "cursor") return TO_EXPRESS; // let Express answer oddities
    const parsed = HistoryQuery.safeParse(Object.fromEntries(query));
    if (!parsed.success) return TO_EXPRESS; // and refusals, with the route's error
    return historyBody(reads, options.mempool, address, parsed.data.limit, parsed.data.cursor, height);
  };
  if (!options.addressReads) return fastJsonGet(WALLET_READ_PATH, answer, exactJson);
  const toExpress = options.toExpress;
  if (!toExpress) throw new Error("createWalletFastPath: addressReads needs toExpress, to answer a failed read");
  return (req, res) => {
    if (req.method !== "GET" || !req.url) return false;
    const match = WALLET_READ_PATH.exec(req.url);
    if (!match) return false;
    let body: unknown;
    try {
      body = answer(match);
    } catch {
      return false; // a refusal (the address): the Express route answers it, with its error
    }
    if (body === TO_EXPRESS) return false;
    Promise.resolve(body).then(
      (value) => {
        const text = exactJson(value);
        res.writeHead(200, {
          "Content-Type": "application/json; charset=utf-8",
          "Content-Length": Buffer.byteLength(text),
          "Cache-Control": "no-store",
          Link: SERVICE_DESC_LINK,
        });
        res.end(text);
      },
      () => toExpress(req, res),
    );
    return true;
  };
}

const HistoryQuery = z.object({ limit: queryInteger(1, 200).optional(), cursor: v.Cursor.optional() });

const Magic = coded(
  z
    .string()
    .regex(/^([0-9a-fA-F]{2}){1,4}$/)
    .transform((value) => value.toLowerCase())
    .openapi({
      type: "string",
      pattern: "^([0-9a-fA-F]{2}){1,4}$",
      description: "only payloads that start with these 1 to 4 bytes (hexadecimal)",
    }),
  "INVALID_MAGIC",
  () => "magic must be 1 to 4 bytes in hexadecimal",
);
