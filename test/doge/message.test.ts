import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  AddressError,
  NETWORKS,
  NetworkName,
  bytesToHex,
  decodeWif,
  messageHash,
  privateKeyToPublicKey,
  publicKeyToAddress,
  recoverMessagePublicKey,
  sha256,
  signMessage,
  verifyMessage,
} from "../../src/doge";
import { nativeRecover, verifyMessageNative } from "../../src/doge/message-native";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bitcore = require("bitcore-lib-doge");

interface MessageVector {
  description: string;
  source: string;
  input: { message: string; address: string; signature: string; network: NetworkName; wif?: string };
  expected: { verified: true; compressed: boolean };
}

interface InvalidMessageVector {
  description: string;
  source: string;
  input: { message: string; address: string; signature: string; network: NetworkName };
  error: string;
}

const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "vectors", "message.json"), "utf8")) as {
  valid: MessageVector[];
  invalid: InvalidMessageVector[];
};

const NETWORK_NAMES: NetworkName[] = ["mainnet", "testnet", "regtest"];

/** The message digest computed with bitcore-lib-doge's own writer and hash, independently of messageHash. */
function bitcoreMessageHash(message: Uint8Array): Buffer {
  const prefix = Buffer.from("Dogecoin Signed Message:\n", "utf8");
  const writer = new bitcore.encoding.BufferWriter();
  writer.writeVarintNum(prefix.length);
  writer.write(prefix);
  writer.writeVarintNum(message.length);
  writer.write(Buffer.from(message));
  return bitcore.crypto.Hash.sha256sha256(writer.toBuffer());
}

/** Verifies r and s of a compact signature with bitcore-lib-doge's ECDSA against a known public key. */
function bitcoreAccepts(
  signatureBase64: string,
  message: Uint8Array,
  privateKey: Uint8Array,
  compressed: boolean,
): boolean {
  const compact = Buffer.from(signatureBase64, "base64");
  const signature = new bitcore.crypto.Signature({
    r: bitcore.crypto.BN.fromBuffer(compact.subarray(1, 33)),
    s: bitcore.crypto.BN.fromBuffer(compact.subarray(33, 65)),
  });
  const publicKey = new bitcore.PrivateKey(bytesToHex(privateKey)).publicKey;
  const recovered = new bitcore.PublicKey(Buffer.from(privateKeyToPublicKey(privateKey, compressed)));
  expect(recovered.point.eq(publicKey.point)).to.equal(true);
  return bitcore.crypto.ECDSA.verify(bitcoreMessageHash(message), signature, publicKey);
}

const secretKey = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .filter((bytes) => secp256k1.utils.isValidSecretKey(bytes));
const networkName = fc.constantFrom(...NETWORK_NAMES);
const textMessage = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 300 }));
const binaryMessage = fc.uint8Array({ maxLength: 600 });

