import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract } from "ethers";
import {
  DEFAULT_REQUEST_FEE_WEI,
  FACT_TYPEHASH,
  FACT_TYPE_KEYS,
  FACT_TYPE_NAMES,
  FACT_TYPE_STRING,
  RECEIPT_TYPEHASH,
  RECEIPT_TYPE_STRING,
  ZERO_KEY,
  addressKey,
  assertAttestationDomain,
  attestationDomain,
  collectionCountFact,
  domainFromEip712Result,
  drc20BalanceFact,
  drc20TransferValidFact,
  factDigest,
  factStorageKey,
  hashToBytes32,
  inscriptionKey,
  inscriptionOwnerFact,
  inscriptionValidFact,
  l1TipFact,
  receiptDigest,
  recoverSigner,
  requestIdOf,
  signFact,
  signReceipt,
  slugKey,
  tickKey,
  txIncludedFact,
  txKey,
} from "../../src/facts";
import type { Fact, Receipt } from "../../src/facts";
import {
  ATTESTERS,
  DOGE_ADDRESS,
  INSCRIPTION_ID,
  OTHER_DOGE_ADDRESS,
  OUTSIDER,
  SPARE_ATTESTERS,
  TIMELOCK_DELAY,
  TXID,
  balanceFact,
  deployAttestationFixture,
  highS,
  rotateAttesters,
  signByTwo,
  stampAt,
} from "./attestation-fixture";

const ENVELOPE_HASH = `0x${"5e".repeat(32)}`;
const BLOCK_HASH = "77".repeat(32);

