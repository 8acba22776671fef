/**
 * The launchpad API (base path /api; docs/api.md "Launchpad"): wallet sign-in, the collection
 * directory, listing a collection, claims (reservations of the next free index) and membership read
 * from the explorer's index, the live minted counter (server-sent events), payment PSBTs, and the
 * pages' directory when one is given. Writes take a Bearer token from POST /api/session.
 *
 * Every route is declared with zod schemas (./api-schema.ts) in one ApiSurface: they validate the
 * requests and make the OpenAPI document served at GET /openapi.json (reference page GET /docs).
 *
 * Limits (DESIGN.md 6 and 8, issue 17): every public write has a per-IP rate limit (429 with
 * Retry-After), claims also one per session; a client IP holds a capped number of live reservations
 * per collection and of open event streams; sign-in challenges store nothing.
 */
import crypto from "node:crypto";
import express, { Request, RequestHandler, Response } from "express";
import { DogeNetwork } from "../../doge";
import type { Sqlite } from "../../db/sqlite";
import type { IndexQueries } from "../../indexer/queries";
import { LAUNCHPAD_CONTENT_TYPE, LAUNCHPAD_MINT_OP } from "../../inscription/launchpad";
import { noStoreJsonApp } from "../http/app";
import { AppError, badRequest, errorMiddleware, notFound, unknownRoute } from "../http/errors";
import { ApiSurface, z } from "../http/openapi";
import * as v from "../http/validation";
import { clientIpKey, rateLimited } from "../http/rate-limit";
import { Collection, CollectionStore, LaunchpadInscriber, Reservation, mintBodyJson } from "./collections";
import { DeployService } from "./deploys";
import { CollectionIndex, Membership } from "./membership";
import { MintRecord, MintReferences, MintService, PaymentRecord, paymentJson, paymentMemo } from "./mints";
import { LaunchpadSession, SessionStore, sessionRequired, signingAddress } from "./sessions";
import { MintedFeed } from "./live";
import { MAX_OP_RETURN_PAYLOAD_BYTES, PaymentNode, PaymentPsbtService, PaymentPsbtStore } from "./payment";
import { RECOMMENDED_FEE_RATE } from "../../wallet/fees";
import { walletProviderScript } from "../pages/wallet-provider";
import { servePages } from "../pages/mount";
import * as S from "./api-schema";
import { serveAbiIndex } from "../http/abi-index-route";

// ------------------------------------------------------------- sessions and members over HTTP

/**
 * The session a request carries: the one an earlier middleware put in `res.locals.launchpadSession`,
 * else the one its `Authorization: Bearer <token>` names (SessionStore.authenticate), kept there.
 */
function ensureSession(store: SessionStore, req: Request, res: Response): LaunchpadSession {
  const known = res.locals.launchpadSession as LaunchpadSession | undefined;
  if (known) return known;
  const session = store.authenticate(req.headers.authorization);
  res.locals.launchpadSession = session;
  return session;
}

/**
 * Express middleware: requires `Authorization: Bearer <token>` of a live session and puts the
 * session in `res.locals.launchpadSession`. 401 with WWW-Authenticate otherwise.
 */
