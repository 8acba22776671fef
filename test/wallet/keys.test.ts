import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { NETWORKS, addressToOutputScript, encodeWif, privateKeyToPublicKey, publicKeyToAddress } from "../../src/doge";
import { WalletKeyError, generateWalletKeyFile, loadWalletKey } from "../../src/wallet";

const regtest = NETWORKS.regtest;

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(WalletKeyError);
    return (error as WalletKeyError).reason;
  }
  throw new Error("expected a WalletKeyError");
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected an error");
}

describe("wallet keys", () => {
  const privateKey = secp256k1.utils.randomSecretKey();
  const wif = encodeWif(privateKey, regtest, true);
  const address = publicKeyToAddress(privateKeyToPublicKey(privateKey), regtest);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "wallet-keys-"));
  });

  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function keyFile(name: string, content: string, mode = 0o600): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content, { mode });
    fs.chmodSync(file, mode);
    return file;
  }

  describe("loadWalletKey", () => {
    it("reads a WIF on its own line from a key file of mode 600", () => {
      const key = loadWalletKey({ keyFile: keyFile("ok.wif", `  ${wif}\n\n`), env: {}, network: regtest });
      expect(key.address).to.equal(address);
      expect(key.privateKey).to.deep.equal(privateKey);
      expect(key.publicKey).to.have.length(33);
      expect(key.script).to.deep.equal(addressToOutputScript(address, regtest));
    });

    it("reads DOGEOS_WALLET_WIF, or another variable when told", () => {
      expect(loadWalletKey({ env: { DOGEOS_WALLET_WIF: wif }, network: regtest }).address).to.equal(address);
      expect(loadWalletKey({ env: { HOT_KEY: `${wif}\n` }, envVar: "HOT_KEY", network: regtest }).address).to.equal(
        address,
      );
    });

    it("prefers the key file over the environment", () => {
      const other = encodeWif(secp256k1.utils.randomSecretKey(), regtest, true);
      expect(
        loadWalletKey({ keyFile: keyFile("pref.wif", wif), env: { DOGEOS_WALLET_WIF: other }, network: regtest })
          .address,
      ).to.equal(address);
    });

    it("says what to do when neither a key file nor the variable is given", () => {
      expect(reasonOf(() => loadWalletKey({ env: {}, network: regtest }))).to.equal("MISSING");
      expect(messageOf(() => loadWalletKey({ env: { DOGEOS_WALLET_WIF: "  " }, network: regtest }))).to.match(
        /key file.*DOGEOS_WALLET_WIF/,
      );
    });

    it("refuses a key file that group or others may read, naming the fix", function () {
      if (process.platform === "win32") this.skip();
      for (const mode of [0o644, 0o640, 0o604, 0o660]) {
        const file = keyFile(`open-${mode.toString(8)}.wif`, wif, mode);
        expect(reasonOf(() => loadWalletKey({ keyFile: file, env: {}, network: regtest }))).to.equal(
          "INSECURE_PERMISSIONS",
        );
        expect(messageOf(() => loadWalletKey({ keyFile: file, env: {}, network: regtest }))).to.include(
          `chmod 600 ${file}`,
        );
      }
      expect(
        loadWalletKey({ keyFile: keyFile("owner-only.wif", wif, 0o400), env: {}, network: regtest }).address,
      ).to.equal(address);
    });

    it("refuses a key of another network", () => {
      const mainnet = encodeWif(privateKey, NETWORKS.mainnet, true);
      const testnet = encodeWif(privateKey, NETWORKS.testnet, true);
      expect(reasonOf(() => loadWalletKey({ env: { DOGEOS_WALLET_WIF: mainnet }, network: regtest }))).to.equal(
        "WRONG_NETWORK",
      );
      expect(messageOf(() => loadWalletKey({ env: { DOGEOS_WALLET_WIF: testnet }, network: regtest }))).to.include(
        "testnet key; this wallet runs on regtest",
      );
      expect(
        reasonOf(() => loadWalletKey({ keyFile: keyFile("main.wif", mainnet), network: NETWORKS.testnet })),
      ).to.equal("WRONG_NETWORK");
    });

    it("refuses an uncompressed key", () => {
      const uncompressed = encodeWif(privateKey, regtest, false);
      expect(reasonOf(() => loadWalletKey({ env: { DOGEOS_WALLET_WIF: uncompressed }, network: regtest }))).to.equal(
        "UNCOMPRESSED",
      );
    });

    it("refuses anything that is not one WIF without quoting it", () => {
      const secretish = `${wif} ${wif}`;
      expect(reasonOf(() => loadWalletKey({ keyFile: keyFile("two.wif", secretish), network: regtest }))).to.equal(
        "MALFORMED",
      );
      expect(
        messageOf(() => loadWalletKey({ keyFile: keyFile("two2.wif", secretish), network: regtest })),
      ).to.not.include(wif);
      const corrupted = wif.slice(0, -1) + (wif.endsWith("A") ? "B" : "A");
      expect(reasonOf(() => loadWalletKey({ env: { DOGEOS_WALLET_WIF: corrupted }, network: regtest }))).to.equal(
        "MALFORMED",
      );
      expect(
        messageOf(() => loadWalletKey({ env: { DOGEOS_WALLET_WIF: corrupted }, network: regtest })),
      ).to.not.include(corrupted);
    });

    it("reports a key file it cannot read", () => {
      expect(reasonOf(() => loadWalletKey({ keyFile: path.join(dir, "absent.wif"), network: regtest }))).to.equal(
        "UNREADABLE",
      );
      expect(reasonOf(() => loadWalletKey({ keyFile: dir, network: regtest }))).to.equal("UNREADABLE");
    });
  });

  describe("generateWalletKeyFile", () => {
    it("writes a fresh compressed WIF with mode 600 that loadWalletKey reads back", function () {
      const file = path.join(dir, "sub", "dev.wif");
      const key = generateWalletKeyFile(file, regtest);
      if (process.platform !== "win32") expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
      expect(fs.readFileSync(file, "utf8")).to.match(/^c[1-9A-HJ-NP-Za-km-z]{51}\n$/);
      expect(loadWalletKey({ keyFile: file, env: {}, network: regtest })).to.deep.equal(key);
    });

    it("never overwrites an existing key file", () => {
      const file = keyFile("existing.wif", wif);
      expect(reasonOf(() => generateWalletKeyFile(file, regtest))).to.equal("EXISTS");
      expect(fs.readFileSync(file, "utf8")).to.equal(wif);
    });
  });
});
