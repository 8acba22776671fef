import { expect } from "chai";
import {
  DecodedTransaction,
  NETWORKS,
  OP,
  Transaction,
  bytesToHex,
  compileScript,
  concatBytes,
  hexToBytes,
  nullDataScript,
  parseBlock,
  p2pkhScriptSig,
  serializeTransaction,
  sha256,
  signInput,
} from "../../src/doge";
import type { SqlDatabase } from "../../src/db/sql";
import {
  Drc20Operation,
  encodeDrc20,
  encodeLaunchpadDeploy,
  encodeLaunchpadMint,
  envelopeHash,
} from "../../src/inscription";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { BlockRpc, RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { ZkpShadowService } from "../../src/indexer/zkp-shadow";
import { dumpDatabase } from "../helpers/db-dump";
import { forEachIndexBackend } from "../helpers/index-backends";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import {
  InscribeResult,
  KOINU_PER_DOGE as DOGE,
  POSTAGE_KOINU,
  SendResult,
  TX_FEE_KOINU,
  V1Commit,
  commitP2sh,
  commitV1,
  inscribeDoginals,
  inscribeV1,
  pay,
  sendInscription,
} from "../helpers/inscribe";
import { Spendable, TestKey, newKey } from "../helpers/keys";
import vectors from "../vectors/zkp-groth16.json";

/**
 * One scenario on one devnet, indexed incrementally block by block as it happens, then reorganised
 * six blocks deep: every protocol the indexer derives (payments, inscriptions of both forms and
 * their koinu, DRC-20, OP_RETURN, OP_CHECKZKP, launchpad collections) is checked field by field,
 * and at the end the incrementally synced database must equal a fresh index of the final chain.
 */

const utf8 = (text: string) => new TextEncoder().encode(text);
const TEXT = "text/plain;charset=utf-8";
const SHADOW_CLOCK = () => 1_700_000_000;

/** Deterministic bytes that are not all alike. */
function pattern(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/** The 16 data items (proof, public inputs, key) of a vector's mode-0 script. */
function proofItems(description: string): Uint8Array[] {
  const vector = (vectors.valid as { description: string; input: { script_asm: string } }[]).find((v) =>
    v.description.startsWith(description),
  );
  if (!vector) throw new Error(`no vector "${description}"`);
  return vector.input.script_asm
    .split(" ")
    .filter((token) => !token.startsWith("OP_"))
    .map((item) => hexToBytes(item));
}

/** Drops the mode and the 16 items, leaves true: OP_DROP then 8 x OP_2DROP. */
const DROP_PROOF = [OP.OP_DROP, ...Array<number>(8).fill(OP.OP_2DROP)];
const VERIFY_REDEEM = compileScript([OP.OP_0, OP.OP_CHECKZKP, ...DROP_PROOF, OP.OP_1]);
const STRAY_REDEEM = compileScript([OP.OP_CHECKZKP, OP.OP_1]);

function blockRpc(devnet: RunningDevnet): BlockRpc {
  return {
    getBlockCount: () => devnet.rpc<number>("getblockcount"),
    getBlockHash: (height) => devnet.rpc<string>("getblockhash", [height]),
    getBlockHex: (hash) => devnet.rpc<string>("getblock", [hash, false]),
  };
}

function newIndexer(db: SqlDatabase, devnet: RunningDevnet, options: { batchBlocks?: number } = {}): Indexer {
  const store = new IndexerStore(db);
  return new Indexer({ store, source: new RpcChainSource(blockRpc(devnet)), network: NETWORKS.regtest, ...options });
}

interface MinedBlock {
  hash: string;
  height: number;
  txids: string[];
  coinbase: DecodedTransaction;
}

/** A key's coins, spent in turn (fresh change goes to the back, so consecutive spends rarely chain in the mempool). */
class Purse {
  constructor(
    readonly key: TestKey,
    private readonly coins: Spendable[] = [],
  ) {}
  /** The first coin worth at least `minimumKoinu`. */
  take(minimumKoinu = 0n): Spendable {
    const index = this.coins.findIndex((coin) => coin.value >= minimumKoinu);
    if (index < 0) throw new Error(`${this.key.address} has no coin of ${minimumKoinu} koinu left`);
    return this.coins.splice(index, 1)[0];
  }
  give(coin: Spendable | null): void {
    if (coin) this.coins.push(coin);
  }
}

forEachIndexBackend("indexer end to end on the devnet", function ({ backend, openIndex }) {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  const alice = newKey();
  const bob = newKey();
  const carol = newKey();
  const dave = newKey();
  const erin = newKey();
  const mallory = newKey();
  const miner = newKey();
  const alicePurse = new Purse(alice);
  const malloryPurse = new Purse(mallory);
  let carolCoin: Spendable;

  // Byte columns are compared as lower-case hex (the portable way: hex() is SQLite's alone).
  const hexed = (row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v]),
    );
  // Schema version 9 keeps ids where version 8 kept hex txids, inscription ids and addresses: these
  // derived tables show the rows with that text again, so the expectations name what a reader sees.
  const hx = (column: string) => (backend === "postgres" ? `encode(${column}, 'hex')` : `lower(hex(${column}))`);
  const txText = (column: string) => `(SELECT ${hx("x.txid")} FROM txs x WHERE x.id = ${column})`;
  const idText = (column: string) => `(SELECT ${hx("x.txid")} || 'i0' FROM txs x WHERE x.id = ${column})`;
  const addressText = (column: string) => `(SELECT x.address FROM addresses x WHERE x.id = ${column})`;
  const asText = {
    inscriptions: `(SELECT ${idText("r.id")} AS id, number, form, content_type, action, body, body_size, envelope_hash,
      collection_key, ${txText("r.id")} AS genesis_txid, ${txText("r.reveal_tx_id")} AS reveal_txid, reveal_tx_count,
      ${addressText("r.inscriber_id")} AS inscriber_address, height, position FROM inscriptions r) AS inscriptions_text`,
    inscription_locations: `(SELECT ${idText("r.inscription_id")} AS inscription_id, ${txText("r.tx_id")} AS txid, vout, "offset",
      ${addressText("r.owner_id")} AS owner_address, height FROM inscription_locations r) AS locations_text`,
    inscription_moves: `(SELECT ${idText("r.inscription_id")} AS inscription_id, height, position, ${txText("r.tx_id")} AS txid, kind,
      ${txText("r.to_tx_id")} AS to_txid, to_vout, to_offset, ${addressText("r.owner_id")} AS owner_address FROM inscription_moves r) AS moves_text`,
    drc20_ticks: `(SELECT tick_key, tick, max_supply, mint_limit, minted, ${addressText("r.deployer_id")} AS deployer_address,
      ${idText("r.inscription_id")} AS inscription_id, height FROM drc20_ticks r) AS ticks_text`,
    drc20_balances: `(SELECT ${addressText("r.address_id")} AS address, tick_key, available, transferable FROM drc20_balances r) AS balances_text`,
    drc20_transfers: `(SELECT ${idText("r.inscription_id")} AS inscription_id, tick_key, amount, ${addressText("r.owner_id")} AS owner_address,
      sent, ${addressText("r.receiver_id")} AS receiver_address, returned, height, sent_height FROM drc20_transfers r) AS transfers_text`,
    drc20_operations: `(SELECT height, position, seq, ${idText("r.inscription_id")} AS inscription_id, event, op, tick_key, tick, amount,
      ${addressText("r.address_id")} AS address, valid, reason, note FROM drc20_operations r) AS operations_text`,
    collections: `(SELECT slug, name, price_koinu, max_supply, ${addressText("r.inscriber_id")} AS inscriber_address,
      ${idText("r.deploy_inscription")} AS deploy_inscription, height, minted_count FROM collections r) AS collections_text`,
    collection_members: `(SELECT slug, token_id, ${idText("r.inscription_id")} AS inscription_id, height FROM collection_members r) AS members_text`,
    launchpad_operations: `(SELECT ${idText("r.inscription_id")} AS inscription_id, height, position, op, slug, token_id, valid, reason
      FROM launchpad_operations r) AS launchpad_text`,
    op_returns: `(SELECT ${txText("r.tx_id")} AS txid, vout, height, position, payload, magic, sha256, size
      FROM op_returns r) AS op_returns_text`,
    zkp_uses: `(SELECT ${txText("r.tx_id")} AS txid, height, position, role, input_index, output_index, op_index, mode, mode_name,
      proof_hex, vk_hex, vk_sha256, public_inputs, parse_error, shadow_valid FROM zkp_uses r) AS zkp_text`,
  };
  const get = (sql: string, ...params: unknown[]) => {
    const row = indexer.store.db.prepare(sql).get(...params) as Record<string, unknown> | undefined;
    return row && hexed(row);
  };
  const all = (sql: string, ...params: unknown[]) =>
    (indexer.store.db.prepare(sql).all(...params) as Record<string, unknown>[]).map(hexed);
  const inscriptionRow = (id: string) =>
    get(
      `SELECT id, number, form, content_type, action, body, body_size, envelope_hash, collection_key,
    genesis_txid, reveal_txid, reveal_tx_count, inscriber_address, height, position FROM ${asText.inscriptions} WHERE id = ?`,
      id,
    );
  const location = (id: string) =>
    get(
      `SELECT txid, vout, "offset", owner_address, height FROM ${asText.inscription_locations} WHERE inscription_id = ?`,
      id,
    );
  const moves = (id: string) =>
    all(
      `SELECT height, position, txid, kind, to_txid, to_vout, to_offset, owner_address FROM ${asText.inscription_moves}
      WHERE inscription_id = ? ORDER BY height, position, kind`,
      id,
    );
  const balanceOf = (address: string) =>
    get(
      "SELECT s.confirmed, s.tx_count FROM addresses a JOIN address_stats s ON s.id = a.id WHERE a.address = ?",
      address,
    );
  // Schema version 8 keys transactions by an integer id; the tests name them by txid.
  const key = (txid: string) => Buffer.from(txid, "hex");
  const drc20Balances = () =>
    Object.fromEntries(
      all(`SELECT address, tick_key, available, transferable FROM ${asText.drc20_balances}`).map((row) => [
        `${row.address}/${row.tick_key}`,
        { available: row.available, transferable: row.transferable },
      ]),
    );

  async function describeBlock(hash: string): Promise<MinedBlock> {
    const verbose = await devnet.rpc<{ height: number; tx: string[] }>("getblock", [hash, 1]);
    const parsed = parseBlock(hexToBytes(await devnet.rpc<string>("getblock", [hash, false])));
    if (!parsed.ok) throw parsed.error;
    return { hash, height: verbose.height, txids: verbose.tx, coinbase: parsed.value.txs[0] };
  }

  /** Mines one block paying the miner and indexes it. */
  async function mine(): Promise<MinedBlock> {
    const [hash] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
    await indexer.syncOnce();
    return describeBlock(hash);
  }

  /** Position of a transaction in a block (failing when it is not there). */
  function at(block: MinedBlock, txid: string): number {
    const position = block.txids.indexOf(txid);
    expect(position, `${txid} in block ${block.height}`).to.be.greaterThan(0);
    return position;
  }

  before(async () => {
    devnet = await startDevnet({ args: ["--promiscuousmempool", "--acceptnonstdtxn"] });
    indexer = newIndexer(await openIndex(), devnet, { batchBlocks: 3 });
    const funded = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [alice.address, 20_000, true]);
    alicePurse.give({ txid: funded.txid, vout: funded.vout, value: 20_000n * DOGE });
    await indexer.syncOnce();
  });
  after(async () => {
    await devnet?.stop();
  });

  // ------------------------------------------------------------------------------------ payments

  let payment: Awaited<ReturnType<typeof pay>>;
  let bobPays: Awaited<ReturnType<typeof pay>>;
  let paymentBlock: MinedBlock;
  const OP_RETURN_PAYLOAD = utf8("dogeos:e2e payment");

  it("tracks payments, balances, spends and an OP_RETURN output", async () => {
    // Alice pays bob, carol and mallory, writes an OP_RETURN and splits ten coins off for herself.
    payment = await pay(
      devnet,
      alice,
      [alicePurse.take()],
      [
        { script: bob.script, value: 10n * DOGE },
        { script: nullDataScript(OP_RETURN_PAYLOAD), value: 0n },
        { script: carol.script, value: 5n * DOGE },
        { script: mallory.script, value: 50n * DOGE },
        ...Array.from({ length: 10 }, () => ({ script: alice.script, value: 100n * DOGE })),
      ],
    );
    for (const coin of payment.outputs.slice(4)) alicePurse.give(coin);
    alicePurse.give(payment.change);
    carolCoin = payment.outputs[2];
    malloryPurse.give(payment.outputs[3]);
    bobPays = await pay(devnet, bob, [payment.outputs[0]], [{ script: dave.script, value: 4n * DOGE }]);
    paymentBlock = await mine();
    const height = paymentBlock.height;

    expect(balanceOf(alice.address)).to.deep.equal({
      confirmed: Number(20_000n * DOGE - 65n * DOGE - TX_FEE_KOINU),
      tx_count: 2,
    });
    expect(balanceOf(bob.address)).to.deep.equal({ confirmed: Number(6n * DOGE - TX_FEE_KOINU), tx_count: 2 });
    expect(balanceOf(carol.address)).to.deep.equal({ confirmed: Number(5n * DOGE), tx_count: 1 });
    expect(balanceOf(dave.address)).to.deep.equal({ confirmed: Number(4n * DOGE), tx_count: 1 });
    expect(
      all(
        `SELECT t.height, t.position, t.txid, h.received, h.sent FROM address_history h JOIN txs t ON t.id = h.tx_id
        JOIN addresses a ON a.id = h.address_id WHERE a.address = ? ORDER BY t.height, t.position`,
        bob.address,
      ),
    ).to.deep.equal([
      { height, position: at(paymentBlock, payment.txid), txid: payment.txid, received: Number(10n * DOGE), sent: 0 },
      {
        height,
        position: at(paymentBlock, bobPays.txid),
        txid: bobPays.txid,
        received: Number(6n * DOGE - TX_FEE_KOINU),
        sent: Number(10n * DOGE),
      },
    ]);
    expect(
      get(
        "SELECT height, position, fee, coinbase, input_count, output_count FROM txs WHERE txid = ?",
        key(payment.txid),
      ),
    ).to.deep.equal({
      height,
      position: at(paymentBlock, payment.txid),
      fee: Number(TX_FEE_KOINU),
      coinbase: 0,
      input_count: 1,
      output_count: 15,
    });
    expect(
      get(
        `SELECT o.value, a.address, s.txid AS spent_txid, o.spent_vin, s.height AS spent_height FROM outputs o
        JOIN txs t ON t.id = o.tx_id LEFT JOIN addresses a ON a.id = o.address_id LEFT JOIN txs s ON s.id = o.spent_tx_id
        WHERE t.txid = ? AND o.vout = 0`,
        key(payment.txid),
      ),
    ).to.deep.equal({
      value: Number(10n * DOGE),
      address: bob.address,
      spent_txid: bobPays.txid,
      spent_vin: 0,
      spent_height: height,
    });
    expect(
      get("SELECT o.* FROM outputs o JOIN txs t ON t.id = o.tx_id WHERE t.txid = ? AND o.vout = 1", key(payment.txid)),
      "an OP_RETURN output is no UTXO",
    ).to.equal(undefined);
    expect(
      all(
        `SELECT txid, vout, height, position, payload, magic, sha256, size FROM ${asText.op_returns} WHERE height = ?`,
        height,
      ),
    ).to.deep.equal([
      {
        txid: payment.txid,
        vout: 1,
        height,
        position: at(paymentBlock, payment.txid),
        payload: bytesToHex(OP_RETURN_PAYLOAD),
        magic: bytesToHex(utf8("doge")),
        sha256: bytesToHex(sha256(OP_RETURN_PAYLOAD)),
        size: OP_RETURN_PAYLOAD.length,
      },
    ]);
  });

  // ------------------------------------------------------------------------------- inscriptions

  let v1Small: InscribeResult & { redeemScripts: Uint8Array[] };
  let v1Large: InscribeResult & { redeemScripts: Uint8Array[] };
  let doginalsLarge: InscribeResult & { partCount: number };
  const SMALL_BODY = utf8("gm from the end-to-end test");
  const LARGE_BODY = pattern(1200, 7);
  const DOGINALS_BODY = utf8("<p>" + "much wow, such chain. ".repeat(136) + "</p>");

  async function inscribeAlice<T extends InscribeResult>(make: (coin: Spendable) => Promise<T>): Promise<T> {
    const result = await make(alicePurse.take());
    alicePurse.give(result.change);
    return result;
  }

  it("indexes a one-input and a three-input v1 reveal and a three-transaction Doginals inscription", async () => {
    v1Small = await inscribeAlice((coin) =>
      inscribeV1(devnet, alice, coin, { contentType: TEXT, body: SMALL_BODY }, bob.script),
    );
    v1Large = await inscribeAlice((coin) =>
      inscribeV1(devnet, alice, coin, { contentType: "image/png", body: LARGE_BODY }, carol.script),
    );
    doginalsLarge = await inscribeAlice((coin) =>
      inscribeDoginals(
        devnet,
        alice,
        coin,
        { contentType: "text/html;charset=utf-8", body: DOGINALS_BODY },
        dave.script,
      ),
    );
    expect(v1Small.redeemScripts.length).to.equal(1);
    expect(v1Large.redeemScripts.length).to.equal(3);
    expect(doginalsLarge.partCount).to.equal(3);
    const block = await mine();
    const height = block.height;

    expect(inscriptionRow(v1Small.inscriptionId)).to.deep.equal({
      id: `${v1Small.revealTxids[0]}i0`,
      number: 0,
      form: "v1",
      content_type: TEXT,
      action: null,
      body: bytesToHex(SMALL_BODY),
      body_size: SMALL_BODY.length,
      envelope_hash: envelopeHash({ contentType: TEXT, body: SMALL_BODY }),
      collection_key: null,
      genesis_txid: v1Small.revealTxids[0],
      reveal_txid: v1Small.revealTxids[0],
      reveal_tx_count: 1,
      inscriber_address: alice.address,
      height,
      position: at(block, v1Small.revealTxids[0]),
    });
    expect(inscriptionRow(v1Large.inscriptionId)).to.deep.equal({
      id: `${v1Large.revealTxids[0]}i0`,
      number: 1,
      form: "v1",
      content_type: "image/png",
      action: null,
      body: bytesToHex(LARGE_BODY),
      body_size: 1200,
      envelope_hash: envelopeHash({ contentType: "image/png", body: LARGE_BODY }),
      collection_key: null,
      genesis_txid: v1Large.revealTxids[0],
      reveal_txid: v1Large.revealTxids[0],
      reveal_tx_count: 1,
      inscriber_address: alice.address,
      height,
      position: at(block, v1Large.revealTxids[0]),
    });
    const [firstReveal, , lastReveal] = doginalsLarge.revealTxids;
    expect(inscriptionRow(doginalsLarge.inscriptionId)).to.deep.equal({
      id: `${firstReveal}i0`,
      number: 2,
      form: "doginals",
      content_type: "text/html;charset=utf-8",
      action: null,
      body: bytesToHex(DOGINALS_BODY),
      body_size: DOGINALS_BODY.length,
      envelope_hash: null,
      collection_key: null,
      genesis_txid: firstReveal,
      reveal_txid: lastReveal,
      reveal_tx_count: 3,
      inscriber_address: alice.address,
      height,
      position: at(block, lastReveal),
    });
    expect(location(v1Small.inscriptionId)).to.deep.equal({
      txid: v1Small.revealTxids[0],
      vout: 0,
      offset: 0,
      owner_address: bob.address,
      height,
    });
    expect(location(v1Large.inscriptionId)).to.deep.equal({
      txid: v1Large.revealTxids[0],
      vout: 0,
      offset: 0,
      owner_address: carol.address,
      height,
    });
    expect(location(doginalsLarge.inscriptionId)).to.deep.equal({
      txid: lastReveal,
      vout: 0,
      offset: 0,
      owner_address: dave.address,
      height,
    });
    expect(moves(doginalsLarge.inscriptionId)).to.deep.equal([
      {
        height,
        position: at(block, lastReveal),
        txid: lastReveal,
        kind: "genesis",
        to_txid: lastReveal,
        to_vout: 0,
        to_offset: 0,
        owner_address: dave.address,
      },
    ]);
    expect(all("SELECT * FROM doginals_pending"), "the chain completed inside the block").to.deep.equal([]);
    expect(all("SELECT * FROM inscription_rejections")).to.deep.equal([]);
  });

  // ------------------------------------------------------------------------------------- moves

  let moveSmall1: SendResult;
  let moveLarge1: SendResult;
  let moveLarge2: SendResult;

  it("follows an inscription moved twice, the first time behind another input", async () => {
    moveSmall1 = await sendInscription(devnet, bob, v1Small.output, carol.script);
    // Carol's 5 DOGE go first: the inscription lands 5 DOGE into dave's output.
    moveLarge1 = await sendInscription(devnet, carol, v1Large.output, dave.script, {
      before: [{ key: carol, coin: carolCoin }],
    });
    const first = await mine();
    moveLarge2 = await sendInscription(devnet, dave, moveLarge1.output!, erin.script);
    const second = await mine();

    const fiveDoge = Number(5n * DOGE);
    expect(location(v1Large.inscriptionId)).to.deep.equal({
      txid: moveLarge2.txid,
      vout: 0,
      offset: fiveDoge,
      owner_address: erin.address,
      height: second.height,
    });
    expect(moves(v1Large.inscriptionId).slice(1)).to.deep.equal([
      {
        height: first.height,
        position: at(first, moveLarge1.txid),
        txid: moveLarge1.txid,
        kind: "move",
        to_txid: moveLarge1.txid,
        to_vout: 0,
        to_offset: fiveDoge,
        owner_address: dave.address,
      },
      {
        height: second.height,
        position: at(second, moveLarge2.txid),
        txid: moveLarge2.txid,
        kind: "move",
        to_txid: moveLarge2.txid,
        to_vout: 0,
        to_offset: fiveDoge,
        owner_address: erin.address,
      },
    ]);
    expect(moves(v1Large.inscriptionId)[0]).to.include({ kind: "genesis", txid: v1Large.revealTxids[0], to_offset: 0 });
    expect(location(v1Small.inscriptionId)).to.deep.equal({
      txid: moveSmall1.txid,
      vout: 0,
      offset: 0,
      owner_address: carol.address,
      height: first.height,
    });
  });

  // ------------------------------------------------------------------------------------ DRC-20

  const TICK = "dogi";
  const deployOp = (tick: string, maxSupply: bigint, mintLimit: bigint): Drc20Operation => ({
    kind: "deploy",
    tick,
    tickKey: tick.toLowerCase(),
    maxSupply,
    mintLimit,
  });
  const mintOp = (tick: string, amount: bigint): Drc20Operation => ({
    kind: "mint",
    tick,
    tickKey: tick.toLowerCase(),
    amount,
  });
  const transferOp = (amount: bigint): Drc20Operation => ({ kind: "transfer", tick: TICK, tickKey: TICK, amount });
  const drc20 = (operation: Drc20Operation, to: TestKey) =>
    inscribeAlice((coin) =>
      inscribeDoginals(devnet, alice, coin, { contentType: TEXT, body: encodeDrc20(operation) }, to.script),
    );
  const ids: Record<string, string> = {};
  let transfer150: InscribeResult;
  let transfer20: InscribeResult;
  let send150: SendResult;
  let send150Again: SendResult;
  const drc20Blocks: MinedBlock[] = [];

  it("runs a DRC-20 deploy, mint and transfer cycle and stores the reason of every ignored operation", async () => {
    ids.deploy = (await drc20(deployOp(TICK, 250n, 100n), alice)).inscriptionId;
    ids.mintAlice1 = (await drc20(mintOp(TICK, 100n), alice)).inscriptionId;
    ids.mintAlice2 = (await drc20(mintOp(TICK, 100n), alice)).inscriptionId;
    ids.mintOverLimit = (await drc20(mintOp(TICK, 150n), bob)).inscriptionId;
    ids.deployOtherCase = (await drc20(deployOp("DOGI", 5n, 5n), bob)).inscriptionId;
    ids.mintCapped = (await drc20(mintOp(TICK, 100n), carol)).inscriptionId;
    ids.mintFull = (await drc20(mintOp(TICK, 1n), carol)).inscriptionId;
    ids.mintUnknown = (await drc20(mintOp("nope", 5n), carol)).inscriptionId;
    drc20Blocks.push(await mine());
    transfer150 = await drc20(transferOp(150n), alice);
    ids.transfer100 = (await drc20(transferOp(100n), alice)).inscriptionId;
    transfer20 = await drc20(transferOp(20n), alice);
    drc20Blocks.push(await mine());
    send150 = await sendInscription(devnet, alice, transfer150.output, bob.script);
    drc20Blocks.push(await mine());
    send150Again = await sendInscription(devnet, bob, send150.output!, carol.script);
    drc20Blocks.push(await mine());
    const [d1, d2, d3, d4] = drc20Blocks;

    expect(all(`SELECT * FROM ${asText.drc20_ticks}`)).to.deep.equal([
      {
        tick_key: TICK,
        tick: TICK,
        max_supply: "250",
        mint_limit: "100",
        minted: "250",
        deployer_address: alice.address,
        inscription_id: ids.deploy,
        height: d1.height,
      },
    ]);
    expect(drc20Balances()).to.deep.equal({
      [`${alice.address}/${TICK}`]: { available: "30", transferable: "20" },
      [`${bob.address}/${TICK}`]: { available: "150", transferable: "0" },
      [`${carol.address}/${TICK}`]: { available: "50", transferable: "0" },
    });
    expect(all(`SELECT * FROM ${asText.drc20_transfers} ORDER BY CAST(amount AS INTEGER) DESC`)).to.deep.equal([
      {
        inscription_id: transfer150.inscriptionId,
        tick_key: TICK,
        amount: "150",
        owner_address: alice.address,
        sent: 1,
        receiver_address: bob.address,
        returned: 0,
        height: d2.height,
        sent_height: d3.height,
      },
      {
        inscription_id: transfer20.inscriptionId,
        tick_key: TICK,
        amount: "20",
        owner_address: alice.address,
        sent: 0,
        receiver_address: null,
        returned: 0,
        height: d2.height,
        sent_height: null,
      },
    ]);
    const operation = (
      block: MinedBlock,
      inscriptionId: string,
      event: string,
      op: string | null,
      tick: string | null,
      amount: string | null,
      address: string | null,
      valid: number,
      reason: string | null = null,
      note: string | null = null,
    ) => ({
      height: block.height,
      inscription_id: inscriptionId,
      event,
      op,
      tick_key: tick?.toLowerCase() ?? null,
      tick,
      amount,
      address,
      valid,
      reason,
      note,
    });
    expect(
      all(
        `SELECT height, inscription_id, event, op, tick_key, tick, amount, address, valid, reason, note FROM ${asText.drc20_operations}
        ORDER BY height, position, seq`,
      ),
    ).to.deep.equal([
      operation(d1, ids.deploy, "inscribe", "deploy", TICK, "250", alice.address, 1),
      operation(d1, ids.mintAlice1, "inscribe", "mint", TICK, "100", alice.address, 1),
      operation(d1, ids.mintAlice2, "inscribe", "mint", TICK, "100", alice.address, 1),
      operation(d1, ids.mintOverLimit, "inscribe", "mint", TICK, "150", bob.address, 0, "MINT_EXCEEDS_LIMIT"),
      operation(d1, ids.deployOtherCase, "inscribe", "deploy", "DOGI", "5", bob.address, 0, "TICK_ALREADY_DEPLOYED"),
      operation(
        d1,
        ids.mintCapped,
        "inscribe",
        "mint",
        TICK,
        "100",
        carol.address,
        1,
        null,
        "MINT_CAPPED_TO_REMAINDER",
      ),
      operation(d1, ids.mintFull, "inscribe", "mint", TICK, "1", carol.address, 0, "TICK_FULLY_MINTED"),
      operation(d1, ids.mintUnknown, "inscribe", "mint", "nope", "5", carol.address, 0, "TICK_NOT_DEPLOYED"),
      operation(d2, transfer150.inscriptionId, "inscribe", "transfer", TICK, "150", alice.address, 1),
      operation(
        d2,
        ids.transfer100,
        "inscribe",
        "transfer",
        TICK,
        "100",
        alice.address,
        0,
        "INSUFFICIENT_AVAILABLE_BALANCE",
      ),
      operation(d2, transfer20.inscriptionId, "inscribe", "transfer", TICK, "20", alice.address, 1),
      operation(d3, transfer150.inscriptionId, "send", "transfer", TICK, "150", bob.address, 1),
      operation(
        d4,
        transfer150.inscriptionId,
        "send",
        "transfer",
        TICK,
        "150",
        carol.address,
        0,
        "TRANSFER_ALREADY_SENT",
      ),
    ]);
    // The spent transfer inscription still moves like any other inscription.
    expect(location(transfer150.inscriptionId)).to.deep.equal({
      txid: send150Again.txid,
      vout: 0,
      offset: 0,
      owner_address: carol.address,
      height: d4.height,
    });
  });

  // --------------------------------------------------------------------------------- launchpad

  const SLUG = "e2e-pups";
  const launch: Record<string, InscribeResult> = {};
  let launchBlock: MinedBlock;
  const mintBody = (tokenId: bigint, maxSupply = 3n, slug = SLUG) => ({
    contentType: "application/json",
    action: "LAUNCHPAD_MINT",
    body: encodeLaunchpadMint({ slug, tokenId, maxSupply }),
  });
  const launchpadOps = () =>
    Object.fromEntries(
      all(`SELECT inscription_id, height, op, slug, token_id, valid, reason FROM ${asText.launchpad_operations}`).map(
        (row) => [row.inscription_id, row],
      ),
    );

  it("admits launchpad mints by the deploy's inscriber only, once per id and within range", async () => {
    const deployContent = {
      contentType: "application/json",
      action: "LAUNCHPAD_DEPLOY",
      body: encodeLaunchpadDeploy({ slug: SLUG, name: "E2E Pups", priceKoinu: 50_000_000n, maxSupply: 3n }),
    };
    launch.deploy = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, deployContent, alice.script));
    launch.mint0 = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, mintBody(0n), bob.script));
    launch.mint0Again = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, mintBody(0n), carol.script));
    launch.mint3 = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, mintBody(3n), carol.script));
    launch.mintMax4 = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, mintBody(2n, 4n), carol.script));
    launch.mintNoDeploy = await inscribeAlice((coin) =>
      inscribeV1(devnet, alice, coin, mintBody(0n, 3n, "no-such-pups"), carol.script),
    );
    const foreignMint = await inscribeV1(devnet, mallory, malloryPurse.take(), mintBody(2n), mallory.script);
    malloryPurse.give(foreignMint.change);
    launch.mintForeign = foreignMint;
    const foreignDeploy = await inscribeV1(
      devnet,
      mallory,
      malloryPurse.take(),
      {
        ...deployContent,
        body: encodeLaunchpadDeploy({ slug: SLUG, name: "Fake Pups", priceKoinu: 1n, maxSupply: 3n }),
      },
      mallory.script,
    );
    malloryPurse.give(foreignDeploy.change);
    launch.deployAgain = foreignDeploy;
    launchBlock = await mine();
    const height = launchBlock.height;

    expect(all(`SELECT * FROM ${asText.collections}`)).to.deep.equal([
      {
        slug: SLUG,
        name: "E2E Pups",
        price_koinu: "50000000",
        max_supply: "3",
        inscriber_address: alice.address,
        deploy_inscription: launch.deploy.inscriptionId,
        height,
        minted_count: 1,
      },
    ]);
    expect(all(`SELECT * FROM ${asText.collection_members}`)).to.deep.equal([
      { slug: SLUG, token_id: "0", inscription_id: launch.mint0.inscriptionId, height },
    ]);
    const op = (
      result: InscribeResult,
      kind: string,
      tokenId: string | null,
      valid: number,
      reason: string | null,
      slug = SLUG,
    ) => ({ inscription_id: result.inscriptionId, height, op: kind, slug, token_id: tokenId, valid, reason });
    expect(launchpadOps()).to.deep.equal({
      [launch.deploy.inscriptionId]: op(launch.deploy, "deploy", null, 1, null),
      [launch.mint0.inscriptionId]: op(launch.mint0, "mint", "0", 1, null),
      [launch.mint0Again.inscriptionId]: op(launch.mint0Again, "mint", "0", 0, "ALREADY_MINTED"),
      [launch.mint3.inscriptionId]: op(launch.mint3, "mint", "3", 0, "ID_OUT_OF_RANGE"),
      [launch.mintMax4.inscriptionId]: op(launch.mintMax4, "mint", "2", 0, "MAX_MISMATCH"),
      [launch.mintNoDeploy.inscriptionId]: op(launch.mintNoDeploy, "mint", "0", 0, "NO_DEPLOY", "no-such-pups"),
      [launch.mintForeign.inscriptionId]: op(launch.mintForeign, "mint", "2", 0, "WRONG_INSCRIBER"),
      [launch.deployAgain.inscriptionId]: op(launch.deployAgain, "deploy", null, 0, "SLUG_TAKEN"),
    });
    expect(inscriptionRow(launch.mintForeign.inscriptionId)).to.include({
      action: "LAUNCHPAD_MINT",
      collection_key: SLUG,
      inscriber_address: mallory.address,
    });
    expect(inscriptionRow(launch.deploy.inscriptionId)).to.include({
      action: "LAUNCHPAD_DEPLOY",
      collection_key: SLUG,
      inscriber_address: alice.address,
    });
  });

  // ----------------------------------------------------------------- the six blocks a reorg removes
  //
  // No transaction in these blocks spends an output made in the same block: the devnet's
  // disconnectTip restores such outputs as unspent coins, so the parent could not return to the
  // mempool after the reorg (see the report that came with this test).

  let stableTip: MinedBlock;
  const region: MinedBlock[] = [];
  let doginalsChain: InscribeResult & { partCount: number };
  let mint2: InscribeResult;
  let mint1First: InscribeResult;
  let mint1Second: InscribeResult;
  let moveSmall2: SendResult;
  let toFees: SendResult;
  let opReturnPayment: Awaited<ReturnType<typeof pay>>;
  const zkp: Record<string, string> = {};
  const CHAIN_BODY = pattern(3000, 11);
  const REORG_PAYLOAD = utf8("dogeos:reorg");

  /** Where an inscription spent to fees lands: the coinbase's koinu are the subsidy and then each fee in block order. */
  function feeLocation(block: MinedBlock, send: SendResult) {
    expect(block.txids[block.txids.length - 1], "the spend to fees is the block's last transaction").to.equal(
      send.txid,
    );
    const coinbaseValue = block.coinbase.outputs[0].value;
    // The fee of the last transaction ends the coinbase; the inscription sits (before inputs - outputs) into that fee.
    const offset = coinbaseValue - send.feeKoinu + (send.beforeKoinu - send.outputKoinu);
    return {
      txid: block.coinbase.txid,
      vout: 0,
      offset: Number(offset),
      owner_address: miner.address,
      height: block.height,
    };
  }

  it("follows a Doginals chain over three blocks, a second move, launchpad mints, OP_CHECKZKP uses and a transfer inscription spent to fees", async () => {
    // Coins for the six blocks, confirmed before them.
    const split = await pay(
      devnet,
      alice,
      [alicePurse.take(1000n * DOGE)],
      Array.from({ length: 12 }, () => ({ script: alice.script, value: 20n * DOGE })),
    );
    alicePurse.give(split.change);
    const regionCoins = [...split.outputs];
    const regionCoin = () => regionCoins.shift()!;
    const first = proofItems("verifies the first snarkjs proof");
    let mint2Commit: V1Commit;
    let mint1FirstCommit: V1Commit;
    let mint1SecondCommit: V1Commit;
    const zkpCommits: Record<string, Awaited<ReturnType<typeof commitP2sh>>> = {};
    let withOutput: Awaited<ReturnType<typeof pay>>;

    doginalsChain = await inscribeDoginals(
      devnet,
      alice,
      regionCoin(),
      { contentType: "application/octet-stream", body: CHAIN_BODY },
      erin.script,
      {
        beforeReveal: async (index, revealed) => {
          if (index === 1) {
            // The commit and the first reveal close the stable part of the chain.
            stableTip = await mine();
            expect(stableTip.txids.slice(-1)).to.deep.equal([revealed[0]]);
            expect(
              all("SELECT outpoint, inscription_id, inscriber_address, height FROM doginals_pending"),
            ).to.deep.equal([
              {
                outpoint: `${revealed[0]}:0`,
                inscription_id: `${revealed[0]}i0`,
                inscriber_address: alice.address,
                height: stableTip.height,
              },
            ]);
          } else if (index === 2) {
            // R1: the second reveal, the commits of what is revealed later, an OP_CHECKZKP output, an OP_RETURN.
            mint2Commit = await commitV1(devnet, alice, regionCoin(), mintBody(2n), dave.script);
            mint1FirstCommit = await commitV1(devnet, alice, regionCoin(), mintBody(1n), dave.script);
            mint1SecondCommit = await commitV1(devnet, alice, regionCoin(), mintBody(1n), erin.script);
            zkpCommits.redeemValid = await commitP2sh(devnet, alice, regionCoin(), VERIFY_REDEEM);
            zkpCommits.redeemInvalid = await commitP2sh(devnet, alice, regionCoin(), VERIFY_REDEEM);
            zkpCommits.redeemStray = await commitP2sh(devnet, alice, regionCoin(), STRAY_REDEEM);
            const outputScript = compileScript([
              ...proofItems("verifies the second snarkjs proof"),
              OP.OP_0,
              OP.OP_CHECKZKP,
              ...DROP_PROOF,
              OP.OP_1,
            ]);
            withOutput = await pay(devnet, alice, [regionCoin()], [{ script: outputScript, value: POSTAGE_KOINU }]);
            zkp.output = withOutput.txid;
            opReturnPayment = await pay(
              devnet,
              alice,
              [regionCoin()],
              [
                { script: bob.script, value: 2n * DOGE },
                { script: nullDataScript(REORG_PAYLOAD), value: 0n },
              ],
            );
            region.push(await mine());
            expect(all("SELECT outpoint, inscription_id, height FROM doginals_pending")).to.deep.equal([
              {
                outpoint: `${revealed[1]}:0`,
                inscription_id: `${revealed[0]}i0`,
                height: region[0].height,
              },
            ]);
          }
        },
      },
    );
    const r1 = region[0];
    // R2: the last reveal of the chain, a valid mint of id 2, and two transactions final only above
    // R1's height, which a reorg removing R1 drops from the mempool: a mint of id 1 and a second move.
    mint2 = await mint2Commit!.reveal();
    mint1First = await mint1FirstCommit!.reveal({ locktime: r1.height });
    moveSmall2 = await sendInscription(devnet, carol, moveSmall1.output!, dave.script, {
      before: [{ key: alice, coin: regionCoin() }],
      locktime: r1.height,
    });
    region.push(await mine());
    // R3: a second mint of id 1, a duplicate for now.
    mint1Second = await mint1SecondCommit!.reveal();
    region.push(await mine());
    // R4: OP_CHECKZKP in redeem scripts (valid proof, invalid proof, stray use) and in a scriptSig (invalid proof).
    zkp.redeemValid = (await zkpCommits.redeemValid.spend(first, alice.script)).txid;
    zkp.redeemInvalid = (
      await zkpCommits.redeemInvalid.spend(
        proofItems("rejects the first proof with public input 0 changed"),
        alice.script,
      )
    ).txid;
    zkp.redeemStray = (await zkpCommits.redeemStray.spend([], alice.script)).txid;
    const change = withOutput!.change!;
    const spend: Transaction = {
      version: 1,
      inputs: [{ prevTxid: change.txid, vout: change.vout, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
      outputs: [{ script: alice.script, value: change.value - TX_FEE_KOINU }],
      locktime: 0,
    };
    spend.inputs[0].scriptSig = concatBytes(
      compileScript([
        ...proofItems("rejects the first proof with proof A and C swapped"),
        OP.OP_0,
        OP.OP_CHECKZKP,
        ...DROP_PROOF,
      ]),
      p2pkhScriptSig(signInput(spend, 0, alice.script, alice.privateKey), alice.publicKey),
    );
    zkp.input = await devnet.rpc<string>("sendrawtransaction", [bytesToHex(serializeTransaction(spend))]);
    region.push(await mine());
    // R5: a payment, then the 20-dogi transfer inscription spent to fees behind one of alice's coins, last in the block.
    await pay(devnet, alice, [regionCoin()], [{ script: carol.script, value: 3n * DOGE }]);
    toFees = await sendInscription(devnet, alice, transfer20.output, alice.script, {
      before: [{ key: alice, coin: regionCoin() }],
      toFees: true,
    });
    region.push(await mine());
    // R6: empty.
    region.push(await mine());
    const [, r2, r3, r4, r5] = region;

    // The Doginals chain completed in R2, two blocks after its first reveal.
    const [firstReveal, , lastReveal] = doginalsChain.revealTxids;
    expect(inscriptionRow(doginalsChain.inscriptionId)).to.deep.equal({
      id: `${firstReveal}i0`,
      number: inscriptionRow(doginalsChain.inscriptionId)!.number,
      form: "doginals",
      content_type: "application/octet-stream",
      action: null,
      body: bytesToHex(CHAIN_BODY),
      body_size: CHAIN_BODY.length,
      envelope_hash: null,
      collection_key: null,
      genesis_txid: firstReveal,
      reveal_txid: lastReveal,
      reveal_tx_count: 3,
      inscriber_address: alice.address,
      height: r2.height,
      position: at(r2, lastReveal),
    });
    expect(all("SELECT * FROM doginals_pending")).to.deep.equal([]);
    expect(location(doginalsChain.inscriptionId)).to.deep.equal({
      txid: lastReveal,
      vout: 0,
      offset: 0,
      owner_address: erin.address,
      height: r2.height,
    });
    // The second move of the small inscription, behind alice's 20 DOGE.
    expect(location(v1Small.inscriptionId)).to.deep.equal({
      txid: moveSmall2.txid,
      vout: 0,
      offset: Number(20n * DOGE),
      owner_address: dave.address,
      height: r2.height,
    });
    // Launchpad: id 1 went to the first mint, the second is a duplicate.
    expect(
      all(`SELECT token_id, inscription_id, height FROM ${asText.collection_members} ORDER BY token_id`),
    ).to.deep.equal([
      { token_id: "0", inscription_id: launch.mint0.inscriptionId, height: launchBlock.height },
      { token_id: "1", inscription_id: mint1First.inscriptionId, height: r2.height },
      { token_id: "2", inscription_id: mint2.inscriptionId, height: r2.height },
    ]);
    expect(get("SELECT minted_count FROM collections WHERE slug = ?", SLUG)).to.deep.equal({ minted_count: 3 });
    expect(launchpadOps()[mint1Second.inscriptionId]).to.deep.equal({
      inscription_id: mint1Second.inscriptionId,
      height: r3.height,
      op: "mint",
      slug: SLUG,
      token_id: "1",
      valid: 0,
      reason: "ALREADY_MINTED",
    });
    // The transfer inscription spent to fees sits in R5's coinbase and its 20 dogi went back to alice.
    const inCoinbase = feeLocation(r5, toFees);
    expect(location(transfer20.inscriptionId)).to.deep.equal(inCoinbase);
    expect(moves(transfer20.inscriptionId).map((move) => move.kind)).to.deep.equal(["genesis", "fee"]);
    expect(moves(transfer20.inscriptionId)[1]).to.deep.equal({
      height: r5.height,
      position: at(r5, toFees.txid),
      txid: toFees.txid,
      kind: "fee",
      to_txid: r5.coinbase.txid,
      to_vout: 0,
      to_offset: inCoinbase.offset,
      owner_address: miner.address,
    });
    expect(drc20Balances()[`${alice.address}/${TICK}`]).to.deep.equal({ available: "50", transferable: "0" });
    expect(
      get(
        `SELECT sent, receiver_address, returned, sent_height FROM ${asText.drc20_transfers} WHERE inscription_id = ?`,
        transfer20.inscriptionId,
      ),
    ).to.deep.equal({ sent: 1, receiver_address: alice.address, returned: 1, sent_height: r5.height });
    expect(
      get(
        `SELECT event, address, valid, reason, note FROM ${asText.drc20_operations} WHERE inscription_id = ? AND event = 'send'`,
        transfer20.inscriptionId,
      ),
    ).to.deep.equal({ event: "send", address: null, valid: 1, reason: null, note: "RETURNED_TO_SENDER" });
    expect(
      get(`SELECT vout, height, position, payload FROM ${asText.op_returns} WHERE txid = ?`, opReturnPayment.txid),
    ).to.deep.equal({
      vout: 1,
      height: r1.height,
      position: at(r1, opReturnPayment.txid),
      payload: bytesToHex(REORG_PAYLOAD),
    });

    // OP_CHECKZKP: every use recorded, then the shadow verifier's verdicts.
    const shadow = new ZkpShadowService(indexer.store.db, { clock: SHADOW_CLOCK });
    expect(shadow.enqueuePending()).to.equal(4);
    expect(await shadow.drain()).to.equal(4);
    const use = (txid: string) =>
      get(
        `SELECT height, position, role, input_index, output_index, op_index, mode, mode_name, proof_hex, vk_hex, vk_sha256, public_inputs,
      parse_error, shadow_valid FROM ${asText.zkp_uses} WHERE txid = ?`,
        txid,
      );
    expect(use(zkp.redeemValid)).to.deep.equal({
      height: r4.height,
      position: at(r4, zkp.redeemValid),
      role: "redeem_script",
      input_index: 0,
      output_index: null,
      op_index: 1,
      mode: 0,
      mode_name: "groth16-bls12-381",
      proof_hex: bytesToHex(concatBytes(...first.slice(0, 8))),
      vk_hex: bytesToHex(concatBytes(...first.slice(10))),
      vk_sha256: bytesToHex(sha256(concatBytes(...first.slice(10)))),
      public_inputs: JSON.stringify(first.slice(8, 10).map(bytesToHex)),
      parse_error: null,
      shadow_valid: 1,
    });
    expect(use(zkp.redeemInvalid)).to.include({
      height: r4.height,
      role: "redeem_script",
      input_index: 0,
      op_index: 1,
      mode: 0,
      parse_error: null,
      shadow_valid: 0,
    });
    expect(use(zkp.redeemStray)).to.include({
      height: r4.height,
      role: "redeem_script",
      input_index: 0,
      op_index: 0,
      mode: null,
      mode_name: null,
      proof_hex: null,
      shadow_valid: null,
    });
    expect(use(zkp.redeemStray)!.parse_error).to.be.a("string").and.not.equal("");
    expect(use(zkp.output)).to.include({
      height: r1.height,
      role: "output",
      input_index: null,
      output_index: 0,
      op_index: 17,
      mode: 0,
      parse_error: null,
      shadow_valid: 1,
    });
    expect(use(zkp.input)).to.include({
      height: r4.height,
      role: "input",
      input_index: 0,
      output_index: null,
      op_index: 17,
      mode: 0,
      parse_error: null,
      shadow_valid: 0,
    });
  });

  // ---------------------------------------------------------------------------------------- reorg

  it("rolls back a 6-block reorg, re-mines what came back, drops what became non-final, and equals a fresh index", async () => {
    const [r1] = region;
    const tip = await devnet.rpc<number>("getblockcount");
    expect(tip).to.equal(region[5].height);
    expect(await devnet.rpc<string>("getblockhash", [tip - 5])).to.equal(r1.hash);
    const feeLocationBefore = location(transfer20.inscriptionId)!;

    await devnet.rpc("invalidateblock", [r1.hash]);
    // Everything of the six blocks comes back to the mempool but the two transactions that are not
    // final below R1's height.
    const dropped = [mint1First.revealTxids[0], moveSmall2.txid];
    const returned = region.flatMap((block) => block.txids.slice(1)).filter((txid) => !dropped.includes(txid));
    expect([...(await devnet.rpc<string[]>("getrawmempool"))].sort()).to.deep.equal([...returned].sort());
    // The new branch: everything that came back in its first block, then the small inscription goes to erin instead.
    const [n1Hash] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
    const moveSmall2Instead = await sendInscription(devnet, carol, moveSmall1.output!, erin.script);
    const rest = await devnet.rpc<string[]>("generatetoaddress", [6, miner.address]);
    const n1 = await describeBlock(n1Hash);
    const n2 = await describeBlock(rest[0]);
    expect(n1.txids.slice(1)).to.deep.equal(returned);
    const result = await indexer.syncOnce();
    expect(result.rolledBack).to.equal(6);
    expect(result.indexedHeight).to.equal(stableTip.height + 7);
    expect(indexer.store.tip()!.hash).to.equal(rest[5]);

    // The dropped mint is gone; the duplicate of id 1 is now the member.
    expect(inscriptionRow(mint1First.inscriptionId)).to.equal(undefined);
    expect(location(mint1First.inscriptionId)).to.equal(undefined);
    expect(launchpadOps()[mint1First.inscriptionId]).to.equal(undefined);
    expect(launchpadOps()[mint1Second.inscriptionId]).to.deep.equal({
      inscription_id: mint1Second.inscriptionId,
      height: n1.height,
      op: "mint",
      slug: SLUG,
      token_id: "1",
      valid: 1,
      reason: null,
    });
    expect(
      all(`SELECT token_id, inscription_id, height FROM ${asText.collection_members} ORDER BY token_id`),
    ).to.deep.equal([
      { token_id: "0", inscription_id: launch.mint0.inscriptionId, height: launchBlock.height },
      { token_id: "1", inscription_id: mint1Second.inscriptionId, height: n1.height },
      { token_id: "2", inscription_id: mint2.inscriptionId, height: n1.height },
    ]);
    expect(get("SELECT minted_count FROM collections WHERE slug = ?", SLUG)).to.deep.equal({ minted_count: 3 });
    // The small inscription's second move is replaced.
    expect(location(v1Small.inscriptionId)).to.deep.equal({
      txid: moveSmall2Instead.txid,
      vout: 0,
      offset: 0,
      owner_address: erin.address,
      height: n2.height,
    });
    expect(moves(v1Small.inscriptionId).map((move) => [move.kind, move.txid, move.owner_address])).to.deep.equal([
      ["genesis", v1Small.revealTxids[0], bob.address],
      ["move", moveSmall1.txid, carol.address],
      ["move", moveSmall2Instead.txid, erin.address],
    ]);
    // The Doginals chain completes again on the new branch, from the first reveal still in the fork block.
    expect(inscriptionRow(doginalsChain.inscriptionId)).to.include({
      genesis_txid: doginalsChain.revealTxids[0],
      reveal_tx_count: 3,
      height: n1.height,
    });
    expect(location(doginalsChain.inscriptionId)).to.deep.equal({
      txid: doginalsChain.revealTxids[2],
      vout: 0,
      offset: 0,
      owner_address: erin.address,
      height: n1.height,
    });
    // The spend to fees now ends a block with more fees before it: another place in another coinbase.
    const feeLocationAfter = feeLocation(n1, toFees);
    expect(location(transfer20.inscriptionId)).to.deep.equal(feeLocationAfter);
    expect(feeLocationAfter.txid).to.not.equal(feeLocationBefore.txid);
    expect(feeLocationAfter.offset).to.not.equal(feeLocationBefore.offset);
    expect(drc20Balances()).to.deep.equal({
      [`${alice.address}/${TICK}`]: { available: "50", transferable: "0" },
      [`${bob.address}/${TICK}`]: { available: "150", transferable: "0" },
      [`${carol.address}/${TICK}`]: { available: "50", transferable: "0" },
    });
    expect(
      get(`SELECT sent_height FROM ${asText.drc20_transfers} WHERE inscription_id = ?`, transfer20.inscriptionId),
    ).to.deep.equal({ sent_height: n1.height });
    expect(all("SELECT DISTINCT height FROM zkp_uses")).to.deep.equal([{ height: n1.height }]);
    expect(get(`SELECT height FROM ${asText.op_returns} WHERE txid = ?`, opReturnPayment.txid)).to.deep.equal({
      height: n1.height,
    });
    const numbers = all("SELECT number FROM inscriptions ORDER BY number").map((row) => row.number);
    expect(numbers).to.deep.equal(numbers.map((_, i) => i));
    expect(all("SELECT * FROM inscription_rejections")).to.deep.equal([]);

    // Esplora's chain_stats counters on balances equal what the outputs say, after the rollback too.
    expect(
      all(`SELECT a.address, s.funded_txo_count AS fc, s.funded_txo_sum AS fs, s.spent_txo_count AS sc, s.spent_txo_sum AS ss
      FROM addresses a JOIN address_stats s ON s.id = a.id WHERE s.funded_txo_count > 0 ORDER BY a.address`),
    ).to.deep.equal(
      all(`SELECT a.address, COUNT(*) AS fc, SUM(o.value) AS fs,
      SUM(CASE WHEN o.spent_tx_id IS NULL THEN 0 ELSE 1 END) AS sc, SUM(CASE WHEN o.spent_tx_id IS NULL THEN 0 ELSE o.value END) AS ss
      FROM outputs o JOIN addresses a ON a.id = o.address_id GROUP BY a.address ORDER BY a.address`),
    );

    // The same database as a fresh index of the final chain (the shadow verdicts written at the same clock).
    const fresh = newIndexer(await openIndex(), devnet);
    await fresh.syncOnce();
    for (const db of [indexer.store.db, fresh.store.db]) {
      const shadow = new ZkpShadowService(db, { clock: SHADOW_CLOCK });
      shadow.enqueuePending();
      await shadow.drain();
    }
    expect(dumpDatabase(indexer.store.db, ["meta", "journal"])).to.deep.equal(
      dumpDatabase(fresh.store.db, ["meta", "journal"]),
    );
    // The undo journal holds the same entries too (only its sequence numbers move on after a rollback).
    const journal = (of: Indexer) =>
      of.store.db.prepare("SELECT height, tbl, pk, previous FROM journal ORDER BY seq").all();
    expect(journal(indexer)).to.deep.equal(journal(fresh));
    if (backend === "postgres") {
      // And the same rows as the embedded SQLite index of the same chain.
      const lite = newIndexer(openIndexerDatabase(":memory:"), devnet);
      await lite.syncOnce();
      const shadow = new ZkpShadowService(lite.store.db, { clock: SHADOW_CLOCK });
      shadow.enqueuePending();
      await shadow.drain();
      expect(dumpDatabase(indexer.store.db, ["meta", "journal"])).to.deep.equal(
        dumpDatabase(lite.store.db, ["meta", "journal"]),
      );
      lite.store.db.close();
    }
  });

  it("moves two inscriptions that share an output together, as a fresh index does", async () => {
    // An outpoint holding two inscriptions moves both when spent, at their offsets. (An in-memory
    // memo of the writer's placements was tried against this and reverted: docs/operations.md
    // "After version 15".)
    const first = await inscribeAlice((coin) =>
      inscribeV1(devnet, alice, coin, { contentType: TEXT, body: utf8("first of two") }, bob.script),
    );
    const second = await inscribeAlice((coin) =>
      inscribeV1(devnet, alice, coin, { contentType: TEXT, body: utf8("second of two") }, bob.script),
    );
    await mine();
    const merged = await sendInscription(devnet, bob, second.output, carol.script, {
      before: [{ key: bob, coin: first.output }],
    });
    await mine();
    const onward = await sendInscription(devnet, carol, merged.output!, dave.script);
    const block = await mine();

    const secondOffset = Number(first.output.value);
    for (const [id, offset] of [
      [first.inscriptionId, 0],
      [second.inscriptionId, secondOffset],
    ] as const) {
      expect(location(id), id).to.deep.equal({
        txid: onward.txid,
        vout: 0,
        offset,
        owner_address: dave.address,
        height: block.height,
      });
      expect(
        moves(id)
          .slice(1)
          .map((move) => [move.kind, move.txid, move.to_offset, move.owner_address]),
      ).to.deep.equal([
        ["move", merged.txid, offset, carol.address],
        ["move", onward.txid, offset, dave.address],
      ]);
    }
    const fresh = newIndexer(await openIndex(), devnet);
    await fresh.syncOnce();
    const rows = (db: SqlDatabase) => [
      db.prepare("SELECT * FROM inscription_locations ORDER BY inscription_id").all(),
      db.prepare("SELECT * FROM inscription_moves ORDER BY inscription_id, height, position, kind").all(),
    ];
    expect(rows(indexer.store.db)).to.deep.equal(rows(fresh.store.db));
  });
});