function requireSessionOf(store: SessionStore): RequestHandler {
  return (req, res, next) => {
    try {
      ensureSession(store, req, res);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The session a request carries (set by the session middleware), or throws 401 SESSION_REQUIRED. */
export function sessionOf(res: Response): LaunchpadSession {
  const session = res.locals.launchpadSession as LaunchpadSession | undefined;
  if (!session) throw sessionRequired();
  return session;
}

export interface MemberGate {
  /** Whether `address` holds a member token of `slug` now (for role bots, downloads, scripts). */
  isMember(slug: string, address: string): Promise<boolean>;
  /**
   * Express middleware for pages: the request's launchpad session (Bearer token; authenticated here
   * when no earlier middleware did) must hold a member token of `slug`, or of the slug a function
   * reads from the request. 401 without a live session, 403 NOT_A_MEMBER otherwise; the membership
   * goes in `res.locals.launchpadMembership`.
   */
  requireMember(slug: string | ((req: Request) => string)): RequestHandler;
}

export function createMemberGate(sessions: SessionStore, index: CollectionIndex): MemberGate {
  return {
    async isMember(slug, address) {
      return index.membership(slug, address).member;
    },
    requireMember(slug) {
      return (req, res, next) => {
        try {
          const session = ensureSession(sessions, req, res);
          res.locals.launchpadMembership = index.requireMember(
            typeof slug === "function" ? slug(req) : slug,
            session.address,
          );
          next();
        } catch (error) {
          next(error);
        }
      };
    },
  };
}

/** How long an expired reservation that nothing refers to is kept before it is deleted. */
export const EXPIRED_RESERVATION_KEEP_SECONDS = 86_400;

export interface LaunchpadOptions {
  /** The launchpad's own database (openLaunchpadDatabase). */
  db: Sqlite;
  /** The explorer's index (membership, payments, mints), through its query module. */
  queries: IndexQueries;
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
   * (InscriberClient, src/services/inscriber/client.ts); otherwise deploys stay pending and mints answer 503 MINTING_UNAVAILABLE.
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
  /**
   * Depth at which a mint's payment counts, and a collection's deploy and a mint's inscription in the
   * index (default 1; the daemon's default is per network, src/chain/depth.ts).
   */
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
   * The pages' /wallet-provider.js offering the development wallet (devWalletScript) in the embedded
   * default and the browser tests; without it the provider offers only the browser's own wallets.
   */
  walletProviderScript?: string;
  /** The explorer's public base URL (e.g. http://127.0.0.1:3001), where pages broadcast payments. */
  explorerUrl?: string;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /**
   * Extra routes (a daemon's /health and /metrics, pages), mounted before the 404 handler; declare
   * them in `surface` (mountOpsRoutes takes it) so the document lists them.
   */
  mount?: (app: express.Express, gate: MemberGate, surface: ApiSurface) => void;
}

/** What listing a collection takes (CollectionStore.create's input). */
export type NewCollection = Parameters<CollectionStore["create"]>[0];

export interface LaunchpadApp extends express.Express {
  /** `requireMember` / `isMember` over this app's sessions and index. */
  launchpad: {
    gate: MemberGate;
    sessions: SessionStore;
    collections: CollectionStore;
    index: CollectionIndex;
    mints: MintService;
    feed: MintedFeed;
    payments: PaymentPsbtService | null;
    deploys: DeployService;
    /**
     * Lists a collection once its listing was allowed (POST /collections checks the session, the
     * operator key and the payment memo first) and hands its LAUNCHPAD_DEPLOY to the inscriber;
     * the listing stands if that fails (deploy pending with the reason).
     */
    list(listing: NewCollection): Promise<Collection>;
  };
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
  deploy: {
    status: c.deploy.status,
    job_id: c.deploy.jobId,
    inscription_id: c.deploy.inscriptionId,
    error: c.deploy.error,
  },
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
    index_reason: m.indexReason,
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

const sha256Of = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest();

export function createLaunchpadApp(options: LaunchpadOptions): LaunchpadApp {
  const { db, network } = options;
  const clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
  const log = options.log ?? (() => undefined);
  const sessions = new SessionStore(db, {
    network,
    clock,
    challengeSeconds: options.challengeSeconds ?? 300,
    sessionSeconds: options.sessionSeconds ?? 86_400,
    challengeSecret: options.challengeSecret,
  });
  // One owner per table (STYLE.md 18): the collection store asks the owners of mints, payments and
  // payment PSBTs through these, inside its own transactions.
  const paymentPsbts = new PaymentPsbtStore(db);
  const collections = new CollectionStore(db, clock, options.reservationSeconds ?? 600, {
    mints: new MintReferences(db),
    paymentPsbts,
  });
  const queries = options.queries;
  const index = new CollectionIndex(queries);
  const gate = createMemberGate(sessions, index);
  const feed = new MintedFeed(collections, {
    pollMs: options.events?.pollMs,
    maxStreams: options.events?.maxStreams,
    maxStreamsPerClient: options.events?.maxStreamsPerClient,
  });
  const heartbeatMs = options.events?.heartbeatMs ?? 15_000;
  let lastReservationPrune = 0;
  const deploys = new DeployService({
    collections,
    index,
    inscriber: options.inscriber,
    confirmations: options.paymentConfirmations,
    log,
  });
  const mints = new MintService({
    db,
    queries,
    collections,
    index,
    deploys,
    inscriber: options.inscriber,
    clock,
    log,
    onMinted: (slug) => feed.changed(slug),
    paymentConfirmations: options.paymentConfirmations,
  });
  const payments = options.node
    ? new PaymentPsbtService({
        psbts: paymentPsbts,
        collections,
        queries,
        node: options.node,
        network,
        feeRateKoinuPerKb: options.feeRateKoinuPerKb ?? RECOMMENDED_FEE_RATE,
        clock,
      })
    : null;
  const paymentsOr503 = (): PaymentPsbtService => {
    if (!payments)
      throw new AppError(
        "unavailable",
        "PAYMENT_PSBT_UNAVAILABLE",
        "this launchpad has no node configured; payment PSBTs cannot be built",
        {},
      );
    return payments;
  };
  const requireSession = requireSessionOf(sessions);
  // One limit per write route and client IP; claims also per session (after requireSession).
  const perMinute = options.rateLimitPerMinute ?? 60;
  const limit = (name: string): RequestHandler => rateLimited({ name: `launchpad ${name}`, limit: perMinute });
  const claimsPerSession = rateLimited({
    name: "launchpad claims per session",
    limit: options.claimsPerSessionPerMinute ?? 10,
    key: (req) => {
      const session = req.res?.locals.launchpadSession as LaunchpadSession | undefined;
      return session ? `session:${session.address}` : `ip:${clientIpKey(req)}`;
    },
  });
  const maxReservationsPerClient = options.maxReservationsPerClient ?? 3;
  const operatorKeyHash = options.operatorKeySha256 ? Buffer.from(options.operatorKeySha256, "hex") : null;
  const isOperator = (req: Request): boolean => {
    const given = req.header("x-operator-key");
    return (
      operatorKeyHash !== null &&
      operatorKeyHash.length === 32 &&
      typeof given === "string" &&
      crypto.timingSafeEqual(sha256Of(given), operatorKeyHash)
    );
  };

  // The pages' static files keep their ETags: express.static makes its own.
  const base = noStoreJsonApp("16kb");
  const app = base.app as LaunchpadApp;
  const { api } = base;
  const surface = new ApiSurface({
    title: "DogeOS launchpad",
    description:
      "The launchpad API (base path /api): wallet sign-in (a signed challenge buys a Bearer token), the collection directory, listing a collection, claims (reservations of the next free index), paid mints through the inscriber (payments go straight to the creators), payment PSBTs, membership read from the explorer's index, the live minted counter (server-sent events), and the pages (HTML, /wallet-provider.js) when the daemon serves a pages directory. Write routes are rate limited per client IP (429 with Retry-After). Errors answer `{error: {code, message, details?}}` (DESIGN.md section 6).",
    securitySchemes: {
      session: {
        type: "http",
        scheme: "bearer",
        description:
          "a session token from POST /api/session (sign-in with the address's key); 401 SESSION_REQUIRED or INVALID_TOKEN with WWW-Authenticate otherwise",
      },
      operatorKey: {
        type: "apiKey",
        in: "header",
        name: "X-Operator-Key",
        description: "the operator key, which listing a free collection needs besides the creator's session",
      },
    },
  });
  async function list(listing: NewCollection): Promise<Collection> {
    // A slug someone already deployed on chain is theirs in the index: this listing's mints could never count.
    deploys.ensureSlugFree(listing.slug);
    const collection = collections.create(listing);
    log("launchpad_collection_listed", { slug: collection.slug, listedBy: listing.listedBy });
    // The listing stands if the inscriber cannot take the deploy now: it stays pending with the
    // reason, and the worker submits it again.
    await deploys.submit(collection);
    return collections.get(collection.slug)!;
  }
  app.launchpad = { gate, sessions, collections, index, mints, feed, payments, deploys, list };
  const mintJson = mintJsonOf(mints);

  const collectionOr404 = (slug: string): Collection => {
    const collection = collections.get(slug);
    if (!collection) throw notFound("COLLECTION_NOT_FOUND", `no collection "${slug}" is listed`, { slug });
    return collection;
  };

  const requests = S.launchpadRequests(network);
  const routes = surface.on(api, "/api");
  // A write route's limits and session come first, on their own route layer of the same path (so a
  // refused request is refused before its input is read); the declared route then validates it.
  const SESSION = "session";

  // ------------------------------------------------------------------------------ sessions

  api.get("/session/challenge", limit("sign-in challenges"));
  routes.get(
    "/session/challenge",
    {
      summary: "A sign-in challenge for an address",
      tags: ["sessions"],
      description:
        "The text to sign with Dogecoin message signing. Challenges are stateless (an HMAC under a secret of this process, so a restart voids them) and answer one sign-in each.",
      query: requests.ChallengeQuery,
      responses: { 200: S.Challenge },
    },
    ({ query }, _req, res) => {
      const issued = sessions.issueChallenge(signingAddress(query.address, network));
      res.json({
        address: issued.address,
        nonce: issued.nonce,
        challenge: issued.challenge,
        expires_at: issued.expiresAt,
      });
    },
  );

  api.post("/session", limit("sign-ins"));
  routes.post(
    "/session",
    {
      summary: "Sign in: a signed challenge for a Bearer token",
      tags: ["sessions"],
      description:
        "The challenge must be one this service issued to the address, unexpired and unused; the signature the address's key over exactly its text. 401 UNKNOWN_CHALLENGE, CHALLENGE_ADDRESS_MISMATCH, CHALLENGE_USED, CHALLENGE_EXPIRED or INVALID_SIGNATURE otherwise.",
      body: requests.SignIn,
      responses: { 201: S.SessionCreated },
    },
    ({ body }, _req, res) => {
      const address = signingAddress(body.address, network);
      const { token, session } = sessions.openSession(address, body.challenge, body.signature);
      res.status(201).json({ token, token_type: "Bearer", address: session.address, expires_at: session.expiresAt });
    },
  );

  api.get("/session", requireSession);
  routes.get(
    "/session",
    {
      summary: "The session of the Bearer token",
      tags: ["sessions"],
      security: SESSION,
      responses: { 200: S.Session },
    },
    (_input, _req, res) => {
      const session = sessionOf(res);
      res.json({ address: session.address, expires_at: session.expiresAt });
    },
  );

  // --------------------------------------------------------------------------- collections

  routes.get(
    "/collections",
    {
      summary: "The collection directory, by slug",
      tags: ["collections"],
      query: requests.CollectionsQuery,
      responses: { 200: S.CollectionPage },
      description: "Pages of `limit` collections (default 100) in slug order; `next_cursor` continues.",
    },
    ({ query }, _req, res) => {
      const limit = query.limit ?? 100;
      const after = v.cursor<{ slug: string }>(query.cursor, { slug: "string" });
      const items = collections.list(after?.slug ?? "", limit + 1);
      const page = items.slice(0, limit);
      res.json({
        items: page.map(collectionJson),
        next_cursor: items.length > limit ? v.encodeCursor({ slug: page[page.length - 1].slug }) : null,
      });
    },
  );

  routes.get(
    "/collections/:slug",
    {
      summary: "A listed collection, with an example mint body",
      tags: ["collections"],
      params: S.SlugParams,
      responses: { 200: S.CollectionDetail },
    },
    ({ params }, _req, res) => {
      const collection = collectionOr404(params.slug);
      res.json({
        ...collectionJson(collection),
        mint_body_example: {
          content_type: LAUNCHPAD_CONTENT_TYPE,
          action: LAUNCHPAD_MINT_OP,
          body: mintBodyJson(collection.slug, 0, collection.maxSupply),
        },
      });
    },
  );

  api.post("/collections", limit("listings"), requireSession);
  routes.post(
    "/collections",
    {
      summary: "List a collection (its creator's session)",
      tags: ["collections"],
      security: SESSION,
      body: requests.NewCollection,
      responses: {
        201: {
          description: "the listed collection; Location names it",
          schema: S.Collection,
          headers: { Location: "/api/collections/<slug>" },
        },
      },
      description:
        "creator_address must be the session's address (403 CREATOR_NOT_SESSION). A free collection (price_koinu \"0\") needs the operator key in `X-Operator-Key` (403 FREE_LISTING_NEEDS_OPERATOR_KEY): the operator pays its inscriptions. A priced collection's payment memo for its last index must fit the 80-byte OP_RETURN relay limit (400 SLUG_TOO_LONG_FOR_PAYMENT). A taken slug is 409 SLUG_TAKEN, a slug the index already holds a deploy of (anyone's) 409 SLUG_TAKEN_ON_CHAIN. The LAUNCHPAD_DEPLOY is handed to the inscriber when one is configured; the listing stands if that fails (deploy pending with the reason, submitted again by the worker). The collection takes claims once its deploy is indexed (deploy.status).",
    },
    async ({ body }, req, res) => {
      const session = sessionOf(res);
      const { slug, max, creator_address: creatorAddress } = body;
      const price = body.price_koinu;
      // Payments go straight to the creator: only the creator's own session may name it.
      if (creatorAddress !== session.address) {
        throw new AppError(
          "forbidden",
          "CREATOR_NOT_SESSION",
          "creator_address must be the signed-in address: a collection is listed by its creator",
          {
            field: "creator_address",
            creator_address: creatorAddress,
            session_address: session.address,
          },
        );
      }
      // The operator pays every mint's inscription; nobody pays it for a free one.
      if (price === 0n && !isOperator(req)) {
        throw new AppError(
          "forbidden",
          "FREE_LISTING_NEEDS_OPERATOR_KEY",
          "a free collection's inscriptions are paid by the operator: listing one needs the operator key in X-Operator-Key",
          { field: "price_koinu" },
        );
      }
      // A priced mint is paid with the OP_RETURN `service-launch-mint:<slug>:<index>`, which nodes
      // relay only up to 80 bytes: refuse a listing whose last index could not be paid for.
      const memoBytes = Buffer.byteLength(paymentMemo(slug, max - 1));
      if (price > 0n && memoBytes > MAX_OP_RETURN_PAYLOAD_BYTES) {
        throw badRequest(
          "SLUG_TOO_LONG_FOR_PAYMENT",
          `a priced collection's payment memo for its last index would be ${memoBytes} bytes; nodes relay at most ${MAX_OP_RETURN_PAYLOAD_BYTES}: use a shorter slug`,
          { field: "slug", memo_bytes: memoBytes, max_bytes: MAX_OP_RETURN_PAYLOAD_BYTES },
        );
      }
      const collection = await list({
        slug,
        name: body.name,
        priceKoinu: price,
        maxSupply: max,
        creatorAddress,
        listedBy: session.address,
      });
      res.status(201).setHeader("Location", `/api/collections/${collection.slug}`);
      res.json(collectionJson(collection));
    },
  );

  // -------------------------------------------------------------------------------- claims

  api.post("/collections/:slug/claim", limit("claims"), requireSession, claimsPerSession);
  routes.post(
    "/collections/:slug/claim",
    {
      summary: "Claim (reserve) the next free index",
      tags: ["claims"],
      security: SESSION,
      params: S.SlugParams,
      description:
        "Takes no body (an empty JSON object is accepted; any field is 400 UNKNOWN_FIELDS). An address holds one live reservation per collection: claiming again answers it (200, created false). 409 COLLECTION_NOT_DEPLOYED until the collection's own deploy is in the index at the payment depth (never, when its deploy failed); 409 SOLD_OUT when every index is minted or reserved; 429 when the client IP holds its cap of live reservations on the collection or the session claims too often.",
      responses: { 201: S.Claim, 200: S.Claim },
    },
    ({ params }, req, res) => {
      const session = sessionOf(res);
      const { slug } = params;
      if (req.body !== undefined && Object.keys(req.body ?? {}).length > 0) v.exactObject(req.body, []);
      // No claim before the collection's own deploy is in the index at depth (issue 26).
      deploys.ensureDeployed(collectionOr404(slug));
      const { reservation, created } = collections.claim(slug, session.address, {
        key: clientIpKey(req),
        maxLive: maxReservationsPerClient,
      });
      // Claims leave rows: those expired a day ago that nothing refers to go, at most once a minute.
      if (clock() - lastReservationPrune >= 60) {
        lastReservationPrune = clock();
        collections.pruneExpired(lastReservationPrune - EXPIRED_RESERVATION_KEEP_SECONDS);
      }
      const collection = collectionOr404(slug);
      res
        .status(created ? 201 : 200)
        .json({ ...reservationJson(reservation, collection.maxSupply, mints.owedTo(slug, session.address)), created });
    },
  );

  api.get("/collections/:slug/claim", requireSession);
  routes.get(
    "/collections/:slug/claim",
    {
      summary: "The session's live reservation on a collection (404 NO_RESERVATION without one)",
      tags: ["claims"],
      security: SESSION,
      params: S.SlugParams,
      responses: { 200: S.Reservation },
    },
    ({ params }, _req, res) => {
      const session = sessionOf(res);
      const collection = collectionOr404(params.slug);
      const reservation = collections.liveReservation(collection.slug, session.address);
      if (!reservation)
        throw notFound("NO_RESERVATION", `${session.address} holds no live reservation on "${collection.slug}"`, {
          slug: collection.slug,
          address: session.address,
        });
      res.json(reservationJson(reservation, collection.maxSupply, mints.owedTo(collection.slug, session.address)));
    },
  );

  // --------------------------------------------------------------------------------- mints

  api.post("/collections/:slug/mint", limit("mints"), requireSession);
  routes.post(
    "/collections/:slug/mint",
    {
      summary: "Mint the session's reserved index",
      tags: ["mints"],
      security: SESSION,
      params: S.SlugParams,
      body: requests.MintRequest,
      description:
        "A priced collection's mint names its payment (payment_txid), found in the explorer's index at the launchpad's payment depth and paying the creator the price with the OP_RETURN `service-launch-mint:<slug>:<index>`, from the claimant's address. 202 with the new mint (created true), 200 with the existing one when the reservation was already minted. 503 MINTING_UNAVAILABLE without an inscriber.",
      responses: {
        202: {
          description: "the mint was accepted (handed to the inscriber); Location names it",
          schema: S.MintAccepted,
          headers: { Location: "/api/collections/<slug>/mints/<index>" },
        },
        200: {
          description: "this reservation's mint, already accepted before; Location names it",
          schema: S.MintAccepted,
          headers: { Location: "/api/collections/<slug>/mints/<index>" },
        },
      },
    },
    async ({ params, body }, _req, res) => {
      const session = sessionOf(res);
      const collection = collectionOr404(params.slug);
      const { mint, created } = await mints.mint(
        collection,
        session.address,
        body.reservation_id,
        body.payment_txid ?? null,
      );
      res.status(created ? 202 : 200).setHeader("Location", `/api/collections/${mint.slug}/mints/${mint.tokenIndex}`);
      res.json({ ...mintJson(mint), created });
    },
  );

  routes.get(
    "/collections/:slug/mints/:index",
    {
      summary: "A mint of one index (its latest attempt)",
      tags: ["mints"],
      params: z.object({ slug: S.Slug, index: S.TokenIndexParam }),
      responses: { 200: S.Mint },
    },
    ({ params }, _req, res) => {
      const { slug, index } = params;
      const mint = mints.get(slug, index);
      if (!mint) throw notFound("MINT_NOT_FOUND", `no mint of index ${index} of "${slug}"`, { slug, index });
      res.json(mintJson(mint));
    },
  );

  // -------------------------------------------------------------------------- live counter

  routes.get(
    "/collections/:slug/events",
    {
      summary: "The live minted counter (server-sent events)",
      tags: ["collections"],
      params: S.SlugParams,
      description:
        'An event stream: `retry: 2000`, then an `event: minted` whose data is `{"minted": n, "max": m}` at once and after every change, and a `: heartbeat` comment every 15 s. 503 TOO_MANY_STREAMS when the process serves its cap of streams, 429 TOO_MANY_CLIENT_STREAMS past the cap per client IP (both with Retry-After).',
      responses: { 200: { description: "a text/event-stream of `minted` events", contentType: "text/event-stream" } },
    },
    ({ params }, req, res) => {
      const collection = collectionOr404(params.slug);
      if (!feed.hasRoom()) {
        throw new AppError(
          "unavailable",
          "TOO_MANY_STREAMS",
          `this process serves at most ${feed.maxStreams} open event streams; retry later`,
          { max_streams: feed.maxStreams },
          { retryAfterSeconds: 5 },
        );
      }
      const client = clientIpKey(req);
      if (!feed.clientHasRoom(client)) {
        throw new AppError(
          "rate_limited",
          "TOO_MANY_CLIENT_STREAMS",
          `one client may hold at most ${feed.maxStreamsPerClient} open event streams; close one or retry later`,
          {
            max_streams_per_client: feed.maxStreamsPerClient,
          },
          { retryAfterSeconds: 5 },
        );
      }
      const send = (count: { minted: number; max: number }) =>
        res.write(`event: minted\ndata: ${JSON.stringify(count)}\n\n`);
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
    },
  );

  // ---------------------------------------------------------------------------- payments

  api.post("/collections/:slug/payment-psbt", limit("payment PSBTs"), requireSession);
  routes.post(
    "/collections/:slug/payment-psbt",
    {
      summary: "Build the unsigned payment PSBT of the session's reservation",
      tags: ["payments"],
      security: SESSION,
      params: S.SlugParams,
      body: requests.PaymentPsbtRequest,
      description:
        "Funded from the claimant's confirmed outputs that carry no inscription or DRC-20 transfer (outputs the node's mempool spends are skipped): the price to the creator, the OP_RETURN memo, the change back. Building again replaces the kept PSBT. 503 PAYMENT_PSBT_UNAVAILABLE without a node.",
      responses: { 201: S.PaymentPsbt },
    },
    async ({ params, body }, _req, res) => {
      const session = sessionOf(res);
      const collection = collectionOr404(params.slug);
      deploys.ensureDeployed(collection);
      res
        .status(201)
        .json(await paymentsOr503().build(collection, session.address, body.reservation_id, body.public_key));
    },
  );

  api.post("/collections/:slug/payment", limit("signed payments"), requireSession);
  routes.post(
    "/collections/:slug/payment",
    {
      summary: "Finalise the signed payment PSBT (the page broadcasts it through the explorer)",
      tags: ["payments"],
      security: SESSION,
      params: S.SlugParams,
      body: requests.SignedPaymentRequest,
      description:
        "The signed PSBT's transaction must be byte for byte the one built for this reservation (400 PSBT_MISMATCH), each input signed once, low-s SIGHASH_ALL, by the session's key. The launchpad never broadcasts.",
      responses: { 200: S.SignedPayment },
    },
    ({ params, body }, _req, res) => {
      const session = sessionOf(res);
      const collection = collectionOr404(params.slug);
      deploys.ensureDeployed(collection);
      res.json(paymentsOr503().finish(collection, session.address, body.reservation_id, body.psbt));
    },
  );

  // ---------------------------------------------------------------------------- membership

  routes.get(
    "/collections/:slug/membership",
    {
      summary: "Whether an address holds a member token of a collection now (the explorer's index)",
      tags: ["membership"],
      params: S.SlugParams,
      query: requests.MembershipQuery,
      responses: { 200: S.Membership },
    },
    ({ params, query }, _req, res) => {
      const { slug } = params;
      if (!collections.get(slug) && !index.hasCollection(slug)) {
        throw notFound("COLLECTION_NOT_FOUND", `no collection "${slug}" is listed or indexed`, { slug });
      }
      res.json(membershipJson(index.membership(slug, query.address)));
    },
  );

  // ---------------------------------------------------------------------- the pages' needs

  routes.get(
    "/config",
    {
      summary: "What the pages need to know: the network, the explorer, the development wallet",
      tags: ["pages"],
      responses: { 200: S.PagesConfig },
    },
    (_input, _req, res) => {
      res.json({
        network: network.name,
        explorer_url: options.explorerUrl ?? null,
        development_wallet: options.walletProviderScript !== undefined,
      });
    },
  );

  // The members-only page's content, behind requireMember: a Bearer session whose address holds a
  // member token of the collection now (the index decides, so a sold token stops opening it).
  routes.get(
    "/collections/:slug/members-only",
    {
      summary: "The members-only page's content",
      tags: ["membership"],
      security: SESSION,
      params: S.SlugParams,
      responses: { 200: S.MembersOnly },
      description:
        "For a session whose address holds a member token of the collection now (403 NOT_A_MEMBER otherwise): the index decides, so a sold token stops opening it.",
    },
    async ({ params }, req, res) => {
      const { slug } = params;
      if (!collections.get(slug) && !index.hasCollection(slug))
        throw notFound("COLLECTION_NOT_FOUND", `no collection "${slug}" is listed or indexed`, { slug });
      await new Promise<void>((resolve, reject) =>
        gate.requireMember(slug)(req, res, (error?: unknown) => (error ? reject(error) : resolve())),
      );
      const membership = res.locals.launchpadMembership as Membership;
      const collection = collections.get(membership.slug);
      res.json({
        slug: membership.slug,
        name: collection?.name ?? membership.slug,
        address: membership.address,
        tokens: membership.tokens.map((t) => ({ token_id: t.tokenId, inscription_id: t.inscriptionId })),
        message: `Welcome, holder of ${membership.tokens.map((t) => `#${t.tokenId}`).join(", ")} of ${collection?.name ?? membership.slug}.`,
      });
    },
  );

  app.use("/api", api);
  options.mount?.(app, gate, surface);
  surface.serve(app);
  serveAbiIndex(app, surface);
  // The pages: served when a directory is given (404 NOT_FOUND otherwise), documented either way.
  servePages(app, surface, {
    webDir: options.webDir,
    providerScript: async () =>
      options.walletProviderScript ?? walletProviderScript({ network, explorerUrl: options.explorerUrl }),
    providerDescription:
      "Installs window.wallet over the wallets the browser brings (MyDoge, DogeLabs, UniSat-style) and, when the daemon has one (devnet and testnet only), the development wallet.",
  });
  app.use(unknownRoute);
  app.use(errorMiddleware(log));
  return app;
}
