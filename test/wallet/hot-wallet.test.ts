import { expect } from "chai";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  NETWORKS,
  Transaction,
  TxOutput,
  bytesToHex,
  hexToBytes,
  nullDataScript,
  parseTransaction,
} from "../../src/doge";
import type { Sqlite } from "../../src/db/sqlite";
import {
  BroadcastError,
  CONFLICT_HOLD_MS,
  CarrierNotAvailableError,
  ChainTxStatus,
  ChainUtxo,
  FundedTx,
  HotWallet,
  InsufficientFundsError,
  InvalidOutputError,
  MAX_FEE_RATE_FACTOR,
  RECOMMENDED_FEE_RATE,
  WalletChain,
  WalletConflictError,
  WalletKey,
  WalletTx,
  dogecoinFee,
  openWalletDatabase,
  walletKeyFromPrivateKey,
} from "../../src/wallet";
import { newKey, spendP2pkh } from "../helpers/keys";
import { runEvery } from "../../src/ops/loop";

const DOGE = 100_000_000n;
const regtest = NETWORKS.regtest;

/** A chain whose index, mempool and node answers the test sets. */
class FakeChain implements WalletChain {
  utxos: ChainUtxo[] = [];
  readonly statuses = new Map<string, ChainTxStatus>();
  readonly mempool = new Set<string>();
  readonly sent: string[] = [];
  refuse: (txid: string) => BroadcastError | null = () => null;
  utxoCalls = 0;
  failUtxoCall: number | null = null;
  private active = 0;
  maxActive = 0;

  async confirmedUtxos(): Promise<ChainUtxo[]> {
    this.utxoCalls += 1;
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.failUtxoCall === this.utxoCalls) throw new Error("index unreachable");
      return this.utxos.map((utxo) => ({ ...utxo }));
    } finally {
      this.active -= 1;
    }
  }

  async txStatus(txid: string): Promise<ChainTxStatus> {
    return this.statuses.get(txid) ?? (this.mempool.has(txid) ? { state: "mempool" } : { state: "unknown" });
  }

  async broadcast(hex: string): Promise<string> {
    const txid = decode(hex).txid;
    const refusal = this.refuse(txid);
    if (refusal) throw refusal;
    this.sent.push(txid);
    this.mempool.add(txid);
    return txid;
  }

  /** Confirms `txid` and lists its outputs paying `script` as the index would. */
  confirm(hex: string, height: number, confirmations: number, script: Uint8Array): void {
    const tx = decode(hex);
    this.mempool.delete(tx.txid);
    this.statuses.set(tx.txid, { state: "confirmed", height, confirmations });
    const spent = new Set(tx.inputs.map((input) => `${input.prevTxid}:${input.vout}`));
    this.utxos = this.utxos.filter((utxo) => !spent.has(`${utxo.txid}:${utxo.vout}`));
    tx.outputs.forEach((output, vout) => {
      if (bytesToHex(output.script) === bytesToHex(script))
        this.utxos.push(utxoOf(tx.txid, vout, output.value, script, height));
    });
  }
}

