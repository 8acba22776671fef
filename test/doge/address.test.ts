import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import {
  AddressError,
  AddressType,
  NETWORKS,
  NetworkName,
  addressToOutputScript,
  base58CheckDecode,
  base58CheckEncode,
  base58Decode,
  base58Encode,
  bytesToHex,
  decodeAddress,
  decodeWif,
  encodeAddress,
  encodeWif,
  hexToBytes,
  isValidAddress,
  outputScriptToAddress,
  privateKeyToPublicKey,
  publicKeyToAddress,
} from "../../src/doge";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bitcore = require("bitcore-lib-doge");

interface AddressVector {
  description: string;
  source: string;
  input: { address?: string; wif?: string; publicKey?: string; network: NetworkName };
  expected: {
    type?: AddressType;
    hash?: string;
    outputScript?: string;
    privateKey?: string;
    compressed?: boolean;
    address?: string;
  };
}

interface InvalidAddressVector {
  description: string;
  source: string;
  input: { address?: string; wif?: string; network: NetworkName };
  error: string;
}

const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "vectors", "address.json"), "utf8")) as {
  valid: AddressVector[];
  invalid: InvalidAddressVector[];
};

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const NETWORK_NAMES: NetworkName[] = ["mainnet", "testnet", "regtest"];

/** Runs `fn` and returns the AddressError it throws; fails when it throws anything else or nothing. */
function addressErrorOf(fn: () => unknown): AddressError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(AddressError);
    return error as AddressError;
  }
  expect.fail("expected an AddressError");
}

const hash20 = fc.uint8Array({ minLength: 20, maxLength: 20 });
const addressType = fc.constantFrom<AddressType>("pubkeyhash", "scripthash");
const networkName = fc.constantFrom(...NETWORK_NAMES);

