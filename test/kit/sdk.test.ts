/**
 * @dogeos/sdk (packages/sdk) against the kit's stack (./stack.ts): the real contract set on the
 * Hardhat network, three attesters with their own keys, the attest API with the relayer's
 * fulfilment. A fact is read with its height and time and held to a freshness policy; facts
 * answered over HTTP are verified offline against the contract's attester set, and every tampered
 * answer (a signature changed, a signer outside the set, another chain id, ...) is refused, as
 * DogeAttestation refuses it; a paid fresh fact goes end to end; the typed clients and the ABI
 * index reach the daemons. The SDK's key and EIP-712 twins equal the repository's and the contract's.
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { Contract, Signature, Wallet, keccak256, toUtf8Bytes } from "ethers";
import * as repoFacts from "../../src/facts";
import {
  DogeosSdkError,
  FACT_TYPEHASH,
  FACT_TYPE_KEYS,
  FACT_TYPE_NAMES,
  FactVerificationError,
  attestClient,
  attestationContract,
  checkFreshness,
  deploymentOf,
  explorerClient,
  factDigest,
  factKeys,
  fetchAbiIndex,
  fetchVerifiedFact,
  launchpadClient,
  readAttesterSet,
  readFact,
  readFreshFact,
  requestFee,
  requestFreshFact,
  verifyAttestedFact,
  type AttestedFactAnswer,
  type AttesterSet,
} from "../../packages/sdk/src";
import { KIT_SLUG, KIT_TICK, KitStack, startKitStack } from "./stack";

describe("@dogeos/sdk", function () {
  this.timeout(120_000);
  let stack: KitStack;
  let attestation: Contract;
  let trusted: AttesterSet;
  let holderAnswer: AttestedFactAnswer;

  before(async () => {
    stack = await startKitStack();
    attestation = attestationContract(await stack.attestation.getAddress(), ethers.provider);
    trusted = await readAttesterSet(attestation);
  });

  after(async () => {
    await stack?.close();
  });

  /** The refusal code of `verify()`, or null when it passed. */
  const refusal = (verify: () => unknown): string | null => {
    try {
      verify();
      return null;
    } catch (error) {
      if (!(error instanceof FactVerificationError)) throw error;
      return error.code;
    }
  };
  const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

  describe("keys and typed data", () => {
    it("computes every key as the contract and src/facts do", async () => {
      const tx = "AB".repeat(32);
      const inscription = `${"CD".repeat(32)}i0`;
      expect(factKeys({ type: "DRC20_BALANCE", address: stack.alice.address, tick: "KiTw" })).to.deep.equal({
        factType: repoFacts.FACT_TYPE_KEYS.DRC20_BALANCE,
        subject: await attestation.addressKey(stack.alice.address),
        qualifier: await attestation.tickKey("KiTw"),
      });
      expect(
        factKeys({ type: "COLLECTION_COUNT", address: stack.holder.address, collection: KIT_SLUG }).qualifier,
      ).to.equal(await attestation.slugKey(KIT_SLUG));
      expect(factKeys({ type: "TX_INCLUDED", txid: tx }).subject).to.equal(await attestation.txKey(tx));
      expect(factKeys({ type: "INSCRIPTION_OWNER", id: inscription }).subject).to.equal(
        await attestation.inscriptionKey(inscription),
      );
      expect(factKeys({ type: "INSCRIPTION_OWNER", id: inscription }).subject).to.equal(
        repoFacts.inscriptionKey(inscription),
      );
      for (const name of FACT_TYPE_NAMES) expect(FACT_TYPE_KEYS[name], name).to.equal(repoFacts.FACT_TYPE_KEYS[name]);
    });

    it("hashes the Fact type string to the contract's FACT_TYPEHASH and digests as the contract does", async () => {
      expect(FACT_TYPEHASH).to.equal(await attestation.FACT_TYPEHASH());
      expect(FACT_TYPEHASH).to.equal(repoFacts.FACT_TYPEHASH);
      const fact = {
        factType: FACT_TYPE_KEYS.L1_TIP,
        subject: repoFacts.ZERO_KEY,
        qualifier: repoFacts.ZERO_KEY,
        value: 5n,
        data: keccak256(toUtf8Bytes("block")),
        l1Height: 5n,
        attestedAt: 7n,
        attesterSetId: 1n,
      };
      expect(factDigest(trusted.domain, fact)).to.equal(await attestation.factDigest(fact));
    });
  });

  describe("a fact answered over HTTP, verified offline", () => {
    it("verifies the attest API's answer: two attesters of the current set, and the contract stores it", async () => {
      const query = { type: "COLLECTION_COUNT", address: stack.holder.address, collection: KIT_SLUG } as const;
      const verified = await fetchVerifiedFact(stack.attestOrigin, query, trusted);
      holderAnswer = verified.answer;
      expect(verified.fact.value).to.equal(1n);
      expect(verified.signers).to.have.length.greaterThanOrEqual(2);
      for (const signer of verified.signers) expect(trusted.attesters).to.include(signer);
      await (await stack.attestation.submitFact(verified.fact, verified.signatures)).wait();
      const stored = await readFact(attestation, query);
      expect(stored).to.include({ exists: true, value: 1n, l1Height: verified.fact.l1Height });
      expect(stored.attestedAt).to.equal(verified.fact.attestedAt);
    });

    it("refuses a tampered answer with the rule it breaks, as the contract refuses the same signatures", async () => {
      const flipped = clone(holderAnswer);
      const last = flipped.signatures[1];
      flipped.signatures[1] = `${last.slice(0, 10)}${last[10] === "0" ? "1" : "0"}${last.slice(11)}`;
      const flippedCode = refusal(() => verifyAttestedFact(flipped, trusted));
      expect(flippedCode).to.be.oneOf(["SIGNER_NOT_ATTESTER", "INVALID_SIGNATURE", "SIGNERS_NOT_ASCENDING"]);

      // A signer outside the set: an outsider's signature in place of one attester's.
      const outsider = Wallet.createRandom();
      const fact = verifyAttestedFact(holderAnswer, trusted).fact;
      const outsiderSignature = await outsider.signTypedData(
        { ...trusted.domain },
        { Fact: repoFacts.FACT_TYPES.Fact },
        { ...fact },
      );
      const insider = holderAnswer.signatures[0];
      const pair = [insider, outsiderSignature].sort((a, b) =>
        BigInt(ethers.recoverAddress(verifyAttestedFact(holderAnswer, trusted).digest, a)) <
        BigInt(ethers.recoverAddress(verifyAttestedFact(holderAnswer, trusted).digest, b))
          ? -1
          : 1,
      );
      const withOutsider = { ...clone(holderAnswer), signatures: pair, signers: undefined };
      expect(refusal(() => verifyAttestedFact(withOutsider, trusted))).to.equal("SIGNER_NOT_ATTESTER");
      await expect(stack.attestation.verifyFact(fact, pair)).to.be.revertedWithCustomError(
        stack.attestation,
        "AttestationSignerNotAttester",
      );

      // Another chain id: the same attesters sign the fact for another chain's DogeAttestation.
      const otherDomain = { ...trusted.domain, chainId: 6281971n };
      const otherSignatures = repoFacts.sortSignatures(
        repoFacts.factDigest(otherDomain, fact),
        await Promise.all(
          stack.attesterKeys
            .slice(0, 2)
            .map((key) => key.signTypedData({ ...otherDomain }, { Fact: repoFacts.FACT_TYPES.Fact }, { ...fact })),
        ),
      );
      const otherChain = {
        ...clone(holderAnswer),
        signatures: otherSignatures,
        typedData: {
          ...clone(holderAnswer).typedData!,
          domain: { ...holderAnswer.typedData!.domain, chainId: 6281971 },
        },
      };
      expect(refusal(() => verifyAttestedFact(otherChain, trusted))).to.equal("WRONG_DOMAIN");
      // The same replay, with the answer's domain made to look like ours: the signers do not recover.
      const replayed = { ...otherChain, typedData: clone(holderAnswer).typedData, signers: undefined };
      expect(refusal(() => verifyAttestedFact(replayed, trusted))).to.equal("SIGNER_NOT_ATTESTER");
      await expect(stack.attestation.verifyFact(fact, otherSignatures)).to.be.revertedWithCustomError(
        stack.attestation,
        "AttestationSignerNotAttester",
      );
    });

    it("refuses a changed value, one signature, a duplicate, a high s, another set id and false signers", () => {
      const changed = clone(holderAnswer);
      changed.fact.value = "5";
      delete changed.typedData;
      expect(refusal(() => verifyAttestedFact(changed, trusted))).to.equal("SIGNER_NOT_ATTESTER");
      const mismatched = clone(holderAnswer);
      mismatched.typedData!.message = { ...mismatched.fact, value: "5" };
      expect(refusal(() => verifyAttestedFact(mismatched, trusted))).to.equal("MALFORMED_ANSWER");
      const one = { ...clone(holderAnswer), signatures: holderAnswer.signatures.slice(0, 1) };
      expect(refusal(() => verifyAttestedFact(one, trusted))).to.equal("QUORUM_NOT_MET");
      const twice = { ...clone(holderAnswer), signatures: [holderAnswer.signatures[0], holderAnswer.signatures[0]] };
      expect(refusal(() => verifyAttestedFact(twice, trusted))).to.equal("SIGNERS_NOT_ASCENDING");
      const reversed = {
        ...clone(holderAnswer),
        signatures: [...holderAnswer.signatures].reverse(),
        signers: undefined,
      };
      expect(refusal(() => verifyAttestedFact(reversed, trusted))).to.equal("SIGNERS_NOT_ASCENDING");
      // The high-s twin of a valid signature recovers the same signer with ecrecover; ECDSA refuses it.
      const signature = Signature.from(holderAnswer.signatures[0]);
      const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
      const highS = `${signature.r}${(n - BigInt(signature.s)).toString(16).padStart(64, "0")}${signature.v === 27 ? "1c" : "1b"}`;
      const malleable = { ...clone(holderAnswer), signatures: [highS, holderAnswer.signatures[1]] };
      expect(refusal(() => verifyAttestedFact(malleable, trusted))).to.equal("INVALID_SIGNATURE");
      expect(refusal(() => verifyAttestedFact(holderAnswer, { ...trusted, attesterSetId: 2n }))).to.equal(
        "WRONG_ATTESTER_SET",
      );
      const lying = { ...clone(holderAnswer), signers: [...holderAnswer.signers!].reverse() };
      expect(refusal(() => verifyAttestedFact(lying, trusted))).to.equal("SIGNERS_MISMATCH");
      expect(refusal(() => verifyAttestedFact(holderAnswer, trusted))).to.equal(null);
    });
  });

  describe("freshness", () => {
    it("reads the stored fact with its age, and refuses it as stale once the tip moved past the policy", async () => {
      const query = { type: "COLLECTION_COUNT", address: stack.holder.address, collection: KIT_SLUG } as const;
      const fresh = await readFreshFact(attestation, query, { maxBlocks: 0 });
      expect(fresh.age.blocks).to.equal(0n);
      await stack.mine(3);
      const tip = await fetchVerifiedFact(stack.attestOrigin, { type: "L1_TIP" }, trusted);
      await (await stack.attestation.submitFact(tip.fact, tip.signatures)).wait();
      expect(await attestation.l1Tip()).to.equal(tip.fact.l1Height);
      const age = tip.fact.l1Height - fresh.l1Height;
      expect(age >= 3n, `the tip moved ${age} blocks`).to.equal(true);
      let stale: unknown;
      try {
        await readFreshFact(attestation, query, { maxBlocks: age - 1n });
      } catch (error) {
        stale = error;
      }
      expect(stale).to.be.instanceOf(DogeosSdkError);
      expect((stale as DogeosSdkError).code).to.equal("FACT_STALE");
      expect((stale as DogeosSdkError).details.age).to.deep.include({ blocks: age });
      expect((await readFreshFact(attestation, query, { maxBlocks: age })).value).to.equal(1n);
      expect(
        checkFreshness(fresh, { maxSeconds: 10 }, { l1Tip: fresh.l1Height, now: fresh.attestedAt + 11n }),
      ).to.deep.include({ ok: false, reason: "FACT_STALE", limit: "maxSeconds" });
    });

    it("says FACT_MISSING for a fact never attested", async () => {
      let missing: unknown;
      try {
        await readFreshFact(
          attestation,
          { type: "COLLECTION_COUNT", address: stack.stranger.address, collection: KIT_SLUG },
          {},
        );
      } catch (error) {
        missing = error;
      }
      expect((missing as DogeosSdkError).code).to.equal("FACT_MISSING");
    });
  });

  describe("a paid fresh fact", () => {
    it("requestFee, requestFact, fulfil through the attest API, wait: the fact is stored and the fee escrowed then paid", async () => {
      const [, , requester] = await ethers.getSigners();
      const asRequester = attestationContract(await attestation.getAddress(), requester);
      const query = { type: "DRC20_BALANCE", address: stack.alice.address, tick: KIT_TICK.toUpperCase() } as const;
      const fee = await requestFee(asRequester, query);
      expect(fee).to.equal(await attestation.requestFee(FACT_TYPE_KEYS.DRC20_BALANCE));
      const before = await ethers.provider.getBalance(requester.address);
      const fresh = await requestFreshFact(asRequester, stack.attestOrigin, query, { pollMs: 100, timeoutMs: 30_000 });
      expect(fresh.feeWei).to.equal(fee);
      expect(fresh.fact).to.include({ exists: true, value: 700n });
      expect((await attestation.requestOf(fresh.requestId)).status).to.equal(2n);
      expect(fresh.fulfilTx).to.match(/^0x[0-9a-f]{64}$/);
      expect(before - (await ethers.provider.getBalance(requester.address))).to.be.greaterThanOrEqual(fee);
    });

    it("refuses to request a fact type whose fee is 0, before sending anything", async () => {
      const [, , requester] = await ethers.getSigners();
      const fake = {
        getFunction: (name: string) =>
          name === "requestFee" ? async () => 0n : attestationContract(ethers.ZeroAddress, requester).getFunction(name),
      } as unknown as Contract;
      let error: unknown;
      try {
        await requestFreshFact(fake, stack.attestOrigin, { type: "L1_TIP" });
      } catch (caught) {
        error = caught;
      }
      expect((error as DogeosSdkError).code).to.equal("FACT_NOT_REQUESTABLE");
    });
  });

  describe("the typed clients and the ABI index", () => {
    it("reaches the attest API, the explorer and the launchpad with the published documents' types", async () => {
      const attest = await attestClient(stack.attestOrigin).GET("/api/attest/");
      expect(attest.data?.min_signatures).to.equal(2);
      const status = await explorerClient(stack.explorerOrigin).GET("/api/status");
      expect(status.response.status).to.equal(200);
      const collections = await launchpadClient(stack.launchpadOrigin).GET("/api/collections");
      expect(collections.response.status).to.equal(200);
    });

    it("finds the local deployment in the ABI index a daemon serves, and reads facts through it", async () => {
      const index = await fetchAbiIndex(stack.launchpadOrigin);
      const deployment = deploymentOf(stack.chainId, "DogeAttestation", index);
      expect(deployment.address).to.equal(await attestation.getAddress());
      const receipt = await ethers.provider.getTransactionReceipt(deployment.deployTx!);
      expect(receipt!.contractAddress).to.equal(deployment.address);
      expect(receipt!.blockNumber).to.equal(deployment.deployBlock);
      const read = attestationContract(deployment.address, ethers.provider);
      expect(
        (await readFact(read, { type: "DRC20_BALANCE", address: stack.alice.address, tick: KIT_TICK })).value,
      ).to.equal(700n);
      expect(() => deploymentOf(6281971, "DogeAttestation", index)).to.throw(/deployed: false/);
    });
  });
});
