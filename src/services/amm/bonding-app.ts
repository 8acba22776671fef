/**
 * The bonding-curve HTTP API (base /api, issue 10), mounted beside the AMM's: camelCase JSON,
 * amounts as decimal strings of base units (koinu, whole DRC-20 units), errors as AppError codes.
 * Launches take an operator key (`Authorization: Bearer`) and the launcher's signature; the
 * launcher's supply deposits are signed by the launcher; reservations are signed by their address
 * and confirms by the payer of their deposit, which the index must show deep enough
 * (bonding-store.ts, orders.ts).
 *
 *   GET  /bonding/active              curves open for trading
 *   GET  /bonding/curves?status=&limit=&cursor=   every curve (or those of one status), newest launch first
 *   POST /bonding/launch              {symbol, totalSupply, sellableSupply, virtualDoge, graduationThreshold,
 *                                      launcher, nonce, expiresAt, signature}
 *   POST /bonding/:symbol/supply      {depositTxid, signature}   the launcher's supply deposit
 *   POST /bonding/quote               {symbol, side, amountIn | amountOut}
 *   POST /bonding/confirm             {reservationId, depositTxid, signature}
 *   GET  /bonding/reservations/:id
 *   GET  /bonding/:symbol             curve state, price, progress, status
 *   POST /bonding/:symbol/reserve     {side, address, amountIn, minAmountOut?, nonce, expiresAt, signature}
 *   GET  /auth/message?action=bonding-launch|bonding-supply|bonding-reserve|bonding-confirm&...
 *                                     the exact text to sign (the AMM app's route)
 *
 * Mount: `mountBonding(app, { store, ledger, network, log })` in createAmmApp's `mount` option: the
 * routes are declared in the AMM app's ApiSurface (./api-schema.ts has their schemas), so that its
 * one OpenAPI document lists them.
 */
import express from "express";
import type { DogeNetwork } from "../../doge";
import { badRequest, notFound } from "../http/errors";
import { ApiSurface, z } from "../http/openapi";
import { clientIpKey } from "../http/rate-limit";
import * as v from "../http/validation";
import type { AmmApp } from "./app";
import { payoutJson } from "./app";
import { authorizationMessage } from "./orders";
import {
  BondingSide,
  BondingStore,
  CurveRecord,
  ReservationRecord,
  launchFields,
  reserveFields,
} from "./bonding-store";
import { AmmLedger, PayoutCosts, parseAmount } from "./ledger";
import * as S from "./api-schema";

