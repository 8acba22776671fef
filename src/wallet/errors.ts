/** Errors of the hot wallet besides those of its public contract (types.ts). */

/** The wallet key could not be loaded; `reason` is stable, the message never contains the key. */
export class WalletKeyError extends Error {
  constructor(
    readonly reason: "MISSING" | "UNREADABLE" | "INSECURE_PERMISSIONS" | "MALFORMED" | "WRONG_NETWORK" | "UNCOMPRESSED" | "EXISTS",
    message: string,
  ) {
    super(message);
    this.name = "WalletKeyError";
  }
}

/** An output the wallet refuses to create: below the hard dust limit, negative, or value on OP_RETURN below it. */
export class InvalidOutputError extends Error {
  constructor(readonly index: number, readonly valueKoinu: bigint, message: string) {
    super(message);
    this.name = "InvalidOutputError";
  }
}

/** An operation that the transaction's current state does not allow (abandon after broadcast, unknown txid...). */
export class WalletTxStateError extends Error {
  constructor(readonly txid: string | null, readonly state: string | null, message: string) {
    super(message);
    this.name = "WalletTxStateError";
  }
}

/** A tracked transaction spends a wallet output that another wallet transaction already spends. */
export class WalletConflictError extends Error {
  constructor(readonly txid: string, readonly outpoint: string, readonly spentBy: string) {
    super(`transaction ${txid} spends ${outpoint}, which the wallet already gave to ${spentBy}`);
    this.name = "WalletConflictError";
  }
}

/** The database belongs to another wallet key or network. */
export class WalletDatabaseMismatchError extends Error {
  constructor(readonly expected: string, readonly found: string) {
    super(`this wallet database belongs to ${found}, not ${expected}: use one database file per wallet key`);
    this.name = "WalletDatabaseMismatchError";
  }
}
