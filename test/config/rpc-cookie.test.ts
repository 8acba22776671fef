/**
 * dogeos connects to dogecoind with its cookie file (src/config/rpc.ts) against the real devnet,
 * which speaks dogecoind's RPC: started with user `__cookie__` and a random password, as dogecoind
 * does without -rpcpassword. A restart with a new cookie is followed without restarting the client.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { RpcAuthError } from "../../src/chain/dogecoin-rpc";
import { ConfigError } from "../../src/config/load";
import {
  CookieAuthRpcClient,
  checkRpcConfig,
  createDogecoinRpcClient,
  readCookieFile,
  rpcClientOptions,
} from "../../src/config/rpc";
import { RunningDevnet, startDevnet } from "../helpers/devnet";

/** Writes `__cookie__:<hex>` as dogecoind does (0600); returns the password. */
function writeCookie(file: string): string {
  const password = crypto.randomBytes(32).toString("hex");
  fs.writeFileSync(`${file}.tmp`, `__cookie__:${password}`, { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
  return password;
}

describe("dogecoind cookie file", () => {
  let dir: string;
  let devnet: RunningDevnet | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "cookie-test-"));
  });
  afterEach(async () => {
    await devnet?.stop();
    devnet = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reads user and password, refusing a readable or malformed file", () => {
    const cookie = path.join(dir, ".cookie");
    const password = writeCookie(cookie);
    expect(readCookieFile(cookie)).to.deep.equal({ username: "__cookie__", password });
    fs.chmodSync(cookie, 0o644);
    expect(() => readCookieFile(cookie)).to.throw("chmod 600");
    fs.writeFileSync(path.join(dir, "bad"), "no-colon\n", { mode: 0o600 });
    expect(() => readCookieFile(path.join(dir, "bad"))).to.throw(ConfigError, 'does not hold "user:password"');
  });

  it("refuses a cookie beside a user, a password or URL credentials", () => {
    const cookie = path.join(dir, ".cookie");
    writeCookie(cookie);
    expect(() => checkRpcConfig({ "rpc-url": "http://h:1/", "rpc-cookie-file": cookie, "rpc-password": "x" })).to.throw(
      ConfigError,
      "replaces --rpc-user and --rpc-password",
    );
    expect(() => checkRpcConfig({ "rpc-url": "http://u:p@h:1/", "rpc-cookie-file": cookie })).to.throw(
      ConfigError,
      "credentials in --rpc-url",
    );
    expect(rpcClientOptions({ "rpc-url": "http://h:1/", "rpc-cookie-file": cookie })).to.include({
      username: "__cookie__",
    });
    expect(rpcClientOptions({ "rpc-url": "http://h:1/", "rpc-user": "u", "rpc-password": "p" })).to.include({
      username: "u",
      password: "p",
    });
  });

  it("calls the devnet with the cookie and follows a restart that writes a new one", async () => {
    const cookie = path.join(dir, ".cookie");
    const first = writeCookie(cookie);
    devnet = await startDevnet({ args: ["--rpcuser", "__cookie__", "--rpcpassword", first] });
    const port = new URL(devnet.url).port;
    const client = createDogecoinRpcClient(
      { "rpc-url": `http://127.0.0.1:${port}/`, "rpc-cookie-file": cookie },
      { retries: 0, timeoutMs: 5_000 },
    );
    expect(client).to.be.instanceOf(CookieAuthRpcClient);
    expect(client.endpoint).to.equal(`http://__cookie__:***@127.0.0.1:${port}/`);
    expect((await client.getBlockchainInfo()).chain).to.equal("regtest");

    // The node restarts on the same port with a new cookie; the old one is refused (401), so the
    // client reads the file again and resends the call once.
    const dataDir = devnet.dataDir;
    await devnet.stop();
    devnet = undefined;
    const second = writeCookie(cookie);
    devnet = await startDevnet({ dataDir, args: ["--rpcuser", "__cookie__", "--rpcpassword", second, "--port", port] });
    expect(
      (await devnet.rpcRaw("getblockcount", [], "Basic " + Buffer.from(`__cookie__:${first}`).toString("base64")))
        .status,
    ).to.equal(401);
    expect(await client.getBlockCount()).to.be.a("number");

    // A wrong cookie that does not change stays an authentication error, sent once more at most.
    fs.writeFileSync(cookie, "__cookie__:wrong", { mode: 0o600 });
    (client as CookieAuthRpcClient).reloadCookie();
    let failure: unknown;
    try {
      await client.getBlockCount();
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(RpcAuthError);
  });
});
