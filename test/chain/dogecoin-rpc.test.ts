/**
 * Transport behaviour of the dogecoind client against a fake of dogecoind's HTTP layer
 * (src/httprpc.cpp: 401 with an empty body, RPC errors as HTTP 500 with a JSON body, 404 for
 * -32601, 400 for -32600, 503 with a text body). The result shapes are tested against the devnet.
 */
import http from "node:http";
import net from "node:net";
import { inspect } from "node:util";
import { expect } from "chai";
import fc from "fast-check";
import pino from "pino";
import {
  DogecoinRpcClient,
  DogecoinRpcError,
  RPC_IN_WARMUP,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_VERIFY_REJECTED,
  RpcAuthError,
  RpcLogger,
  RpcTimeoutError,
  RpcTransportError,
  dogeToKoinu,
  koinuToDoge,
} from "../../src/chain/dogecoin-rpc";
import { BlockRpc, RpcChainSource } from "../../src/indexer/source";

const PASSWORD = "s3cret-Pa55word";
const BLOCK_HASH = "3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5";
const TXID = "5b2a3f53f605d62c53e62932dac6925e3d74afa5a4b459745c36d42d0ed26a69";

interface SeenRequest {
  authorization: string | undefined;
  body: { jsonrpc: string; id: unknown; method: string; params: unknown[] };
}

/** What the fake answers to one request; "hang" never answers. */
type FakeReply = { status: number; json?: unknown; text?: string } | "hang";

/** Answers requests in order of arrival with `respond(request, index)`; records every request. */
class FakeDogecoind {
  readonly requests: SeenRequest[] = [];
  private readonly server: http.Server;

