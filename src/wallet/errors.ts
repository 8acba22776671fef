/** Errors of the hot wallet besides those of its public contract (types.ts). */
import { DogeosError } from "../errors";

/** The wallet key could not be loaded; `reason` is stable, the message never contains the key. */
export class WalletKeyError extends DogeosError {
  constructor(
    readonly reason:
      "MISSING" | "UNREADABLE" | "INSECURE_PERMISSIONS" | "MALFORMED" | "WRONG_NETWORK" | "UNCOMPRESSED" | "EXISTS",
    message: string,
  ) {
    super("invalid", `WALLET_KEY_${reason}`, message);
  }
}

/** An output the wallet refuses to create: below the hard dust limit, negative, or value on OP_RETURN below it. */
export class InvalidOutputError extends DogeosError {
  constructor(
    readonly index: number,
    readonly valueKoinu: bigint,
    message: string,
  ) {
    super("unprocessable", "INVALID_OUTPUT", message, { details: { index, value_koinu: valueKoinu.toString() } });
  }
}

/** An operation that the transaction's current state does not allow (abandon after broadcast, unknown txid...). */
export class WalletTxStateError extends DogeosError {
  constructor(
    readonly txid: string | null,
    readonly state: string | null,
    message: string,
  ) {
    super("conflict", "WALLET_TX_STATE", message, { details: { txid, state } });
  }
}

/** A tracked transaction spends a wallet output that another wallet transaction already spends. */
export class WalletConflictError extends DogeosError {
  constructor(
    readonly txid: string,
    readonly outpoint: string,
    readonly spentBy: string,
  ) {
    super(
      "conflict",
      "WALLET_CONFLICT",
      `transaction ${txid} spends ${outpoint}, which the wallet already gave to ${spentBy}`,
      {
        details: { txid, outpoint, spent_by: spentBy },
      },
    );
  }
}

/** The database belongs to another wallet key or network. */
export class WalletDatabaseMismatchError extends DogeosError {
  constructor(
    readonly expected: string,
    readonly found: string,
  ) {
    super(
      "conflict",
      "WALLET_DATABASE_MISMATCH",
      `this wallet database belongs to ${found}, not ${expected}: use one database file per wallet key`,
      {
        details: { expected, found },
      },
    );
  }
}

/** Why an outpoint named as a carrier input cannot be spent by this funding. */
export type CarrierUnavailableCode =
  /** The wallet has no such output (unknown, not reported by the index yet, or gone from it). */
  | "CARRIER_NOT_FOUND"
  /** A plain output of the wallet: it carries nothing, so it is not spent as a carrier. */
  | "CARRIER_NOT_LOCKED"
  /** Already spent by a live wallet transaction (`spentBy`). */
  | "CARRIER_SPENT"
  /** Given back after a conflict and held until `heldUntil` (ms), like every output after a conflict. */
  | "CARRIER_HELD";

/** An outpoint named in `carrierInputs` (or given to `sendCarrier`) is not a locked, unspent output of the wallet. */
export class CarrierNotAvailableError extends DogeosError<CarrierUnavailableCode> {
  constructor(
    code: CarrierUnavailableCode,
    readonly outpoint: string,
    readonly spentBy: string | null = null,
    readonly heldUntil: number | null = null,
  ) {
    super(
      code === "CARRIER_NOT_FOUND" ? "not_found" : "conflict",
      code,
      carrierMessage(code, outpoint, spentBy, heldUntil),
      {
        details: { outpoint, spent_by: spentBy, held_until: heldUntil },
      },
    );
  }
}

function carrierMessage(
  code: CarrierUnavailableCode,
  outpoint: string,
  spentBy: string | null,
  heldUntil: number | null,
): string {
  switch (code) {
    case "CARRIER_NOT_FOUND":
      return `${outpoint} is not an output of the wallet (has the index reported it and the wallet synced?)`;
    case "CARRIER_NOT_LOCKED":
      return `${outpoint} carries no inscription or DRC-20 transfer per the index; plain outputs are not spent as carriers`;
    case "CARRIER_SPENT":
      return `${outpoint} is already spent by ${spentBy}`;
    case "CARRIER_HELD":
      return `${outpoint} was given back after a conflict and is held until ${heldUntil === null ? "?" : new Date(heldUntil).toISOString()}`;
  }
}
