/**
 * The AMM's HTTP API (base /api; docs/api.md "AMM"). Amounts are decimal strings of base units
 * (koinu, whole DRC-20 units); every fee is in DOGE. Reads are public; value moves only against
 * deposits the index shows, bound by their payer's signature (swaps, adds, bonding confirms), or
 * wallet-signed authorizations (removes, fee claims, bonding reservations): orders.ts. Every public
 * write is rate limited per client (429 with Retry-After).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import type { DogeNetwork } from "../../doge";
import type { Direction, Pool } from "../../amm";
import { TO_EXPRESS, fastJsonGet, noStoreJsonApp, route } from "../http/app";
import { badRequest, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import * as v from "../http/validation";
import { rateLimited } from "../http/rate-limit";
import { AmmLedger, DEFAULT_SLIPPAGE_BPS, PayoutCosts, PayoutRecord, QuoteRecord, SwapRecord, addLiquidityFields, parseAmount } from "./ledger";
import { Authorization, authorizationMessage, orderMessage } from "./orders";

export interface AmmAppOptions {
  ledger: AmmLedger;
  network: DogeNetwork;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Extra routes (a daemon's /health and /metrics), mounted before the 404 handler. */
  mount?: (app: express.Express) => void;
  /** Public writes per client IP and minute (default 120; 0 = no limit): every POST of /api, bonding's included. */
  rateLimit?: number;
}

/** Default public writes per client IP and minute of the AMM. */
export const DEFAULT_AMM_RATE_LIMIT = 120;

const DIRECTIONS: readonly Direction[] = ["DOGE_TO_TOKEN", "TOKEN_TO_DOGE"];
const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9a-f]{24}$`);
/** A quote's id carries its terms (ledger.ts quoteId). */
const QUOTE_ID = /^qt_[A-Za-z0-9_-]{1,800}\.[A-Za-z0-9_-]{22}$/;

function direction(value: unknown): Direction {
  if (typeof value !== "string" || !DIRECTIONS.includes(value as Direction)) {
    throw badRequest("INVALID_DIRECTION", "direction must be DOGE_TO_TOKEN or TOKEN_TO_DOGE", { field: "direction" });
  }
  return value as Direction;
}

function slippage(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_SLIPPAGE_BPS;
  const n = typeof value === "number" ? value : typeof value === "string" && /^[0-9]{1,5}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 10_000) throw badRequest("INVALID_SLIPPAGE", "slippageBps must be an integer from 0 to 10000", { field: "slippageBps" });
  return n;
}

function id(value: unknown, prefix: string, field: string, code: string): string {
  if (typeof value !== "string" || !(prefix === "qt" ? QUOTE_ID : ID(prefix)).test(value)) throw badRequest(code, `${field} must be a ${prefix}_ id`, { field });
  return value;
}

/** A base64 compact Dogecoin message signature (65 bytes: 88 characters). */
export function signatureField(value: unknown, field = "signature"): string {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]{86}[A-Za-z0-9+/=]{2}$/.test(value)) {
    throw badRequest(value === undefined ? "SIGNATURE_REQUIRED" : "INVALID_SIGNATURE_FORMAT", `${field} must be the payer's base64 compact Dogecoin message signature of the order message (GET /api/auth/message)`, { field });
  }
  return value;
}

/** Unix seconds, as a JSON number or (in a query string) digits. */
export function unixSeconds(value: unknown, field: string): number {
  const n = typeof value === "string" && /^[0-9]{1,12}$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0) throw badRequest("INVALID_EXPIRY", `${field} must be unix seconds`, { field });
  return n;
}

