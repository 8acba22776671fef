import { expect } from "chai";
import {
  OP,
  bitsToTarget,
  bytesToHexReversed,
  compileScript,
  hexToBytes,
  parseBlock,
  parseTransactionHex,
  scryptPowHash,
  serializeHeader,
  nullDataScript,
} from "../../src/doge";
import { RpcCallError, RunningDevnet, startDevnet } from "../helpers/devnet";
import { TestKey, newKey, p2shAddressOf, spendP2pkh, spendP2shWithoutSignature } from "../helpers/keys";

const DOGE = 100_000_000n;
const GENESIS = "3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5";

async function expectRpcError(
  promise: Promise<unknown>,
  code: number,
  message?: string | RegExp,
): Promise<RpcCallError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(RpcCallError);
    const failure = error as RpcCallError;
    expect(failure.code, failure.message).to.equal(code);
    if (typeof message === "string") expect(failure.message).to.equal(message);
    else if (message) expect(failure.message).to.match(message);
    return failure;
  }
  throw new Error("expected the RPC call to fail");
}

describe("devnet", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  let miner: TestKey;

  /** A rejected transaction leaves the chain tip, the UTXO set and the mempool as they were. */
  async function expectRejected(hex: string, code: number, message?: string | RegExp): Promise<void> {
    const before = await Promise.all([
      devnet.rpc("getbestblockhash"),
      devnet.rpc<string[]>("getrawmempool"),
      devnet.rpc("gettxoutsetinfo"),
    ]);
    await expectRpcError(devnet.rpc("sendrawtransaction", [hex]), code, message);
    const after = await Promise.all([
      devnet.rpc("getbestblockhash"),
      devnet.rpc<string[]>("getrawmempool"),
      devnet.rpc("gettxoutsetinfo"),
    ]);
    expect(after).to.deep.equal(before);
  }

  /** Funds `key` through the faucet and confirms it; returns the spendable coin. */
  async function fund(key: TestKey, amountDoge: number) {
    const paid = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [key.address, amountDoge, true]);
    return { txid: paid.txid, vout: paid.vout, value: BigInt(Math.round(amountDoge * 1e8)) };
  }

  before(async () => {
    devnet = await startDevnet();
    miner = newKey();
  });

  after(async () => {
    await devnet?.stop();
  });

  describe("chain parameters", () => {
    it("starts at the Dogecoin regtest genesis block with its 88 DOGE output", async () => {
      expect(await devnet.rpc("getblockhash", [0])).to.equal(GENESIS);
      const genesis = await devnet.rpc<{ tx: { vout: { value: number }[] }[] }>("getblock", [GENESIS, 2]);
      expect(genesis.tx[0].vout[0].value).to.equal(88);
    });

    it("mines version 0x00620004 blocks paying 500,000 DOGE with a valid scrypt proof of work", async () => {
      const [hash] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
      const raw = await devnet.rpc<string>("getblock", [hash, 0]);
      const parsed = parseBlock(hexToBytes(raw));
      if (!parsed.ok) throw parsed.error;
      expect(parsed.value.hash).to.equal(hash);
      expect(parsed.value.header.version).to.equal(0x00620004);
      expect(parsed.value.auxpow).to.equal(null);
      expect(parsed.value.txs[0].outputs[0].value).to.equal(500_000n * DOGE);
      const pow = BigInt("0x" + bytesToHexReversed(scryptPowHash(serializeHeader(parsed.value.header))));
      expect(pow <= bitsToTarget(0x207fffff)).to.equal(true);
      const verbose = await devnet.rpc<{ versionHex: string; bits: string; height: number; confirmations: number }>(
        "getblock",
        [hash, true],
      );
      expect(verbose).to.include({ versionHex: "00620004", bits: "207fffff", confirmations: 1 });
      const header = await devnet.rpc<string>("getblockheader", [hash, false]);
      expect(header).to.equal(raw.slice(0, 160));
    });

    it("reports dogecoind's relay and dust policy in getnetworkinfo", async () => {
      const info = await devnet.rpc<Record<string, number>>("getnetworkinfo");
      expect(info).to.include({ relayfee: 0.001, incrementalfee: 0.0001, softdustlimit: 0.01, harddustlimit: 0.001 });
    });
  });

  describe("sendrawtransaction", () => {
    let alice: TestKey;
    let bob: TestKey;
    before(async () => {
      alice = newKey();
      bob = newKey();
    });

    it("accepts a signed P2PKH payment, mines it, and indexes it for getrawtransaction", async () => {
      const coin = await fund(alice, 100);
      const { hex, tx } = spendP2pkh(
        alice,
        [coin],
        [
          { script: bob.script, value: 40n * DOGE },
          { script: alice.script, value: 59n * DOGE },
        ],
      );
      const txid = await devnet.rpc<string>("sendrawtransaction", [hex]);
      expect(txid).to.equal(
        parseTransactionHex(hex).ok && (parseTransactionHex(hex) as { value: { txid: string } }).value.txid,
      );
      expect(await devnet.rpc<string[]>("getrawmempool")).to.include(txid);
      expect(await devnet.rpc("sendrawtransaction", [hex]), "resending a mempool tx returns its txid").to.equal(txid);
      const [blockHash] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
      const verbose = await devnet.rpc<{ blockhash: string; confirmations: number; vout: { value: number }[] }>(
        "getrawtransaction",
        [txid, 1],
      );
      expect(verbose.blockhash).to.equal(blockHash);
      expect(verbose.confirmations).to.equal(1);
      expect(verbose.vout[0].value).to.equal(40);
      expect(tx.outputs.length).to.equal(2);
      const out = await devnet.rpc<{ value: number; confirmations: number }>("gettxout", [txid, 0]);
      expect(out).to.include({ value: 40, confirmations: 1 });
      await expectRejected(hex, -27, "transaction already in block chain");
    });

    it("refuses a double spend of a mempool input with 258: txn-mempool-conflict", async () => {
      const coin = await fund(alice, 10);
      const first = spendP2pkh(alice, [coin], [{ script: bob.script, value: 9n * DOGE }]);
      const second = spendP2pkh(alice, [coin], [{ script: alice.script, value: 9n * DOGE }]);
      await devnet.rpc("sendrawtransaction", [first.hex]);
      await expectRejected(second.hex, -26, "258: txn-mempool-conflict");
    });

    it("answers -25 Missing inputs for an unknown outpoint", async () => {
      const fake = { txid: "11".repeat(32), vout: 0, value: DOGE };
      await expectRejected(
        spendP2pkh(alice, [fake], [{ script: bob.script, value: DOGE / 2n }]).hex,
        -25,
        "Missing inputs",
      );
    });

    it("refuses a spend of an output already spent in the chain with 18: bad-txns-inputs-spent", async () => {
      const coin = await fund(alice, 10);
      const spend = spendP2pkh(alice, [coin], [{ script: bob.script, value: 9n * DOGE }]);
      await devnet.rpc("sendrawtransaction", [spend.hex]);
      await devnet.rpc("generatetoaddress", [1, miner.address]);
      const again = spendP2pkh(alice, [coin], [{ script: alice.script, value: 8n * DOGE }]);
      await expectRejected(again.hex, -26, "18: bad-txns-inputs-spent");
    });

    it("refuses outputs worth more than the inputs with 16: bad-txns-in-belowout", async () => {
      const coin = await fund(alice, 10);
      await expectRejected(
        spendP2pkh(alice, [coin], [{ script: bob.script, value: 11n * DOGE }]).hex,
        -26,
        "16: bad-txns-in-belowout",
      );
    });

    it("refuses a fee below 0.001 DOGE/kB with 66: min relay fee not met", async () => {
      const coin = await fund(alice, 10);
      const hex = spendP2pkh(alice, [coin], [{ script: bob.script, value: 10n * DOGE - 100n }]).hex;
      await expectRejected(hex, -26, "66: min relay fee not met");
    });

    it("charges 0.01 DOGE extra for each output below the soft dust limit", async () => {
      const coin = await fund(alice, 10);
      const smallOutput = 500_000n; // 0.005 DOGE: above the hard limit, below the soft one
      const tooCheap = spendP2pkh(
        alice,
        [coin],
        [
          { script: bob.script, value: smallOutput },
          { script: alice.script, value: 10n * DOGE - smallOutput - 500_000n },
        ],
      );
      await expectRejected(tooCheap.hex, -26, "66: min relay fee not met");
      const paying = spendP2pkh(
        alice,
        [coin],
        [
          { script: bob.script, value: smallOutput },
          { script: alice.script, value: 10n * DOGE - smallOutput - 1_100_000n },
        ],
      );
      expect(await devnet.rpc("sendrawtransaction", [paying.hex])).to.be.a("string");
    });

    it("refuses an output below the hard dust limit with 64: dust", async () => {
      const coin = await fund(alice, 10);
      const hex = spendP2pkh(
        alice,
        [coin],
        [
          { script: bob.script, value: 50_000n },
          { script: alice.script, value: 9n * DOGE },
        ],
      ).hex;
      await expectRejected(hex, -26, "64: dust");
    });

    it("refuses a signature by the wrong key through the script interpreter", async () => {
      const coin = await fund(alice, 10);
      const forged = spendP2pkh(
        { ...bob, script: alice.script },
        [coin],
        [{ script: bob.script, value: 9n * DOGE }],
      ).hex;
      await expectRejected(
        forged,
        -26,
        /^16: mandatory-script-verify-flag-failed \(Script failed an OP_EQUALVERIFY operation\)$/,
      );
    });

    it("refuses to spend an immature coinbase with 16: bad-txns-premature-spend-of-coinbase", async () => {
      const carol = newKey();
      const [hash] = await devnet.rpc<string[]>("generatetoaddress", [1, carol.address]);
      const block = await devnet.rpc<{ tx: string[] }>("getblock", [hash, 1]);
      const coin = { txid: block.tx[0], vout: 0, value: 500_000n * DOGE };
      const hex = spendP2pkh(carol, [coin], [{ script: bob.script, value: 499_999n * DOGE }]).hex;
      await expectRejected(hex, -26, "16: bad-txns-premature-spend-of-coinbase");
    });

    it("answers -22 TX decode failed for bytes that are not a transaction", async () => {
      await expectRejected("00ff", -22, "TX decode failed");
      await expectRpcError(devnet.rpc("decoderawtransaction", ["zz"]), -22, "TX decode failed");
    });

    it("accepts one OP_RETURN output of up to 80 bytes and refuses two", async () => {
      const coin = await fund(alice, 10);
      const one = spendP2pkh(
        alice,
        [coin],
        [
          { script: nullDataScript(new Uint8Array(80).fill(7)), value: 0n },
          { script: alice.script, value: 9n * DOGE },
        ],
      );
      const two = spendP2pkh(
        alice,
        [coin],
        [
          { script: nullDataScript(Uint8Array.of(1)), value: 0n },
          { script: nullDataScript(Uint8Array.of(2)), value: 0n },
          { script: alice.script, value: 9n * DOGE },
        ],
      );
      await expectRejected(two.hex, -26, "64: multi-op-return");
      expect(await devnet.rpc("sendrawtransaction", [one.hex])).to.be.a("string");
    });
  });

  describe("OP_NOP10 (OP_CHECKZKP) policy", () => {
    it("refuses a spend that executes OP_NOP10 like dogecoind, and mines it once the mempool is promiscuous", async () => {
      const funder = newKey();
      const coin = await fund(funder, 20);
      const redeemScript = compileScript([OP.OP_NOP10, OP.OP_1]);
      const p2sh = p2shAddressOf(redeemScript);
      const commit = spendP2pkh(funder, [coin], [{ script: p2sh.script, value: 19n * DOGE }]);
      const commitTxid = await devnet.rpc<string>("sendrawtransaction", [commit.hex]);
      await devnet.rpc("generatetoaddress", [1, miner.address]);
      const reveal = spendP2shWithoutSignature(redeemScript, { txid: commitTxid, vout: 0, value: 19n * DOGE }, [
        { script: funder.script, value: 18n * DOGE },
      ]);
      await expectRejected(reveal, -26, "64: non-mandatory-script-verify-flag (NOPx reserved for soft-fork upgrades)");
      await devnet.rpc("devnet_setpromiscuousmempool", [true]);
      try {
        const txid = await devnet.rpc<string>("sendrawtransaction", [reveal]);
        const [hash] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
        const block = await devnet.rpc<{ tx: string[] }>("getblock", [hash, 1]);
        expect(block.tx).to.include(txid);
      } finally {
        await devnet.rpc("devnet_setpromiscuousmempool", [false]);
      }
    });
  });

  describe("reorganisations", () => {
    for (const depth of [3, 10]) {
      it(`replaces a ${depth}-block branch after invalidateblock, returning its transactions to the mempool`, async () => {
        const dave = newKey();
        const coin = await fund(dave, 50);
        const startHeight = await devnet.rpc<number>("getblockcount");
        const payment = spendP2pkh(dave, [coin], [{ script: miner.script, value: 49n * DOGE }]);
        const txid = await devnet.rpc<string>("sendrawtransaction", [payment.hex]);
        const oldBranch = await devnet.rpc<string[]>("generatetoaddress", [depth, miner.address]);
        expect((await devnet.rpc<{ confirmations: number }>("getrawtransaction", [txid, 1])).confirmations).to.equal(
          depth,
        );

        const oldCoinbase = (await devnet.rpc<{ tx: string[] }>("getblock", [oldBranch[0], 1])).tx[0];
        await devnet.rpc("invalidateblock", [oldBranch[0]]);
        expect(await devnet.rpc("getblockcount")).to.equal(startHeight);
        expect(await devnet.rpc<string[]>("getrawmempool"), "the payment is back in the mempool").to.include(txid);
        expect(await devnet.rpc("gettxout", [oldCoinbase, 0]), "the old coinbase left the UTXO set").to.equal(null);

        const newBranch = await devnet.rpc<string[]>("generatetoaddress", [depth + 1, dave.address]);
        expect(await devnet.rpc("getbestblockhash")).to.equal(newBranch[newBranch.length - 1]);
        expect(await devnet.rpc("getblockcount")).to.equal(startHeight + depth + 1);
        const moved = await devnet.rpc<{ blockhash: string }>("getrawtransaction", [txid, 1]);
        expect(moved.blockhash).to.equal(newBranch[0]);
        const oldBlock = await devnet.rpc<{ confirmations: number }>("getblock", [oldBranch[depth - 1]]);
        expect(oldBlock.confirmations).to.equal(-1);

        await devnet.rpc("reconsiderblock", [oldBranch[0]]);
        expect(await devnet.rpc("getbestblockhash"), "the shorter branch does not win back").to.equal(
          newBranch[newBranch.length - 1],
        );
        const tips = await devnet.rpc<{ hash: string; status: string; branchlen: number }[]>("getchaintips");
        expect(tips).to.deep.include({
          height: startHeight + depth,
          hash: oldBranch[depth - 1],
          branchlen: depth,
          status: "valid-fork",
        });
      });
    }
  });

  it("does not resurrect outputs created and spent inside a disconnected block", async () => {
    const erin = newKey();
    const coin = await fund(erin, 30);
    const parent = spendP2pkh(erin, [coin], [{ script: erin.script, value: 29n * DOGE }]);
    const parentTxid = await devnet.rpc<string>("sendrawtransaction", [parent.hex]);
    const child = spendP2pkh(
      erin,
      [{ txid: parentTxid, vout: 0, value: 29n * DOGE }],
      [{ script: miner.script, value: 28n * DOGE }],
    );
    const childTxid = await devnet.rpc<string>("sendrawtransaction", [child.hex]);
    const [hash] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
    await devnet.rpc("invalidateblock", [hash]);
    expect(
      await devnet.rpc("gettxout", [parentTxid, 0, false]),
      "the parent's output is not a confirmed coin",
    ).to.equal(null);
    expect((await devnet.rpc<string[]>("getrawmempool")).sort()).to.include.members([parentTxid, childTxid]);
    const [again] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
    const block = await devnet.rpc<{ tx: string[] }>("getblock", [again, 1]);
    expect(block.tx.indexOf(parentTxid)).to.be.lessThan(block.tx.indexOf(childTxid)).and.greaterThan(0);
  });

  describe("RPC errors", () => {
    it("answers an unknown method with HTTP 404 and -32601", async () => {
      const reply = await devnet.rpcRaw("getfoo");
      expect(reply.status).to.equal(404);
      expect(reply.body!.error!.code).to.equal(-32601);
    });

    it("answers malformed JSON with -32700 and wrong parameter types as Core 1.14 does (-1 or -3), never crashing", async () => {
      const endpoint = new URL(devnet.url);
      const auth = "Basic " + Buffer.from(`${endpoint.username}:${endpoint.password}`).toString("base64");
      const reply = await fetch(`${endpoint.protocol}//${endpoint.host}/`, {
        method: "POST",
        headers: { Authorization: auth },
        body: "{not json",
      });
      expect(reply.status).to.equal(500);
      expect(((await reply.json()) as { error: { code: number } }).error.code).to.equal(-32700);
      await expectRpcError(devnet.rpc("getblockhash", ["ten"]), -1, "JSON value is not an integer as expected");
      await expectRpcError(devnet.rpc("getblock", [42]), -1, "JSON value is not a string as expected");
      await expectRpcError(devnet.rpc("sendrawtransaction", [{}]), -3);
      expect(await devnet.rpc("getblockcount")).to.be.a("number");
    });

    it("answers wrong credentials with HTTP 401 and no body", async () => {
      const reply = await devnet.rpcRaw("getblockcount", [], "Basic " + Buffer.from("devnet:wrong").toString("base64"));
      expect(reply.status).to.equal(401);
      expect(reply.body).to.equal(null);
    });

    it("answers dogecoind's codes for missing blocks, bad heights and bad hashes", async () => {
      await expectRpcError(devnet.rpc("getblockhash", [1_000_000]), -8, "Block height out of range");
      await expectRpcError(devnet.rpc("getblock", ["00".repeat(32)]), -5, "Block not found");
      await expectRpcError(devnet.rpc("getblock", ["xyz"]), -5, "Block not found");
      await expectRpcError(devnet.rpc("getrawtransaction", ["00".repeat(32)]), -5);
      await expectRpcError(devnet.rpc("invalidateblock", ["00".repeat(32)]), -5, "Block not found");
      await expectRpcError(
        devnet.rpc("generatetoaddress", [1, "DJ9uBk5Kq8Ex6Y5dwLCBgwp3vAAu8bTR9H"]),
        -5,
        "Error: Invalid address",
      );
      await expectRpcError(devnet.rpc("getblockcount", [1]), -1);
    });

    it("validates addresses and messages like dogecoind", async () => {
      expect(await devnet.rpc("validateaddress", [miner.address])).to.include({ isvalid: true, isscript: false });
      expect(await devnet.rpc("validateaddress", ["DJ9uBk5Kq8Ex6Y5dwLCBgwp3vAAu8bTR9H"])).to.deep.equal({
        isvalid: false,
      });
      await expectRpcError(devnet.rpc("verifymessage", ["nope", "AAAA", "hi"]), -3, "Invalid address");
    });
  });
});

