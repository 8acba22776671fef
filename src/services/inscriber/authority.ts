/**
 * What an inscription may say and where it may land, by who asks (issue 26; docs/security.md
 * "Launchpad payments"). The hot wallet is every platform inscription's inscriber, and the index
 * trusts an inscriber's address for some things: a collection's mints count when "inscribed by the
 * deploy's inscriber", and a DRC-20 transfer revealed to an address moves that address's balance.
 * So the inscriber keeps the authority of its one address to the project it belongs to:
 * - an ACTION of the launchpad group (LAUNCHPAD_DEPLOY, LAUNCHPAD_MINT) is inscribed for the
 *   launchpad project alone (422 ACTION_RESERVED for any other project);
 * - a service address (the AMM's custody, the launchpad's, the hot wallet itself) receives only its
 *   owner project's inscriptions (422 RECIPIENT_PROTECTED otherwise, also for a user-signed
 *   preparation, which no project owns). The hot wallet has no owner unless the operator names one.
 * Both are 422s: the inscriber's clients (InscriberClient) read them as a refusal of the content,
 * final, so the relayer fails such an L2 job for good and leaves it for its requester's refund.
 */
import { lookupAction } from "../../inscription";
import { unprocessable } from "../../errors";

/** The project that may inscribe launchpad ACTIONs unless configured otherwise (`--launchpad-project`). */
export const DEFAULT_LAUNCHPAD_PROJECT = "launchpad";

export interface InscriberAuthority {
  /** The one project allowed the launchpad group's ACTIONs. */
  launchpadProject: string;
  /** Service address -> the project that owns it (the only one that may inscribe to it). */
  protectedAddresses: ReadonlyMap<string, string>;
  /** The hot wallet's address: protected for every project but its owner in `protectedAddresses`, if any. */
  hotWalletAddress: string | null;
}

/** 422 ACTION_RESERVED when `action` belongs to the launchpad group and `project` is not the launchpad. */
export function checkReservedAction(authority: InscriberAuthority, project: string, action: string | null): void {
  if (action === null) return;
  const entry = lookupAction(action);
  if (entry?.group !== "launchpad" || project === authority.launchpadProject) return;
  throw unprocessable(
    "ACTION_RESERVED",
    `action ${action} is the launchpad's: only project ${authority.launchpadProject} may inscribe it here`,
    { action, project, reserved_for: authority.launchpadProject },
  );
}

/**
 * 422 RECIPIENT_PROTECTED when `recipient` is a service address that `project` does not own
 * (`project` null: a user-signed preparation, which owns none).
 */
export function checkRecipient(authority: InscriberAuthority, project: string | null, recipient: string): void {
  const owner =
    authority.protectedAddresses.get(recipient) ?? (recipient === authority.hotWalletAddress ? null : undefined);
  if (owner === undefined || (owner !== null && owner === project)) return;
  throw unprocessable(
    "RECIPIENT_PROTECTED",
    `${recipient} is a service address${owner ? ` of project ${owner}` : " (the inscriber's hot wallet)"}: nobody else inscribes to it`,
    { recipient, project, ...(owner ? { owner } : {}) },
  );
}
