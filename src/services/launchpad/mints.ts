/**
 * The mint path (issue 8): a claimant's live reservation (and, for a priced collection, a payment
 * found in the explorer's index) becomes an inscriber job for the seed's exact LAUNCHPAD_MINT body,
 * landing on the claimant's address. A worker follows the jobs: the reveal txid and inscription id
 * are recorded, and the collection's `minted` counter (the rows of collection_items) grows exactly
 * once, when the inscriber reports the job confirmed.
 *
 * Money: the payment pays the collection's creator, so the launchpad never holds it. Refunds
 * (underpaid, paid after the reservation expired, overpaid excess, a failed mint) are fronted by the
 * launchpad operator's own hot wallet, to the address that funded the payment's first input, for
 * the koinu the creator received (the refund's network fee is the operator's). Each refund is one
 * wallet transaction of owner `launchpad-refund-<payment txid>`, so it is made once per payment.
 */
import type { Sqlite } from "../../db/sqlite";
import { addressToOutputScript, bytesToHex } from "../../doge";
import type { IndexQueries } from "../../indexer/queries";
import { LAUNCHPAD_CONTENT_TYPE, LAUNCHPAD_MINT_OP, encodeLaunchpadMint } from "../../inscription/launchpad";
import { HARD_DUST_LIMIT } from "../../wallet/fees";
import type { HotWallet } from "../../wallet/hot-wallet";
import { AppError, badRequest, conflict, indexBehind, notFound, unprocessable } from "../http/errors";
import type { Collection, CollectionStore, LaunchpadInscriber } from "./collections";
import { InscriberCallError } from "./inscriber-client";

/** The protocol identifier of a payment's OP_RETURN: `service-launch-mint:<slug>:<index>`. */
export const MINT_PAYMENT_PROTOCOL = "service-launch-mint";

export type MintStatus = "accepted" | "submitted" | "revealed" | "confirmed" | "failed";
export type PaymentStatus = "accepted" | "underpaid" | "late" | "duplicate" | "mint_failed";
/** none: nothing owed; due: to be sent (retried by the worker); sent; below_dust: too small to send; failed: cannot be sent (no payer address). */
export type RefundStatus = "none" | "due" | "sent" | "below_dust" | "failed";
export type RefundReason = "UNDERPAID" | "RESERVATION_EXPIRED" | "RESERVATION_USED" | "OVERPAID" | "MINT_FAILED";

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
  refund: { status: RefundStatus; reason: RefundReason | null; koinu: bigint; txid: string | null; error: string | null };
  createdAt: number;
}

/** The OP_RETURN text a payment for `index` of `slug` must carry, exactly. */
export const paymentMemo = (slug: string, tokenIndex: number) => `${MINT_PAYMENT_PROTOCOL}:${slug}:${tokenIndex}`;

/** The inscriber's Idempotency-Key of a mint: the first attempt's is `launchpad-mint-<slug>-<index>`. */
export const mintIdempotencyKey = (slug: string, tokenIndex: number, attempt: number) =>
  attempt === 1 ? `launchpad-mint-${slug}-${tokenIndex}` : `launchpad-mint-${slug}-${tokenIndex}-attempt-${attempt}`;

interface MintRow {
  slug: string; token_index: number; attempt: number; reservation_id: number; address: string; payment_txid: string | null; status: MintStatus;
  inscriber_job_id: string | null; inscription_id: string | null; mint_txid: string | null; error: string | null; created_at: number; updated_at: number;
}
interface PaymentRow {
  txid: string; slug: string; token_index: number; reservation_id: number; address: string; payer_address: string | null; received_koinu: string;
  price_koinu: string; status: PaymentStatus; refund_reason: RefundReason | null; refund_koinu: string; refund_status: RefundStatus; refund_txid: string | null;
  refund_error: string | null; created_at: number;
}
interface ReservationRow { id: number; slug: string; token_index: number; address: string; expires_at: number; status: string }

