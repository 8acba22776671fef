import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { openIndexerDatabase } from "../../src/indexer/database";
import { NETWORKS, Transaction, TxOutput, bytesToHex, hexToBytes, parseTransaction } from "../../src/doge";
import { Drc20Operation, encodeDrc20 } from "../../src/inscription";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import {
  BroadcastError,
  CONFLICT_HOLD_MS,
  CarrierNotAvailableError,
  FundedTx,
  HotWallet,
  InsufficientFundsError,
  RECOMMENDED_FEE_RATE,
  SOFT_DUST_LIMIT,
  WalletChain,
  WalletKey,
  WalletTx,
  dogecoinFee,
  indexNodeChain,
  openWalletDatabase,
  walletKeyFromPrivateKey,
} from "../../src/wallet";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { inscribeDoginals, inscribeV1 } from "../helpers/inscribe";
import { Spendable, TestKey, newKey, spendP2pkh } from "../helpers/keys";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bitcore = require("bitcore-lib-doge");

const DOGE = 100_000_000n;
const regtest = NETWORKS.regtest;
const TEXT = "text/plain;charset=utf-8";

/** Every input of `hex` verifies against the output it spends, in bitcore-lib-doge's interpreter with the standard flags. */
function verifyWithBitcore(hex: string, spentScripts: Uint8Array[]): void {
  const { Interpreter } = bitcore.Script;
  const flags =
    Interpreter.SCRIPT_VERIFY_P2SH |
    Interpreter.SCRIPT_VERIFY_STRICTENC |
    Interpreter.SCRIPT_VERIFY_DERSIG |
    Interpreter.SCRIPT_VERIFY_LOW_S |
    Interpreter.SCRIPT_VERIFY_NULLFAIL |
    Interpreter.SCRIPT_VERIFY_MINIMALDATA;
  const tx = new bitcore.Transaction(hex);
  spentScripts.forEach((script, i) => {
    const interpreter = new Interpreter();
    const ok = interpreter.verify(tx.inputs[i].script, bitcore.Script.fromBuffer(Buffer.from(script)), tx, i, flags);
    expect(ok, `input ${i}: ${interpreter.errstr}`).to.equal(true);
  });
}

