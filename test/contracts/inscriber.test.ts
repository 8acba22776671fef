import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract } from "ethers";
import { hexToBytes } from "../../src/doge";
import { envelopeHash } from "../../src/inscription";
import { TIMELOCK_DELAY } from "./attestation-fixture";
import {
  CONFIRMATIONS,
  INSCRIBER_FEE,
  L1_HEIGHT,
  MINT,
  ONE_DAY,
  RECIPIENT,
  STATUS,
  TIP,
  deployJobsFixture,
  jobIdOf,
  l1TxidFor,
  receiptFor,
  requestAnchor,
  requestInscription,
  settleJob,
  signByTwo,
} from "./jobs-fixture";
import type { InscriptionInput } from "./jobs-fixture";

interface EnvelopeVector {
  description: string;
  input: { contentType: string; action: string | null; bodyHex: string };
  expected: { envelopeHash: string };
}

const vectors = (
  JSON.parse(fs.readFileSync(path.join(__dirname, "..", "vectors", "envelope.json"), "utf8")) as {
    valid: EnvelopeVector[];
  }
).valid;

/** The TypeScript codec's envelopeHash as bytes32. */
function codecHash(input: Pick<InscriptionInput, "contentType" | "action" | "payload">): string {
  const body =
    typeof input.payload === "string" ? hexToBytes(input.payload.replace(/^0x/, "")) : (input.payload as Uint8Array);
  return `0x${envelopeHash({ contentType: input.contentType, action: input.action === "" ? null : input.action, body })}`;
}

/** What the contract accepts without an ACTION: a text/plain media type. */
const isPlainText = (contentType: string) => /^text\/plain($|[; ])/i.test(contentType);

