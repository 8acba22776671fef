import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Wallet } from "ethers";
import { dogeBalanceFact } from "../../src/facts";
import type { Receipt } from "../../src/facts";
import {
  WireFormatError,
  factFromJson,
  factToJson,
  loadAttesterKey,
  receiptFromJson,
  receiptToJson,
} from "../../src/attester";
import { secretErrorCode, writeSecretFile } from "../helpers/secrets";

describe("attester wire format and key", () => {
  describe("facts and receipts as JSON", () => {
    const fact = dogeBalanceFact("nXkE8CX5dpjXZ7wZeyRCs7VqrwYXPWqHX5", 2n ** 70n + 5n, {
      l1Height: 1234,
      attestedAt: 1_800_000_000,
      attesterSetId: 3,
    });
    const receipt: Receipt = {
      jobId: `0x${"AB".repeat(32)}`,
      jobContract: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
      l1Txid: `0x${"cd".repeat(32)}`,
      resultHash: `0x${"ef".repeat(32)}`,
      l1Height: 77n,
      attestedAt: 1_800_000_000n,
      attesterSetId: 1n,
    };

    it("carries bytes32 as lower-case 0x hex and integers as decimal strings, and reads them back", () => {
      const json = factToJson(fact);
      expect(json.value).to.equal((2n ** 70n + 5n).toString());
      expect([json.l1Height, json.attestedAt, json.attesterSetId]).to.deep.equal(["1234", "1800000000", "3"]);
      expect(factFromJson(JSON.parse(JSON.stringify(json)))).to.deep.equal(fact);
      const receiptJson = receiptToJson(receipt);
      expect(receiptJson.jobId).to.equal(`0x${"ab".repeat(32)}`);
      expect(receiptJson.jobContract).to.equal("0x5FbDB2315678afecb367f032d93F642f64180aa3");
      expect(receiptFromJson(receiptJson)).to.deep.equal({
        ...receipt,
        jobId: receiptJson.jobId,
        jobContract: receiptJson.jobContract,
      });
    });

    it("refuses numbers, short hex, out-of-range integers and extra fields", () => {
      const json = factToJson(fact) as unknown as Record<string, unknown>;
      for (const [field, value] of [
        ["value", 5],
        ["l1Height", "018"],
        ["attestedAt", (2n ** 64n).toString()],
        ["subject", "0x12"],
        ["data", "ab".repeat(32)],
      ] as const) {
        expect(() => factFromJson({ ...json, [field]: value }), field).to.throw(WireFormatError, field);
      }
      expect(() => factFromJson({ ...json, extra: "1" })).to.throw(WireFormatError, "unknown fields extra");
      expect(() => receiptFromJson({ ...receiptToJson(receipt), jobContract: "0x1234" })).to.throw(
        WireFormatError,
        "jobContract",
      );
    });
  });

  describe("loadAttesterKey", () => {
    const wallet = Wallet.createRandom();
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "attester-key-"));
    });
    afterEach(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const write = (name: string, text: string, mode: number) => writeSecretFile(dir, name, text, mode);
    const codeOf = (run: () => unknown) => secretErrorCode(run, wallet.privateKey.slice(2));

    it("reads a key file of mode 0600 and ignores the environment then", () => {
      const file = write("k", `${wallet.privateKey}\n`, 0o600);
      expect(
        loadAttesterKey({ keyFile: file, env: { ATTESTER_PRIVATE_KEY: Wallet.createRandom().privateKey } }).address,
      ).to.equal(wallet.address);
    });

    it("refuses a key file group or others may read, a malformed key, and no key at all", () => {
      expect(codeOf(() => loadAttesterKey({ keyFile: write("k", wallet.privateKey, 0o640), env: {} }))).to.equal(
        "INSECURE_PERMISSIONS",
      );
      expect(
        codeOf(() => loadAttesterKey({ keyFile: write("m", wallet.privateKey.slice(2), 0o600), env: {} })),
      ).to.equal("MALFORMED");
      expect(codeOf(() => loadAttesterKey({ keyFile: path.join(dir, "missing"), env: {} }))).to.equal("UNREADABLE");
      expect(codeOf(() => loadAttesterKey({ env: {} }))).to.equal("MISSING");
      expect(codeOf(() => loadAttesterKey({ env: { ATTESTER_PRIVATE_KEY: `0x${"00".repeat(32)}` } }))).to.equal(
        "MALFORMED",
      );
    });

    it("takes ATTESTER_PRIVATE_KEY when no key file is given", () => {
      expect(loadAttesterKey({ env: { ATTESTER_PRIVATE_KEY: wallet.privateKey } }).address).to.equal(wallet.address);
    });
  });
});
