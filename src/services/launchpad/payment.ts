/**
 * Payment PSBTs (DESIGN.md 7: the page asks our services to build, the wallet only signs, the
 * explorer broadcasts). For a claimant's live reservation of a priced collection the launchpad
 * builds an unsigned PSBT funded from the claimant's confirmed outputs that carry no inscription or
 * DRC-20 transfer (the index; outputs the node's mempool already spends are skipped), paying exactly
 * the price to the creator with the OP_RETURN `service-launch-mint:<slug>:<index>` and the change
 * back to the claimant, at Dogecoin Core 1.14.6 fees. The unsigned transaction is kept; a signed
 * PSBT is taken only when its unsigned transaction is byte for byte that one, with one low-s
 * SIGHASH_ALL signature per input by the session's key, and the launchpad finalises the P2PKH
 * inputs itself. It never broadcasts: the page hands the answer's hex to the explorer.
 */
import {
  DogeNetwork,
  OP,
  Transaction,
  TxOutput,
  addressToOutputScript,
  bytesToHex,
  compileScript,
  equalBytes,
  hexToBytes,
  p2pkhScriptSig,
  parseTransactionHex,
  serializeTransaction,
  toBitcoinjsNetwork,
  txidOf,
} from "../../doge";
import type { Sqlite } from "../../db/sqlite";
import type { IndexQueries } from "../../indexer/queries";
import { badRequest, conflict, notFound, unprocessable } from "../../errors";
import {
  MAX_USER_INPUTS,
  RawTransactionSource,
  checkKeyOfAddress,
  checkSignature,
  newDogePsbt,
  onlySignature,
  parsePsbt,
  parsePublicKey,
  selectUserCoins,
  unsignedBytes,
} from "../user-psbt";
import type { Collection, CollectionStore, ReservationRecord } from "./collections";
import { paymentMemo } from "./mints";

/** What payment PSBTs ask the node: the inscriber's interface (getrawtransaction, gettxout with mempool). */
export type PaymentNode = RawTransactionSource;

/** Dogecoin Core 1.14.6's relay policy: an OP_RETURN payload of at most 80 bytes (83-byte script). */
export const MAX_OP_RETURN_PAYLOAD_BYTES = 80;
/** A payment spends at most this many of the claimant's outputs. */
export const MAX_PAYMENT_INPUTS = MAX_USER_INPUTS;

export interface PaymentPsbtOptions {
  /** The payment PSBTs kept (this module's table). */
  psbts: PaymentPsbtStore;
  /** The reservations the PSBTs pay for. */
  collections: Pick<CollectionStore, "reservation">;
  queries: IndexQueries;
  node: PaymentNode;
  network: DogeNetwork;
  feeRateKoinuPerKb: bigint;
  /** Unix seconds. */
  clock: () => number;
}

/** A kept payment PSBT, as stored. */
export interface PaymentPsbtRow {
  reservation_id: number;
  address: string;
  pubkey: string;
  unsigned_tx: string;
  psbt: string;
  expires_at: number;
}

/**
 * The payment PSBTs built for reservations (the payment_psbts table, this module's): the unsigned
 * transaction a signed PSBT must match. CollectionStore forgets those of pruned reservations
 * (its `links.paymentPsbts`).
 */
export class PaymentPsbtStore {
  private readonly s;