export interface BondingRouterOptions {
  store: BondingStore;
  /** The AMM ledger over the same database (payout details; the graduated pool). */
  ledger: AmmLedger;
  network: DogeNetwork;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/**
 * A bonding quote's payout cost (docs/api.md "Payout costs"): a BUY's DRC-20 payout is paid on top
 * of its deposit, a SELL's DOGE payout pays its own.
 */
function quoteCosts(q: { side: BondingSide; amountIn: bigint; amountOut: bigint }, costs: PayoutCosts) {
  const buying = q.side === "BUY";
  const payoutCost = buying ? costs.drc20Koinu : costs.dogeKoinu;
  return {
    payoutCost: payoutCost.toString(),
    depositAmount: (buying ? q.amountIn + payoutCost : q.amountIn).toString(),
    payoutAmount: (buying ? q.amountOut : q.amountOut - payoutCost).toString(),
  };
}

/**
 * The bonding routes, to mount under /api, declared in `surface` (the AMM app's), and the texts
 * their orders sign, to answer in GET /api/auth/message by action.
 */
export function createBondingRouter(
  options: BondingRouterOptions,
  surface: ApiSurface,
): {
  router: express.Router;
  messages: Record<
    "bonding-launch" | "bonding-supply" | "bonding-reserve" | "bonding-confirm",
    (q: S.AuthMessageQuery) => string
  >;
} {
  const { store, ledger, network } = options;
  const log = options.log ?? (() => undefined);
  const R = S.requests(network);
  const router = express.Router();
  router.use("/bonding", (_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  const routes = surface.on(router, "/api");

  const curveJson = (c: CurveRecord) => {
    const { state } = c;
    const reserved = store.reserved(c.tick);
    const pool = c.status === "graduated" ? ledger.pool(c.tick) : null;
    return {
      symbol: c.tick,
      status: c.status,
      depositAddress: store.custodyAddress,
      totalSupply: state.totalSupply.toString(),
      sellableSupply: state.sellableSupply.toString(),
      launchVirtualDoge: c.launchVirtualDoge.toString(),
      graduationThreshold: state.graduationThreshold.toString(),
      feeBps: Number(state.feeBps),
      virtualDoge: state.virtualDoge.toString(),
      virtualToken: state.virtualToken.toString(),
      realDoge: state.realDoge.toString(),
      realToken: state.realToken.toString(),
      tokensSold: (state.sellableSupply - state.realToken).toString(),
      feesCollected: state.feesCollected.toString(),
      reservedTokens: reserved.buyTokens.toString(),
      ...BondingStore.progress(state),
      launcher: c.launcher,
      supplyDeposited: c.supplyDeposited.toString(),
      supplyDeadline: c.supplyDeadline,
      refund: payoutJson(c.refundPayoutId ? ledger.payout(c.refundPayoutId) : null),
      graduation:
        c.status === "graduated"
          ? {
              poolDoge: c.poolDoge!.toString(),
              poolToken: c.poolToken!.toString(),
              poolSeeded: c.poolSeededAt !== null,
              graduatedAt: c.graduatedAt,
              reservationId: c.graduationReservationId,
              pool:
                pool && pool.pool.lpSupply > 0n
                  ? {
                      dogeReserve: pool.pool.dogeReserve.toString(),
                      tokenReserve: pool.pool.tokenReserve.toString(),
                      lpSupply: pool.pool.lpSupply.toString(),
                    }
                  : null,
            }
          : null,
      error: c.error,
      createdAt: c.createdAt,
      activatedAt: c.activatedAt,
      updatedAt: c.updatedAt,
    };
  };

  const reservationJson = (r: ReservationRecord) => ({
    reservationId: r.id,
    symbol: r.tick,
    side: r.side,
    address: r.address,
    status: r.status,
    depositAddress: store.custodyAddress,
    depositAmount: (r.amountIn + r.payoutCost).toString(),
    payoutCost: r.payoutCost.toString(),
    depositAsset: r.side === "BUY" ? "DOGE" : r.tick,
    reservedAmount: r.reservedOut.toString(),
    reservedAsset: r.side === "BUY" ? r.tick : "DOGE",
    fee: r.feeKoinu.toString(),
    feeAsset: "DOGE",
    expiresAt: r.expiresAt,
    depositTxid: r.depositTxid,
    pendingTxid: r.pendingTxid,
    depositReceived: r.depositAmount?.toString() ?? null,
    amountOut: r.amountOut?.toString() ?? null,
    payout: payoutJson(r.payoutId ? ledger.payout(r.payoutId) : null),
    refund: payoutJson(r.refundPayoutId ? ledger.payout(r.refundPayoutId) : null),
    error: r.error,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  });

  routes.get(
    "/bonding/active",
    { summary: "The curves open for trading, oldest first", tags: ["bonding"], responses: { 200: S.ActiveCurves } },
    (_input, _req, res) => {
      res.json({ curves: store.curves("active").map(curveJson) });
    },
  );

  routes.get(
    "/bonding/curves",
    {
      summary: "The curves, or those of one status, newest launch first",
      description:
        "`status` filters (awaiting_supply, active, graduated, failed; 400 INVALID_STATUS otherwise); pages of `limit` (1 to 200, default 50) ordered by createdAt then symbol, newest first; `nextCursor` continues. A graduated curve's `graduation.reservationId` names the reservation whose confirmed BUY completed it. A read: it writes nothing.",
      tags: ["bonding"],
      query: S.CurvesQuery,
      responses: { 200: S.CurvesPage },
    },
    ({ query }, _req, res) => {
      const limit = query.limit ?? 50;
      const before = v.cursor<{ createdAt: number; tickKey: string }>(query.cursor, {
        createdAt: "number",
        tickKey: "string",
      });
      const curves = store.curvesPage(query.status ?? null, limit + 1, before);
      const page = curves.slice(0, limit);
      const last = page[page.length - 1];
      res.json({
        curves: page.map(curveJson),
        nextCursor: curves.length > limit ? v.encodeCursor({ createdAt: last.createdAt, tickKey: last.tickKey }) : null,
      });
    },
  );

  // The operator's key is checked before the body is read: a stranger learns nothing of the launch rules.
  router.post("/bonding/launch", (req, res, next) => {
    try {
      res.locals.apiKeyId = store.authenticate(req.header("authorization"));
    } catch (error) {
      next(error);
      return;
    }
    next();
  });
  routes.post(
    "/bonding/launch",
    {
      summary: "Launches a DRC-20 token on a bonding curve (operator key, signed by the launcher)",
      description:
        "The launcher signs bonding-launch (GET /api/auth/message?action=bonding-launch), deploys the tick on chain with max = totalSupply, mints it, and deposits the whole supply to depositAddress (DRC-20 transfers it pays), announcing each deposit at POST /api/bonding/{symbol}/supply. " +
        "The curve is awaiting_supply until the launcher's bound deposits reach totalSupply and the custody's available balance covers it, then active; a launch short of its supply at supplyDeadline (a day) fails and its bound supply is queued back to the launcher. There is no launch fee. " +
        "Launch checks: S < T, G <= V x S, S + floor(V x S / G) < 2^128 (422 INVALID_PARAMS); T at most 2^64 - 1 (422 SUPPLY_TOO_LARGE); a tick on chain with another max (422 TICK_SUPPLY_MISMATCH); a service address as launcher (422 ADDRESS_IS_SERVICE).",
      tags: ["bonding"],
      security: "operatorKey",
      body: R.LaunchBody,
      responses: {
        202: {
          description: "the curve, awaiting_supply",
          schema: S.Curve,
          headers: { Location: "/api/bonding/<symbol>" },
        },
      },
    },
    ({ body }, _req, res) => {
      const apiKeyId = res.locals.apiKeyId as string;
      const signature = S.signatureOf(body.signature);
      const curve = store.launch(
        {
          tick: body.symbol,
          totalSupply: parseAmount(body.totalSupply, "totalSupply"),
          sellableSupply: parseAmount(body.sellableSupply, "sellableSupply"),
          virtualDoge: parseAmount(body.virtualDoge, "virtualDoge"),
          graduationThreshold: parseAmount(body.graduationThreshold, "graduationThreshold"),
          auth: { address: body.launcher, nonce: body.nonce, expiresAt: body.expiresAt, signature },
        },
        apiKeyId,
      );
      log("bonding_launch", { tick: curve.tick, key: apiKeyId, launcher: curve.launcher });
      res.status(202).setHeader("Location", `/api/bonding/${encodeURIComponent(curve.tick)}`);
      res.json(curveJson(curve));
    },
  );

  routes.post(
    "/bonding/:symbol/supply",
    {
      summary: "Binds the launcher's DRC-20 deposit to a launch's supply (signed bonding-supply)",
      description:
        "The deposit is a transfer of the tick to depositAddress paid by the launcher, deep enough; once bound it counts toward the supply and can never be refunded on request nor used again. " +
        "The curve turns active in this call when the supply is complete. The same txid again answers unchanged. 409 DEPOSIT_NOT_FOUND / DEPOSIT_NOT_DEEP_ENOUGH: retry once mined and deep enough; 409 CURVE_NOT_AWAITING_SUPPLY: the launch is active or over (nothing taken); 422 DEPOSIT_LATE: mined after the deadline, queued back to the launcher.",
      tags: ["bonding"],
      params: S.SymbolParams,
      body: S.SupplyBody,
      responses: { 200: S.Curve },
    },
    ({ params, body }, _req, res) => {
      const { curve, outcome } = store.depositSupply(params.symbol, body.depositTxid, S.signatureOf(body.signature));
      if (outcome === "credited")
        log("bonding_supply", { tick: curve.tick, deposit: body.depositTxid, status: curve.status });
      res.json(curveJson(curve));
    },
  );

  routes.post(
    "/bonding/quote",
    {
      summary: "A quote on a curve as it is now",
      description:
        "BUY: koinu in or tokens out; SELL: tokens in or koinu out (exactly one of amountIn and amountOut: 400 AMOUNT_REQUIRED otherwise). Live reservations are not counted; progress and price are before the trade. " +
        "`refund` is the DOGE a BUY would not use; depositAmount and payoutAmount are the trade's with the payout's cost.",
      tags: ["bonding"],
      body: S.BondingQuoteBody,
      responses: { 200: S.BondingQuote },
    },
    ({ body }, _req, res) => {
      const hasIn = body.amountIn !== undefined;
      if (hasIn === (body.amountOut !== undefined))
        throw badRequest("AMOUNT_REQUIRED", "give exactly one of amountIn (exact in) or amountOut (exact out)", {
          field: "amountIn",
        });
      const q = store.quote({
        tick: body.symbol,
        side: body.side,
        ...(hasIn
          ? { amountIn: parseAmount(body.amountIn, "amountIn") }
          : { amountOut: parseAmount(body.amountOut, "amountOut") }),
      });
      const curve = store.curveOr404(q.tick);
      res.json({
        symbol: q.tick,
        side: q.side,
        amountIn: q.amountIn.toString(),
        amountInAsset: q.side === "BUY" ? "DOGE" : q.tick,
        amountOut: q.amountOut.toString(),
        amountOutAsset: q.side === "BUY" ? q.tick : "DOGE",
        fee: q.feeKoinu.toString(),
        feeAsset: "DOGE",
        refund: q.refundKoinu.toString(),
        ...quoteCosts(q, ledger.payoutCosts),
        ...BondingStore.progress(curve.state),
      });
    },
  );

  routes.post(
    "/bonding/confirm",
    {
      summary: "Confirms a reservation with its deposit (signed bonding-confirm)",
      description:
        "200: confirmed (or the same reservation and txid again, unchanged, graduated false). 202: the txid is not in an indexed block yet or not deep enough; the reservation stays reserved with pendingTxid set and the bonding pass confirms it once it is mined. " +
        "A refused deposit is consumed and refunded in full (422 with details.refund_payout_id).",
      tags: ["bonding"],
      body: S.ConfirmBody,
      responses: {
        200: S.ConfirmedReservation,
        202: { description: "the payment is announced, not deep enough yet", schema: S.ConfirmedReservation },
      },
    },
    ({ body }, req, res) => {
      const { reservation, outcome, graduated } = store.confirm(
        body.reservationId,
        body.depositTxid,
        S.signatureOf(body.signature),
        clientIpKey(req),
      );
      if (outcome === "confirmed")
        log("bonding_confirm", { reservation: reservation.id, tick: reservation.tick, graduated });
      // 202: the payment is not in an indexed block yet; the bonding pass confirms it once it is.
      res
        .status(outcome === "pending" ? 202 : 200)
        .json({ ...reservationJson(reservation), graduated, curve: curveJson(store.curveOr404(reservation.tick)) });
    },
  );

  routes.get(
    "/bonding/reservations/:id",
    {
      summary: "A reservation",
      tags: ["bonding"],
      params: z.object({ id: S.ReservationId }),
      responses: { 200: S.Reservation },
    },
    ({ params }, _req, res) => {
      const reservation = store.reservation(params.id);
      if (!reservation)
        throw notFound("RESERVATION_NOT_FOUND", `no reservation ${params.id}`, { reservation_id: params.id });
      res.json(reservationJson(reservation));
    },
  );

  routes.get(
    "/bonding/:symbol",
    { summary: "A curve, whatever its status", tags: ["bonding"], params: S.SymbolParams, responses: { 200: S.Curve } },
    ({ params }, _req, res) => {
      res.json(curveJson(store.curveOr404(params.symbol)));
    },
  );

  routes.post(
    "/bonding/:symbol/reserve",
    {
      summary: "Reserves an allocation on a curve (authorization bonding-reserve)",
      description:
        "`address` is the payer of the deposit and where the service pays. Priced on the curve now; a BUY that would take the last tokens asks only their cost as depositAmount. " +
        "Limits: 3 live reservations per address; 10% of the curve's remaining tokens (or of the tokens sold, for SELL) per address; never more than the curve holds.",
      tags: ["bonding"],
      params: S.SymbolParams,
      body: R.ReserveBody,
      responses: {
        201: {
          description: "the reservation",
          schema: S.Reservation,
          headers: { Location: "/api/bonding/reservations/<reservationId>" },
        },
      },
    },
    ({ params, body }, _req, res) => {
      const reservation = store.reserve({
        tick: params.symbol,
        side: body.side,
        address: body.address,
        amountIn: parseAmount(body.amountIn, "amountIn"),
        ...(body.minAmountOut !== undefined ? { minAmountOut: parseAmount(body.minAmountOut, "minAmountOut") } : {}),
        auth: {
          address: body.address,
          nonce: body.nonce,
          expiresAt: body.expiresAt,
          signature: S.signatureOf(body.signature),
        },
      });
      log("bonding_reserved", { reservation: reservation.id, tick: reservation.tick, side: reservation.side });
      res.status(201).setHeader("Location", `/api/bonding/reservations/${reservation.id}`);
      res.json(reservationJson(reservation));
    },
  );

  /** The texts bonding reservations and confirms sign (GET /api/auth/message, served by the AMM app). */
  const messages = {
    "bonding-launch": (q: S.AuthMessageQuery) => {
      const fields = launchFields({
        tick: S.need(q, "symbol"),
        totalSupply: parseAmount(S.need(q, "totalSupply"), "totalSupply"),
        sellableSupply: parseAmount(S.need(q, "sellableSupply"), "sellableSupply"),
        virtualDoge: parseAmount(S.need(q, "virtualDoge"), "virtualDoge"),
        graduationThreshold: parseAmount(S.need(q, "graduationThreshold"), "graduationThreshold"),
      });
      const auth = { address: S.need(q, "address"), nonce: S.need(q, "nonce"), expiresAt: S.need(q, "expiresAt") };
      return authorizationMessage(ledger.domain, "bonding-launch", fields, auth);
    },
    "bonding-supply": (q: S.AuthMessageQuery) => store.supplyMessage(S.need(q, "symbol"), S.need(q, "depositTxid")),
    "bonding-reserve": (q: S.AuthMessageQuery) => {
      const curve = store.curveOr404(S.need(q, "symbol"));
      const fields = reserveFields({
        tick: curve.tick,
        side: S.need(q, "side"),
        amountIn: parseAmount(q.amountIn, "amountIn"),
        ...(q.minAmountOut !== undefined ? { minAmountOut: parseAmount(q.minAmountOut, "minAmountOut") } : {}),
      });
      const auth = { address: S.need(q, "address"), nonce: S.need(q, "nonce"), expiresAt: S.need(q, "expiresAt") };
      return authorizationMessage(ledger.domain, "bonding-reserve", fields, auth);
    },
    "bonding-confirm": (q: S.AuthMessageQuery) =>
      store.confirmMessage(S.need(q, "reservationId"), S.need(q, "depositTxid")),
  };

  return { router, messages };
}

/**
 * Mounts the bonding routes under /api of the AMM app (in createAmmApp's `mount` option, before
 * its 404 handler): declared in the app's surface, their signing texts answered by its
 * GET /api/auth/message.
 */
export function mountBonding(app: AmmApp, options: BondingRouterOptions): void {
  const { router, messages } = createBondingRouter(options, app.amm.surface);
  for (const [action, build] of Object.entries(messages)) app.amm.messages.set(action as S.Action, build);
  app.use("/api", router);
}
