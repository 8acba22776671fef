/** The launchpad service (issue 8): API app, stores, and the membership gate for pages, bots and downloads. */
export { createLaunchpadApp, createMemberGate, sessionOf } from "./app";
export type { LaunchpadApp, LaunchpadOptions, MemberGate } from "./app";
export { CollectionStore, MAX_COLLECTION_SIZE, deployRequest, mintBodyJson } from "./collections";
export type {
  Collection,
  LaunchpadInscriber,
  LaunchpadInscriptionRequest,
  Reservation,
  ReservationLinks,
  ReservationRecord,
} from "./collections";
export { CollectionIndex } from "./membership";
export type { MemberToken, Membership } from "./membership";
export { LAUNCHPAD_MIGRATIONS, LAUNCHPAD_SCHEMA, openLaunchpadDatabase } from "./schema";
export { SessionStore, signingAddress } from "./sessions";
export type { LaunchpadSession } from "./sessions";
export { MINT_PAYMENT_PROTOCOL, MintReferences, MintService, mintIdempotencyKey, paymentMemo } from "./mints";
export type { MintRecord, MintStatus, PaymentRecord, PaymentStatus, SettlementReason } from "./mints";
export { MintedFeed } from "./live";
export type { MintedCount, MintedFeedOptions, MintedListener } from "./live";
export { MAX_OP_RETURN_PAYLOAD_BYTES, MAX_PAYMENT_INPUTS, PaymentPsbtService, PaymentPsbtStore } from "./payment";
export type { PaymentNode, PaymentPsbtOptions } from "./payment";
export { devWalletScript } from "./dev-wallet";
