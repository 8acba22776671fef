/**
 * The index's verdicts on launchpad operations (DESIGN.md 4.3), for the launchpad's own checks
 * (issue 26): which deploy of a slug the index admitted (the first one, whoever made it) and what it
 * judged of one launchpad inscription (a mint: member or not, and why). Primary-key reads only.
 */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlDatabase } from "../../db/sql";
import { inscriptionIdOf, inscriptionTxidKey } from "./inscriptions";
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
      deploy: `SELECT c.slug, g.txid AS deploy_txid, a.address AS inscriber_address, c.max_supply, c.height FROM collections c
        JOIN txs g ON g.id = c.deploy_inscription JOIN addresses a ON a.id = c.inscriber_id WHERE c.slug = ?`,
      operation: `SELECT g.txid AS genesis_txid, o.op, o.slug, o.token_id, o.valid, o.reason, o.height FROM txs g
        JOIN launchpad_operations o ON o.inscription_id = g.id WHERE g.id = ${TX_ID_OF_TXID}`,
    });
  }

  /** The deploy of `slug` the index admitted, or null. */
  collectionDeploy(slug: string): CollectionDeployView | null {
    const r = this.s.deploy.get(slug) as
      | { slug: string; deploy_txid: Uint8Array; inscriber_address: string; max_supply: string; height: number }
      | undefined;
    return r
      ? {
          slug: r.slug,
          inscriptionId: inscriptionIdOf(r.deploy_txid),
          inscriberAddress: r.inscriber_address,
          maxSupply: String(r.max_supply),
          height: Number(r.height),
        }
      : null;
  }

  /** The index's verdict on launchpad inscription `inscriptionId`, or null (not indexed, or not a launchpad body). */
  launchpadOperation(inscriptionId: string): LaunchpadOperationView | null {
    const key = inscriptionTxidKey(inscriptionId);
    if (key === null) return null;
    const r = this.s.operation.get(key) as
      | {
          genesis_txid: Uint8Array;
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
          inscriptionId: inscriptionIdOf(r.genesis_txid),
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