  constructor(respond: (request: SeenRequest, index: number) => FakeReply) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const request: SeenRequest = {
          authorization: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
        };
        this.requests.push(request);
        const reply = respond(request, this.requests.length - 1);
        if (reply === "hang") return;
        if (reply.json !== undefined)
          res.writeHead(reply.status, { "Content-Type": "application/json" }).end(JSON.stringify(reply.json) + "\n");
        else res.writeHead(reply.status, { "Content-Type": "text/plain" }).end(reply.text ?? "");
      });
    });
  }

  /** Starts listening; the socket is bound by the time the returned promise settles. */
  listen(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => resolve((this.server.address() as net.AddressInfo).port));
    });
  }

  get listening(): boolean {
    return this.server.listening;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

function ok(request: SeenRequest, result: unknown): FakeReply {
  return { status: 200, json: { result, error: null, id: request.body.id } };
}

function rpcError(request: SeenRequest, status: number, code: number, message: string): FakeReply {
  return { status, json: { result: null, error: { code, message }, id: request.body.id } };
}

/** A port nothing listens on (bound once, then released). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail");
}

describe("DogecoinRpcClient", () => {
  const fakes: FakeDogecoind[] = [];

  async function startFake(
    respond: (request: SeenRequest, index: number) => FakeReply,
  ): Promise<{ fake: FakeDogecoind; port: number }> {
    const fake = new FakeDogecoind(respond);
    fakes.push(fake);
    return { fake, port: await fake.listen() };
  }

  /** A client of the fake with credentials in the URL and fast retries. */
  function clientFor(
    port: number,
    options: Partial<ConstructorParameters<typeof DogecoinRpcClient>[0]> = {},
  ): DogecoinRpcClient {
    return new DogecoinRpcClient({
      url: `http://dogeos:${PASSWORD}@127.0.0.1:${port}/`,
      retries: 3,
      retryBaseDelayMs: 1,
      timeoutMs: 2_000,
      ...options,
    });
  }

  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  });

  describe("call", () => {
    it("posts a JSON-RPC 1.0 request with basic auth from the URL's credentials and resolves with the result", async () => {
      const { fake, port } = await startFake((request) => ok(request, 42));
      const client = clientFor(port);
      expect(await client.call<number>("getblockcount")).to.equal(42);
      expect(await client.getBlockCount()).to.equal(42);
      const [first, second] = fake.requests;
      expect(first.authorization).to.equal("Basic " + Buffer.from(`dogeos:${PASSWORD}`).toString("base64"));
      expect(first.body).to.include({ jsonrpc: "1.0", method: "getblockcount" });
      expect(first.body.params).to.deep.equal([]);
      expect(second.body.id).to.not.equal(first.body.id);
    });

    it("decodes percent-encoded URL credentials and lets username and password options override them", async () => {
      const { fake, port } = await startFake((request) => ok(request, null));
      await new DogecoinRpcClient({ url: `http://us%40er:p%3Ass@127.0.0.1:${port}/` }).call("ping");
      await new DogecoinRpcClient({
        url: `http://ignored:ignored@127.0.0.1:${port}/`,
        username: "alice",
        password: "wonder",
      }).call("ping");
      expect(
        fake.requests.map((request) => Buffer.from(request.authorization!.slice("Basic ".length), "base64").toString()),
      ).to.deep.equal(["us@er:p:ss", "alice:wonder"]);
    });

    it("throws RpcAuthError on 401 with an empty body and does not retry", async () => {
      const { fake, port } = await startFake(() => ({ status: 401 }));
      const error = await rejectionOf(clientFor(port).getBlockCount());
      expect(error).to.be.instanceOf(RpcAuthError);
      expect((error as RpcAuthError).httpStatus).to.equal(401);
      expect((error as RpcAuthError).method).to.equal("getblockcount");
      expect(fake.requests).to.have.length(1);
    });

    it("throws DogecoinRpcError with dogecoind's code and message for an HTTP 500 error body and never resends the transaction", async () => {
      const { fake, port } = await startFake((request) =>
        rpcError(request, 500, RPC_VERIFY_REJECTED, "258: txn-mempool-conflict"),
      );
      const error = await rejectionOf(clientFor(port).sendRawTransaction("0100"));
      expect(error).to.be.instanceOf(DogecoinRpcError);
      expect(error).to.include({
        code: -26,
        message: "258: txn-mempool-conflict",
        method: "sendrawtransaction",
        httpStatus: 500,
        retryable: false,
      });
      expect(fake.requests).to.have.length(1);
      expect(fake.requests[0].body.params).to.deep.equal(["0100"]);
    });

    it("reports a 404 reply as RPC_METHOD_NOT_FOUND (-32601)", async () => {
      const { fake, port } = await startFake((request) =>
        rpcError(request, 404, RPC_METHOD_NOT_FOUND, "Method not found"),
      );
      const error = await rejectionOf(clientFor(port).call("testmempoolaccept", [["00"]]));
      expect(error).to.be.instanceOf(DogecoinRpcError);
      expect(error).to.include({ code: -32601, message: "Method not found", httpStatus: 404 });
      expect(fake.requests).to.have.length(1);
    });

    it("reports a 400 reply as RPC_INVALID_REQUEST (-32600)", async () => {
      const { port } = await startFake((request) =>
        rpcError(request, 400, RPC_INVALID_REQUEST, "Params must be an array"),
      );
      const error = await rejectionOf(clientFor(port).call("getblockcount"));
      expect(error).to.include({ code: -32600, httpStatus: 400 });
    });

    it("retries after connection refused and resolves once the node listens, logging each retry without the password", async () => {
      const port = await freePort();
      const fake = new FakeDogecoind((request) => ok(request, "00".repeat(32)));
      fakes.push(fake);
      const warnings: Record<string, unknown>[] = [];
      const logger: RpcLogger = {
        warn(fields) {
          warnings.push(fields);
          // The node comes up while the client backs off (the socket binds before the retry fires).
          if (!fake.listening) void fake.listen(port);
        },
      };
      const client = clientFor(port, { logger, retryBaseDelayMs: 20 });
      expect(await client.getBestBlockHash()).to.equal("00".repeat(32));
      expect(fake.requests).to.have.length(1);
      expect(warnings.length).to.be.at.least(1);
      expect(warnings[0]).to.include({ method: "getbestblockhash", attempt: 1 });
      expect(JSON.stringify(warnings)).to.not.include(PASSWORD);
    });

    it("gives up with RpcTransportError after the retries when the connection is always refused", async () => {
      const port = await freePort();
      const error = await rejectionOf(clientFor(port, { retries: 2 }).getBlockCount());
      expect(error).to.be.instanceOf(RpcTransportError);
      expect(error).to.include({ failure: "connection", systemCode: "ECONNREFUSED", retryable: true });
      expect((error as RpcTransportError).cause).to.be.instanceOf(Error);
    });

    it("fails with RpcTimeoutError when the node never answers, after retrying the timed-out request", async () => {
      const { fake, port } = await startFake(() => "hang");
      const error = await rejectionOf(clientFor(port, { timeoutMs: 100, retries: 1 }).getBlockCount());
      expect(error).to.be.instanceOf(RpcTimeoutError);
      expect(error).to.be.instanceOf(RpcTransportError);
      expect(error).to.include({ failure: "timeout", timeoutMs: 100 });
      expect(fake.requests).to.have.length(2);
    });

    it("retries while dogecoind is warming up (-28) and resolves once it is ready", async () => {
      const { fake, port } = await startFake((request, index) =>
        index < 2 ? rpcError(request, 500, RPC_IN_WARMUP, "Loading block index...") : ok(request, 1234),
      );
      expect(await clientFor(port).getBlockCount()).to.equal(1234);
      expect(fake.requests).to.have.length(3);
    });

    it("retries a 503 with a text body and resolves once the node answers", async () => {
      const { fake, port } = await startFake((request, index) =>
        index === 0 ? { status: 503, text: "Loading block index..." } : ok(request, 7),
      );
      expect(await clientFor(port).getBlockCount()).to.equal(7);
      expect(fake.requests).to.have.length(2);
    });

    it("rethrows the -28 warm-up error once the retries are spent", async () => {
      const { fake, port } = await startFake((request) => rpcError(request, 500, RPC_IN_WARMUP, "Verifying blocks..."));
      const error = await rejectionOf(clientFor(port, { retries: 2 }).getBlockCount());
      expect(error).to.be.instanceOf(DogecoinRpcError);
      expect(error).to.include({ code: -28, message: "Verifying blocks...", retryable: true });
      expect(fake.requests).to.have.length(3);
    });

    it("treats a 200 body that is not JSON as a transport error carrying the parse error, without retrying", async () => {
      const { fake, port } = await startFake(() => ({ status: 200, text: "<html>proxy login</html>" }));
      const error = await rejectionOf(clientFor(port).getBlockCount());
      expect(error).to.be.instanceOf(RpcTransportError);
      expect(error).to.include({ failure: "invalid-response", httpStatus: 200, retryable: false });
      expect((error as RpcTransportError).cause).to.be.instanceOf(SyntaxError);
      expect(fake.requests).to.have.length(1);
    });

    it("accepts a pino logger", async () => {
      const { port } = await startFake((request) => ok(request, 1));
      expect(await clientFor(port, { logger: pino({ level: "silent" }) }).getBlockCount()).to.equal(1);
    });
  });

  describe("credentials", () => {
    it("never shows the password in toString, inspect, endpoint or error messages", async () => {
      const port = await freePort();
      const client = new DogecoinRpcClient({ url: `http://dogeos:${PASSWORD}@127.0.0.1:${port}/`, retries: 0 });
      expect(client.toString()).to.equal(`DogecoinRpcClient(http://dogeos:***@127.0.0.1:${port}/)`);
      expect(client.endpoint).to.equal(`http://dogeos:***@127.0.0.1:${port}/`);
      expect(inspect(client, { showHidden: true, depth: 5 })).to.not.include(PASSWORD);
      expect(JSON.stringify(client)).to.not.include(PASSWORD);

      const refused = await rejectionOf(client.getBlockCount());
      expect(refused.message).to.include("dogeos:***@");
      for (const text of [refused.message, String(refused), refused.stack ?? "", inspect(refused, { depth: 10 })]) {
        expect(text).to.not.include(PASSWORD);
      }

      const { port: authPort } = await startFake(() => ({ status: 401 }));
      const withOptions = new DogecoinRpcClient({
        url: `http://127.0.0.1:${authPort}/`,
        username: "dogeos",
        password: PASSWORD,
      });
      const denied = await rejectionOf(withOptions.getBlockCount());
      expect(denied.message).to.include("dogeos:***@").and.not.include(PASSWORD);
      expect(withOptions.toString()).to.not.include(PASSWORD);
    });

    it("scrubs the password from a body that echoes it", async () => {
      const { port } = await startFake(() => ({ status: 502, text: `bad gateway for dogeos:${PASSWORD}` }));
      const error = await rejectionOf(clientFor(port, { retries: 0 }).getBlockCount());
      expect(error).to.include({ failure: "http-status", httpStatus: 502 });
      expect(error.message).to.include("bad gateway").and.not.include(PASSWORD);
    });

    it("refuses a malformed URL without echoing it", () => {
      expect(() => new DogecoinRpcClient({ url: `http://dogeos:${PASSWORD}@127.0.0.1:not-a-port/` }))
        .to.throw(TypeError)
        .with.property("message")
        .that.does.not.include(PASSWORD);
    });
  });

  describe("typed methods", () => {
    function answerByMethod(results: Record<string, unknown>) {
      return (request: SeenRequest): FakeReply =>
        request.body.method in results
          ? ok(request, results[request.body.method])
          : rpcError(request, 404, RPC_METHOD_NOT_FOUND, "Method not found");
    }

    it("asks for raw blocks with getblock <hash> false, the boolean every 1.14 release accepts", async () => {
      const { fake, port } = await startFake(answerByMethod({ getblock: "01000000", getblockhash: BLOCK_HASH }));
      const client = clientFor(port);
      expect(await client.getBlockHex(BLOCK_HASH)).to.equal("01000000");
      expect(await client.getBlockHexAt(0)).to.equal("01000000");
      expect(fake.requests.map((request) => [request.body.method, request.body.params])).to.deep.equal([
        ["getblock", [BLOCK_HASH, false]],
        ["getblockhash", [0]],
        ["getblock", [BLOCK_HASH, false]],
      ]);
    });

    it("asks for raw transactions with getrawtransaction <txid> 0 and verbose ones with 1", async () => {
      const { fake, port } = await startFake((request) =>
        ok(request, request.body.params[1] === 0 ? "0100" : { txid: TXID }),
      );
      const client = clientFor(port);
      expect(await client.getRawTransactionHex(TXID)).to.equal("0100");
      expect((await client.getRawTransactionVerbose(TXID)).txid).to.equal(TXID);
      expect(fake.requests.map((request) => request.body.params)).to.deep.equal([
        [TXID, 0],
        [TXID, 1],
      ]);
    });

    it("sends dogecoind's parameters for verbose blocks, headers, outputs, mining and fee estimates", async () => {
      const { fake, port } = await startFake((request) => ok(request, null));
      const client = clientFor(port);
      await client.getBlockVerbose(BLOCK_HASH);
      await client.getBlockHeader(BLOCK_HASH);
      await client.getBlockHeader(BLOCK_HASH, false);
      await client.getTxOut(TXID, 1);
      await client.generateToAddress(2, "mzBc4XEFSdzCDcTxAgf6EZXgsZWpztRhef");
      await client.estimateSmartFee(6);
      await client.sendRawTransaction("0100", true);
      await client.invalidateBlock(BLOCK_HASH);
      expect(fake.requests.map((request) => [request.body.method, request.body.params])).to.deep.equal([
        ["getblock", [BLOCK_HASH, true]],
        ["getblockheader", [BLOCK_HASH, true]],
        ["getblockheader", [BLOCK_HASH, false]],
        ["gettxout", [TXID, 1, true]],
        ["generatetoaddress", [2, "mzBc4XEFSdzCDcTxAgf6EZXgsZWpztRhef"]],
        ["estimatesmartfee", [6]],
        ["sendrawtransaction", ["0100", true]],
        ["invalidateblock", [BLOCK_HASH]],
      ]);
    });

    it("resolves getTxOut with null for a spent or unknown output", async () => {
      const { port } = await startFake((request) => ok(request, null));
      expect(await clientFor(port).getTxOut(TXID, 0)).to.equal(null);
    });

    it("serves the indexer's RpcChainSource, which reads -8 above the tip as no block", async () => {
      const { port } = await startFake((request) =>
        request.body.method === "getblockhash" && (request.body.params[0] as number) > 5
          ? rpcError(request, 500, -8, "Block height out of range")
          : ok(request, request.body.method === "getblockcount" ? 5 : BLOCK_HASH),
      );
      const rpc: BlockRpc = clientFor(port);
      const source = new RpcChainSource(rpc);
      expect(await source.getTipHeight()).to.equal(5);
      expect(await source.getBlockHash(5)).to.equal(BLOCK_HASH);
      expect(await source.getBlockHash(6)).to.equal(null);
    });
  });
});

