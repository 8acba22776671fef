/**
 * The error base (src/errors.ts): kind -> HTTP status once, the retry table for outside failures,
 * cause chains, and the relayer's L2 boundary (guardL2).
 */
import { expect } from "chai";
import express from "express";
import type { AddressInfo } from "node:net";
import { makeError } from "ethers";
import {
  DogeosError,
  ERROR_KINDS,
  ExternalCallError,
  Refusal,
  causeChain,
  classifyExternalFailure,
  failureFromExternal,
  isRetryable,
  walkCauses,
} from "../../src/errors";
import type { ErrorKind } from "../../src/errors";
import {
  STATUS_OF_KIND,
  absentOrBehind,
  errorMiddleware,
  kindOfStatus,
  statusOf,
} from "../../src/services/http/errors";
import { DogecoinRpcError, RpcTimeoutError, RpcTransportError } from "../../src/chain/errors";
import { ContractRefusedError, guardL2 } from "../../src/relayer/l2";
import type { RelayerL2 } from "../../src/relayer/l2";
import { BroadcastError, InsufficientFundsError } from "../../src/wallet/types";
import { listenLocal } from "../helpers/listen";

describe("errors", () => {
  describe("kind -> HTTP status (services/http/errors.ts)", () => {
    const table: [ErrorKind, number][] = [
      ["invalid", 400],
      ["unauthorized", 401],
      ["forbidden", 403],
      ["not_found", 404],
      ["conflict", 409],
      ["gone", 410],
      ["unprocessable", 422],
      ["rate_limited", 429],
      ["internal", 500],
      ["upstream", 502],
      ["unavailable", 503],
    ];

    it("maps every kind to its status, and the status back to the kind", () => {
      expect(Object.keys(STATUS_OF_KIND).sort()).to.deep.equal([...ERROR_KINDS].sort());
      for (const [kind, status] of table) {
        expect(statusOf(new Refusal(kind, "X", "x")), kind).to.equal(status);
        expect(kindOfStatus(status), String(status)).to.equal(kind);
      }
      expect(kindOfStatus(413)).to.equal("invalid");
      expect(kindOfStatus(504)).to.equal("upstream");
    });

    it("answers a refusal with its status, code, message, details and headers, and anything else (a DogeosError too) with 500 INTERNAL", async () => {
      const logged: string[] = [];
      const app = express();
      app.get("/refused", () => {
        throw new Refusal("conflict", "DUPLICATE", "already there", { id: 1 });
      });
      app.get("/behind", () => {
        throw absentOrBehind({ indexedHeight: 5, nodeHeight: 9, replica: null } as never, "NOPE", "no such thing", {
          id: 2,
        });
      });
      app.get("/internal", () => {
        throw new DogeosError("conflict", "WALLET_CONFLICT", "a secret");
      });
      app.get("/signed-in", () => {
        throw new Refusal("unauthorized", "NO_TOKEN", "sign in first", undefined, { challenge: "Bearer" });
      });
      app.use(errorMiddleware((event) => logged.push(event)));
      const { server } = await listenLocal(app);
      try {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const refused = await fetch(`${base}/refused`);
        expect(refused.status).to.equal(409);
        expect(await refused.text()).to.equal(
          '{"error":{"code":"DUPLICATE","message":"already there","details":{"id":1}}}',
        );
        const behind = await fetch(`${base}/behind`);
        expect([behind.status, behind.headers.get("retry-after")]).to.deep.equal([503, "5"]);
        expect((await behind.json()).error).to.deep.include({ code: "INDEX_BEHIND" });
        const signedIn = await fetch(`${base}/signed-in`);
        expect([signedIn.status, signedIn.headers.get("www-authenticate")]).to.deep.equal([401, "Bearer"]);
        expect(signedIn.headers.get("retry-after")).to.equal(null);
        const internal = await fetch(`${base}/internal`);
        expect(internal.status).to.equal(500);
        expect(await internal.json()).to.deep.equal({ error: { code: "INTERNAL", message: "internal error" } });
        expect(logged).to.deep.equal(["http_internal_error"]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe("Refusal", () => {
    it("says when to ask again and which credentials to present in its own words, never as headers", () => {
      const refusal = new Refusal("conflict", "PENDING", "not yet", undefined, { retryAfterSeconds: 10 });
      expect(refusal).to.include({ retryAfterSeconds: 10, challenge: undefined });
      expect(() => new Refusal("conflict", "PENDING", "not yet", undefined, { retryAfterSeconds: 1.5 })).to.throw(
        RangeError,
      );
    });
  });

  describe("DogeosError", () => {
    it("carries kind, code, details, cause and a retryable that defaults to the kind's", () => {
      const cause = new Error("socket hang up");
      const error = new DogeosError("unavailable", "NODE_DOWN", "the node is down", { details: { node: "a" }, cause });
      expect(error).to.include({
        kind: "unavailable",
        code: "NODE_DOWN",
        message: "the node is down",
        shortMessage: "the node is down",
        retryable: true,
        name: "DogeosError",
      });
      expect(error.details).to.deep.equal({ node: "a" });
      expect(error.cause).to.equal(cause);
      expect(new DogeosError("conflict", "C", "c").retryable).to.equal(false);
      expect(new DogeosError("rate_limited", "R", "r").retryable).to.equal(true);
      expect(new DogeosError("unavailable", "U", "u", { retryable: false }).retryable).to.equal(false);
      expect(new Refusal("not_found", "N", "n"))
        .to.include({ name: "Refusal" })
        .and.be.instanceOf(DogeosError);
    });

    it("keeps cause chains: walk finds a cause by a predicate or the innermost one, and stops at a cycle", () => {
      const root = makeError("connect ECONNREFUSED", "NETWORK_ERROR", { event: "x" });
      const middle = failureFromExternal("L2", root);
      const outer = new Refusal("unavailable", "L2_UNAVAILABLE", "the L2 could not be read", undefined, {
        cause: middle,
      });
      expect(causeChain(outer)).to.deep.equal([outer, middle, root]);
      expect(outer.walk()).to.equal(root);
      expect(outer.walk((e) => e instanceof ExternalCallError)).to.equal(middle);
      expect(outer.walk((e) => e instanceof RangeError)).to.equal(null);
      const a = new Error("a");
      const b = new Error("b", { cause: a });
      (a as { cause?: unknown }).cause = b;
      expect(causeChain(b)).to.deep.equal([b, a]);
      expect(walkCauses(b)).to.equal(a);
    });

    it("puts the project's error classes on the base with their codes", () => {
      expect(new BroadcastError("missing_inputs", "m", -25)).to.include({
        reason: "missing_inputs",
        code: "BROADCAST_MISSING_INPUTS",
        kind: "unprocessable",
        retryable: false,
      });
      expect(new BroadcastError("unavailable", "u")).to.include({ code: "BROADCAST_UNAVAILABLE", retryable: true });
      expect(new InsufficientFundsError(10n, 2n)).to.include({ code: "INSUFFICIENT_FUNDS", retryable: true });
      expect(new ContractRefusedError("reverted", "JobNotOpen()")).to.include({
        code: "CONTRACT_REFUSED",
        retryable: false,
        revert: "JobNotOpen()",
      });
      expect(new DogecoinRpcError(-28, "Loading block index...", "getblockcount", "http://node", 500))
        .to.be.instanceOf(DogeosError)
        .and.include({ code: -28, retryable: true });
      expect(new DogecoinRpcError(-26, "dust", "sendrawtransaction", "http://node", 500)).to.include({
        retryable: false,
      });
      expect(new RpcTimeoutError("getblock", "http://node", 100)).to.include({ retryable: true });
      expect(
        new RpcTransportError("not JSON-RPC", "getblock", "http://node", "invalid-response", { httpStatus: 200 }),
      ).to.include({ retryable: false });
    });
  });

  describe("the retry table for outside calls (classifyExternalFailure)", () => {
    const system = (code: string) => Object.assign(new Error(`connect ${code}`), { code });
    const cases: [string, unknown, string, boolean][] = [
      ["ethers NETWORK_ERROR", makeError("no network", "NETWORK_ERROR", { event: "x" }), "NETWORK_ERROR", true],
      ["ethers TIMEOUT", makeError("timeout", "TIMEOUT", { operation: "wait" } as never), "TIMEOUT", true],
      [
        "ethers SERVER_ERROR",
        makeError("bad gateway", "SERVER_ERROR", { request: null as never, response: null as never }),
        "SERVER_ERROR",
        true,
      ],
      [
        "ethers NONCE_EXPIRED (a nonce race)",
        makeError("nonce too low", "NONCE_EXPIRED", { transaction: {} }),
        "NONCE_EXPIRED",
        true,
      ],
      [
        "ethers REPLACEMENT_UNDERPRICED",
        makeError("underpriced", "REPLACEMENT_UNDERPRICED", { transaction: {} }),
        "REPLACEMENT_UNDERPRICED",
        true,
      ],
      [
        "ethers CALL_EXCEPTION (a revert)",
        makeError("execution reverted", "CALL_EXCEPTION", {
          action: "call",
          data: "0x",
          reason: null,
          transaction: { data: "0x" },
          invocation: null,
          revert: null,
        } as never),
        "CALL_EXCEPTION",
        false,
      ],
      ["ethers BAD_DATA", makeError("could not decode", "BAD_DATA", { value: "0x" }), "BAD_DATA", false],
      [
        "ethers INVALID_ARGUMENT",
        makeError("bad address", "INVALID_ARGUMENT", { argument: "a", value: 1 }),
        "INVALID_ARGUMENT",
        false,
      ],
      [
        "Hardhat's revert",
        Object.assign(new Error("VM Exception while processing transaction: reverted with custom error 'X()'"), {
          data: "0x12345678",
        }),
        "REVERT",
        false,
      ],
      ["ECONNREFUSED", system("ECONNREFUSED"), "ECONNREFUSED", true],
      [
        "ECONNRESET as a fetch cause",
        new TypeError("fetch failed", { cause: system("ECONNRESET") }),
        "ECONNRESET",
        true,
      ],
      ["fetch failed without a cause", new TypeError("fetch failed"), "NETWORK_ERROR", true],
      ["an aborted fetch", Object.assign(new Error("aborted"), { name: "AbortError" }), "TIMEOUT", true],
      ["HTTP 503", Object.assign(new Error("503"), { status: 503 }), "HTTP_503", true],
      ["HTTP 429", Object.assign(new Error("429"), { status: 429 }), "HTTP_429", true],
      ["HTTP 408", Object.assign(new Error("408"), { status: 408 }), "HTTP_408", true],
      ["HTTP 404", Object.assign(new Error("404"), { status: 404 }), "HTTP_404", false],
      ["HTTP 400", Object.assign(new Error("400"), { status: 400 }), "HTTP_400", false],
      [
        "a DogeosError keeps its own",
        new DogecoinRpcError(-28, "warming up", "getblockcount", "http://node", 500),
        "-28",
        true,
      ],
    ];
    for (const [name, error, code, retryable] of cases) {
      it(`${name}: ${code}, ${retryable ? "retryable" : "not retryable"}`, () => {
        expect(classifyExternalFailure(error)).to.deep.include({ code, retryable });
        expect(isRetryable(failureFromExternal("SVC", error))).to.equal(retryable);
      });
    }

    it("knows nothing of a plain bug, which failureFromExternal wraps as <service>_FAILED, not retryable", () => {
      const bug = new TypeError("cannot read properties of undefined");
      expect(classifyExternalFailure(bug)).to.equal(null);
      const wrapped = failureFromExternal("INSCRIBER", bug);
      expect(wrapped).to.include({ code: "INSCRIBER_FAILED", retryable: false, kind: "upstream" });
      expect(wrapped.cause).to.equal(bug);
    });
  });

  describe("guardL2, the relayer's L2 boundary", () => {
    const fake = () => {
      const l2 = {
        failure: null as unknown,
        async head() {
          if (this.failure) throw this.failure;
          return 7;
        },
        async submitFact() {
          return {
            hash: "0xaa",
            wait: async () => {
              throw makeError("timeout", "TIMEOUT", { operation: "wait" } as never);
            },
          };
        },
        async checkSettle() {
          throw new ContractRefusedError("reverted", "JobNotOpen()");
        },
      };
      return l2;
    };

    it("wraps the table's failures with the original as cause, and lets refusals and bugs through unchanged", async () => {
      const inner = fake();
      const l2 = guardL2(inner as unknown as RelayerL2);
      expect(await l2.head()).to.equal(7);
      const reset = makeError("socket hang up", "NETWORK_ERROR", { event: "request" });
      inner.failure = reset;
      const error = await l2.head().catch((e: unknown) => e);
      expect(error)
        .to.be.instanceOf(ExternalCallError)
        .and.include({ code: "L2_NETWORK_ERROR", retryable: true, kind: "unavailable" });
      expect((error as Error).cause).to.equal(reset);
      inner.failure = new RangeError("a bug");
      expect(await l2.head().catch((e: unknown) => e)).to.equal(inner.failure);
      // A method replaced after guarding is the one called.
      inner.head = async () => 9;
      expect(await l2.head()).to.equal(9);
      const refused = await l2.checkSettle("inscription", "0x", {} as never, []).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(ContractRefusedError);
      const sent = await l2.submitFact({} as never, []);
      expect(await sent.wait().catch((e: unknown) => e)).to.include({ code: "L2_TIMEOUT", retryable: true });
    });
  });
});