const toMint = (r: MintRow): MintRecord => ({
  slug: r.slug, tokenIndex: r.token_index, attempt: r.attempt, reservationId: r.reservation_id, address: r.address, paymentTxid: r.payment_txid,
  status: r.status, inscriberJobId: r.inscriber_job_id, inscriptionId: r.inscription_id, mintTxid: r.mint_txid, error: r.error,
  createdAt: r.created_at, updatedAt: r.updated_at,
});
const toPayment = (r: PaymentRow): PaymentRecord => ({
  txid: r.txid, slug: r.slug, tokenIndex: r.token_index, reservationId: r.reservation_id, address: r.address, payerAddress: r.payer_address,
  receivedKoinu: BigInt(r.received_koinu), priceKoinu: BigInt(r.price_koinu), status: r.status,
  refund: { status: r.refund_status, reason: r.refund_reason, koinu: BigInt(r.refund_koinu), txid: r.refund_txid, error: r.refund_error },
  createdAt: r.created_at,
});

export const paymentJson = (p: PaymentRecord) => ({
  txid: p.txid,
  payer_address: p.payerAddress,
  received_koinu: p.receivedKoinu.toString(),
  price_koinu: p.priceKoinu.toString(),
  status: p.status,
  refund: { status: p.refund.status, reason: p.refund.reason, koinu: p.refund.koinu.toString(), txid: p.refund.txid, error: p.refund.error },
});

export interface MintServiceOptions {
  db: Sqlite;
  queries: IndexQueries;
  collections: CollectionStore;
  inscriber?: LaunchpadInscriber;
  /** The operator's hot wallet that fronts refunds; without one refunds stay `due`. */
  refundWallet?: HotWallet;
  clock: () => number;
  log: (event: string, fields: Record<string, unknown>) => void;
  /** Told after a collection's minted counter grew in this process (the live counter, live.ts). */
  onMinted?: (slug: string) => void;
}

type Outcome =
  | { kind: "minted" }
  | { kind: "already" }
  | { kind: "refused"; paymentTxid: string; error: (extra: Record<string, unknown>) => AppError };

