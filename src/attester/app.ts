/**
 * The attester's internal signing API (JSON over HTTP on its own port; docs/architecture.md,
 * "Attesters"): GET /v1/info, POST /v1/fact, POST /v1/receipt, plus GET /health and GET /metrics.
 * Every signing request passes, in order: the body's validation (400), the attestedAt window
 * (422), the height against the index (409 / 422), the L2 checks (503: domain, membership, set id)
 * and the computation on the index (404 / 422); only then is anything signed. The routes are
 * declared with their schemas (./schemas.ts), which validate the bodies and make the OpenAPI
 * document served at GET /openapi.json (reference page GET /docs).
 */
import express from "express";
import type { ErrorRequestHandler, Express } from "express";
import { Counter, Registry } from "prom-client";
import { getAddress } from "ethers";
import type { Wallet } from "ethers";
import type { DogeNetwork } from "../doge";
import {
  FactDomainMismatchError,
  MAX_ATTESTED_AT_SKEW_SECONDS,
  assertAttestationDomain,
  fastFactDigest,
  fastReceiptDigest,
  signDigest,
} from "../facts";
import type { AttestationDomain, FactTypeName } from "../facts";
import type { IndexHistory } from "../indexer/read/as-of-height";
import { Refusal, conflict, unprocessable } from "../errors";
import { errorMiddleware, unknownRoute } from "../services/http/errors";
import { ApiSurface } from "../services/http/openapi";
import { MIN_CONFIRMATIONS, checkAttestableHeight, checkFactParams, computeFact, signableHeight } from "./facts";
import type { AttesterL2, AttesterSet } from "./l2";
import { checkJobReceipt } from "./receipts";
import { JOB_STATUS } from "../l2/contracts";
import type { JobKind } from "./receipts";
import { domainToJson, factToJson, receiptToJson } from "./wire";
import type { AttesterInfoJson, SignedFactJson, SignedReceiptJson } from "./wire";
import { AttesterHealth, AttesterInfo, ReceiptRequest, SignedFact, SignedReceipt, factRequest } from "./schemas";
import { serveAbiIndex } from "../services/http/abi-index-route";