describe("dogeToKoinu", () => {
  /** An amount as dogecoind prints it: a JSON number with exactly eight decimals. */
  function dogecoindJson(koinu: bigint): string {
    const magnitude = koinu < 0n ? -koinu : koinu;
    return `${koinu < 0n ? "-" : ""}${magnitude / 100_000_000n}.${(magnitude % 100_000_000n).toString().padStart(8, "0")}`;
  }

  it("turns 0.1 + 0.2 into exactly 30,000,000 koinu", () => {
    expect(0.1 + 0.2).to.not.equal(0.3);
    expect(dogeToKoinu(0.1 + 0.2)).to.equal(30_000_000n);
    expect(dogeToKoinu(0.3)).to.equal(30_000_000n);
    expect(dogeToKoinu(1.1 * 3)).to.equal(330_000_000n);
  });

  it("converts the genesis 88 DOGE, the 500,000 DOGE subsidy and 21.00000001 DOGE exactly", () => {
    expect(dogeToKoinu(88)).to.equal(8_800_000_000n);
    expect(dogeToKoinu(500_000)).to.equal(50_000_000_000_000n);
    expect(dogeToKoinu(21.00000001)).to.equal(2_100_000_001n);
    expect(dogeToKoinu(0.00000001)).to.equal(1n);
    expect(dogeToKoinu(0.001)).to.equal(100_000n);
    expect(dogeToKoinu(-1)).to.equal(-100_000_000n);
    expect(dogeToKoinu(0)).to.equal(0n);
  });

  it("round-trips every koinu amount below 2^26 DOGE through dogecoind's eight-decimal JSON and koinuToDoge", () => {
    const limit = (1n << 26n) * 100_000_000n - 1n;
    fc.assert(
      fc.property(fc.bigInt({ min: -limit, max: limit }), (koinu) => {
        expect(dogeToKoinu(JSON.parse(dogecoindJson(koinu)))).to.equal(koinu);
        expect(dogeToKoinu(koinuToDoge(koinu))).to.equal(koinu);
      }),
      { numRuns: 2_000, examples: [[limit], [-limit], [1n], [99_999_999n], [2_100_000_001n]] },
    );
  });

  it("refuses NaN and infinities", () => {
    expect(() => dogeToKoinu(Number.NaN)).to.throw(RangeError);
    expect(() => dogeToKoinu(Number.POSITIVE_INFINITY)).to.throw(RangeError);
  });
});
