import { expect } from "chai";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract, Wallet } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import {
  DEFAULT_REQUEST_FEE_WEI,
  FACT_TYPE_KEYS,
  ZERO_KEY,
  addressKey,
  dogeBalanceFact,
  factDigest,
  quorumVerdict,
  replacesStoredFact,
  signFact,
} from "../../src/facts";
import type { Fact, FactAge, QuorumVerdict } from "../../src/facts";
import {
  ATTESTERS,
  DOGE_ADDRESS,
  OTHER_DOGE_ADDRESS,
  OUTSIDER,
  SPARE_ATTESTERS,
  deployAttestationFixture,
  rotateAttesters,
  signByTwo,
} from "./attestation-fixture";

/** What a contract call came to: its result, or the custom error it reverted with. */
type Outcome = { ok: true; value: unknown } | { ok: false; name: string; args: unknown[] };

async function outcomeOf(contract: Contract, call: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await call };
  } catch (error) {
    const data = (error as { data?: string }).data;
    const parsed = data ? contract.interface.parseError(data) : null;
    if (!parsed) throw error;
    return { ok: false, name: parsed.name, args: [...parsed.args] };
  }
}

/** The contract's error as quorumVerdict describes it. */
function expectedOutcome(verdict: QuorumVerdict): Omit<Extract<Outcome, { ok: false }>, "ok"> | null {
  if (verdict.accepted) return null;
  switch (verdict.error) {
    case "AttestationSignersNotAscending":
      return { name: verdict.error, args: [BigInt(verdict.index), verdict.signer, verdict.previous] };
    case "AttestationSignerNotAttester":
      return { name: verdict.error, args: [BigInt(verdict.index), verdict.signer] };
    case "AttestationQuorumNotMet":
      return { name: verdict.error, args: [BigInt(verdict.valid), BigInt(verdict.required)] };
  }
}

/** After a rotation: current set {A1, A2, S1}; A3 was removed; OUTSIDER never was an attester. */
async function rotatedFixture() {
  const fixture = await deployAttestationFixture();
  await rotateAttesters(fixture.attestation, fixture.admin, [ATTESTERS[0], ATTESTERS[1], SPARE_ATTESTERS[0]]);
  const current = [ATTESTERS[0], ATTESTERS[1], SPARE_ATTESTERS[0]];
  const pool: Wallet[] = [...current, ATTESTERS[2], OUTSIDER];
  const fact = dogeBalanceFact(DOGE_ADDRESS, 1n, {
    l1Height: 5,
    attestedAt: BigInt(await time.latest()),
    attesterSetId: 2,
  });
  const signatureOf = new Map<string, string>();
  for (const wallet of pool) signatureOf.set(wallet.address, (await signFact([wallet], fixture.domain, fact))[0]);
  return { ...fixture, current, pool, fact, signatureOf };
}

