/**
 * The devnet's answers compared call by call with Dogecoin Core 1.14.7 on regtest: each call's
 * fields and their JSON types, and the error code and text Core gives for each kind of bad
 * parameter (UniValue accessors: -1; RPCTypeCheck: -3; ParseHashV: -8; a hash no block has: -5).
 * The table of calls is in docs/api.md ("The devnet's JSON-RPC").
 */
import { expect } from "chai";
import { RpcCallError, RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey, spendP2pkh } from "../helpers/keys";

async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(RpcCallError);
    return { code: (error as RpcCallError).code, message: (error as RpcCallError).message };
  }
  throw new Error("expected the RPC call to fail");
}

/** JSON type of every field, as a record: the shape Core's help text documents. */
function shape(value: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      Array.isArray(field) ? "array" : field === null ? "null" : typeof field,
    ]),
  );
}

describe("devnet RPC against Dogecoin Core 1.14.7", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  const miner = newKey();

  before(async () => {
    devnet = await startDevnet();
  });

  after(async () => {
    await devnet?.stop();
  });

  async function post(body: string): Promise<{ status: number; json: unknown }> {
    const endpoint = new URL(devnet.url);
    const auth = "Basic " + Buffer.from(`${endpoint.username}:${endpoint.password}`).toString("base64");
    const reply = await fetch(`${endpoint.protocol}//${endpoint.host}/`, {
      method: "POST",
      headers: { Authorization: auth },
      body,
    });
    return { status: reply.status, json: await reply.json() };
  }

  describe("getblockchaininfo", () => {
    it("has Core's fields with Core's types, initialblockdownload true until a recent block is mined", async () => {
      const fresh = await devnet.rpc<Record<string, unknown>>("getblockchaininfo");
      expect(fresh.initialblockdownload).to.equal(true); // the genesis block is from 2011
      await devnet.rpc("generatetoaddress", [1, miner.address]);
      const info = await devnet.rpc<Record<string, unknown>>("getblockchaininfo");
      expect(shape(info)).to.deep.equal({
        chain: "string",
        blocks: "number",
        headers: "number",
        bestblockhash: "string",
        difficulty: "number",
        mediantime: "number",
        verificationprogress: "number",
        initialblockdownload: "boolean",
        chainwork: "string",
        size_on_disk: "number",
        pruned: "boolean",
        softforks: "array",
        bip9_softforks: "object",
        warnings: "string",
      });
      expect(info).to.include({ chain: "regtest", initialblockdownload: false, warnings: "", pruned: false });
      expect(info.size_on_disk as number).to.be.greaterThan(0);
      expect(info.bip9_softforks).to.deep.equal({
        csv: { status: "defined", startTime: 0, timeout: 999999999999, since: 0 },
        segwit: { status: "defined", startTime: 0, timeout: 999999999999, since: 0 },
      });
      const grown = await devnet.rpc<{ size_on_disk: number }>("getblockchaininfo");
      await devnet.rpc("generatetoaddress", [1, miner.address]);
      expect((await devnet.rpc<{ size_on_disk: number }>("getblockchaininfo")).size_on_disk).to.be.greaterThan(
        grown.size_on_disk,
      );
    });
  });

  describe("parameter errors", () => {
    it("answers -1 with UniValue's text where Core reads a parameter with get_int, get_str or get_bool", async () => {
      expect(await rpcError(devnet.rpc("getblockhash", ["x"]))).to.deep.equal({
        code: -1,
        message: "JSON value is not an integer as expected",
      });
      expect(await rpcError(devnet.rpc("getblockhash", [1.5]))).to.deep.equal({
        code: -1,
        message: "JSON integer out of range",
      });
      expect(await rpcError(devnet.rpc("getblock", [7]))).to.deep.equal({
        code: -1,
        message: "JSON value is not a string as expected",
      });
      const tip = await devnet.rpc<string>("getbestblockhash");
      expect(await rpcError(devnet.rpc("getblockheader", [tip, "yes"]))).to.deep.equal({
        code: -1,
        message: "JSON value is not a boolean as expected",
      });
      expect(await rpcError(devnet.rpc("getrawmempool", [1]))).to.deep.equal({
        code: -1,
        message: "JSON value is not a boolean as expected",
      });
      expect((await rpcError(devnet.rpc("gettxout", [tip, "0"]))).code).to.equal(-1);
      expect((await rpcError(devnet.rpc("submitblock", [1]))).code).to.equal(-1);
      expect((await rpcError(devnet.rpc("validateaddress", [1]))).code).to.equal(-1);
      expect((await rpcError(devnet.rpc("verifymessage", [miner.address, 1, "m"]))).code).to.equal(-1);
      expect((await rpcError(devnet.rpc("generatetoaddress", ["1", miner.address]))).code).to.equal(-1);
    });

    it("answers -3 where Core runs RPCTypeCheck first", async () => {
      expect(await rpcError(devnet.rpc("estimatesmartfee", ["6"]))).to.deep.equal({
        code: -3,
        message: "Expected type number, got string",
      });
      expect(await rpcError(devnet.rpc("estimatefee", [true]))).to.deep.equal({
        code: -3,
        message: "Expected type number, got bool",
      });
      expect(await rpcError(devnet.rpc("decoderawtransaction", [5]))).to.deep.equal({
        code: -3,
        message: "Expected type string, got number",
      });
      expect(await rpcError(devnet.rpc("sendrawtransaction", ["00", "yes"]))).to.deep.equal({
        code: -3,
        message: "Expected type bool, got string",
      });
      expect(await rpcError(devnet.rpc("getrawtransaction", ["00".repeat(32), "yes"]))).to.deep.equal({
        code: -3,
        message: "Invalid type provided. Verbose parameter must be a boolean.",
      });
    });

    it("answers ParseHashV's -8 for getrawtransaction and getmempoolentry, and -5 for a block hash no block has", async () => {
      expect(await rpcError(devnet.rpc("getrawtransaction", ["zz"]))).to.deep.equal({
        code: -8,
        message: "parameter 1 must be hexadecimal string (not 'zz')",
      });
      expect(await rpcError(devnet.rpc("getrawtransaction", ["abcd"]))).to.deep.equal({
        code: -8,
        message: "parameter 1 must be of length 64 (not 4)",
      });
      expect(await rpcError(devnet.rpc("getmempoolentry", [12]))).to.deep.equal({
        code: -8,
        message: "parameter 1 must be hexadecimal string (not '')",
      });
      for (const method of ["getblock", "getblockheader", "invalidateblock", "reconsiderblock"]) {
        expect(await rpcError(devnet.rpc(method, ["not a hash"])), method).to.deep.equal({
          code: -5,
          message: "Block not found",
        });
      }
      expect(await devnet.rpc("gettxout", ["xyz", 0])).to.equal(null);
    });

    it("reads a block hash as uint256S does: 0x prefix and surrounding text ignored", async () => {
      const genesis = await devnet.rpc<string>("getblockhash", [0]);
      const viaPrefix = await devnet.rpc<{ hash: string }>("getblockheader", ["0x" + genesis]);
      expect(viaPrefix.hash).to.equal(genesis);
      const viaTrailing = await devnet.rpc<{ hash: string }>("getblock", [genesis + " trailing words"]);
      expect(viaTrailing.hash).to.equal(genesis);
    });
  });

  describe("per-call answers", () => {
    it("getblock takes any number or a bool as verbosity (<= 0 hex, >= 2 transactions)", async () => {
      const tip = await devnet.rpc<string>("getbestblockhash");
      expect(await devnet.rpc("getblock", [tip, -1])).to.be.a("string");
      expect(await devnet.rpc("getblock", [tip, false])).to.be.a("string");
      const full = await devnet.rpc<{ tx: unknown[] }>("getblock", [tip, 5]);
      expect(full.tx[0]).to.be.an("object");
      const brief = await devnet.rpc<{ tx: unknown[] }>("getblock", [tip, true]);
      expect(brief.tx[0]).to.be.a("string");
    });

    it("getrawtransaction answers hex first and treats any non-zero number as verbose", async () => {
      const tip = await devnet.rpc<{ tx: string[] }>("getblock", [await devnet.rpc<string>("getbestblockhash")]);
      const verbose = await devnet.rpc<Record<string, unknown>>("getrawtransaction", [tip.tx[0], 7]);
      expect(Object.keys(verbose)[0]).to.equal("hex");
      expect(verbose).to.include.keys("txid", "hash", "size", "vsize", "version", "locktime", "vin", "vout");
      expect(verbose).to.include.keys("blockhash", "confirmations", "time", "blocktime");
      expect(await devnet.rpc("getrawtransaction", [tip.tx[0], 0])).to.be.a("string");
    });

    it("gettxout has Core 1.14's fields", async () => {
      await devnet.rpc("generatetoaddress", [1, miner.address]);
      const block = await devnet.rpc<{ tx: string[] }>("getblock", [await devnet.rpc<string>("getbestblockhash")]);
      const out = await devnet.rpc<Record<string, unknown>>("gettxout", [block.tx[0], 0]);
      expect(shape(out)).to.deep.equal({
        bestblock: "string",
        confirmations: "number",
        value: "number",
        scriptPubKey: "object",
        coinbase: "boolean",
      });
    });

    it("gettxoutsetinfo counts transactions and outputs and hashes the set as Core serializes it", async () => {
      const before = await devnet.rpc<Record<string, unknown>>("gettxoutsetinfo");
      expect(shape(before)).to.deep.equal({
        height: "number",
        bestblock: "string",
        transactions: "number",
        txouts: "number",
        hash_serialized_2: "string",
        disk_size: "number",
        total_amount: "number",
      });
      expect(before.hash_serialized_2).to.match(/^[0-9a-f]{64}$/);
      expect(before.transactions).to.equal(before.txouts); // one output per coinbase so far
      expect(await devnet.rpc("gettxoutsetinfo")).to.deep.equal(before);
      await devnet.rpc("generatetoaddress", [1, miner.address]);
      const after = await devnet.rpc<Record<string, unknown>>("gettxoutsetinfo");
      expect(after.txouts).to.equal((before.txouts as number) + 1);
      expect(after.hash_serialized_2).to.not.equal(before.hash_serialized_2);
    });

    it("estimatesmartfee answers -1 outside 1..25 blocks instead of an error; estimatefee reads 0 as 1", async () => {
      expect(await devnet.rpc("estimatesmartfee", [0])).to.deep.equal({ feerate: -1, blocks: 0 });
      expect(await devnet.rpc("estimatesmartfee", [26])).to.deep.equal({ feerate: -1, blocks: 26 });
      expect(await devnet.rpc("estimatefee", [0])).to.equal(await devnet.rpc("estimatefee", [1]));
    });

    it("generatetoaddress mines nothing for a negative count, as Core does", async () => {
      expect(await devnet.rpc("generatetoaddress", [-3, miner.address])).to.deep.equal([]);
    });

    it("getchaintips lists the highest tip first", async () => {
      const tip = await devnet.rpc<string>("getbestblockhash");
      await devnet.rpc("invalidateblock", [tip]);
      await devnet.rpc("generatetoaddress", [2, miner.address]);
      const tips = await devnet.rpc<{ height: number; status: string }[]>("getchaintips");
      expect(tips.map((t) => t.height)).to.deep.equal([...tips.map((t) => t.height)].sort((a, b) => b - a));
      expect(tips[0].status).to.equal("active");
      expect(tips.map((t) => t.status)).to.include("invalid");
    });

    it("getnetworkinfo lists ipv4, ipv6 and onion networks with Core's fields", async () => {
      const info = await devnet.rpc<{ networks: Record<string, unknown>[]; version: number }>("getnetworkinfo");
      expect(info.version).to.equal(1140700);
      expect(info.networks.map((n) => n.name)).to.deep.equal(["ipv4", "ipv6", "onion"]);
      for (const network of info.networks)
        expect(network).to.have.all.keys("name", "limited", "reachable", "proxy", "proxy_randomize_credentials");
    });
  });

  describe("devnet_setmaxtxfee", () => {
    it("refuses a fee above -maxtxfee with 256: absurdly-high-fee unless allowhighfees is set", async () => {
      const payer = newKey();
      const paid = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [payer.address, 10, true]);
      const coin = { txid: paid.txid, vout: paid.vout, value: 10n * 100_000_000n };
      const { hex } = spendP2pkh(payer, [coin], [{ script: miner.script, value: 9n * 100_000_000n }]);
      expect(await devnet.rpc("devnet_setmaxtxfee", [0.5])).to.deep.equal({ maxtxfee: 0.5 });
      try {
        expect(await rpcError(devnet.rpc("sendrawtransaction", [hex]))).to.deep.equal({
          code: -26,
          message: "256: absurdly-high-fee",
        });
        expect(await devnet.rpc("sendrawtransaction", [hex, true])).to.be.a("string");
      } finally {
        await devnet.rpc("devnet_setmaxtxfee", [100]);
      }
    });
  });

  describe("the JSON-RPC envelope", () => {
    it("takes named parameters and answers -8 for an unknown name", async () => {
      const genesis = await devnet.rpc<string>("getblockhash", [0]);
      const named = await post(JSON.stringify({ method: "getblockhash", params: { height: 0 }, id: 1 }));
      expect(named).to.deep.equal({ status: 200, json: { result: genesis, error: null, id: 1 } });
      const withHole = await post(
        JSON.stringify({ method: "getblock", params: { blockhash: genesis, verbosity: 0 }, id: 2 }),
      );
      expect((withHole.json as { result: string }).result).to.be.a("string");
      const unknown = await post(JSON.stringify({ method: "getblockhash", params: { depth: 0 }, id: 3 }));
      expect(unknown).to.deep.equal({
        status: 500,
        json: { result: null, error: { code: -8, message: "Unknown named parameter depth" }, id: 3 },
      });
    });

    it("answers Core's texts for a missing method and a top-level value that is neither object nor array", async () => {
      expect(await post(JSON.stringify({ params: [], id: 4 }))).to.deep.equal({
        status: 400,
        json: { result: null, error: { code: -32600, message: "Missing method" }, id: 4 },
      });
      expect(await post("42")).to.deep.equal({
        status: 500,
        json: { result: null, error: { code: -32700, message: "Top-level object parse error" }, id: null },
      });
      expect(await post(JSON.stringify({ method: "getblockcount", params: "x", id: 5 }))).to.deep.equal({
        status: 400,
        json: { result: null, error: { code: -32600, message: "Params must be an array or object" }, id: 5 },
      });
    });
  });
});