export interface AttesterAppOptions {
  /** Shown in /v1/info and /health (default "attester"). */
  name?: string;
  /** The attester's own index, read as of a height. */
  history: IndexHistory;
  l2: AttesterL2;
  /** The attester's key. */
  signer: Wallet;
  /** The domain from the configuration (chain id, attestation contract); eip712Domain() must equal it. */
  domain: AttestationDomain;
  /** Network of the Dogecoin addresses accepted in requests. */
  network: DogeNetwork;
  /** Confirmations required, at least (and by default) 6. */
  minConfirmations?: number;
  /** Unix seconds (default: the system clock). */
  clock?: () => number;
  /** How far attested_at may lie from the clock, either way (default MAX_ATTESTED_AT_SKEW_SECONDS, 15 minutes). */
  maxAttestedAtSkewSeconds?: number;
  /** Height of the attester's own node, or null when it cannot be asked. */
  nodeHeight?: () => Promise<number | null>;
  /** Metrics registry served at /metrics (default: a new one). */
  registry?: Registry;
  /**
   * How long a successful read of the contract's domain and attester set is reused (default 0:
   * read on every request). A change to either goes through the contract's timelock (an hour at
   * least), so a few seconds cost nothing and spare two L2 calls per signature.
   */
  l2CacheMs?: number;
  /** Structured log lines (signatures, refusals, internal errors). */
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export function createAttesterApp(options: AttesterAppOptions): Express {
  const minConfirmations = options.minConfirmations ?? MIN_CONFIRMATIONS;
  if (!Number.isInteger(minConfirmations) || minConfirmations < MIN_CONFIRMATIONS) {
    throw new RangeError(
      `minConfirmations must be an integer of at least ${MIN_CONFIRMATIONS}, got ${minConfirmations}`,
    );
  }
  const name = options.name ?? "attester";
  const { history, l2, signer, domain, network } = options;
  const signerAddress = getAddress(signer.address);
  // Signed over libsecp256k1 with the digest computed directly (src/facts/digest.ts: the same
  // bytes as ethers' signTypedData, several times faster).
  const privateKey = Uint8Array.from(Buffer.from(signer.privateKey.slice(2), "hex"));
  const clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
  const skew = BigInt(options.maxAttestedAtSkewSeconds ?? Number(MAX_ATTESTED_AT_SKEW_SECONDS));
  const log = options.log ?? (() => undefined);
  const registry = options.registry ?? new Registry();
  const signatures = new Counter({
    name: "attester_signatures_total",
    help: "Facts and receipts signed",
    labelNames: ["kind", "type"],
    registers: [registry],
  });
  const refusals = new Counter({
    name: "attester_refusals_total",
    help: "Signing requests refused, by error code",
    labelNames: ["code"],
    registers: [registry],
  });

  /** `attested_at` (its schema checked the integer) within the allowed skew of the clock, or 422. */
  const checkAttestedAt = (attestedAt: bigint): bigint => {
    const now = BigInt(clock());
    const distance = attestedAt > now ? attestedAt - now : now - attestedAt;
    if (distance > skew) {
      throw unprocessable(
        "ATTESTED_AT_OUT_OF_WINDOW",
        `attested_at must be within ${skew} seconds of the attester's clock`,
        {
          attested_at: attestedAt.toString(),
          now: now.toString(),
          max_skew_seconds: Number(skew),
        },
      );
    }
    return attestedAt;
  };

  let l2Checked: { at: number; set: AttesterSet } | null = null;

  /** The L2 checks: the contract's domain is the configured one, this key is in its current set, and the request names that set. */
  const checkL2 = async (requestedSetId: bigint): Promise<AttesterSet> => {
    const cacheMs = options.l2CacheMs ?? 0;
    if (cacheMs > 0 && l2Checked && Date.now() - l2Checked.at < cacheMs) return checkSet(l2Checked.set, requestedSetId);
    let actual: AttestationDomain;
    try {
      actual = await l2.eip712Domain();
    } catch (error) {
      throw new Refusal("unavailable", "DOMAIN_MISMATCH", "the attestation contract's EIP-712 domain cannot be read", {
        reason: (error as Error).message,
        expected: domainToJson(domain),
      });
    }
    try {
      assertAttestationDomain(actual, domain);
    } catch (error) {
      if (!(error instanceof FactDomainMismatchError)) throw error;
      throw new Refusal("unavailable", "DOMAIN_MISMATCH", error.message, {
        mismatches: error.mismatches,
        expected: domainToJson(domain),
      });
    }
    let set: AttesterSet;
    try {
      set = await l2.attesterSet();
    } catch (error) {
      throw new Refusal("unavailable", "L2_UNAVAILABLE", "the attester set cannot be read", {
        reason: (error as Error).message,
      });
    }
    if (cacheMs > 0) l2Checked = { at: Date.now(), set };
    return checkSet(set, requestedSetId);
  };

  const checkSet = (set: AttesterSet, requestedSetId: bigint): AttesterSet => {
    if (!set.attesters.includes(signerAddress)) {
      throw new Refusal("unavailable", "NOT_AN_ATTESTER", `${signerAddress} is not in the current attester set`, {
        signer: signerAddress,
        attesters: set.attesters,
        attester_set_id: set.attesterSetId.toString(),
      });
    }
    if (set.attesterSetId !== requestedSetId) {
      throw new Refusal(
        "unavailable",
        "WRONG_ATTESTER_SET",
        `the current attester set is ${set.attesterSetId}, not ${requestedSetId}`,
        {
          requested: requestedSetId.toString(),
          current: set.attesterSetId.toString(),
        },
      );
    }
    return set;
  };

  const app = express();
  app.disable("x-powered-by");
  app.use(express.json({ limit: "16kb" }));
  app.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  const surface = new ApiSurface({
    title: "DogeOS attester",
    description:
      'An attester\'s internal signing API (docs/architecture.md, "Attesters"): facts about the base chain and job receipts, ' +
      "computed from its own index and signed under DogeAttestation's EIP-712 domain. Every signing request passes, in order: the body's " +
      "validation (400), the attestedAt window (422), the height against the index (409, 422), the L2 checks (503) and the computation " +
      "on the index (404, 422); only then is anything signed. Not for the public: serve it on a private network.",
  });
  const routes = surface.on(app);

  routes.get(
    "/v1/info",
    {
      summary: "The signer, the domain, the current attester set and the heights it can sign at",
      tags: ["signing"],
      responses: { 200: AttesterInfo },
    },
    async (_input, _req, res) => {
      const tip = history.tip();
      const indexedHeight = tip ? tip.height : -1;
      let attesterSetId: string | null = null;
      try {
        attesterSetId = (await l2.attesterSet()).attesterSetId.toString();
      } catch {
        attesterSetId = null;
      }
      const body: AttesterInfoJson = {
        name,
        signer: signerAddress,
        domain: domainToJson(domain),
        attester_set_id: attesterSetId,
        indexed_height: indexedHeight,
        indexed_hash: tip ? tip.hash : null,
        node_height: await nodeHeightOrNull(options.nodeHeight),
        min_confirmations: minConfirmations,
        signable_height: signableHeight(indexedHeight, minConfirmations),
      };
      res.json(body);
    },
  );

  routes.post(
    "/v1/fact",
    {
      summary: "A fact about the base chain at l1_height, signed",
      description:
        "400 for a malformed body (UNKNOWN_FACT_TYPE, MISSING_PARAMS, INVALID_INTEGER, field codes); 422 ATTESTED_AT_OUT_OF_WINDOW beyond 15 minutes from the attester's clock; " +
        "409 INDEX_BEHIND, 422 NOT_DEEP_ENOUGH (l1_height must be 6 blocks deep in the index, the L1 tip 1), 503 INDEX_INCOMPLETE; " +
        "503 DOMAIN_MISMATCH, L2_UNAVAILABLE, NOT_AN_ATTESTER, WRONG_ATTESTER_SET; 404 INSCRIPTION_NOT_FOUND.",
      tags: ["signing"],
      body: factRequest(network),
      responses: { 200: SignedFact },
    },
    async ({ body }, _req, res) => {
      const type = body.type as FactTypeName;
      const params = checkFactParams(type, body.params);
      const l1Height = Number(body.l1_height);
      const attesterSetId = body.attester_set_id;
      const attestedAt = checkAttestedAt(body.attested_at);
      // Cheap refusals first: the index decides before the L2 is asked anything.
      history.snapshot(() => checkAttestableHeight(history, l1Height, minConfirmations, type));
      await checkL2(attesterSetId);
      const fact = computeFact(history, type, params, { l1Height, attestedAt, attesterSetId }, minConfirmations);
      const signature = signDigest(privateKey, fastFactDigest(domain, fact));
      signatures.inc({ kind: "fact", type });
      log("signed_fact", { type, l1_height: l1Height, attested_at: attestedAt.toString(), subject: fact.subject });
      const answer: SignedFactJson = { fact: factToJson(fact), signature, signer: signerAddress };
      res.json(answer);
    },
  );

  routes.post(
    "/v1/receipt",
    {
      summary: "A receipt that a base-chain transaction did an open L2 job, signed",
      description:
        'Refusals as for /v1/fact, and 409 JOB_NOT_OPEN; the transaction\'s checks against the job (docs/architecture.md, "Attesters").',
      tags: ["signing"],
      body: ReceiptRequest,
      responses: { 200: SignedReceipt },
    },
    async ({ body }, _req, res) => {
      const kind = body.kind as JobKind;
      const attesterSetId = body.attester_set_id;
      const attestedAt = checkAttestedAt(body.attested_at);
      await checkL2(attesterSetId);
      const job = await l2.job(kind, body.job_contract, body.job_id);
      if (job.status !== JOB_STATUS.Open)
        throw conflict("JOB_NOT_OPEN", `job ${job.jobId} is not open (status ${job.status})`, {
          job_id: job.jobId,
          status: job.status,
        });
      const receipt = checkJobReceipt(history, job, body.l1_txid, { attestedAt, attesterSetId }, minConfirmations);
      const signature = signDigest(privateKey, fastReceiptDigest(domain, receipt));
      signatures.inc({ kind: "receipt", type: kind });
      log("signed_receipt", { kind, job_id: job.jobId, l1_txid: body.l1_txid, l1_height: Number(receipt.l1Height) });
      const answer: SignedReceiptJson = { receipt: receiptToJson(receipt), signature, signer: signerAddress };
      res.json(answer);
    },
  );

  routes.get(
    "/health",
    {
      summary: "The attester's state: its index and the L2 checks (503 when not ok)",
      tags: ["operations"],
      responses: { 200: AttesterHealth, 503: AttesterHealth },
    },
    async (_input, _req, res) => {
      const tip = history.tip();
      const indexedHeight = tip ? tip.height : -1;
      const nodeHeight = await nodeHeightOrNull(options.nodeHeight);
      let l2Status: Record<string, unknown>;
      let l2Ok = false;
      try {
        assertAttestationDomain(await l2.eip712Domain(), domain);
        const set = await l2.attesterSet();
        l2Ok = set.attesters.includes(signerAddress);
        l2Status = { ok: l2Ok, attester_set_id: set.attesterSetId.toString(), is_attester: l2Ok };
      } catch (error) {
        l2Status = { ok: false, error: (error as Error).message };
      }
      const indexOk =
        history.startHeight() === 0 && (nodeHeight === null || indexedHeight >= nodeHeight - minConfirmations);
      const ok = l2Ok && indexOk;
      res.status(ok ? 200 : 503).json({
        ok,
        name,
        signer: signerAddress,
        indexed_height: indexedHeight,
        node_height: nodeHeight,
        signable_height: signableHeight(indexedHeight, minConfirmations),
        l2: l2Status,
      });
    },
  );

  routes.get(
    "/metrics",
    {
      summary: "Prometheus metrics (attester_signatures_total, attester_refusals_total, ...)",
      tags: ["operations"],
      responses: { 200: { description: "Prometheus text format", contentType: "text/plain" } },
    },
    async (_input, _req, res) => {
      res.setHeader("Content-Type", registry.contentType);
      res.send(await registry.metrics());
    },
  );

  surface.serve(app);
  serveAbiIndex(app, surface);
  app.use(unknownRoute);
  const countRefusals: ErrorRequestHandler = (error, req, _res, next) => {
    if (error instanceof Refusal) {
      refusals.inc({ code: error.code });
      log("refused", { path: req.path, code: error.code, details: error.details });
    }
    next(error);
  };
  app.use(countRefusals);
  app.use(errorMiddleware(log));
  return app;
}

async function nodeHeightOrNull(nodeHeight: (() => Promise<number | null>) | undefined): Promise<number | null> {
  if (!nodeHeight) return null;
  try {
    return await nodeHeight();
  } catch {
    return null;
  }
}
