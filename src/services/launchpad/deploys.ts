/**
 * A collection's deploy and the launchpad's authority over its slug (issue 26, docs/security.md
 * "Launchpad payments"). The index keeps the first LAUNCHPAD_DEPLOY of a slug, whoever made it, and
 * counts a mint only when it was inscribed by that deploy's inscriber. So:
 * - a listing is refused (409 SLUG_TAKEN_ON_CHAIN) when the index already holds a deploy of its slug;
 * - a collection takes no claim and no payment (409 COLLECTION_NOT_DEPLOYED) until the index holds
 *   its own deploy (the inscription the launchpad's inscriber job made) as the slug's, at the
 *   payment depth; checked again at every claim and mint, so a reorg that takes the deploy away
 *   closes the collection again;
 * - a deploy whose inscriber job failed, or whose slug another deploy took first, fails the
 *   collection for good (`deploy.status` failed with the reason).
 * The worker (runOnce) submits pending deploys again and follows submitted ones to one of those ends.
 */
import { Refusal, conflict } from "../../errors";
import type { Collection, CollectionStore, LaunchpadInscriber } from "./collections";
import { deployRequest } from "./collections";
import type { CollectionIndex } from "./membership";
import { jobFailure } from "../inscriber/client";

export interface DeployServiceOptions {
  collections: CollectionStore;
  index: CollectionIndex;
  inscriber?: LaunchpadInscriber;
  /** Depth at which the deploy counts (the launchpad's payment depth; default 1). */
  confirmations?: number;
  log: (event: string, fields: Record<string, unknown>) => void;
}

/** Deploys followed per worker pass. */
const DEPLOYS_PER_PASS = 100;

export class DeployService {
  constructor(private readonly options: DeployServiceOptions) {}

  private get required(): number {
    return this.options.confirmations ?? 1;
  }

  /** 409 SLUG_TAKEN_ON_CHAIN when the index already holds a deploy of `slug` (anyone's). */
  ensureSlugFree(slug: string): void {
    const onChain = this.options.index.deploy(slug);
    if (onChain)
      throw conflict(
        "SLUG_TAKEN_ON_CHAIN",
        `"${slug}" is already deployed on chain (inscription ${onChain.inscriptionId}); choose another slug`,
        { slug, deploy_inscription_id: onChain.inscriptionId, height: onChain.height },
      );
  }

  /**
   * 409 COLLECTION_NOT_DEPLOYED unless the index holds `collection`'s own deploy as its slug's at
   * the payment depth (a pending, submitted or failed deploy, or one a reorg took away).
   */
  ensureDeployed(collection: Collection): void {
    const { deploy } = collection;
    const refuse = (reason: string, extra: Record<string, unknown> = {}): Refusal =>
      conflict(
        "COLLECTION_NOT_DEPLOYED",
        deploy.status === "failed"
          ? `"${collection.slug}" has no deploy on chain and never will: ${deploy.error ?? "its deploy failed"}`
          : `"${collection.slug}" takes no claim or payment until its deploy is in the index ${this.required} deep (${reason}); retry later`,
        {
          slug: collection.slug,
          deploy_status: deploy.status,
          reason,
          ...(deploy.error ? { error: deploy.error } : {}),
          ...extra,
        },
      );
    if (deploy.status !== "indexed" || deploy.inscriptionId === null)
      throw refuse(deploy.status === "failed" ? "DEPLOY_FAILED" : "DEPLOY_NOT_INDEXED");
    const onChain = this.options.index.deploy(collection.slug);
    if (!onChain || onChain.inscriptionId !== deploy.inscriptionId) throw refuse("DEPLOY_NOT_IN_INDEX");
    const confirmations = this.options.index.confirmations(onChain.height);
    if (confirmations < this.required)
      throw refuse("DEPLOY_NOT_DEEP_ENOUGH", { confirmations, required: this.required });
  }

  /** Hands `collection`'s deploy to the inscriber; a failure leaves it pending with the reason (submitted again by runOnce). */
  async submit(collection: Collection): Promise<void> {
    const { collections, inscriber, log } = this.options;
    if (!inscriber || collection.deploy.status !== "pending") return;
    try {
      const request = deployRequest(collection);
      const { job } = await inscriber.inscribe(request.idempotencyKey, request);
      collections.markDeploySubmitted(collection.slug, job.id);
    } catch (error) {
      log("launchpad_deploy_submit_failed", { slug: collection.slug, err: (error as Error).message });
      collections.markDeploySubmitFailed(collection.slug, (error as Error).message);
    }
  }

  /** One pass: pending deploys submitted again (unless the slug was taken on chain meanwhile), submitted ones followed. */
  async runOnce(): Promise<void> {
    const { collections, inscriber, log } = this.options;
    if (!inscriber) return;
    for (const collection of collections.openDeploys(DEPLOYS_PER_PASS)) {
      try {
        if (collection.deploy.status === "pending") {
          if (this.takenByAnother(collection)) continue;
          await this.submit(collection);
        } else await this.follow(collection);
      } catch (error) {
        // One unreachable job must not hold the others back; the next pass tries again.
        log("launchpad_deploy_follow_failed", { slug: collection.slug, err: (error as Error).message });
      }
    }
  }

  /** Fails `collection` when the index holds a deploy of its slug that is not its own; answers whether it did. */
  private takenByAnother(collection: Collection): boolean {
    const onChain = this.options.index.deploy(collection.slug);
    if (!onChain || onChain.inscriptionId === collection.deploy.inscriptionId) return false;
    const reason = `SLUG_TAKEN_ON_CHAIN: the index holds another deploy of "${collection.slug}" (${onChain.inscriptionId} by ${onChain.inscriberAddress}); this collection's mints could never count`;
    this.options.collections.markDeployFailed(collection.slug, reason);
    this.options.log("launchpad_deploy_failed", { slug: collection.slug, reason });
    return true;
  }

  private async follow(collection: Collection): Promise<void> {
    const { collections, inscriber, index, log } = this.options;
    let inscriptionId = collection.deploy.inscriptionId;
    if (inscriptionId === null) {
      const job = await inscriber!.job(collection.deploy.jobId!);
      if (job.status === "failed") {
        const reason = jobFailure(job);
        collections.markDeployFailed(collection.slug, reason);
        log("launchpad_deploy_failed", { slug: collection.slug, reason });
        return;
      }
      if (job.status !== "confirmed" || !job.inscriptionId) return;
      inscriptionId = job.inscriptionId;
      collections.markDeployInscribed(collection.slug, inscriptionId);
    }
    const mine = { ...collection, deploy: { ...collection.deploy, inscriptionId } };
    if (this.takenByAnother(mine)) return;
    const onChain = index.deploy(collection.slug);
    if (!onChain || index.confirmations(onChain.height) < this.required) return;
    collections.markDeployIndexed(collection.slug);
    log("launchpad_deploy_indexed", { slug: collection.slug, inscriptionId, height: onChain.height });
  }
}
