/**
 * Collection membership from the explorer's index alone (DESIGN.md 4.3): the indexer admits a
 * LAUNCHPAD_MINT as a member token (`collection_members`) only when it follows the rules, and
 * `inscription_locations` says who holds each inscription now. So a token bought on the market
 * counts for its buyer and stops counting for its seller, with no launchpad record involved.
 */
import type { RequestHandler } from "express";
import type { IndexQueries, InscriptionView } from "../../indexer/queries";
import type { CollectionDeployView, LaunchpadOperationView } from "../../indexer/queries";
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

/** Reads membership from the explorer's index (through its query module, opened read-only by a daemon). */
export class CollectionIndex {
  constructor(private readonly queries: IndexQueries) {}

  /** The deploy of `slug` the index admitted (the first one, whoever made it), or null. */
  deploy(slug: string): CollectionDeployView | null {
    return this.queries.collectionDeploy(slug);
  }

  /** The index's verdict on a launchpad inscription (a mint: member or not, and why), or null. */
  operation(inscriptionId: string): LaunchpadOperationView | null {
    return this.queries.launchpadOperation(inscriptionId);
  }

  /** An inscription with where it sits now, or null while the index does not hold it. */
  inscription(inscriptionId: string): InscriptionView | null {
    return this.queries.inscription(inscriptionId);
  }

  /** Confirmations of a block at `height` by the index's tip (0 while the index has not reached it). */
  confirmations(height: number): number {
    const tip = this.queries.tipHeight();
    return tip === null || tip < height ? 0 : tip - height + 1;
  }

  /** Whether the index holds a deploy of `slug`. */
  hasCollection(slug: string): boolean {
    return this.queries.hasCollection(slug);
  }

  /** The member tokens of `slug` that `address` holds now. */
  membership(slug: string, address: string): Membership {
    const tokens = this.queries.collectionTokensHeld(slug, address);
    return {
      slug,
      address,
      member: tokens.length > 0,
      tokens,
      collectionIndexed: this.hasCollection(slug),
      indexedHeight: this.queries.tipHeight(),
    };
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
            throw new AppError("forbidden", "NOT_A_MEMBER", `${session.address} holds no token of "${wanted}"`, {
              slug: wanted,
              address: session.address,
            });
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
