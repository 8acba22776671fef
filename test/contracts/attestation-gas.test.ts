import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import hre from "hardhat";
import type { Contract, ContractTransactionResponse } from "ethers";
import {
  DEFAULT_REQUEST_FEE_WEI,
  FACT_TYPE_KEYS,
  ZERO_KEY,
  addressKey,
  inscriptionValidFact,
  signFact,
} from "../../src/facts";
import {
  ATTESTERS,
  INSCRIPTION_ID,
  balanceFact,
  deployAttestationFixture,
  signByTwo,
  stampAt,
} from "./attestation-fixture";

/** Gas ceilings of the hot calls (whole transaction: 21,000 base and calldata included). */
const CEILING = {
  newFact: 100_000n,
  updateFact: 60_000n,
  requestFact: 80_000n,
  fulfill: 130_000n,
};

const measured: [string, bigint, bigint][] = [];

/** `npx hardhat coverage` instruments the contracts, which inflates gas: the ceilings hold for real bytecode only. */
const COVERAGE_RUNNING = Boolean(
  (hre as unknown as { __SOLIDITY_COVERAGE_RUNNING?: boolean }).__SOLIDITY_COVERAGE_RUNNING,
);

async function gasOf(tx: Promise<ContractTransactionResponse>): Promise<bigint> {
  const receipt = await (await tx).wait();
  return receipt!.gasUsed;
}

function pin(label: string, gas: bigint, ceiling: bigint) {
  measured.push([label, gas, ceiling]);
  if (!COVERAGE_RUNNING) expect(gas, `${label}: ${gas} gas`).to.be.lessThan(ceiling);
}

async function requestFrom(attestation: Contract, requester: Contract["runner"], plugId: bigint) {
  const asRequester = attestation.connect(requester) as Contract;
  const args = [
    FACT_TYPE_KEYS.DOGE_BALANCE,
    addressKey("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"),
    ZERO_KEY,
    plugId,
  ] as const;
  const requestId = (await asRequester.requestFact.staticCall(...args, { value: DEFAULT_REQUEST_FEE_WEI })) as string;
  const gas = await gasOf(asRequester.requestFact(...args, { value: DEFAULT_REQUEST_FEE_WEI }));
  return { requestId, gas };
}

describe("contracts/DogeAttestation gas", () => {
  after(() => {
    console.log(
      `\n    DogeAttestation gas (whole transaction)${COVERAGE_RUNNING ? ", instrumented by coverage: not checked" : ""}`,
    );
    for (const [label, gas, ceiling] of measured) {
      console.log(`      ${label.padEnd(62)} ${gas.toString().padStart(7)}  (ceiling ${ceiling})`);
    }
  });

  it("stores a new fact with two signatures under 100,000 gas, with and without data", async () => {
    const { attestation, domain } = await loadFixture(deployAttestationFixture);
    const withoutData = await balanceFact(123_456_789n, 1_000);
    pin(
      "submitFact, new DOGE_BALANCE (no data), raises l1Tip",
      await gasOf(attestation.submitFact(withoutData, await signByTwo(domain, withoutData))),
      CEILING.newFact,
    );
    const withData = inscriptionValidFact(INSCRIPTION_ID, true, "5e".repeat(32), await stampAt(1_001));
    pin(
      "submitFact, new INSCRIPTION_VALID (data), raises l1Tip",
      await gasOf(attestation.submitFact(withData, await signByTwo(domain, withData))),
      CEILING.newFact,
    );
    const three = await balanceFact(1n, 1_002, 5n);
    const sameKeyAsNew = { ...three, subject: addressKey("DTnt7VZqR5ofHhAxZuDy4m3PhSjKFXpw3e") };
    pin(
      "submitFact, new DOGE_BALANCE with three signatures",
      await gasOf(attestation.submitFact(sameKeyAsNew, await signFact(ATTESTERS, domain, sameKeyAsNew))),
      CEILING.newFact,
    );
  });

  it("updates an existing fact under 60,000 gas", async () => {
    const { attestation, domain } = await loadFixture(deployAttestationFixture);
    const first = await balanceFact(1n, 1_000);
    await attestation.submitFact(first, await signByTwo(domain, first));
    const newer = await balanceFact(2n, 1_001, 5n);
    pin(
      "submitFact, update DOGE_BALANCE, raises l1Tip",
      await gasOf(attestation.submitFact(newer, await signByTwo(domain, newer))),
      CEILING.updateFact,
    );
    const sameHeight = await balanceFact(3n, 1_001, 10n);
    pin(
      "submitFact, update DOGE_BALANCE at the same height",
      await gasOf(attestation.submitFact(sameHeight, await signByTwo(domain, sameHeight))),
      CEILING.updateFact,
    );
    const valid = inscriptionValidFact(INSCRIPTION_ID, true, "5e".repeat(32), await stampAt(1_001));
    await attestation.submitFact(valid, await signByTwo(domain, valid));
    const validAgain = inscriptionValidFact(INSCRIPTION_ID, true, "5e".repeat(32), await stampAt(1_002, 5n));
    pin(
      "submitFact, update INSCRIPTION_VALID (same data), raises l1Tip",
      await gasOf(attestation.submitFact(validAgain, await signByTwo(domain, validAgain))),
      CEILING.updateFact,
    );
  });

  it("takes a request under 80,000 gas", async () => {
    const { attestation, requester } = await loadFixture(deployAttestationFixture);
    pin(
      "requestFact, first request, with plug id",
      (await requestFrom(attestation, requester, 7n)).gas,
      CEILING.requestFact,
    );
    pin(
      "requestFact, later request, without plug id",
      (await requestFrom(attestation, requester, 0n)).gas,
      CEILING.requestFact,
    );
  });

  it("fulfils a request under 130,000 gas", async () => {
    const { attestation, registry, domain, requester, creator } = await loadFixture(deployAttestationFixture);
    await registry.setCreator(7n, creator.address);
    const first = await requestFrom(attestation, requester, 7n);
    const answer = await balanceFact(1n, 1_000);
    pin(
      "fulfill, new fact, 20% split, first credits of creator and treasury",
      await gasOf(attestation.fulfill(first.requestId, answer, await signByTwo(domain, answer))),
      CEILING.fulfill,
    );
    const second = await requestFrom(attestation, requester, 7n);
    const update = await balanceFact(2n, 1_001, 5n);
    pin(
      "fulfill, fact update, 20% split, later credits",
      await gasOf(attestation.fulfill(second.requestId, update, await signByTwo(domain, update))),
      CEILING.fulfill,
    );
    const third = await requestFrom(attestation, requester, 0n);
    const again = await balanceFact(3n, 1_002, 10n);
    pin(
      "fulfill, fact update, no plug",
      await gasOf(attestation.fulfill(third.requestId, again, await signByTwo(domain, again))),
      CEILING.fulfill,
    );
  });
});
