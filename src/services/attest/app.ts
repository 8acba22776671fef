/**
 * The attest HTTP API (base /api/attest): base-chain facts signed by two of the three attesters, in
 * the form DogeAttestation takes them, free for anyone to read and to submit. Also the OP_RETURN and
 * OP_CHECKZKP data of a transaction from the index (parsed data, not signed facts). Bodies and errors
 * are in docs/api.md.
 */
import express, { Request } from "express";
import { route } from "../http/app";
import { DogeNetwork } from "../../doge";
import type { FactTypeName } from "../../facts";
import type { FactParamsJson } from "../../attester/wire";
import type { IndexQueries } from "../../indexer/queries";
import { IndexHistory } from "../../indexer/history";
import { ZERO_KEY, addressKey } from "../../facts";
import { opReturnRecord, zkpRecord } from "../explorer/records";
import { LAUNCHPAD_SLUG_PATTERN } from "../../inscription";
import { AppError, badRequest, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import { rateLimited } from "../http/rate-limit";
import * as v from "../http/validation";
import type { AttesterPanel } from "./panel";

export interface FulfilInputs {
  requestId: string;
  params: FactParamsJson;
}

export interface AttestAppOptions {
  panel: AttesterPanel;
  queries: IndexQueries;
  network: DogeNetwork;
  /** Confirmations a fact counts from (the attesters' floor). */
  minConfirmations: number;
  /** Fulfils a paid request with the posted inputs (the relayer); absent: POST /fulfill answers 503. */
  fulfil?: (inputs: FulfilInputs) => Promise<Record<string, unknown>>;
  log?: (event: string, fields: Record<string, unknown>) => void;
  mount?: (app: express.Express) => void;
  /** POST /fulfill calls allowed per client IP and minute (default ATTEST_WRITES_PER_MINUTE; 0 = no limit). */
  rateLimitPerMinute?: number;
}

/** The attest API's default public write limit per client IP and minute (`--rate-limit`). */
export const ATTEST_WRITES_PER_MINUTE = 60;

/** The query parameters of each fact endpoint, and the attesters' `params` they map to. */
const FACT_ENDPOINTS: { path: string; type: FactTypeName; read: (q: Record<string, unknown>, network: DogeNetwork) => FactParamsJson }[] = [
  { path: "doge-balance", type: "DOGE_BALANCE", read: (q, n) => ({ address: v.address(q.address, n) }) },
  { path: "drc20-balance", type: "DRC20_BALANCE", read: (q, n) => ({ address: v.address(q.address, n), tick: v.tick(q.tick) }) },
  { path: "collection-count", type: "COLLECTION_COUNT", read: (q, n) => ({ address: v.address(q.address, n), slug: slug(q.collection) }) },
  { path: "inscription-owner", type: "INSCRIPTION_OWNER", read: (q) => ({ inscription_id: v.inscriptionId(q.id, "id") }) },
  { path: "inscription-valid", type: "INSCRIPTION_VALID", read: (q) => ({ inscription_id: v.inscriptionId(q.id, "id") }) },
  { path: "inscription-action", type: "INSCRIPTION_ACTION", read: (q) => ({ inscription_id: v.inscriptionId(q.id, "id") }) },
  { path: "drc20-transfer-valid", type: "DRC20_TRANSFER_VALID", read: (q) => ({ txid: v.txid(q.txid) }) },
  { path: "tx-included", type: "TX_INCLUDED", read: (q) => ({ txid: v.txid(q.txid) }) },
  { path: "l1-tip", type: "L1_TIP", read: () => ({}) },
];

function slug(value: unknown): string {
  if (typeof value !== "string" || !LAUNCHPAD_SLUG_PATTERN.test(value)) throw badRequest("INVALID_COLLECTION", "collection must be a collection slug (a-z, 0-9 and -)", { field: "collection" });
  return value;
}

function exactQuery(req: Request, allowed: readonly string[]): Record<string, unknown> {
  const unknown = Object.keys(req.query).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw badRequest("UNKNOWN_FIELDS", `unknown query parameters: ${unknown.join(", ")}`, { unknown });
  return req.query as Record<string, unknown>;
}

const QUERY_FIELDS: Record<string, string[]> = {
  "doge-balance": ["address"], "drc20-balance": ["address", "tick"], "collection-count": ["address", "collection"],
  "inscription-owner": ["id"], "inscription-valid": ["id"], "inscription-action": ["id"], "drc20-transfer-valid": ["txid"], "tx-included": ["txid"], "l1-tip": [],
};

export function createAttestApp(options: AttestAppOptions): express.Express {
  const { panel, queries, network } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  // Checked before the body is parsed: a refused request costs nothing more.
  app.post("/api/attest/fulfill", rateLimited({ name: "attest fulfill", limit: options.rateLimitPerMinute ?? ATTEST_WRITES_PER_MINUTE }));
  app.use(express.json({ limit: "16kb" }));
  const api = express.Router();
  const history = new IndexHistory(queries.db);

  /**
   * The owner's address of a signed INSCRIPTION_OWNER fact, read from this API's index at the fact's
   * height and answered only when its addressKey is the signed `data` (null when nobody owns it).
   */
  const ownerAddressOf = (inscriptionId: string, fact: { data: string; l1Height: string }): string | null => {
    if (fact.data === ZERO_KEY) return null;
    const height = Number(fact.l1Height);
    const owner = history.inscriptionPlaceAt(inscriptionId, height)?.ownerAddress ?? null;
    if (owner === null || addressKey(owner) !== fact.data) {
      throw new AppError(503, "OWNER_ADDRESS_UNAVAILABLE", `this API's index cannot name the owner the attesters signed for ${inscriptionId} at height ${height}`, {
        inscription_id: inscriptionId, l1_height: height, indexed_height: queries.status().indexedHeight,
      });
    }
    return owner;
  };

  api.get("/", route(async (_req, res) => {
    const infos = await panel.infos();
    res.setHeader("Cache-Control", "no-store");
    res.json({
      // By number and signing address: the attesters' URLs are internal (docs/security.md).
      attesters: infos.map((answer) => answer.ok && answer.body && "signer" in answer.body
        ? { index: answer.index, address: answer.body.signer, up: true, signable_height: answer.body.signable_height, indexed_height: answer.body.indexed_height }
        : { index: answer.index, address: null, up: false, error: (answer.body as { error?: unknown } | null)?.error ?? null }),
      min_signatures: 2,
      confirmation_depth: options.minConfirmations,
      facts: FACT_ENDPOINTS.map((endpoint) => ({ type: endpoint.type, path: `/api/attest/${endpoint.path}`, query: QUERY_FIELDS[endpoint.path] })),
      fulfill: options.fulfil ? "/api/attest/fulfill" : null,
    });
  }));

  for (const endpoint of FACT_ENDPOINTS) {
    api.get(`/${endpoint.path}`, route(async (req, res) => {
      const params = endpoint.read(exactQuery(req, QUERY_FIELDS[endpoint.path]), network);
      res.setHeader("Cache-Control", "no-store");
      const answer = await panel.fact(endpoint.type, params);
      // The signed fact carries keccak256(owner) only: the address itself goes beside it.
      if (endpoint.type === "INSCRIPTION_OWNER") res.json({ ...answer, owner_address: ownerAddressOf(params.inscription_id!, answer.fact) });
      else res.json(answer);
    }));
  }

  api.get("/op-return", route((req, res) => {
    const txid = v.txid(exactQuery(req, ["txid"]).txid);
    const tx = queries.tx(txid);
    if (!tx) throw notFound("TX_NOT_FOUND", `transaction ${txid} is not in the index`, { txid });
    const tip = queries.status().indexedHeight;
    res.json({
      txid, block_height: tx.height, confirmations: tip - tx.height + 1, signed: false,
      items: tx.opReturns.map((o) => opReturnRecord({ ...o, txid: tx.txid, height: tx.height }, tip)),
    });
  }));

  api.get("/zkp", route((req, res) => {
    const txid = v.txid(exactQuery(req, ["txid"]).txid);
    const tx = queries.tx(txid);
    if (!tx) throw notFound("TX_NOT_FOUND", `transaction ${txid} is not in the index`, { txid });
    const tip = queries.status().indexedHeight;
    res.json({
      txid, block_height: tx.height, confirmations: tip - tx.height + 1, signed: false, verified_by_consensus: false,
      status: "shadow (not consensus-enforced): OP_CHECKZKP is OP_NOP10 today; shadow_valid is our off-chain pairing check",
      items: tx.zkpUses.map((use) => zkpRecord(use, tip)),
    });
  }));

  api.post("/fulfill", route(async (req, res) => {
    const body = v.exactObject(req.body, ["requestId", "address", "tick", "collection", "id", "txid"]);
    if (typeof body.requestId !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(body.requestId)) throw badRequest("INVALID_REQUEST_ID", "requestId must be the 0x-prefixed 32-byte id requestFact returned", { field: "requestId" });
    const params: FactParamsJson = {};
    if (body.address !== undefined) params.address = v.address(body.address, network);
    if (body.tick !== undefined) params.tick = v.tick(body.tick);
    if (body.collection !== undefined) params.slug = slug(body.collection);
    if (body.id !== undefined) params.inscription_id = v.inscriptionId(body.id, "id");
    if (body.txid !== undefined) params.txid = v.txid(body.txid);
    if (!options.fulfil) throw new AppError(503, "FULFIL_UNAVAILABLE", "this attest API runs without a relayer");
    res.json(await options.fulfil({ requestId: body.requestId.toLowerCase(), params }));
  }));

  app.use("/api/attest", api);
  options.mount?.(app);
  app.use(unknownRoute);
  app.use(errorMiddleware(options.log ?? (() => undefined)));
  return app;
}