export class MintService {
  private readonly s;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly options: MintServiceOptions) {
    const p = (sql: string) => options.db.prepare(sql);
    this.s = {
      reservation: p("SELECT id, slug, token_index, address, expires_at, status FROM reservations WHERE id = ?"),
      reservationMinted: p("UPDATE reservations SET status = 'minted' WHERE id = ? AND status = 'active'"),
      mint: p("SELECT * FROM mints WHERE slug = ? AND token_index = ?"),
      open: p("SELECT * FROM mints WHERE status IN ('accepted', 'submitted', 'revealed') ORDER BY updated_at LIMIT 100"),
      upsertMint: p(`INSERT INTO mints (slug, token_index, attempt, reservation_id, address, payment_txid, status, created_at, updated_at)
        VALUES ($slug, $index, 1, $reservation, $address, $payment, 'accepted', $now, $now)
        ON CONFLICT (slug, token_index) DO UPDATE SET attempt = mints.attempt + 1, reservation_id = excluded.reservation_id, address = excluded.address,
          payment_txid = excluded.payment_txid, status = 'accepted', inscriber_job_id = NULL, inscription_id = NULL, mint_txid = NULL, error = NULL,
          created_at = excluded.created_at, updated_at = excluded.updated_at
        WHERE mints.status = 'failed'`),
      submitted: p("UPDATE mints SET status = 'submitted', inscriber_job_id = ?, error = NULL, updated_at = ? WHERE slug = ? AND token_index = ? AND status = 'accepted'"),
      mintError: p("UPDATE mints SET error = ?, updated_at = ? WHERE slug = ? AND token_index = ?"),
      revealed: p("UPDATE mints SET status = 'revealed', mint_txid = ?, inscription_id = ?, updated_at = ? WHERE slug = ? AND token_index = ? AND status = 'submitted'"),
      confirmed: p(`UPDATE mints SET status = 'confirmed', mint_txid = ?, inscription_id = ?, error = NULL, updated_at = ?
        WHERE slug = ? AND token_index = ? AND status IN ('submitted', 'revealed')`),
      failed: p("UPDATE mints SET status = 'failed', error = ?, updated_at = ? WHERE slug = ? AND token_index = ? AND status IN ('accepted', 'submitted', 'revealed')"),
      item: p(`INSERT INTO collection_items (slug, token_index, address, reservation_id, mint_txid, inscription_id, minted_at)
        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (slug, token_index) DO NOTHING`),
      payment: p("SELECT * FROM payments WHERE txid = ?"),
      insertPayment: p(`INSERT INTO payments (txid, slug, token_index, reservation_id, address, payer_address, received_koinu, price_koinu, status,
        refund_reason, refund_koinu, refund_status, created_at) VALUES ($txid, $slug, $index, $reservation, $address, $payer, $received, $price, $status,
        $reason, $refund, $refundStatus, $now)`),
      refundsDue: p("SELECT * FROM payments WHERE refund_status = 'due' ORDER BY created_at LIMIT 100"),
      refundAfterFailure: p(`UPDATE payments SET status = 'mint_failed', refund_reason = 'MINT_FAILED', refund_status = 'due', refund_error = NULL,
        refund_koinu = CASE WHEN refund_status = 'sent' THEN price_koinu ELSE received_koinu END WHERE txid = ? AND status = 'accepted'`),
      refundTxid: p("UPDATE payments SET refund_txid = ? WHERE txid = ?"),
      refundDone: p("UPDATE payments SET refund_status = ?, refund_error = ? WHERE txid = ? AND refund_status = 'due'"),
      refundError: p("UPDATE payments SET refund_error = ? WHERE txid = ?"),
      deploysOpen: p("SELECT slug, deploy_job_id FROM collections WHERE deploy_status = 'submitted' AND deploy_inscription_id IS NULL LIMIT 100"),
      deployInscribed: p("UPDATE collections SET deploy_inscription_id = ? WHERE slug = ?"),
    };
  }

  /** The current mint of an index (the latest attempt), or null. */
  get(slug: string, tokenIndex: number): MintRecord | null {
    const row = this.s.mint.get(slug, tokenIndex) as MintRow | undefined;
    return row ? toMint(row) : null;
  }

  payment(txid: string): PaymentRecord | null {
    const row = this.s.payment.get(txid) as PaymentRow | undefined;
    return row ? toPayment(row) : null;
  }

  /**
   * Turns `address`'s reservation `reservationId` on `collection` into a mint (see docs/api.md for
   * every answer). Returns the mint and whether this call created it (false: a retry of the same mint).
   */
  async mint(collection: Collection, address: string, reservationId: number, paymentTxid: string | null): Promise<{ mint: MintRecord; created: boolean }> {
    const { slug } = collection;
    if (!this.options.inscriber) throw new AppError(503, "MINTING_UNAVAILABLE", "this launchpad has no inscriber configured; mints cannot be made", { slug });
    const reservation = this.s.reservation.get(reservationId) as ReservationRow | undefined;
    if (!reservation || reservation.slug !== slug || reservation.address !== address) {
      throw notFound("RESERVATION_NOT_FOUND", `${address} holds no reservation ${reservationId} on "${slug}"`, { slug, reservation_id: reservationId });
    }
    const index = reservation.token_index;
    const existing = this.get(slug, index);
    // A retry of a mint already made answers it; a second payment for it is recorded and refunded below.
    if (existing && existing.reservationId === reservation.id && existing.paymentTxid === paymentTxid) return { mint: existing, created: false };
    if (reservation.status === "minted" && paymentTxid === null) throw this.reservationUsed(reservationId, slug, index, {});
    const priced = collection.priceKoinu > 0n;
    if (!priced && paymentTxid !== null) throw badRequest("PAYMENT_NOT_EXPECTED", `"${slug}" is free to mint: send no payment_txid`, { slug, field: "payment_txid" });
    if (priced && paymentTxid === null) {
      throw badRequest("PAYMENT_REQUIRED", `"${slug}" costs ${collection.priceKoinu} koinu: pay the creator and send payment_txid`, {
        slug, field: "payment_txid", price_koinu: collection.priceKoinu.toString(), pay_to: collection.creatorAddress, op_return: paymentMemo(slug, index),
      });
    }

    let payment: { received: bigint; payer: string | null } | null = null;
    if (paymentTxid !== null) {
      const used = this.payment(paymentTxid);
      if (used) throw this.reused(used, paymentTxid);
      payment = this.checkPayment(collection, index, paymentTxid);
    }

    const now = this.options.clock();
    const outcome = this.options.db.transaction((): Outcome => {
      const current = this.s.reservation.get(reservationId) as ReservationRow;
      const mintNow = this.get(slug, index);
      if (current.status === "minted" && mintNow?.reservationId === reservationId && mintNow.paymentTxid === paymentTxid) return { kind: "already" };
      if (current.status === "minted" && paymentTxid === null) throw this.reservationUsed(reservationId, slug, index, {});
      const live = current.status === "active" && current.expires_at > now;
      if (paymentTxid !== null && payment !== null) {
        if (this.s.payment.get(paymentTxid)) {
          const used = this.payment(paymentTxid)!;
          return { kind: "refused", paymentTxid, error: () => this.reused(used, paymentTxid) };
        }
        const insert = (status: PaymentStatus, reason: RefundReason | null, refundKoinu: bigint) => this.s.insertPayment.run({
          txid: paymentTxid, slug, index, reservation: reservationId, address, payer: payment!.payer, received: payment!.received.toString(),
          price: collection.priceKoinu.toString(), status, reason, refund: refundKoinu.toString(), refundStatus: refundKoinu > 0n ? "due" : "none", now,
        });
        if (current.status === "minted") {
          insert("duplicate", "RESERVATION_USED", payment.received);
          return { kind: "refused", paymentTxid, error: (extra) => this.reservationUsed(reservationId, slug, index, extra) };
        }
        if (!live) {
          insert("late", "RESERVATION_EXPIRED", payment.received);
          return { kind: "refused", paymentTxid, error: (extra) => conflict("RESERVATION_EXPIRED", `reservation ${reservationId} expired at ${current.expires_at}; the payment is refunded`, { slug, index, expires_at: current.expires_at, ...extra }) };
        }
        if (payment.received < collection.priceKoinu) {
          // The reservation stays live: the claimant may still pay the full price with a new transaction.
          insert("underpaid", "UNDERPAID", payment.received);
          return {
            kind: "refused", paymentTxid,
            error: (extra) => unprocessable("UNDERPAID", `the payment gave the creator ${payment!.received} koinu of ${collection.priceKoinu}; it is refunded`, { slug, index, price_koinu: collection.priceKoinu.toString(), received_koinu: payment!.received.toString(), ...extra }),
          };
        }
        const excess = payment.received - collection.priceKoinu;
        insert("accepted", excess > 0n ? "OVERPAID" : null, excess);
      } else if (!live) {
        throw conflict("RESERVATION_EXPIRED", `reservation ${reservationId} expired at ${current.expires_at}; claim again`, { slug, index, expires_at: current.expires_at });
      }
      this.s.reservationMinted.run(reservationId);
      if (this.s.upsertMint.run({ slug, index, reservation: reservationId, address, payment: paymentTxid, now }).changes !== 1) {
        throw conflict("INDEX_TAKEN", `index ${index} of "${slug}" is being minted by another reservation`, { slug, index });
      }
      return { kind: "minted" };
    }).immediate();

    if (outcome.kind === "already") return { mint: this.get(slug, index)!, created: false };
    if (paymentTxid !== null) await this.refund(paymentTxid);
    if (outcome.kind === "refused") {
      const recorded = this.payment(outcome.paymentTxid)!;
      throw outcome.error({ payment: paymentJson(recorded) });
    }
    this.options.log("launchpad_mint_accepted", { slug, index, address, paymentTxid });
    await this.submit(this.get(slug, index)!);
    return { mint: this.get(slug, index)!, created: true };
  }

  private reservationUsed(reservationId: number, slug: string, index: number, extra: Record<string, unknown>): AppError {
    return conflict("RESERVATION_USED", `reservation ${reservationId} was already used for a mint of index ${index}; claim again for another`, { slug, index, reservation_id: reservationId, ...extra });
  }

  private reused(used: PaymentRecord, txid: string): AppError {
    return conflict("PAYMENT_REUSED", `payment ${txid} was already used for index ${used.tokenIndex} of "${used.slug}"`, { payment_txid: txid, slug: used.slug, index: used.tokenIndex });
  }

  /** What the payment gave the creator, after checking it is indexed and bound to this index. */
  private checkPayment(collection: Collection, index: number, txid: string): { received: bigint; payer: string | null } {
    const { queries } = this.options;
    const tx = queries.tx(txid);
    if (!tx) {
      const status = queries.status();
      if (status.nodeHeight !== null && status.nodeHeight > status.indexedHeight) throw indexBehind(status.indexedHeight, status.nodeHeight, { payment_txid: txid });
      throw conflict("PAYMENT_NOT_FOUND", `payment ${txid} is not in a block the index holds yet; retry after it confirms`, { payment_txid: txid, indexed_height: status.indexedHeight });
    }
    const memo = paymentMemo(collection.slug, index);
    const memoHex = bytesToHex(new TextEncoder().encode(memo));
    if (!tx.opReturns.some((o) => o.payloadHex === memoHex)) {
      throw unprocessable("PAYMENT_NOT_BOUND", `payment ${txid} carries no OP_RETURN "${memo}"`, {
        payment_txid: txid, expected_op_return: memo, found: tx.opReturns.map((o) => Buffer.from(o.payloadHex, "hex").toString("utf8")),
      });
    }
    const received = tx.outputs.filter((o) => o.address === collection.creatorAddress).reduce((sum, o) => sum + o.valueKoinu, 0n);
    const payer = queries.txInputs(txid).get(0)?.address ?? null;
    return { received, payer };
  }

  /** Hands an accepted mint to the inscriber; a refusal fails it (and refunds), anything else is retried by the worker. */
  private async submit(mint: MintRecord): Promise<void> {
    if (mint.status !== "accepted") return;
    const collection = this.options.collections.get(mint.slug)!;
    try {
      const { jobId } = await this.options.inscriber!.inscribe({
        project: "launchpad",
        contentType: LAUNCHPAD_CONTENT_TYPE,
        action: LAUNCHPAD_MINT_OP,
        body: encodeLaunchpadMint({ slug: mint.slug, tokenId: BigInt(mint.tokenIndex), maxSupply: BigInt(collection.maxSupply) }),
        recipient: mint.address,
        idempotencyKey: mintIdempotencyKey(mint.slug, mint.tokenIndex, mint.attempt),
      });
      this.s.submitted.run(jobId, this.options.clock(), mint.slug, mint.tokenIndex);
    } catch (error) {
      const message = (error as Error).message;
      this.options.log("launchpad_mint_submit_failed", { slug: mint.slug, index: mint.tokenIndex, err: message });
      if (error instanceof InscriberCallError && !error.retryable) await this.fail(mint, `${error.code}: ${message}`);
      else this.s.mintError.run(message, this.options.clock(), mint.slug, mint.tokenIndex);
    }
  }

  /** Follows a submitted mint's inscriber job one step. */
  private async follow(mint: MintRecord): Promise<void> {
    const job = await this.options.inscriber!.job(mint.inscriberJobId!);
    const now = this.options.clock();
    const revealTxid = job.revealTxids[0] ?? null;
    if (job.status === "failed") {
      await this.fail(mint, `inscriber job ${job.id} failed: ${job.error?.code ?? "UNKNOWN"} ${job.error?.message ?? ""}`.trim());
    } else if (job.status === "confirmed") {
      const counted = this.options.db.transaction(() => {
        if (this.s.confirmed.run(revealTxid, job.inscriptionId, now, mint.slug, mint.tokenIndex).changes !== 1) return false;
        // The counter: one row per index, inserted once (the primary key holds it).
        return this.s.item.run(mint.slug, mint.tokenIndex, mint.address, mint.reservationId, revealTxid, job.inscriptionId, now).changes === 1;
      }).immediate();
      if (counted) this.options.onMinted?.(mint.slug);
      this.options.log("launchpad_mint_confirmed", { slug: mint.slug, index: mint.tokenIndex, inscriptionId: job.inscriptionId });
    } else if (job.status === "revealed" && mint.status === "submitted") {
      this.s.revealed.run(revealTxid, job.inscriptionId, now, mint.slug, mint.tokenIndex);
    }
  }

  private async fail(mint: MintRecord, reason: string): Promise<void> {
    this.options.db.transaction(() => {
      this.s.failed.run(reason, this.options.clock(), mint.slug, mint.tokenIndex);
      // The index is free again: claims look from it upwards.
      this.options.collections.freed(mint.slug, mint.tokenIndex);
      if (mint.paymentTxid) this.s.refundAfterFailure.run(mint.paymentTxid);
    }).immediate();
    this.options.log("launchpad_mint_failed", { slug: mint.slug, index: mint.tokenIndex, reason });
    if (mint.paymentTxid) await this.refund(mint.paymentTxid);
  }

  /**
   * Sends the refund a payment is owed, if any, through the refund wallet: one wallet transaction
   * (owner `launchpad-refund-<txid>`, label `refund`, or `refund-mint-failed` for the rest of an
   * overpaid payment whose mint then failed), so a repeated call never pays twice. Only when that
   * transaction failed for good (the wallet says it can never confirm) is another one made, labelled
   * `<label>-retry-<n>`.
   */
  async refund(paymentTxid: string): Promise<PaymentRecord | null> {
    const payment = this.payment(paymentTxid);
    if (!payment || payment.refund.status !== "due") return payment;
    const wallet = this.options.refundWallet;
    if (!wallet) return payment;
    if (payment.refund.koinu < HARD_DUST_LIMIT) {
      this.s.refundDone.run("below_dust", `${payment.refund.koinu} koinu is below the dust limit of ${HARD_DUST_LIMIT}`, paymentTxid);
      return this.payment(paymentTxid);
    }
    if (!payment.payerAddress) {
      this.s.refundDone.run("failed", "the payment's first input has no address to refund to", paymentTxid);
      return this.payment(paymentTxid);
    }
    const owner = `launchpad-refund-${paymentTxid}`;
    const base = payment.refund.reason === "MINT_FAILED" && payment.refund.txid !== null ? "refund-mint-failed" : "refund";
    // A refund transaction that can never confirm (a conflict) is replaced by a new one under the next label.
    let label = base;
    for (let attempt = 2; wallet.txOf(owner, label)?.state === "failed"; attempt++) label = `${base}-retry-${attempt}`;
    try {
      const funded = wallet.fund(owner, label, [{ script: addressToOutputScript(payment.payerAddress, wallet.network), value: payment.refund.koinu }]);
      this.s.refundTxid.run(funded.txid, paymentTxid);
      const sent = await wallet.broadcast(funded.txid);
      if (sent.state === "failed") throw new Error(`refund transaction ${sent.txid} can never confirm: ${sent.error ?? "conflict"}`);
      this.s.refundDone.run("sent", null, paymentTxid);
      this.options.log("launchpad_refund_sent", { paymentTxid, refundTxid: funded.txid, koinu: payment.refund.koinu.toString(), reason: payment.refund.reason });
    } catch (error) {
      // Stays due: the worker tries again (the wallet gives back the same transaction).
      this.s.refundError.run((error as Error).message, paymentTxid);
      this.options.log("launchpad_refund_failed", { paymentTxid, err: (error as Error).message });
    }
    return this.payment(paymentTxid);
  }

  /** One pass of the worker: submits accepted mints, follows jobs, sends due refunds, records deploy inscriptions. */
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
          this.options.log("launchpad_mint_follow_failed", { slug: mint.slug, index: mint.tokenIndex, err: (error as Error).message });
        }
      }
      for (const { slug, deploy_job_id: jobId } of this.s.deploysOpen.all() as { slug: string; deploy_job_id: string }[]) {
        try {
          const job = await inscriber.job(jobId);
          if (job.status === "confirmed" && job.inscriptionId) this.s.deployInscribed.run(job.inscriptionId, slug);
          if (job.status === "failed") this.options.collections.markDeployFailed(slug, `inscriber job ${job.id} failed: ${job.error?.code ?? "UNKNOWN"} ${job.error?.message ?? ""}`.trim());
        } catch (error) {
          this.options.log("launchpad_deploy_follow_failed", { slug, err: (error as Error).message });
        }
      }
    }
    for (const row of this.s.refundsDue.all() as PaymentRow[]) await this.refund(row.txid);
  }

  /** Runs `runOnce` every `intervalMs` until `stop()`. */
  start(intervalMs = 2_000): void {
    if (!this.stopped) return;
    this.stopped = false;
    const tick = () => {
      this.running = this.runOnce()
        .catch((error) => this.options.log("launchpad_worker_failed", { err: (error as Error).message }))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.timer = setTimeout(tick, intervalMs);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
