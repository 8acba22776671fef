/**
 * The launchpad API (base path /api; docs/api.md "Launchpad"): wallet sign-in, the collection
 * directory, listing a collection, claims (reservations of the next free index) and membership read
 * from the explorer's index, the live minted counter (server-sent events), payment PSBTs, and the
 * pages' directory when one is given. Writes take a Bearer token from POST /api/session.
 *
 * Limits (DESIGN.md 6 and 8, issue 17): every public write has a per-IP rate limit (429 with
 * Retry-After), claims also one per session; a client IP holds a capped number of live reservations
 * per collection and of open event streams; sign-in challenges store nothing.
 */
import crypto from "node:crypto";
import express, { Request, RequestHandler } from "express";
import { DogeNetwork } from "../../doge";
import type { Sqlite } from "../../db/sqlite";
import { IndexQueries } from "../../indexer/queries";
import { LAUNCHPAD_CONTENT_TYPE, LAUNCHPAD_MINT_OP, LAUNCHPAD_SLUG_PATTERN, parseLaunchpadBody } from "../../inscription/launchpad";
import { noStoreJsonApp, route } from "../http/app";
import { AppError, badRequest, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import * as v from "../http/validation";
import { clientIpKey, rateLimited } from "../http/rate-limit";
import { Collection, CollectionStore, LaunchpadInscriber, MAX_COLLECTION_SIZE, MAX_PRICE_KOINU, Reservation, deployRequest, mintBodyJson } from "./collections";
import { CollectionIndex, MemberGate, Membership, createMemberGate } from "./membership";
import { MintRecord, MintService, PaymentRecord, paymentJson, paymentMemo } from "./mints";
import { LaunchpadSession, SessionStore, sessionOf, signingAddress } from "./sessions";
import { MintedFeed } from "./live";
import { MAX_OP_RETURN_PAYLOAD_BYTES, PaymentNode, PaymentPsbtService } from "./payment";
import { RECOMMENDED_FEE_RATE } from "../../wallet/fees";
import { NO_DEV_WALLET_SCRIPT } from "./dev-wallet";

/** How long an expired reservation that nothing refers to is kept before it is deleted. */
export const EXPIRED_RESERVATION_KEEP_SECONDS = 86_400;

export interface LaunchpadOptions {
  /** The launchpad's own database (openLaunchpadDatabase). */
  db: Sqlite;
  /** The explorer's index database, read for membership (never written). */
  indexDb: Sqlite;
  network: DogeNetwork;
  /** Unix seconds (default: the system clock). */
  clock?: () => number;
  /** How long a claim holds its index (default 600 s). */
  reservationSeconds?: number;
  /** How long a sign-in challenge may be answered (default 300 s). */
  challengeSeconds?: number;
  /** The HMAC key of sign-in challenges (default 32 random bytes of this process). */
  challengeSecret?: Uint8Array;
  /** How long a session token lives (default 86,400 s). */
  sessionSeconds?: number;
  /**
   * When given, a listed collection's LAUNCHPAD_DEPLOY and every mint are handed to it
   * (HttpLaunchpadInscriber); otherwise deploys stay pending and mints answer 503 MINTING_UNAVAILABLE.
   */
  inscriber?: LaunchpadInscriber;
  /**
   * SHA-256 (hex) of the operator key that free listings need in `X-Operator-Key`: the operator pays
   * a free collection's inscriptions. Without it no free collection can be listed.
   */
  operatorKeySha256?: string;
  /** Requests per client IP, minute and write route (default 60; 0 = no limit). */
  rateLimitPerMinute?: number;
  /** Claims per session and minute (default 10; 0 = no limit). */
  claimsPerSessionPerMinute?: number;
  /** Depth at which a mint's payment counts (default 1; the daemon's default is per network, src/chain/depth.ts). */
  paymentConfirmations?: number;
  /** Live reservations one client IP may hold per collection (default 3; 0 = no cap). */
  maxReservationsPerClient?: number;
  /**
   * The node, for payment PSBTs: previous transactions (getrawtransaction, -txindex) and whether an
   * output is unspent counting the mempool (gettxout). Without it payment-psbt answers 503.
   */
  node?: PaymentNode;
  /** Fee rate of payment PSBTs (default RECOMMENDED_FEE_RATE, 0.01 DOGE/kB). */
  feeRateKoinuPerKb?: bigint;
  /**
   * The live counter's fallback poll of the database (default 2,000 ms), its cap on open streams
   * (default 1,000) and on open streams per client IP (default 8; 0 = none).
   */
  events?: { pollMs?: number; maxStreams?: number; maxStreamsPerClient?: number; heartbeatMs?: number };
  /** When given, this directory's files are served at `/` (index.html as a directory's page). */
  webDir?: string;
  /**
   * The pages' /wallet-provider.js: the development wallet (devWalletScript) in the embedded
   * default and the browser tests; without it the script installs nothing and the browser's own
   * wallet provides `window.wallet`.
   */
  walletProviderScript?: string;
  /** The explorer's public base URL (e.g. http://127.0.0.1:3001), where pages broadcast payments. */
  explorerUrl?: string;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Extra routes (a daemon's /health and /metrics, pages), mounted before the 404 handler. */
  mount?: (app: express.Express, gate: MemberGate) => void;
}

export interface LaunchpadApp extends express.Express {
  /** `requireMember` / `isMember` over this app's sessions and index. */
  launchpad: { gate: MemberGate; sessions: SessionStore; collections: CollectionStore; index: CollectionIndex; mints: MintService; feed: MintedFeed; payments: PaymentPsbtService | null };
}

/** Koinu as a decimal string (every launchpad amount). */
const collectionJson = (c: Collection) => ({
  slug: c.slug,
  name: c.name,
  price_koinu: c.priceKoinu.toString(),
  max: c.maxSupply,
  minted: c.minted,
  creator_address: c.creatorAddress,
  listed_by: c.listedBy,
  created_at: c.createdAt,
  deploy: { status: c.deploy.status, job_id: c.deploy.jobId, inscription_id: c.deploy.inscriptionId, error: c.deploy.error },
});

const reservationJson = (r: Reservation, maxSupply: number, owed: PaymentRecord[]) => ({
  reservation_id: r.id,
  slug: r.slug,
  index: r.tokenIndex,
  address: r.address,
  status: "active",
  reserved_at: r.reservedAt,
  expires_at: r.expiresAt,
  mint_body: mintBodyJson(r.slug, r.tokenIndex, maxSupply),
  // The claimant's recorded payments on this collection that the creator owes something back for.
  owed_payments: owed.map(paymentJson),
});

const mintJsonOf = (mints: MintService) => (m: MintRecord) => {
  const payment = m.paymentTxid ? mints.payment(m.paymentTxid) : null;
  return {
    slug: m.slug,
    index: m.tokenIndex,
    status: m.status,
    address: m.address,
    reservation_id: m.reservationId,
    attempt: m.attempt,
    inscriber_job_id: m.inscriberJobId,
    payment_txid: m.paymentTxid,
    inscription_id: m.inscriptionId,
    mint_txid: m.mintTxid,
    error: m.error,
    payment: payment ? paymentJson(payment) : null,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
};

const membershipJson = (m: Membership) => ({
  slug: m.slug,
  address: m.address,
  member: m.member,
  tokens: m.tokens.map((t) => ({ token_id: t.tokenId, inscription_id: t.inscriptionId, location: t.location })),
  collection_indexed: m.collectionIndexed,
  indexed_height: m.indexedHeight,
});

function slugParam(value: unknown, field = "slug"): string {
  if (typeof value !== "string" || !LAUNCHPAD_SLUG_PATTERN.test(value)) {
    throw badRequest("INVALID_SLUG", `${field} must be 1 to 64 of a-z, 0-9 and inner hyphens`, { field });
  }
  return value;
}

/** A canonical decimal string of koinu, 0 to MAX_PRICE_KOINU (1,000,000 DOGE). */
function priceKoinu(value: unknown, field = "price_koinu"): bigint {
  if (typeof value !== "string" || !/^(?:0|[1-9][0-9]{0,19})$/.test(value) || BigInt(value) > MAX_PRICE_KOINU) {
    throw badRequest("INVALID_PRICE", `${field} must be a decimal string of koinu without sign or leading zeros, at most ${MAX_PRICE_KOINU}`, { field, max_koinu: MAX_PRICE_KOINU.toString() });
  }
  return BigInt(value);
}

const sha256Of = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest();

function maxSupply(value: unknown, field = "max"): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_COLLECTION_SIZE) {
    throw badRequest("INVALID_MAX", `${field} must be an integer from 1 to ${MAX_COLLECTION_SIZE}`, { field, min: 1, max: MAX_COLLECTION_SIZE });
  }
  return value;
}

/** The name rule is the deploy body's (src/inscription/launchpad.ts), checked by parsing a deploy body. */
function collectionName(value: unknown, field = "name"): string {
  const check = typeof value === "string"
    ? parseLaunchpadBody(new TextEncoder().encode(JSON.stringify({ p: "service", op: "LAUNCHPAD_DEPLOY", slug: "x", name: value, price: "0", max: "1" })), LAUNCHPAD_CONTENT_TYPE)
    : null;
  if (!check || !check.ok) throw badRequest("INVALID_NAME", `${field} must be 1 to 128 characters without control characters`, { field });
  return value as string;
}

export function createLaunchpadApp(options: LaunchpadOptions): LaunchpadApp {
  const { db, network } = options;
  const clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
  const log = options.log ?? (() => undefined);
  const sessions = new SessionStore(db, {
    network, clock, challengeSeconds: options.challengeSeconds ?? 300, sessionSeconds: options.sessionSeconds ?? 86_400, challengeSecret: options.challengeSecret,
  });
  const collections = new CollectionStore(db, clock, options.reservationSeconds ?? 600);
  const index = new CollectionIndex(options.indexDb);
  const gate = createMemberGate(sessions, index);
  const feed = new MintedFeed(collections, { pollMs: options.events?.pollMs, maxStreams: options.events?.maxStreams, maxStreamsPerClient: options.events?.maxStreamsPerClient });
  const heartbeatMs = options.events?.heartbeatMs ?? 15_000;
  const queries = new IndexQueries(options.indexDb);
  let lastReservationPrune = 0;
  const mints = new MintService({
    db, queries, collections, inscriber: options.inscriber, clock, log, onMinted: (slug) => feed.changed(slug),
    paymentConfirmations: options.paymentConfirmations,
  });
  const payments = options.node
    ? new PaymentPsbtService({ db, queries, node: options.node, network, feeRateKoinuPerKb: options.feeRateKoinuPerKb ?? RECOMMENDED_FEE_RATE, clock })
    : null;
  const paymentsOr503 = (): PaymentPsbtService => {
    if (!payments) throw new AppError(503, "PAYMENT_PSBT_UNAVAILABLE", "this launchpad has no node configured; payment PSBTs cannot be built", {});
    return payments;
  };
  const requireSession = sessions.requireSession();
  // One limit per write route and client IP; claims also per session (after requireSession).
  const perMinute = options.rateLimitPerMinute ?? 60;
  const limit = (name: string): RequestHandler => rateLimited({ name: `launchpad ${name}`, limit: perMinute });
  const claimsPerSession = rateLimited({
    name: "launchpad claims per session", limit: options.claimsPerSessionPerMinute ?? 10, key: (req) => {
      const session = req.res?.locals.launchpadSession as LaunchpadSession | undefined;
      return session ? `session:${session.address}` : `ip:${clientIpKey(req)}`;
    },
  });
  const maxReservationsPerClient = options.maxReservationsPerClient ?? 3;
  const operatorKeyHash = options.operatorKeySha256 ? Buffer.from(options.operatorKeySha256, "hex") : null;
  const isOperator = (req: Request): boolean => {
    const given = req.header("x-operator-key");
    return operatorKeyHash !== null && operatorKeyHash.length === 32 && typeof given === "string" && crypto.timingSafeEqual(sha256Of(given), operatorKeyHash);
  };

  // The pages' static files keep their ETags: express.static makes its own.
  const base = noStoreJsonApp("16kb");
  const app = base.app as LaunchpadApp;
  const { api } = base;
  app.launchpad = { gate, sessions, collections, index, mints, feed, payments };
  const mintJson = mintJsonOf(mints);

  const collectionOr404 = (slug: string): Collection => {
    const collection = collections.get(slug);
    if (!collection) throw notFound("COLLECTION_NOT_FOUND", `no collection "${slug}" is listed`, { slug });
    return collection;
  };

  // ------------------------------------------------------------------------------ sessions

  api.get("/session/challenge", limit("sign-in challenges"), route((req, res) => {
    const address = signingAddress(req.query.address, network);
    const issued = sessions.issueChallenge(address);
    res.json({ address: issued.address, nonce: issued.nonce, challenge: issued.challenge, expires_at: issued.expiresAt });
  }));

  api.post("/session", limit("sign-ins"), route((req, res) => {
    const body = v.exactObject(req.body, ["address", "challenge", "signature"]);
    const address = signingAddress(body.address, network);
    if (typeof body.challenge !== "string" || body.challenge.length === 0 || body.challenge.length > 1024) {
      throw badRequest("INVALID_CHALLENGE", "challenge must be the text GET /api/session/challenge answered", { field: "challenge" });
    }
    if (typeof body.signature !== "string" || !/^[A-Za-z0-9+/]{86}[A-Za-z0-9+/=]{2}$/.test(body.signature)) {
      throw badRequest("INVALID_SIGNATURE_FORMAT", "signature must be a base64 compact message signature (65 bytes)", { field: "signature" });
    }
    const { token, session } = sessions.openSession(address, body.challenge, body.signature);
    res.status(201).json({ token, token_type: "Bearer", address: session.address, expires_at: session.expiresAt });
  }));

  api.get("/session", requireSession, route((_req, res) => {
    const session = sessionOf(res);
    res.json({ address: session.address, expires_at: session.expiresAt });
  }));

  // --------------------------------------------------------------------------- collections

  api.get("/collections", route((req, res) => {
    const limit = v.limit(req.query.limit, { max: 500, fallback: 100 });
    const after = v.cursor<{ slug: string }>(req.query.cursor, { slug: "string" });
    const items = collections.list(after?.slug ?? "", limit + 1);
    const page = items.slice(0, limit);
    res.json({
      items: page.map(collectionJson),
      next_cursor: items.length > limit ? v.encodeCursor({ slug: page[page.length - 1].slug }) : null,
    });
  }));

  api.get("/collections/:slug", route((req, res) => {
    const collection = collectionOr404(slugParam(req.params.slug));
    res.json({
      ...collectionJson(collection),
      mint_body_example: {
        content_type: LAUNCHPAD_CONTENT_TYPE,
        action: LAUNCHPAD_MINT_OP,
        body: mintBodyJson(collection.slug, 0, collection.maxSupply),
      },
    });
  }));

  api.post("/collections", limit("listings"), requireSession, route(async (req, res) => {
    const session = sessionOf(res);
    const body = v.exactObject(req.body, ["slug", "name", "price_koinu", "max", "creator_address"]);
    const slug = slugParam(body.slug);
    const price = priceKoinu(body.price_koinu);
    const max = maxSupply(body.max);
    const creatorAddress = v.address(body.creator_address, network, "creator_address");
    // Payments go straight to the creator: only the creator's own session may name it.
    if (creatorAddress !== session.address) {
      throw new AppError(403, "CREATOR_NOT_SESSION", "creator_address must be the signed-in address: a collection is listed by its creator", {
        field: "creator_address", creator_address: creatorAddress, session_address: session.address,
      });
    }
    // The operator pays every mint's inscription; nobody pays it for a free one.
    if (price === 0n && !isOperator(req)) {
      throw new AppError(403, "FREE_LISTING_NEEDS_OPERATOR_KEY", "a free collection's inscriptions are paid by the operator: listing one needs the operator key in X-Operator-Key", { field: "price_koinu" });
    }
    // A priced mint is paid with the OP_RETURN `service-launch-mint:<slug>:<index>`, which nodes
    // relay only up to 80 bytes: refuse a listing whose last index could not be paid for.
    const memoBytes = Buffer.byteLength(paymentMemo(slug, max - 1));
    if (price > 0n && memoBytes > MAX_OP_RETURN_PAYLOAD_BYTES) {
      throw badRequest("SLUG_TOO_LONG_FOR_PAYMENT", `a priced collection's payment memo for its last index would be ${memoBytes} bytes; nodes relay at most ${MAX_OP_RETURN_PAYLOAD_BYTES}: use a shorter slug`, { field: "slug", memo_bytes: memoBytes, max_bytes: MAX_OP_RETURN_PAYLOAD_BYTES });
    }
    const collection = collections.create({
      slug,
      name: collectionName(body.name),
      priceKoinu: price,
      maxSupply: max,
      creatorAddress,
      listedBy: session.address,
    });
    log("launchpad_collection_listed", { slug: collection.slug, listedBy: session.address });
    if (options.inscriber) {
      try {
        const { jobId } = await options.inscriber.inscribe(deployRequest(collection));
        collections.markDeploySubmitted(collection.slug, jobId);
      } catch (error) {
        // The listing stands; the deploy stays pending with the reason, to be submitted again.
        log("launchpad_deploy_submit_failed", { slug: collection.slug, err: (error as Error).message });
        collections.markDeployFailed(collection.slug, (error as Error).message);
      }
    }
    res.status(201).setHeader("Location", `/api/collections/${collection.slug}`);
    res.json(collectionJson(collections.get(collection.slug)!));
  }));

  // -------------------------------------------------------------------------------- claims

  api.post("/collections/:slug/claim", limit("claims"), requireSession, claimsPerSession, route((req, res) => {
    const session = sessionOf(res);
    const slug = slugParam(req.params.slug);
    if (req.body !== undefined && Object.keys(req.body ?? {}).length > 0) v.exactObject(req.body, []);
    const { reservation, created } = collections.claim(slug, session.address, { key: clientIpKey(req), maxLive: maxReservationsPerClient });
    // Claims leave rows: those expired a day ago that nothing refers to go, at most once a minute.
    if (clock() - lastReservationPrune >= 60) {
      lastReservationPrune = clock();
      collections.pruneExpired(lastReservationPrune - EXPIRED_RESERVATION_KEEP_SECONDS);
    }
    const collection = collectionOr404(slug);
    res.status(created ? 201 : 200).json({ ...reservationJson(reservation, collection.maxSupply, mints.owedTo(slug, session.address)), created });
  }));

  api.get("/collections/:slug/claim", requireSession, route((req, res) => {
    const session = sessionOf(res);
    const collection = collectionOr404(slugParam(req.params.slug));
    const reservation = collections.liveReservation(collection.slug, session.address);
    if (!reservation) throw notFound("NO_RESERVATION", `${session.address} holds no live reservation on "${collection.slug}"`, { slug: collection.slug, address: session.address });
    res.json(reservationJson(reservation, collection.maxSupply, mints.owedTo(collection.slug, session.address)));
  }));

  // --------------------------------------------------------------------------------- mints

  api.post("/collections/:slug/mint", limit("mints"), requireSession, route(async (req, res) => {
    const session = sessionOf(res);
    const collection = collectionOr404(slugParam(req.params.slug));
    const body = v.exactObject(req.body, ["reservation_id", "payment_txid"]);
    if (typeof body.reservation_id !== "number" || !Number.isSafeInteger(body.reservation_id) || body.reservation_id < 1) {
      throw badRequest("INVALID_RESERVATION_ID", "reservation_id must be the positive integer the claim answered", { field: "reservation_id" });
    }
    const paymentTxid = body.payment_txid === undefined || body.payment_txid === null ? null : v.txid(body.payment_txid, "payment_txid");
    const { mint, created } = await mints.mint(collection, session.address, body.reservation_id, paymentTxid);
    res.status(created ? 202 : 200).setHeader("Location", `/api/collections/${mint.slug}/mints/${mint.tokenIndex}`);
    res.json({ ...mintJson(mint), created });
  }));

  api.get("/collections/:slug/mints/:index", route((req, res) => {
    const slug = slugParam(req.params.slug);
    const raw = req.params.index as string;
    if (!/^(?:0|[1-9][0-9]{0,6})$/.test(raw)) throw badRequest("INVALID_INDEX", "index must be a decimal token index", { field: "index" });
    const mint = mints.get(slug, Number(raw));
    if (!mint) throw notFound("MINT_NOT_FOUND", `no mint of index ${raw} of "${slug}"`, { slug, index: Number(raw) });
    res.json(mintJson(mint));
  }));

  // -------------------------------------------------------------------------- live counter

  api.get("/collections/:slug/events", route((req, res) => {
    const collection = collectionOr404(slugParam(req.params.slug));
    if (!feed.hasRoom()) {
      throw new AppError(503, "TOO_MANY_STREAMS", `this process serves at most ${feed.maxStreams} open event streams; retry later`, { max_streams: feed.maxStreams }, { "Retry-After": "5" });
    }
    const client = clientIpKey(req);
    if (!feed.clientHasRoom(client)) {
      throw new AppError(429, "TOO_MANY_CLIENT_STREAMS", `one client may hold at most ${feed.maxStreamsPerClient} open event streams; close one or retry later`, {
        max_streams_per_client: feed.maxStreamsPerClient,
      }, { "Retry-After": "5" });
    }
    const send = (count: { minted: number; max: number }) => res.write(`event: minted\ndata: ${JSON.stringify(count)}\n\n`);
    const { current, unsubscribe } = feed.subscribe(collection.slug, send, client);
    const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), heartbeatMs);
    heartbeat.unref();
    const close = () => {
      clearInterval(heartbeat);
      unsubscribe();
    };
    req.on("close", close);
    res.on("close", close);
    res.status(200);
    res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
    res.setHeader("Connection", "keep-alive");
    res.setHeader("X-Accel-Buffering", "no");
    res.flushHeaders();
    res.write("retry: 2000\n\n");
    send(current);
  }));

  // ---------------------------------------------------------------------------- payments

  const reservationId = (value: unknown): number => {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      throw badRequest("INVALID_RESERVATION_ID", "reservation_id must be the positive integer the claim answered", { field: "reservation_id" });
    }
    return value;
  };

  api.post("/collections/:slug/payment-psbt", limit("payment PSBTs"), requireSession, route(async (req, res) => {
    const session = sessionOf(res);
    const collection = collectionOr404(slugParam(req.params.slug));
    const body = v.exactObject(req.body, ["reservation_id", "public_key"]);
    const id = reservationId(body.reservation_id);
    res.status(201).json(await paymentsOr503().build(collection, session.address, id, body.public_key));
  }));

  api.post("/collections/:slug/payment", limit("signed payments"), requireSession, route((req, res) => {
    const session = sessionOf(res);
    const collection = collectionOr404(slugParam(req.params.slug));
    const body = v.exactObject(req.body, ["reservation_id", "psbt"]);
    const id = reservationId(body.reservation_id);
    res.json(paymentsOr503().finish(collection, session.address, id, body.psbt));
  }));

  // ---------------------------------------------------------------------------- membership

  api.get("/collections/:slug/membership", route((req, res) => {
    const slug = slugParam(req.params.slug);
    const address = v.address(req.query.address, network);
    if (!collections.get(slug) && !index.hasCollection(slug)) {
      throw notFound("COLLECTION_NOT_FOUND", `no collection "${slug}" is listed or indexed`, { slug });
    }
    res.json(membershipJson(index.membership(slug, address)));
  }));

  // ---------------------------------------------------------------------- the pages' needs

  api.get("/config", (_req, res) => {
    res.json({ network: network.name, explorer_url: options.explorerUrl ?? null, development_wallet: options.walletProviderScript !== undefined });
  });

  // The members-only page's content, behind requireMember: a Bearer session whose address holds a
  // member token of the collection now (the index decides, so a sold token stops opening it).
  api.get("/collections/:slug/members-only", (req, _res, next) => {
    try {
      const slug = slugParam(req.params.slug);
      if (!collections.get(slug) && !index.hasCollection(slug)) throw notFound("COLLECTION_NOT_FOUND", `no collection "${slug}" is listed or indexed`, { slug });
      next();
    } catch (error) {
      next(error);
    }
  }, gate.requireMember((req) => req.params.slug as string), (req, res) => {
    const membership = res.locals.launchpadMembership as Membership;
    const collection = collections.get(membership.slug);
    res.json({
      slug: membership.slug,
      name: collection?.name ?? membership.slug,
      address: membership.address,
      tokens: membership.tokens.map((t) => ({ token_id: t.tokenId, inscription_id: t.inscriptionId })),
      message: `Welcome, holder of ${membership.tokens.map((t) => `#${t.tokenId}`).join(", ")} of ${collection?.name ?? membership.slug}.`,
    });
  });

  app.use("/api", api);
  options.mount?.(app, gate);
  if (options.webDir) {
    app.get("/wallet-provider.js", (_req, res) => {
      res.setHeader("Content-Type", "text/javascript; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.send(options.walletProviderScript ?? NO_DEV_WALLET_SCRIPT);
    });
    app.use(express.static(options.webDir, { index: "index.html", redirect: true }));
  }
  app.use(unknownRoute);
  app.use(errorMiddleware(log));
  return app;
}
