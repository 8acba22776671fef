/**
 * The AMM's HTTP API (base /api; docs/api.md "AMM"). Amounts are decimal strings of base units
 * (koinu, whole DRC-20 units); every fee is in DOGE. Reads are public; value moves only against
 * deposits the index shows, bound by their payer's signature (swaps, adds, bonding confirms), or
 * wallet-signed authorizations (removes, fee claims, bonding reservations): orders.ts. Every public
 * write is rate limited per client (429 with Retry-After).
 *
 * Every route is declared with zod schemas (./api-schema.ts) in the app's one ApiSurface, which the
 * bonding routes (bonding-app.ts) and the daemon's /health and /metrics join: they validate the
 * requests and make the OpenAPI document served at GET /openapi.json (reference page GET /docs).
 */
import path from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { RequestHandler } from "express";
import type { DogeNetwork } from "../../doge";
import type { Pool } from "../../amm";
import { TO_EXPRESS, fastJsonGet, noStoreJsonApp } from "../http/app";
import { badRequest, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import { ApiSurface, queryInteger, z } from "../http/openapi";
import * as v from "../http/validation";
import { clientIpKey, rateLimited } from "../http/rate-limit";
import {
  AmmLedger,
  DEFAULT_SLIPPAGE_BPS,
  PayoutCosts,
  PayoutRecord,
  QuoteRecord,
  SwapRecord,
  addLiquidityFields,
  parseAmount,
  priceString,
} from "./ledger";
import { Authorization, authorizationMessage, orderMessage } from "./orders";
import * as S from "./api-schema";
import { reservesJson } from "./reserves";
import type { CustodyReserves } from "./reserves";
import { serveAbiIndex } from "../http/abi-index-route";
import { servePages } from "../pages/mount";
import { walletProviderScript } from "../pages/wallet-provider";

export interface AmmAppOptions {
  ledger: AmmLedger;
  network: DogeNetwork;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /**
   * Extra routes (the bonding routes, a daemon's /health and /metrics), mounted before the 404
   * handler; declare them in `surface` (mountBonding finds it on the app, mountOpsRoutes takes it)
   * so that the document lists them.
   */
  mount?: (app: AmmApp, surface: ApiSurface) => void;
  /** Public writes per client IP and minute (default 120; 0 = no limit): every POST of /api, bonding's included. */
  rateLimit?: number;
  /**
   * When given, this directory's pages (web/amm: swap, liquidity, bonding) are served at `/`, with
   * the launchpad's stylesheet beside the directory (web/style.css) at /style.css: one look.
   */
  webDir?: string;
  /** The explorer's public base URL, where the pages read UTXOs and broadcast the payments they build. */
  explorerUrl?: string;
  /** The pages' /wallet-provider.js (default: the provider over the browser's wallets, walletProviderScript). */
  walletProviderScript?: string;
}

/** The exact text to sign for one action of GET /api/auth/message, from the parsed query. */
export type MessageBuilder = (query: S.AuthMessageQuery) => string;

/** The AMM's Express app, with what the routes mounted on it later (bonding's) declare themselves in. */
export interface AmmApp extends express.Express {
  amm: {
    /** The routes' declarations: the OpenAPI document this app serves at /openapi.json. */
    surface: ApiSurface;
    /** GET /api/auth/message's builders by action; the bonding routes add theirs. */
    messages: Map<S.Action, MessageBuilder>;
  };
}

/** Default public writes per client IP and minute of the AMM. */
export const DEFAULT_AMM_RATE_LIMIT = 120;

/** The OpenAPI document's title and description (also the reference page's title). */
export const AMM_SURFACE_INFO = {
  title: "DogeOS AMM",
  description:
    "DRC-20 <-> DOGE constant-product pools settled on the base chain, and the bonding-curve launches that graduate into them. " +
    "Users deposit to the custody address and sign their orders with their own key (GET /api/auth/message answers the exact text); the service pays out on chain. " +
    "Amounts are decimal strings of base units (koinu, whole DRC-20 units); times are unix seconds; every POST under /api is rate limited per client (429 RATE_LIMITED with Retry-After). " +
    'docs/api.md "AMM" and "Bonding-curve launches" have the rules.',
  securitySchemes: {
    operatorKey: {
      type: "http",
      scheme: "bearer",
      description:
        "an operator's bonding launch key (scripts/amm-bonding-key.ts issues one): Authorization: Bearer <key>",
    },
  },
} as const;

/** The DRC-20 tick of a pair path (/pools/<tick>/DOGE, either order); 404 POOL_NOT_FOUND for a pair without DOGE. */
function pairTick(a: string, b: string): string {
  const tick = a.toUpperCase() === "DOGE" ? b : b.toUpperCase() === "DOGE" ? a : null;
  if (tick === null)
    throw notFound("POOL_NOT_FOUND", "pools pair a DRC-20 tick with DOGE: /pools/<tick>/DOGE", {
      tokenA: a,
      tokenB: b,
    });
  return v.tick(tick);
}

const poolJson = (tick: string, pool: Pool) => ({
  tick,
  dogeReserve: pool.dogeReserve.toString(),
  tokenReserve: pool.tokenReserve.toString(),
  lpSupply: pool.lpSupply.toString(),
  feeBps: Number(pool.feeBps),
  priceKoinuPerToken: AmmLedger.price(pool),
  feesCredited: pool.feesCredited.toString(),
  feesClaimed: pool.feesClaimed.toString(),
});

/**
 * A quote as answered: the trade (`amountIn` -> `amountOut`, before the payout's cost) and the payout's
 * cost in koinu: DOGE -> token, the deposit is `amountIn + payoutCost`; token -> DOGE, the payout is
 * `amountOut - payoutCost`.
 */
const quoteJson = (q: QuoteRecord, costs: PayoutCosts) => {
  const dogeIn = q.direction === "DOGE_TO_TOKEN";
  const payoutCost = dogeIn ? costs.drc20Koinu : costs.dogeKoinu;
  return {
    quoteId: q.id,
    tick: q.tick,
    direction: q.direction,
    amountIn: q.amountIn.toString(),
    amountOut: q.amountOut.toString(),
    fee: q.fee.toString(),
    feeAsset: "DOGE",
    slippageBps: q.slippageBps,
    minAmountOut: q.minAmountOut.toString(),
    priceImpactBps: q.priceImpactBps,
    payoutCost: payoutCost.toString(),
    depositAmount: (dogeIn ? q.amountIn + payoutCost : q.amountIn).toString(),
    payoutAmount: (dogeIn ? q.amountOut : q.amountOut - payoutCost).toString(),
    createdAt: q.createdAt,
    expiresAt: q.expiresAt,
  };
};

/** A payout as every AMM and bonding answer shows it. */
export const payoutJson = (p: PayoutRecord | null) =>
  p
    ? {
        id: p.id,
        asset: p.asset,
        tick: p.tick,
        address: p.address,
        amount: p.amount.toString(),
        reason: p.reason,
        status: p.status,
        txid: p.txid,
        inscriptionId: p.inscriptionId,
        confirmedHeight: p.confirmedHeight,
        error: p.error,
        costKoinu: p.costKoinu.toString(),
      }
    : null;

/** A quote from its parsed fields (a query string's or a JSON body's). */
function quoteOf(ledger: AmmLedger, fields: S.QuoteFields): QuoteRecord {
  const hasIn = fields.amountIn !== undefined;
  if (hasIn === (fields.amountOut !== undefined))
    throw badRequest("AMOUNT_REQUIRED", "give exactly one of amountIn (exact in) or amountOut (exact out)", {
      field: "amountIn",
    });
  return ledger.quote({
    tick: fields.tick,
    direction: fields.direction,
    slippageBps: fields.slippageBps ?? DEFAULT_SLIPPAGE_BPS,
    ...(hasIn
      ? { amountIn: parseAmount(fields.amountIn, "amountIn") }
      : { amountOut: parseAmount(fields.amountOut, "amountOut") }),
  });
}

const QUOTE_PATH = /^\/api\/swap\/quote(?:\?(.*))?$/;

/**
 * `GET /api/swap/quote` answered on node:http directly, ahead of Express (the hot read wallets and
 * pages poll): the same query schema, quote and answer as the Express route, with the same error
 * bodies for the quote's own refusals; a query the schema refuses (and anything else it does not
 * recognise, or an unexpected failure) is left to the Express app, which answers it.
 * Use: `http.createServer((req, res) => { if (!fast(req, res)) app(req, res); })`.
 */
export function createQuoteFastPath(ledger: AmmLedger): (req: IncomingMessage, res: ServerResponse) => boolean {
  return fastJsonGet(QUOTE_PATH, (match) => {
    const query: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(match[1] ?? "")) {
      if (key in query) return TO_EXPRESS; // repeated parameters: Express's parser decides
      query[key] = value;
    }
    const parsed = S.QuoteQuery.safeParse(query);
    if (!parsed.success) return TO_EXPRESS;
    return quoteJson(quoteOf(ledger, parsed.data), ledger.payoutCosts);
  });
}

