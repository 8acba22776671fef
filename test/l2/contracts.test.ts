/**
 * src/l2/contracts.ts against the contracts: the job status enum is IJobService.JobStatus, name for
 * name and in order; the request topics are the events' signatures; the typed readers read a job.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { id } from "ethers";
import { ABI, JOB_STATUS, REQUEST_EVENT, REQUEST_TOPIC, jobServiceAbi } from "../../src/l2/contracts";

const ROOT = path.join(__dirname, "..", "..");

describe("src/l2/contracts.ts", () => {
  it("JOB_STATUS is IJobService.JobStatus (contracts/services/IJobService.sol), in order", () => {
    const source = fs.readFileSync(path.join(ROOT, "contracts", "services", "IJobService.sol"), "utf8");
    const body = /enum\s+JobStatus\s*\{([^}]*)\}/.exec(source);
    expect(body, "enum JobStatus in IJobService.sol").to.not.equal(null);
    const names = body![1]
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    expect(Object.fromEntries(names.map((name, index) => [name, index]))).to.deep.equal(JOB_STATUS);
  });

  it("REQUEST_TOPIC is the topic of each service's request event, as the published ABI declares it", () => {
    for (const kind of ["inscription", "anchor"] as const) {
      const event = (jobServiceAbi(kind) as { type: string; name?: string; inputs?: { type: string }[] }[]).find(
        (item) => item.type === "event" && item.name === REQUEST_EVENT[kind],
      );
      expect(event, REQUEST_EVENT[kind]).to.not.equal(undefined);
      expect(REQUEST_TOPIC[kind]).to.equal(
        id(`${REQUEST_EVENT[kind]}(${event!.inputs!.map((input) => input.type).join(",")})`),
      );
    }
  });

  it("loads the published ABIs (shared/abi)", () => {
    for (const name of ["DogeAttestation", "DogeInscriber", "DogeAnchor"] as const) {
      expect(ABI[name]).to.deep.equal(
        JSON.parse(fs.readFileSync(path.join(ROOT, "shared", "abi", `${name}.json`), "utf8")),
      );
    }
  });
});
