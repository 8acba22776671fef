import { expect } from "chai";
import { sha256, verifyTypedData } from "ethers";
import type { Contract, ContractTransactionResponse } from "ethers";
import { nullDataScript } from "../../src/doge";
import { RECEIPT_TYPES, hashToBytes32 } from "../../src/facts";
import type { AttestationDomain } from "../../src/facts";
import { envelopeHash } from "../../src/inscription";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { Indexer } from "../../src/indexer/indexer";
import { factFromJson, receiptFromJson } from "../../src/attester";
import type { SignedFactJson, SignedReceiptJson } from "../../src/attester";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { inscribeV1, pay } from "../helpers/inscribe";
import { newKey } from "../helpers/keys";
import { ATTESTERS } from "../contracts/attestation-fixture";
import { DOGE, Purse, RunningAttester, call, deployContracts, newIndex, nowSeconds, startAttester } from "./helpers";

const utf8 = (text: string) => new TextEncoder().encode(text);

interface Job {
  jobId: string;
  resultHash: string;
}

/**
 * Inscription and anchor jobs requested on the L2 (DogeInscriber / DogeAnchor wired to
 * DogeAttestation as deploy/deploy.ts wires them), done on the devnet, signed by the attesters
 * from their own indexes and settled on the L2; and the receipts they refuse.
 */