  constructor(db: Sqlite) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      save: p(`INSERT INTO payment_psbts (reservation_id, address, pubkey, unsigned_tx, psbt, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (reservation_id) DO UPDATE SET address = excluded.address, pubkey = excluded.pubkey, unsigned_tx = excluded.unsigned_tx,
          psbt = excluded.psbt, created_at = excluded.created_at, expires_at = excluded.expires_at, signed_txid = NULL`),
      get: p(
        "SELECT reservation_id, address, pubkey, unsigned_tx, psbt, expires_at FROM payment_psbts WHERE reservation_id = ?",
      ),
      signed: p("UPDATE payment_psbts SET signed_txid = ? WHERE reservation_id = ?"),
      forget: p("DELETE FROM payment_psbts WHERE reservation_id IN (SELECT value FROM json_each(?))"),
    };
  }

  /** Keeps (or replaces) the PSBT built for `psbt.reservationId`; a signed txid recorded before is cleared. */
  save(psbt: {
    reservationId: number;
    address: string;
    pubkey: string;
    unsignedTx: string;
    psbt: string;
    createdAt: number;
    expiresAt: number;
  }): void {
    this.s.save.run(
      psbt.reservationId,
      psbt.address,
      psbt.pubkey,
      psbt.unsignedTx,
      psbt.psbt,
      psbt.createdAt,
      psbt.expiresAt,
    );
  }

  /** The PSBT kept for reservation `reservationId`, or null. */
  get(reservationId: number): PaymentPsbtRow | null {
    return (this.s.get.get(reservationId) as PaymentPsbtRow | undefined) ?? null;
  }

  /** Records the txid of the transaction the signed PSBT finalised to. */
  signed(reservationId: number, txid: string): void {
    this.s.signed.run(txid, reservationId);
  }

  /** Deletes the PSBTs built for `reservationIds` (their reservations are being pruned). */
  forget(reservationIds: readonly number[]): void {
    if (reservationIds.length > 0) this.s.forget.run(JSON.stringify(reservationIds));
  }
}

export class PaymentPsbtService {
  private readonly btcNetwork: ReturnType<typeof toBitcoinjsNetwork>;

  constructor(private readonly options: PaymentPsbtOptions) {
    this.btcNetwork = toBitcoinjsNetwork(options.network);
  }

  /** Builds (or builds again, replacing the kept one) the payment PSBT of `address`'s reservation. */
  async build(collection: Collection, address: string, reservationId: number, publicKeyHex: unknown) {
    const pubkey = parsePublicKey(publicKeyHex);
    checkKeyOfAddress(address, pubkey, this.options.network, "public_key is not the key of the session's address");
    const reservation = this.liveReservation(collection, address, reservationId);
    const ownScript = addressToOutputScript(address, this.options.network);
    const memo = paymentMemo(collection.slug, reservation.tokenIndex);
    const memoBytes = new TextEncoder().encode(memo).length;
    if (memoBytes > MAX_OP_RETURN_PAYLOAD_BYTES) {
      // Nodes would not relay it; the slug is too long for a standard payment memo.
      throw unprocessable(
        "MEMO_TOO_LONG",
        `the OP_RETURN "${memo}" is ${memoBytes} bytes; nodes relay at most ${MAX_OP_RETURN_PAYLOAD_BYTES}`,
        {
          op_return: memo,
          bytes: memoBytes,
          max_bytes: MAX_OP_RETURN_PAYLOAD_BYTES,
        },
      );
    }
    const fixed: TxOutput[] = [
      { script: addressToOutputScript(collection.creatorAddress, this.options.network), value: collection.priceKoinu },
      { script: compileScript([OP.OP_RETURN, new TextEncoder().encode(memo)]), value: 0n },
    ];
    const { coins, fee, change } = await selectUserCoins({
      queries: this.options.queries,
      node: this.options.node,
      address,
      fixed,
      feeRateKoinuPerKb: this.options.feeRateKoinuPerKb,
      purpose: "this payment",
    });
    const outputs = change > 0n ? [...fixed, { script: ownScript, value: change }] : fixed;
    const psbt = newDogePsbt(this.btcNetwork);
    for (const coin of coins) {
      psbt.addInput({
        hash: coin.txid,
        index: coin.vout,
        nonWitnessUtxo: hexToBytes(await this.options.node.rawTransaction(coin.txid)),
      });
    }
    for (const output of outputs) psbt.addOutput({ script: output.script, value: output.value });
    const unsignedHex = bytesToHex(unsignedBytes(psbt));
    this.options.psbts.save({
      reservationId: reservation.id,
      address,
      pubkey: bytesToHex(pubkey),
      unsignedTx: unsignedHex,
      psbt: psbt.toBase64(),
      createdAt: this.options.clock(),
      expiresAt: reservation.expiresAt,
    });
    return {
      reservation_id: reservation.id,
      index: reservation.tokenIndex,
      psbt: psbt.toBase64(),
      fee_koinu: fee.toString(),
      inputs: coins.map((coin) => ({ txid: coin.txid, vout: coin.vout, value_koinu: coin.value.toString() })),
      outputs: outputs.map((output, i) => ({
        index: i,
        kind: i === 0 ? "price" : i === 1 ? "op_return" : "change",
        ...(i === 1 ? { op_return: memo } : { address: i === 0 ? collection.creatorAddress : address }),
        value_koinu: output.value.toString(),
      })),
      expires_at: reservation.expiresAt,
    };
  }