/** POST requests only through `limiter` (every write under the router it is used in). */
const postsThrough =
  (limiter: RequestHandler): RequestHandler =>
  (req, res, next) =>
    req.method === "POST" ? limiter(req, res, next) : next();

const swapJson = (ledger: AmmLedger, s: SwapRecord) => ({
  swapId: s.id,
  quoteId: s.quoteId,
  tick: s.tick,
  direction: s.direction,
  address: s.address,
  status: s.status,
  depositAddress: s.depositAddress,
  depositAmount: (s.amountIn + s.payoutCost).toString(),
  payoutCost: s.payoutCost.toString(),
  depositAsset: s.direction === "DOGE_TO_TOKEN" ? "DOGE" : s.tick,
  quotedOut: s.quotedOut.toString(),
  minAmountOut: s.minAmountOut.toString(),
  expiresAt: s.expiresAt,
  depositTxid: s.depositTxid,
  depositReceived: s.depositAmount?.toString() ?? null,
  amountOut: s.amountOut?.toString() ?? null,
  fee: s.fee?.toString() ?? null,
  feeAsset: "DOGE" as const,
  ledgerSeq: s.ledgerSeq,
  payout: payoutJson(s.payoutId ? ledger.payout(s.payoutId) : null),
  refund: payoutJson(s.refundPayoutId ? ledger.payout(s.refundPayoutId) : null),
  error: s.error,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

const operationJson = (op: NonNullable<ReturnType<AmmLedger["liquidityOp"]>>) => ({
  operationId: op.id,
  tick: op.tick,
  address: op.address,
  kind: op.kind,
  dogeTxid: op.dogeTxid,
  tokenTxid: op.tokenTxid,
  doge: op.doge.toString(),
  token: op.token.toString(),
  shares: op.shares.toString(),
  fees: op.fees.toString(),
  ledgerSeq: op.ledgerSeq,
  createdAt: op.createdAt,
  payouts: op.payouts.map(payoutJson),
});

export function createAmmApp(options: AmmAppOptions): AmmApp {
  const { ledger, network } = options;
  const log = options.log ?? (() => undefined);
  const { app: base, api } = noStoreJsonApp("16kb");
  const surface = new ApiSurface(AMM_SURFACE_INFO);
  const messages = new Map<S.Action, MessageBuilder>();
  const app = Object.assign(base, { amm: { surface, messages } }) as AmmApp;
  const R = S.requests(network);
  // Every POST under /api (quotes, swaps, liquidity, claims, bonding) counts against one budget per client.
  api.use(postsThrough(rateLimited({ name: "AMM writes", limit: options.rateLimit ?? DEFAULT_AMM_RATE_LIMIT })));
  const routes = surface.on(api, "/api");

  const authOf = (body: { address: string; nonce: string; expiresAt: number; signature?: string }): Authorization => ({
    address: body.address,
    nonce: body.nonce,
    expiresAt: body.expiresAt,
    signature: S.signatureOf(body.signature),
  });

  // --------------------------------------------------------------------------------- pools

  routes.get(
    "/pools",
    { summary: "Every active pool", tags: ["pools"], responses: { 200: S.Pools } },
    (_input, _req, res) => {
      res.json({ pools: ledger.pools().map((p) => poolJson(p.tick, p.pool)) });
    },
  );

  routes.get(
    "/pools/:tokenA/:tokenB",
    {
      summary: "One pool, with its depth",
      description:
        "One of the pair is DOGE, in either order (404 POOL_NOT_FOUND otherwise). `depth`: the smallest input that moves the price (dogeReserve/tokenReserve) up (DOGE in) or down (tokens in) by at least 100, 200 and 500 basis points, and what it buys; null when no input within 2^128 reaches it; empty for an empty pool.",
      tags: ["pools"],
      params: S.PairParams,
      responses: { 200: S.PoolWithDepth },
    },
    ({ params }, _req, res) => {
      const { tick: name, pool } = ledger.poolOr404(pairTick(params.tokenA, params.tokenB));
      res.json({
        ...poolJson(name, pool),
        depth: ledger.depthOf(pool).map((d) => ({
          bps: Number(d.bps),
          dogeToToken: d.dogeToToken
            ? { amountIn: d.dogeToToken.amountIn.toString(), amountOut: d.dogeToToken.amountOut.toString() }
            : null,
          tokenToDoge: d.tokenToDoge
            ? { amountIn: d.tokenToDoge.amountIn.toString(), amountOut: d.tokenToDoge.amountOut.toString() }
            : null,
        })),
      });
    },
  );

  routes.get(
    "/pools/:tokenA/:tokenB/swaps",
    {
      summary: "A pool's executed swaps, newest or oldest first (its price history)",
      description:
        "Every swap that moved the pool's reserves, from the pool's ledger: amounts, fee, the trade's price and the spot price after it, the reserves after it, when it executed, its deposit and its order's status. `order=desc` (default) pages from the newest, `asc` from the oldest; `nextCursor` continues in the same order. A read: it writes nothing.",
      tags: ["pools"],
      params: S.PairParams,
      query: S.PoolSwapsQuery,
      responses: { 200: S.PoolSwaps },
    },
    ({ params, query }, _req, res) => {
      const { tick: name } = ledger.poolOr404(pairTick(params.tokenA, params.tokenB));
      const order = query.order ?? "desc";
      const limit = query.limit ?? 100;
      const after = v.cursor<{ seq: number }>(query.cursor, { seq: "number" });
      const swaps = ledger.poolSwaps(name, limit + 1, after?.seq ?? null, order);
      const page = swaps.slice(0, limit);
      res.json({
        tick: name,
        order,
        swaps: page.map((s) => {
          const toToken = s.direction === "DOGE_TO_TOKEN";
          const [koinu, tokens] = toToken ? [s.amountIn, s.amountOut] : [s.amountOut, s.amountIn];
          return {
            swapId: s.swapId,
            ledgerSeq: s.ledgerSeq,
            address: s.address,
            direction: s.direction,
            amountIn: s.amountIn.toString(),
            amountOut: s.amountOut.toString(),
            fee: s.fee.toString(),
            priceKoinuPerToken: priceString(koinu, tokens),
            spotAfterKoinuPerToken: s.tokenReserve === 0n ? null : priceString(s.dogeReserve, s.tokenReserve),
            dogeReserve: s.dogeReserve.toString(),
            tokenReserve: s.tokenReserve.toString(),
            at: s.at,
            depositTxid: s.depositTxid,
            status: s.status,
          };
        }),
        nextCursor: swaps.length > limit ? v.encodeCursor({ seq: page[page.length - 1].ledgerSeq }) : null,
      });
    },
  );

  // -------------------------------------------------------------------------------- quotes

  const QUOTE_DESCRIPTION =
    "Give exactly one of amountIn (exact in) and amountOut (exact out): 400 AMOUNT_REQUIRED otherwise. " +
    "minAmountOut = floor(payoutAmount x (10000 - slippageBps) / 10000). A quote writes nothing: its id carries its terms and their MAC, and it lives 60 s. " +
    "depositAmount is what to deposit (amountIn, plus payoutCost for a DRC-20 payout); payoutAmount is what is paid out after the payout's cost.";
  routes.get(
    "/swap/quote",
    {
      summary: "A quote (the daemon answers it on a node:http fast path, with the same bodies)",
      description: QUOTE_DESCRIPTION,
      tags: ["swaps"],
      query: S.QuoteQuery,
      responses: { 200: S.Quote },
    },
    ({ query }, _req, res) => {
      res.json(quoteJson(quoteOf(ledger, query), ledger.payoutCosts));
    },
  );

  routes.post(
    "/swap/quote",
    {
      summary: "A quote (as GET)",
      description: QUOTE_DESCRIPTION,
      tags: ["swaps"],
      body: S.QuoteBody,
      responses: { 200: S.Quote },
    },
    ({ body }, _req, res) => {
      res.json(quoteJson(quoteOf(ledger, body), ledger.payoutCosts));
    },
  );

  // --------------------------------------------------------------------------------- swaps

  routes.post(
    "/swap/create",
    {
      summary: "A swap from a quote, for the address the output is paid to",
      description:
        "The deposit must be paid and signed by `address`. One swap per quote: the same call again answers 200 with it. Anyone may create a swap for any address; only that address can execute it.",
      tags: ["swaps"],
      body: R.SwapCreateBody,
      responses: {
        201: { description: "the swap, created", schema: S.Swap, headers: { Location: "/api/swap/status/<swapId>" } },
        200: {
          description: "the swap this quote made before",
          schema: S.Swap,
          headers: { Location: "/api/swap/status/<swapId>" },
        },
      },
    },
    ({ body }, _req, res) => {
      const { swap, created } = ledger.createSwap(body.quoteId, body.address);
      if (created) log("amm_swap_created", { swap: swap.id, tick: swap.tick, direction: swap.direction });
      res.status(created ? 201 : 200).setHeader("Location", `/api/swap/status/${swap.id}`);
      res.json(swapJson(ledger, swap));
    },
  );

  routes.post(
    "/swap/execute",
    {
      summary: "Executes a swap on its deposit (signed execute-swap)",
      description:
        "200: executed (or executed before); 202: the deposit is not in an indexed block yet or not deep enough (status deposit_seen; the service executes it by itself once it is). A refused deposit is consumed and refunded in full (422 with details.refund_payout_id).",
      tags: ["swaps"],
      body: S.SwapExecuteBody,
      responses: { 200: S.Swap, 202: { description: "the deposit is seen, not deep enough yet", schema: S.Swap } },
    },
    ({ body }, req, res) => {
      // The client's key (its IP, IPv6 by /56) counts the announcements it holds pending.
      const { swap, outcome } = ledger.executeSwap(
        body.swapId,
        body.depositTxid,
        S.signatureOf(body.signature),
        clientIpKey(req),
      );
      if (outcome === "executed")
        log("amm_swap_executed", { swap: swap.id, tick: swap.tick, amountOut: swap.amountOut?.toString() });
      res.status(outcome === "pending" ? 202 : 200).json(swapJson(ledger, swap));
    },
  );

  routes.get(
    "/swap/status/:id",
    { summary: "A swap", tags: ["swaps"], params: z.object({ id: S.SwapId }), responses: { 200: S.Swap } },
    ({ params }, _req, res) => {
      const swap = ledger.swap(params.id);
      if (!swap) throw notFound("SWAP_NOT_FOUND", `no swap ${params.id}`, { swap_id: params.id });
      res.json(swapJson(ledger, swap));
    },
  );

  routes.get(
    "/swap/history/:address",
    {
      summary: "An address's swaps, newest first",
      tags: ["swaps"],
      params: z.object({ address: R.address }),
      query: z.object({
        limit: queryInteger(1, 200).optional().openapi({ description: "page size (default 50)" }),
        cursor: v.Cursor.optional(),
      }),
      responses: { 200: S.SwapHistory },
    },
    ({ params, query }, _req, res) => {
      const limit = query.limit ?? 50;
      const before = v.cursor<{ createdAt: number; id: string }>(query.cursor, { createdAt: "number", id: "string" });
      const swaps = ledger.swapsOf(params.address, limit + 1, before);
      const page = swaps.slice(0, limit);
      const last = page[page.length - 1];
      res.json({
        address: params.address,
        swaps: page.map((swap) => swapJson(ledger, swap)),
        nextCursor: swaps.length > limit ? v.encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      });
    },
  );

  // ----------------------------------------------------------------------------- liquidity

  routes.get(
    "/liquidity/positions/:walletAddress",
    {
      summary: "An address's liquidity positions",
      description: "`doge` and `token`: the shares' part of the reserves now, rounded down.",
      tags: ["liquidity"],
      params: z.object({ walletAddress: R.address }),
      responses: { 200: S.Positions },
    },
    ({ params }, _req, res) => {
      res.json({
        address: params.walletAddress,
        positions: ledger.positions(params.walletAddress).map((p) => ({
          tick: p.tick,
          shares: p.shares.toString(),
          lpSupply: p.lpSupply.toString(),
          doge: p.doge.toString(),
          token: p.token.toString(),
          unclaimedFees: p.claimableFees.toString(),
        })),
      });
    },
  );

  routes.post(
    "/liquidity/add",
    {
      summary: "Adds liquidity from two deposits (signed add-liquidity)",
      description:
        "Both deposits paid by `address` and deep enough. The first deposit of a tick deployed on chain creates its pool. The same two txids again: 200 with the same operation. Math refusals consume both deposits and refund them.",
      tags: ["liquidity"],
      body: R.LiquidityAddBody,
      responses: {
        201: { description: "the liquidity added", schema: S.Operation },
        200: { description: "the operation these deposits made before", schema: S.Operation },
      },
    },
    ({ body }, _req, res) => {
      const { operation, created } = ledger.addLiquidity({
        tick: body.tick,
        address: body.address,
        dogeTxid: body.dogeTxid,
        tokenTxid: body.tokenTxid,
        ...(body.minShares !== undefined ? { minShares: parseAmount(body.minShares, "minShares") } : {}),
        signature: S.signatureOf(body.signature),
      });
      if (created)
        log("amm_liquidity_added", {
          operation: operation.id,
          tick: operation.tick,
          shares: operation.shares.toString(),
        });
      res.status(created ? 201 : 200).json(operationJson(operation));
    },
  );

  routes.post(
    "/liquidity/remove",
    {
      summary: "Removes liquidity (authorization remove-liquidity)",
      description: "Pays the shares' part of both reserves (rounded down) and every fee the position earned, on chain.",
      tags: ["liquidity"],
      body: R.LiquidityRemoveBody,
      responses: { 202: { description: "the removal, its payouts queued", schema: S.Operation } },
    },
    ({ body }, _req, res) => {
      const operation = ledger.removeLiquidity({
        tick: body.tick,
        shares: parseAmount(body.shares, "shares"),
        auth: authOf(body),
      });
      log("amm_liquidity_removed", {
        operation: operation.id,
        tick: operation.tick,
        shares: operation.shares.toString(),
      });
      res.status(202).json(operationJson(operation));
    },
  );

  routes.get(
    "/liquidity/fees/:walletAddress",
    {
      summary: "An address's unclaimed fees and its claims",
      tags: ["liquidity"],
      params: z.object({ walletAddress: R.address }),
      responses: { 200: S.Fees },
    },
    ({ params }, _req, res) => {
      const address = params.walletAddress;
      const positions = ledger.positions(address);
      res.json({
        address,
        feeAsset: "DOGE",
        unclaimed: positions.reduce((sum, p) => sum + p.claimableFees, 0n).toString(),
        pools: positions.map((p) => ({ tick: p.tick, unclaimed: p.claimableFees.toString() })),
        claims: ledger.claims(address).map((c) => ({
          claimId: c.id,
          amount: c.amount.toString(),
          pools: c.pools,
          createdAt: c.createdAt,
          payout: payoutJson(c.payout),
        })),
      });
    },
  );

  routes.post(
    "/liquidity/claim-fees",
    {
      summary: "Claims every fee the address earned (authorization claim-fees)",
      description:
        "Every position's balance zeroed, the nonce consumed and the claim recorded at once; the DOGE payout follows on chain.",
      tags: ["liquidity"],
      body: R.ClaimFeesBody,
      responses: { 202: { description: "the claim, its payout queued", schema: S.Claim } },
    },
    ({ body }, _req, res) => {
      const claim = ledger.claimFees(authOf(body));
      log("amm_fees_claimed", { claim: claim.id, amount: claim.amount.toString() });
      res.status(202).json({
        claimId: claim.id,
        address: body.address,
        amount: claim.amount.toString(),
        feeAsset: "DOGE",
        pools: claim.pools,
        payout: payoutJson(ledger.payout(claim.payoutId)),
      });
    },
  );

  // -------------------------------------------------------------------------- signing texts

  /** The exact text to sign for an order or an authorization (orders.ts), by action. */
  const authQuery = (q: S.AuthMessageQuery) => ({
    address: S.need(q, "address"),
    nonce: S.need(q, "nonce"),
    expiresAt: S.need(q, "expiresAt"),
  });
  const refundOf = (q: { asset: "DOGE" | "DRC20"; tick?: string; address: string; depositTxid: string }) =>
    ({
      asset: q.asset,
      tick: q.asset === "DRC20" ? v.tick(q.tick) : null,
      address: q.address,
      depositTxid: q.depositTxid,
    }) as const;
  messages.set("claim-fees", (q) => authorizationMessage(ledger.domain, "claim-fees", {}, authQuery(q)));
  messages.set("remove-liquidity", (q) =>
    authorizationMessage(
      ledger.domain,
      "remove-liquidity",
      { tick: S.need(q, "tick"), shares: parseAmount(q.shares, "shares").toString() },
      authQuery(q),
    ),
  );
  messages.set("execute-swap", (q) => ledger.executeSwapMessage(S.need(q, "swapId"), S.need(q, "depositTxid")));
  messages.set("add-liquidity", (q) =>
    orderMessage(
      ledger.domain,
      "add-liquidity",
      addLiquidityFields({
        tick: S.need(q, "tick"),
        address: S.need(q, "address"),
        dogeTxid: S.need(q, "dogeTxid"),
        tokenTxid: S.need(q, "tokenTxid"),
        ...(q.minShares !== undefined ? { minShares: parseAmount(q.minShares, "minShares") } : {}),
      }),
    ),
  );
  messages.set("refund-deposit", (q) =>
    orderMessage(
      ledger.domain,
      "refund-deposit",
      AmmLedger.refundFields(
        refundOf({
          asset: S.need(q, "asset"),
          tick: q.tick,
          address: S.need(q, "address"),
          depositTxid: S.need(q, "depositTxid"),
        }),
      ),
    ),
  );

  routes.get(
    "/auth/message",
    {
      summary: "The exact text a payer signs for an action",
      description:
        "The fields each action needs: execute-swap (swapId, depositTxid); add-liquidity (tick, address, dogeTxid, tokenTxid, minShares?); refund-deposit (asset, tick when DRC20, address, depositTxid); " +
        "remove-liquidity (address, nonce, expiresAt, tick, shares); claim-fees (address, nonce, expiresAt); bonding-reserve (symbol, side, address, amountIn, minAmountOut?, nonce, expiresAt); " +
        "bonding-confirm (reservationId, depositTxid). A field the action needs and lacks is refused with that field's code.",
      tags: ["signing"],
      query: R.AuthMessageQuery,
      responses: { 200: S.Message },
    },
    ({ query }, _req, res) => {
      const build = messages.get(query.action);
      if (!build)
        throw badRequest("INVALID_ACTION", `action ${query.action} is not served here (no bonding curves)`, {
          field: "action",
        });
      res.json({ message: build(query) });
    },
  );

  // ------------------------------------------------------------------------ deposits, payouts

  routes.post(
    "/deposits/refund",
    {
      summary: "A deposit that serves no order, back to its payer (signed refund-deposit)",
      description:
        "For a deposit never announced, or paid to a swap or reservation that was already filled, refunded or expired. Bound like any deposit (paid by `address`, not by the service, deep enough, unused) and consumed once.",
      tags: ["deposits"],
      body: R.RefundBody,
      responses: { 202: { description: "the refund's payout, queued", schema: S.Payout } },
    },
    ({ body }, _req, res) => {
      const payout = ledger.refundDeposit({ ...refundOf(body), signature: S.signatureOf(body.signature) });
      log("amm_deposit_refunded", { payout: payout.id, amount: payout.amount.toString(), asset: payout.asset });
      res.status(202).json(payoutJson(payout));
    },
  );

  routes.get(
    "/payouts/:id",
    { summary: "A payout", tags: ["payouts"], params: z.object({ id: S.PayoutId }), responses: { 200: S.Payout } },
    ({ params }, _req, res) => {
      const payout = ledger.payout(params.id);
      if (!payout) throw notFound("PAYOUT_NOT_FOUND", `no payout ${params.id}`, { payout_id: params.id });
      res.json(payoutJson(payout));
    },
  );

  app.use("/api", api);
  options.mount?.(app, surface);
  surface.serve(app);
  serveAbiIndex(app, surface);
  servePages(app, surface, {
    webDir: options.webDir,
    files: options.webDir ? { "/style.css": path.join(path.dirname(options.webDir), "style.css") } : {},
    providerScript: async () =>
      options.walletProviderScript ??
      walletProviderScript({ network: options.network, explorerUrl: options.explorerUrl }),
    providerDescription:
      "Installs window.wallet over the wallets the browser brings (MyDoge, DogeLabs, UniSat-style) and, when the daemon has one (devnet and testnet only), the development wallet; the pages build their deposits from the explorer's UTXOs with it.",
  });
  app.use(unknownRoute);
  app.use(errorMiddleware(log));
  return app;
}

/** `GET /api/reserves`: the last pass's report (docs/api.md "Reserves"). Mounted from the daemon's `mount`. */
export function mountReserves(app: AmmApp, reserves: CustodyReserves): void {
  const router = express.Router();
  const routes = app.amm.surface.on(router, "/api");
  routes.get(
    "/reserves",
    {
      summary: "Proof of reserves: the custody's holdings against its obligations, per asset",
      description:
        "Holdings: the hot wallet's spendable DOGE and the custody's DRC-20 balance per tick in the index. Obligations: pool reserves and unclaimed fees, bonding curves not yet in a pool, payouts not sent yet. A shortfall stops the payouts of that asset.",
      tags: ["deposits"],
      responses: { 200: S.ReservesBody },
    },
    (_input, _req, res) => {
      res.setHeader("Cache-Control", "no-store");
      res.json(reservesJson(reserves.report()));
    },
  );
  app.use("/api", router);
}
