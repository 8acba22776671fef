/**
 * Collections listed on the launchpad and their reservations. A claim chooses the lowest index
 * that is neither minted nor held by a live reservation and inserts the reservation in one SQLite
 * IMMEDIATE transaction, so one index never goes to two claimants (the partial unique index on
 * live reservations holds it in the database too).
 */
import type { Sqlite } from "../../db/sqlite";
import {
  LAUNCHPAD_CONTENT_TYPE,
  LAUNCHPAD_DEPLOY_OP,
  LAUNCHPAD_MINT_OP,
  LAUNCHPAD_PROTOCOL,
  encodeLaunchpadDeploy,
} from "../../inscription/launchpad";
import { Refusal, conflict, notFound } from "../../errors";
import type { InscriberClient } from "../inscriber/client";

/** Largest collection the launchpad lists (the wire format allows more; reservations are per index). */
export const MAX_COLLECTION_SIZE = 1_000_000;

/**
 * Highest price the launchpad lists: 1,000,000 DOGE. The wire format allows 2^64 - 1 koinu, more
 * DOGE than exist, a price no payment can meet (issue 17).
 */
export const MAX_PRICE_KOINU = 1_000_000n * 100_000_000n;

/**
 * A collection's LAUNCHPAD_DEPLOY (issue 26): `pending` until the inscriber takes the job (no
 * inscriber, or it could not be reached: `error` says why, and the worker submits it again),
 * `submitted` while the job runs and until the index holds this deploy as the slug's at the payment
 * depth, then `indexed`: only then does the collection take claims and payments. `failed` for good
 * when the inscriber job failed or the index holds another deploy of the slug (`error` says which).
 */
export type DeployStatus = "pending" | "submitted" | "indexed" | "failed";

export interface Collection {
  slug: string;
  name: string;
  priceKoinu: bigint;
  maxSupply: number;
  creatorAddress: string;
  listedBy: string;
  createdAt: number;
  minted: number;
  deploy: { status: DeployStatus; jobId: string | null; inscriptionId: string | null; error: string | null };
}

export interface Reservation {
  id: number;
  slug: string;
  tokenIndex: number;
  address: string;
  reservedAt: number;
  expiresAt: number;
}

/** A reservation with its state: `active` (live until expiresAt), `expired`, or `minted` (used for a mint). */
export interface ReservationRecord extends Reservation {
  status: "active" | "expired" | "minted";
}

/**
 * What this store asks the owners of the launchpad's other tables (STYLE.md 18: one owner per
 * table), passed in so that this module imports neither: mints.ts owns mints and payments
 * (MintReferences), payment.ts owns payment_psbts (PaymentPsbtStore). Both are called inside this
 * store's transactions.
 */
export interface ReservationLinks {
  mints: {
    /** Whether a mint that has not failed holds `tokenIndex` of `slug`. */
    holds(slug: string, tokenIndex: number): boolean;
    /** Of `reservationIds`, those a mint or a payment refers to. */
    referencing(reservationIds: readonly number[]): Set<number>;
  };
  paymentPsbts: {
    /** Deletes the payment PSBTs built for `reservationIds`. */
    forget(reservationIds: readonly number[]): void;
  };
}

/** What the inscriber is asked to inscribe (DESIGN.md 4.2/4.3): one launchpad body in the v1 envelope. */
export interface LaunchpadInscriptionRequest {
  project: "launchpad";
  contentType: typeof LAUNCHPAD_CONTENT_TYPE;
  action: typeof LAUNCHPAD_DEPLOY_OP | typeof LAUNCHPAD_MINT_OP;
  /** The exact body bytes (encodeLaunchpadDeploy / encodeLaunchpadMint). */
  content: Uint8Array;
  recipient: string;
  /** Sent as the inscriber's Idempotency-Key: a retried request never makes a second inscription. */
  idempotencyKey: string;
}

/**
 * The inscriber as the launchpad needs it: the platform inscription endpoint (`POST /inscribe` of
 * the inscriber with project "launchpad") and its jobs. The inscriber's one client (InscriberClient,
 * src/services/inscriber/client.ts) is the real one; without an inscriber deploys stay `pending`
 * and mints are refused.
 */
