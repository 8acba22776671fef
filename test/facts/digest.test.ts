import { expect } from "chai";
import fc from "fast-check";
import { Signature, Wallet, getAddress, hexlify } from "ethers";
import {
  attestationDomain,
  factDigest,
  fastFactDigest,
  fastReceiptDigest,
  receiptDigest,
  recoverDigestSigner,
  signDigest,
} from "../../src/facts";
import type { Fact, Receipt } from "../../src/facts";

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => hexlify(b));
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(hexlify(b)));
const uint64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const uint256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const domain = fc
  .record({ chainId: fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }), contract: address })
  .map((d) => attestationDomain(d.chainId, d.contract));
const fact: fc.Arbitrary<Fact> = fc.record({
  factType: bytes32,
  subject: bytes32,
  qualifier: bytes32,
  value: uint256,
  data: bytes32,
  l1Height: uint64,
  attestedAt: uint64,
  attesterSetId: uint64,
});
const receipt: fc.Arbitrary<Receipt> = fc.record({
  jobId: bytes32,
  jobContract: address,
  l1Txid: bytes32,
  resultHash: bytes32,
  l1Height: uint64,
  attestedAt: uint64,
  attesterSetId: uint64,
});
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe("facts/digest: the fast path equals ethers' TypedDataEncoder and signatures", () => {
  it("computes the same fact digest as TypedDataEncoder for any fact and domain", () => {
    fc.assert(
      fc.property(domain, fact, (d, f) => fastFactDigest(d, f) === factDigest(d, f)),
      { numRuns: 300 },
    );
  });

  it("computes the same receipt digest as TypedDataEncoder for any receipt and domain", () => {
    fc.assert(
      fc.property(domain, receipt, (d, r) => fastReceiptDigest(d, r) === receiptDigest(d, r)),
      { numRuns: 300 },
    );
  });

  it("signs exactly as ethers' SigningKey does (RFC 6979, low s) and recovers the signer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), bytes32, (seed, digest) => {
        const key = new Uint8Array(seed);
        key[0] = (key[0] % 0x7f) + 1; // a valid scalar: non-zero and below the group order
        const wallet = new Wallet(hexlify(key));
        const ours = signDigest(key, digest);
        expect(ours).to.equal(wallet.signingKey.sign(digest).serialized);
        expect(recoverDigestSigner(digest, ours)).to.equal(wallet.address);
      }),
      { numRuns: 100 },
    );
  });

  it("refuses the high-s twin, a bad v and a wrong length, as OpenZeppelin's tryRecover does", () => {
    const wallet = Wallet.createRandom();
    const digest = hexlify(new Uint8Array(32).fill(7));
    const signature = Signature.from(signDigest(Buffer.from(wallet.privateKey.slice(2), "hex"), digest));
    const twinS = `0x${(SECP256K1_N - BigInt(signature.s)).toString(16).padStart(64, "0")}`;
    const twin = `${signature.r}${twinS.slice(2)}${(signature.v === 27 ? 28 : 27).toString(16)}`;
    expect(recoverDigestSigner(digest, twin)).to.equal(null);
    expect(recoverDigestSigner(digest, `${signature.serialized.slice(0, -2)}1d`)).to.equal(null);
    expect(recoverDigestSigner(digest, signature.serialized.slice(0, -2))).to.equal(null);
  });
});