describe("contracts/DogeAttestation properties", () => {
  describe("quorum", () => {
    it("accepts a signature list in any order exactly when it is ascending, current attesters only, and at least two", async () => {
      const { attestation, domain, current, pool, fact, signatureOf } = await loadFixture(rotatedFixture);
      const currentAddresses = current.map((w) => w.address);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.integer({ min: 0, max: pool.length - 1 }), { maxLength: 5 }), async (picks) => {
          const signers = picks.map((i) => pool[i].address);
          const outcome = await outcomeOf(
            attestation,
            attestation.verifyFact(
              fact,
              signers.map((s) => signatureOf.get(s)!),
            ),
          );
          const verdict = quorumVerdict(signers, currentAddresses);
          const ascendingDistinctMembers = signers.every(
            (s, i) => currentAddresses.includes(s) && (i === 0 || BigInt(s) > BigInt(signers[i - 1])),
          );
          expect(verdict.accepted).to.equal(ascendingDistinctMembers && signers.length >= 2);
          if (verdict.accepted) expect(outcome).to.deep.equal({ ok: true, value: factDigest(domain, fact) });
          else expect(outcome).to.deep.equal({ ok: false, ...expectedOutcome(verdict) });
        }),
        { numRuns: 80 },
      );
    });

    it("accepts any subset signed through signFact exactly when it holds at least two current attesters and nobody else", async () => {
      const { attestation, domain, current, pool, fact } = await loadFixture(rotatedFixture);
      await fc.assert(
        fc.asyncProperty(fc.shuffledSubarray(pool), async (chosen) => {
          const signatures = await signFact(chosen, domain, fact);
          const outcome = await outcomeOf(attestation, attestation.verifyFact(fact, signatures));
          const members = chosen.filter((w) => current.includes(w)).length;
          expect(outcome.ok).to.equal(members >= 2 && members === chosen.length);
        }),
        { numRuns: 40 },
      );
    });
  });

  describe("stored facts", () => {
    it("never lose height: a fact is stored exactly when newer, and l1Tip only rises", async () => {
      const submission = fc.record({
        subject: fc.integer({ min: 0, max: 1 }),
        l1Height: fc.integer({ min: 1, max: 8 }),
        attestedAtOffset: fc.integer({ min: 0, max: 8 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(submission, { minLength: 1, maxLength: 6 }), async (submissions) => {
          const { attestation, domain } = await loadFixture(deployAttestationFixture);
          const base = BigInt(await time.latest());
          const addresses = [DOGE_ADDRESS, OTHER_DOGE_ADDRESS];
          const model: (FactAge | null)[] = [null, null];
          let tip = 0n;
          for (const [step, { subject, l1Height, attestedAtOffset }] of submissions.entries()) {
            const stamp = {
              l1Height: BigInt(l1Height),
              attestedAt: base + BigInt(attestedAtOffset),
              attesterSetId: 1n,
            };
            const fact: Fact = dogeBalanceFact(addresses[subject], BigInt(step), stamp);
            const shouldStore = replacesStoredFact(model[subject], stamp);
            const outcome = await outcomeOf(
              attestation,
              attestation
                .submitFact(fact, await signByTwo(domain, fact))
                .then((tx: { wait(): Promise<unknown> }) => tx.wait()),
            );
            expect(outcome.ok).to.equal(shouldStore);
            if (!outcome.ok) expect(outcome.name).to.equal("AttestationStaleFact");
            const previous = model[subject];
            if (shouldStore) {
              model[subject] = { l1Height: stamp.l1Height, attestedAt: stamp.attestedAt };
              if (stamp.l1Height > tip) tip = stamp.l1Height;
            }
            const [, storedHeight, storedAttestedAt] = await attestation.dogeBalance(addresses[subject]);
            expect(storedHeight).to.be.gte(previous?.l1Height ?? 0n);
            expect({ l1Height: storedHeight, attestedAt: storedAttestedAt }).to.deep.equal(
              model[subject] ?? { l1Height: 0n, attestedAt: 0n },
            );
            expect(await attestation.l1Tip()).to.equal(tip);
          }
        }),
        { numRuns: 12 },
      );
    });
  });

  describe("escrow", () => {
    it("keeps the contract's balance equal to escrowed fees plus unpaid balances", async () => {
      const action = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant("request" as const),
            who: fc.integer({ min: 0, max: 2 }),
            withPlug: fc.boolean(),
          }),
        },
        { weight: 3, arbitrary: fc.record({ kind: fc.constant("fulfill" as const), pick: fc.nat() }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("refund" as const), pick: fc.nat() }) },
        {
          weight: 2,
          arbitrary: fc.record({ kind: fc.constant("withdraw" as const), who: fc.integer({ min: 0, max: 4 }) }),
        },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 4, maxLength: 12 }), async (actions) => {
          const fixture = await loadFixture(deployAttestationFixture);
          const { attestation, registry, domain, treasury, creator, requester, stranger, deployer } = fixture;
          await registry.setCreator(1n, creator.address);
          const requesters: HardhatEthersSigner[] = [requester, stranger, deployer];
          const accounts = [treasury, creator, ...requesters];
          const requests: { id: string; requester: HardhatEthersSigner }[] = [];
          const contractAddress = await attestation.getAddress();
          let height = 100n;

          const checkInvariant = async () => {
            let escrowed = 0n;
            for (const { id } of requests) {
              const stored = await attestation.requestOf(id);
              if (stored.status === 1n) escrowed += stored.feeWei as bigint;
            }
            let owed = 0n;
            for (const account of accounts) owed += (await attestation.withdrawableOf(account.address)) as bigint;
            expect(await ethers.provider.getBalance(contractAddress)).to.equal(escrowed + owed);
          };

          for (const step of actions) {
            const now = BigInt(await time.latest());
            const open = [];
            for (const request of requests) {
              const stored = await attestation.requestOf(request.id);
              if (stored.status === 1n) open.push({ ...request, deadline: stored.deadline as bigint });
            }
            if (step.kind === "request") {
              const from = attestation.connect(requesters[step.who]) as Contract;
              const args = [
                FACT_TYPE_KEYS.DOGE_BALANCE,
                addressKey(DOGE_ADDRESS),
                ZERO_KEY,
                step.withPlug ? 1n : 0n,
              ] as const;
              const id = await from.requestFact.staticCall(...args, { value: DEFAULT_REQUEST_FEE_WEI });
              await from.requestFact(...args, { value: DEFAULT_REQUEST_FEE_WEI });
              requests.push({ id, requester: requesters[step.who] });
            } else if (step.kind === "fulfill") {
              const live = open.filter((r) => r.deadline > now);
              if (live.length === 0) continue;
              const target = live[step.pick % live.length];
              height += 1n;
              const fact = dogeBalanceFact(DOGE_ADDRESS, height, {
                l1Height: height,
                attestedAt: now,
                attesterSetId: 1n,
              });
              await attestation.fulfill(target.id, fact, await signByTwo(domain, fact));
            } else if (step.kind === "refund") {
              if (open.length === 0) continue;
              const target = open[step.pick % open.length];
              if (target.deadline >= now) await time.increaseTo(target.deadline + 1n);
              await (attestation.connect(target.requester) as Contract).refund(target.id);
            } else {
              const owed = [];
              for (const account of accounts)
                if ((await attestation.withdrawableOf(account.address)) > 0n) owed.push(account);
              if (owed.length === 0) continue;
              await (attestation.connect(owed[step.who % owed.length]) as Contract).withdraw();
            }
            await checkInvariant();
          }
        }),
        { numRuns: 10 },
      );
    });
  });
});