describe("devnet submitblock", function () {
  this.timeout(120_000);

  it("accepts another node's blocks with full validation and answers BIP22 codes", async () => {
    const [source, target] = await Promise.all([startDevnet(), startDevnet()]);
    try {
      const key = newKey();
      await source.rpc("devnet_faucet", [key.address, 10, true]); // mines 61+ blocks, one with a payment
      const height = await source.rpc<number>("getblockcount");
      for (let h = 1; h <= height; h++) {
        const raw = await source.rpc<string>("getblock", [await source.rpc<string>("getblockhash", [h]), 0]);
        expect(await target.rpc("submitblock", [raw]), `block ${h}`).to.equal(null);
      }
      expect(await target.rpc("getbestblockhash")).to.equal(await source.rpc("getbestblockhash"));
      const tipRaw = await source.rpc<string>("getblock", [await source.rpc<string>("getbestblockhash"), 0]);
      expect(await target.rpc("submitblock", [tipRaw])).to.equal("duplicate");

      // A block whose transactions do not match its merkle root (the header, and so its proof of work, unchanged).
      await source.rpc("devnet_faucet", [key.address, 1, true]);
      const next = await source.rpc<string>("getblock", [await source.rpc<string>("getbestblockhash"), 0]);
      const tampered = next.slice(0, -8) + "01000000"; // last transaction's lock time
      expect(await target.rpc("submitblock", [tampered])).to.equal("bad-txnmrklroot");
      expect(await target.rpc("submitblock", [next])).to.equal(null);
      await expectRpcError(target.rpc("submitblock", ["00"]), -22, "Block decode failed");
    } finally {
      await Promise.all([source.stop(), target.stop()]);
    }
  });
});

