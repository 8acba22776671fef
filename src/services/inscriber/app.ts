/**
 * The inscriber's HTTP surface (base `{inscriber_url}`): the standard, platform jobs for configured
 * projects, and the user-signed PSBT steps. Every route is declared with its schemas (./schemas.ts):
 * they validate the requests and make the OpenAPI document served at GET /openapi.json (reference
 * page GET /docs); docs/api.md keeps the rules a schema cannot say.
 */
import crypto from "node:crypto";
import express from "express";
import type { RequestHandler } from "express";
import { DogeNetwork } from "../../doge";
import {
  ACTION_REGISTRY,
  DOGINALS_CHUNK_BYTES,
  ENVELOPE_CHUNK_BYTES,
  ENVELOPE_PROTOCOL_ID,
  MAX_REDEEM_SCRIPT_BYTES,
} from "../../inscription";
import { AppError, badRequest, conflict, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import { ApiSurface, z } from "../http/openapi";
import { clientIpKey, rateLimited } from "../http/rate-limit";
import type { PlatformInscriber } from "./platform";
import { DEFAULT_LAUNCHPAD_PROJECT, InscriberAuthority, checkRecipient, checkReservedAction } from "./authority";
import { inscriptionInput, planningError } from "./request";
import {
  CommittedAnswer,
  Job,
  JobId,
  PreparationAnswer,
  PreparationId,
  PreparedAnswer,
  ProjectName,
  RevealedAnswer,
  SignedPsbtBody,
  Standard,
  inscribeBody,
  prepareBody,
} from "./schemas";
import type { JobRow, JobStore } from "./store";
import type { UserSignedInscriber } from "./user-signed";
import { serveAbiIndex } from "../http/abi-index-route";

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
  /** Mounts more routes (the ops routes) on the app, declared in its surface. */
  mount?: (app: express.Express, surface: ApiSurface) => void;
  /**
   * Requests allowed per client IP and minute on each of `POST /prepare` and the signing steps
   * (default INSCRIBER_WRITES_PER_MINUTE; 0 = no limit). `/inscribe` takes a project key instead.
   */
  rateLimitPerMinute?: number;
  /**
   * The only project that may inscribe an ACTION of the launchpad group (LAUNCHPAD_DEPLOY,
   * LAUNCHPAD_MINT); any other is 422 ACTION_RESERVED (default "launchpad", `--launchpad-project`).
   */
  launchpadProject?: string;
  /**
   * Service addresses and their owner project (`--protected-addresses`): an inscription to one
   * for another project, or in a user-signed preparation, is 422 RECIPIENT_PROTECTED. The hot
   * wallet's address is always protected; naming it here gives it an owner.
   */
  protectedAddresses?: ReadonlyMap<string, string>;
}

/** The inscriber's default public write limit per client IP and minute (`--rate-limit`). */
export const INSCRIBER_WRITES_PER_MINUTE = 60;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

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
  if (!match)
    throw new AppError(
      "unauthorized",
      "MISSING_CREDENTIALS",
      "send the project's key as Authorization: Bearer <key>",
      undefined,
      { challenge: "Bearer" },
    );
  const given = Buffer.from(sha256Hex(match[1]), "hex");
  let found: string | null = null;
  // Every stored hash is compared (in constant time each), so the answer's timing says nothing of which matched.
  for (const [project, expected] of projects)
    if (crypto.timingSafeEqual(given, Buffer.from(expected, "hex")) && found === null) found = project;
  if (found === null)
    throw new AppError(
      "unauthorized",
      "INVALID_PROJECT_KEY",
      "the key is no project's key on this inscriber",
      undefined,
      { challenge: "Bearer" },
    );
  return found;
}

/**
 * The body's `project` (a project name: its schema refuses anything else with 400 INVALID_PROJECT)
 * must be configured (401 UNKNOWN_PROJECT) and the one whose key authenticated the request (401
 * INVALID_PROJECT_KEY).
 */
