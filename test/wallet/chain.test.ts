import { expect } from "chai";
import { DogecoinRpcClient, DogecoinRpcError, RpcTimeoutError, RpcTransportError } from "../../src/chain/dogecoin-rpc";
import { bytesToHex, serializeTransaction, txidOf } from "../../src/doge";
import { IndexQueries } from "../../src/indexer/queries";
import { BroadcastError, classifyBroadcastError, indexNodeChain } from "../../src/wallet";
import { newKey, spendP2pkh } from "../helpers/keys";

const rpcError = (code: number, message: string) =>
  new DogecoinRpcError(code, message, "sendrawtransaction", "http://127.0.0.1:18332/", 500);

describe("the wallet's chain view over the index and the node", () => {
  describe("classifyBroadcastError", () => {
    const cases: [string, unknown, string][] = [
      ["-27 already in chain", rpcError(-27, "transaction already in block chain"), "success"],
      ["-26 txn-already-in-mempool", rpcError(-26, "258: txn-already-in-mempool"), "success"],
      ["-26 txn-already-known", rpcError(-26, "257: txn-already-known"), "success"],
      ["-26 already known", rpcError(-26, "already known"), "success"],
      ["-26 txn-mempool-conflict", rpcError(-26, "258: txn-mempool-conflict"), "conflict"],
      ["-26 bad-txns-inputs-spent", rpcError(-26, "18: bad-txns-inputs-spent"), "conflict"],
      ["-25 missing inputs", rpcError(-25, "Missing inputs"), "missing_inputs"],
      ["-26 insufficient fee", rpcError(-26, "66: insufficient fee"), "insufficient_fee"],
      ["-26 mempool min fee not met", rpcError(-26, "66: mempool min fee not met"), "insufficient_fee"],
      ["-26 min relay fee not met", rpcError(-26, "66: min relay fee not met"), "insufficient_fee"],
      ["-26 dust", rpcError(-26, "64: dust"), "rejected"],
      [
        "-26 a script failure",
        rpcError(
          -26,
          "16: mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)",
        ),
        "rejected",
      ],
      ["-22 decode failure", rpcError(-22, "TX decode failed"), "rejected"],
      ["-28 warm-up", rpcError(-28, "Loading block index..."), "unavailable"],
      [
        "a refused connection",
        new RpcTransportError("refused", "sendrawtransaction", "x", "connection"),
        "unavailable",
      ],
      ["a timeout", new RpcTimeoutError("sendrawtransaction", "x", 10), "unavailable"],
      ["anything else", new Error("boom"), "unavailable"],
    ];
    for (const [what, error, kind] of cases) {
      it(`maps ${what} to ${kind}`, () => {
        expect(classifyBroadcastError(error)).to.equal(kind);
      });
    }
  });

  describe("indexNodeChain", () => {
    const key = newKey();
    const { hex, tx } = spendP2pkh(
      key,
      [{ txid: "ab".repeat(32), vout: 1, value: 100_000_000n }],
      [{ value: 99_000_000n, script: key.script }],
    );
    const txid = txidOf(tx);

    function fakeRpc(
      behaviour: Partial<
        Record<
          "sendRawTransaction" | "call" | "getRawTransactionVerbose" | "getBlockHeader",
          (...args: unknown[]) => Promise<unknown>
        >
      >,
    ) {
      return behaviour as unknown as DogecoinRpcClient;
    }

    function fakeQueries(options: { utxos?: number; tx?: { height: number } | null; indexedHeight?: number } = {}) {
      const total = options.utxos ?? 0;
      return {
        utxos: (_address: string, after: { height: number; txid: string; vout: number } | null, pageSize: number) => {
          const start = after ? after.vout + 1 : 0;
          const items = Array.from({ length: Math.max(0, Math.min(pageSize, total - start)) }, (_, i) => ({
            txid: "cd".repeat(32),
            vout: start + i,
            valueKoinu: BigInt(start + i + 1),
            height: 10,
            scriptHex: bytesToHex(key.script),
            inscriptions: start + i === 5 ? [{ id: `${"ef".repeat(32)}i0`, offset: 0, contentType: "text/plain" }] : [],
            drc20: start + i === 5 ? [{ tick: "dogi", amount: "7" }] : [],
          }));
          return { total, items };
        },
        // The real pager over the fake pages: every page is read.
        allUtxos: IndexQueries.prototype.allUtxos,
        tx: () => options.tx ?? null,
        status: () => ({ indexedHeight: options.indexedHeight ?? 0 }),
      } as unknown as IndexQueries;
    }

    it("reads every page of the address's outputs, with what they carry", async () => {
      const chain = indexNodeChain(fakeQueries({ utxos: 2501 }), fakeRpc({}));
      const utxos = await chain.confirmedUtxos(key.address);
      expect(utxos).to.have.length(2501);
      expect(new Set(utxos.map((u) => u.vout)).size).to.equal(2501);
      expect(utxos[5]).to.deep.include({
        inscriptionIds: [`${"ef".repeat(32)}i0`],
        drc20: [{ tick: "dogi", amount: "7" }],
      });
      expect(utxos[6]).to.deep.include({ inscriptionIds: [], drc20: [] });
    });

    it("takes confirmations from the index's height", async () => {
      const chain = indexNodeChain(fakeQueries({ tx: { height: 100 }, indexedHeight: 105 }), fakeRpc({}));
      expect(await chain.txStatus(txid)).to.deep.equal({ state: "confirmed", height: 100, confirmations: 6 });
    });

    it("falls back to the node's mempool, then to the node's chain, else unknown", async () => {
      const notFound = () => Promise.reject(new DogecoinRpcError(-5, "not found", "x", "y", 500));
      const inMempool = indexNodeChain(fakeQueries(), fakeRpc({ call: () => Promise.resolve({ size: 1 }) }));
      expect(await inMempool.txStatus(txid)).to.deep.equal({ state: "mempool" });
      const inBlock = indexNodeChain(
        fakeQueries(),
        fakeRpc({
          call: notFound,
          getRawTransactionVerbose: () => Promise.resolve({ blockhash: "11".repeat(32), confirmations: 2 }),
          getBlockHeader: () => Promise.resolve({ height: 42, confirmations: 2 }),
        }),
      );
      expect(await inBlock.txStatus(txid)).to.deep.equal({ state: "confirmed", height: 42, confirmations: 2 });
      const nowhere = indexNodeChain(fakeQueries(), fakeRpc({ call: notFound, getRawTransactionVerbose: notFound }));
      expect(await nowhere.txStatus(txid)).to.deep.equal({ state: "unknown" });
      const down = indexNodeChain(
        fakeQueries(),
        fakeRpc({ call: () => Promise.reject(new RpcTransportError("refused", "x", "y", "connection")) }),
      );
      let thrown: unknown;
      await down.txStatus(txid).catch((error) => {
        thrown = error;
      });
      expect(thrown).to.be.instanceOf(RpcTransportError);
    });

    it("broadcasts, answering the txid when the node has it already and a BroadcastError with the kind otherwise", async () => {
      const accepted = indexNodeChain(fakeQueries(), fakeRpc({ sendRawTransaction: () => Promise.resolve(txid) }));
      expect(await accepted.broadcast(hex)).to.equal(txid);
      const known = indexNodeChain(
        fakeQueries(),
        fakeRpc({ sendRawTransaction: () => Promise.reject(rpcError(-27, "transaction already in block chain")) }),
      );
      expect(await known.broadcast(hex)).to.equal(txid);
      const conflict = indexNodeChain(
        fakeQueries(),
        fakeRpc({ sendRawTransaction: () => Promise.reject(rpcError(-26, "258: txn-mempool-conflict")) }),
      );
      let thrown: unknown;
      await conflict.broadcast(hex).catch((error) => {
        thrown = error;
      });
      expect(thrown).to.be.instanceOf(BroadcastError);
      expect(thrown).to.include({ reason: "conflict", nodeCode: -26 });
      await conflict.broadcast(bytesToHex(serializeTransaction(tx)).slice(0, 20)).catch((error) => {
        thrown = error;
      });
      expect(thrown).to.include({ reason: "rejected" });
    });
  });
});
