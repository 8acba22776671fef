/**
 * Secret options read from files (src/config/load.ts with src/config/secret-file.ts): a file group
 * or others can read is refused with the chmod fix, a 0600 file is read (its final line break
 * dropped), the value and the file at the same level are refused together, and the usual
 * command line > environment > config file order holds between them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { ConfigError, OptionSpec, formatHelp, loadConfig } from "../../src/config/load";
import { SecretError, evmPrivateKey, loadSecret, readSecretLine } from "../../src/config/secret-file";
import { loadInscriberKey, loadRelayerL2Key } from "../../src/relayer/keys";
import { secretErrorCode } from "../helpers/secrets";
import { Wallet } from "ethers";
import { rpcOptions } from "../../src/config/rpc";

const SPEC = {
  ...rpcOptions("TESTD"),
  name: { kind: "string", env: "TESTD_NAME", default: "testd", description: "a plain option" },
} as const satisfies Record<string, OptionSpec>;

describe("secrets from files", () => {
  let dir: string;
  const write = (name: string, text: string, mode: number): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
    return file;
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "secrets-test-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reads --rpc-password-file from a 0600 file, without its final line break", () => {
    const file = write("pw", "hunter2 with spaces\n", 0o600);
    const config = loadConfig(SPEC, ["--rpc-url", "http://127.0.0.1:1/", "--rpc-password-file", file], {});
    expect(config["rpc-password"]).to.equal("hunter2 with spaces");
  });

  for (const mode of [0o644, 0o640, 0o604, 0o660]) {
    it(`refuses a ${mode.toString(8)} file with the chmod fix, not the secret`, () => {
      const file = write("pw", "hunter2\n", mode);
      const load = () => loadConfig(SPEC, ["--rpc-url", "http://127.0.0.1:1/", "--rpc-password-file", file], {});
      expect(load).to.throw(
        ConfigError,
        `the --rpc-password-file file ${file} has mode ${mode.toString(8)}; group and others must have no access: chmod 600 ${file}`,
      );
      try {
        load();
      } catch (error) {
        expect((error as Error).message).to.not.include("hunter2");
      }
    });
  }

  it("refuses a missing file, a directory and an empty file", () => {
    const base = ["--rpc-url", "http://127.0.0.1:1/", "--rpc-password-file"];
    expect(() => loadConfig(SPEC, [...base, path.join(dir, "none")], {})).to.throw(
      ConfigError,
      "cannot read the --rpc-password-file file",
    );
    expect(() => loadConfig(SPEC, [...base, dir], {})).to.throw(ConfigError, "is not a regular file");
    expect(() => loadConfig(SPEC, [...base, write("empty", "\n", 0o600)], {})).to.throw(ConfigError, "is empty");
  });

  it("reads <ENV>_FILE and the config file's <name>-file", () => {
    const file = write("pw", "from-file", 0o600);
    expect(loadConfig(SPEC, ["--rpc-url", "http://h:1/"], { TESTD_RPC_PASSWORD_FILE: file })["rpc-password"]).to.equal(
      "from-file",
    );
    const config = write("config.json", JSON.stringify({ "rpc-url": "http://h:1/", "rpc-password-file": file }), 0o644);
    expect(loadConfig(SPEC, ["--config", config], {})["rpc-password"]).to.equal("from-file");
  });

  it("keeps command line > environment > config file between values and files", () => {
    const fileA = write("a", "A", 0o600);
    const config = write("config.json", JSON.stringify({ "rpc-url": "http://h:1/", "rpc-password": "C" }), 0o644);
    // A file on the command line beats a value in the environment, which beats the config file.
    expect(
      loadConfig(SPEC, ["--config", config, "--rpc-password-file", fileA], { TESTD_RPC_PASSWORD: "B" })["rpc-password"],
    ).to.equal("A");
    expect(loadConfig(SPEC, ["--config", config], { TESTD_RPC_PASSWORD_FILE: fileA })["rpc-password"]).to.equal("A");
    expect(loadConfig(SPEC, ["--config", config], {})["rpc-password"]).to.equal("C");
  });

  it("refuses a value and a file at the same level", () => {
    const file = write("pw", "x", 0o600);
    expect(() =>
      loadConfig(SPEC, ["--rpc-url", "http://h:1/", "--rpc-password", "y", "--rpc-password-file", file], {}),
    ).to.throw(ConfigError, "rpc-password and rpc-password-file are both given on the command line: give one");
    expect(() =>
      loadConfig(SPEC, ["--rpc-url", "http://h:1/"], { TESTD_RPC_PASSWORD: "y", TESTD_RPC_PASSWORD_FILE: file }),
    ).to.throw(ConfigError, "both given in the environment");
  });

  it("offers <name>-file only for secret options", () => {
    expect(() => loadConfig(SPEC, ["--rpc-url", "http://h:1/", "--name-file", "x"], {})).to.throw(
      ConfigError,
      "unknown option --name-file",
    );
  });

  it("lists the file variant and its environment variable in --help, and no secret default", () => {
    const help = formatHelp("testd", SPEC);
    expect(help).to.match(/^ {2}--rpc-password-file <file>$/m);
    expect(help).to.include("env TESTD_RPC_PASSWORD_FILE");
    expect(help).to.match(/^ {2}--rpc-cookie-file <text>$/m);
    expect(help).to.include("env TESTD_RPC_COOKIE_FILE");
    expect(help).to.match(/^ {2}--rpc-url <url> {2}\(required\)$/m);
  });

  it("readSecretLine is the one loader: it refuses what readSecretFile refuses", () => {
    expect(() => readSecretLine(write("k", "x\n", 0o640), "test key")).to.throw("chmod 600");
    expect(readSecretLine(write("k2", "x\r\n", 0o600), "test key")).to.equal("x");
  });
  describe("loadSecret: the one loader of keys (attester, relayer, deployer)", () => {
    const wallet = Wallet.createRandom();
    const codeOf = (run: () => unknown) => secretErrorCode(run, wallet.privateKey.slice(2));

    it("reads the file when given and ignores the environment then; else the variable", () => {
      const file = write("k", `  ${wallet.privateKey}\n`, 0o600);
      const other = Wallet.createRandom().privateKey;
      expect(loadRelayerL2Key({ keyFile: file, env: { RELAYER_PRIVATE_KEY: other } }).address).to.equal(wallet.address);
      expect(loadRelayerL2Key({ env: { RELAYER_PRIVATE_KEY: wallet.privateKey } }).address).to.equal(wallet.address);
      expect(loadInscriberKey({ env: { RELAYER_INSCRIBER_KEY: " project-key-1 " } })).to.equal("project-key-1");
    });

    it("refuses with one error and its code: MISSING, UNREADABLE, INSECURE_PERMISSIONS, MALFORMED", () => {
      expect(codeOf(() => loadRelayerL2Key({ env: {} }))).to.equal("MISSING");
      expect(codeOf(() => loadRelayerL2Key({ env: { RELAYER_PRIVATE_KEY: "  " } }))).to.equal("MISSING");
      expect(codeOf(() => loadRelayerL2Key({ keyFile: write("e", "\n", 0o600), env: {} }))).to.equal("MISSING");
      expect(codeOf(() => loadRelayerL2Key({ keyFile: path.join(dir, "absent"), env: {} }))).to.equal("UNREADABLE");
      expect(codeOf(() => loadRelayerL2Key({ keyFile: write("g", wallet.privateKey, 0o640), env: {} }))).to.equal(
        "INSECURE_PERMISSIONS",
      );
      expect(codeOf(() => loadRelayerL2Key({ env: { RELAYER_PRIVATE_KEY: wallet.privateKey.slice(2) } }))).to.equal(
        "MALFORMED",
      );
      expect(codeOf(() => loadRelayerL2Key({ env: { RELAYER_PRIVATE_KEY: `0x${"00".repeat(32)}` } }))).to.equal(
        "MALFORMED",
      );
      expect(codeOf(() => loadInscriberKey({ env: { RELAYER_INSCRIBER_KEY: "two words" } }))).to.equal("MALFORMED");
    });

    it("names the hint when there is no secret, and the parse decides the form", () => {
      expect(() =>
        loadSecret({ what: "test key", env: { name: "TEST_KEY", from: {} }, hint: "set TEST_KEY", parse: (t) => t }),
      ).to.throw(SecretError, "no test key: set TEST_KEY");
      const bare = write("b", wallet.privateKey.slice(2), 0o600);
      expect(
        loadSecret({ what: "deployer key", file: bare, parse: evmPrivateKey({ allowBare: true }) }).address,
      ).to.equal(wallet.address);
      expect(codeOf(() => loadSecret({ what: "deployer key", file: bare, parse: evmPrivateKey() }))).to.equal(
        "MALFORMED",
      );
    });
  });
});