export function nonce(value: unknown): string {
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]{8,64}$/.test(value)) throw badRequest("INVALID_NONCE", "nonce must be 8 to 64 characters of A-Z a-z 0-9 _ -", { field: "nonce" });
  return value;
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
    quoteId: q.id, tick: q.tick, direction: q.direction, amountIn: q.amountIn.toString(), amountOut: q.amountOut.toString(), fee: q.fee.toString(),
    feeAsset: "DOGE", slippageBps: q.slippageBps, minAmountOut: q.minAmountOut.toString(), priceImpactBps: q.priceImpactBps,
    payoutCost: payoutCost.toString(), depositAmount: (dogeIn ? q.amountIn + payoutCost : q.amountIn).toString(),
    payoutAmount: (dogeIn ? q.amountOut : q.amountOut - payoutCost).toString(), createdAt: q.createdAt, expiresAt: q.expiresAt,
  };
};

/** A payout as every AMM and bonding answer shows it. */
export const payoutJson = (p: PayoutRecord | null) => (p ? {
  id: p.id, asset: p.asset, tick: p.tick, address: p.address, amount: p.amount.toString(), reason: p.reason, status: p.status, txid: p.txid,
  inscriptionId: p.inscriptionId, confirmedHeight: p.confirmedHeight, error: p.error, costKoinu: p.costKoinu.toString(),
} : null);

const QUOTE_FIELDS = ["tick", "direction", "amountIn", "amountOut", "slippageBps"] as const;

/** A quote from its fields (a query string's or a JSON body's). */
function quoteOf(ledger: AmmLedger, fields: Record<string, unknown>): QuoteRecord {
  const hasIn = fields.amountIn !== undefined;
  const hasOut = fields.amountOut !== undefined;
  if (hasIn === hasOut) throw badRequest("AMOUNT_REQUIRED", "give exactly one of amountIn (exact in) or amountOut (exact out)", { field: "amountIn" });
  return ledger.quote({
    tick: v.tick(fields.tick), direction: direction(fields.direction), slippageBps: slippage(fields.slippageBps),
    ...(hasIn ? { amountIn: parseAmount(fields.amountIn, "amountIn") } : { amountOut: parseAmount(fields.amountOut, "amountOut") }),
  });
}

