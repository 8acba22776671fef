/** Shared deployment and signing helpers of the DogeAttestation tests (test/contracts/attestation*.test.ts). */
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { Signature, Wallet, keccak256, toUtf8Bytes } from "ethers";
import type { Contract } from "ethers";
import { ethers } from "hardhat";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import { attestationDomain, dogeBalanceFact, signFact } from "../../src/facts";
import type { AttestationDomain, Fact, FactStamp } from "../../src/facts";

/** The timelock delay the tests deploy with (the contract's minimum). */
export const TIMELOCK_DELAY = 3_600n;
export const FOURTEEN_DAYS = 14n * 24n * 3_600n;
export const ONE_HOUR = 3_600n;

/** secp256k1 group order: a signature (r, s, v) has the twin (r, n - s, v ^ 1). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** A deterministic key per label, so failures reproduce. */
export function walletFor(label: string): Wallet {
  return new Wallet(keccak256(toUtf8Bytes(`dogeos attestation test key: ${label}`)));
}

/** Attester keys: three in the first set, two spare ones for rotations, one outsider. */
export const ATTESTERS = [walletFor("attester 1"), walletFor("attester 2"), walletFor("attester 3")];
export const SPARE_ATTESTERS = [walletFor("attester 4"), walletFor("attester 5")];
export const OUTSIDER = walletFor("outsider");

export const DOGE_ADDRESS = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
export const OTHER_DOGE_ADDRESS = "DTnt7VZqR5ofHhAxZuDy4m3PhSjKFXpw3e";
export const INSCRIPTION_ID = `${"ab".repeat(32)}i0`;
export const TXID = "cd".repeat(32);

export interface AttestationFixture {
  attestation: Contract;
  registry: Contract;
  domain: AttestationDomain;
  chainId: bigint;
  deployer: HardhatEthersSigner;
  admin: HardhatEthersSigner;
  guardian: HardhatEthersSigner;
  treasury: HardhatEthersSigner;
  requester: HardhatEthersSigner;
  creator: HardhatEthersSigner;
  stranger: HardhatEthersSigner;
}

export async function deployAttestationFixture(): Promise<AttestationFixture> {
  const [deployer, admin, guardian, treasury, requester, creator, stranger] = await ethers.getSigners();
  const registry = await ethers.deployContract("AttestationPlugRegistryMock");
  const attestation = await ethers.deployContract("DogeAttestation", [
    admin.address,
    guardian.address,
    treasury.address,
    ATTESTERS.map((w) => w.address),
    TIMELOCK_DELAY,
    await registry.getAddress(),
  ]);
  const { chainId } = await ethers.provider.getNetwork();
  const domain = attestationDomain(chainId, await attestation.getAddress());
  return { attestation, registry, domain, chainId, deployer, admin, guardian, treasury, requester, creator, stranger };
}

/** A stamp at `l1Height`, attested `offset` seconds after the latest block, for set `attesterSetId`. */
export async function stampAt(l1Height: bigint | number, offset = 0n, attesterSetId = 1n): Promise<FactStamp> {
  return { l1Height: BigInt(l1Height), attestedAt: BigInt(await time.latest()) + offset, attesterSetId };
}

/** A DOGE_BALANCE fact about DOGE_ADDRESS. */
export async function balanceFact(
  koinu: bigint,
  l1Height: bigint | number,
  offset = 0n,
  attesterSetId = 1n,
): Promise<Fact> {
  return dogeBalanceFact(DOGE_ADDRESS, koinu, await stampAt(l1Height, offset, attesterSetId));
}

/** Signs with the first two attesters, sorted. */
export function signByTwo(domain: AttestationDomain, fact: Fact): Promise<string[]> {
  return signFact(ATTESTERS.slice(0, 2), domain, fact);
}

/** The malleated twin of a low-s signature: same signer for ecrecover, refused by tryRecover. */
export function highS(signature: string): string {
  const parsed = Signature.from(signature);
  const s = SECP256K1_N - BigInt(parsed.s);
  const v = parsed.v === 27 ? 28 : 27;
  return `0x${parsed.r.slice(2)}${s.toString(16).padStart(64, "0")}${v.toString(16)}`;
}

/** Schedules `call` with `salt`, waits out the delay, executes it. Returns the execute transaction. */
export async function scheduleAndExecute(
  attestation: Contract,
  admin: HardhatEthersSigner,
  call: string,
  salt = ethers.ZeroHash,
) {
  await (attestation.connect(admin) as Contract).schedule(call, salt);
  await time.increase(TIMELOCK_DELAY);
  return (attestation.connect(admin) as Contract).execute(call, salt);
}

/** ABI-encodes a call of one of DogeAttestation's timelocked setters. */
export function setterCall(attestation: Contract, name: string, args: unknown[]): string {
  return attestation.interface.encodeFunctionData(name, args);
}

/** Rotates to a new attester set through the timelock. */
export async function rotateAttesters(attestation: Contract, admin: HardhatEthersSigner, next: Wallet[]) {
  await scheduleAndExecute(
    attestation,
    admin,
    setterCall(attestation, "setAttesters", [next.map((w) => w.address)]),
    keccak256(toUtf8Bytes(next.map((w) => w.address).join())),
  );
}
