import { expect } from "chai";
import { NETWORKS, OP, compileScript, hexToBytes } from "../../src/doge";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { ZkpShadowService } from "../../src/indexer/zkp-shadow";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey, p2shAddressOf, spendP2pkh } from "../helpers/keys";
import vectors from "../vectors/zkp-groth16.json";
import { Transaction, bytesToHex, serializeTransaction, signInput, concatBytes } from "../../src/doge";

const DOGE = 100_000_000n;

/** The 16 data items (proof, public inputs, key) of a vector's mode-0 script. */
function proofItems(description: string): Uint8Array[] {
  const vector = (vectors.valid as { description: string; input: { script_asm: string } }[]).find((v) =>
    v.description.startsWith(description),
  )!;
  return vector.input.script_asm
    .split(" ")
    .filter((token) => !token.startsWith("OP_"))
    .map((hex) => hexToBytes(hex));
}

/**
 * A P2SH redeem script that checks a mode-0 proof whose 16 items come from the scriptSig:
 * OP_0 OP_CHECKZKP, then drop the mode and the 16 items and leave true.
 */
const VERIFY_REDEEM = compileScript([OP.OP_0, OP.OP_CHECKZKP, OP.OP_DROP, ...Array(8).fill(OP.OP_2DROP), OP.OP_1]);
const STRAY_REDEEM = compileScript([OP.OP_CHECKZKP, OP.OP_1]);

describe("indexer: OP_CHECKZKP capture and shadow verification on the devnet", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  before(async () => {
    // Like Dogecoin's own regtest (no standardness requirement) and a miner that takes NOP10 spends.
    devnet = await startDevnet({ args: ["--promiscuousmempool", "--acceptnonstdtxn"] });
  });
  after(async () => {
    await devnet?.stop();
  });

  async function spendRedeem(redeemScript: Uint8Array, items: Uint8Array[]): Promise<string> {
    const funder = newKey();
    const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [funder.address, 20, true]);
    const p2sh = p2shAddressOf(redeemScript);
    const commit = spendP2pkh(
      funder,
      [{ txid: paid.txid, vout: 0, value: 20n * DOGE }],
      [{ script: p2sh.script, value: 19n * DOGE }],
    );
    const commitTxid = await devnet.rpc<string>("sendrawtransaction", [commit.hex]);
    const reveal: Transaction = {
      version: 1,
      inputs: [
        { prevTxid: commitTxid, vout: 0, scriptSig: compileScript([...items, redeemScript]), sequence: 0xffffffff },
      ],
      outputs: [{ value: 18n * DOGE, script: funder.script }],
      locktime: 0,
    };
    return devnet.rpc<string>("sendrawtransaction", [bytesToHex(serializeTransaction(reveal))]);
  }

  it("records valid, invalid and stray uses and writes the verifier's verdicts after indexing", async () => {
    const valid = await spendRedeem(VERIFY_REDEEM, proofItems("verifies the first snarkjs proof"));
    const wrongInput = await spendRedeem(
      VERIFY_REDEEM,
      proofItems("rejects the first proof with public input 0 changed"),
    );
    const stray = await spendRedeem(STRAY_REDEEM, []);
    await devnet.rpc("generatetoaddress", [1, newKey().address]);

    const db = openIndexerDatabase(":memory:");
    const indexer = new Indexer({
      store: new IndexerStore(db),
      source: new RpcChainSource(new DogecoinRpcClient({ url: devnet.url })),
      network: NETWORKS.regtest,
    });
    await indexer.syncOnce();
    const row = (txid: string) =>
      db
        .prepare(
          "SELECT role, input_index, mode, mode_name, parse_error, shadow_valid, shadow_encoding, verified_at FROM zkp_uses WHERE tx_id = (SELECT id FROM txs WHERE txid = ?)",
        )
        .get(Buffer.from(txid, "hex")) as Record<string, unknown>;
    expect(row(valid)).to.include({
      role: "redeem_script",
      input_index: 0,
      mode: 0,
      mode_name: "groth16-bls12-381",
      parse_error: null,
      shadow_valid: null,
    });
    expect(row(stray).mode).to.equal(null);
    expect(row(stray).parse_error).to.be.a("string");

    const shadow = new ZkpShadowService(db);
    expect(shadow.enqueuePending()).to.equal(2);
    expect(await shadow.drain()).to.equal(2);
    expect(row(valid)).to.include({ shadow_valid: 1, shadow_encoding: "affine-be" });
    expect(row(wrongInput)).to.include({ shadow_valid: 0, shadow_encoding: "affine-be" });
    expect(row(stray).shadow_valid).to.equal(null);
    expect(shadow.enqueuePending(), "nothing is verified twice").to.equal(0);
  });

  it("captures uses in an output script and in a scriptSig too", async () => {
    const items = proofItems("verifies the second snarkjs proof");
    const owner = newKey();
    const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [owner.address, 20, true]);
    // Output role: the proof sits in a (non-standard) scriptPubKey.
    const outputScript = compileScript([
      ...items,
      OP.OP_0,
      OP.OP_CHECKZKP,
      OP.OP_DROP,
      ...Array(8).fill(OP.OP_2DROP),
      OP.OP_1,
    ]);
    const withOutput = spendP2pkh(
      owner,
      [{ txid: paid.txid, vout: 0, value: 20n * DOGE }],
      [
        { script: outputScript, value: 5n * DOGE },
        { script: owner.script, value: 14n * DOGE },
      ],
    );
    const outputTxid = await devnet.rpc<string>("sendrawtransaction", [withOutput.hex]);
    // Input role: the proof and the opcode run in the scriptSig of a P2PKH spend.
    const spend: Transaction = {
      version: 1,
      inputs: [{ prevTxid: outputTxid, vout: 1, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
      outputs: [{ value: 13n * DOGE, script: owner.script }],
      locktime: 0,
    };
    const signature = signInput(spend, 0, owner.script, owner.privateKey);
    spend.inputs[0].scriptSig = concatBytes(
      compileScript([...items, OP.OP_0, OP.OP_CHECKZKP, OP.OP_DROP, ...Array(8).fill(OP.OP_2DROP)]),
      compileScript([signature, owner.publicKey]),
    );
    const inputTxid = await devnet.rpc<string>("sendrawtransaction", [bytesToHex(serializeTransaction(spend))]);
    await devnet.rpc("generatetoaddress", [1, newKey().address]);

    const db = openIndexerDatabase(":memory:");
    const indexer = new Indexer({
      store: new IndexerStore(db),
      source: new RpcChainSource(new DogecoinRpcClient({ url: devnet.url })),
      network: NETWORKS.regtest,
    });
    await indexer.syncOnce();
    const shadow = new ZkpShadowService(db);
    shadow.enqueuePending();
    await shadow.drain();
    const outputUse = db
      .prepare(
        "SELECT role, output_index, mode, shadow_valid FROM zkp_uses WHERE tx_id = (SELECT id FROM txs WHERE txid = ?) AND role = 'output'",
      )
      .get(Buffer.from(outputTxid, "hex"));
    const inputUse = db
      .prepare(
        "SELECT role, input_index, mode, shadow_valid FROM zkp_uses WHERE tx_id = (SELECT id FROM txs WHERE txid = ?) AND role = 'input'",
      )
      .get(Buffer.from(inputTxid, "hex"));
    expect(outputUse).to.deep.equal({ role: "output", output_index: 0, mode: 0, shadow_valid: 1 });
    expect(inputUse).to.deep.equal({ role: "input", input_index: 0, mode: 0, shadow_valid: 1 });
  });
});
