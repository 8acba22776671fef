import { expect } from "chai";
import fc from "fast-check";
import { AbiCoder, TypedDataEncoder, Wallet, keccak256, toUtf8Bytes } from "ethers";
import {
  ATTESTER_COUNT,
  CREATOR_SHARE_PERCENT,
  DEFAULT_REQUEST_FEE_WEI,
  FACT_TYPEHASH,
  FACT_TYPES,
  FACT_TYPE_KEYS,
  FACT_TYPE_NAMES,
  FACT_TYPE_STRING,
  FactDomainMismatchError,
  FactKeyError,
  MIN_SIGNATURES,
  RECEIPT_TYPEHASH,
  RECEIPT_TYPES,
  RECEIPT_TYPE_STRING,
  ZERO_KEY,
  actionKey,
  addressKey,
  asciiLower,
  assertAttestationDomain,
  attestationDomain,
  canonicalInscriptionId,
  canonicalTxid,
  collectionCountFact,
  confirmations,
  dogeBalanceFact,
  domainFromEip712Result,
  domainSeparator,
  drc20BalanceFact,
  drc20TransferValidFact,
  factDigest,
  factStorageKey,
  factTypeKey,
  factTypeName,
  hashFactStruct,
  hashReceiptStruct,
  hashToBytes32,
  SETTLE_CONFIRMATIONS,
  settleTipNeeded,
  settleable,
  inscriptionActionFact,
  inscriptionKey,
  inscriptionOwnerFact,
  inscriptionValidFact,
  isTxConfirmed,
  l1TipFact,
  quorumVerdict,
  receiptDigest,
  recoverSigner,
  replacesStoredFact,
  requestIdOf,
  signFact,
  signReceipt,
  slugKey,
  sortSignatures,
  splitRequestFee,
  tickKey,
  txIncludedFact,
  txKey,
} from "../../src/facts";
import type { Fact, Receipt } from "../../src/facts";

const utf8Key = (text: string) => keccak256(toUtf8Bytes(text));
const CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const domain = attestationDomain(31337, CONTRACT);
const stamp = { l1Height: 100n, attestedAt: 1_700_000_000n, attesterSetId: 1n };
const TXID = "AB".repeat(32);
const wallets = [1, 2, 3, 4].map((i) => new Wallet(utf8Key(`facts test key ${i}`)));