function decode(hex: string) {
  const parsed = parseTransaction(hexToBytes(hex));
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

function utxoOf(
  txid: string,
  vout: number,
  valueKoinu: bigint,
  script: Uint8Array,
  height = 10,
  carries: Partial<ChainUtxo> = {},
): ChainUtxo {
  return { txid, vout, valueKoinu, height, scriptHex: bytesToHex(script), inscriptionIds: [], drc20: [], ...carries };
}

const randomTxid = () => bytesToHex(randomBytes(32));
const inputsOf = (tx: Transaction | FundedTx) =>
  ("tx" in tx ? tx.tx : tx).inputs.map((input) => `${input.prevTxid}:${input.vout}`);

interface Harness {
  wallet: HotWallet;
  chain: FakeChain;
  key: WalletKey;
  events: string[];
  logs: { event: string; fields: Record<string, unknown> }[];
  clock: { now: number };
  coin(valueKoinu: bigint, carries?: Partial<ChainUtxo>): ChainUtxo;
}

function harness(
  options: {
    maxUnconfirmedDepth?: number;
    throwingHandlers?: boolean;
    db?: Sqlite;
    key?: WalletKey;
    chain?: FakeChain;
  } = {},
): Harness {
  const key = options.key ?? walletKeyFromPrivateKey(newKey().privateKey, regtest);
  const chain = options.chain ?? new FakeChain();
  const events: string[] = [];
  const logs: Harness["logs"] = [];
  const clock = { now: 1_000_000 };
  const record = (line: string) => {
    events.push(line);
    if (options.throwingHandlers) throw new Error("handler bug");
  };
  const wallet = new HotWallet({
    db: options.db ?? openWalletDatabase(":memory:"),
    key,
    chain,
    network: regtest,
    now: () => clock.now,
    maxUnconfirmedDepth: options.maxUnconfirmedDepth,
    log: (event, fields) => logs.push({ event, fields }),
    events: {
      onConfirmed: (tx: WalletTx) => record(`confirmed ${tx.label} ${tx.confirmations}`),
      onReplaced: (previous: WalletTx, replacement: WalletTx) =>
        record(`replaced ${previous.label} ${previous.txid.slice(0, 8)}>${replacement.txid.slice(0, 8)}`),
      onFailed: (tx: WalletTx) => record(`failed ${tx.label}`),
    },
  });
  return {
    wallet,
    chain,
    key,
    events,
    logs,
    clock,
    coin(valueKoinu, carries = {}) {
      const utxo = utxoOf(randomTxid(), 0, valueKoinu, key.script, 10, carries);
      chain.utxos.push(utxo);
      return utxo;
    },
  };
}

const stranger = newKey();
const pay = (koinu: bigint): TxOutput => ({ value: koinu, script: stranger.script });
const short = (txid: string) => txid.slice(0, 8);

describe("HotWallet", () => {
  describe("selection", () => {
    it("keeps chains of unconfirmed transactions within maxUnconfirmedDepth", async () => {
      const h = harness({ maxUnconfirmedDepth: 3 });
      h.coin(100n * DOGE);
      await h.wallet.sync();
      const chain: FundedTx[] = [];
      for (let i = 0; i < 3; i++) chain.push(h.wallet.fund(`job-${i}`, "x", [pay(DOGE)]));
      expect(inputsOf(chain[1])).to.deep.equal([`${chain[0].txid}:1`]);
      expect(inputsOf(chain[2])).to.deep.equal([`${chain[1].txid}:1`]);
      try {
        h.wallet.fund("job-3", "x", [pay(DOGE)]);
        expect.fail("funded a fourth transaction in the chain");
      } catch (error) {
        expect(error).to.be.instanceOf(InsufficientFundsError);
        expect((error as InsufficientFundsError).availableKoinu).to.equal(0n);
      }
      expect(h.wallet.balance()).to.include({ confirmedKoinu: 0n, spendableUtxos: 0 });
    });

    it("counts the unconfirmed ancestors of every input against the limit", async () => {
      for (const [limit, fits] of [
        [4, false],
        [5, true],
      ] as const) {
        const h = harness({ maxUnconfirmedDepth: limit });
        h.coin(10n * DOGE);
        h.coin(10n * DOGE);
        await h.wallet.sync();
        for (const job of ["a1", "b1", "a2", "b2"]) h.wallet.fund(job, "x", [pay(DOGE)]);
        // Two chains of two: a transaction spending both tips would have 1 + 2 + 2 unconfirmed ancestors.
        const fund = () => h.wallet.fund("both", "x", [pay(12n * DOGE)]);
        if (fits) expect(inputsOf(fund())).to.have.length(2);
        else expect(fund).to.throw(InsufficientFundsError);
      }
    });

    it("prefers one confirmed coin that pays everything, the smallest such", async () => {
      const h = harness();
      h.coin(50n * DOGE);
      const small = h.coin(3n * DOGE);
      h.coin(DOGE);
      await h.wallet.sync();
      expect(inputsOf(h.wallet.fund("j", "x", [pay(2n * DOGE)]))).to.deep.equal([`${small.txid}:0`]);
      // 52 DOGE needs several: largest first.
      expect(inputsOf(h.wallet.fund("k", "x", [pay(50n * DOGE + DOGE / 2n)])).length).to.equal(2);
    });

    it("refuses dust but accepts an OP_RETURN output of value 0", async () => {
      const h = harness();
      h.coin(10n * DOGE);
      await h.wallet.sync();
      expect(() =>
        h.wallet.fund("j", "x", [{ value: 1n, script: nullDataScript(Uint8Array.of(1)) }, pay(DOGE)]),
      ).to.throw(InvalidOutputError);
      expect(() => h.wallet.fund("j", "x", [pay(-1n)])).to.throw(InvalidOutputError);
      const funded = h.wallet.fund("j", "x", [
        { value: 0n, script: nullDataScript(Uint8Array.of(1, 2, 3)) },
        pay(DOGE),
      ]);
      const tx = decode(funded.hex);
      expect(funded.feeKoinu).to.equal(dogecoinFee(tx.size, tx.outputs));
      expect(funded.feeKoinu).to.equal(BigInt(tx.size) * 1000n);
    });

    it("adds extraBytes to the size it pays for", async () => {
      const h = harness();
      h.coin(10n * DOGE);
      h.coin(10n * DOGE);
      await h.wallet.sync();
      const plain = h.wallet.fund("a", "x", [pay(DOGE)]);
      const padded = h.wallet.fund("b", "x", [pay(DOGE)], { extraBytes: 150 });
      expect(padded.feeKoinu - plain.feeKoinu).to.equal((150n * RECOMMENDED_FEE_RATE) / 1000n);
    });
  });

  describe("the index's view", () => {
    it("locks an output carrying a DRC-20 transfer or an inscription, and forgets outputs the index stops listing", async () => {
      const h = harness();
      const drc20 = h.coin(5n * DOGE, { drc20: [{ tick: "dogi", amount: "10" }] });
      h.coin(7n * DOGE, { inscriptionIds: [`${randomTxid()}i0`] });
      const plain = h.coin(DOGE);
      await h.wallet.sync();
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: DOGE,
        unconfirmedKoinu: 0n,
        lockedKoinu: 12n * DOGE,
        spendableUtxos: 1,
      });
      expect(() => h.wallet.fund("j", "x", [pay(2n * DOGE)])).to.throw(InsufficientFundsError);
      h.chain.utxos = h.chain.utxos.filter((utxo) => utxo !== plain && utxo !== drc20);
      await h.wallet.sync();
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 0n,
        unconfirmedKoinu: 0n,
        lockedKoinu: 7n * DOGE,
        spendableUtxos: 0,
      });
    });

    it("confirms change in place when the index reports it, and takes it back to unconfirmed after a reorg", async () => {
      const h = harness();
      h.coin(10n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("j", "x", [pay(DOGE)]);
      const change = funded.tx.outputs[1].value;
      await h.wallet.broadcast(funded.txid);
      expect(h.wallet.balance()).to.include({ confirmedKoinu: 0n, unconfirmedKoinu: change });
      h.chain.confirm(funded.hex, 11, 1, h.key.script);
      await h.wallet.sync();
      expect(h.wallet.tx(funded.txid)).to.include({ state: "confirmed", height: 11, confirmations: 1 });
      expect(h.wallet.balance()).to.include({ confirmedKoinu: change, unconfirmedKoinu: 0n });
      // Block 11 is reorganised away; the transaction is back in the mempool.
      h.chain.statuses.delete(funded.txid);
      h.chain.mempool.add(funded.txid);
      h.chain.utxos = h.chain.utxos.filter((utxo) => utxo.txid !== funded.txid);
      await h.wallet.sync();
      expect(h.wallet.tx(funded.txid)).to.include({ state: "broadcast", height: null, confirmations: 0 });
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 0n,
        unconfirmedKoinu: change,
        lockedKoinu: 0n,
        spendableUtxos: 1,
      });
      expect(h.events).to.deep.equal(["confirmed x 1"]);
    });
  });

  describe("tracking the owner's transactions", () => {
    it("is idempotent per owner and label and refuses a transaction spending what another one holds", async () => {
      const h = harness();
      const coin = h.coin(10n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("job", "commit", [pay(DOGE)]);
      const reveal = spendP2pkh(stranger, [{ txid: funded.txid, vout: 0, value: DOGE }], [pay(DOGE - DOGE / 100n)]);
      const tracked = h.wallet.track("job", "reveal", reveal.hex);
      expect(tracked).to.include({ state: "signed", feeKoinu: DOGE / 100n });
      expect(h.wallet.track("job", "reveal", reveal.hex).txid).to.equal(tracked.txid);
      const other = spendP2pkh(stranger, [{ txid: funded.txid, vout: 0, value: DOGE }], [pay(DOGE - DOGE / 50n)]);
      expect(h.wallet.track("job", "reveal", other.hex).txid).to.equal(tracked.txid);
      const doubleSpend = spendP2pkh(h.key, [{ txid: coin.txid, vout: 0, value: coin.valueKoinu }], [pay(9n * DOGE)]);
      expect(() => h.wallet.track("thief", "x", doubleSpend.hex)).to.throw(WalletConflictError);
    });

    it("makes the owner's outputs to the wallet spendable only once the index reports them", async () => {
      const h = harness();
      await h.wallet.sync();
      const foreign = { txid: randomTxid(), vout: 0, value: 5n * DOGE };
      const payment = spendP2pkh(
        stranger,
        [foreign],
        [
          { value: 4n * DOGE, script: h.key.script },
          { value: DOGE / 2n, script: h.key.script },
        ],
      );
      const tracked = h.wallet.track("owner", "payment", payment.hex);
      expect(tracked.feeKoinu).to.equal(0n); // its input is not the wallet's: the fee is unknown
      await h.wallet.broadcast(tracked.txid);
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 0n,
        unconfirmedKoinu: 0n,
        lockedKoinu: 0n,
        spendableUtxos: 0,
      });
      h.chain.confirm(payment.hex, 12, 1, h.key.script);
      h.chain.utxos[0].inscriptionIds = [`${tracked.txid}i0`];
      await h.wallet.sync();
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: DOGE / 2n,
        unconfirmedKoinu: 0n,
        lockedKoinu: 4n * DOGE,
        spendableUtxos: 1,
      });
    });
  });

  describe("broadcast", () => {
    it("counts a refused attempt and rethrows; abandon is allowed after a refusal, not after an unknown outcome", async () => {
      const h = harness();
      h.coin(10n * DOGE);
      h.coin(10n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("job", "x", [pay(DOGE)]);
      h.chain.refuse = () => new BroadcastError("insufficient_fee", "66: min relay fee not met", -26);
      let thrown: unknown;
      await h.wallet.broadcast(funded.txid).catch((error) => {
        thrown = error;
      });
      expect(thrown).to.include({ reason: "insufficient_fee" });
      expect(h.wallet.tx(funded.txid)).to.include({ state: "signed", attempts: 1, error: "66: min relay fee not met" });
      h.chain.refuse = () => new BroadcastError("unavailable", "connection refused");
      await h.wallet.broadcast(funded.txid).catch((error) => {
        thrown = error;
      });
      expect(thrown).to.include({ reason: "unavailable" });
      expect(() => h.wallet.abandon("job", "x")).to.throw(/may have reached the node/);

      const second = h.wallet.fund("job2", "x", [pay(DOGE)]);
      expect(inputsOf(second)).to.not.include(`${funded.txid}:1`);
      h.chain.refuse = () => new BroadcastError("rejected", "64: non-mandatory-script-verify-flag");
      await h.wallet.broadcast(second.txid).catch(() => undefined);
      h.wallet.abandon("job2", "x");
      expect(h.wallet.txOf("job2", "x")).to.equal(null);
    });

    it("turns missing inputs into a conflict when the index no longer lists an input", async () => {
      const h = harness();
      const coin = h.coin(10n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("job", "x", [pay(DOGE)]);
      h.chain.utxos = h.chain.utxos.filter((utxo) => utxo !== coin);
      h.chain.refuse = () => new BroadcastError("missing_inputs", "Missing inputs", -25);
      let thrown: unknown;
      await h.wallet.broadcast(funded.txid).catch((error) => {
        thrown = error;
      });
      expect(thrown).to.be.instanceOf(BroadcastError);
      expect(thrown).to.include({ reason: "conflict" });
      expect(h.wallet.tx(funded.txid)!.state).to.equal("failed");
      expect(h.events).to.deep.equal(["failed x"]);
      expect(h.wallet.balance().confirmedKoinu).to.equal(0n);
    });

    it("reports a transaction the node has in a block already as confirmed", async () => {
      const h = harness();
      h.coin(10n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("job", "x", [pay(DOGE)]);
      h.chain.statuses.set(funded.txid, { state: "confirmed", height: 30, confirmations: 2 });
      h.chain.refuse = () => new BroadcastError("missing_inputs", "Missing inputs", -25);
      expect(await h.wallet.broadcast(funded.txid)).to.include({ state: "confirmed", height: 30, confirmations: 2 });
      expect(h.events).to.deep.equal(["confirmed x 2"]);
    });

    it("reports a transaction the node already has as broadcast", async () => {
      const h = harness();
      h.coin(10n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("job", "x", [pay(DOGE)]);
      h.chain.mempool.add(funded.txid);
      h.chain.refuse = () => new BroadcastError("conflict", "258: txn-mempool-conflict", -26);
      expect((await h.wallet.broadcast(funded.txid)).state).to.equal("broadcast");
    });
  });

  describe("replacement", () => {
    async function droppedPair(h: Harness) {
      h.coin(50n * DOGE);
      await h.wallet.sync();
      const parent = h.wallet.fund("job-p", "commit", [pay(5n * DOGE)]);
      const child = h.wallet.fund("job-c", "commit", [pay(5n * DOGE)]);
      await h.wallet.broadcast(child.txid);
      h.chain.mempool.clear();
      return { parent, child };
    }

    it("rebuilds a dropped transaction refused for its fee, and its wallet-funded child, at twice the rate", async () => {
      const h = harness();
      const { parent, child } = await droppedPair(h);
      h.chain.refuse = (txid) =>
        txid === parent.txid ? new BroadcastError("insufficient_fee", "66: mempool min fee not met", -26) : null;
      await h.wallet.sync();
      const p2 = h.wallet.txOf("job-p", "commit")!;
      const c2 = h.wallet.txOf("job-c", "commit")!;
      expect(inputsOf(decode(p2.hex))).to.deep.equal(inputsOf(parent));
      expect(p2.feeKoinu).to.equal(dogecoinFee(decode(p2.hex).size, decode(p2.hex).outputs, 2n * RECOMMENDED_FEE_RATE));
      expect(inputsOf(decode(c2.hex))).to.deep.equal([`${p2.txid}:1`]);
      expect(h.events).to.deep.equal([
        `replaced commit ${short(parent.txid)}>${short(p2.txid)}`,
        `replaced commit ${short(child.txid)}>${short(c2.txid)}`,
      ]);
      expect(h.chain.sent.slice(-2)).to.deep.equal([p2.txid, c2.txid]);
      expect([p2.state, c2.state]).to.deep.equal(["broadcast", "broadcast"]);
      // broadcast() of a replaced version goes to the current one.
      expect((await h.wallet.broadcast(parent.txid)).txid).to.equal(p2.txid);
    });

    it("brings back a replaced version that confirms after all, and rebuilds the children on it", async () => {
      const h = harness();
      const { parent } = await droppedPair(h);
      h.chain.refuse = (txid) =>
        txid === parent.txid ? new BroadcastError("insufficient_fee", "66: mempool min fee not met", -26) : null;
      await h.wallet.sync();
      const p2 = h.wallet.txOf("job-p", "commit")!;
      const c2 = h.wallet.txOf("job-c", "commit")!;
      h.events.length = 0;
      // A miner had the original all along.
      h.chain.mempool.clear();
      h.chain.confirm(parent.hex, 20, 1, h.key.script);
      await h.wallet.sync();
      expect(h.wallet.txOf("job-p", "commit")).to.include({
        txid: parent.txid,
        state: "confirmed",
        height: 20,
        replacedBy: null,
      });
      expect(h.wallet.tx(p2.txid)).to.include({ state: "replaced", replacedBy: parent.txid });
      const c3 = h.wallet.txOf("job-c", "commit")!;
      expect(inputsOf(decode(c3.hex))).to.deep.equal([`${parent.txid}:1`]);
      expect(h.events).to.deep.equal([
        `replaced commit ${short(p2.txid)}>${short(parent.txid)}`,
        `replaced commit ${short(c2.txid)}>${short(c3.txid)}`,
        "confirmed commit 1",
      ]);
      expect(h.chain.sent[h.chain.sent.length - 1]).to.equal(c3.txid);
    });

    it("brings back the earlier version instead of failing a replacement that conflicts with it", async () => {
      const h = harness();
      const { parent } = await droppedPair(h);
      let replacement: string | null = null;
      h.chain.refuse = (txid) => {
        if (txid === parent.txid) return new BroadcastError("insufficient_fee", "66: mempool min fee not met", -26);
        if (replacement === null) replacement = txid;
        if (txid !== replacement) return null;
        h.chain.mempool.add(parent.txid); // another node relayed the original back
        return new BroadcastError("conflict", "258: txn-mempool-conflict", -26);
      };
      await h.wallet.sync();
      expect(h.wallet.txOf("job-p", "commit")).to.include({ txid: parent.txid, state: "broadcast" });
      expect(h.events.filter((line) => line.startsWith("failed"))).to.deep.equal([]);
    });

    it("fails a dropped transaction whose inputs cannot pay a higher fee, giving its coin back", async () => {
      const h = harness();
      const coin = h.coin(10n * DOGE);
      await h.wallet.sync();
      // One input, one output, no change: 191 bytes at 0.01 DOGE/kB is 191,000 koinu; leave 193,000.
      const funded = h.wallet.fund("job", "x", [pay(10n * DOGE - 193_000n)]);
      expect(funded.changeVout).to.equal(null);
      expect(funded.feeKoinu).to.equal(193_000n);
      await h.wallet.broadcast(funded.txid);
      h.chain.mempool.clear();
      h.chain.refuse = () => new BroadcastError("insufficient_fee", "66: mempool min fee not met", -26);
      await h.wallet.sync();
      expect(h.wallet.tx(funded.txid)).to.include({ state: "failed" });
      expect(h.events).to.deep.equal(["failed x"]);
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: coin.valueKoinu,
        unconfirmedKoinu: 0n,
        lockedKoinu: 0n,
        spendableUtxos: 1,
      });
    });

    it(`stops raising the fee at ${MAX_FEE_RATE_FACTOR} times the wallet's rate`, async () => {
      const h = harness();
      h.coin(50n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("job", "x", [pay(DOGE)]);
      await h.wallet.broadcast(funded.txid);
      h.chain.mempool.clear();
      h.chain.refuse = () => new BroadcastError("insufficient_fee", "66: mempool min fee not met", -26);
      await h.wallet.sync();
      // 2, 4, 8, 16, 32 and 64 times; 128 is above the cap.
      expect(h.events).to.have.length(6);
      const current = h.wallet.txOf("job", "x")!;
      const tx = decode(current.hex);
      expect(current.feeKoinu).to.equal(dogecoinFee(tx.size, tx.outputs, 64n * RECOMMENDED_FEE_RATE));
      expect(current.error).to.match(/cap/);
      await h.wallet.sync();
      expect(h.events).to.have.length(6);
    });
  });

  describe("events and the periodic sync", () => {
    it("logs a handler that throws and carries on", async () => {
      const h = harness({ throwingHandlers: true });
      const coin = h.coin(10n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund("job", "x", [pay(DOGE)]);
      await h.wallet.broadcast(funded.txid);
      h.chain.mempool.clear();
      h.chain.utxos = h.chain.utxos.filter((utxo) => utxo !== coin);
      await h.wallet.sync();
      expect(h.wallet.tx(funded.txid)!.state).to.equal("failed");
      expect(h.logs.filter((line) => line.event === "wallet_event_handler_failed")).to.have.length(1);
    });

    it("runs one sync at a time until stopped, logging failures", async () => {
      const h = harness();
      h.chain.failUtxoCall = 2;
      const loop = runEvery("wallet_sync", 1, () => h.wallet.sync(), {
        log: (event, fields) => h.logs.push({ event, fields }),
      });
      while (h.chain.utxoCalls < 5) await new Promise((resolve) => setTimeout(resolve, 2));
      await loop.stop();
      await h.wallet.sync();
      const calls = h.chain.utxoCalls;
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(h.chain.utxoCalls).to.equal(calls);
      expect(h.chain.maxActive).to.equal(1);
      expect(h.logs.filter((line) => line.event === "wallet_sync_failed").map((line) => line.fields.err)).to.deep.equal(
        ["index unreachable"],
      );
    });

    it("shares one run between concurrent sync calls", async () => {
      const h = harness();
      await Promise.all([h.wallet.sync(), h.wallet.sync(), h.wallet.sync()]);
      expect(h.chain.utxoCalls).to.equal(1);
    });
  });

  describe("carrier sends", () => {
    const recipient = newKey();
    const transfer = { drc20: [{ tick: "dogi", amount: "250" }], inscriptionIds: [`${"ab".repeat(32)}i0`] };
    const carrierError = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).to.be.instanceOf(CarrierNotAvailableError);
        return error as CarrierNotAvailableError;
      }
      return expect.fail("no CarrierNotAvailableError");
    };

    it("spends the carrier as input 0, pays the recipient exactly its value on output 0, and takes the fee and change from plain coins", async () => {
      const h = harness();
      const carrier = h.coin(DOGE, transfer);
      const plain = h.coin(10n * DOGE);
      await h.wallet.sync();
      expect(h.wallet.carriers()).to.deep.equal([
        {
          txid: carrier.txid,
          vout: 0,
          valueKoinu: DOGE,
          height: 10,
          inscriptionIds: transfer.inscriptionIds,
          drc20: transfer.drc20,
          heldUntil: null,
        },
      ]);
      const funded = h.wallet.sendCarrier("amm-payout-1", "drc20", { txid: carrier.txid, vout: 0 }, recipient.script);
      const tx = decode(funded.hex);
      expect(inputsOf(tx)).to.deep.equal([`${carrier.txid}:0`, `${plain.txid}:0`]);
      expect(tx.outputs[0]).to.deep.equal({ value: DOGE, script: recipient.script });
      expect(funded.changeVout).to.equal(1);
      expect(bytesToHex(tx.outputs[1].script)).to.equal(bytesToHex(h.key.script));
      expect(funded.feeKoinu).to.equal(dogecoinFee(tx.size, tx.outputs, RECOMMENDED_FEE_RATE));
      expect(tx.outputs[1].value).to.equal(10n * DOGE - funded.feeKoinu);
      expect(h.wallet.carriers()).to.deep.equal([]);
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 0n,
        unconfirmedKoinu: tx.outputs[1].value,
        lockedKoinu: 0n,
        spendableUtxos: 1,
      });
      expect(
        h.wallet.sendCarrier("amm-payout-1", "drc20", { txid: carrier.txid, vout: 0 }, stranger.script).txid,
      ).to.equal(funded.txid);
    });

    it("takes several carriers in the order given, each whole on the output of its index, with free outputs after them", async () => {
      const h = harness();
      const first = h.coin(3n * DOGE, { inscriptionIds: [`${randomTxid()}i0`] });
      const second = h.coin(DOGE / 200n, transfer);
      h.coin(20n * DOGE);
      await h.wallet.sync();
      const funded = h.wallet.fund(
        "job",
        "x",
        [
          { value: DOGE / 200n, script: recipient.script },
          { value: 3n * DOGE, script: recipient.script },
          pay(5n * DOGE),
        ],
        {
          carrierInputs: [
            { txid: second.txid, vout: 0 },
            { txid: first.txid.toUpperCase(), vout: 0 },
          ],
        },
      );
      expect(inputsOf(funded).slice(0, 2)).to.deep.equal([`${second.txid}:0`, `${first.txid}:0`]);
      expect(inputsOf(funded)).to.have.length(3);
      expect(funded.changeVout).to.equal(3);
      // 0.005 DOGE is below the soft dust limit: the fee carries Core's surcharge for it.
      const tx = decode(funded.hex);
      expect(funded.feeKoinu).to.equal(dogecoinFee(tx.size, tx.outputs));
      expect(funded.feeKoinu).to.equal(BigInt(tx.size) * 1000n + 1_000_000n);
    });

    it("refuses an unknown outpoint, a plain output, a spent carrier and outputs that do not take the carrier whole, changing nothing", async () => {
      const h = harness();
      const carrier = h.coin(DOGE, transfer);
      const plain = h.coin(10n * DOGE);
      await h.wallet.sync();
      const unknown = `${randomTxid()}`;
      expect(
        carrierError(() => h.wallet.sendCarrier("a", "x", { txid: unknown, vout: 0 }, recipient.script)),
      ).to.include({
        code: "CARRIER_NOT_FOUND",
        outpoint: `${unknown}:0`,
      });
      expect(
        carrierError(() => h.wallet.sendCarrier("a", "x", { txid: plain.txid, vout: 0 }, recipient.script)),
      ).to.include({ code: "CARRIER_NOT_LOCKED" });
      expect(() =>
        h.wallet.fund("a", "x", [pay(DOGE - 1n)], { carrierInputs: [{ txid: carrier.txid, vout: 0 }] }),
      ).to.throw(InvalidOutputError, /exactly/);
      expect(() =>
        h.wallet.fund("a", "x", [pay(DOGE)], {
          carrierInputs: [
            { txid: carrier.txid, vout: 0 },
            { txid: carrier.txid, vout: 0 },
          ],
        }),
      ).to.throw(TypeError, /twice/);
      expect(() =>
        h.wallet.fund("wallet", "x", [pay(DOGE)], { carrierInputs: [{ txid: carrier.txid, vout: 0 }] }),
      ).to.throw(TypeError, /own/);
      expect(() => h.wallet.sendCarrier("a", "x", { txid: carrier.txid, vout: 0 }, nullDataScript())).to.throw(
        TypeError,
        /burnt/,
      );
      expect(h.wallet.txOf("a", "x")).to.equal(null);
      const sent = h.wallet.sendCarrier("b", "x", { txid: carrier.txid, vout: 0 }, recipient.script);
      expect(
        carrierError(() => h.wallet.sendCarrier("c", "x", { txid: carrier.txid, vout: 0 }, recipient.script)),
      ).to.include({
        code: "CARRIER_SPENT",
        spentBy: sent.txid,
      });
      // The carrier's spend is in the same write transaction as the funding: a failed funding leaves it locked.
      const other = harness();
      const lonely = other.coin(DOGE, transfer);
      await other.wallet.sync();
      expect(() => other.wallet.sendCarrier("a", "x", { txid: lonely.txid, vout: 0 }, recipient.script)).to.throw(
        InsufficientFundsError,
      );
      expect(other.wallet.carriers().map((c) => c.txid)).to.deep.equal([lonely.txid]);
    });

    it("gives one carrier to exactly one of two concurrent sends from two wallet instances on one file, and the same transaction to the same label", async () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wallet-carrier-")), "wallet.sqlite");
      try {
        const chain = new FakeChain();
        const first = harness({ db: openWalletDatabase(file), chain });
        const second = harness({ db: openWalletDatabase(file), chain, key: first.key });
        const carrier = first.coin(DOGE, transfer);
        first.coin(10n * DOGE);
        first.coin(10n * DOGE);
        await first.wallet.sync();
        const attempts = await Promise.allSettled(
          ["payout-a", "payout-b", "payout-a"].map(async (owner, i) => {
            await new Promise((resolve) => setImmediate(resolve));
            return (i === 1 ? second : first).wallet.sendCarrier(
              owner,
              "drc20",
              { txid: carrier.txid, vout: 0 },
              recipient.script,
            );
          }),
        );
        const [a, b, again] = attempts;
        if (a.status !== "fulfilled" || again.status !== "fulfilled" || b.status !== "rejected")
          return expect.fail(`${attempts.map((x) => x.status)}`);
        expect(again.value.txid).to.equal(a.value.txid);
        expect(b.reason)
          .to.be.instanceOf(CarrierNotAvailableError)
          .and.include({ code: "CARRIER_SPENT", spentBy: a.value.txid });
        expect(second.wallet.txOf("payout-b", "drc20")).to.equal(null);
        expect(inputsOf(a.value)[0]).to.equal(`${carrier.txid}:0`);
      } finally {
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
      }
    });

    it("gives the carrier back locked, not available, when its send fails on a conflict (held like any input) or is abandoned", async () => {
      const h = harness();
      const carrier = h.coin(DOGE, transfer);
      const plain = h.coin(10n * DOGE);
      await h.wallet.sync();
      const failing = h.wallet.sendCarrier("payout", "1", { txid: carrier.txid, vout: 0 }, recipient.script);
      // The fee coin was spent elsewhere.
      h.chain.utxos = h.chain.utxos.filter((utxo) => utxo !== plain);
      h.chain.refuse = () => new BroadcastError("conflict", "258: txn-mempool-conflict", -26);
      await h.wallet.broadcast(failing.txid).catch(() => undefined);
      h.chain.refuse = () => null;
      expect(h.wallet.tx(failing.txid)!.state).to.equal("failed");
      expect(h.wallet.carriers()).to.deep.equal([
        {
          txid: carrier.txid,
          vout: 0,
          valueKoinu: DOGE,
          height: 10,
          inscriptionIds: transfer.inscriptionIds,
          drc20: transfer.drc20,
          heldUntil: h.clock.now + CONFLICT_HOLD_MS,
        },
      ]);
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 0n,
        unconfirmedKoinu: 0n,
        lockedKoinu: DOGE,
        spendableUtxos: 0,
      });
      h.coin(10n * DOGE);
      await h.wallet.sync();
      expect(
        carrierError(() => h.wallet.sendCarrier("payout", "2", { txid: carrier.txid, vout: 0 }, recipient.script)),
      ).to.include({
        code: "CARRIER_HELD",
        heldUntil: h.clock.now + CONFLICT_HOLD_MS,
      });
      h.clock.now += CONFLICT_HOLD_MS;
      // Held no longer, still never selected as a plain coin.
      expect(inputsOf(h.wallet.fund("plain", "x", [pay(DOGE)]))).to.not.include(`${carrier.txid}:0`);
      expect(() => h.wallet.fund("plain", "y", [pay(10n * DOGE)])).to.throw(InsufficientFundsError);
      const second = h.wallet.sendCarrier("payout", "2", { txid: carrier.txid, vout: 0 }, recipient.script);
      expect(inputsOf(second)[0]).to.equal(`${carrier.txid}:0`);
      h.wallet.abandon("payout", "2");
      expect(h.wallet.carriers().map((c) => [c.txid, c.heldUntil])).to.deep.equal([[carrier.txid, null]]);
      expect(h.wallet.balance().lockedKoinu).to.equal(DOGE);
    });

    it("keeps the carrier as input 0 and its output 0 when the send is rebuilt for its fee", async () => {
      const h = harness();
      const carrier = h.coin(DOGE, transfer);
      h.coin(50n * DOGE);
      await h.wallet.sync();
      const sent = h.wallet.sendCarrier("payout", "1", { txid: carrier.txid, vout: 0 }, recipient.script);
      await h.wallet.broadcast(sent.txid);
      h.chain.mempool.clear();
      h.chain.refuse = (txid) =>
        txid === sent.txid ? new BroadcastError("insufficient_fee", "66: mempool min fee not met", -26) : null;
      await h.wallet.sync();
      const current = h.wallet.txOf("payout", "1")!;
      expect(current.txid).to.not.equal(sent.txid);
      const rebuilt = decode(current.hex);
      expect(inputsOf(rebuilt)).to.deep.equal(inputsOf(sent));
      expect(inputsOf(rebuilt)[0]).to.equal(`${carrier.txid}:0`);
      expect(rebuilt.outputs[0]).to.deep.equal({ value: DOGE, script: recipient.script });
      expect(current.feeKoinu).to.equal(dogecoinFee(rebuilt.size, rebuilt.outputs, 2n * RECOMMENDED_FEE_RATE));
      expect(h.chain.sent[h.chain.sent.length - 1]).to.equal(current.txid);
      expect(h.wallet.carriers()).to.deep.equal([]);
    });

    it("keeps the carrier as input 0 when a send paying its fee from unconfirmed change is rebuilt on the change's replacement", async () => {
      const h = harness();
      const carrier = h.coin(DOGE, transfer);
      h.coin(50n * DOGE);
      await h.wallet.sync();
      const parent = h.wallet.fund("job-p", "commit", [pay(5n * DOGE)]);
      const send = h.wallet.sendCarrier("payout", "1", { txid: carrier.txid, vout: 0 }, recipient.script);
      expect(inputsOf(send)).to.deep.equal([`${carrier.txid}:0`, `${parent.txid}:1`]);
      await h.wallet.broadcast(send.txid);
      h.chain.mempool.clear();
      h.chain.refuse = (txid) =>
        txid === parent.txid ? new BroadcastError("insufficient_fee", "66: mempool min fee not met", -26) : null;
      await h.wallet.sync();
      const newParent = h.wallet.txOf("job-p", "commit")!;
      const rebuilt = decode(h.wallet.txOf("payout", "1")!.hex);
      expect(newParent.txid).to.not.equal(parent.txid);
      expect(inputsOf(rebuilt)).to.deep.equal([`${carrier.txid}:0`, `${newParent.txid}:1`]);
      expect(rebuilt.outputs[0]).to.deep.equal({ value: DOGE, script: recipient.script });
      expect(h.chain.mempool.has(rebuilt.txid)).to.equal(true);
    });
  });

  describe("ensureUtxos", () => {
    it("splits off the missing outputs, selectable at once, and does nothing when there are enough", async () => {
      const h = harness();
      h.coin(100n * DOGE);
      await h.wallet.sync();
      const split = await h.wallet.ensureUtxos(5, 2n * DOGE);
      expect(split).to.not.equal(null);
      const tx = decode(split!.hex);
      expect(tx.outputs.filter((output) => output.value === 2n * DOGE)).to.have.length(4);
      expect(h.wallet.txOf("wallet", "split-1")).to.include({ state: "broadcast" });
      expect(h.wallet.balance().spendableUtxos).to.equal(5);
      expect(await h.wallet.ensureUtxos(5, 2n * DOGE)).to.equal(null);
      expect((await h.wallet.ensureUtxos(6, 2n * DOGE))!.tx.outputs).to.have.length(2);
      expect(h.wallet.txOf("wallet", "split-2")).to.not.equal(null);
    });

    it("sends a split whose first broadcast did not get through on the next sync", async () => {
      const h = harness();
      h.coin(100n * DOGE);
      await h.wallet.sync();
      h.chain.refuse = () => new BroadcastError("unavailable", "connection refused");
      let thrown: unknown;
      await h.wallet.ensureUtxos(3, DOGE).catch((error) => {
        thrown = error;
      });
      expect(thrown).to.include({ reason: "unavailable" });
      const split = h.wallet.txOf("wallet", "split-1")!;
      expect(split.state).to.equal("signed");
      h.chain.refuse = () => null;
      await h.wallet.sync();
      expect(h.wallet.tx(split.txid)!.state).to.equal("broadcast");
      expect(h.chain.sent).to.deep.equal([split.txid]);
    });
  });
});
