/**
 * The index's verdicts on launchpad operations (DESIGN.md 4.3), for the launchpad's own checks
 * (issue 26): which deploy of a slug the index admitted (the first one, whoever made it) and what it
 * judged of one launchpad inscription (a mint: member or not, and why). Primary-key reads only.
 */
import type { SqlDatabase } from "../../db/sql";
import { prepareAll } from "./rows";

/** The deploy of a slug the index admitted. */
export interface CollectionDeployView {
  slug: string;
  /** The deploy's inscription. */
  inscriptionId: string;
  /** The address that funded the deploy's commit: mints count only when inscribed by it. */
  inscriberAddress: string;
  maxSupply: string;
  height: number;
}

/** What the index made of one launchpad inscription. */
export interface LaunchpadOperationView {
  inscriptionId: string;
  op: "deploy" | "mint" | "invalid";
  slug: string | null;
  tokenId: string | null;
  /** A deploy admitted, or a mint counted as a member token. */
  valid: boolean;
  /** Why not (e.g. SLUG_TAKEN, ALREADY_MINTED, WRONG_INSCRIBER); null when valid. */
  reason: string | null;
  height: number;
}

export class LaunchpadReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      deploy: "SELECT slug, deploy_inscription, inscriber_address, max_supply, height FROM collections WHERE slug = ?",
      operation:
        "SELECT inscription_id, op, slug, token_id, valid, reason, height FROM launchpad_operations WHERE inscription_id = ?",
    });
  }

  /** The deploy of `slug` the index admitted, or null. */
  collectionDeploy(slug: string): CollectionDeployView | null {
    const r = this.s.deploy.get(slug) as
      | { slug: string; deploy_inscription: string; inscriber_address: string; max_supply: string; height: number }
      | undefined;
    return r
      ? {
          slug: r.slug,
          inscriptionId: r.deploy_inscription,
          inscriberAddress: r.inscriber_address,
          maxSupply: String(r.max_supply),
          height: Number(r.height),
        }
      : null;
  }

  /** The index's verdict on launchpad inscription `inscriptionId`, or null (not indexed, or not a launchpad body). */
  launchpadOperation(inscriptionId: string): LaunchpadOperationView | null {
    const r = this.s.operation.get(inscriptionId) as
      | {
          inscription_id: string;
          op: string;
          slug: string | null;
          token_id: string | null;
          valid: number | boolean;
          reason: string | null;
          height: number;
        }
      | undefined;
    return r
      ? {
          inscriptionId: r.inscription_id,
          op: r.op as LaunchpadOperationView["op"],
          slug: r.slug,
          tokenId: r.token_id,
          valid: Number(r.valid) === 1,
          reason: r.reason,
          height: Number(r.height),
        }
      : null;
  }
}