export type LaunchpadInscriber = Pick<InscriberClient, "inscribe" | "job">;

/** The LAUNCHPAD_MINT body for `tokenIndex` of a collection, as JSON (DESIGN.md 4.3). */
export function mintBodyJson(slug: string, tokenIndex: number, maxSupply: number) {
  return { p: LAUNCHPAD_PROTOCOL, op: LAUNCHPAD_MINT_OP, slug, id: String(tokenIndex), max: String(maxSupply) };
}

/** The request that inscribes a collection's LAUNCHPAD_DEPLOY, the inscription landing on the creator's address. */
export function deployRequest(collection: Collection): LaunchpadInscriptionRequest {
  return {
    project: "launchpad",
    contentType: LAUNCHPAD_CONTENT_TYPE,
    action: LAUNCHPAD_DEPLOY_OP,
    content: encodeLaunchpadDeploy({
      slug: collection.slug,
      name: collection.name,
      priceKoinu: collection.priceKoinu,
      maxSupply: BigInt(collection.maxSupply),
    }),
    recipient: collection.creatorAddress,
    idempotencyKey: `launchpad-deploy-${collection.slug}`,
  };
}

interface CollectionRow {
  slug: string;
  name: string;
  price_koinu: string;
  max_supply: number;
  creator_address: string;
  listed_by: string;
  created_at: number;
  deploy_status: DeployStatus;
  deploy_job_id: string | null;
  deploy_inscription_id: string | null;
  deploy_error: string | null;
  minted: number;
}

interface ReservationRow {
  id: number;
  slug: string;
  token_index: number;
  address: string;
  reserved_at: number;
  expires_at: number;
}

interface ReservationStateRow extends ReservationRow {
  status: ReservationRecord["status"];
}

const toCollection = (r: CollectionRow): Collection => ({
  slug: r.slug,
  name: r.name,
  priceKoinu: BigInt(r.price_koinu),
  maxSupply: r.max_supply,
  creatorAddress: r.creator_address,
  listedBy: r.listed_by,
  createdAt: r.created_at,
  minted: r.minted,
  deploy: {
    status: r.deploy_status,
    jobId: r.deploy_job_id,
    inscriptionId: r.deploy_inscription_id,
    error: r.deploy_error,
  },
});

const toReservation = (r: ReservationRow): Reservation => ({
  id: r.id,
  slug: r.slug,
  tokenIndex: r.token_index,
  address: r.address,
  reservedAt: r.reserved_at,
  expiresAt: r.expires_at,
});

const COLLECTION_COLUMNS = `c.slug, c.name, c.price_koinu, c.max_supply, c.creator_address, c.listed_by, c.created_at, c.deploy_status, c.deploy_job_id,
  c.deploy_inscription_id, c.deploy_error, (SELECT COUNT(*) FROM collection_items i WHERE i.slug = c.slug) AS minted`;

export class CollectionStore {
  private readonly s;

