/**
 * The bonding-curve HTTP API (base /api, issue 10), mounted beside the AMM's: camelCase JSON,
 * amounts as decimal strings of base units (koinu, whole DRC-20 units), errors as AppError codes.
 * Launches take an operator key (`Authorization: Bearer`); reservations are signed by their address
 * and confirms by the payer of their deposit, which the index must show deep enough (bonding-store.ts,
 * orders.ts).
 *
 *   GET  /bonding/active              curves open for trading
 *   POST /bonding/launch              {symbol, totalSupply, sellableSupply, virtualDoge, graduationThreshold}
 *   POST /bonding/quote               {symbol, side, amountIn | amountOut}
 *   POST /bonding/confirm             {reservationId, depositTxid, signature}
 *   GET  /bonding/reservations/:id
 *   GET  /bonding/:symbol             curve state, price, progress, status
 *   POST /bonding/:symbol/reserve     {side, address, amountIn, minAmountOut?, nonce, expiresAt, signature}
 *   GET  /auth/message?action=bonding-reserve|bonding-confirm&...   the exact text to sign
 *
 * Mount: `mountBonding(app, { store, network, log })` after createAmmApp's own routes (its `mount`
 * option), or `app.use("/api", createBondingRouter(...))`.
 */
import express from "express";
import { route } from "../http/app";
import type { DogeNetwork } from "../../doge";
import { badRequest, notFound } from "../http/errors";
import { nonce, payoutJson, signatureField, unixSeconds } from "./app";
import { authorizationMessage } from "./orders";
import * as v from "../http/validation";
import { BondingSide, BondingStore, CurveRecord, ReservationRecord, reserveFields } from "./bonding-store";
import { AmmLedger, PayoutCosts, parseAmount } from "./ledger";

