/**
 * The mint path (issue 8): a claimant's live reservation (and, for a priced collection, a payment
 * found in the explorer's index) becomes an inscriber job for the seed's exact LAUNCHPAD_MINT body,
 * landing on the claimant's address. A worker follows the jobs: the reveal txid and inscription id
 * are recorded, and the collection's `minted` counter (the rows of collection_items) grows exactly
 * once, when the inscriber reports the job confirmed.
 *
 * Money (DESIGN.md 8, docs/security.md "Launchpad payments"): the payment pays the collection's
 * creator straight, so the launchpad never holds it and never pays anything back from a wallet of
 * its own. A payment counts only for its payer: every input spends an output of the claimant's
 * address, and the claimant is not the creator (so no output to the creator is the payer's change).
 * A wrong amount (underpaid, paid after the reservation expired, a second payment for a used
 * reservation, the excess of an overpayment, a payment whose mint failed) is recorded with what the
 * creator owes the payer, shown in the mint and claim answers, and is the creator's to settle. A
 * payment recorded as late or mint_failed still counts for its own payer's next live reservation of
 * the same index.
 */
import type { Sqlite } from "../../db/sqlite";
import { bytesToHex } from "../../doge";
import type { IndexQueries } from "../../indexer/queries";
import { LAUNCHPAD_CONTENT_TYPE, LAUNCHPAD_MINT_OP, encodeLaunchpadMint } from "../../inscription/launchpad";
import { Refusal, badRequest, conflict, notFound, unprocessable } from "../../errors";
import { indexBehind, indexIsBehind } from "../../indexer/read/status";
import type { Collection, CollectionStore, LaunchpadInscriber } from "./collections";
import type { DeployService } from "./deploys";
import type { CollectionIndex } from "./membership";
import { InscriberCallError, isFinalJobStatus, jobFailure } from "../inscriber/client";

/** The protocol identifier of a payment's OP_RETURN: `service-launch-mint:<slug>:<index>`. */
export const MINT_PAYMENT_PROTOCOL = "service-launch-mint";

/**
 * `confirmed` (and counted in X / Y) only once the index judges the inscription a member token at
 * the claimant's address; `rejected_by_index` when the index holds the inscription and judges it no
 * member (`indexReason`: the index's reason, e.g. ALREADY_MINTED): final, the index stays taken and
 * the payment is the creator's to give back (MINT_REJECTED).
 */
export type MintStatus = "accepted" | "submitted" | "revealed" | "confirmed" | "failed" | "rejected_by_index";
export type PaymentStatus = "accepted" | "underpaid" | "late" | "duplicate" | "mint_failed" | "mint_rejected";
/** Why the creator owes the payer koinu of a payment (the creator settles it; the launchpad only records it). */
export type SettlementReason =
  "UNDERPAID" | "RESERVATION_EXPIRED" | "RESERVATION_USED" | "OVERPAID" | "MINT_FAILED" | "MINT_REJECTED";