describe("devnet persistence", function () {
  this.timeout(120_000);

  it("keeps its chain and mempool across a clean restart", async () => {
    let devnet = await startDevnet();
    const key = newKey();
    const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [key.address, 5, false]);
    const tip = await devnet.rpc<string>("getbestblockhash");
    await devnet.stop();
    devnet = await startDevnet({ dataDir: devnet.dataDir });
    try {
      expect(await devnet.rpc("getbestblockhash")).to.equal(tip);
      expect(await devnet.rpc<string[]>("getrawmempool")).to.deep.equal([paid.txid]);
    } finally {
      await devnet.stop();
    }
  });

  it("comes back at a consistent tip after kill -9 in the middle of mining", async () => {
    let devnet = await startDevnet();
    const key = newKey();
    await devnet.rpc("generatetoaddress", [20, key.address]);
    const mining = devnet.rpc("generatetoaddress", [200, key.address]).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await devnet.crash();
    await mining;
    devnet = await startDevnet({ dataDir: devnet.dataDir });
    try {
      const height = await devnet.rpc<number>("getblockcount");
      expect(height).to.be.at.least(20);
      // Every block up to the tip is readable and links to its parent.
      let previous = await devnet.rpc<string>("getblockhash", [0]);
      for (let h = 1; h <= height; h++) {
        const hash = await devnet.rpc<string>("getblockhash", [h]);
        const header = await devnet.rpc<{ previousblockhash: string; height: number }>("getblockheader", [hash]);
        expect(header.previousblockhash).to.equal(previous);
        previous = hash;
      }
      const info = await devnet.rpc<{ txouts: number }>("gettxoutsetinfo");
      expect(info.txouts).to.equal(height, "one coinbase output per block; the genesis output is unspendable");
      await devnet.rpc("generatetoaddress", [1, key.address]);
      expect(await devnet.rpc("getblockcount")).to.equal(height + 1);
    } finally {
      await devnet.stop();
    }
  });
});
