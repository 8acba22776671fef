/**
 * Collection membership from the explorer's index alone (DESIGN.md 4.3): the indexer admits a
 * LAUNCHPAD_MINT as a member token (`collection_members`) only when it follows the rules, and
 * `inscription_locations` says who holds each inscription now. So a token bought on the market
 * counts for its buyer and stops counting for its seller, with no launchpad record involved.
 */
import type { IndexQueries, InscriptionView } from "../../indexer/queries";
import type { CollectionDeployView, LaunchpadOperationView } from "../../indexer/queries";
import { Refusal } from "../../errors";

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

  /** `address`'s membership of `slug` when it holds a member token now; refuses (forbidden) NOT_A_MEMBER otherwise. */
  requireMember(slug: string, address: string): Membership {
    const membership = this.membership(slug, address);
    if (!membership.member)
      throw new Refusal("forbidden", "NOT_A_MEMBER", `${address} holds no token of "${slug}"`, { slug, address });
    return membership;
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
