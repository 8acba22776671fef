/**
 * The attest HTTP API (base /api/attest): base-chain facts signed by two of the three attesters, in
 * the form DogeAttestation takes them, free for anyone to read and to submit. Also the OP_RETURN and
 * OP_CHECKZKP data of a transaction from the index (parsed data, not signed facts). Bodies and errors
 * are in docs/api.md. Every route is declared with its schemas (./schemas.ts): they validate the
 * requests and make the OpenAPI document served at GET /openapi.json (reference page GET /docs).
 */
import express from "express";
import { DogeNetwork } from "../../doge";
import type { FactTypeName } from "../../facts";
import type { FactParamsJson } from "../../attester/wire";
import type { IndexQueries } from "../../indexer/queries";
import { IndexHistory } from "../../indexer/read/as-of-height";
import { ZERO_KEY, addressKey } from "../../facts";
import { opReturnRecord, zkpRecord } from "../explorer/records";
import { AppError, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import { ApiSurface } from "../http/openapi";
import { rateLimited } from "../http/rate-limit";
import type { AttesterPanel } from "./panel";
import {
  AttestIndex,
  AttestedFact,
  FulfilAnswer,
  OpReturnAnswer,
  OwnerFact,
  TxidQuery,
  ZkpAnswer,
  factQueries,
  fulfilBody,
} from "./schemas";
import { serveAbiIndex } from "../http/abi-index-route";

type FactPath = keyof ReturnType<typeof factQueries>;

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
  /** Mounts more routes (the ops routes) on the app, declared in its surface. */
  mount?: (app: express.Express, surface: ApiSurface) => void;
  /** POST /fulfill calls allowed per client IP and minute (default ATTEST_WRITES_PER_MINUTE; 0 = no limit). */
  rateLimitPerMinute?: number;
}

/** The attest API's default public write limit per client IP and minute (`--rate-limit`). */
export const ATTEST_WRITES_PER_MINUTE = 60;

/** The fact endpoints, their query parameters and the attesters' `params` they map to. */
const FACT_ENDPOINTS: { path: FactPath; type: FactTypeName; read: (q: Record<string, string>) => FactParamsJson }[] = [
  { path: "doge-balance", type: "DOGE_BALANCE", read: (q) => ({ address: q.address }) },
  { path: "drc20-balance", type: "DRC20_BALANCE", read: (q) => ({ address: q.address, tick: q.tick }) },
  { path: "collection-count", type: "COLLECTION_COUNT", read: (q) => ({ address: q.address, slug: q.collection }) },
  { path: "inscription-owner", type: "INSCRIPTION_OWNER", read: (q) => ({ inscription_id: q.id }) },
  { path: "inscription-valid", type: "INSCRIPTION_VALID", read: (q) => ({ inscription_id: q.id }) },
  { path: "inscription-action", type: "INSCRIPTION_ACTION", read: (q) => ({ inscription_id: q.id }) },
  { path: "drc20-transfer-valid", type: "DRC20_TRANSFER_VALID", read: (q) => ({ txid: q.txid }) },
  { path: "tx-included", type: "TX_INCLUDED", read: (q) => ({ txid: q.txid }) },
  { path: "l1-tip", type: "L1_TIP", read: () => ({}) },
];

const FACT_SUMMARIES: Record<FactTypeName, string> = {
  DOGE_BALANCE: "DOGE_BALANCE: the address's koinu at l1Height",
  DRC20_BALANCE:
    "DRC20_BALANCE: the address's available plus transferable amount of the tick (compared case-insensitively)",
  COLLECTION_COUNT: "COLLECTION_COUNT: the member tokens of the launchpad collection the address holds",
  INSCRIPTION_OWNER:
    "INSCRIPTION_OWNER: the owner's addressKey in data, and the owner's address beside the signed fact",
  INSCRIPTION_VALID: "INSCRIPTION_VALID: value 1 or 0, the envelope hash in data",
  INSCRIPTION_ACTION: "INSCRIPTION_ACTION: value 1 and the actionKey, or 0",
  DRC20_TRANSFER_VALID: "DRC20_TRANSFER_VALID: the amount made transferable, the tickKey in data",
  TX_INCLUDED: "TX_INCLUDED: the inclusion height in value, the block hash in data (0 when not included by l1Height)",
  L1_TIP: "L1_TIP: the height and its block hash",
};

