/** Inscriber jobs and failed calls as InscriberClient gives them, for tests and benches. */
import { InscriberCallError } from "../../src/services/inscriber/client";
import type { InscriberJob } from "../../src/services/inscriber/client";

/** The InscriberCallError `promise` rejects with (anything else, or no rejection, fails the test). */
export async function inscriberFailure(promise: Promise<unknown>): Promise<InscriberCallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof InscriberCallError) return error;
    throw new Error(`expected an InscriberCallError, got ${(error as Error)?.stack ?? String(error)}`);
  }
  throw new Error("expected the inscriber call to fail");
}

/** An inscriber job for fakes: `fields` over a queued job. */
export function inscriberJob(fields: Partial<InscriberJob> & Pick<InscriberJob, "id">): InscriberJob {
  return {
    project: "launchpad",
    status: "queued",
    form: "v1",
    contentType: "application/json",
    action: null,
    recipient: "",
    envelopeHash: "00".repeat(32),
    commitTxid: null,
    revealTxids: [],
    inscriptionId: null,
    feeKoinu: null,
    confirmedHeight: null,
    error: null,
    ...fields,
  };
}