export function checkProject(projects: ProjectKeys, project: string, authenticated: string): string {
  if (!projects.has(project))
    throw new AppError("unauthorized", "UNKNOWN_PROJECT", `project ${project} is not configured on this inscriber`, {
      project,
    });
  if (project !== authenticated)
    throw new AppError(
      "unauthorized",
      "INVALID_PROJECT_KEY",
      `the key is not project ${project}'s`,
      { project },
      { challenge: "Bearer" },
    );
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
  const authority: InscriberAuthority = {
    launchpadProject: options.launchpadProject ?? DEFAULT_LAUNCHPAD_PROJECT,
    protectedAddresses: options.protectedAddresses ?? new Map(),
    hotWalletAddress: options.platform.walletAddress ?? null,
  };
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  const surface = new ApiSurface({
    title: "DogeOS inscriber",
    description:
      "The v1 envelope standard, platform inscriptions paid and signed by the operator's hot wallet for configured projects, and user-signed PSBTs for anyone's wallet (docs/api.md, \"Inscriber\"). Every amount is a decimal string of koinu.",
    securitySchemes: {
      projectKey: {
        type: "http",
        scheme: "bearer",
        description: "a configured project's key (the inscriber stores only its SHA-256): POST /inscribe",
      },
    },
  });
  // The public writes (no credentials) are limited before their bodies are parsed.
  const writesPerMinute = options.rateLimitPerMinute ?? INSCRIBER_WRITES_PER_MINUTE;
  app.post("/prepare", rateLimited({ name: "inscriber prepare", limit: writesPerMinute }));
  app.post(
    ["/prepare/:id/commit", "/prepare/:id/reveal"],
    rateLimited({ name: "inscriber prepare steps", limit: writesPerMinute }),
  );
  // POST /inscribe authenticates before its body is parsed or validated (its route's schema runs after this).
  app.post("/inscribe", (req, res, next) => {
    try {
      res.locals.project = projectOfKey(options.projects, req.get("authorization"));
      next();
    } catch (error) {
      next(error);
    }
  });
  // Base64 of the largest payload plus the JSON around it.
  app.use(express.json({ limit: Math.ceil((options.maxPayloadBytes * 4) / 3) + 16_384 }));
  const routes = surface.on(app);
  // Then, before the body's schema: the project it names must be the key's (a malformed name is left to the schema).
  const projectOfKeyNamed: RequestHandler = (req, res, next) => {
    const project = (req.body as { project?: unknown } | undefined)?.project;
    try {
      if (ProjectName.safeParse(project).success)
        checkProject(options.projects, project as string, res.locals.project as string);
      next();
    } catch (error) {
      next(error);
    }
  };

  routes.get(
    "/standard",
    {
      summary: "The envelope standard: version, forms, the ACTION registry, the limits and the fees",
      tags: ["standard"],
      responses: { 200: Standard },
    },
    (_input, _req, res) => {
      res.json({
        envelope_version: ENVELOPE_VERSION,
        protocol_id: ENVELOPE_PROTOCOL_ID,
        forms: {
          v1: {
            chunk_bytes: ENVELOPE_CHUNK_BYTES,
            max_redeem_script_bytes: MAX_REDEEM_SCRIPT_BYTES,
            layout: 'OP_FALSE OP_IF "ord" OP_1 <content-type> [<ACTION>] OP_0 <chunk>... OP_ENDIF <pubkey> OP_CHECKSIG',
          },
          doginals: {
            chunk_bytes: DOGINALS_CHUNK_BYTES,
            used_for:
              'DRC-20 plain text (text/plain bodies of {"p":"drc-20"} operations) and any content without an ACTION when asked for',
          },
        },
        actions: ACTION_REGISTRY.map((entry) => ({
          name: entry.name,
          content_types: entry.contentTypes,
          meaning: entry.meaning,
          group: entry.group,
        })),
        limits: { max_payload_bytes: options.maxPayloadBytes },
        fees: {
          fee_rate_koinu_per_kb: options.feeRateKoinuPerKb.toString(),
          postage_koinu: options.postageKoinu.toString(),
        },
      });
    },
  );

  routes.post(
    "/inscribe",
    {
      summary: "A platform inscription for the authenticated project, paid and signed by the hot wallet",
      description:
        "Authenticated first (401 MISSING_CREDENTIALS or INVALID_PROJECT_KEY before the body is read); then `project` must be a configured project (401 UNKNOWN_PROJECT) " +
        "and the key's (401 INVALID_PROJECT_KEY), before the other fields are checked. " +
        "An optional `Idempotency-Key` header (1 to 128 printable ASCII characters) makes a retry answer the same job (200) instead of a second inscription; " +
        "the same key with other content is 409 IDEMPOTENCY_KEY_REUSED. " +
        "An ACTION of the launchpad group from any project but the launchpad's is 422 ACTION_RESERVED; a service address (another project's, or the hot wallet) as the recipient is 422 RECIPIENT_PROTECTED.",
      tags: ["platform"],
      security: "projectKey",
      before: [projectOfKeyNamed],
      body: inscribeBody(network),
      responses: {
        200: {
          description: "the job this Idempotency-Key made before, with the same content",
          schema: Job,
          headers: { Location: "/jobs/<id>" },
        },
        202: { description: "a new job", schema: Job, headers: { Location: "/jobs/<id>" } },
      },
    },
    ({ body }, req, res) => {
      const project = checkProject(options.projects, body.project, res.locals.project as string);
      const rawKey = req.get("idempotency-key");
      if (rawKey !== undefined && !IDEMPOTENCY_KEY.test(rawKey))
        throw badRequest("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 1 to 128 printable ASCII characters", {
          field: "Idempotency-Key",
        });
      const input = inscriptionInput(body, options.maxPayloadBytes);
      // The hot wallet's authority stays with the project it belongs to (./authority.ts).
      checkReservedAction(authority, project, input.content.action);
      checkRecipient(authority, project, input.recipient);
      let result;
      try {
        result = options.platform.submit(project, input, rawKey ?? null);
      } catch (error) {
        throw planningError(error);
      }
      if (result.kind === "key_reused") {
        throw conflict(
          "IDEMPOTENCY_KEY_REUSED",
          "this Idempotency-Key was sent before with other content; use a new key for a new inscription",
          {
            field: "Idempotency-Key",
            job_id: result.job.id,
          },
        );
      }
      res
        .status(result.kind === "created" ? 202 : 200)
        .setHeader("Location", `/jobs/${result.job.id}`)
        .json(jobView(result.job));
    },
  );

  routes.get(
    "/jobs/:id",
    { summary: "A platform job", tags: ["platform"], params: z.object({ id: JobId }), responses: { 200: Job } },
    ({ params }, _req, res) => {
      const job = options.jobs.get(params.id);
      if (!job) throw notFound("JOB_NOT_FOUND", `no job ${params.id}`, { id: params.id });
      res.setHeader("Cache-Control", "no-store");
      res.json(jobView(job));
    },
  );

  routes.post(
    "/prepare",
    {
      summary: "Plans a user-signed inscription and builds its commit PSBT from the address's confirmed outputs",
      description:
        "`address` is the user's P2PKH address (its confirmed outputs fund the commit; change returns to it) and `public_key` its key. " +
        "Limited per client IP and minute (429 RATE_LIMITED) and by the preparations a client holds unexpired (429 TOO_MANY_PREPARATIONS). " +
        "A service address as the recipient is 422 RECIPIENT_PROTECTED.",
      tags: ["user-signed"],
      body: prepareBody(network),
      responses: {
        201: {
          description: "the preparation and its commit PSBT",
          schema: PreparedAnswer,
          headers: { Location: "/prepare/<id>" },
        },
      },
    },
    async ({ body }, req, res) => {
      const input = inscriptionInput({ ...body, recipient: body.recipient ?? body.address }, options.maxPayloadBytes);
      checkRecipient(authority, null, input.recipient);
      let prepared;
      try {
        prepared = await options.userSigned.prepare(body.address, body.public_key, input, clientIpKey(req));
      } catch (error) {
        throw planningError(error);
      }
      res.status(201).setHeader("Location", `/prepare/${prepared.id}`).json(prepared);
    },
  );

  const preparation = z.object({ id: PreparationId });

  routes.get(
    "/prepare/:id",
    {
      summary: "A preparation, with the reveal PSBT awaited next",
      tags: ["user-signed"],
      params: preparation,
      responses: { 200: PreparationAnswer },
    },
    ({ params }, _req, res) => {
      res.setHeader("Cache-Control", "no-store");
      res.json(options.userSigned.get(params.id));
    },
  );

  routes.post(
    "/prepare/:id/commit",
    {
      summary: "The signed commit PSBT in; the commit transaction and the first reveal's PSBT out",
      tags: ["user-signed"],
      params: preparation,
      body: SignedPsbtBody,
      responses: { 200: CommittedAnswer },
    },
    ({ params, body }, _req, res) => {
      res.json(options.userSigned.submitCommit(params.id, body.psbt));
    },
  );

  routes.post(
    "/prepare/:id/reveal",
    {
      summary: "A signed reveal PSBT in; the reveal transaction and, for a Doginals chain, the next PSBT out",
      tags: ["user-signed"],
      params: preparation,
      body: SignedPsbtBody,
      responses: { 200: RevealedAnswer },
    },
    ({ params, body }, _req, res) => {
      res.json(options.userSigned.submitReveal(params.id, body.psbt));
    },
  );

  options.mount?.(app, surface);
  surface.serve(app);
  serveAbiIndex(app, surface);
  app.use(unknownRoute);
  app.use(errorMiddleware(options.log ?? (() => undefined)));
  return app;
}