describe("contracts/DogeAttestation", () => {
  describe("deployment", () => {
    it("starts with attester set 1, the given roles, 0.05 DOGE fees for every fact type and a one-hour window", async () => {
      const { attestation, registry, admin, guardian, treasury } = await loadFixture(deployAttestationFixture);
      const [members, setId] = await attestation.attesters();
      expect([...members]).to.deep.equal(ATTESTERS.map((w) => w.address));
      expect(setId).to.equal(1n);
      expect(await attestation.attesterSetId()).to.equal(1n);
      for (const w of ATTESTERS) expect(await attestation.isAttester(w.address)).to.equal(true);
      expect(await attestation.isAttester(OUTSIDER.address)).to.equal(false);
      expect(await attestation.admin()).to.equal(admin.address);
      expect(await attestation.guardian()).to.equal(guardian.address);
      expect(await attestation.treasury()).to.equal(treasury.address);
      expect(await attestation.plugsMarketplace()).to.equal(await registry.getAddress());
      expect(await attestation.timelockDelay()).to.equal(TIMELOCK_DELAY);
      for (const name of FACT_TYPE_NAMES)
        expect(await attestation.requestFee(FACT_TYPE_KEYS[name])).to.equal(DEFAULT_REQUEST_FEE_WEI);
      expect(await attestation.requestFee(ethers.id("SOMETHING_ELSE"))).to.equal(0n);
      expect(await attestation.requestDeadlineWindow()).to.equal(3_600n);
      expect(await attestation.paused()).to.equal(false);
      expect(await attestation.l1Tip()).to.equal(0n);
      expect(await attestation.MIN_SIGNATURES()).to.equal(2n);
      expect(await attestation.ATTESTER_COUNT()).to.equal(3n);
      expect(await attestation.EXECUTION_WINDOW()).to.equal(14n * 24n * 3_600n);
      expect(await attestation.MAX_ATTESTED_AT_SKEW()).to.equal(900n);
      expect(await attestation.CREATOR_SHARE_PERCENT()).to.equal(20n);
      expect(await attestation.DEFAULT_REQUEST_FEE()).to.equal(DEFAULT_REQUEST_FEE_WEI);
      expect(await attestation.DEFAULT_REQUEST_DEADLINE_WINDOW()).to.equal(3_600n);
      expect([
        await attestation.MIN_REQUEST_DEADLINE_WINDOW(),
        await attestation.MAX_REQUEST_DEADLINE_WINDOW(),
      ]).to.deep.equal([300n, 604_800n]);
      expect(await attestation.MIN_TIMELOCK_DELAY()).to.equal(3_600n);
    });

    it("emits the initial configuration as events", async () => {
      const { attestation } = await loadFixture(deployAttestationFixture);
      const receipt = await attestation.deploymentTransaction()!.wait();
      const names = receipt!.logs.map((log) => attestation.interface.parseLog(log)?.name);
      expect(names).to.include.members([
        "AdminChanged",
        "GuardianChanged",
        "TreasuryChanged",
        "PlugsMarketplaceChanged",
        "AttesterSetChanged",
        "RequestDeadlineWindowChanged",
      ]);
      expect(names.filter((n) => n === "RequestFeeChanged")).to.have.length(9);
    });

    it("reverts with TimelockInvalidDelay when the delay is under an hour", async () => {
      const { attestation, admin, guardian, treasury } = await loadFixture(deployAttestationFixture);
      const factory = await ethers.getContractFactory("DogeAttestation");
      await expect(
        factory.deploy(
          admin,
          guardian,
          treasury,
          ATTESTERS.map((w) => w.address),
          3_599n,
          ethers.ZeroAddress,
        ),
      )
        .to.be.revertedWithCustomError(attestation, "TimelockInvalidDelay")
        .withArgs(3_599n, 3_600n);
    });

    it("reverts with AttestationZeroAttester and AttestationDuplicateAttester for a bad first set", async () => {
      const { attestation, admin, guardian, treasury } = await loadFixture(deployAttestationFixture);
      const factory = await ethers.getContractFactory("DogeAttestation");
      const [a, b] = ATTESTERS.map((w) => w.address);
      await expect(
        factory.deploy(admin, guardian, treasury, [a, ethers.ZeroAddress, b], TIMELOCK_DELAY, ethers.ZeroAddress),
      )
        .to.be.revertedWithCustomError(attestation, "AttestationZeroAttester")
        .withArgs(1n);
      await expect(factory.deploy(admin, guardian, treasury, [a, b, a], TIMELOCK_DELAY, ethers.ZeroAddress))
        .to.be.revertedWithCustomError(attestation, "AttestationDuplicateAttester")
        .withArgs(a);
    });

    it("reverts with InvalidAdmin, InvalidGuardian and AttestationInvalidTreasury for zero addresses", async () => {
      const { attestation, admin, guardian, treasury } = await loadFixture(deployAttestationFixture);
      const factory = await ethers.getContractFactory("DogeAttestation");
      const set = ATTESTERS.map((w) => w.address);
      const zero = ethers.ZeroAddress;
      await expect(factory.deploy(zero, guardian, treasury, set, TIMELOCK_DELAY, zero))
        .to.be.revertedWithCustomError(attestation, "InvalidAdmin")
        .withArgs(zero);
      await expect(factory.deploy(admin, zero, treasury, set, TIMELOCK_DELAY, zero))
        .to.be.revertedWithCustomError(attestation, "InvalidGuardian")
        .withArgs(zero);
      await expect(factory.deploy(admin, guardian, zero, set, TIMELOCK_DELAY, zero))
        .to.be.revertedWithCustomError(attestation, "AttestationInvalidTreasury")
        .withArgs(zero);
    });
  });

  describe("EIP-712 and keys: one source of truth in src/facts", () => {
    it("has FACT_TYPEHASH and RECEIPT_TYPEHASH equal to keccak256 of the src/facts type strings", async () => {
      const { attestation } = await loadFixture(deployAttestationFixture);
      expect(await attestation.FACT_TYPEHASH()).to.equal(ethers.keccak256(ethers.toUtf8Bytes(FACT_TYPE_STRING)));
      expect(await attestation.RECEIPT_TYPEHASH()).to.equal(ethers.keccak256(ethers.toUtf8Bytes(RECEIPT_TYPE_STRING)));
      expect(await attestation.FACT_TYPEHASH()).to.equal(FACT_TYPEHASH);
      expect(await attestation.RECEIPT_TYPEHASH()).to.equal(RECEIPT_TYPEHASH);
    });

    it("reports through eip712Domain() the domain src/facts builds", async () => {
      const { attestation, domain, chainId } = await loadFixture(deployAttestationFixture);
      const onChain = domainFromEip712Result(await attestation.eip712Domain());
      expect(() =>
        assertAttestationDomain(onChain, attestationDomain(chainId, domain.verifyingContract)),
      ).to.not.throw();
    });

    it("computes the same fact and receipt digests as src/facts", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = inscriptionValidFact(INSCRIPTION_ID, true, ENVELOPE_HASH, {
        l1Height: 12,
        attestedAt: 34,
        attesterSetId: 1,
      });
      expect(await attestation.factDigest(fact)).to.equal(factDigest(domain, fact));
      const receipt: Receipt = {
        jobId: ethers.id("job 1"),
        jobContract: OUTSIDER.address,
        l1Txid: hashToBytes32(TXID),
        resultHash: ENVELOPE_HASH,
        l1Height: 99n,
        attestedAt: 100n,
        attesterSetId: 1n,
      };
      expect(await attestation.receiptDigest(receipt)).to.equal(receiptDigest(domain, receipt));
    });

    it("computes addressKey, tickKey, slugKey, inscriptionKey and txKey as src/facts does", async () => {
      const { attestation } = await loadFixture(deployAttestationFixture);
      expect(await attestation.addressKey(DOGE_ADDRESS)).to.equal(addressKey(DOGE_ADDRESS));
      expect(await attestation.tickKey("DoGe")).to.equal(tickKey("doge"));
      expect(await attestation.tickKey("ÄBC")).to.equal(tickKey("ÄBC"));
      expect(await attestation.slugKey("doge-punks")).to.equal(slugKey("doge-punks"));
      expect(await attestation.inscriptionKey(INSCRIPTION_ID.toUpperCase().replace("I", "i"))).to.equal(
        inscriptionKey(INSCRIPTION_ID),
      );
      expect(await attestation.txKey(TXID.toUpperCase())).to.equal(txKey(TXID));
    });

    it("has the fact type keys, fact storage key and request id of src/facts (FactKeys through a harness)", async () => {
      const harness = await ethers.deployContract("AttestationQuorumHarness");
      expect([...(await harness.factTypeKeys())]).to.deep.equal(FACT_TYPE_NAMES.map((n) => FACT_TYPE_KEYS[n]));
      const [a, b] = [ethers.id("a"), ethers.id("b")];
      expect(await harness.factKey(a, b, ZERO_KEY)).to.equal(factStorageKey(a, b, ZERO_KEY));
      expect(await harness.requestId(a, b, ZERO_KEY, 42n)).to.equal(requestIdOf(a, b, ZERO_KEY, 42n));
      expect(ethers.toUtf8String(await harness.asciiLower(ethers.toUtf8Bytes("AbZ@[`{ÄÖ")))).to.equal("abz@[`{ÄÖ");
    });
  });

  describe("submitFact", () => {
    it("stores a new fact signed by two attesters and emits FactStored", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(123_456_789n, 1_000);
      await expect(attestation.submitFact(fact, await signByTwo(domain, fact)))
        .to.emit(attestation, "FactStored")
        .withArgs(fact.factType, fact.subject, fact.qualifier, fact.value, fact.data, fact.l1Height, fact.attestedAt);
      expect(await attestation.dogeBalance(DOGE_ADDRESS)).to.deep.equal([123_456_789n, 1_000n, fact.attestedAt]);
      const record = await attestation.factOf(fact.factType, fact.subject, fact.qualifier);
      expect(record.exists).to.equal(true);
      expect(record.value).to.equal(123_456_789n);
    });

    it("accepts any two of the three attesters, and all three", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const pairs = [
        [0, 1],
        [0, 2],
        [1, 2],
        [0, 1, 2],
      ];
      for (const [i, pair] of pairs.entries()) {
        const fact = await balanceFact(BigInt(i), 10 + i, BigInt(i + 1));
        await expect(
          attestation.submitFact(
            fact,
            await signFact(
              pair.map((p) => ATTESTERS[p]),
              domain,
              fact,
            ),
          ),
        ).to.emit(attestation, "FactStored");
      }
    });

    it("replaces a fact with one at a greater height attested later, and at the same height attested later", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const first = await balanceFact(1n, 100);
      await attestation.submitFact(first, await signByTwo(domain, first));
      const higher = await balanceFact(2n, 101, 5n);
      await attestation.submitFact(higher, await signByTwo(domain, higher));
      expect((await attestation.dogeBalance(DOGE_ADDRESS))[0]).to.equal(2n);
      const sameHeight = await balanceFact(3n, 101, 10n);
      await attestation.submitFact(sameHeight, await signByTwo(domain, sameHeight));
      expect(await attestation.dogeBalance(DOGE_ADDRESS)).to.deep.equal([3n, 101n, sameHeight.attestedAt]);
    });

    it("clears the data of a fact replaced by one without data", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const included = txIncludedFact(TXID, { height: 50, blockHash: BLOCK_HASH }, await stampAt(60));
      await attestation.submitFact(included, await signByTwo(domain, included));
      const reorged = txIncludedFact(TXID, null, await stampAt(61, 1n));
      await attestation.submitFact(reorged, await signByTwo(domain, reorged));
      const record = await attestation.factOf(reorged.factType, reorged.subject, ZERO_KEY);
      expect([record.value, record.data]).to.deep.equal([0n, ZERO_KEY]);
    });

    it("reverts with AttestationStaleFact for a stale fact after a newer one", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const base = await balanceFact(0n, 0);
      const at = (l1Height: bigint, attestedAt: bigint, koinu: bigint): Fact => ({
        ...base,
        value: koinu,
        l1Height,
        attestedAt: base.attestedAt + attestedAt,
      });
      const newer = at(200n, 10n, 5n);
      await attestation.submitFact(newer, await signByTwo(domain, newer));
      const lowerHeight = at(199n, 20n, 4n);
      await expect(attestation.submitFact(lowerHeight, await signByTwo(domain, lowerHeight)))
        .to.be.revertedWithCustomError(attestation, "AttestationStaleFact")
        .withArgs(199n, lowerHeight.attestedAt, 200n, newer.attestedAt);
      const earlier = at(201n, 5n, 4n);
      await expect(attestation.submitFact(earlier, await signByTwo(domain, earlier)))
        .to.be.revertedWithCustomError(attestation, "AttestationStaleFact")
        .withArgs(201n, earlier.attestedAt, 200n, newer.attestedAt);
      await expect(attestation.submitFact(newer, await signByTwo(domain, newer)))
        .to.be.revertedWithCustomError(attestation, "AttestationStaleFact")
        .withArgs(200n, newer.attestedAt, 200n, newer.attestedAt);
      expect((await attestation.dogeBalance(DOGE_ADDRESS))[0]).to.equal(5n);
    });

    it("reverts with AttestationStaleFact for a fact attested at time 0", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = { ...(await balanceFact(1n, 7)), attestedAt: 0n };
      await expect(attestation.submitFact(fact, await signByTwo(domain, fact)))
        .to.be.revertedWithCustomError(attestation, "AttestationStaleFact")
        .withArgs(7n, 0n, 0n, 0n);
    });

    it("raises l1Tip to the greatest height seen and never lowers it", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 500);
      await attestation.submitFact(fact, await signByTwo(domain, fact));
      expect(await attestation.l1Tip()).to.equal(500n);
      const other = collectionCountFact(DOGE_ADDRESS, "punks", 1n, await stampAt(400));
      await attestation.submitFact(other, await signByTwo(domain, other));
      expect(await attestation.l1Tip()).to.equal(500n);
      const tip = l1TipFact(510, BLOCK_HASH, { attestedAt: BigInt(await time.latest()), attesterSetId: 1 });
      await attestation.submitFact(tip, await signByTwo(domain, tip));
      expect(await attestation.l1Tip()).to.equal(510n);
    });

    it("reverts with AttestationAttestedInFuture for attestedAt more than 15 minutes ahead", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7, 10_000n);
      const signatures = await signByTwo(domain, fact);
      const next = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(next);
      await expect(attestation.submitFact(fact, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationAttestedInFuture")
        .withArgs(fact.attestedAt, next + 900n);
    });

    it("reverts with AttestationValueTooLarge for a value above 2^128 - 1", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n << 128n, 7);
      await expect(attestation.submitFact(fact, await signByTwo(domain, fact)))
        .to.be.revertedWithCustomError(attestation, "AttestationValueTooLarge")
        .withArgs(1n << 128n, (1n << 128n) - 1n);
    });

    it("reverts with AttestationWrongAttesterSet for a fact signed for another set id", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7, 0n, 2n);
      await expect(attestation.submitFact(fact, await signByTwo(domain, fact)))
        .to.be.revertedWithCustomError(attestation, "AttestationWrongAttesterSet")
        .withArgs(2n, 1n);
    });

    it("reverts with AttestationPaused while paused", async () => {
      const { attestation, domain, guardian } = await loadFixture(deployAttestationFixture);
      await (attestation.connect(guardian) as Contract).pause();
      const fact = await balanceFact(1n, 7);
      await expect(attestation.submitFact(fact, await signByTwo(domain, fact))).to.be.revertedWithCustomError(
        attestation,
        "AttestationPaused",
      );
    });
  });

  describe("signatures (submitFact)", () => {
    it("reverts with AttestationSignersNotAscending when both signatures come from one attester", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const [one] = await signFact([ATTESTERS[0]], domain, fact);
      await expect(attestation.submitFact(fact, [one, one]))
        .to.be.revertedWithCustomError(attestation, "AttestationSignersNotAscending")
        .withArgs(1n, ATTESTERS[0].address, ATTESTERS[0].address);
    });

    it("reverts with AttestationSignersNotAscending for two attesters in descending order", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const [low, high] = await signByTwo(domain, fact);
      const digest = factDigest(domain, fact);
      await expect(attestation.submitFact(fact, [high, low]))
        .to.be.revertedWithCustomError(attestation, "AttestationSignersNotAscending")
        .withArgs(1n, recoverSigner(digest, low), recoverSigner(digest, high));
    });

    it("reverts with AttestationQuorumNotMet for one signature and for none", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const [one] = await signFact([ATTESTERS[2]], domain, fact);
      await expect(attestation.submitFact(fact, [one]))
        .to.be.revertedWithCustomError(attestation, "AttestationQuorumNotMet")
        .withArgs(1n, 2n);
      await expect(attestation.submitFact(fact, []))
        .to.be.revertedWithCustomError(attestation, "AttestationQuorumNotMet")
        .withArgs(0n, 2n);
    });

    it("reverts with AttestationSignerNotAttester for an outsider among two attesters", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const signatures = await signFact([ATTESTERS[0], ATTESTERS[1], OUTSIDER], domain, fact);
      const digest = factDigest(domain, fact);
      const index = signatures.findIndex((s) => recoverSigner(digest, s) === OUTSIDER.address);
      await expect(attestation.submitFact(fact, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester")
        .withArgs(BigInt(index), OUTSIDER.address);
    });

    it("rejects signatures made for another chain id", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const otherChain = attestationDomain(6281971, domain.verifyingContract);
      const signatures = await signFact(ATTESTERS.slice(0, 2), otherChain, fact);
      const recovered = recoverSigner(factDigest(domain, fact), signatures[0]);
      await expect(attestation.submitFact(fact, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester")
        .withArgs(0n, recovered);
    });

    it("rejects signatures made for another contract", async () => {
      const { attestation, domain, registry } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const otherContract = attestationDomain(domain.chainId, await registry.getAddress());
      const signatures = await signFact(ATTESTERS.slice(0, 2), otherContract, fact);
      const recovered = recoverSigner(factDigest(domain, fact), signatures[0]);
      await expect(attestation.submitFact(fact, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester")
        .withArgs(0n, recovered);
    });

    it("reverts with AttestationInvalidSignature(index, 3, s) for a malleated high-s signature", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const [first, second] = await signByTwo(domain, fact);
      const malleated = highS(second);
      // The twin recovers to the same signer through the bare ecrecover precompile: only the low-s rule refuses it.
      const precompileInput = ethers.concat([
        factDigest(domain, fact),
        ethers.toBeHex(Number(`0x${malleated.slice(130)}`), 32),
        malleated.slice(0, 66),
        `0x${malleated.slice(66, 130)}`,
      ]);
      const recovered = await ethers.provider.call({
        to: "0x0000000000000000000000000000000000000001",
        data: precompileInput,
      });
      expect(ethers.getAddress(ethers.dataSlice(recovered, 12))).to.equal(
        recoverSigner(factDigest(domain, fact), second),
      );
      await expect(attestation.submitFact(fact, [first, malleated]))
        .to.be.revertedWithCustomError(attestation, "AttestationInvalidSignature")
        .withArgs(1n, 3n, `0x${malleated.slice(66, 130)}`);
    });

    it("reverts with AttestationInvalidSignature(index, 2, length) for a signature of the wrong length", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const [first, second] = await signByTwo(domain, fact);
      await expect(attestation.submitFact(fact, [first, second.slice(0, 130)]))
        .to.be.revertedWithCustomError(attestation, "AttestationInvalidSignature")
        .withArgs(1n, 2n, ethers.toBeHex(64, 32));
    });

    it("reverts with AttestationInvalidSignature(index, 1, 0) for a signature that recovers no address", async () => {
      const { attestation, domain } = await loadFixture(deployAttestationFixture);
      const fact = await balanceFact(1n, 7);
      const [first, second] = await signByTwo(domain, fact);
      const badV = `${second.slice(0, 130)}1d`;
      await expect(attestation.submitFact(fact, [first, badV]))
        .to.be.revertedWithCustomError(attestation, "AttestationInvalidSignature")
        .withArgs(1n, 1n, ZERO_KEY);
    });

    it("rejects a removed attester's signature after a rotation", async () => {
      const { attestation, domain, admin } = await loadFixture(deployAttestationFixture);
      await rotateAttesters(attestation, admin, [ATTESTERS[0], ATTESTERS[1], SPARE_ATTESTERS[0]]);
      expect(await attestation.isAttester(ATTESTERS[2].address)).to.equal(false);
      const fact = await balanceFact(1n, 7, 0n, 2n);
      const signatures = await signFact([ATTESTERS[0], ATTESTERS[2]], domain, fact);
      const index = signatures.findIndex((s) => recoverSigner(factDigest(domain, fact), s) === ATTESTERS[2].address);
      await expect(attestation.submitFact(fact, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester")
        .withArgs(BigInt(index), ATTESTERS[2].address);
      await expect(
        attestation.submitFact(fact, await signFact([ATTESTERS[0], SPARE_ATTESTERS[0]], domain, fact)),
      ).to.emit(attestation, "FactStored");
    });

    it("rejects facts signed for the previous set after a rotation, even by attesters who stayed", async () => {
      const { attestation, domain, admin } = await loadFixture(deployAttestationFixture);
      const oldFact = await balanceFact(1n, 7);
      const oldSignatures = await signByTwo(domain, oldFact);
      await rotateAttesters(attestation, admin, [ATTESTERS[0], ATTESTERS[1], SPARE_ATTESTERS[0]]);
      await expect(attestation.submitFact(oldFact, oldSignatures))
        .to.be.revertedWithCustomError(attestation, "AttestationWrongAttesterSet")
        .withArgs(1n, 2n);
    });
  });

  describe("reads", () => {
    async function withFacts() {
      const fixture = await deployAttestationFixture();
      const { attestation, domain } = fixture;
      const stamp = await stampAt(1_000);
      const facts: Fact[] = [
        drc20BalanceFact(DOGE_ADDRESS, "doge", 0n, stamp),
        collectionCountFact(DOGE_ADDRESS, "punks", 3n, stamp),
        inscriptionOwnerFact(INSCRIPTION_ID, DOGE_ADDRESS, stamp),
        inscriptionValidFact(INSCRIPTION_ID, true, ENVELOPE_HASH, stamp),
        drc20TransferValidFact(TXID, "DOGE", 25n, stamp),
        txIncludedFact(TXID, { height: 995, blockHash: BLOCK_HASH }, stamp),
      ];
      for (const fact of facts) await attestation.submitFact(fact, await signByTwo(domain, fact));
      return { ...fixture, stamp };
    }

    it("tell a never-attested balance (attestedAt 0) from an attested zero", async () => {
      const { attestation, stamp } = await loadFixture(withFacts);
      expect(await attestation.dogeBalance(OTHER_DOGE_ADDRESS)).to.deep.equal([0n, 0n, 0n]);
      expect(await attestation.drc20Balance(DOGE_ADDRESS, "DOGE")).to.deep.equal([0n, 1_000n, stamp.attestedAt]);
      expect(await attestation.drc20Balance(DOGE_ADDRESS, "WOOF")).to.deep.equal([0n, 0n, 0n]);
      expect(
        (await attestation.factOf(FACT_TYPE_KEYS.DRC20_BALANCE, addressKey(DOGE_ADDRESS), tickKey("doge"))).exists,
      ).to.equal(true);
      expect(
        (await attestation.factOf(FACT_TYPE_KEYS.DRC20_BALANCE, addressKey(DOGE_ADDRESS), tickKey("woof"))).exists,
      ).to.equal(false);
    });

    it("read collection counts by slug", async () => {
      const { attestation, stamp } = await loadFixture(withFacts);
      expect(await attestation.collectionCount(DOGE_ADDRESS, "punks")).to.deep.equal([3n, 1_000n, stamp.attestedAt]);
      expect(await attestation.collectionCount(OTHER_DOGE_ADDRESS, "punks")).to.deep.equal([0n, 0n, 0n]);
    });

    it("answer isInscriptionOwner for the attested owner only", async () => {
      const { attestation } = await loadFixture(withFacts);
      expect(await attestation.isInscriptionOwner(INSCRIPTION_ID, DOGE_ADDRESS)).to.equal(true);
      expect(
        await attestation.isInscriptionOwner(INSCRIPTION_ID.toUpperCase().replace("I", "i"), DOGE_ADDRESS),
      ).to.equal(true);
      expect(await attestation.isInscriptionOwner(INSCRIPTION_ID, OTHER_DOGE_ADDRESS)).to.equal(false);
      expect(await attestation.isInscriptionOwner(`${"ab".repeat(32)}i1`, DOGE_ADDRESS)).to.equal(false);
    });

    it("answer inscriptionValid and inscriptionMatches from the envelopeHash", async () => {
      const { attestation } = await loadFixture(withFacts);
      expect(await attestation.inscriptionValid(INSCRIPTION_ID)).to.deep.equal([true, ENVELOPE_HASH, 1_000n]);
      expect(await attestation.inscriptionValid(`${"ab".repeat(32)}i1`)).to.deep.equal([false, ZERO_KEY, 0n]);
      expect(await attestation.inscriptionMatches(INSCRIPTION_ID, ENVELOPE_HASH)).to.equal(true);
      expect(await attestation.inscriptionMatches(INSCRIPTION_ID, ethers.id("other"))).to.equal(false);
      expect(await attestation.inscriptionMatches(`${"ab".repeat(32)}i1`, ZERO_KEY)).to.equal(false);
    });

    it("answer inscriptionMatches false for an inscription attested invalid", async () => {
      const { attestation, domain } = await loadFixture(withFacts);
      const invalid = inscriptionValidFact(INSCRIPTION_ID, false, ENVELOPE_HASH, await stampAt(1_001, 5n));
      await attestation.submitFact(invalid, await signByTwo(domain, invalid));
      expect(await attestation.inscriptionMatches(INSCRIPTION_ID, ENVELOPE_HASH)).to.equal(false);
      expect((await attestation.inscriptionValid(INSCRIPTION_ID))[0]).to.equal(false);
    });

    it("answer drc20TransferValid for attested valid transfers only", async () => {
      const { attestation } = await loadFixture(withFacts);
      expect(await attestation.drc20TransferValid(TXID)).to.equal(true);
      expect(await attestation.drc20TransferValid(TXID.toUpperCase())).to.equal(true);
      expect(await attestation.drc20TransferValid("ef".repeat(32))).to.equal(false);
    });

    it("count txConfirmed against l1Tip, which the tip fact moves", async () => {
      const { attestation, domain } = await loadFixture(withFacts);
      expect(await attestation.l1Tip()).to.equal(1_000n);
      expect(await attestation.txConfirmed(TXID, 6)).to.equal(true);
      expect(await attestation.txConfirmed(TXID, 7)).to.equal(false);
      const tip = l1TipFact(1_010, BLOCK_HASH, { attestedAt: BigInt(await time.latest()), attesterSetId: 1 });
      await attestation.submitFact(tip, await signByTwo(domain, tip));
      expect(await attestation.txConfirmed(TXID, 16)).to.equal(true);
      expect(await attestation.txConfirmed(TXID, 17)).to.equal(false);
      expect(await attestation.txConfirmed("ef".repeat(32), 0)).to.equal(false);
    });

    it("answer txConfirmed false for a transaction attested not included", async () => {
      const { attestation, domain } = await loadFixture(withFacts);
      const other = "ef".repeat(32);
      const notIncluded = txIncludedFact(other, null, await stampAt(1_000, 1n));
      await attestation.submitFact(notIncluded, await signByTwo(domain, notIncluded));
      expect(await attestation.txConfirmed(other, 0)).to.equal(false);
    });

    it("keep working while paused", async () => {
      const { attestation, guardian } = await loadFixture(withFacts);
      await (attestation.connect(guardian) as Contract).pause();
      expect(await attestation.collectionCount(DOGE_ADDRESS, "punks")).to.have.property("0", 3n);
      expect(await attestation.isInscriptionOwner(INSCRIPTION_ID, DOGE_ADDRESS)).to.equal(true);
      expect(await attestation.inscriptionMatches(INSCRIPTION_ID, ENVELOPE_HASH)).to.equal(true);
      expect(await attestation.drc20TransferValid(TXID)).to.equal(true);
      expect(await attestation.txConfirmed(TXID, 1)).to.equal(true);
      expect(await attestation.dogeBalance(DOGE_ADDRESS)).to.deep.equal([0n, 0n, 0n]);
      expect(await attestation.l1Tip()).to.equal(1_000n);
    });
  });

  describe("verifyFact and verifyReceipt", () => {
    async function receiptFixture() {
      const fixture = await deployAttestationFixture();
      const receipt: Receipt = {
        jobId: ethers.id("job 7"),
        jobContract: fixture.stranger.address,
        l1Txid: hashToBytes32(TXID),
        resultHash: ENVELOPE_HASH,
        l1Height: 700n,
        attestedAt: BigInt(await time.latest()),
        attesterSetId: 1n,
      };
      return { ...fixture, receipt };
    }

    it("verifyReceipt returns the digest of a receipt signed by two current attesters", async () => {
      const { attestation, domain, receipt } = await loadFixture(receiptFixture);
      const signatures = await signReceipt([ATTESTERS[1], ATTESTERS[2]], domain, receipt);
      expect(await attestation.verifyReceipt(receipt, signatures)).to.equal(receiptDigest(domain, receipt));
    });

    it("verifyReceipt reverts with the quorum errors", async () => {
      const { attestation, domain, receipt } = await loadFixture(receiptFixture);
      const [one] = await signReceipt([ATTESTERS[0]], domain, receipt);
      await expect(attestation.verifyReceipt(receipt, [one]))
        .to.be.revertedWithCustomError(attestation, "AttestationQuorumNotMet")
        .withArgs(1n, 2n);
      await expect(attestation.verifyReceipt(receipt, [one, one]))
        .to.be.revertedWithCustomError(attestation, "AttestationSignersNotAscending")
        .withArgs(1n, ATTESTERS[0].address, ATTESTERS[0].address);
      const [outsider] = await signReceipt([OUTSIDER], domain, receipt);
      await expect(attestation.verifyReceipt(receipt, [outsider, one]))
        .to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester")
        .withArgs(0n, OUTSIDER.address);
      const signatures = await signReceipt(ATTESTERS.slice(0, 2), domain, receipt);
      await expect(
        attestation.verifyReceipt({ ...receipt, jobId: ethers.id("job 8") }, signatures),
      ).to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester");
    });

    it("verifyReceipt reverts with AttestationWrongAttesterSet for a receipt of another set", async () => {
      const { attestation, domain, receipt } = await loadFixture(receiptFixture);
      const other = { ...receipt, attesterSetId: 3n };
      await expect(attestation.verifyReceipt(other, await signReceipt(ATTESTERS.slice(0, 2), domain, other)))
        .to.be.revertedWithCustomError(attestation, "AttestationWrongAttesterSet")
        .withArgs(3n, 1n);
    });

    it("verifyFact returns the digest without storing, and both revert with AttestationPaused while paused", async () => {
      const { attestation, domain, receipt, guardian } = await loadFixture(receiptFixture);
      const fact = await balanceFact(9n, 9);
      const signatures = await signByTwo(domain, fact);
      expect(await attestation.verifyFact(fact, signatures)).to.equal(factDigest(domain, fact));
      expect((await attestation.factOf(fact.factType, fact.subject, fact.qualifier)).exists).to.equal(false);
      await (attestation.connect(guardian) as Contract).pause();
      await expect(attestation.verifyFact(fact, signatures)).to.be.revertedWithCustomError(
        attestation,
        "AttestationPaused",
      );
      await expect(
        attestation.verifyReceipt(receipt, await signReceipt(ATTESTERS.slice(0, 2), domain, receipt)),
      ).to.be.revertedWithCustomError(attestation, "AttestationPaused");
    });
  });
});