  constructor(
    private readonly db: Sqlite,
    private readonly clock: () => number,
    private readonly reservationSeconds: number,
    private readonly links: ReservationLinks,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      get: p(`SELECT ${COLLECTION_COLUMNS} FROM collections c WHERE c.slug = ?`),
      list: p(`SELECT ${COLLECTION_COLUMNS} FROM collections c WHERE c.slug > ? ORDER BY c.slug LIMIT ?`),
      insert:
        p(`INSERT INTO collections (slug, name, price_koinu, max_supply, creator_address, listed_by, created_at, deploy_status)
        VALUES (?, ?, ?, ?, ?, ?, ?, 'pending') ON CONFLICT (slug) DO NOTHING`),
      deploySubmitted: p(
        "UPDATE collections SET deploy_status = 'submitted', deploy_job_id = ?, deploy_error = NULL WHERE slug = ? AND deploy_status = 'pending'",
      ),
      deploySubmitFailed: p("UPDATE collections SET deploy_error = ? WHERE slug = ? AND deploy_status = 'pending'"),
      deployInscribed: p(
        "UPDATE collections SET deploy_inscription_id = ? WHERE slug = ? AND deploy_status = 'submitted' AND deploy_inscription_id IS NULL",
      ),
      deployIndexed: p(
        "UPDATE collections SET deploy_status = 'indexed', deploy_error = NULL WHERE slug = ? AND deploy_status = 'submitted'",
      ),
      deployFailed: p(
        "UPDATE collections SET deploy_status = 'failed', deploy_error = ? WHERE slug = ? AND deploy_status IN ('pending', 'submitted')",
      ),
      // The deploys the worker still follows (submitted) or submits again (pending): oldest first, a page at a time.
      deploysOpen: p(
        `SELECT ${COLLECTION_COLUMNS} FROM collections c WHERE c.deploy_status IN ('pending', 'submitted') ORDER BY c.created_at LIMIT ?`,
      ),
      expire: p("UPDATE reservations SET status = 'expired' WHERE slug = ? AND status = 'active' AND expires_at <= ?"),
      liveOf: p(
        "SELECT id, slug, token_index, address, reserved_at, expires_at FROM reservations WHERE slug = ? AND address = ? AND status = 'active' AND expires_at > ?",
      ),
      // Whether one index is taken here (minted, or held by a live reservation): two index lookups;
      // a mint that has not failed takes it too (links.mints.holds).
      taken: p(`SELECT EXISTS (SELECT 1 FROM collection_items i WHERE i.slug = $slug AND i.token_index = $c)
          OR EXISTS (SELECT 1 FROM reservations r WHERE r.slug = $slug AND r.token_index = $c AND r.status = 'active' AND r.expires_at > $now) AS taken`),
      floor: p("SELECT claim_floor AS floor FROM collections WHERE slug = ?"),
      setFloor: p("UPDATE collections SET claim_floor = ? WHERE slug = ?"),
      lowerFloor: p("UPDATE collections SET claim_floor = MIN(claim_floor, ?) WHERE slug = ?"),
      minExpiring: p(
        "SELECT MIN(token_index) AS low FROM reservations WHERE slug = ? AND status = 'active' AND expires_at <= ?",
      ),
      liveCount: p("SELECT COUNT(*) AS n FROM reservations WHERE slug = ? AND status = 'active' AND expires_at > ?"),
      insertReservation: p(
        "INSERT INTO reservations (slug, token_index, address, reserved_at, expires_at, status, client_key) VALUES (?, ?, ?, ?, ?, 'active', ?)",
      ),
      // Counts at most `cap` rows: a claim's cost does not grow with what one client holds.
      liveOfClient: p(
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM reservations WHERE slug = ? AND client_key = ? AND status = 'active' AND expires_at > ? LIMIT ?)",
      ),
      firstExpiryOfClient: p(
        "SELECT MIN(expires_at) AS first_expiry FROM reservations WHERE slug = ? AND client_key = ? AND status = 'active' AND expires_at > ?",
      ),
      // Expired reservations that no minted item refers to: the candidates for pruning (the owners of
      // mints, payments and payment PSBTs are asked about the rest).
      expiredUnminted: p(`SELECT r.id FROM reservations r WHERE r.status = 'expired' AND r.expires_at < ?
        AND NOT EXISTS (SELECT 1 FROM collection_items i WHERE i.reservation_id = r.id)`),
      deleteReservations: p("DELETE FROM reservations WHERE id IN (SELECT value FROM json_each(?))"),
      reservation: p(
        "SELECT id, slug, token_index, address, reserved_at, expires_at, status FROM reservations WHERE id = ?",
      ),
      reservationMinted: p("UPDATE reservations SET status = 'minted' WHERE id = ? AND status = 'active'"),
      item: p(`INSERT INTO collection_items (slug, token_index, address, reservation_id, mint_txid, inscription_id, minted_at)
        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (slug, token_index) DO NOTHING`),
      creator: p("SELECT creator_address FROM collections WHERE slug = ?"),
    };
  }

  get(slug: string): Collection | null {
    const row = this.s.get.get(slug) as CollectionRow | undefined;
    return row ? toCollection(row) : null;
  }

  /** Collections ordered by slug, after `afterSlug` (a page of at most `limit`). */
  list(afterSlug: string, limit: number): Collection[] {
    return (this.s.list.all(afterSlug, limit) as CollectionRow[]).map(toCollection);
  }

  /** Lists a new collection with its deploy pending; 409 SLUG_TAKEN when the slug is listed already. */
  create(input: {
    slug: string;
    name: string;
    priceKoinu: bigint;
    maxSupply: number;
    creatorAddress: string;
    listedBy: string;
  }): Collection {
    const inserted = this.s.insert.run(
      input.slug,
      input.name,
      input.priceKoinu.toString(),
      input.maxSupply,
      input.creatorAddress,
      input.listedBy,
      this.clock(),
    );
    if (inserted.changes !== 1)
      throw conflict("SLUG_TAKEN", `a collection with slug "${input.slug}" is already listed`, { slug: input.slug });
    return this.get(input.slug)!;
  }

  markDeploySubmitted(slug: string, jobId: string): void {
    this.s.deploySubmitted.run(jobId, slug);
  }

  /** The inscriber could not take the deploy now: it stays pending with the reason (the worker submits it again). */
  markDeploySubmitFailed(slug: string, error: string): void {
    this.s.deploySubmitFailed.run(error, slug);
  }

  /** The inscriber confirmed the deploy's inscription (the index has yet to judge it). */
  markDeployInscribed(slug: string, inscriptionId: string): void {
    this.s.deployInscribed.run(inscriptionId, slug);
  }

  /** The index holds this deploy as the slug's at depth: claims open. */
  markDeployIndexed(slug: string): void {
    this.s.deployIndexed.run(slug);
  }

  /** The deploy can never be the slug's (its job failed, or another deploy holds the slug): no claim ever. */
  markDeployFailed(slug: string, reason: string): void {
    this.s.deployFailed.run(reason, slug);
  }

  /** Up to `limit` collections whose deploy is pending or submitted, oldest first. */
  openDeploys(limit: number): Collection[] {
    return (this.s.deploysOpen.all(limit) as CollectionRow[]).map(toCollection);
  }

  /**
   * Reserves the lowest free index of `slug` for `address` until now + the reservation window, or
   * gives back the address's live reservation (`created: false`). 404 for an unknown collection,
   * 409 SOLD_OUT when every index is minted or held by a live reservation, 429 RESERVATION_LIMIT when
   * `client.key` (the claim's client IP) already holds `client.maxLive` live reservations of `slug`
   * (0: no cap), with Retry-After until the first of them expires.
   */
  claim(
    slug: string,
    address: string,
    client: { key: string; maxLive: number } = { key: "", maxLive: 0 },
  ): { reservation: Reservation; created: boolean } {
    return this.db
      .transaction(() => {
        const now = this.clock();
        const collection = this.get(slug);
        if (!collection) throw notFound("COLLECTION_NOT_FOUND", `no collection "${slug}" is listed`, { slug });
        // Expired reservations leave the live set (and its unique index) before an index is chosen;
        // the lowest of them lowers the floor, so a freed index is reused first.
        const freed = (this.s.minExpiring.get(slug, now) as { low: number | null }).low;
        if (freed !== null) this.s.lowerFloor.run(freed, slug);
        this.s.expire.run(slug, now);
        const live = this.s.liveOf.get(slug, address, now) as ReservationRow | undefined;
        if (live) return { reservation: toReservation(live), created: false };
        if (client.maxLive > 0) {
          const held = this.s.liveOfClient.get(slug, client.key, now, client.maxLive) as { n: number };
          if (held.n >= client.maxLive) {
            const first = (this.s.firstExpiryOfClient.get(slug, client.key, now) as { first_expiry: number | null })
              .first_expiry;
            const retryAfter = Math.max(1, (first ?? now + 1) - now);
            throw new Refusal(
              "rate_limited",
              "RESERVATION_LIMIT",
              `this client already holds ${held.n} live reservations of "${slug}", the most one client may; retry when one expires`,
              {
                slug,
                live_reservations: held.n,
                max_per_client: client.maxLive,
                retry_after_seconds: retryAfter,
              },
              { retryAfterSeconds: retryAfter },
            );
          }
        }
        // Every index below the floor is taken (the floor is lowered whenever one is freed), so the
        // lowest free index is the first one from the floor up that is not taken: a few index
        // lookups per claim however many are taken, instead of a scan of all of them.
        let next = (this.s.floor.get(slug) as { floor: number }).floor;
        while (next < collection.maxSupply && this.isTaken(slug, next, now)) next++;
        this.s.setFloor.run(next, slug);
        if (next >= collection.maxSupply) {
          const reserved = (this.s.liveCount.get(slug, now) as { n: number }).n;
          throw conflict("SOLD_OUT", `every index of "${slug}" is minted or reserved`, {
            slug,
            max: collection.maxSupply,
            minted: collection.minted,
            reserved,
          });
        }
        const expiresAt = now + this.reservationSeconds;
        const id = Number(
          this.s.insertReservation.run(slug, next, address, now, expiresAt, client.key).lastInsertRowid,
        );
        return { reservation: { id, slug, tokenIndex: next, address, reservedAt: now, expiresAt }, created: true };
      })
      .immediate();
  }

  /** Whether `tokenIndex` of `slug` is minted, in a mint that has not failed, or held by a live reservation. */
  private isTaken(slug: string, tokenIndex: number, now: number): boolean {
    return (
      (this.s.taken.get({ slug, c: tokenIndex, now }) as { taken: number }).taken === 1 ||
      this.links.mints.holds(slug, tokenIndex)
    );
  }

  /**
   * Deletes reservations that expired before `before` and that no mint, payment or minted item
   * refers to, with their payment PSBTs (a stranger's claims leave no row forever). Answers how many
   * reservations went.
   */
  pruneExpired(before: number): number {
    return this.db
      .transaction(() => {
        const candidates = (this.s.expiredUnminted.all(before) as { id: number }[]).map((r) => r.id);
        if (candidates.length === 0) return 0;
        const referenced = this.links.mints.referencing(candidates);
        const unreferenced = candidates.filter((id) => !referenced.has(id));
        if (unreferenced.length === 0) return 0;
        this.links.paymentPsbts.forget(unreferenced);
        return this.s.deleteReservations.run(JSON.stringify(unreferenced)).changes;
      })
      .immediate();
  }

  /** Makes `tokenIndex` of `slug` the floor if it is lower (an index freed by a failed mint). */
  freed(slug: string, tokenIndex: number): void {
    this.s.lowerFloor.run(tokenIndex, slug);
  }

  /** Reservation `id` whatever its state, or null. */
  reservation(id: number): ReservationRecord | null {
    const row = this.s.reservation.get(id) as ReservationStateRow | undefined;
    return row ? { ...toReservation(row), status: row.status } : null;
  }

  /** Marks an active reservation used for a mint; answers whether it was active. Runs in the caller's transaction. */
  markReservationMinted(id: number): boolean {
    return this.s.reservationMinted.run(id).changes === 1;
  }

  /**
   * Counts a confirmed mint: one collection_items row per index, inserted once (the primary key holds
   * it). Answers whether this call added it. Runs in the caller's transaction.
   */
  addItem(item: {
    slug: string;
    tokenIndex: number;
    address: string;
    reservationId: number;
    mintTxid: string | null;
    inscriptionId: string | null;
    mintedAt: number;
  }): boolean {
    return (
      this.s.item.run(
        item.slug,
        item.tokenIndex,
        item.address,
        item.reservationId,
        item.mintTxid,
        item.inscriptionId,
        item.mintedAt,
      ).changes === 1
    );
  }

  /** The creator of `slug` (who receives its payments), or null for an unknown collection. */
  creatorAddress(slug: string): string | null {
    return (this.s.creator.get(slug) as { creator_address: string } | undefined)?.creator_address ?? null;
  }

  /** The live reservation of `address` on `slug`, or null. */
  liveReservation(slug: string, address: string): Reservation | null {
    const row = this.s.liveOf.get(slug, address, this.clock()) as ReservationRow | undefined;
    return row ? toReservation(row) : null;
  }
}
