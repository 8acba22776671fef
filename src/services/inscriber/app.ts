/**
 * The inscriber's HTTP surface (base `{inscriber_url}`): the standard, platform jobs for configured
 * projects, and the user-signed PSBT steps. Bodies and errors are in docs/api.md.
 */
import crypto from "node:crypto";
import express, { Request } from "express";
import { route } from "../http/app";
import { DogeNetwork } from "../../doge";
import { ACTION_REGISTRY, DOGINALS_CHUNK_BYTES, ENVELOPE_CHUNK_BYTES, ENVELOPE_PROTOCOL_ID, MAX_REDEEM_SCRIPT_BYTES } from "../../inscription";
import { AppError, badRequest, conflict, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import { clientIpKey, rateLimited } from "../http/rate-limit";
import * as v from "../http/validation";
import type { PlatformInscriber } from "./platform";
import { parseInscriptionInput, planningError } from "./request";
import type { JobRow, JobStore } from "./store";
import type { UserSignedInscriber } from "./user-signed";

/** The version of the envelope standard this inscriber writes (DESIGN.md 4.2). */
export const ENVELOPE_VERSION = 1;

/** SHA-256 (hex) of each configured project's key: keys themselves are never stored. */
export type ProjectKeys = ReadonlyMap<string, string>;

export interface InscriberAppOptions {
  network: DogeNetwork;
  projects: ProjectKeys;
  platform: PlatformInscriber;
  jobs: JobStore;
  userSigned: UserSignedInscriber;
  maxPayloadBytes: number;
  feeRateKoinuPerKb: bigint;
  postageKoinu: bigint;
  log?: (event: string, fields: Record<string, unknown>) => void;
  mount?: (app: express.Express) => void;
  /**
   * Requests allowed per client IP and minute on each of `POST /prepare` and the signing steps
   * (default INSCRIBER_WRITES_PER_MINUTE; 0 = no limit). `/inscribe` takes a project key instead.
   */
  rateLimitPerMinute?: number;
}

/** The inscriber's default public write limit per client IP and minute (`--rate-limit`). */
export const INSCRIBER_WRITES_PER_MINUTE = 60;

const PROJECT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;
const JOB_ID = /^job_[0-9a-f]{24}$/;
const PREPARE_ID = /^prep_[0-9a-f]{24}$/;

export function sha256Hex(text: string): string {
  return crypto.createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The project whose key `Authorization: Bearer <key>` carries, checked against every project's
 * stored hash before the body is read (authentication comes first: a stranger learns nothing of
 * the body's rules); 401 MISSING_CREDENTIALS or INVALID_PROJECT_KEY otherwise.
 */
export function projectOfKey(projects: ProjectKeys, authorization: string | undefined): string {
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(authorization ?? "");
  if (!match) throw new AppError(401, "MISSING_CREDENTIALS", "send the project's key as Authorization: Bearer <key>", undefined, { "WWW-Authenticate": "Bearer" });
  const given = Buffer.from(sha256Hex(match[1]), "hex");
  let found: string | null = null;
  // Every stored hash is compared (in constant time each), so the answer's timing says nothing of which matched.
  for (const [project, expected] of projects) if (crypto.timingSafeEqual(given, Buffer.from(expected, "hex")) && found === null) found = project;
  if (found === null) throw new AppError(401, "INVALID_PROJECT_KEY", "the key is no project's key on this inscriber", undefined, { "WWW-Authenticate": "Bearer" });
  return found;
}

/** The body's `project` must be the one whose key authenticated the request (400 INVALID_PROJECT, 401 UNKNOWN_PROJECT or INVALID_PROJECT_KEY). */
export function checkProject(projects: ProjectKeys, project: unknown, authenticated: string): string {
  if (typeof project !== "string" || !PROJECT_NAME.test(project)) throw badRequest("INVALID_PROJECT", "project must be a project name (lower-case letters, digits, - and _)", { field: "project" });
  if (!projects.has(project)) throw new AppError(401, "UNKNOWN_PROJECT", `project ${project} is not configured on this inscriber`, { project });
  if (project !== authenticated) throw new AppError(401, "INVALID_PROJECT_KEY", `the key is not project ${project}'s`, { project }, { "WWW-Authenticate": "Bearer" });
  return project;
}

export function jobView(job: JobRow) {
  return {
    id: job.id,
    project: job.project,
    status: job.status,
    form: job.form,
    content_type: job.contentType,
    action: job.action,
    content_size: job.body.length,
    recipient: job.recipient,
    envelope_hash: job.envelopeHash,
    commit_txid: job.commitTxid,
    reveal_txids: job.revealTxids,
    inscription_id: job.inscriptionId,
    fee_koinu: job.feeKoinu === null ? null : job.feeKoinu.toString(),
    confirmed_height: job.confirmedHeight,
    error: job.errorCode === null ? null : { code: job.errorCode, message: job.errorMessage },
    created_at: new Date(job.createdAt).toISOString(),
    updated_at: new Date(job.updatedAt).toISOString(),
  };
}

export function createInscriberApp(options: InscriberAppOptions): express.Express {
  const { network } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  // The public writes (no credentials) are limited before their bodies are parsed.
  const writesPerMinute = options.rateLimitPerMinute ?? INSCRIBER_WRITES_PER_MINUTE;
  app.post("/prepare", rateLimited({ name: "inscriber prepare", limit: writesPerMinute }));
  app.post(["/prepare/:id/commit", "/prepare/:id/reveal"], rateLimited({ name: "inscriber prepare steps", limit: writesPerMinute }));
  // Base64 of the largest payload plus the JSON around it.
  // POST /inscribe authenticates before its body is parsed or validated.
  app.post("/inscribe", (req, res, next) => {
    try {
      res.locals.project = projectOfKey(options.projects, req.get("authorization"));
      next();
    } catch (error) {
      next(error);
    }
  });
  app.use(express.json({ limit: Math.ceil(options.maxPayloadBytes * 4 / 3) + 16_384 }));

  app.get("/standard", (_req, res) => {
    res.json({
      envelope_version: ENVELOPE_VERSION,
      protocol_id: ENVELOPE_PROTOCOL_ID,
      forms: {
        v1: { chunk_bytes: ENVELOPE_CHUNK_BYTES, max_redeem_script_bytes: MAX_REDEEM_SCRIPT_BYTES, layout: "OP_FALSE OP_IF \"ord\" OP_1 <content-type> [<ACTION>] OP_0 <chunk>... OP_ENDIF <pubkey> OP_CHECKSIG" },
        doginals: { chunk_bytes: DOGINALS_CHUNK_BYTES, used_for: "DRC-20 plain text (text/plain bodies of {\"p\":\"drc-20\"} operations) and any content without an ACTION when asked for" },
      },
      actions: ACTION_REGISTRY.map((entry) => ({ name: entry.name, content_types: entry.contentTypes, meaning: entry.meaning, group: entry.group })),
      limits: { max_payload_bytes: options.maxPayloadBytes },
      fees: { fee_rate_koinu_per_kb: options.feeRateKoinuPerKb.toString(), postage_koinu: options.postageKoinu.toString() },
    });
  });

  app.post("/inscribe", route((req, res) => {
    const body = v.exactObject(req.body, ["project", "content_type", "action", "content", "encoding", "recipient", "form"]);
    const project = checkProject(options.projects, body.project, res.locals.project as string);
    const rawKey = req.get("idempotency-key");
    if (rawKey !== undefined && !IDEMPOTENCY_KEY.test(rawKey)) throw badRequest("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1 to 128 printable ASCII characters", { field: "Idempotency-Key" });
    const input = parseInscriptionInput(body, network, options.maxPayloadBytes);
    let result;
    try {
      result = options.platform.submit(project, input, rawKey ?? null);
    } catch (error) {
      throw planningError(error);
    }
    if (result.kind === "key_reused") {
      throw conflict("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was sent before with other content; use a new key for a new inscription", {
        field: "Idempotency-Key", job_id: result.job.id,
      });
    }
    res.status(result.kind === "created" ? 202 : 200).setHeader("Location", `/jobs/${result.job.id}`).json(jobView(result.job));
  }));

  app.get("/jobs/:id", route((req, res) => {
    const id = req.params.id as string;
    if (!JOB_ID.test(id)) throw badRequest("INVALID_JOB_ID", "a job id looks like job_<24 hex>", { field: "id" });
    const job = options.jobs.get(id);
    if (!job) throw notFound("JOB_NOT_FOUND", `no job ${id}`, { id });
    res.setHeader("Cache-Control", "no-store");
    res.json(jobView(job));
  }));

  app.post("/prepare", route(async (req, res) => {
    const body = v.exactObject(req.body, ["address", "public_key", "content_type", "action", "content", "encoding", "recipient", "form"]);
    const address = v.address(body.address, network, "address");
    if (typeof body.public_key !== "string") throw badRequest("INVALID_PUBLIC_KEY", "public_key must be the address's compressed public key in hex", { field: "public_key" });
    const input = parseInscriptionInput({ ...body, recipient: body.recipient ?? address }, network, options.maxPayloadBytes);
    let prepared;
    try {
      prepared = await options.userSigned.prepare(address, body.public_key, input, clientIpKey(req));
    } catch (error) {
      throw planningError(error);
    }
    res.status(201).setHeader("Location", `/prepare/${prepared.id}`).json(prepared);
  }));

  const prepareId = (req: Request) => {
    const id = req.params.id as string;
    if (!PREPARE_ID.test(id)) throw badRequest("INVALID_PREPARATION_ID", "a preparation id looks like prep_<24 hex>", { field: "id" });
    return id;
  };

  app.get("/prepare/:id", route((req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json(options.userSigned.get(prepareId(req)));
  }));

  app.post("/prepare/:id/commit", route((req, res) => {
    const body = v.exactObject(req.body, ["psbt"]);
    res.json(options.userSigned.submitCommit(prepareId(req), body.psbt));
  }));

  app.post("/prepare/:id/reveal", route((req, res) => {
    const body = v.exactObject(req.body, ["psbt"]);
    res.json(options.userSigned.submitReveal(prepareId(req), body.psbt));
  }));

  options.mount?.(app);
  app.use(unknownRoute);
  app.use(errorMiddleware(options.log ?? (() => undefined)));
  return app;
}