export function createAttestApp(options: AttestAppOptions): express.Express {
  const { panel, queries, network } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  const surface = new ApiSurface({
    title: "DogeOS attest API",
    description:
      "Base-chain facts signed by two of the three attesters, in exactly the form DogeAttestation takes (submitFact(fact, signatures)); " +
      "the OP_RETURN and OP_CHECKZKP data of a transaction from the index (unsigned); and the fulfilment of paid fact requests. Free; no authentication. " +
      "Every fact endpoint may also answer 503 ATTESTERS_UNAVAILABLE (Retry-After: 5), 503 NOTHING_SIGNABLE, 502 ATTESTERS_DISAGREE, 502 BAD_ATTESTER_SIGNATURE, " +
      'or a refusal two attesters gave alike (docs/api.md, "Attest").',
  });
  // Checked before the body is parsed: a refused request costs nothing more.
  app.post(
    "/api/attest/fulfill",
    rateLimited({ name: "attest fulfill", limit: options.rateLimitPerMinute ?? ATTEST_WRITES_PER_MINUTE }),
  );
  app.use(express.json({ limit: "16kb" }));
  const api = express.Router();
  const routes = surface.on(api, "/api/attest");
  const history = new IndexHistory(queries.db);
  const factQuery = factQueries(network);

  /**
   * The owner's address of a signed INSCRIPTION_OWNER fact, read from this API's index at the fact's
   * height and answered only when its addressKey is the signed `data` (null when nobody owns it).
   */
  const ownerAddressOf = (inscriptionId: string, fact: { data: string; l1Height: string }): string | null => {
    if (fact.data === ZERO_KEY) return null;
    const height = Number(fact.l1Height);
    const owner = history.inscriptionPlaceAt(inscriptionId, height)?.ownerAddress ?? null;
    if (owner === null || addressKey(owner) !== fact.data) {
      throw new AppError(
        "unavailable",
        "OWNER_ADDRESS_UNAVAILABLE",
        `this API's index cannot name the owner the attesters signed for ${inscriptionId} at height ${height}`,
        {
          inscription_id: inscriptionId,
          l1_height: height,
          indexed_height: queries.status().indexedHeight,
        },
      );
    }
    return owner;
  };

  routes.get(
    "/",
    {
      summary: "The attesters, the confirmation depth and the fact endpoints",
      tags: ["facts"],
      responses: { 200: AttestIndex },
    },
    async (_input, _req, res) => {
      const infos = await panel.infos();
      res.setHeader("Cache-Control", "no-store");
      res.json({
        // By number and signing address: the attesters' URLs are internal (docs/security.md).
        attesters: infos.map((answer) =>
          answer.ok && answer.body && "signer" in answer.body
            ? {
                index: answer.index,
                address: answer.body.signer,
                up: true,
                signable_height: answer.body.signable_height,
                indexed_height: answer.body.indexed_height,
              }
            : {
                index: answer.index,
                address: null,
                up: false,
                error: (answer.body as { error?: unknown } | null)?.error ?? null,
              },
        ),
        min_signatures: 2,
        confirmation_depth: options.minConfirmations,
        facts: FACT_ENDPOINTS.map((endpoint) => ({
          type: endpoint.type,
          path: `/api/attest/${endpoint.path}`,
          query: Object.keys(factQuery[endpoint.path].shape),
        })),
        fulfill: options.fulfil ? "/api/attest/fulfill" : null,
      });
    },
  );

  for (const endpoint of FACT_ENDPOINTS) {
    const owner = endpoint.type === "INSCRIPTION_OWNER";
    routes.get(
      `/${endpoint.path}`,
      {
        summary: FACT_SUMMARIES[endpoint.type],
        tags: ["facts"],
        query: factQuery[endpoint.path],
        responses: { 200: owner ? OwnerFact : AttestedFact },
      },
      async ({ query }, _req, res) => {
        const params = endpoint.read(query as Record<string, string>);
        res.setHeader("Cache-Control", "no-store");
        const answer = await panel.fact(endpoint.type, params);
        // The signed fact carries keccak256(owner) only: the address itself goes beside it.
        if (owner) res.json({ ...answer, owner_address: ownerAddressOf(params.inscription_id!, answer.fact) });
        else res.json(answer);
      },
    );
  }

  routes.get(
    "/op-return",
    {
      summary: "A transaction's OP_RETURN outputs from the index (not a signed fact)",
      tags: ["index data"],
      query: TxidQuery,
      responses: { 200: OpReturnAnswer },
    },
    ({ query }, _req, res) => {
      const tx = queries.tx(query.txid);
      if (!tx) throw notFound("TX_NOT_FOUND", `transaction ${query.txid} is not in the index`, { txid: query.txid });
      const tip = queries.status().indexedHeight;
      res.json({
        txid: query.txid,
        block_height: tx.height,
        confirmations: tip - tx.height + 1,
        signed: false,
        items: tx.opReturns.map((o) => opReturnRecord({ ...o, txid: tx.txid, height: tx.height }, tip)),
      });
    },
  );

  routes.get(
    "/zkp",
    {
      summary: "A transaction's OP_CHECKZKP uses from the index (shadow mode, not a signed fact)",
      tags: ["index data"],
      query: TxidQuery,
      responses: { 200: ZkpAnswer },
    },
    ({ query }, _req, res) => {
      const tx = queries.tx(query.txid);
      if (!tx) throw notFound("TX_NOT_FOUND", `transaction ${query.txid} is not in the index`, { txid: query.txid });
      const tip = queries.status().indexedHeight;
      res.json({
        txid: query.txid,
        block_height: tx.height,
        confirmations: tip - tx.height + 1,
        signed: false,
        verified_by_consensus: false,
        status:
          "shadow (not consensus-enforced): OP_CHECKZKP is OP_NOP10 today; shadow_valid is our off-chain pairing check",
        items: tx.zkpUses.map((use) => zkpRecord(use, tip)),
      });
    },
  );

  routes.post(
    "/fulfill",
    {
      summary: "Fulfils a paid fact request (requestFact) with the inputs its keys were made from",
      description:
        "The relayer checks the inputs against the request's keys (422 INPUTS_DO_NOT_MATCH_REQUEST, 400 MISSING_INPUT), gathers two signatures and calls fulfill; " +
        "404 REQUEST_NOT_FOUND, 409 ALREADY_FULFILLED or REQUEST_REFUNDED, 410 REQUEST_EXPIRED, 502 FULFIL_FAILED, 503 FULFIL_UNAVAILABLE without a relayer key; " +
        "429 RATE_LIMITED past the calls allowed per client IP and minute.",
      tags: ["paid requests"],
      body: fulfilBody(network),
      responses: { 200: FulfilAnswer },
    },
    async ({ body }, _req, res) => {
      const params: FactParamsJson = {};
      if (body.address !== undefined) params.address = body.address;
      if (body.tick !== undefined) params.tick = body.tick;
      if (body.collection !== undefined) params.slug = body.collection;
      if (body.id !== undefined) params.inscription_id = body.id;
      if (body.txid !== undefined) params.txid = body.txid;
      if (!options.fulfil)
        throw new AppError("unavailable", "FULFIL_UNAVAILABLE", "this attest API runs without a relayer");
      res.json(await options.fulfil({ requestId: body.requestId, params }));
    },
  );

  app.use("/api/attest", api);
  options.mount?.(app, surface);
  surface.serve(app);
  serveAbiIndex(app, surface);
  app.use(unknownRoute);
  app.use(errorMiddleware(options.log ?? (() => undefined)));
  return app;
}