function quoteFromQuery(ledger: AmmLedger, query: Record<string, unknown>): QuoteRecord {
  const unknown = Object.keys(query).filter((k) => !(QUOTE_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw badRequest("UNKNOWN_FIELDS", `unknown query parameters: ${unknown.join(", ")}`, { fields: unknown });
  return quoteOf(ledger, query);
}

const QUOTE_PATH = /^\/api\/swap\/quote(?:\?(.*))?$/;

/**
 * `GET /api/swap/quote` answered on node:http directly, ahead of Express (the hot read wallets and
 * pages poll): the same validation, quote and answer as the Express route, with the same error
 * bodies; anything it does not recognise (or an unexpected failure) is left to the Express app.
 * Use: `http.createServer((req, res) => { if (!fast(req, res)) app(req, res); })`.
 */
export function createQuoteFastPath(ledger: AmmLedger): (req: IncomingMessage, res: ServerResponse) => boolean {
  return fastJsonGet(QUOTE_PATH, (match) => {
    const query: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(match[1] ?? "")) {
      if (key in query) return TO_EXPRESS; // repeated parameters: Express's parser decides
      query[key] = value;
    }
    return quoteJson(quoteFromQuery(ledger, query), ledger.payoutCosts);
  });
}

export function createAmmApp(options: AmmAppOptions): express.Express {
  const { ledger, network } = options;
  const log = options.log ?? (() => undefined);
  const { app, api } = noStoreJsonApp("16kb");
  // Every POST under /api (quotes, swaps, liquidity, claims, bonding) counts against one budget per client.
  api.post("*splat", rateLimited({ name: "AMM writes", limit: options.rateLimit ?? DEFAULT_AMM_RATE_LIMIT }));

  const swapJson = (s: SwapRecord) => ({
    swapId: s.id, quoteId: s.quoteId, tick: s.tick, direction: s.direction, address: s.address, status: s.status,
    depositAddress: s.depositAddress, depositAmount: (s.amountIn + s.payoutCost).toString(), payoutCost: s.payoutCost.toString(), depositAsset: s.direction === "DOGE_TO_TOKEN" ? "DOGE" : s.tick,
    quotedOut: s.quotedOut.toString(), minAmountOut: s.minAmountOut.toString(), expiresAt: s.expiresAt,
    depositTxid: s.depositTxid, depositReceived: s.depositAmount?.toString() ?? null, amountOut: s.amountOut?.toString() ?? null, fee: s.fee?.toString() ?? null,
    feeAsset: "DOGE", ledgerSeq: s.ledgerSeq, payout: payoutJson(s.payoutId ? ledger.payout(s.payoutId) : null),
    refund: payoutJson(s.refundPayoutId ? ledger.payout(s.refundPayoutId) : null), error: s.error, createdAt: s.createdAt, updatedAt: s.updatedAt,
  });

  const tickOf = (value: unknown) => v.tick(value);
  const authOf = (body: Record<string, unknown>): Authorization => {
    const address = v.address(body.address, network);
    return { address, nonce: nonce(body.nonce), expiresAt: unixSeconds(body.expiresAt, "expiresAt"), signature: signatureField(body.signature) };
  };

  // --------------------------------------------------------------------------------- pools

  api.get("/pools", route((_req, res) => {
    res.json({ pools: ledger.pools().map((p) => poolJson(p.tick, p.pool)) });
  }));

  api.get("/pools/:tokenA/:tokenB", route((req, res) => {
    const a = req.params.tokenA as string;
    const b = req.params.tokenB as string;
    const tick = a.toUpperCase() === "DOGE" ? b : b.toUpperCase() === "DOGE" ? a : null;
    if (tick === null) throw notFound("POOL_NOT_FOUND", "pools pair a DRC-20 tick with DOGE: /pools/<tick>/DOGE", { tokenA: a, tokenB: b });
    const { tick: name, pool } = ledger.poolOr404(tickOf(tick));
    res.json({
      ...poolJson(name, pool),
      depth: ledger.depthOf(pool).map((d) => ({
        bps: Number(d.bps),
        dogeToToken: d.dogeToToken ? { amountIn: d.dogeToToken.amountIn.toString(), amountOut: d.dogeToToken.amountOut.toString() } : null,
        tokenToDoge: d.tokenToDoge ? { amountIn: d.tokenToDoge.amountIn.toString(), amountOut: d.tokenToDoge.amountOut.toString() } : null,
      })),
    });
  }));

  // -------------------------------------------------------------------------------- quotes

  api.get("/swap/quote", route((req, res) => {
    res.json(quoteJson(quoteFromQuery(ledger, req.query as Record<string, unknown>), ledger.payoutCosts));
  }));

  api.post("/swap/quote", route((req, res) => {
    res.json(quoteJson(quoteOf(ledger, v.exactObject(req.body, QUOTE_FIELDS)), ledger.payoutCosts));
  }));

  // --------------------------------------------------------------------------------- swaps

  api.post("/swap/create", route((req, res) => {
    const body = v.exactObject(req.body, ["quoteId", "address"]);
    const { swap, created } = ledger.createSwap(id(body.quoteId, "qt", "quoteId", "INVALID_QUOTE_ID"), v.address(body.address, network));
    if (created) log("amm_swap_created", { swap: swap.id, tick: swap.tick, direction: swap.direction });
    res.status(created ? 201 : 200).setHeader("Location", `/api/swap/status/${swap.id}`);
    res.json(swapJson(swap));
  }));

  api.post("/swap/execute", route((req, res) => {
    const body = v.exactObject(req.body, ["swapId", "depositTxid", "signature"]);
    const { swap, outcome } = ledger.executeSwap(id(body.swapId, "swp", "swapId", "INVALID_SWAP_ID"), v.txid(body.depositTxid, "depositTxid"), signatureField(body.signature));
    if (outcome === "executed") log("amm_swap_executed", { swap: swap.id, tick: swap.tick, amountOut: swap.amountOut?.toString() });
    res.status(outcome === "pending" ? 202 : 200).json(swapJson(swap));
  }));

  api.get("/swap/status/:id", route((req, res) => {
    const swap = ledger.swap(id(req.params.id, "swp", "id", "INVALID_SWAP_ID"));
    if (!swap) throw notFound("SWAP_NOT_FOUND", `no swap ${req.params.id}`, { swap_id: req.params.id });
    res.json(swapJson(swap));
  }));

  api.get("/swap/history/:address", route((req, res) => {
    const address = v.address(req.params.address, network);
    const limit = v.limit(req.query.limit, { max: 200, fallback: 50 });
    const before = v.cursor<{ createdAt: number; id: string }>(req.query.cursor, { createdAt: "number", id: "string" });
    const swaps = ledger.swapsOf(address, limit + 1, before);
    const page = swaps.slice(0, limit);
    const last = page[page.length - 1];
    res.json({ address, swaps: page.map(swapJson), nextCursor: swaps.length > limit ? v.encodeCursor({ createdAt: last.createdAt, id: last.id }) : null });
  }));

  // ----------------------------------------------------------------------------- liquidity

  api.get("/liquidity/positions/:walletAddress", route((req, res) => {
    const address = v.address(req.params.walletAddress, network);
    res.json({
      address,
      positions: ledger.positions(address).map((p) => ({
        tick: p.tick, shares: p.shares.toString(), lpSupply: p.lpSupply.toString(), doge: p.doge.toString(), token: p.token.toString(), unclaimedFees: p.claimableFees.toString(),
      })),
    });
  }));

  const operationJson = (op: NonNullable<ReturnType<AmmLedger["liquidityOp"]>>) => ({
    operationId: op.id, tick: op.tick, address: op.address, kind: op.kind, dogeTxid: op.dogeTxid, tokenTxid: op.tokenTxid, doge: op.doge.toString(),
    token: op.token.toString(), shares: op.shares.toString(), fees: op.fees.toString(), ledgerSeq: op.ledgerSeq, createdAt: op.createdAt, payouts: op.payouts.map(payoutJson),
  });

  api.post("/liquidity/add", route((req, res) => {
    const body = v.exactObject(req.body, ["tick", "address", "dogeTxid", "tokenTxid", "minShares", "signature"]);
    const { operation, created } = ledger.addLiquidity({
      tick: tickOf(body.tick), address: v.address(body.address, network), dogeTxid: v.txid(body.dogeTxid, "dogeTxid"), tokenTxid: v.txid(body.tokenTxid, "tokenTxid"),
      ...(body.minShares !== undefined ? { minShares: parseAmount(body.minShares, "minShares") } : {}), signature: signatureField(body.signature),
    });
    if (created) log("amm_liquidity_added", { operation: operation.id, tick: operation.tick, shares: operation.shares.toString() });
    res.status(created ? 201 : 200).json(operationJson(operation));
  }));

  api.post("/liquidity/remove", route((req, res) => {
    const body = v.exactObject(req.body, ["tick", "shares", "address", "nonce", "expiresAt", "signature"]);
    const operation = ledger.removeLiquidity({ tick: tickOf(body.tick), shares: parseAmount(body.shares, "shares"), auth: authOf(body) });
    log("amm_liquidity_removed", { operation: operation.id, tick: operation.tick, shares: operation.shares.toString() });
    res.status(202).json(operationJson(operation));
  }));

  api.get("/liquidity/fees/:walletAddress", route((req, res) => {
    const address = v.address(req.params.walletAddress, network);
    const positions = ledger.positions(address);
    res.json({
      address,
      feeAsset: "DOGE",
      unclaimed: positions.reduce((sum, p) => sum + p.claimableFees, 0n).toString(),
      pools: positions.map((p) => ({ tick: p.tick, unclaimed: p.claimableFees.toString() })),
      claims: ledger.claims(address).map((c) => ({ claimId: c.id, amount: c.amount.toString(), pools: c.pools, createdAt: c.createdAt, payout: payoutJson(c.payout) })),
    });
  }));

  api.post("/liquidity/claim-fees", route((req, res) => {
    const body = v.exactObject(req.body, ["address", "nonce", "expiresAt", "signature"]);
    const claim = ledger.claimFees(authOf(body));
    log("amm_fees_claimed", { claim: claim.id, amount: claim.amount.toString() });
    res.status(202).json({ claimId: claim.id, address: body.address, amount: claim.amount.toString(), feeAsset: "DOGE", pools: claim.pools, payout: payoutJson(ledger.payout(claim.payoutId)) });
  }));

  /** The exact text to sign for an order or an authorization (orders.ts), by action. */
  const authQuery = (q: Record<string, unknown>) => ({ address: v.address(q.address, network), nonce: nonce(q.nonce), expiresAt: unixSeconds(q.expiresAt, "expiresAt") });
  const messages: Record<string, (q: Record<string, unknown>) => string> = {
    "claim-fees": (q) => authorizationMessage(ledger.domain, "claim-fees", {}, authQuery(q)),
    "remove-liquidity": (q) => authorizationMessage(ledger.domain, "remove-liquidity", { tick: tickOf(q.tick), shares: parseAmount(q.shares, "shares").toString() }, authQuery(q)),
    "execute-swap": (q) => ledger.executeSwapMessage(id(q.swapId, "swp", "swapId", "INVALID_SWAP_ID"), v.txid(q.depositTxid, "depositTxid")),
    "add-liquidity": (q) => orderMessage(ledger.domain, "add-liquidity", addLiquidityFields({
      tick: tickOf(q.tick), address: v.address(q.address, network), dogeTxid: v.txid(q.dogeTxid, "dogeTxid"), tokenTxid: v.txid(q.tokenTxid, "tokenTxid"),
      ...(q.minShares !== undefined ? { minShares: parseAmount(q.minShares, "minShares") } : {}),
    })),
  };
  api.get("/auth/message", (req, res, next) => {
    const action = req.query.action;
    // Other actions (the bonding routes') are answered by the routes mounted after this app's.
    if (typeof action !== "string" || !Object.hasOwn(messages, action)) return next();
    route((rq, rs) => rs.json({ message: messages[action](rq.query as Record<string, unknown>) }))(req, res, next);
  });

  const refundOf = (q: Record<string, unknown>) => {
    const asset = q.asset === "DOGE" || q.asset === "DRC20" ? q.asset : null;
    if (!asset) throw badRequest("INVALID_ASSET", "asset must be DOGE or DRC20", { field: "asset" });
    return { asset, tick: asset === "DRC20" ? tickOf(q.tick) : null, address: v.address(q.address, network), depositTxid: v.txid(q.depositTxid, "depositTxid") } as const;
  };
  messages["refund-deposit"] = (q) => orderMessage(ledger.domain, "refund-deposit", AmmLedger.refundFields(refundOf(q)));

  /** A deposit that serves no order, back to its payer (signed refund-deposit). */
  api.post("/deposits/refund", route((req, res) => {
    const body = v.exactObject(req.body, ["asset", "tick", "address", "depositTxid", "signature"]);
    const payout = ledger.refundDeposit({ ...refundOf(body), signature: signatureField(body.signature) });
    log("amm_deposit_refunded", { payout: payout.id, amount: payout.amount.toString(), asset: payout.asset });
    res.status(202).json(payoutJson(payout));
  }));

  api.get("/payouts/:id", route((req, res) => {
    const payout = ledger.payout(id(req.params.id, "pay", "id", "INVALID_PAYOUT_ID"));
    if (!payout) throw notFound("PAYOUT_NOT_FOUND", `no payout ${req.params.id}`, { payout_id: req.params.id });
    res.json(payoutJson(payout));
  }));

  app.use("/api", api);
  options.mount?.(app);
  app.get("/api/auth/message", () => {
    throw badRequest("INVALID_ACTION", "action must be one of claim-fees, remove-liquidity, execute-swap, add-liquidity (and bonding-reserve, bonding-confirm where bonding is served)", { field: "action" });
  });
  app.use(unknownRoute);
  app.use(errorMiddleware(log));
  return app;
}
