/**
 * Collection membership from the explorer's index alone (DESIGN.md 4.3): the indexer admits a
 * LAUNCHPAD_MINT as a member token (`collection_members`) only when it follows the rules, and
 * `inscription_locations` says who holds each inscription now. So a token bought on the market
 * counts for its buyer and stops counting for its seller, with no launchpad record involved.
 */
import type { RequestHandler } from "express";
import type { Sqlite } from "../../db/sqlite";
import { AppError } from "../http/errors";
import { SessionStore, ensureSession } from "./sessions";

export interface MemberToken {
  tokenId: string;
  inscriptionId: string;
  /** Where the inscription sits now. */
  location: { txid: string; vout: number; offset: number };
}

export interface Membership {
  slug: string;
  address: string;
  member: boolean;
  tokens: MemberToken[];
  /** Whether the index holds a deploy for the slug (false while the deploy is not confirmed). */
  collectionIndexed: boolean;
  indexedHeight: number | null;
}

/** Reads membership from the explorer's index database (opened read-only by a daemon). */
export class CollectionIndex {
  private readonly s;

  constructor(indexDb: Sqlite) {
    const p = (sql: string) => indexDb.prepare(sql);
    this.s = {
      collection: p("SELECT 1 FROM collections WHERE slug = ?"),
      tokens: p(`SELECT m.token_id, m.inscription_id, l.txid, l.vout, l.offset FROM collection_members m
        JOIN inscription_locations l ON l.inscription_id = m.inscription_id
        WHERE m.slug = ? AND l.owner_address = ? ORDER BY CAST(m.token_id AS INTEGER)`),
      tip: p("SELECT MAX(height) AS height FROM blocks"),
    };
  }

  /** Whether the index holds a deploy of `slug`. */
  hasCollection(slug: string): boolean {
    return this.s.collection.get(slug) !== undefined;
  }

  /** The member tokens of `slug` that `address` holds now. */
  membership(slug: string, address: string): Membership {
    const tokens = (this.s.tokens.all(slug, address) as { token_id: string; inscription_id: string; txid: string; vout: number; offset: number }[])
      .map((r) => ({ tokenId: r.token_id, inscriptionId: r.inscription_id, location: { txid: r.txid, vout: r.vout, offset: r.offset } }));
    const height = (this.s.tip.get() as { height: number | null }).height;
    return { slug, address, member: tokens.length > 0, tokens, collectionIndexed: this.hasCollection(slug), indexedHeight: height };
  }
}

export interface MemberGate {
  /** Whether `address` holds a member token of `slug` now (for role bots, downloads, scripts). */
  isMember(slug: string, address: string): Promise<boolean>;
  /**
   * Express middleware for pages: the request's launchpad session (Bearer token; authenticated here
   * when no earlier middleware did) must hold a member token of `slug`, or of the slug a function
   * reads from the request. 401 without a live session, 403 NOT_A_MEMBER otherwise.
   */
  requireMember(slug: string | ((req: Parameters<RequestHandler>[0]) => string)): RequestHandler;
}

export function createMemberGate(sessions: SessionStore, index: CollectionIndex): MemberGate {
  return {
    async isMember(slug, address) {
      return index.membership(slug, address).member;
    },
    requireMember(slug) {
      return (req, res, next) => {
        try {
          const session = ensureSession(sessions, req.headers.authorization, res);
          const wanted = typeof slug === "function" ? slug(req) : slug;
          const membership = index.membership(wanted, session.address);
          if (!membership.member) {
            throw new AppError(403, "NOT_A_MEMBER", `${session.address} holds no token of "${wanted}"`, { slug: wanted, address: session.address });
          }
          res.locals.launchpadMembership = membership;
          next();
        } catch (error) {
          next(error);
        }
      };
    },
  };
}