export interface MintRecord {
  slug: string;
  tokenIndex: number;
  attempt: number;
  reservationId: number;
  address: string;
  paymentTxid: string | null;
  status: MintStatus;
  inscriberJobId: string | null;
  inscriptionId: string | null;
  mintTxid: string | null;
  error: string | null;
  /** The index's reason when it judged the inscription no member (status rejected_by_index). */
  indexReason: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface PaymentRecord {
  txid: string;
  slug: string;
  tokenIndex: number;
  reservationId: number;
  address: string;
  payerAddress: string | null;
  receivedKoinu: bigint;
  priceKoinu: bigint;
  status: PaymentStatus;
  /** The collection's creator, who received the payment. */
  creatorAddress: string;
  /** What the creator owes the payer (null: nothing). */
  settlement: { reason: SettlementReason; owedKoinu: bigint } | null;
  createdAt: number;
}

/** The OP_RETURN text a payment for `index` of `slug` must carry, exactly. */
export const paymentMemo = (slug: string, tokenIndex: number) => `${MINT_PAYMENT_PROTOCOL}:${slug}:${tokenIndex}`;

/**
 * The inscriber's Idempotency-Key of a mint: `launchpad-mint:<slug>:<index>:<attempt>`. A slug holds
 * no ":" and the index and attempt are decimal, so two different mints never share a key.
 */
export const mintIdempotencyKey = (slug: string, tokenIndex: number, attempt: number) =>
  `launchpad-mint:${slug}:${tokenIndex}:${attempt}`;

interface MintRow {
  slug: string;
  token_index: number;
  attempt: number;
  reservation_id: number;
  address: string;
  payment_txid: string | null;
  status: MintStatus;
  inscriber_job_id: string | null;
  inscription_id: string | null;
  mint_txid: string | null;
  error: string | null;
  index_reason: string | null;
  created_at: number;
  updated_at: number;
}
interface PaymentRow {
  txid: string;
  slug: string;
  token_index: number;
  reservation_id: number;
  address: string;
  payer_address: string | null;
  received_koinu: string;
  price_koinu: string;
  status: PaymentStatus;
  settlement_reason: SettlementReason | null;
  settlement_koinu: string;
  created_at: number;
}

const toMint = (r: MintRow): MintRecord => ({
  slug: r.slug,
  tokenIndex: r.token_index,
  attempt: r.attempt,
  reservationId: r.reservation_id,
  address: r.address,
  paymentTxid: r.payment_txid,
  status: r.status,
  inscriberJobId: r.inscriber_job_id,
  inscriptionId: r.inscription_id,
  mintTxid: r.mint_txid,
  error: r.error,
  indexReason: r.index_reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
const toPayment = (r: PaymentRow, creatorAddress: string): PaymentRecord => ({
  txid: r.txid,
  slug: r.slug,
  tokenIndex: r.token_index,
  reservationId: r.reservation_id,
  address: r.address,
  payerAddress: r.payer_address,
  receivedKoinu: BigInt(r.received_koinu),
  priceKoinu: BigInt(r.price_koinu),
  status: r.status,
  creatorAddress,
  settlement:
    r.settlement_reason !== null && BigInt(r.settlement_koinu) > 0n
      ? { reason: r.settlement_reason, owedKoinu: BigInt(r.settlement_koinu) }
      : null,
  createdAt: r.created_at,
});

export const paymentJson = (p: PaymentRecord) => ({
  txid: p.txid,
  payer_address: p.payerAddress,
  received_koinu: p.receivedKoinu.toString(),
  price_koinu: p.priceKoinu.toString(),
  status: p.status,
  settlement: p.settlement
    ? {
        reason: p.settlement.reason,
        owed_koinu: p.settlement.owedKoinu.toString(),
        owed_by: p.creatorAddress,
        owed_to: p.payerAddress,
      }
    : null,
});

/**
 * What the collection store asks of the mints and payments tables (this module owns them; passed
 * into CollectionStore as its `links.mints`, called inside its transactions).
 */
export class MintReferences {
  private readonly s;

  constructor(db: Sqlite) {
    this.s = {
      holds: db.prepare(
        "SELECT EXISTS (SELECT 1 FROM mints WHERE slug = ? AND token_index = ? AND status != 'failed') AS held",
      ),
      referencing:
        db.prepare(`SELECT reservation_id AS id FROM mints WHERE reservation_id IN (SELECT value FROM json_each($ids))
        UNION SELECT reservation_id AS id FROM payments WHERE reservation_id IN (SELECT value FROM json_each($ids))`),
    };
  }

  /** Whether a mint that has not failed holds `tokenIndex` of `slug`. */
  holds(slug: string, tokenIndex: number): boolean {
    return (this.s.holds.get(slug, tokenIndex) as { held: number }).held === 1;
  }

  /** Of `reservationIds`, those a mint or a payment refers to. */
  referencing(reservationIds: readonly number[]): Set<number> {
    if (reservationIds.length === 0) return new Set();
    const rows = this.s.referencing.all({ ids: JSON.stringify(reservationIds) }) as { id: number }[];
    return new Set(rows.map((r) => r.id));
  }
}

export interface MintServiceOptions {
  db: Sqlite;
  queries: IndexQueries;
  collections: CollectionStore;
  /** The index's verdicts on the mints' inscriptions. */
  index: CollectionIndex;
  /** The deploys: no mint before the collection's own deploy is indexed; followed by the worker's pass. */
  deploys: DeployService;
  inscriber?: LaunchpadInscriber;
  clock: () => number;
  log: (event: string, fields: Record<string, unknown>) => void;
  /** Told after a collection's minted counter grew in this process (the live counter, live.ts). */
  onMinted?: (slug: string) => void;
  /** Depth at which a payment and a mint's inscription count (default 1; src/chain/depth.ts has the per-network defaults). */
  paymentConfirmations?: number;
}

type Outcome =
  | { kind: "minted" }
  | { kind: "already" }
  | { kind: "refused"; paymentTxid: string; error: (extra: Record<string, unknown>) => Refusal };

export class MintService {
  private readonly s;

  constructor(private readonly options: MintServiceOptions) {
    const p = (sql: string) => options.db.prepare(sql);
    this.s = {
      mint: p("SELECT * FROM mints WHERE slug = ? AND token_index = ?"),
      open: p(
        "SELECT * FROM mints WHERE status IN ('accepted', 'submitted', 'revealed') ORDER BY updated_at LIMIT 100",
      ),
      upsertMint:
        p(`INSERT INTO mints (slug, token_index, attempt, reservation_id, address, payment_txid, status, created_at, updated_at)
        VALUES ($slug, $index, 1, $reservation, $address, $payment, 'accepted', $now, $now)
        ON CONFLICT (slug, token_index) DO UPDATE SET attempt = mints.attempt + 1, reservation_id = excluded.reservation_id, address = excluded.address,
          payment_txid = excluded.payment_txid, status = 'accepted', inscriber_job_id = NULL, inscription_id = NULL, mint_txid = NULL, error = NULL,
          created_at = excluded.created_at, updated_at = excluded.updated_at
        WHERE mints.status = 'failed'`),
      submitted: p(
        "UPDATE mints SET status = 'submitted', inscriber_job_id = ?, error = NULL, updated_at = ? WHERE slug = ? AND token_index = ? AND status = 'accepted'",
      ),
      mintError: p("UPDATE mints SET error = ?, updated_at = ? WHERE slug = ? AND token_index = ?"),
      revealed: p(
        "UPDATE mints SET status = 'revealed', mint_txid = ?, inscription_id = ?, updated_at = ? WHERE slug = ? AND token_index = ? AND status = 'submitted'",
      ),
      confirmed:
        p(`UPDATE mints SET status = 'confirmed', mint_txid = ?, inscription_id = ?, error = NULL, updated_at = ?
        WHERE slug = ? AND token_index = ? AND status IN ('submitted', 'revealed')`),
      failed: p(
        "UPDATE mints SET status = 'failed', error = ?, updated_at = ? WHERE slug = ? AND token_index = ? AND status IN ('accepted', 'submitted', 'revealed')",
      ),
      rejected:
        p(`UPDATE mints SET status = 'rejected_by_index', mint_txid = ?, inscription_id = ?, index_reason = ?, error = ?, updated_at = ?
        WHERE slug = ? AND token_index = ? AND status IN ('submitted', 'revealed')`),
      settleAfterRejection:
        p(`UPDATE payments SET status = 'mint_rejected', settlement_reason = 'MINT_REJECTED', settlement_koinu = received_koinu
        WHERE txid = ? AND status = 'accepted'`),
      payment: p("SELECT * FROM payments WHERE txid = ?"),
      // refund_status is 'none' from schema version 5 on: the launchpad pays nothing back itself.
      insertPayment:
        p(`INSERT INTO payments (txid, slug, token_index, reservation_id, address, payer_address, received_koinu, price_koinu, status,
        settlement_reason, settlement_koinu, refund_status, created_at) VALUES ($txid, $slug, $index, $reservation, $address, $payer, $received, $price, $status,
        $reason, $owed, 'none', $now)`),
      // A payment recorded as late or mint_failed, applied to its own payer's new live reservation of the same index.
      reapplyPayment:
        p(`UPDATE payments SET status = 'accepted', reservation_id = $reservation, settlement_reason = $reason, settlement_koinu = $owed
        WHERE txid = $txid AND status IN ('late', 'mint_failed')`),
      owedTo:
        p(`SELECT * FROM payments WHERE slug = ? AND address = ? AND settlement_reason IS NOT NULL AND settlement_koinu != '0'
        ORDER BY created_at DESC LIMIT 20`),
      settleAfterFailure:
        p(`UPDATE payments SET status = 'mint_failed', settlement_reason = 'MINT_FAILED', settlement_koinu = received_koinu
        WHERE txid = ? AND status = 'accepted'`),
    };
  }

  /** The current mint of an index (the latest attempt), or null. */
  get(slug: string, tokenIndex: number): MintRecord | null {
    const row = this.s.mint.get(slug, tokenIndex) as MintRow | undefined;
    return row ? toMint(row) : null;
  }

  /** The latest 20 payments of `address` on `slug` that the creator owes something back for (shown with its claims). */
  owedTo(slug: string, address: string): PaymentRecord[] {
    const creator = this.options.collections.creatorAddress(slug) ?? "";
    return (this.s.owedTo.all(slug, address) as PaymentRow[]).map((row) => toPayment(row, creator));
  }

  payment(txid: string): PaymentRecord | null {
    const row = this.s.payment.get(txid) as PaymentRow | undefined;
    return row ? toPayment(row, this.options.collections.creatorAddress(row.slug) ?? "") : null;
  }

  /**
   * Turns `address`'s reservation `reservationId` on `collection` into a mint (see docs/api.md for
   * every answer). Returns the mint and whether this call created it (false: a retry of the same mint).
   */
  async mint(
    collection: Collection,
    address: string,
    reservationId: number,
    paymentTxid: string | null,
  ): Promise<{ mint: MintRecord; created: boolean }> {
    const { slug } = collection;
    if (!this.options.inscriber)
      throw new Refusal(
        "unavailable",
        "MINTING_UNAVAILABLE",
        "this launchpad has no inscriber configured; mints cannot be made",
        { slug },
      );
    // No mint (and no payment taken) before the collection's own deploy is in the index at depth.
    this.options.deploys.ensureDeployed(collection);
    const reservation = this.options.collections.reservation(reservationId);
    if (!reservation || reservation.slug !== slug || reservation.address !== address) {
      throw notFound("RESERVATION_NOT_FOUND", `${address} holds no reservation ${reservationId} on "${slug}"`, {
        slug,
        reservation_id: reservationId,
      });
    }
    const index = reservation.tokenIndex;
    const existing = this.get(slug, index);
    // A retry of a mint already made answers it; a second payment for it is recorded below (the creator's to settle).
    if (existing && existing.reservationId === reservation.id && existing.paymentTxid === paymentTxid)
      return { mint: existing, created: false };
    if (reservation.status === "minted" && paymentTxid === null)
      throw this.reservationUsed(reservationId, slug, index, {});
    const priced = collection.priceKoinu > 0n;
    if (!priced && paymentTxid !== null)
      throw badRequest("PAYMENT_NOT_EXPECTED", `"${slug}" is free to mint: send no payment_txid`, {
        slug,
        field: "payment_txid",
      });
    if (priced && paymentTxid === null) {
      throw badRequest(
        "PAYMENT_REQUIRED",
        `"${slug}" costs ${collection.priceKoinu} koinu: pay the creator and send payment_txid`,
        {
          slug,
          field: "payment_txid",
          price_koinu: collection.priceKoinu.toString(),
          pay_to: collection.creatorAddress,
          op_return: paymentMemo(slug, index),
        },
      );
    }

    let payment: { received: bigint; payer: string } | null = null;
    let reapply: PaymentRecord | null = null;
    if (paymentTxid !== null) {
      if (address === collection.creatorAddress) throw this.payerIsCreator(collection, paymentTxid);
      const used = this.payment(paymentTxid);
      if (used && this.reappliable(used, address, slug, index, collection.priceKoinu)) reapply = used;
      else if (used) throw this.reused(used, paymentTxid);
      else payment = this.checkPayment(collection, address, index, paymentTxid);
    }

    const now = this.options.clock();
    const outcome = this.options.db
      .transaction((): Outcome => {
        const current = this.options.collections.reservation(reservationId)!;
        const mintNow = this.get(slug, index);
        if (
          current.status === "minted" &&
          mintNow?.reservationId === reservationId &&
          mintNow.paymentTxid === paymentTxid
        )
          return { kind: "already" };
        if (current.status === "minted" && paymentTxid === null)
          throw this.reservationUsed(reservationId, slug, index, {});
        const live = current.status === "active" && current.expiresAt > now;
        if (paymentTxid !== null && reapply !== null) {
          // Still the payer's recorded payment (another call may have used it since): the reservation must be live.
          const again = this.payment(paymentTxid)!;
          if (!this.reappliable(again, address, slug, index, collection.priceKoinu))
            return { kind: "refused", paymentTxid, error: () => this.reused(again, paymentTxid) };
          if (!live || current.status !== "active") {
            return {
              kind: "refused",
              paymentTxid,
              error: (extra) =>
                conflict("RESERVATION_EXPIRED", `reservation ${reservationId} is not live; claim again`, {
                  slug,
                  index,
                  expires_at: current.expiresAt,
                  ...extra,
                }),
            };
          }
          const excess = again.receivedKoinu - collection.priceKoinu;
          this.s.reapplyPayment.run({
            txid: paymentTxid,
            reservation: reservationId,
            reason: excess > 0n ? "OVERPAID" : null,
            owed: excess.toString(),
          });
        } else if (paymentTxid !== null && payment !== null) {
          if (this.s.payment.get(paymentTxid)) {
            const used = this.payment(paymentTxid)!;
            return { kind: "refused", paymentTxid, error: () => this.reused(used, paymentTxid) };
          }
          const insert = (status: PaymentStatus, reason: SettlementReason | null, owedKoinu: bigint) =>
            this.s.insertPayment.run({
              txid: paymentTxid,
              slug,
              index,
              reservation: reservationId,
              address,
              payer: payment!.payer,
              received: payment!.received.toString(),
              price: collection.priceKoinu.toString(),
              status,
              reason,
              owed: owedKoinu.toString(),
              now,
            });
          const owedBy = `the creator ${collection.creatorAddress} owes it back to the payer; the launchpad never refunds`;
          if (current.status === "minted") {
            insert("duplicate", "RESERVATION_USED", payment.received);
            return {
              kind: "refused",
              paymentTxid,
              error: (extra) => this.reservationUsed(reservationId, slug, index, extra),
            };
          }
          if (!live) {
            insert("late", "RESERVATION_EXPIRED", payment.received);
            return {
              kind: "refused",
              paymentTxid,
              error: (extra) =>
                conflict(
                  "RESERVATION_EXPIRED",
                  `reservation ${reservationId} expired at ${current.expiresAt}; the payment is recorded as yours: it counts for your next live reservation of index ${index}, or ${owedBy}`,
                  { slug, index, expires_at: current.expiresAt, ...extra },
                ),
            };
          }
          if (payment.received < collection.priceKoinu) {
            // The reservation stays live: the claimant may still pay the full price with a new transaction.
            insert("underpaid", "UNDERPAID", payment.received);
            return {
              kind: "refused",
              paymentTxid,
              error: (extra) =>
                unprocessable(
                  "UNDERPAID",
                  `the payment gave the creator ${payment!.received} koinu of ${collection.priceKoinu}; ${owedBy}`,
                  {
                    slug,
                    index,
                    price_koinu: collection.priceKoinu.toString(),
                    received_koinu: payment!.received.toString(),
                    ...extra,
                  },
                ),
            };
          }
          const excess = payment.received - collection.priceKoinu;
          insert("accepted", excess > 0n ? "OVERPAID" : null, excess);
        } else if (!live) {
          throw conflict(
            "RESERVATION_EXPIRED",
            `reservation ${reservationId} expired at ${current.expiresAt}; claim again`,
            { slug, index, expires_at: current.expiresAt },
          );
        }
        this.options.collections.markReservationMinted(reservationId);
        if (
          this.s.upsertMint.run({ slug, index, reservation: reservationId, address, payment: paymentTxid, now })
            .changes !== 1
        ) {
          throw conflict("INDEX_TAKEN", `index ${index} of "${slug}" is being minted by another reservation`, {
            slug,
            index,
          });
        }
        return { kind: "minted" };
      })
      .immediate();

    if (outcome.kind === "already") return { mint: this.get(slug, index)!, created: false };
    if (outcome.kind === "refused") {
      const recorded = this.payment(outcome.paymentTxid);
      throw outcome.error(recorded ? { payment: paymentJson(recorded) } : {});
    }
    this.options.log("launchpad_mint_accepted", { slug, index, address, paymentTxid });
    await this.submit(this.get(slug, index)!);
    return { mint: this.get(slug, index)!, created: true };
  }

  /** Whether `used`, a recorded payment, may pay for `address`'s reservation of `index`: its own late or failed payment of that index at the full price. */
  private reappliable(used: PaymentRecord, address: string, slug: string, index: number, priceKoinu: bigint): boolean {
    return (
      (used.status === "late" || used.status === "mint_failed") &&
      used.address === address &&
      used.payerAddress === address &&
      used.slug === slug &&
      used.tokenIndex === index &&
      used.receivedKoinu >= priceKoinu
    );
  }

  private payerIsCreator(collection: Collection, paymentTxid: string | null): Refusal {
    return unprocessable(
      "PAYER_IS_CREATOR",
      `${collection.creatorAddress} is the creator of "${collection.slug}": a payment from the creator to itself pays nothing`,
      {
        slug: collection.slug,
        creator_address: collection.creatorAddress,
        ...(paymentTxid ? { payment_txid: paymentTxid } : {}),
      },
    );
  }

  private reservationUsed(reservationId: number, slug: string, index: number, extra: Record<string, unknown>): Refusal {
    return conflict(
      "RESERVATION_USED",
      `reservation ${reservationId} was already used for a mint of index ${index}; claim again for another`,
      { slug, index, reservation_id: reservationId, ...extra },
    );
  }

  private reused(used: PaymentRecord, txid: string): Refusal {
    return conflict(
      "PAYMENT_REUSED",
      `payment ${txid} was already used for index ${used.tokenIndex} of "${used.slug}"`,
      { payment_txid: txid, slug: used.slug, index: used.tokenIndex },
    );
  }

  /**
   * What the payment gave the creator, after checking it is indexed, bound to this index (its
   * OP_RETURN) and the claimant's own (every input spends an output of `claimant`, who is not the
   * creator, so no output to the creator is the payer's change).
   */
  private checkPayment(
    collection: Collection,
    claimant: string,
    index: number,
    txid: string,
  ): { received: bigint; payer: string } {
    const { queries } = this.options;
    const tx = queries.tx(txid);
    if (!tx) {
      const status = queries.status();
      if (indexIsBehind(status)) throw indexBehind(status.indexedHeight, status.nodeHeight, { payment_txid: txid });
      throw conflict(
        "PAYMENT_NOT_FOUND",
        `payment ${txid} is not in a block the index holds yet; retry after it confirms`,
        { payment_txid: txid, indexed_height: status.indexedHeight },
      );
    }
    // A payment counts only once it is deep enough: a mint is the operator's cost, and a payment
    // reorged out or double-spent before that depth must never have bought one.
    const required = this.options.paymentConfirmations ?? 1;
    const confirmations = queries.status().indexedHeight - tx.height + 1;
    if (confirmations < required) {
      throw new Refusal(
        "conflict",
        "PAYMENT_NOT_DEEP_ENOUGH",
        `payment ${txid} has ${confirmations} confirmations; payments count at ${required}`,
        {
          payment_txid: txid,
          confirmations,
          required,
        },
        { retryAfterSeconds: 10 },
      );
    }
    const memo = paymentMemo(collection.slug, index);
    const memoHex = bytesToHex(new TextEncoder().encode(memo));
    if (!tx.opReturns.some((o) => o.payloadHex === memoHex)) {
      throw unprocessable("PAYMENT_NOT_BOUND", `payment ${txid} carries no OP_RETURN "${memo}"`, {
        payment_txid: txid,
        expected_op_return: memo,
        found: tx.opReturns.map((o) => Buffer.from(o.payloadHex, "hex").toString("utf8")),
      });
    }
    const inputs = [...queries.txInputs(txid).values()];
    const foreign = inputs.filter((input) => input.address !== claimant);
    if (tx.coinbase || inputs.length === 0 || foreign.length > 0) {
      throw unprocessable(
        "PAYMENT_NOT_FROM_CLAIMANT",
        `payment ${txid} must spend only outputs of the claimant ${claimant}; it counts for no one else`,
        {
          payment_txid: txid,
          claimant,
          input_addresses: [...new Set(inputs.map((input) => input.address))],
        },
      );
    }
    const received = tx.outputs
      .filter((o) => o.address === collection.creatorAddress)
      .reduce((sum, o) => sum + o.valueKoinu, 0n);
    return { received, payer: claimant };
  }

  /** Hands an accepted mint to the inscriber; a refusal fails it, anything else is retried by the worker. */
  private async submit(mint: MintRecord): Promise<void> {
    if (mint.status !== "accepted") return;
    const collection = this.options.collections.get(mint.slug)!;
    try {
      const { job } = await this.options.inscriber!.inscribe(
        mintIdempotencyKey(mint.slug, mint.tokenIndex, mint.attempt),
        {
          project: "launchpad",
          contentType: LAUNCHPAD_CONTENT_TYPE,
          action: LAUNCHPAD_MINT_OP,
          content: encodeLaunchpadMint({
            slug: mint.slug,
            tokenId: BigInt(mint.tokenIndex),
            maxSupply: BigInt(collection.maxSupply),
          }),
          recipient: mint.address,
        },
      );
      this.s.submitted.run(job.id, this.options.clock(), mint.slug, mint.tokenIndex);
    } catch (error) {
      const message = (error as Error).message;
      this.options.log("launchpad_mint_submit_failed", { slug: mint.slug, index: mint.tokenIndex, err: message });
      if (error instanceof InscriberCallError && !error.retryable)
        await this.fail(mint, `${error.failure}: ${message}`);
      else this.s.mintError.run(message, this.options.clock(), mint.slug, mint.tokenIndex);
    }
  }

  /** Follows a submitted mint's inscriber job one step. */
  private async follow(mint: MintRecord): Promise<void> {
    const job = await this.options.inscriber!.job(mint.inscriberJobId!);
    const now = this.options.clock();
    const revealTxid = job.revealTxids[0] ?? null;
    if (job.status === "revealed" && mint.status === "submitted") {
      this.s.revealed.run(revealTxid, job.inscriptionId, now, mint.slug, mint.tokenIndex);
    }
    if (!isFinalJobStatus(job.status)) return;
    if (job.status === "failed") {
      await this.fail(mint, jobFailure(job));
      return;
    }
    // The inscriber says it is in a block; the index says whether it is a member token, and whose.
    const verdict = this.verdict(mint, job.inscriptionId);
    if (verdict.kind === "wait") {
      if (mint.status === "submitted")
        this.s.revealed.run(revealTxid, job.inscriptionId, now, mint.slug, mint.tokenIndex);
      return;
    }
    if (verdict.kind === "rejected") {
      this.options.db
        .transaction(() => {
          if (
            this.s.rejected.run(
              revealTxid,
              job.inscriptionId,
              verdict.reason,
              verdict.message,
              now,
              mint.slug,
              mint.tokenIndex,
            ).changes === 1 &&
            mint.paymentTxid
          )
            this.s.settleAfterRejection.run(mint.paymentTxid);
        })
        .immediate();
      this.options.log("launchpad_mint_rejected_by_index", {
        slug: mint.slug,
        index: mint.tokenIndex,
        inscriptionId: job.inscriptionId,
        reason: verdict.reason,
      });
      return;
    }
    {
      const counted = this.options.db
        .transaction(() => {
          if (this.s.confirmed.run(revealTxid, job.inscriptionId, now, mint.slug, mint.tokenIndex).changes !== 1)
            return false;
          // The counter: one row per index, inserted once (the primary key holds it).
          return this.options.collections.addItem({
            slug: mint.slug,
            tokenIndex: mint.tokenIndex,
            address: mint.address,
            reservationId: mint.reservationId,
            mintTxid: revealTxid,
            inscriptionId: job.inscriptionId,
            mintedAt: now,
          });
        })
        .immediate();
      if (counted) this.options.onMinted?.(mint.slug);
      this.options.log("launchpad_mint_confirmed", {
        slug: mint.slug,
        index: mint.tokenIndex,
        inscriptionId: job.inscriptionId,
      });
    }
  }

  /**
   * What the index makes of a mint's inscription: `wait` until it holds it at the payment depth;
   * then `member` when it counted it as a member token landed at the claimant's address, else
   * `rejected` with the index's reason.
   */
  private verdict(
    mint: MintRecord,
    inscriptionId: string | null,
  ): { kind: "wait" } | { kind: "member" } | { kind: "rejected"; reason: string; message: string } {
    const { index } = this.options;
    if (!inscriptionId) return { kind: "wait" };
    const inscription = index.inscription(inscriptionId);
    if (!inscription || index.confirmations(inscription.height) < (this.options.paymentConfirmations ?? 1))
      return { kind: "wait" };
    const operation = index.operation(inscriptionId);
    if (!operation || operation.op !== "mint" || operation.slug !== mint.slug)
      return {
        kind: "rejected",
        reason: "NOT_A_LAUNCHPAD_MINT",
        message: `the index does not read ${inscriptionId} as a mint of "${mint.slug}"`,
      };
    if (!operation.valid)
      return {
        kind: "rejected",
        reason: operation.reason ?? "NOT_A_MEMBER",
        message: `the index counts ${inscriptionId} as no member of "${mint.slug}": ${operation.reason ?? "NOT_A_MEMBER"}`,
      };
    // A member token: it landed on the reveal's first output, which pays the claimant; unless it has
    // moved on since, the claimant holds it now.
    const held = index.membership(mint.slug, mint.address).tokens.some((t) => t.inscriptionId === inscriptionId);
    const moved = inscription.location !== null && inscription.location.txid !== inscription.revealTxid;
    if (!held && !moved)
      return {
        kind: "rejected",
        reason: "NOT_AT_CLAIMANT",
        message: `${inscriptionId} is a member token of "${mint.slug}" held by ${inscription.ownerAddress ?? "nobody"}, not by ${mint.address}`,
      };
    return { kind: "member" };
  }

  private async fail(mint: MintRecord, reason: string): Promise<void> {
    this.options.db
      .transaction(() => {
        this.s.failed.run(reason, this.options.clock(), mint.slug, mint.tokenIndex);
        // The index is free again: claims look from it upwards.
        this.options.collections.freed(mint.slug, mint.tokenIndex);
        // The payment stays the payer's: it counts for the payer's next reservation of this index.
        if (mint.paymentTxid) this.s.settleAfterFailure.run(mint.paymentTxid);
      })
      .immediate();
    this.options.log("launchpad_mint_failed", { slug: mint.slug, index: mint.tokenIndex, reason });
  }

  /** One pass of the worker: submits accepted mints, follows jobs and the index's verdicts, follows the deploys. */
  async runOnce(): Promise<void> {
    const inscriber = this.options.inscriber;
    if (inscriber) {
      for (const row of this.s.open.all() as MintRow[]) {
        const mint = toMint(row);
        try {
          if (mint.status === "accepted") await this.submit(mint);
          else await this.follow(mint);
        } catch (error) {
          // One unreachable job must not hold the others back; the next pass tries again.
          this.s.mintError.run((error as Error).message, this.options.clock(), mint.slug, mint.tokenIndex);
          this.options.log("launchpad_mint_follow_failed", {
            slug: mint.slug,
            index: mint.tokenIndex,
            err: (error as Error).message,
          });
        }
      }
      await this.options.deploys.runOnce();
    }
  }
}