describe("doge/address", () => {
  describe("decodeAddress and addressToOutputScript", () => {
    for (const vector of vectors.valid.filter((v) => v.input.address !== undefined)) {
      it(`decodes ${vector.description} and rebuilds it from its hash`, () => {
        const network = NETWORKS[vector.input.network];
        const decoded = decodeAddress(vector.input.address!, network);
        expect(decoded.network.name).to.equal(vector.input.network);
        expect(decoded.type).to.equal(vector.expected.type);
        expect(bytesToHex(decoded.hash)).to.equal(vector.expected.hash);
        expect(bytesToHex(addressToOutputScript(vector.input.address!, network))).to.equal(
          vector.expected.outputScript,
        );
        expect(encodeAddress(decoded.hash, decoded.type, network)).to.equal(vector.input.address);
        expect(outputScriptToAddress(hexToBytes(vector.expected.outputScript!), network)).to.equal(
          vector.input.address,
        );
        expect(isValidAddress(vector.input.address!, network)).to.equal(true);
      });
    }

    it("reports the first network whose version byte matches when none is given", () => {
      expect(decodeAddress("DLf7gEHNnvpEex3fCz8oipXPDQnmdFTPmH").network.name).to.equal("mainnet");
      expect(decodeAddress("A7HRQk3GFCW2QasvdZxXuYj8kkQK5QrYLs").network.name).to.equal("mainnet");
      expect(decodeAddress("nhRsrUaxZou6sewjqaS37cJrMRJRgwVXdk").network.name).to.equal("testnet");
      expect(decodeAddress("mpLQjfK79b7CCV4VMJWEWAj5Mpx8Up5zxB").network.name).to.equal("regtest");
      // testnet and regtest share the P2SH byte 0xc4.
      expect(decodeAddress("2MsvyG12kxxipe276Au4zKqvd2xdrBuHWb3").network.name).to.equal("testnet");
    });
  });

  describe("decodeWif and encodeWif", () => {
    for (const vector of vectors.valid.filter((v) => v.input.wif !== undefined)) {
      it(`decodes ${vector.description} to its key and address and encodes it back`, () => {
        const network = NETWORKS[vector.input.network];
        const decoded = decodeWif(vector.input.wif!, network);
        expect(decoded.network.name).to.equal(vector.input.network);
        expect(bytesToHex(decoded.privateKey)).to.equal(vector.expected.privateKey);
        expect(decoded.compressed).to.equal(vector.expected.compressed);
        expect(encodeWif(decoded.privateKey, network, decoded.compressed)).to.equal(vector.input.wif);
        const publicKey = privateKeyToPublicKey(decoded.privateKey, decoded.compressed);
        expect(publicKeyToAddress(publicKey, network)).to.equal(vector.expected.address);
      });
    }
  });

  describe("publicKeyToAddress", () => {
    for (const vector of vectors.valid.filter((v) => v.input.publicKey !== undefined)) {
      it(`gives ${vector.expected.address} for ${vector.description}`, () => {
        expect(publicKeyToAddress(hexToBytes(vector.input.publicKey!), NETWORKS[vector.input.network])).to.equal(
          vector.expected.address,
        );
      });
    }
  });

  describe("rejections", () => {
    for (const vector of vectors.invalid) {
      const what = vector.input.address !== undefined ? "address" : "WIF key";
      it(`throws AddressError ${vector.error} for ${vector.description}`, () => {
        const network = NETWORKS[vector.input.network];
        if (vector.input.address !== undefined) {
          expect(addressErrorOf(() => decodeAddress(vector.input.address!, network)).code, what).to.equal(vector.error);
          expect(isValidAddress(vector.input.address, network)).to.equal(false);
        } else {
          expect(addressErrorOf(() => decodeWif(vector.input.wif!, network)).code, what).to.equal(vector.error);
        }
      });
    }
  });

  describe("base58", () => {
    it("round-trips any bytes, leading zeros included, and encodes them as bitcore-lib-doge does", () => {
      const bytes = fc.oneof(
        fc.uint8Array({ maxLength: 80 }),
        fc
          .tuple(fc.nat({ max: 5 }), fc.uint8Array({ maxLength: 30 }))
          .map(([zeros, rest]) => Uint8Array.from([...new Array(zeros).fill(0), ...rest])),
      );
      fc.assert(
        fc.property(bytes, (data) => {
          const text = base58Encode(data);
          expect(bytesToHex(base58Decode(text))).to.equal(bytesToHex(data));
          expect(text).to.equal(bitcore.encoding.Base58.encode(Buffer.from(data)));
        }),
        { numRuns: 500 },
      );
    });

    it("round-trips base58check payloads and agrees with bitcore-lib-doge's Base58Check", () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 1, maxLength: 80 }), (payload) => {
          const text = base58CheckEncode(payload);
          expect(bytesToHex(base58CheckDecode(text))).to.equal(bytesToHex(payload));
          expect(text).to.equal(bitcore.encoding.Base58Check.encode(Buffer.from(payload)));
        }),
        { numRuns: 500 },
      );
    });

    it("rejects a base58check string with any single character changed", () => {
      fc.assert(
        fc.property(hash20, addressType, networkName, fc.nat(), fc.nat(), (hash, type, name, position, replacement) => {
          const address = encodeAddress(hash, type, NETWORKS[name]);
          const index = position % address.length;
          const alphabet = BASE58_ALPHABET.replace(address[index], "");
          const changed = address.slice(0, index) + alphabet[replacement % alphabet.length] + address.slice(index + 1);
          expect(addressErrorOf(() => decodeAddress(changed)).code).to.be.oneOf(["BAD_CHECKSUM", "BAD_LENGTH"]);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe("encodeAddress", () => {
    it("round-trips any hash, type and network, and bitcore-lib-doge reads the same hash back", () => {
      fc.assert(
        fc.property(hash20, addressType, networkName, (hash, type, name) => {
          const network = NETWORKS[name];
          const address = encodeAddress(hash, type, network);
          const decoded = decodeAddress(address, network);
          expect(bytesToHex(decoded.hash)).to.equal(bytesToHex(hash));
          expect(decoded.type).to.equal(type);
          const theirs = new bitcore.Address(address);
          expect(theirs.hashBuffer.toString("hex")).to.equal(bytesToHex(hash));
          expect(theirs.type).to.equal(type === "pubkeyhash" ? "pubkeyhash" : "scripthash");
        }),
        { numRuns: 300 },
      );
    });

    it("throws WRONG_NETWORK when an address is read on a network with other version bytes", () => {
      fc.assert(
        fc.property(hash20, addressType, networkName, networkName, (hash, type, from, to) => {
          const version = (name: NetworkName) =>
            type === "pubkeyhash" ? NETWORKS[name].pubKeyHash : NETWORKS[name].scriptHash;
          fc.pre(version(from) !== version(to));
          const address = encodeAddress(hash, type, NETWORKS[from]);
          expect(addressErrorOf(() => decodeAddress(address, NETWORKS[to])).code).to.equal("WRONG_NETWORK");
          expect(addressErrorOf(() => addressToOutputScript(address, NETWORKS[to])).code).to.equal("WRONG_NETWORK");
        }),
        { numRuns: 300 },
      );
    });

    it("refuses a hash that is not 20 bytes", () => {
      expect(addressErrorOf(() => encodeAddress(new Uint8Array(19), "pubkeyhash", NETWORKS.mainnet)).code).to.equal(
        "BAD_LENGTH",
      );
      expect(addressErrorOf(() => encodeAddress(new Uint8Array(32), "scripthash", NETWORKS.mainnet)).code).to.equal(
        "BAD_LENGTH",
      );
    });
  });

  describe("decodeAddress and decodeWif on arbitrary input", () => {
    const base58Text = fc.string({ unit: fc.constantFrom(...BASE58_ALPHABET), minLength: 0, maxLength: 60 });
    const anyInput = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: "binary", maxLength: 40 }),
      base58Text,
      fc.anything(),
    );

    it("never throw anything but AddressError", () => {
      fc.assert(
        fc.property(anyInput, fc.option(networkName, { nil: undefined }), (input, name) => {
          const network = name ? NETWORKS[name] : undefined;
          for (const decode of [decodeAddress, decodeWif]) {
            try {
              decode(input as string, network);
            } catch (error) {
              expect(error).to.be.instanceOf(AddressError);
            }
          }
        }),
        { numRuns: 2000 },
      );
    });

    it("accept a string only if it re-encodes to itself", () => {
      fc.assert(
        fc.property(base58Text, (text) => {
          let decoded;
          try {
            decoded = decodeAddress(text);
          } catch {
            return;
          }
          expect(encodeAddress(decoded.hash, decoded.type, decoded.network)).to.equal(text);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe("WIF keys of random private keys", () => {
    it("round-trip on every network, compressed or not, and bitcore-lib-doge derives the same address", () => {
      const key = fc
        .uint8Array({ minLength: 32, maxLength: 32 })
        .filter((bytes) => bytes.some((b) => b !== 0) && bytes[0] < 0xff);
      fc.assert(
        fc.property(key, networkName, fc.boolean(), (privateKey, name, compressed) => {
          const network = NETWORKS[name];
          const wif = encodeWif(privateKey, network, compressed);
          const decoded = decodeWif(wif, network);
          expect(bytesToHex(decoded.privateKey)).to.equal(bytesToHex(privateKey));
          expect(decoded.compressed).to.equal(compressed);
          const theirs = bitcore.PrivateKey.fromWIF(wif);
          expect(theirs.compressed).to.equal(compressed);
          const theirNetwork =
            name === "mainnet"
              ? bitcore.Networks.livenet
              : name === "testnet"
                ? bitcore.Networks.testnet
                : bitcore.Networks.get("regtest");
          expect(publicKeyToAddress(privateKeyToPublicKey(privateKey, compressed), network)).to.equal(
            theirs.toAddress(theirNetwork).toString(),
          );
        }),
        { numRuns: 100 },
      );
    });
  });
});