describe("attester job receipts", function () {
  this.timeout(180_000);
  let devnet: RunningDevnet;
  const indexes: { indexer: Indexer; history: IndexHistory }[] = [];
  const attesters: RunningAttester[] = [];
  let attestation: Contract;
  let inscriber: Contract;
  let anchor: Contract;
  let foreignAnchor: Contract;
  let domain: AttestationDomain;
  const alice = newKey();
  const bob = newKey();
  const carol = newKey();
  const purse = new Purse(alice);
  const IMAGE = { contentType: "image/png", action: "LIST", body: utf8("a picture for bob") };
  const OTHER_IMAGE = { contentType: "image/png", action: "LIST", body: utf8("a picture for bob, sent to carol") };
  const jobs: Record<string, Job> = {};
  const txids: Record<string, string> = {};
  let tip: number;
  let shallowHeight: number;

  const syncAll = async () => {
    for (const index of indexes) await index.indexer.syncOnce();
  };
  const mine = async (blocks: number) => {
    await devnet.rpc("generatetoaddress", [blocks, newKey().address]);
    await syncAll();
    tip = indexes[0].indexer.indexedHeight();
  };
  const opened = async (service: Contract, tx: ContractTransactionResponse, eventName: string): Promise<Job> => {
    const mined = await tx.wait();
    for (const log of mined!.logs) {
      const parsed = service.interface.parseLog(log);
      if (parsed?.name === eventName) return { jobId: parsed.args.jobId, resultHash: parsed.args.resultHash };
    }
    throw new Error(`no ${eventName}`);
  };
  const requestInscription = async (content: typeof IMAGE, recipient: string) =>
    opened(
      inscriber,
      await inscriber.requestInscription(content.contentType, content.action, content.body, recipient, {
        value: await inscriber.fee(),
      }),
      "InscriptionRequested",
    );
  const requestAnchor = async (service: Contract, payload: Uint8Array) =>
    opened(service, await service.requestAnchor(payload, { value: await service.fee() }), "AnchorRequested");
  const anchorOnChain = async (payload: Uint8Array): Promise<string> => {
    const result = await pay(devnet, alice, [purse.take(DOGE)], [{ script: nullDataScript(payload), value: 0n }]);
    purse.give(result.change);
    return result.txid;
  };
  const receiptRequest = (
    kind: "inscription" | "anchor",
    service: Contract | string,
    job: Job,
    l1Txid: string,
    overrides: Record<string, unknown> = {},
  ) => ({
    kind,
    job_contract: typeof service === "string" ? service : service.target,
    job_id: job.jobId,
    l1_txid: l1Txid,
    attested_at: nowSeconds(),
    attester_set_id: 1,
    ...overrides,
  });
  const postReceipt = (attester: RunningAttester, body: unknown) => call(`${attester.url}/v1/receipt`, "POST", body);
  const refused = (answer: { status: number; body: any }) => {
    expect(answer.body).to.not.have.property("signature");
    return [
      answer.status,
      answer.body.error.code,
      answer.body.error.code === "RESULT_MISMATCH" ? answer.body.error.details.reason : undefined,
    ];
  };
  const bySigner = <T extends { signer: string }>(items: T[]) =>
    [...items].sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1));

  /**
   * Attests a tip that makes `l1Height` 6 deep for settle (l1Tip >= l1Height + 5). The attested tip
   * is itself 6 deep in the attesters' indexes, so the chain first grows to l1Height + 10.
   */
  const attestTipFor = async (l1Height: number) => {
    if ((await attestation.l1Tip()) >= BigInt(l1Height + 5)) return;
    if (tip < l1Height + 10) await mine(l1Height + 10 - tip);
    const request = { type: "L1_TIP", params: {}, l1_height: tip - 5, attested_at: nowSeconds(), attester_set_id: 1 };
    const answers = await Promise.all(
      attesters.slice(0, 2).map((attester) => call(`${attester.url}/v1/fact`, "POST", request)),
    );
    const signed = bySigner(answers.map((a) => a.body as SignedFactJson));
    await (
      await attestation.submitFact(
        factFromJson(signed[0].fact),
        signed.map((s) => s.signature),
      )
    ).wait();
  };

  before(async () => {
    devnet = await startDevnet();
    for (let i = 0; i < 3; i++) indexes.push(newIndex(devnet));
    ({ attestation, inscriber, anchor, domain } = await deployContracts(ATTESTERS));
    foreignAnchor = (await deployContracts(ATTESTERS)).anchor;
    for (let i = 0; i < 3; i++) {
      attesters.push(
        await startAttester({
          history: indexes[i].history,
          signer: ATTESTERS[i],
          attestationAddress: await attestation.getAddress(),
          chainId: domain.chainId,
        }),
      );
    }
    const funded = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [alice.address, 1_000, true]);
    const split = await pay(
      devnet,
      alice,
      [{ txid: funded.txid, vout: funded.vout, value: 1_000n * DOGE }],
      Array.from({ length: 10 }, () => ({ script: alice.script, value: 50n * DOGE })),
    );
    split.outputs.forEach((coin) => purse.give(coin));
    await mine(1);

    // Jobs on the L2: their parameters live there (and in the request events), not in the receipt requests.
    jobs.inscription = await requestInscription(IMAGE, bob.address);
    jobs.anchor = await requestAnchor(anchor, utf8("anchor me, 6 deep"));
    jobs.anchorMismatch = await requestAnchor(anchor, utf8("the payload the job asked for"));
    jobs.wrongRecipient = await requestInscription(OTHER_IMAGE, bob.address);
    jobs.shallow = await requestAnchor(anchor, utf8("anchored in the last block"));
    jobs.foreign = await requestAnchor(foreignAnchor, utf8("anchor me, 6 deep"));

    // The work on the base chain.
    txids.inscription = (await inscribeV1(devnet, alice, purse.take(DOGE), IMAGE, bob.script)).revealTxids[0];
    txids.anchor = await anchorOnChain(utf8("anchor me, 6 deep"));
    txids.anchorMismatch = await anchorOnChain(utf8("some other payload"));
    txids.wrongRecipient = (
      await inscribeV1(devnet, alice, purse.take(DOGE), OTHER_IMAGE, carol.script)
    ).revealTxids[0];
    await mine(6);
    txids.shallow = await anchorOnChain(utf8("anchored in the last block"));
    await mine(1);
    shallowHeight = tip;
  });

  after(async () => {
    for (const attester of attesters) await attester.close();
    await devnet?.stop();
  });

  it("reads the result hash the job committed to: the envelopeHash of its content, SHA-256 of its payload", async () => {
    expect(jobs.inscription.resultHash).to.equal(hashToBytes32(envelopeHash(IMAGE)));
    expect(jobs.anchor.resultHash).to.equal(sha256(utf8("anchor me, 6 deep")));
  });

  for (const [kind, name] of [
    ["inscription", "inscription"],
    ["anchor", "anchor"],
  ] as const) {
    it(`signs the same receipt for an ${name} job from every index, which settle accepts with two signatures`, async () => {
      const service = kind === "inscription" ? inscriber : anchor;
      const job = jobs[name];
      const request = receiptRequest(kind, service, job, txids[name]);
      const answers = await Promise.all(attesters.map((attester) => postReceipt(attester, request)));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
      expect(new Set(answers.map((a) => JSON.stringify(a.body.receipt))).size).to.equal(1);
      const receipt = receiptFromJson(answers[0].body.receipt);
      const includedAt = (
        await devnet.rpc<{ height: number }>("getblock", [
          (await devnet.rpc<{ blockhash: string }>("getrawtransaction", [txids[name], 1])).blockhash,
          1,
        ])
      ).height;
      expect(receipt).to.deep.equal({
        jobId: job.jobId.toLowerCase(),
        jobContract: service.target,
        l1Txid: hashToBytes32(txids[name]),
        resultHash: job.resultHash.toLowerCase(),
        l1Height: BigInt(includedAt),
        attestedAt: BigInt(request.attested_at),
        attesterSetId: 1n,
      });
      answers.forEach((answer, i) =>
        expect(verifyTypedData(domain, RECEIPT_TYPES, receipt, answer.body.signature)).to.equal(ATTESTERS[i].address),
      );

      await attestTipFor(includedAt);
      const pair = bySigner([answers[2].body, answers[0].body] as SignedReceiptJson[]);
      await expect(
        service.settle(
          job.jobId,
          receipt,
          pair.map((p) => p.signature),
        ),
      ).to.emit(service, "JobSettled");
      const stored = await service.jobOf(job.jobId);
      expect([stored.status, stored.l1Txid, stored.l1Height]).to.deep.equal([
        2n,
        hashToBytes32(txids[name]),
        BigInt(includedAt),
      ]);

      const again = await postReceipt(attesters[0], request);
      expect(refused(again)).to.deep.equal([409, "JOB_NOT_OPEN", undefined]);
    });
  }

  it("refuses an anchor whose OP_RETURN payload is not the job's with 422 RESULT_MISMATCH", async () => {
    const answer = await postReceipt(
      attesters[1],
      receiptRequest("anchor", anchor, jobs.anchorMismatch, txids.anchorMismatch),
    );
    expect(refused(answer)).to.deep.equal([422, "RESULT_MISMATCH", "NO_MATCHING_OP_RETURN"]);
  });

  it("refuses an inscription revealed to another address than the job's recipient with 422 RESULT_MISMATCH", async () => {
    const answer = await postReceipt(
      attesters[1],
      receiptRequest("inscription", inscriber, jobs.wrongRecipient, txids.wrongRecipient),
    );
    expect(refused(answer)).to.deep.equal([422, "RESULT_MISMATCH", "WRONG_RECIPIENT"]);
    expect(answer.body.error.details).to.deep.include({ expected: bob.address, found: carol.address });
  });

  it("refuses an inscription whose envelopeHash is not the job's, and a transaction that reveals no inscription", async () => {
    const other = await postReceipt(
      attesters[1],
      receiptRequest("inscription", inscriber, jobs.wrongRecipient, txids.inscription),
    );
    expect(refused(other)).to.deep.equal([422, "RESULT_MISMATCH", "ENVELOPE_HASH"]);
    const none = await postReceipt(
      attesters[1],
      receiptRequest("inscription", inscriber, jobs.wrongRecipient, txids.anchorMismatch),
    );
    expect(refused(none)).to.deep.equal([422, "RESULT_MISMATCH", "NO_INSCRIPTION"]);
  });

  it("refuses a transaction less than 6 deep with 422 NOT_DEEP_ENOUGH and an unknown one with 422 TX_NOT_FOUND", async () => {
    const shallow = await postReceipt(attesters[2], receiptRequest("anchor", anchor, jobs.shallow, txids.shallow));
    expect(refused(shallow)).to.deep.equal([422, "NOT_DEEP_ENOUGH", undefined]);
    expect(shallowHeight).to.be.greaterThan(tip - 5);
    expect(shallow.body.error.details).to.deep.equal({
      l1_height: shallowHeight,
      signable_height: tip - 5,
      min_confirmations: 6,
    });
    const unknown = await postReceipt(attesters[2], receiptRequest("anchor", anchor, jobs.shallow, "00".repeat(32)));
    expect(refused(unknown)).to.deep.equal([422, "TX_NOT_FOUND", undefined]);
  });

  it("takes the job only from the contract: another kind, a contract wired elsewhere or a result hash in the request are refused", async () => {
    const wrongKind = await postReceipt(
      attesters[0],
      receiptRequest("anchor", inscriber, jobs.wrongRecipient, txids.wrongRecipient),
    );
    expect(refused(wrongKind)).to.deep.equal([404, "JOB_NOT_FOUND", undefined]);
    const foreign = await postReceipt(
      attesters[0],
      receiptRequest("anchor", foreignAnchor, jobs.foreign, txids.anchor),
    );
    expect(refused(foreign)).to.deep.equal([422, "JOB_CONTRACT_MISMATCH", undefined]);
    const notAService = await postReceipt(
      attesters[0],
      receiptRequest("anchor", String(attestation.target), jobs.anchorMismatch, txids.anchorMismatch),
    );
    expect(refused(notAService)).to.deep.equal([422, "JOB_CONTRACT_MISMATCH", undefined]);
    const withHash = await postReceipt(attesters[0], {
      ...receiptRequest("anchor", anchor, jobs.anchorMismatch, txids.anchorMismatch),
      result_hash: jobs.anchorMismatch.resultHash,
    });
    expect(refused(withHash)).to.deep.equal([400, "UNKNOWN_FIELDS", undefined]);
  });

  it("applies the same L2 and clock checks as facts", async () => {
    const wrongSet = await postReceipt(
      attesters[0],
      receiptRequest("anchor", anchor, jobs.anchorMismatch, txids.anchorMismatch, { attester_set_id: 7 }),
    );
    expect(refused(wrongSet)).to.deep.equal([503, "WRONG_ATTESTER_SET", undefined]);
    const skewed = await postReceipt(
      attesters[0],
      receiptRequest("anchor", anchor, jobs.anchorMismatch, txids.anchorMismatch, { attested_at: nowSeconds() + 3600 }),
    );
    expect(refused(skewed)).to.deep.equal([422, "ATTESTED_AT_OUT_OF_WINDOW", undefined]);
  });
});