describe("contracts/DogeInscriber", () => {
  describe("deployment", () => {
    it("starts with a fee of 1 DOGE and the shared defaults, and exposes its limits", async () => {
      const { inscriber, attestation, operator } = await loadFixture(deployJobsFixture);
      expect(await inscriber.fee()).to.equal(INSCRIBER_FEE);
      expect(await inscriber.DEFAULT_FEE()).to.equal(INSCRIBER_FEE);
      expect(await inscriber.deadlineWindow()).to.equal(ONE_DAY);
      expect(await inscriber.attestation()).to.equal(await attestation.getAddress());
      expect(await inscriber.operator()).to.equal(operator.address);
      expect(await inscriber.timelockDelay()).to.equal(TIMELOCK_DELAY);
      expect(await inscriber.CONFIRMATIONS()).to.equal(CONFIRMATIONS);
      expect(await inscriber.MAX_CONTENT_TYPE_BYTES()).to.equal(255n);
      expect(await inscriber.MAX_ACTION_BYTES()).to.equal(64n);
      expect(await inscriber.MAX_PAYLOAD_BYTES()).to.equal(65_536n);
      expect(await inscriber.MIN_RECIPIENT_LENGTH()).to.equal(25n);
      expect(await inscriber.MAX_RECIPIENT_LENGTH()).to.equal(64n);
    });
  });

  describe("requestInscription", () => {
    it("escrows the fee, opens the job and emits InscriptionRequested with everything a relayer needs", async () => {
      const { inscriber, chainId, requester } = await loadFixture(deployJobsFixture);
      const resultHash = codecHash(MINT);
      const expectedId = jobIdOf(await inscriber.getAddress(), chainId, 1n, resultHash);
      const asRequester = inscriber.connect(requester) as Contract;
      const args = [MINT.contentType, MINT.action, MINT.payload, MINT.dogeRecipient] as const;
      expect(await asRequester.requestInscription.staticCall(...args, { value: INSCRIBER_FEE })).to.equal(expectedId);
      const next = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(next);
      const tx = asRequester.requestInscription(...args, { value: INSCRIBER_FEE });
      await expect(tx)
        .to.emit(inscriber, "InscriptionRequested")
        .withArgs(
          expectedId,
          requester.address,
          MINT.contentType,
          MINT.action,
          ethers.hexlify(MINT.payload),
          RECIPIENT,
          resultHash,
          INSCRIBER_FEE,
          next + ONE_DAY,
        );
      await expect(tx).to.changeEtherBalances([requester, inscriber], [-INSCRIBER_FEE, INSCRIBER_FEE]);
      const job = await inscriber.jobOf(expectedId);
      expect([job.requester, job.feeWei, job.sequence, job.deadline, job.status]).to.deep.equal([
        requester.address,
        INSCRIBER_FEE,
        1n,
        next + ONE_DAY,
        STATUS.Open,
      ]);
      expect(await inscriber.jobCount()).to.equal(1n);
    });

    it("commits to the TypeScript codec's envelopeHash for every vector of test/vectors/envelope.json it accepts", async () => {
      const { inscriber, chainId, requester } = await loadFixture(deployJobsFixture);
      const address = await inscriber.getAddress();
      let accepted = 0;
      for (const vector of vectors) {
        const input: InscriptionInput = {
          contentType: vector.input.contentType,
          action: vector.input.action ?? "",
          payload: `0x${vector.input.bodyHex}`,
          dogeRecipient: RECIPIENT,
        };
        const expected = `0x${vector.expected.envelopeHash}`;
        expect(codecHash(input), vector.description).to.equal(expected);
        expect(
          await inscriber.envelopeHashOf(input.contentType, input.action, input.payload),
          vector.description,
        ).to.equal(expected);
        if (input.action === "" && !isPlainText(input.contentType)) {
          await expect(
            (inscriber.connect(requester) as Contract).requestInscription(
              input.contentType,
              "",
              input.payload,
              RECIPIENT,
              { value: INSCRIBER_FEE },
            ),
          )
            .to.be.revertedWithCustomError(inscriber, "InscriberActionRequired")
            .withArgs(input.contentType);
          continue;
        }
        const job = await requestInscription(inscriber, requester, input);
        accepted += 1;
        expect(job.resultHash, vector.description).to.equal(expected);
        expect(job.jobId).to.equal(jobIdOf(address, chainId, BigInt(accepted), expected));
      }
      expect(accepted).to.be.greaterThan(10);
    });

    it("accepts an empty ACTION for text/plain in any case, with or without parameters", async () => {
      const { inscriber, requester } = await loadFixture(deployJobsFixture);
      for (const contentType of ["text/plain", "text/plain;charset=utf8", "TEXT/Plain ; charset=utf-8"]) {
        const input = {
          contentType,
          action: "",
          payload: ethers.toUtf8Bytes('{"p":"drc-20","op":"mint","tick":"doge","amt":"1"}'),
          dogeRecipient: RECIPIENT,
        };
        expect((await requestInscription(inscriber, requester, input)).resultHash).to.equal(codecHash(input));
      }
    });

    it("reverts with InscriberActionRequired for an empty ACTION with any other content type", async () => {
      const { inscriber, requester } = await loadFixture(deployJobsFixture);
      for (const contentType of [
        "application/json",
        "text/plainx",
        "text/plai",
        "text/pl@in",
        "text\u000fplain",
        "text/html",
        "image/png",
      ]) {
        await expect(
          (inscriber.connect(requester) as Contract).requestInscription(contentType, "", "0x01", RECIPIENT, {
            value: INSCRIBER_FEE,
          }),
        )
          .to.be.revertedWithCustomError(inscriber, "InscriberActionRequired")
          .withArgs(contentType);
      }
    });

    it("reverts with InscriberContentTypeLengthInvalid for an empty content type and one of 256 bytes", async () => {
      const { inscriber, requester } = await loadFixture(deployJobsFixture);
      const asRequester = inscriber.connect(requester) as Contract;
      for (const contentType of ["", `application/${"x".repeat(244)}`]) {
        await expect(asRequester.requestInscription(contentType, "ZKP", "0x01", RECIPIENT, { value: INSCRIBER_FEE }))
          .to.be.revertedWithCustomError(inscriber, "InscriberContentTypeLengthInvalid")
          .withArgs(BigInt(contentType.length), 1n, 255n);
      }
      const longest = `application/${"x".repeat(243)}`;
      expect(longest.length).to.equal(255);
      await expect(asRequester.requestInscription(longest, "ZKP", "0x01", RECIPIENT, { value: INSCRIBER_FEE })).to.emit(
        inscriber,
        "InscriptionRequested",
      );
    });

    it("reverts with InscriberActionTooLong for an ACTION of 65 bytes and accepts 64", async () => {
      const { inscriber, requester } = await loadFixture(deployJobsFixture);
      const asRequester = inscriber.connect(requester) as Contract;
      await expect(
        asRequester.requestInscription("application/json", `A${"_X".repeat(32)}`, "0x01", RECIPIENT, {
          value: INSCRIBER_FEE,
        }),
      )
        .to.be.revertedWithCustomError(inscriber, "InscriberActionTooLong")
        .withArgs(65n, 64n);
      await expect(
        asRequester.requestInscription("application/json", "A".repeat(64), "0x01", RECIPIENT, { value: INSCRIBER_FEE }),
      ).to.emit(inscriber, "InscriptionRequested");
    });

    it("reverts with InscriberPayloadTooLarge above 65,536 bytes and accepts exactly 65,536", async () => {
      const { inscriber, requester } = await loadFixture(deployJobsFixture);
      const asRequester = inscriber.connect(requester) as Contract;
      await expect(
        asRequester.requestInscription("application/octet-stream", "ZKP", new Uint8Array(65_537).fill(7), RECIPIENT, {
          value: INSCRIBER_FEE,
        }),
      )
        .to.be.revertedWithCustomError(inscriber, "InscriberPayloadTooLarge")
        .withArgs(65_537n, 65_536n);
      const largest = {
        contentType: "application/octet-stream",
        action: "ZKP",
        payload: new Uint8Array(65_536).fill(7),
        dogeRecipient: RECIPIENT,
      };
      expect((await requestInscription(inscriber, requester, largest)).resultHash).to.equal(codecHash(largest));
    });

    it("reverts with InscriberRecipientLengthInvalid outside 25 to 64 bytes", async () => {
      const { inscriber, requester } = await loadFixture(deployJobsFixture);
      const asRequester = inscriber.connect(requester) as Contract;
      for (const recipient of ["", "D".repeat(24), "D".repeat(65)]) {
        await expect(
          asRequester.requestInscription(MINT.contentType, MINT.action, MINT.payload, recipient, {
            value: INSCRIBER_FEE,
          }),
        )
          .to.be.revertedWithCustomError(inscriber, "InscriberRecipientLengthInvalid")
          .withArgs(BigInt(recipient.length), 25n, 64n);
      }
      for (const recipient of ["D".repeat(25), "D".repeat(64)]) {
        await expect(
          asRequester.requestInscription(MINT.contentType, MINT.action, MINT.payload, recipient, {
            value: INSCRIBER_FEE,
          }),
        ).to.emit(inscriber, "InscriptionRequested");
      }
    });

    it("reverts with JobWrongFee unless exactly the fee is sent, and with JobPaused while paused", async () => {
      const { inscriber, requester, guardian } = await loadFixture(deployJobsFixture);
      const asRequester = inscriber.connect(requester) as Contract;
      const args = [MINT.contentType, MINT.action, MINT.payload, MINT.dogeRecipient] as const;
      for (const sent of [0n, INSCRIBER_FEE / 10n, INSCRIBER_FEE + 1n]) {
        await expect(asRequester.requestInscription(...args, { value: sent }))
          .to.be.revertedWithCustomError(inscriber, "JobWrongFee")
          .withArgs(sent, INSCRIBER_FEE);
      }
      await (inscriber.connect(guardian) as Contract).pause();
      await expect(asRequester.requestInscription(...args, { value: INSCRIBER_FEE })).to.be.revertedWithCustomError(
        inscriber,
        "JobPaused",
      );
    });
  });

  describe("envelopeHashOf", () => {
    it("passes EnvelopeLib's errors through for inputs the envelope cannot hold", async () => {
      const { inscriber } = await loadFixture(deployJobsFixture);
      await expect(inscriber.envelopeHashOf("", "", "0x"))
        .to.be.revertedWithCustomError(inscriber, "EnvelopeContentTypeLengthInvalid")
        .withArgs(0n, 1n, 520n);
      await expect(inscriber.envelopeHashOf("text/plain", "A".repeat(521), "0x"))
        .to.be.revertedWithCustomError(inscriber, "EnvelopeActionTooLong")
        .withArgs(521n, 520n);
    });
  });

  describe("settle and refund", () => {
    it("settles with a receipt carrying the codec's envelopeHash and credits the operator", async () => {
      const { inscriber, domain, requester, stranger, operator } = await loadFixture(deployJobsFixture);
      const job = await requestInscription(inscriber, requester);
      const tx = settleJob(inscriber, domain, { jobId: job.jobId, resultHash: codecHash(MINT) }, stranger);
      await expect(tx)
        .to.emit(inscriber, "JobSettled")
        .withArgs(job.jobId, operator.address, l1TxidFor(job.jobId), L1_HEIGHT, INSCRIBER_FEE);
      const stored = await inscriber.jobOf(job.jobId);
      expect([stored.status, stored.l1Txid, stored.l1Height, stored.l1TipAtRequest]).to.deep.equal([
        STATUS.Settled,
        l1TxidFor(job.jobId),
        L1_HEIGHT,
        TIP,
      ]);
      expect(await inscriber.withdrawableOf(operator.address)).to.equal(INSCRIBER_FEE);
    });

    it("reverts with JobReceiptForOtherContract for an anchor receipt with the inscriber's job id", async () => {
      const { inscriber, anchor, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestInscription(inscriber, requester);
      const anchorJob = await requestAnchor(anchor, requester);
      const receipt = { ...(await receiptFor(anchor, anchorJob)), jobId: job.jobId, resultHash: job.resultHash };
      await expect(inscriber.settle(job.jobId, receipt, await signByTwo(domain, receipt)))
        .to.be.revertedWithCustomError(inscriber, "JobReceiptForOtherContract")
        .withArgs(job.jobId, await anchor.getAddress());
    });

    it("reverts with JobResultHashMismatch for the envelopeHash of another payload, ACTION or content type", async () => {
      const { inscriber, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestInscription(inscriber, requester);
      for (const other of [
        { ...MINT, payload: "0x00" },
        { ...MINT, action: "LAUNCHPAD_DEPLOY" },
        { ...MINT, contentType: "application/JSON" },
      ]) {
        const wrong = codecHash(other);
        const receipt = await receiptFor(inscriber, { jobId: job.jobId, resultHash: wrong });
        await expect(inscriber.settle(job.jobId, receipt, await signByTwo(domain, receipt)))
          .to.be.revertedWithCustomError(inscriber, "JobResultHashMismatch")
          .withArgs(job.jobId, wrong);
      }
    });

    it("reverts with JobNotConfirmed before 6 confirmations and JobPaused while paused", async () => {
      const { inscriber, domain, requester, guardian } = await loadFixture(deployJobsFixture);
      const job = await requestInscription(inscriber, requester);
      const shallow = await receiptFor(inscriber, job);
      await expect(inscriber.settle(job.jobId, shallow, await signByTwo(domain, shallow)))
        .to.be.revertedWithCustomError(inscriber, "JobNotConfirmed")
        .withArgs(job.jobId, L1_HEIGHT, TIP, CONFIRMATIONS);
      await (inscriber.connect(guardian) as Contract).pause();
      await expect(settleJob(inscriber, domain, job)).to.be.revertedWithCustomError(inscriber, "JobPaused");
    });

    it("refunds the requester after the deadline, also while paused, and then refuses to settle", async () => {
      const { inscriber, requester, guardian } = await loadFixture(deployJobsFixture);
      const job = await requestInscription(inscriber, requester);
      await (inscriber.connect(guardian) as Contract).pause();
      await time.increaseTo(job.deadline + 1n);
      const tx = (inscriber.connect(requester) as Contract).refund(job.jobId);
      await expect(tx).to.emit(inscriber, "JobRefunded").withArgs(job.jobId, requester.address, INSCRIBER_FEE);
      await expect(tx).to.changeEtherBalances([requester, inscriber], [INSCRIBER_FEE, -INSCRIBER_FEE]);
      await expect((inscriber.connect(requester) as Contract).refund(job.jobId))
        .to.be.revertedWithCustomError(inscriber, "JobNotOpen")
        .withArgs(job.jobId, STATUS.Refunded);
    });
  });
});