export interface BondingRouterOptions {
  store: BondingStore;
  /** The AMM ledger over the same database (payout details; the graduated pool). */
  ledger: AmmLedger;
  network: DogeNetwork;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

const RESERVATION_ID = /^rsv_[0-9a-f]{24}$/;

function side(value: unknown): BondingSide {
  if (value !== "BUY" && value !== "SELL") throw badRequest("INVALID_SIDE", "side must be BUY or SELL", { field: "side" });
  return value;
}

function reservationId(value: unknown, field = "reservationId"): string {
  if (typeof value !== "string" || !RESERVATION_ID.test(value)) throw badRequest("INVALID_RESERVATION_ID", `${field} must be a rsv_ id`, { field });
  return value;
}

/**
 * A bonding quote's payout cost (docs/api.md "Payout costs"): a BUY's DRC-20 payout is paid on top
 * of its deposit, a SELL's DOGE payout pays its own.
 */
function quoteCosts(q: { side: BondingSide; amountIn: bigint; amountOut: bigint }, costs: PayoutCosts) {
  const buying = q.side === "BUY";
  const payoutCost = buying ? costs.drc20Koinu : costs.dogeKoinu;
  return {
    payoutCost: payoutCost.toString(), depositAmount: (buying ? q.amountIn + payoutCost : q.amountIn).toString(),
    payoutAmount: (buying ? q.amountOut : q.amountOut - payoutCost).toString(),
  };
}

/** The bonding routes, to mount under /api. */
export function createBondingRouter(options: BondingRouterOptions): express.Router {
  const { store, ledger, network } = options;
  const log = options.log ?? (() => undefined);
  const router = express.Router();
  router.use("/bonding", (_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  const curveJson = (c: CurveRecord) => {
    const { state } = c;
    const reserved = store.reserved(c.tick);
    const pool = c.status === "graduated" ? ledger.pool(c.tick) : null;
    return {
      symbol: c.tick, status: c.status, depositAddress: store.custodyAddress,
      totalSupply: state.totalSupply.toString(), sellableSupply: state.sellableSupply.toString(), launchVirtualDoge: c.launchVirtualDoge.toString(),
      graduationThreshold: state.graduationThreshold.toString(), feeBps: Number(state.feeBps),
      virtualDoge: state.virtualDoge.toString(), virtualToken: state.virtualToken.toString(), realDoge: state.realDoge.toString(), realToken: state.realToken.toString(),
      tokensSold: (state.sellableSupply - state.realToken).toString(), feesCollected: state.feesCollected.toString(),
      reservedTokens: reserved.buyTokens.toString(), ...BondingStore.progress(state),
      deployJobId: c.deployJobId, deployInscriptionId: c.deployInscriptionId, mintJobId: c.mintJobId,
      graduation: c.status === "graduated" ? {
        poolDoge: c.poolDoge!.toString(), poolToken: c.poolToken!.toString(), poolSeeded: c.poolSeededAt !== null, graduatedAt: c.graduatedAt,
        pool: pool && pool.pool.lpSupply > 0n ? { dogeReserve: pool.pool.dogeReserve.toString(), tokenReserve: pool.pool.tokenReserve.toString(), lpSupply: pool.pool.lpSupply.toString() } : null,
      } : null,
      error: c.error, createdAt: c.createdAt, activatedAt: c.activatedAt, updatedAt: c.updatedAt,
    };
  };

  const reservationJson = (r: ReservationRecord) => ({
    reservationId: r.id, symbol: r.tick, side: r.side, address: r.address, status: r.status,
    depositAddress: store.custodyAddress, depositAmount: (r.amountIn + r.payoutCost).toString(), payoutCost: r.payoutCost.toString(), depositAsset: r.side === "BUY" ? "DOGE" : r.tick,
    reservedAmount: r.reservedOut.toString(), reservedAsset: r.side === "BUY" ? r.tick : "DOGE", fee: r.feeKoinu.toString(), feeAsset: "DOGE",
    expiresAt: r.expiresAt, depositTxid: r.depositTxid, pendingTxid: r.pendingTxid, depositReceived: r.depositAmount?.toString() ?? null, amountOut: r.amountOut?.toString() ?? null,
    payout: payoutJson(r.payoutId ? ledger.payout(r.payoutId) : null), refund: payoutJson(r.refundPayoutId ? ledger.payout(r.refundPayoutId) : null),
    error: r.error, createdAt: r.createdAt, updatedAt: r.updatedAt,
  });

  router.get("/bonding/active", route((_req, res) => {
    res.json({ curves: store.curves("active").map(curveJson) });
  }));

  router.post("/bonding/launch", route(async (req, res) => {
    const apiKeyId = store.authenticate(req.header("authorization"));
    const body = v.exactObject(req.body, ["symbol", "totalSupply", "sellableSupply", "virtualDoge", "graduationThreshold"]);
    const curve = await store.launch({
      tick: v.tick(body.symbol, "symbol"), totalSupply: parseAmount(body.totalSupply, "totalSupply"), sellableSupply: parseAmount(body.sellableSupply, "sellableSupply"),
      virtualDoge: parseAmount(body.virtualDoge, "virtualDoge"), graduationThreshold: parseAmount(body.graduationThreshold, "graduationThreshold"),
    }, apiKeyId);
    log("bonding_launch", { tick: curve.tick, key: apiKeyId });
    res.status(202).setHeader("Location", `/api/bonding/${encodeURIComponent(curve.tick)}`);
    res.json(curveJson(curve));
  }));

  router.post("/bonding/quote", route((req, res) => {
    const body = v.exactObject(req.body, ["symbol", "side", "amountIn", "amountOut"]);
    const hasIn = body.amountIn !== undefined;
    if (hasIn === (body.amountOut !== undefined)) throw badRequest("AMOUNT_REQUIRED", "give exactly one of amountIn (exact in) or amountOut (exact out)", { field: "amountIn" });
    const q = store.quote({
      tick: v.tick(body.symbol, "symbol"), side: side(body.side),
      ...(hasIn ? { amountIn: parseAmount(body.amountIn, "amountIn") } : { amountOut: parseAmount(body.amountOut, "amountOut") }),
    });
    const curve = store.curveOr404(q.tick);
    res.json({
      symbol: q.tick, side: q.side, amountIn: q.amountIn.toString(), amountInAsset: q.side === "BUY" ? "DOGE" : q.tick,
      amountOut: q.amountOut.toString(), amountOutAsset: q.side === "BUY" ? q.tick : "DOGE", fee: q.feeKoinu.toString(), feeAsset: "DOGE",
      refund: q.refundKoinu.toString(), ...quoteCosts(q, ledger.payoutCosts),
      ...BondingStore.progress(curve.state),
    });
  }));

  router.post("/bonding/confirm", route((req, res) => {
    const body = v.exactObject(req.body, ["reservationId", "depositTxid", "signature"]);
    const { reservation, outcome, graduated } = store.confirm(reservationId(body.reservationId), v.txid(body.depositTxid, "depositTxid"), signatureField(body.signature));
    if (outcome === "confirmed") log("bonding_confirm", { reservation: reservation.id, tick: reservation.tick, graduated });
    // 202: the payment is not in an indexed block yet; the bonding pass confirms it once it is.
    res.status(outcome === "pending" ? 202 : 200).json({ ...reservationJson(reservation), graduated, curve: curveJson(store.curveOr404(reservation.tick)) });
  }));

  router.get("/bonding/reservations/:id", route((req, res) => {
    const reservation = store.reservation(reservationId(req.params.id, "id"));
    if (!reservation) throw notFound("RESERVATION_NOT_FOUND", `no reservation ${req.params.id}`, { reservation_id: req.params.id });
    res.json(reservationJson(reservation));
  }));

  router.get("/bonding/:symbol", route((req, res) => {
    res.json(curveJson(store.curveOr404(v.tick(req.params.symbol, "symbol"))));
  }));

  router.post("/bonding/:symbol/reserve", route((req, res) => {
    const body = v.exactObject(req.body, ["side", "address", "amountIn", "minAmountOut", "nonce", "expiresAt", "signature"]);
    const address = v.address(body.address, network);
    const reservation = store.reserve({
      tick: v.tick(req.params.symbol, "symbol"), side: side(body.side), address, amountIn: parseAmount(body.amountIn, "amountIn"),
      ...(body.minAmountOut !== undefined ? { minAmountOut: parseAmount(body.minAmountOut, "minAmountOut") } : {}),
      auth: { address, nonce: nonce(body.nonce), expiresAt: unixSeconds(body.expiresAt, "expiresAt"), signature: signatureField(body.signature) },
    });
    log("bonding_reserved", { reservation: reservation.id, tick: reservation.tick, side: reservation.side });
    res.status(201).setHeader("Location", `/api/bonding/reservations/${reservation.id}`);
    res.json(reservationJson(reservation));
  }));

  /** The texts bonding reservations and confirms sign (the AMM's own actions are answered before this route). */
  router.get("/auth/message", route((req, res) => {
    const q = req.query as Record<string, unknown>;
    if (q.action === "bonding-reserve") {
      const curve = store.curveOr404(v.tick(q.symbol, "symbol"));
      const fields = reserveFields({
        tick: curve.tick, side: side(q.side), amountIn: parseAmount(q.amountIn, "amountIn"),
        ...(q.minAmountOut !== undefined ? { minAmountOut: parseAmount(q.minAmountOut, "minAmountOut") } : {}),
      });
      const auth = { address: v.address(q.address, network), nonce: nonce(q.nonce), expiresAt: unixSeconds(q.expiresAt, "expiresAt") };
      res.json({ message: authorizationMessage(ledger.domain, "bonding-reserve", fields, auth) });
    } else if (q.action === "bonding-confirm") {
      res.json({ message: store.confirmMessage(reservationId(q.reservationId), v.txid(q.depositTxid, "depositTxid")) });
    } else {
      throw badRequest("INVALID_ACTION", "action must be one of claim-fees, remove-liquidity, execute-swap, add-liquidity, bonding-reserve, bonding-confirm", { field: "action" });
    }
  }));

  return router;
}

/** Mounts the bonding routes under /api of `app` (e.g. in createAmmApp's `mount` option, before its 404 handler). */
export function mountBonding(app: express.Express | express.Router, options: BondingRouterOptions): void {
  (app as express.Router).use("/api", createBondingRouter(options));
}