function decode(hex: string) {
  const parsed = parseTransaction(hexToBytes(hex));
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

const inputsOf = (funded: { tx: Transaction }) => funded.tx.inputs.map((input) => `${input.prevTxid}:${input.vout}`);

describe("HotWallet on the devnet with a real index", function () {
  this.timeout(300_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let queries: IndexQueries;
  let chain: WalletChain;
  const miner = newKey();
  const stranger = newKey();
  const dirs: string[] = [];

  before(async () => {
    devnet = await startDevnet();
    const indexDb = openIndexerDatabase(":memory:");
    indexer = new Indexer({
      store: new IndexerStore(indexDb),
      network: regtest,
      source: new RpcChainSource({
        getBlockCount: () => devnet.rpc<number>("getblockcount"),
        getBlockHash: (height) => devnet.rpc<string>("getblockhash", [height]),
        getBlockHex: (hash) => devnet.rpc<string>("getblock", [hash, false]),
      }),
    });
    queries = new IndexQueries(indexDb);
    chain = indexNodeChain(queries, new DogecoinRpcClient({ url: devnet.url, retries: 0 }));
  });

  after(async () => {
    await devnet?.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function mine(blocks = 1): Promise<void> {
    await devnet.rpc("generatetoaddress", [blocks, miner.address]);
    await indexer.syncOnce();
  }

  function tempFile(name: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wallet-test-"));
    dirs.push(dir);
    return path.join(dir, name);
  }

  interface Harness {
    wallet: HotWallet;
    db: ReturnType<typeof openWalletDatabase>;
    key: WalletKey;
    events: { confirmed: WalletTx[]; replaced: [WalletTx, WalletTx][]; failed: WalletTx[] };
    clock: { now: number };
  }

  function newWallet(options: { key?: WalletKey; file?: string } = {}): Harness {
    const key = options.key ?? walletKeyFromPrivateKey(newKey().privateKey, regtest);
    const events: Harness["events"] = { confirmed: [], replaced: [], failed: [] };
    const clock = { now: 1_700_000_000_000 };
    const db = openWalletDatabase(options.file ?? ":memory:");
    const wallet = new HotWallet({
      db,
      key,
      chain,
      network: regtest,
      now: () => clock.now,
      events: {
        onConfirmed: (tx) => events.confirmed.push(tx),
        onReplaced: (previous, replacement) => events.replaced.push([previous, replacement]),
        onFailed: (tx) => events.failed.push(tx),
      },
    });
    return { wallet, db, key, events, clock };
  }

  /** Pays each amount (DOGE) to `address` from the devnet's faucet, mined and indexed. */
  async function faucet(address: string, amounts: number[]): Promise<Spendable[]> {
    const coins: Spendable[] = [];
    for (const amount of amounts) {
      const paid = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [address, amount, false]);
      coins.push({ txid: paid.txid, vout: paid.vout, value: BigInt(amount) * DOGE });
    }
    await mine();
    return coins;
  }

  async function mempool(): Promise<string[]> {
    return devnet.rpc<string[]>("getrawmempool");
  }

  function payTo(key: TestKey, koinu: bigint): TxOutput {
    return { value: koinu, script: key.script };
  }

  describe("funding", () => {
    let h: Harness;
    let funded: FundedTx;

    before(async () => {
      h = newWallet();
      await faucet(h.key.address, [40, 7]);
      await h.wallet.sync();
    });

    it("sees the confirmed outputs the index reports", () => {
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 47n * DOGE,
        unconfirmedKoinu: 0n,
        lockedKoinu: 0n,
        spendableUtxos: 2,
      });
    });

    it("pays the outputs with change back to the wallet and a fee equal to dogecoinFee of the signed size", () => {
      funded = h.wallet.fund("job-1", "commit", [payTo(stranger, 5n * DOGE), payTo(stranger, 500_000n)]);
      const tx = decode(funded.hex);
      expect(tx.txid).to.equal(funded.txid);
      // The 7 DOGE coin is the smallest that pays everything on its own.
      expect(tx.inputs).to.have.length(1);
      const inputValue = 7n * DOGE;
      const outputTotal = tx.outputs.reduce((sum, output) => sum + output.value, 0n);
      expect(funded.feeKoinu).to.equal(inputValue - outputTotal);
      expect(funded.feeKoinu).to.equal(dogecoinFee(tx.size, tx.outputs, RECOMMENDED_FEE_RATE));
      // 0.005 DOGE is below the soft dust limit: 0.01 DOGE on top of 0.01 DOGE/kB.
      expect(funded.feeKoinu).to.equal(BigInt(tx.size) * 1000n + SOFT_DUST_LIMIT);
      expect(funded.changeVout).to.equal(2);
      expect(bytesToHex(tx.outputs[2].script)).to.equal(bytesToHex(h.key.script));
      expect(tx.outputs[2].value).to.equal(inputValue - 5n * DOGE - 500_000n - funded.feeKoinu);
      expect(h.wallet.txOf("job-1", "commit")).to.include({ txid: funded.txid, state: "signed" });
    });

    it("signs every input so that bitcore-lib-doge's interpreter verifies it", () => {
      verifyWithBitcore(
        funded.hex,
        funded.tx.inputs.map(() => h.key.script),
      );
    });

    it("returns the stored transaction for the same owner and label without selecting again", () => {
      const again = h.wallet.fund("job-1", "commit", [payTo(stranger, 9n * DOGE)]);
      expect(again.txid).to.equal(funded.txid);
      expect(h.wallet.balance().spendableUtxos).to.equal(2); // the 40 DOGE coin and the change
    });

    it("refuses outputs below the hard dust limit", () => {
      expect(() => h.wallet.fund("job-dust", "x", [payTo(stranger, 99_999n)])).to.throw(/hard dust limit/);
      expect(h.wallet.txOf("job-dust", "x")).to.equal(null);
    });

    it("throws InsufficientFundsError with what it needs and what it has", () => {
      const spendable = 40n * DOGE + funded.tx.outputs[2].value;
      try {
        h.wallet.fund("job-big", "x", [payTo(stranger, 100n * DOGE)]);
        expect.fail("funded beyond the balance");
      } catch (error) {
        expect(error).to.be.instanceOf(InsufficientFundsError);
        expect((error as InsufficientFundsError).availableKoinu).to.equal(spendable);
        expect((error as InsufficientFundsError).neededKoinu > 100n * DOGE).to.equal(true);
      }
    });

    it("broadcasts and tracks to confirmation, reporting confirmations up to the tracking depth", async () => {
      const sent = await h.wallet.broadcast(funded.txid);
      expect(sent.state).to.equal("broadcast");
      expect(await mempool()).to.include(funded.txid);
      await mine();
      await h.wallet.sync();
      const confirmed = h.wallet.tx(funded.txid)!;
      expect(confirmed.state).to.equal("confirmed");
      expect(confirmed.height).to.equal(await devnet.rpc<number>("getblockcount"));
      expect(confirmed.confirmations).to.equal(1);
      for (let i = 0; i < 6; i++) {
        await mine();
        await h.wallet.sync();
      }
      expect(h.events.confirmed.filter((tx) => tx.txid === funded.txid).map((tx) => tx.confirmations)).to.deep.equal([
        1, 2, 3, 4, 5, 6,
      ]);
      // The change is a confirmed output now.
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 40n * DOGE + funded.tx.outputs[2].value,
        unconfirmedKoinu: 0n,
        lockedKoinu: 0n,
        spendableUtxos: 2,
      });
    });
  });

  describe("outputs carrying inscriptions or DRC-20", () => {
    let h: Harness;
    const inscriber = newKey();
    const ids: string[] = [];

    before(async () => {
      h = newWallet();
      const coins = await faucet(inscriber.address, [3000, 3000, 100, 100, 100]);
      await faucet(h.key.address, [1, 2]);
      // A v1 inscription of 1000 DOGE onto the wallet.
      ids.push(
        (
          await inscribeV1(
            devnet,
            inscriber,
            coins[0],
            { contentType: TEXT, body: new TextEncoder().encode("hello") },
            h.key.script,
            { postageKoinu: 1000n * DOGE },
          )
        ).inscriptionId,
      );
      const drc20 = (op: Drc20Operation, coin: Spendable, postage: bigint) =>
        inscribeDoginals(devnet, inscriber, coin, { contentType: TEXT, body: encodeDrc20(op) }, h.key.script, {
          postageKoinu: postage,
        });
      ids.push(
        (
          await drc20(
            { kind: "deploy", tick: "wlt1", tickKey: "wlt1", maxSupply: 1000n, mintLimit: 1000n },
            coins[2],
            DOGE,
          )
        ).inscriptionId,
      );
      await mine();
      ids.push(
        (await drc20({ kind: "mint", tick: "wlt1", tickKey: "wlt1", amount: 500n }, coins[3], DOGE)).inscriptionId,
      );
      await mine();
      // A DRC-20 transfer inscription of 1000 DOGE onto the wallet.
      ids.push(
        (await drc20({ kind: "transfer", tick: "wlt1", tickKey: "wlt1", amount: 200n }, coins[1], 1000n * DOGE))
          .inscriptionId,
      );
      await mine();
      await h.wallet.sync();
    });

    it("locks them and counts them apart", async () => {
      const utxos = await chain.confirmedUtxos(h.key.address);
      const carriers = utxos.filter((utxo) => utxo.inscriptionIds.length > 0);
      // v1 (1000 DOGE), deploy (1), mint (1), transfer (1000, carrying 200 wlt1).
      expect(carriers.flatMap((utxo) => utxo.inscriptionIds).sort()).to.deep.equal([...ids].sort());
      expect(utxos.filter((utxo) => utxo.drc20.length > 0).map((utxo) => utxo.drc20)).to.deep.equal([
        [{ tick: "wlt1", amount: "200" }],
      ]);
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 3n * DOGE,
        unconfirmedKoinu: 0n,
        lockedKoinu: 2002n * DOGE,
        spendableUtxos: 2,
      });
    });

    it("never selects them, even when they are the only outputs large enough", () => {
      expect(() => h.wallet.fund("job-c", "big", [payTo(stranger, 10n * DOGE)])).to.throw(InsufficientFundsError);
      const small = h.wallet.fund("job-c", "small", [payTo(stranger, 2n * DOGE + DOGE / 2n)]);
      expect(inputsOf(small)).to.have.length(2);
      const carrierOutpoints = new Set(
        queries
          .utxos(h.key.address, null, 100)
          .items.filter((u) => u.inscriptions.length > 0)
          .map((u) => `${u.txid}:${u.vout}`),
      );
      for (const input of inputsOf(small)) expect(carrierOutpoints.has(input)).to.equal(false);
    });
  });

  describe("carrier sends", () => {
    let h: Harness;
    const inscriber = newKey();
    const recipient = newKey();
    let transferId: string;
    let textId: string;
    let plain: Spendable;
    let sent: FundedTx;

    before(async () => {
      h = newWallet();
      const coins = await faucet(inscriber.address, [100, 100, 100, 100]);
      [plain] = await faucet(h.key.address, [5]);
      const drc20 = (op: Drc20Operation, coin: Spendable, to: Uint8Array) =>
        inscribeDoginals(devnet, inscriber, coin, { contentType: TEXT, body: encodeDrc20(op) }, to, {
          postageKoinu: DOGE,
        });
      await drc20(
        { kind: "deploy", tick: "cry1", tickKey: "cry1", maxSupply: 10_000n, mintLimit: 1000n },
        coins[0],
        inscriber.script,
      );
      await mine();
      // The custody wallet holds 1000 cry1; the inscriber puts a transfer of 250 onto its address.
      await drc20({ kind: "mint", tick: "cry1", tickKey: "cry1", amount: 1000n }, coins[1], h.key.script);
      await mine();
      transferId = (
        await drc20({ kind: "transfer", tick: "cry1", tickKey: "cry1", amount: 250n }, coins[2], h.key.script)
      ).inscriptionId;
      // A plain inscription on 0.005 DOGE, below the soft dust limit.
      textId = (
        await inscribeV1(
          devnet,
          inscriber,
          coins[3],
          { contentType: TEXT, body: new TextEncoder().encode("carried") },
          h.key.script,
          {
            postageKoinu: DOGE / 200n,
          },
        )
      ).inscriptionId;
      await mine();
      await h.wallet.sync();
    });

    it("lists the transfer inscription the inscriber revealed to the wallet as a locked carrier, at the location the index reports", () => {
      const location = queries.inscription(transferId)!.location!;
      const carrier = h.wallet.carriers().find((c) => c.inscriptionIds.includes(transferId))!;
      expect(carrier).to.include({ txid: location.txid, vout: location.vout, valueKoinu: DOGE, heldUntil: null });
      expect(carrier.drc20).to.deep.equal([{ tick: "cry1", amount: "250" }]);
      expect(queries.drc20Balances(h.key.address)).to.deep.equal([
        { tick: "cry1", available: "750", transferable: "250" },
      ]);
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 5n * DOGE,
        unconfirmedKoinu: 0n,
        lockedKoinu: 2n * DOGE + DOGE / 200n,
        spendableUtxos: 1,
      }); // mint, transfer, text
    });

    it("sends the transfer inscription to the recipient with an exact fee and change back, and the index credits the recipient's DRC-20 balance", async () => {
      const location = queries.inscription(transferId)!.location!;
      sent = h.wallet.sendCarrier(
        "amm-payout-7",
        "drc20",
        { txid: location.txid, vout: location.vout },
        recipient.script,
      );
      const tx = decode(sent.hex);
      expect(inputsOf(sent)).to.deep.equal([`${location.txid}:${location.vout}`, `${plain.txid}:${plain.vout}`]);
      expect(tx.outputs[0]).to.deep.equal({ value: DOGE, script: recipient.script });
      expect(sent.changeVout).to.equal(1);
      expect(bytesToHex(tx.outputs[1].script)).to.equal(bytesToHex(h.key.script));
      // Inputs: the 1 DOGE carrier and the 5 DOGE coin.
      expect(sent.feeKoinu).to.equal(6n * DOGE - tx.outputs[0].value - tx.outputs[1].value);
      expect(sent.feeKoinu).to.equal(dogecoinFee(tx.size, tx.outputs, RECOMMENDED_FEE_RATE));
      expect(sent.feeKoinu).to.equal(BigInt(tx.size) * 1000n);
      verifyWithBitcore(
        sent.hex,
        tx.inputs.map(() => h.key.script),
      );
      expect(
        h.wallet.sendCarrier("amm-payout-7", "drc20", { txid: location.txid, vout: location.vout }, recipient.script)
          .txid,
      ).to.equal(sent.txid);

      expect((await h.wallet.broadcast(sent.txid)).state).to.equal("broadcast");
      await mine();
      await h.wallet.sync();
      expect(h.wallet.tx(sent.txid)).to.include({ state: "confirmed", confirmations: 1 });
      expect(queries.inscription(transferId)).to.include({ ownerAddress: recipient.address });
      expect(queries.inscription(transferId)!.location).to.deep.equal({ txid: sent.txid, vout: 0, offset: 0 });
      expect(queries.drc20Balances(recipient.address)).to.deep.equal([
        { tick: "cry1", available: "250", transferable: "0" },
      ]);
      expect(queries.drc20Balances(h.key.address)).to.deep.equal([
        { tick: "cry1", available: "750", transferable: "0" },
      ]);
      expect(h.wallet.carriers().flatMap((c) => c.inscriptionIds)).to.not.include(transferId);
      expect(h.wallet.balance()).to.include({
        confirmedKoinu: tx.outputs[1].value,
        unconfirmedKoinu: 0n,
        spendableUtxos: 1,
      });
    });

    it("refuses the carrier it already sent, a plain output and an unknown outpoint", () => {
      const spent = inputsOf(sent)[0].split(":");
      const codeOf = (fn: () => unknown) => {
        try {
          fn();
        } catch (error) {
          expect(error).to.be.instanceOf(CarrierNotAvailableError);
          return (error as CarrierNotAvailableError).code;
        }
        return expect.fail("no CarrierNotAvailableError");
      };
      expect(
        codeOf(() =>
          h.wallet.sendCarrier("amm-payout-8", "drc20", { txid: spent[0], vout: Number(spent[1]) }, recipient.script),
        ),
      ).to.equal("CARRIER_SPENT");
      expect(
        codeOf(() => h.wallet.sendCarrier("amm-payout-8", "drc20", { txid: sent.txid, vout: 1 }, recipient.script)),
      ).to.equal("CARRIER_NOT_LOCKED");
      expect(
        codeOf(() => h.wallet.sendCarrier("amm-payout-8", "drc20", { txid: sent.txid, vout: 0 }, recipient.script)),
      ).to.equal("CARRIER_NOT_FOUND");
    });

    it("moves an inscription on less than the soft dust limit with fund's carrierInputs, paying Core's dust surcharge, accepted by the node", async () => {
      const carrier = h.wallet.carriers().find((c) => c.inscriptionIds.includes(textId))!;
      const funded = h.wallet.fund("amm-payout-9", "inscription", [{ value: DOGE / 200n, script: recipient.script }], {
        carrierInputs: [{ txid: carrier.txid, vout: carrier.vout }],
      });
      const tx = decode(funded.hex);
      expect(inputsOf(funded)[0]).to.equal(`${carrier.txid}:${carrier.vout}`);
      expect(funded.feeKoinu).to.equal(dogecoinFee(tx.size, tx.outputs, RECOMMENDED_FEE_RATE));
      expect(funded.feeKoinu).to.equal(BigInt(tx.size) * 1000n + SOFT_DUST_LIMIT);
      await h.wallet.broadcast(funded.txid);
      await mine();
      await h.wallet.sync();
      expect(queries.inscription(textId)).to.include({ ownerAddress: recipient.address });
      expect(h.wallet.tx(funded.txid)!.state).to.equal("confirmed");
    });
  });

  describe("concurrency and restarts", () => {
    it("gives 50 concurrent fundings, from two wallet instances on one file, 50 disjoint sets of inputs that the node accepts", async () => {
      const file = tempFile("wallet.sqlite");
      const first = newWallet({ file });
      const second = newWallet({ file, key: first.key });
      await faucet(first.key.address, [500]);
      await first.wallet.sync();
      // Fan out to ten outputs of 30 DOGE, mined.
      const split = await first.wallet.ensureUtxos(10, 30n * DOGE);
      expect(split).to.not.equal(null);
      expect(await first.wallet.ensureUtxos(10, 30n * DOGE)).to.equal(null);
      await mine();
      await first.wallet.sync();
      expect(first.wallet.tx(split!.txid)!.state).to.equal("confirmed");

      const fundings = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          await new Promise((resolve) => setImmediate(resolve));
          const wallet = i % 2 === 0 ? first.wallet : second.wallet;
          return wallet.fund(`job-${i}`, "commit", [payTo(stranger, DOGE + BigInt(i))]);
        }),
      );
      const seen = new Map<string, string>();
      for (const funded of fundings) {
        for (const input of inputsOf(funded)) {
          expect(seen.has(input), `${input} given to ${seen.get(input)} and ${funded.txid}`).to.equal(false);
          seen.set(input, funded.txid);
        }
      }
      // Broadcast in reverse order: each broadcast sends the unbroadcast parents first.
      for (const funded of [...fundings].reverse())
        expect((await second.wallet.broadcast(funded.txid)).state).to.equal("broadcast");
      const pool = new Set(await mempool());
      for (const funded of fundings) expect(pool.has(funded.txid)).to.equal(true);
      await mine();
      await first.wallet.sync();
      for (const funded of fundings) expect(first.wallet.tx(funded.txid)!.state).to.equal("confirmed");
      verifyWithBitcore(
        fundings[49].hex,
        fundings[49].tx.inputs.map(() => first.key.script),
      );
    });

    it("keeps reservations over a restart and returns the same transaction for the same owner and label", async () => {
      const file = tempFile("wallet.sqlite");
      const before = newWallet({ file });
      await faucet(before.key.address, [10, 10]);
      await before.wallet.sync();
      const funded = before.wallet.fund("job-r", "commit", [payTo(stranger, 3n * DOGE)]);
      before.db.close();

      const after = newWallet({ file, key: before.key });
      await after.wallet.sync();
      expect(after.wallet.fund("job-r", "commit", [payTo(stranger, 3n * DOGE)]).txid).to.equal(funded.txid);
      const other = after.wallet.fund("job-s", "commit", [payTo(stranger, 3n * DOGE)]);
      for (const input of inputsOf(other)) expect(inputsOf(funded)).to.not.include(input);
      await after.wallet.broadcast(funded.txid);
      await after.wallet.broadcast(other.txid);
      expect(await mempool()).to.include.members([funded.txid, other.txid]);
    });

    it("refuses a database of another key", () => {
      const file = tempFile("wallet.sqlite");
      newWallet({ file });
      expect(() => newWallet({ file })).to.throw(/belongs to/);
    });
  });

  describe("transactions that fall out of the mempool", () => {
    it("sends an evicted transaction and its evicted child again, parents first, until they confirm", async () => {
      const h = newWallet();
      await faucet(h.key.address, [20]);
      await h.wallet.sync();
      const parent = h.wallet.fund("job-e", "commit", [payTo(stranger, 2n * DOGE)]);
      const child = h.wallet.fund("job-f", "commit", [payTo(stranger, 2n * DOGE)]);
      expect(inputsOf(child)).to.deep.equal([`${parent.txid}:${parent.changeVout}`]);
      await h.wallet.broadcast(child.txid);
      expect(h.wallet.tx(parent.txid)!.state).to.equal("broadcast");
      const evicted = await devnet.rpc<{ evicted: string[] }>("devnet_evict", [parent.txid]);
      expect(evicted.evicted).to.deep.equal([parent.txid, child.txid]);
      expect(await mempool()).to.not.include.members([parent.txid]);

      await h.wallet.sync();
      expect(await mempool()).to.include.members([parent.txid, child.txid]);
      expect(h.wallet.tx(parent.txid)!.attempts).to.equal(2);
      await mine();
      await h.wallet.sync();
      expect(h.wallet.tx(parent.txid)!.state).to.equal("confirmed");
      expect(h.wallet.tx(child.txid)!.state).to.equal("confirmed");
      expect(h.events.replaced).to.deep.equal([]);
    });

    it("replaces one refused for its fee with a higher fee on the same inputs, rebuilds the wallet's children on it and fails the owner's", async () => {
      const h = newWallet();
      await faucet(h.key.address, [20]);
      await h.wallet.sync();
      const owner = newKey();
      const parent = h.wallet.fund("job-p", "commit", [payTo(owner, 3n * DOGE)]);
      const child = h.wallet.fund("job-q", "commit", [payTo(stranger, 2n * DOGE)]);
      // The owner's own transaction on output 0 of the parent (as a reveal spends a commit).
      const reveal = spendP2pkh(
        owner,
        [{ txid: parent.txid, vout: 0, value: 3n * DOGE }],
        [payTo(stranger, 3n * DOGE - DOGE / 100n)],
      );
      h.wallet.track("job-p", "reveal", reveal.hex);
      await h.wallet.broadcast(child.txid);
      await h.wallet.broadcast(decode(reveal.hex).txid);
      await devnet.rpc("devnet_evict", [parent.txid]);
      // The node now wants 0.015 DOGE/kB: the old fee (0.01 DOGE/kB) is refused, twice that is not.
      await devnet.rpc("devnet_setminrelayfee", [0.015]);
      try {
        await h.wallet.sync();
      } finally {
        await devnet.rpc("devnet_setminrelayfee", [0.001]);
      }
      const current = h.wallet.txOf("job-p", "commit")!;
      expect(current.txid).to.not.equal(parent.txid);
      expect(h.wallet.tx(parent.txid)).to.include({ state: "replaced", replacedBy: current.txid });
      const replacement = decode(current.hex);
      expect(inputsOf({ tx: replacement })).to.deep.equal(inputsOf(parent));
      expect(replacement.outputs[0]).to.deep.equal(parent.tx.outputs[0]);
      expect(current.feeKoinu).to.equal(dogecoinFee(replacement.size, replacement.outputs, 2n * RECOMMENDED_FEE_RATE));
      const rebuiltChild = h.wallet.txOf("job-q", "commit")!;
      expect(inputsOf({ tx: decode(rebuiltChild.hex) })).to.deep.equal([`${current.txid}:1`]);
      expect(h.events.replaced.map(([a, b]) => [a.txid, b.txid])).to.deep.equal([
        [parent.txid, current.txid],
        [child.txid, rebuiltChild.txid],
      ]);
      expect(h.wallet.txOf("job-p", "reveal")!.state).to.equal("failed");
      expect(h.events.failed.map((tx) => tx.label)).to.deep.equal(["reveal"]);
      expect(await mempool()).to.include.members([current.txid, rebuiltChild.txid]);
      verifyWithBitcore(
        current.hex,
        replacement.inputs.map(() => h.key.script),
      );

      // The owner rebuilds its transaction on the replacement under the same label.
      const rebuilt = spendP2pkh(
        owner,
        [{ txid: current.txid, vout: 0, value: 3n * DOGE }],
        [payTo(stranger, 3n * DOGE - DOGE / 100n)],
      );
      const tracked = h.wallet.track("job-p", "reveal", rebuilt.hex);
      expect(tracked.state).to.equal("signed");
      await h.wallet.broadcast(tracked.txid);
      await mine();
      await h.wallet.sync();
      for (const txid of [current.txid, rebuiltChild.txid, tracked.txid])
        expect(h.wallet.tx(txid)!.state).to.equal("confirmed");
    });
  });

  describe("conflicts", () => {
    it("fails a transaction whose input was spent elsewhere, with its descendants, and gives back the inputs the index still lists", async () => {
      const h = newWallet();
      const [first, second] = await faucet(h.key.address, [3, 3]);
      await h.wallet.sync();
      const parent = h.wallet.fund("job-x", "commit", [payTo(stranger, 5n * DOGE)]);
      expect(inputsOf(parent).sort()).to.deep.equal([`${first.txid}:0`, `${second.txid}:0`].sort());
      const child = h.wallet.fund("job-y", "commit", [payTo(stranger, DOGE / 2n)]);
      expect(inputsOf(child)).to.deep.equal([`${parent.txid}:1`]);

      // The same key spends the first coin elsewhere, and that gets mined.
      const elsewhere = spendP2pkh(h.key, [first], [payTo(stranger, 3n * DOGE - DOGE / 10n)]);
      await devnet.rpc("sendrawtransaction", [elsewhere.hex]);
      await mine();

      let thrown: unknown = null;
      try {
        await h.wallet.broadcast(child.txid);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(BroadcastError);
      expect((thrown as BroadcastError).reason).to.equal("conflict");
      expect(h.wallet.tx(parent.txid)!.state).to.equal("failed");
      expect(h.wallet.tx(child.txid)!.state).to.equal("failed");
      expect(h.events.failed.map((tx) => tx.txid)).to.deep.equal([parent.txid, child.txid]);
      // The second coin comes back after the hold; the first is gone; so is the change.
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 3n * DOGE,
        unconfirmedKoinu: 0n,
        lockedKoinu: 0n,
        spendableUtxos: 0,
      });
      h.clock.now += CONFLICT_HOLD_MS;
      expect(h.wallet.balance().spendableUtxos).to.equal(1);
      const again = h.wallet.fund("job-x2", "commit", [payTo(stranger, 2n * DOGE)]);
      expect(inputsOf(again)).to.deep.equal([`${second.txid}:0`]);
      await h.wallet.broadcast(again.txid);
      expect(await mempool()).to.include(again.txid);
    });

    it("fails a broadcast transaction that dropped out while another spend of its input confirmed", async () => {
      const h = newWallet();
      const [coin] = await faucet(h.key.address, [4]);
      await h.wallet.sync();
      const funded = h.wallet.fund("job-z", "commit", [payTo(stranger, DOGE)]);
      await h.wallet.broadcast(funded.txid);
      await devnet.rpc("devnet_evict", [funded.txid]);
      await devnet.rpc("sendrawtransaction", [spendP2pkh(h.key, [coin], [payTo(stranger, 3n * DOGE)]).hex]);
      await mine();
      await h.wallet.sync();
      expect(h.wallet.tx(funded.txid)).to.include({ state: "failed" });
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 0n,
        unconfirmedKoinu: 0n,
        lockedKoinu: 0n,
        spendableUtxos: 0,
      });
    });
  });

  describe("abandon", () => {
    it("gives back the inputs of a transaction never broadcast, and refuses once it was or once something spends it", async () => {
      const h = newWallet();
      await faucet(h.key.address, [10]);
      await h.wallet.sync();
      const first = h.wallet.fund("job-a", "commit", [payTo(stranger, DOGE)]);
      const child = h.wallet.fund("job-b", "commit", [payTo(stranger, DOGE)]);
      expect(() => h.wallet.abandon("job-a", "commit")).to.throw(/spends an output/);
      h.wallet.abandon("job-b", "commit");
      h.wallet.abandon("job-a", "commit");
      expect(h.wallet.txOf("job-a", "commit")).to.equal(null);
      expect(h.wallet.tx(child.txid)).to.equal(null);
      expect(h.wallet.balance()).to.deep.equal({
        confirmedKoinu: 10n * DOGE,
        unconfirmedKoinu: 0n,
        lockedKoinu: 0n,
        spendableUtxos: 1,
      });
      const again = h.wallet.fund("job-a", "commit", [payTo(stranger, DOGE)]);
      expect(inputsOf(again)).to.deep.equal(inputsOf(first));
      await h.wallet.broadcast(again.txid);
      expect(() => h.wallet.abandon("job-a", "commit")).to.throw(/was broadcast/);
    });
  });
});