describe("doge/message", () => {
  describe("verifyMessage on the vectors", () => {
    for (const vector of vectors.valid) {
      it(`verifies ${vector.description}`, () => {
        const { message, address, signature, network } = vector.input;
        expect(verifyMessage(address, signature, message, NETWORKS[network])).to.equal(true);
        expect(verifyMessageNative(address, signature, message, NETWORKS[network])).to.equal(true);
        expect(recoverMessagePublicKey(message, signature)?.compressed).to.equal(vector.expected.compressed);
      });
    }

    for (const vector of vectors.invalid) {
      const verb =
        vector.error === "NOT_VERIFIED" || vector.error === "MALFORMED_SIGNATURE"
          ? "returns false"
          : `throws AddressError ${vector.error}`;
      it(`${verb} for ${vector.description}`, () => {
        const { message, address, signature, network } = vector.input;
        if (vector.error === "NOT_VERIFIED" || vector.error === "MALFORMED_SIGNATURE") {
          expect(verifyMessage(address, signature, message, NETWORKS[network])).to.equal(false);
          expect(verifyMessageNative(address, signature, message, NETWORKS[network])).to.equal(false);
          expect(recoverMessagePublicKey(message, signature) === null).to.equal(vector.error === "MALFORMED_SIGNATURE");
        } else {
          let thrown: unknown;
          try {
            verifyMessage(address, signature, message, NETWORKS[network]);
          } catch (error) {
            thrown = error;
          }
          expect(thrown).to.be.instanceOf(AddressError);
          expect((thrown as AddressError).code).to.equal(vector.error);
        }
      });
    }
  });

  describe("signMessage on the vectors", () => {
    for (const vector of vectors.valid.filter((v) => v.input.wif !== undefined)) {
      it(`reproduces the RFC 6979 signature of ${vector.description}`, () => {
        const key = decodeWif(vector.input.wif!, NETWORKS[vector.input.network]);
        expect(signMessage(vector.input.message, key.privateKey, key.compressed)).to.equal(vector.input.signature);
      });
    }
  });

  describe("messageHash", () => {
    it("hashes text as its UTF-8 bytes, behind the 0x19-length Dogecoin prefix and a varint length", () => {
      fc.assert(
        fc.property(textMessage, (message) => {
          const bytes = new TextEncoder().encode(message);
          expect(bytesToHex(messageHash(message))).to.equal(bitcoreMessageHash(bytes).toString("hex"));
          expect(bytesToHex(messageHash(bytes))).to.equal(bytesToHex(messageHash(message)));
        }),
        { numRuns: 300 },
      );
    });

    it("uses the three-byte varint for messages of 253 bytes and more", () => {
      for (const length of [252, 253, 254, 0xffff, 0x10000]) {
        const message = new Uint8Array(length).fill(0x44);
        expect(bytesToHex(messageHash(message)), String(length)).to.equal(bitcoreMessageHash(message).toString("hex"));
      }
    });
  });

  describe("signMessage and verifyMessage with random keys and messages", () => {
    it("recover the same key with @noble/curves and with libsecp256k1 (message-native.ts)", () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          textMessage,
          fc.boolean(),
          (seed, message, compressed) => {
            const privateKey = sha256(seed);
            const signature = signMessage(message, privateKey, compressed);
            const noble = recoverMessagePublicKey(message, signature)!;
            const native = recoverMessagePublicKey(message, signature, nativeRecover)!;
            expect(Buffer.from(native.publicKey).toString("hex")).to.equal(
              Buffer.from(noble.publicKey).toString("hex"),
            );
            expect(native.compressed).to.equal(compressed);
          },
        ),
        { numRuns: 100 },
      );
    });

    it("verify what they sign on every network, with compressed and uncompressed keys", () => {
      fc.assert(
        fc.property(secretKey, textMessage, networkName, fc.boolean(), (privateKey, message, name, compressed) => {
          const network = NETWORKS[name];
          const signature = signMessage(message, privateKey, compressed);
          const address = publicKeyToAddress(privateKeyToPublicKey(privateKey, compressed), network);
          expect(verifyMessage(address, signature, message, network)).to.equal(true);
          const header = Buffer.from(signature, "base64")[0];
          expect(header).to.be.within(compressed ? 31 : 27, compressed ? 34 : 30);
        }),
        { numRuns: 100 },
      );
    });

    it("produce signatures that bitcore-lib-doge's ECDSA accepts over its own digest of the message", () => {
      fc.assert(
        fc.property(secretKey, binaryMessage, fc.boolean(), (privateKey, message, compressed) => {
          const signature = signMessage(message, privateKey, compressed);
          expect(bitcoreAccepts(signature, message, privateKey, compressed)).to.equal(true);
        }),
        { numRuns: 50 },
      );
    });

    it("verify uncompressed-key signatures (header 27..30) against the uncompressed-key address only", () => {
      fc.assert(
        fc.property(secretKey, textMessage, networkName, (privateKey, message, name) => {
          const network = NETWORKS[name];
          const signature = signMessage(message, privateKey, false);
          expect(Buffer.from(signature, "base64")[0]).to.be.within(27, 30);
          const uncompressedAddress = publicKeyToAddress(privateKeyToPublicKey(privateKey, false), network);
          const compressedAddress = publicKeyToAddress(privateKeyToPublicKey(privateKey, true), network);
          expect(verifyMessage(uncompressedAddress, signature, message, network)).to.equal(true);
          expect(verifyMessage(compressedAddress, signature, message, network)).to.equal(false);
          expect(recoverMessagePublicKey(message, signature)!.publicKey.length).to.equal(65);
        }),
        { numRuns: 100 },
      );
    });

    it("reject a signature by another key", () => {
      fc.assert(
        fc.property(secretKey, secretKey, textMessage, fc.boolean(), (signer, other, message, compressed) => {
          fc.pre(bytesToHex(signer) !== bytesToHex(other));
          const signature = signMessage(message, signer, compressed);
          const otherAddress = publicKeyToAddress(privateKeyToPublicKey(other, compressed), NETWORKS.regtest);
          expect(verifyMessage(otherAddress, signature, message, NETWORKS.regtest)).to.equal(false);
        }),
        { numRuns: 100 },
      );
    });

    it("reject a signature over another message", () => {
      fc.assert(
        fc.property(secretKey, textMessage, textMessage, fc.boolean(), (privateKey, signed, shown, compressed) => {
          fc.pre(signed !== shown);
          const signature = signMessage(signed, privateKey, compressed);
          const address = publicKeyToAddress(privateKeyToPublicKey(privateKey, compressed), NETWORKS.mainnet);
          expect(verifyMessage(address, signature, shown, NETWORKS.mainnet)).to.equal(false);
        }),
        { numRuns: 100 },
      );
    });

    it("throw AddressError WRONG_NETWORK for an address of another network", () => {
      fc.assert(
        fc.property(secretKey, textMessage, networkName, networkName, (privateKey, message, from, to) => {
          fc.pre(NETWORKS[from].pubKeyHash !== NETWORKS[to].pubKeyHash);
          const signature = signMessage(message, privateKey);
          const address = publicKeyToAddress(privateKeyToPublicKey(privateKey), NETWORKS[from]);
          let thrown: unknown;
          try {
            verifyMessage(address, signature, message, NETWORKS[to]);
          } catch (error) {
            thrown = error;
          }
          expect(thrown).to.be.instanceOf(AddressError);
          expect((thrown as AddressError).code).to.equal("WRONG_NETWORK");
        }),
        { numRuns: 50 },
      );
    });
  });

  describe("recoverMessagePublicKey and verifyMessage on arbitrary signatures", () => {
    it("never throw: they return null or false", () => {
      const signatureText = fc.oneof(
        fc.string({ maxLength: 100 }),
        fc.uint8Array({ minLength: 65, maxLength: 65 }).map((bytes) => Buffer.from(bytes).toString("base64")),
        fc.uint8Array({ maxLength: 70 }).map((bytes) => Buffer.from(bytes).toString("base64")),
      );
      fc.assert(
        fc.property(signatureText, textMessage, (signature, message) => {
          const recovered = recoverMessagePublicKey(message, signature);
          if (recovered) expect(recovered.publicKey.length).to.equal(recovered.compressed ? 33 : 65);
          // libsecp256k1's recovery answers exactly what @noble/curves' does, malformed input included.
          const native = recoverMessagePublicKey(message, signature, nativeRecover);
          expect(
            native && { compressed: native.compressed, publicKey: Buffer.from(native.publicKey).toString("hex") },
          ).to.deep.equal(
            recovered && {
              compressed: recovered.compressed,
              publicKey: Buffer.from(recovered.publicKey).toString("hex"),
            },
          );
          expect(verifyMessage("D8mQ2sKYpLbFCQLhGeHCPBmkLJRi6kRoSg", signature, message, NETWORKS.mainnet)).to.be.a(
            "boolean",
          );
        }),
        { numRuns: 300 },
      );
    });
  });
});
