/** An inscriber job as InscriberClient returns it, for the fakes of tests and benches: `fields` over a queued job. */
import type { InscriberJob } from "../../src/services/inscriber/client";

export function inscriberJob(fields: Partial<InscriberJob> & Pick<InscriberJob, "id">): InscriberJob {
  return {
    project: "launchpad", status: "queued", form: "v1", contentType: "application/json", action: null, recipient: "",
    envelopeHash: "00".repeat(32), commitTxid: null, revealTxids: [], inscriptionId: null, feeKoinu: null, confirmedHeight: null, error: null,
    ...fields,
  };
}