describe("facts", () => {
  describe("fact type keys", () => {
    it("are keccak256 of the UTF-8 name for all nine types", () => {
      expect(FACT_TYPE_NAMES).to.have.length(9);
      for (const name of FACT_TYPE_NAMES) {
        expect(factTypeKey(name)).to.equal(utf8Key(name));
        expect(FACT_TYPE_KEYS[name]).to.equal(utf8Key(name));
      }
      expect(FACT_TYPE_KEYS.L1_TIP).to.equal(utf8Key("L1_TIP"));
    });

    it("map back to their names, and an unknown key to null", () => {
      for (const name of FACT_TYPE_NAMES)
        expect(factTypeName(FACT_TYPE_KEYS[name].toUpperCase().replace("0X", "0x"))).to.equal(name);
      expect(factTypeName(utf8Key("NOT_A_FACT"))).to.equal(null);
    });
  });

  describe("subject keys", () => {
    it("hash Dogecoin addresses and slugs as given", () => {
      expect(addressKey("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L")).to.equal(utf8Key("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"));
      expect(addressKey("dh5yaieqozn36fdvcinyruerGvGLR3mr7L")).to.not.equal(
        addressKey("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"),
      );
      expect(slugKey("doge-punks")).to.equal(utf8Key("doge-punks"));
      expect(actionKey("LAUNCHPAD_MINT")).to.equal(utf8Key("LAUNCHPAD_MINT"));
    });

    it("hash ticks case-insensitively through their ASCII lower case", () => {
      expect(tickKey("DOGE")).to.equal(utf8Key("doge"));
      expect(tickKey("dOgE")).to.equal(tickKey("doge"));
      expect(asciiLower("ÄBC")).to.equal("Äbc");
      expect(tickKey("ÄBC")).to.equal(utf8Key("Äbc"));
    });

    it("agree with toLowerCase on every ASCII string", () => {
      fc.assert(
        fc.property(fc.string({ unit: "binary-ascii" }), (text) => asciiLower(text) === text.toLowerCase()),
        { numRuns: 200 },
      );
    });

    it("hash inscription ids and txids over their canonical lower-case form", () => {
      expect(canonicalInscriptionId(`${TXID}i7`)).to.equal(`${"ab".repeat(32)}i7`);
      expect(inscriptionKey(`${TXID}i7`)).to.equal(utf8Key(`${"ab".repeat(32)}i7`));
      expect(canonicalTxid(TXID)).to.equal("ab".repeat(32));
      expect(txKey(TXID)).to.equal(utf8Key("ab".repeat(32)));
    });

    it("throw FactKeyError on ids that are not canonical-able", () => {
      for (const bad of [`${TXID}i01`, `${TXID}i`, `${TXID}`, `0x${TXID}i0`, `${TXID.slice(2)}i0`, `${TXID}i-1`]) {
        expect(() => inscriptionKey(bad))
          .to.throw(FactKeyError)
          .with.property("code", "BAD_INSCRIPTION_ID");
      }
      for (const bad of [TXID.slice(1), `0x${TXID}`, `${TXID}00`, "zz".repeat(32)]) {
        expect(() => txKey(bad))
          .to.throw(FactKeyError)
          .with.property("code", "BAD_TXID");
      }
      expect(() => hashToBytes32("12"))
        .to.throw(FactKeyError)
        .with.property("code", "BAD_BYTES32");
    });

    it("turn display hashes into bytes32 with or without 0x", () => {
      expect(hashToBytes32(TXID)).to.equal(`0x${"ab".repeat(32)}`);
      expect(hashToBytes32(`0x${TXID}`)).to.equal(`0x${"ab".repeat(32)}`);
    });

    it("locate facts and requests by keccak256 of their ABI encoding", () => {
      const abi = AbiCoder.defaultAbiCoder();
      const [a, b, c] = [utf8Key("a"), utf8Key("b"), ZERO_KEY];
      expect(factStorageKey(a, b, c)).to.equal(keccak256(abi.encode(["bytes32", "bytes32", "bytes32"], [a, b, c])));
      expect(requestIdOf(a, b, c, 7n)).to.equal(
        keccak256(abi.encode(["bytes32", "bytes32", "bytes32", "uint256"], [a, b, c, 7n])),
      );
      expect(requestIdOf(a, b, c, 7)).to.not.equal(requestIdOf(a, b, c, 8));
    });
  });

  describe("EIP-712 types", () => {
    it("has type strings equal to the encodeType of the ethers field lists", () => {
      expect(TypedDataEncoder.from(FACT_TYPES).encodeType("Fact")).to.equal(FACT_TYPE_STRING);
      expect(TypedDataEncoder.from(RECEIPT_TYPES).encodeType("Receipt")).to.equal(RECEIPT_TYPE_STRING);
      expect(FACT_TYPEHASH).to.equal(utf8Key(FACT_TYPE_STRING));
      expect(RECEIPT_TYPEHASH).to.equal(utf8Key(RECEIPT_TYPE_STRING));
    });

    it("spells the Fact struct exactly as DESIGN.md 4.6 does", () => {
      expect(FACT_TYPE_STRING).to.equal(
        "Fact(bytes32 factType,bytes32 subject,bytes32 qualifier,uint256 value,bytes32 data,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)",
      );
    });

    it("computes digests as \\x19\\x01 || domain separator || struct hash", () => {
      const fact = dogeBalanceFact("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", 5n, stamp);
      const expected = keccak256(`0x1901${domainSeparator(domain).slice(2)}${hashFactStruct(fact).slice(2)}`);
      expect(factDigest(domain, fact)).to.equal(expected);
      const receipt: Receipt = {
        jobId: utf8Key("job"),
        jobContract: CONTRACT,
        l1Txid: hashToBytes32(TXID),
        resultHash: utf8Key("r"),
        l1Height: 9n,
        attestedAt: 10n,
        attesterSetId: 1n,
      };
      expect(receiptDigest(domain, receipt)).to.equal(
        keccak256(`0x1901${domainSeparator(domain).slice(2)}${hashReceiptStruct(receipt).slice(2)}`),
      );
    });

    it("binds the digest to the chain id and the contract", () => {
      const fact = dogeBalanceFact("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", 5n, stamp);
      expect(factDigest(attestationDomain(6281971, CONTRACT), fact)).to.not.equal(factDigest(domain, fact));
      expect(factDigest(attestationDomain(31337, wallets[0].address), fact)).to.not.equal(factDigest(domain, fact));
    });
  });

  describe("signFact and signReceipt", () => {
    it("return one signature per signer, sorted by recovered address", async () => {
      const fact = drc20BalanceFact("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", "DOGE", 10n, stamp);
      const signatures = await signFact([...wallets].reverse(), domain, fact);
      const signers = signatures.map((s) => BigInt(recoverSigner(factDigest(domain, fact), s)));
      expect(signers).to.have.length(4);
      expect(signers).to.deep.equal([...signers].sort((a, b) => (a < b ? -1 : 1)));
      expect(new Set(signers.map(String)).size).to.equal(4);
      expect(signers.map((s) => s.toString())).to.have.members(wallets.map((w) => BigInt(w.address).toString()));
    });

    it("sign receipts the same way", async () => {
      const receipt: Receipt = {
        jobId: utf8Key("job"),
        jobContract: CONTRACT,
        l1Txid: hashToBytes32(TXID),
        resultHash: utf8Key("r"),
        l1Height: 9n,
        attestedAt: 10n,
        attesterSetId: 1n,
      };
      const signatures = await signReceipt(wallets.slice(0, 2), domain, receipt);
      const signers = signatures.map((s) => recoverSigner(receiptDigest(domain, receipt), s));
      expect(signers).to.have.members(wallets.slice(0, 2).map((w) => w.address));
      expect(BigInt(signers[0]) < BigInt(signers[1])).to.equal(true);
    });

    it("sortSignatures keeps duplicates so that the contract can refuse them", async () => {
      const fact = dogeBalanceFact("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", 5n, stamp);
      const [one] = await signFact([wallets[0]], domain, fact);
      expect(sortSignatures(factDigest(domain, fact), [one, one])).to.deep.equal([one, one]);
    });
  });

  describe("the domain check", () => {
    it("accepts the expected domain read from an eip712Domain() result", () => {
      const result = ["0x0f", "DogeAttestation", "1", 31337n, CONTRACT.toLowerCase(), ZERO_KEY, []];
      expect(() => assertAttestationDomain(domainFromEip712Result(result), domain)).to.not.throw();
    });

    it("throws FactDomainMismatchError naming every differing field", () => {
      const result = ["0x0f", "Other", "2", 1n, wallets[0].address, ZERO_KEY, []];
      try {
        assertAttestationDomain(domainFromEip712Result(result), domain);
        expect.fail("no error");
      } catch (error) {
        expect(error).to.be.instanceOf(FactDomainMismatchError);
        expect((error as FactDomainMismatchError).mismatches.map((m) => m.field)).to.deep.equal([
          "name",
          "version",
          "chainId",
          "verifyingContract",
        ]);
      }
    });
  });

  describe("fact builders", () => {
    const address = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
    const inscription = `${TXID}i0`;
    const hash = "11".repeat(32);
    const cases: { name: string; fact: Fact; expected: Omit<Fact, "l1Height" | "attestedAt" | "attesterSetId"> }[] = [
      {
        name: "DOGE_BALANCE",
        fact: dogeBalanceFact(address, 7n, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.DOGE_BALANCE,
          subject: addressKey(address),
          qualifier: ZERO_KEY,
          value: 7n,
          data: ZERO_KEY,
        },
      },
      {
        name: "DRC20_BALANCE",
        fact: drc20BalanceFact(address, "DOGE", 8n, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.DRC20_BALANCE,
          subject: addressKey(address),
          qualifier: tickKey("doge"),
          value: 8n,
          data: ZERO_KEY,
        },
      },
      {
        name: "COLLECTION_COUNT",
        fact: collectionCountFact(address, "punks", 2n, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.COLLECTION_COUNT,
          subject: addressKey(address),
          qualifier: slugKey("punks"),
          value: 2n,
          data: ZERO_KEY,
        },
      },
      {
        name: "INSCRIPTION_OWNER",
        fact: inscriptionOwnerFact(inscription, address, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.INSCRIPTION_OWNER,
          subject: inscriptionKey(inscription),
          qualifier: ZERO_KEY,
          value: 0n,
          data: addressKey(address),
        },
      },
      {
        name: "INSCRIPTION_VALID",
        fact: inscriptionValidFact(inscription, true, hash, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.INSCRIPTION_VALID,
          subject: inscriptionKey(inscription),
          qualifier: ZERO_KEY,
          value: 1n,
          data: `0x${hash}`,
        },
      },
      {
        name: "INSCRIPTION_ACTION",
        fact: inscriptionActionFact(inscription, "LAUNCHPAD_MINT", stamp),
        expected: {
          factType: FACT_TYPE_KEYS.INSCRIPTION_ACTION,
          subject: inscriptionKey(inscription),
          qualifier: ZERO_KEY,
          value: 1n,
          data: actionKey("LAUNCHPAD_MINT"),
        },
      },
      {
        name: "INSCRIPTION_ACTION (none)",
        fact: inscriptionActionFact(inscription, null, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.INSCRIPTION_ACTION,
          subject: inscriptionKey(inscription),
          qualifier: ZERO_KEY,
          value: 0n,
          data: ZERO_KEY,
        },
      },
      {
        name: "DRC20_TRANSFER_VALID",
        fact: drc20TransferValidFact(TXID, "DOGE", 50n, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.DRC20_TRANSFER_VALID,
          subject: txKey(TXID),
          qualifier: ZERO_KEY,
          value: 50n,
          data: tickKey("doge"),
        },
      },
      {
        name: "TX_INCLUDED",
        fact: txIncludedFact(TXID, { height: 90, blockHash: hash }, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.TX_INCLUDED,
          subject: txKey(TXID),
          qualifier: ZERO_KEY,
          value: 90n,
          data: `0x${hash}`,
        },
      },
      {
        name: "TX_INCLUDED (not included)",
        fact: txIncludedFact(TXID, null, stamp),
        expected: {
          factType: FACT_TYPE_KEYS.TX_INCLUDED,
          subject: txKey(TXID),
          qualifier: ZERO_KEY,
          value: 0n,
          data: ZERO_KEY,
        },
      },
    ];
    for (const { name, fact, expected } of cases) {
      it(`lays out ${name} as the table in IDogeAttestation says`, () => {
        expect(fact).to.deep.equal({ ...expected, l1Height: 100n, attestedAt: 1_700_000_000n, attesterSetId: 1n });
      });
    }

    it("lays out L1_TIP with the tip height as value and l1Height", () => {
      expect(l1TipFact(123, hash, { attestedAt: 5n, attesterSetId: 2n })).to.deep.equal({
        factType: FACT_TYPE_KEYS.L1_TIP,
        subject: ZERO_KEY,
        qualifier: ZERO_KEY,
        value: 123n,
        data: `0x${hash}`,
        l1Height: 123n,
        attestedAt: 5n,
        attesterSetId: 2n,
      });
    });
  });

  describe("rules", () => {
    it("has the contract's constants", () => {
      expect(MIN_SIGNATURES).to.equal(2);
      expect(ATTESTER_COUNT).to.equal(3);
      expect(CREATOR_SHARE_PERCENT).to.equal(20n);
      expect(DEFAULT_REQUEST_FEE_WEI).to.equal(5n * 10n ** 16n);
    });

    it("replaces a stored fact only at a greater or equal height with a later attestedAt", () => {
      const stored = { l1Height: 10n, attestedAt: 100n };
      expect(replacesStoredFact(stored, { l1Height: 10n, attestedAt: 101n })).to.equal(true);
      expect(replacesStoredFact(stored, { l1Height: 11n, attestedAt: 101n })).to.equal(true);
      expect(replacesStoredFact(stored, { l1Height: 11n, attestedAt: 100n })).to.equal(false);
      expect(replacesStoredFact(stored, { l1Height: 9n, attestedAt: 200n })).to.equal(false);
      expect(replacesStoredFact(null, { l1Height: 0n, attestedAt: 1n })).to.equal(true);
      expect(replacesStoredFact(null, { l1Height: 5n, attestedAt: 0n })).to.equal(false);
    });

    it("splits any fee into a 20% creator share and the rest, summing to the fee", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: (1n << 96n) - 1n }), fc.boolean(), (fee, hasCreator) => {
          const { creatorShareWei, operatorShareWei } = splitRequestFee(fee, hasCreator);
          return (
            creatorShareWei + operatorShareWei === fee && creatorShareWei === (hasCreator ? (fee * 20n) / 100n : 0n)
          );
        }),
        { numRuns: 200 },
      );
      expect(splitRequestFee(DEFAULT_REQUEST_FEE_WEI, true)).to.deep.equal({
        creatorShareWei: 10n ** 16n,
        operatorShareWei: 4n * 10n ** 16n,
      });
    });

    it("counts confirmations against the tip", () => {
      expect(confirmations(100n, 105n)).to.equal(6n);
      expect(confirmations(0n, 105n)).to.equal(0n);
      expect(confirmations(106n, 105n)).to.equal(0n);
      expect(isTxConfirmed(100n, 105n, 6n)).to.equal(true);
      expect(isTxConfirmed(100n, 104n, 6n)).to.equal(false);
      expect(isTxConfirmed(0n, 104n, 0n)).to.equal(false);
    });

    it("settles a job's transaction at the contract's depth: 6 confirmations, an attested tip of l1Height + 5", () => {
      expect(SETTLE_CONFIRMATIONS).to.equal(6n);
      expect(settleTipNeeded(100n)).to.equal(105n);
      expect(settleable(100n, 105n)).to.equal(true);
      expect(settleable(100n, 104n)).to.equal(false);
      expect(settleable(0n, 1_000n)).to.equal(false);
    });

    it("judges signer lists like the contract: ascending, members, at least two", () => {
      const members = wallets.slice(0, 3).map((w) => w.address);
      const [a, b, c] = [...members].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1));
      const outsider = wallets[3].address;
      expect(quorumVerdict([a, b], members)).to.deep.equal({ accepted: true });
      expect(quorumVerdict([a, b, c], members)).to.deep.equal({ accepted: true });
      expect(quorumVerdict([b, a], members)).to.deep.equal({
        accepted: false,
        error: "AttestationSignersNotAscending",
        index: 1,
        signer: a,
        previous: b,
      });
      expect(quorumVerdict([a, a], members)).to.deep.equal({
        accepted: false,
        error: "AttestationSignersNotAscending",
        index: 1,
        signer: a,
        previous: a,
      });
      expect(quorumVerdict([a], members)).to.deep.equal({
        accepted: false,
        error: "AttestationQuorumNotMet",
        valid: 1,
        required: 2,
      });
      expect(quorumVerdict([], members)).to.deep.equal({
        accepted: false,
        error: "AttestationQuorumNotMet",
        valid: 0,
        required: 2,
      });
      expect(quorumVerdict([outsider], members)).to.deep.equal({
        accepted: false,
        error: "AttestationSignerNotAttester",
        index: 0,
        signer: outsider,
      });
    });
  });
});