  /** Checks the signed PSBT against the kept one and answers the finalised transaction. */
  finish(
    collection: Collection,
    address: string,
    reservationId: number,
    psbtBase64: unknown,
  ): { txid: string; hex: string } {
    const reservation = this.liveReservation(collection, address, reservationId);
    const kept = this.options.psbts.get(reservation.id);
    if (!kept || kept.address !== address) {
      throw notFound(
        "PAYMENT_PSBT_NOT_FOUND",
        `no payment PSBT was built for reservation ${reservationId}; POST payment-psbt first`,
        { reservation_id: reservationId },
      );
    }
    const signed = parsePsbt(psbtBase64, this.btcNetwork);
    if (bytesToHex(unsignedBytes(signed)) !== kept.unsigned_tx) {
      throw badRequest(
        "PSBT_MISMATCH",
        "the PSBT's transaction is not the payment this service built for this reservation",
        { field: "psbt", reservation_id: reservation.id },
      );
    }
    const parsed = parseTransactionHex(kept.unsigned_tx);
    if (!parsed.ok) throw new Error(`kept payment transaction does not decode: ${parsed.error.message}`);
    const { version, inputs, outputs, locktime } = parsed.value;
    const tx: Transaction = { version, inputs: inputs.map((input) => ({ ...input })), outputs, locktime };
    const pubkey = hexToBytes(kept.pubkey);
    const ownScript = addressToOutputScript(address, this.options.network);
    const signatures = tx.inputs.map((_, i) => {
      const { signature, pubkey: signer } = onlySignature(signed, i);
      if (!equalBytes(signer, pubkey))
        throw badRequest("WRONG_SIGNER", `input ${i} must be signed by the session's key ${kept.pubkey}`, { input: i });
      checkSignature(tx, i, ownScript, pubkey, signature);
      return signature;
    });
    // Every input is the claimant's P2PKH output (the coins were chosen from the address's outputs).
    tx.inputs.forEach((input, i) => {
      input.scriptSig = p2pkhScriptSig(signatures[i], pubkey);
    });
    const hex = bytesToHex(serializeTransaction(tx));
    const txid = txidOf(tx);
    this.options.psbts.signed(reservation.id, txid);
    return { txid, hex };
  }

  /** `address`'s reservation `reservationId` on `collection`, live and on a priced collection. */
  private liveReservation(collection: Collection, address: string, reservationId: number): ReservationRecord {
    const { slug } = collection;
    if (collection.priceKoinu === 0n)
      throw badRequest("PAYMENT_NOT_EXPECTED", `"${slug}" is free to mint: there is nothing to pay`, { slug });
    if (address === collection.creatorAddress) {
      throw unprocessable(
        "PAYER_IS_CREATOR",
        `${address} is the creator of "${slug}": a payment from the creator to itself pays nothing`,
        { slug, creator_address: address },
      );
    }
    const reservation = this.options.collections.reservation(reservationId);
    if (!reservation || reservation.slug !== slug || reservation.address !== address) {
      throw notFound("RESERVATION_NOT_FOUND", `${address} holds no reservation ${reservationId} on "${slug}"`, {
        slug,
        reservation_id: reservationId,
      });
    }
    if (reservation.status === "minted") {
      throw conflict(
        "RESERVATION_USED",
        `reservation ${reservationId} was already used for a mint of index ${reservation.tokenIndex}; claim again for another`,
        { slug, index: reservation.tokenIndex, reservation_id: reservationId },
      );
    }
    if (reservation.status !== "active" || reservation.expiresAt <= this.options.clock()) {
      throw conflict(
        "RESERVATION_EXPIRED",
        `reservation ${reservationId} expired at ${reservation.expiresAt}; claim again`,
        { slug, index: reservation.tokenIndex, expires_at: reservation.expiresAt },
      );
    }
    return reservation;
  }
}
