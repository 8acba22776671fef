/** The one error type of the SDK: a stable SNAKE_CASE `code` and the values that caused it. */
export type DogeosSdkErrorCode =
  | "MALFORMED_ANSWER"
  | "WRONG_DOMAIN"
  | "WRONG_ATTESTER_SET"
  | "QUORUM_NOT_MET"
  | "INVALID_SIGNATURE"
  | "SIGNER_NOT_ATTESTER"
  | "SIGNERS_NOT_ASCENDING"
  | "SIGNERS_MISMATCH"
  | "FACT_MISSING"
  | "FACT_STALE"
  | "FACT_NOT_REQUESTABLE"
  | "REQUEST_NOT_FOUND"
  | "REQUEST_REFUNDED"
  | "REQUEST_TIMEOUT"
  | "HTTP_ERROR";

export class DogeosSdkError extends Error {
  readonly code: DogeosSdkErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: DogeosSdkErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "DogeosSdkError";
    this.code = code;
    this.details = details;
  }
}

/** A fact that a verifier or a freshness check refused; `code` says why. */
export class FactVerificationError extends DogeosSdkError {
  constructor(code: DogeosSdkErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, details);
    this.name = "FactVerificationError";
  }
}
