/**
 * The chains of the index equivalence test (test/indexer/equivalence.test.ts): fixed bytes that an
 * index of one schema version and an index of another are both built from.
 *
 * - `mainnetChains()`: the 20 real mainnet blocks of test/fixtures/dogecoin, one index per run of
 *   consecutive heights (0-1, 144998-145000, 371335-371337, and each other block alone), each
 *   indexed from its first height as test/indexer/indexer-mainnet.test.ts does.
 * - `devnetChain()`: a regtest chain made here, deterministic to the byte (fixed keys, block times
 *   of genesis + 60 s per height, RFC 6979 signatures): payments with change, OP_RETURNs (with
 *   magics and a SHA-256 anchor), bare P2PK, multisig and P2SH outputs, DRC-20 deploys, mints and
 *   transfers (valid and refused), Doginals (one and several reveals), v1 envelopes (one and several
 *   inputs), a launchpad collection with member and refused mints, inscriptions moved and spent to
 *   fees, OP_CHECKZKP uses (a valid and an invalid Groth16 proof, a stray use), then a 1-block and a
 *   2-block reorg whose replacement branches double-spend transactions of the orphaned ones.
 *
 * The transactions are made by the devnet test builders (test/helpers/inscribe.ts, drc20.ts) against
 * `FakeNode`, which plays the devnet's `sendrawtransaction` and `devnet_faucet` into an in-memory
 * mempool and mines it into blocks on demand: no process, no clock.
 */
import fs from "node:fs";
import path from "node:path";
import {
  Block,
  DecodedTransaction,
  NETWORKS,
  OP,
  Transaction,
  addressToOutputScript,
  bitsToTarget,
  bytesToHex,
  bytesToHexReversed,
  compileScript,
  encodeScriptNum,
  hexToBytes,
  merkleRoot,
  nullDataScript,
  parseBlock,
  p2pkhScriptSig,
  parseTransactionHex,
  privateKeyToPublicKey,
  publicKeyToAddress,
  scryptPowHash,
  serializeBlock,
  serializeTransaction,
  sha256,
  signInput,
  txidOf,
} from "../../../src/doge";
import { REGTEST, blockSubsidy, genesisBlock } from "../../../src/devnet/params";
import { difficulty } from "../../../src/devnet/rpc-json";
import { encodeLaunchpadDeploy, encodeLaunchpadMint } from "../../../src/inscription";
import type { RunningDevnet } from "../../helpers/devnet";
import { deployTick, inscribeTransfer, mintTick, sendTransfer } from "../../helpers/drc20";
import { inscribeDoginals, inscribeV1, pay, sendInscription, commitP2sh } from "../../helpers/inscribe";
import type { Spendable, TestKey } from "../../helpers/keys";
import { mainnetBlocks } from "../../helpers/testdata";

export interface ChainBlock {
  hash: string;
  raw: Uint8Array;
}

/** One sync of the index: the node's active chain from the chain's start height at that moment. */
export interface ChainStep {
  blocks: ChainBlock[];
  /** Answers are collected after this step under this name. */
  snapshot?: string;
}

export interface HeaderFacts {
  height: number;
  mediantime: number;
  difficulty: number;
}

export interface EquivalenceChain {
  name: string;
  network: "mainnet" | "regtest";
  startHeight: number;
  steps: ChainStep[];
  /** Every block of every branch, by hash (the index reads raw blocks by hash; Esplora serves raw transactions from them). */
  blocksByHash: Map<string, Uint8Array>;
  /** What the node's `getblockheader <hash> true` says of every block beyond its bytes (Esplora's block routes). */
  headers: Map<string, HeaderFacts>;
  /** Named subjects the chain bytes alone do not reveal as such (launchpad slugs, DRC-20 ticks as written). */
  slugs: string[];
  ticks: string[];
}

/** The 20 real mainnet blocks, one chain per run of consecutive heights. */
export function mainnetChains(): EquivalenceChain[] {
  const entries = [...mainnetBlocks()].sort((a, b) => a.blockNumber - b.blockNumber);
  const runs: (typeof entries)[] = [];
  for (const entry of entries) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (last && entry.blockNumber === last.blockNumber + 1 && entry.block.previousblockhash === last.blockHash)
      run.push(entry);
    else runs.push([entry]);
  }
  return runs.map((run) => {
    const blocks = run.map((entry) => ({ hash: entry.blockHash, raw: hexToBytes(entry.rawBlock) }));
    return {
      name: `mainnet-${run[0].blockNumber}${run.length > 1 ? `-${run[run.length - 1].blockNumber}` : ""}`,
      network: "mainnet" as const,
      startHeight: run[0].blockNumber,
      steps: [{ blocks, snapshot: "final" }],
      blocksByHash: new Map(blocks.map((b) => [b.hash, b.raw])),
      headers: new Map(
        run.map((entry) => {
          const header = entry.header as { height: number; mediantime: number; difficulty: number };
          return [
            entry.blockHash,
            { height: header.height, mediantime: header.mediantime, difficulty: header.difficulty },
          ];
        }),
      ),
      slugs: [],
      ticks: [],
    };
  });
}

/** SHA-256 over every step's block hashes: the fixture records it, so a changed generator is noticed. */
export function chainDigest(chain: EquivalenceChain): string {
  const text = chain.steps.map((step) => step.blocks.map((b) => b.hash).join(",")).join(";");
  return bytesToHex(sha256(new TextEncoder().encode(`${chain.name}|${chain.startHeight}|${text}`)));
}

/** A key derived from a label (never random): the same addresses on every run. */
export function fixedKey(label: string): TestKey {
  const privateKey = sha256(new TextEncoder().encode(`dogeos-index-equivalence:${label}`));
  const publicKey = privateKeyToPublicKey(privateKey);
  const address = publicKeyToAddress(publicKey, NETWORKS.regtest);
  return { privateKey, publicKey, address, script: addressToOutputScript(address, NETWORKS.regtest) };
}

const DOGE = 100_000_000n;

/** A ChainSource over a chain's blocks whose active list (the node's chain) a test switches between syncs. */
export class SteppedChainSource {
  active: ChainBlock[] = [];
  constructor(private readonly chain: EquivalenceChain) {}
  async getTipHeight(): Promise<number> {
    return this.chain.startHeight + this.active.length - 1;
  }
  async getBlockHash(height: number): Promise<string | null> {
    return this.active[height - this.chain.startHeight]?.hash ?? null;
  }
  async getRawBlock(hash: string): Promise<Uint8Array> {
    const raw = this.chain.blocksByHash.get(hash);
    if (!raw) throw new Error(`block ${hash} is not in chain ${this.chain.name}`);
    return raw;
  }
}

/**
 * The devnet as the test builders use it, in memory: `sendrawtransaction` queues a transaction,
 * `devnet_faucet` pays from the faucet key's matured coinbases, `mine()` makes a block of the queue.
 */
export class FakeNode {
  readonly blocks: ChainBlock[] = [];
  readonly blocksByHash = new Map<string, Uint8Array>();
  readonly headerFacts = new Map<string, HeaderFacts>();
  private readonly headers: Block[] = [];
  private mempool: DecodedTransaction[] = [];
  private faucetCoin: Spendable | null = null;
  private nextFaucetCoinbase = 1;
  private branch = 0;

  constructor(
    readonly faucet: TestKey,
    private readonly miner: TestKey,
  ) {
    const genesis = genesisBlock();
    this.push(genesis, serializeBlock(genesis));
  }

  get height(): number {
    return this.blocks.length - 1;
  }

  /** The part of `RunningDevnet` the builders call. */
  get devnet(): RunningDevnet {
    return { rpc: (method: string, params: unknown[] = []) => this.rpc(method, params) } as unknown as RunningDevnet;
  }

  private async rpc<T>(method: string, params: unknown[]): Promise<T> {
    if (method === "sendrawtransaction") {
      const parsed = parseTransactionHex(params[0] as string);
      if (!parsed.ok) throw parsed.error;
      this.mempool.push(parsed.value);
      return parsed.value.txid as T;
    }
    if (method === "devnet_faucet") {
      const [address, doge, mine] = params as [string, number, boolean];
      const paid = this.pay(addressToOutputScript(address, NETWORKS.regtest), BigInt(doge) * DOGE);
      if (mine) this.mine();
      return { txid: paid.txid, vout: paid.vout } as T;
    }
    throw new Error(`FakeNode has no RPC ${method}`);
  }

  /** Pays `value` to `script` from the faucet (change back to it), unconfirmed. */
  pay(script: Uint8Array, value: bigint): Spendable {
    const coin = this.takeFaucetCoin();
    const fee = DOGE / 10n;
    const tx: Transaction = {
      version: 1,
      inputs: [{ prevTxid: coin.txid, vout: coin.vout, scriptSig: new Uint8Array(0), sequence: 0xffffffff }],
      outputs: [
        { script, value },
        { script: this.faucet.script, value: coin.value - value - fee },
      ],
      locktime: 0,
    };
    const txid = signedP2pkh(tx, [this.faucet]);
    const parsed = parseTransactionHex(bytesToHex(serializeTransaction(tx)));
    if (!parsed.ok) throw parsed.error;
    this.mempool.push(parsed.value);
    this.faucetCoin = { txid, vout: 1, value: coin.value - value - fee };
    return { txid, vout: 0, value };
  }

  private takeFaucetCoin(): Spendable {
    if (this.faucetCoin) return this.faucetCoin;
    // A matured coinbase of the faucet that no branch has spent yet (each is used once).
    const height = this.nextFaucetCoinbase++;
    if (this.height - height < REGTEST.coinbaseMaturity) throw new Error(`faucet coinbase ${height} is not mature`);
    const block = this.headers[height];
    return { txid: block.txs[0].txid, vout: 0, value: block.txs[0].outputs[0].value };
  }

  /** Mines the queue (in arrival order, parents first) into one block; returns its hash. */
  mine(coinbaseTo: TestKey = this.miner): string {
    const height = this.blocks.length;
    const parent = this.headers[height - 1];
    const txs = this.mempool;
    this.mempool = [];
    const fees = txs.reduce((sum, tx) => sum + this.feeOf(tx, txs), 0n);
    const coinbase: Transaction = {
      version: 1,
      inputs: [
        {
          prevTxid: "0".repeat(64),
          vout: 0xffffffff,
          // BIP34 height, then the branch number so that a replacement block never repeats a hash.
          scriptSig: compileScript([encodeScriptNum(height), encodeScriptNum(this.branch)]),
          sequence: 0xffffffff,
        },
      ],
      outputs: [{ value: blockSubsidy(height) + fees, script: coinbaseTo.script }],
      locktime: 0,
    };
    const parsedCoinbase = parseTransactionHex(bytesToHex(serializeTransaction(coinbase)));
    if (!parsedCoinbase.ok) throw parsedCoinbase.error;
    const all = [parsedCoinbase.value, ...txs];
    const header = {
      version: REGTEST.blockVersion,
      prevHash: parent.hash,
      merkleRoot: merkleRoot(all.map((tx) => tx.txid)),
      time: this.headers[0].header.time + 60 * height,
      bits: REGTEST.powLimitBits,
      nonce: 0,
    };
    // Real proof of work at the regtest target (about two tries).
    const target = bitsToTarget(header.bits);
    while (
      BigInt("0x" + bytesToHexReversed(scryptPowHash(serializeBlock({ header, txs: [] }).subarray(0, 80)))) > target
    )
      header.nonce += 1;
    const raw = serializeBlock({ header, txs: all });
    const parsed = parseBlock(raw);
    if (!parsed.ok) throw parsed.error;
    this.push(parsed.value, raw);
    return parsed.value.hash;
  }

  /** Mines `count` blocks (the first takes the queue). */
  mineMany(count: number, coinbaseTo?: TestKey): void {
    for (let i = 0; i < count; i++) this.mine(coinbaseTo);
  }

  /**
   * Drops the blocks above `height` from the active chain (they stay readable by hash) and empties
   * the queue: the next blocks mined form a new branch. The faucet moves to an unspent coinbase.
   */
  rewind(height: number): void {
    this.blocks.length = height + 1;
    this.headers.length = height + 1;
    this.mempool = [];
    this.faucetCoin = null;
    this.branch += 1;
  }

  private push(block: Block, raw: Uint8Array): void {
    // Median time past as Core computes it: the median of the last 11 block times, this one included.
    const times = [...this.headers.slice(-10).map((b) => b.header.time), block.header.time].sort((a, b) => a - b);
    this.headerFacts.set(block.hash, {
      height: this.headers.length,
      mediantime: times[Math.floor(times.length / 2)],
      difficulty: difficulty(block.header.bits),
    });
    this.headers.push(block);
    this.blocks.push({ hash: block.hash, raw });
    this.blocksByHash.set(block.hash, raw);
  }

  /** Inputs less outputs, the values of the inputs found in the active chain or the queue. */
  private feeOf(tx: DecodedTransaction, queue: DecodedTransaction[]): bigint {
    let inputs = 0n;
    for (const input of tx.inputs) {
      const source =
        queue.find((t) => t.txid === input.prevTxid) ??
        this.headers.flatMap((b) => b.txs).find((t) => t.txid === input.prevTxid);
      if (!source) throw new Error(`FakeNode: input ${input.prevTxid}:${input.vout} spends nothing known`);
      inputs += source.outputs[input.vout].value;
    }
    return inputs - tx.outputs.reduce((sum, o) => sum + o.value, 0n);
  }

  /** The active chain now. */
  snapshot(): ChainBlock[] {
    return [...this.blocks];
  }
}

/** Signs every input as a P2PKH spend of the matching key; returns the txid. */
function signedP2pkh(tx: Transaction, keys: TestKey[]): string {
  tx.inputs.forEach((input, i) => {
    input.scriptSig = p2pkhScriptSig(signInput(tx, i, keys[i].script, keys[i].privateKey), keys[i].publicKey);
  });
  return txidOf(tx);
}

/** The 16 data items of a mode-0 OP_CHECKZKP vector (proof, public inputs, key), as in indexer-zkp.test.ts. */
function zkpProofItems(description: string): Uint8Array[] {
  const file = path.resolve(__dirname, "..", "..", "vectors", "zkp-groth16.json");
  const vectors = JSON.parse(fs.readFileSync(file, "utf8")) as {
    valid: { description: string; input: { script_asm: string } }[];
  };
  const vector = vectors.valid.find((v) => v.description.startsWith(description));
  if (!vector) throw new Error(`no OP_CHECKZKP vector "${description}"`);
  return vector.input.script_asm
    .split(" ")
    .filter((token) => !token.startsWith("OP_"))
    .map((hex) => hexToBytes(hex));
}

/** OP_0 OP_CHECKZKP, then drop the mode and the 16 items and leave true (indexer-zkp.test.ts). */
const ZKP_VERIFY_REDEEM = compileScript([OP.OP_0, OP.OP_CHECKZKP, OP.OP_DROP, ...Array(8).fill(OP.OP_2DROP), OP.OP_1]);
const ZKP_STRAY_REDEEM = compileScript([OP.OP_CHECKZKP, OP.OP_1]);

let devnetCache: Promise<EquivalenceChain> | null = null;

/** The devnet chain (built once per process: about a second). */
export function devnetChain(): Promise<EquivalenceChain> {
  devnetCache ??= buildDevnetChain();
  return devnetCache;
}

async function buildDevnetChain(): Promise<EquivalenceChain> {
  const faucet = fixedKey("faucet");
  const miner = fixedKey("miner");
  const [alice, bob, carol, dave, eve, zed] = ["alice", "bob", "carol", "dave", "eve", "zed"].map(fixedKey);
  const node = new FakeNode(faucet, miner);
  const devnet = node.devnet;
  const steps: ChainStep[] = [];
  const sync = (snapshot?: string) => steps.push({ blocks: node.snapshot(), ...(snapshot ? { snapshot } : {}) });

  // Coinbases for the faucet, matured (regtest: 60 blocks).
  node.mineMany(REGTEST.coinbaseMaturity + 4, faucet);
  sync();

  // Payments: change, OP_RETURNs (a magic and a document anchor), bare P2PK, 1-of-2 multisig, P2SH.
  const aliceCoin = node.pay(alice.script, 1000n * DOGE);
  const bobCoin = node.pay(bob.script, 1000n * DOGE);
  node.pay(carol.script, 500n * DOGE);
  node.pay(dave.script, 500n * DOGE);
  node.pay(eve.script, 250n * DOGE);
  const document = sha256(new TextEncoder().encode("dogeos index equivalence: an anchored document"));
  const alicePay = await pay(
    devnet,
    alice,
    [aliceCoin],
    [
      { script: bob.script, value: 30n * DOGE },
      { script: nullDataScript(new TextEncoder().encode("dogeos:hello")), value: 0n },
      { script: nullDataScript(document), value: 0n },
      { script: compileScript([bob.publicKey, OP.OP_CHECKSIG]), value: 5n * DOGE },
      {
        script: compileScript([OP.OP_1, alice.publicKey, bob.publicKey, OP.OP_2, OP.OP_CHECKMULTISIG]),
        value: 7n * DOGE,
      },
    ],
  );
  const p2shRedeem = compileScript([OP.OP_1]);
  const p2sh = await commitP2sh(devnet, bob, bobCoin, p2shRedeem);
  node.mine();
  await p2sh.spend([], carol.script);
  await pay(
    devnet,
    alice,
    [alicePay.change!],
    [
      { script: carol.script, value: 12n * DOGE },
      { script: nullDataScript(new TextEncoder().encode("dogeos:again"), Uint8Array.of(1, 2, 3)), value: 0n },
    ],
  );
  node.mine();

  // DRC-20: deploys (one refused: the tick exists), mints (one over the limit, one of an unknown tick).
  await deployTick(devnet, alice, "woof", 1_000_000n, 1_000n);
  await deployTick(devnet, bob, "MOON", 21_000n, 21_000n);
  node.mine();
  await deployTick(devnet, carol, "WOOF", 5n, 5n);
  await mintTick(devnet, alice, "woof", 1_000n);
  await mintTick(devnet, bob, "woof", 1_000n);
  await mintTick(devnet, bob, "woof", 5_000n);
  await mintTick(devnet, carol, "nope", 10n);
  await mintTick(devnet, alice, "MOON", 20_000n);
  await mintTick(devnet, carol, "moon", 5_000n);
  node.mine();
  sync();

  // Transfers: inscribed (one too large for the balance), sent once, moved again.
  const aliceTransfer = await inscribeTransfer(devnet, alice, "woof", 300n);
  await inscribeTransfer(devnet, alice, "woof", 5_000n);
  const bobTransfer = await inscribeTransfer(devnet, bob, "woof", 100n);
  const moonTransfer = await inscribeTransfer(devnet, alice, "moon", 1_000n);
  node.mine();
  const toBob = await sendInscription(devnet, alice, aliceTransfer, bob.script);
  // Bob's transfer spent to fees: it returns to him.
  const bobFee = node.pay(bob.script, 3n * DOGE);
  await sendInscription(devnet, bob, bobTransfer, bob.script, { toFees: true, before: [{ key: bob, coin: bobFee }] });
  await sendTransfer(devnet, alice, moonTransfer, carol.script);
  node.mine();
  await sendInscription(devnet, bob, toBob.output!, carol.script);

  // Inscriptions: a Doginals image over several reveals, a v1 envelope over several inputs, a
  // launchpad collection with its mints (members, a stranger's, a duplicate, out of range, wrong max).
  const picture = Uint8Array.from({ length: 1900 }, (_, i) => (i * 37 + 11) % 251);
  const image = await inscribeDoginals(
    devnet,
    carol,
    node.pay(carol.script, 10n * DOGE),
    { contentType: "image/png", body: picture },
    carol.script,
  );
  const pdf = new TextEncoder().encode("%PDF-1.4 " + "dogeos equivalence ".repeat(60));
  await inscribeV1(
    devnet,
    carol,
    node.pay(carol.script, 10n * DOGE),
    { contentType: "application/pdf", action: "TOKENIZE", body: pdf },
    dave.script,
  );
  const slug = "pups";
  await inscribeV1(
    devnet,
    dave,
    node.pay(dave.script, 10n * DOGE),
    {
      contentType: "application/json",
      action: "LAUNCHPAD_DEPLOY",
      body: encodeLaunchpadDeploy({ slug, name: "Pups", priceKoinu: 2n * DOGE, maxSupply: 3n }),
    },
    dave.script,
  );
  node.mine();
  const mint = (key: TestKey, tokenId: bigint, maxSupply = 3n, to = key) =>
    inscribeV1(
      devnet,
      key,
      node.pay(key.script, 10n * DOGE),
      {
        contentType: "application/json",
        action: "LAUNCHPAD_MINT",
        body: encodeLaunchpadMint({ slug, tokenId, maxSupply }),
      },
      to.script,
    );
  const token0 = await mint(dave, 0n);
  await mint(dave, 1n, 3n, bob);
  await mint(eve, 2n);
  await mint(dave, 0n);
  await mint(dave, 5n);
  await mint(dave, 2n, 4n);
  await inscribeV1(
    devnet,
    eve,
    node.pay(eve.script, 10n * DOGE),
    {
      contentType: "application/json",
      action: "LAUNCHPAD_DEPLOY",
      body: encodeLaunchpadDeploy({ slug: "kits", name: "Kits", priceKoinu: DOGE, maxSupply: 10n }),
    },
    eve.script,
  );
  node.mine();
  await sendInscription(devnet, dave, token0.output, alice.script);
  // The image spent to fees: it lands in the coinbase.
  await sendInscription(devnet, carol, image.output, carol.script, { toFees: true });
  node.mine();

  // OP_CHECKZKP: a valid proof, an invalid one (same key), a stray use.
  for (const [redeem, items] of [
    [ZKP_VERIFY_REDEEM, zkpProofItems("verifies the first snarkjs proof")],
    [ZKP_VERIFY_REDEEM, zkpProofItems("rejects the first proof with public input 0 changed")],
    [ZKP_STRAY_REDEEM, []],
  ] as const) {
    const commit = await commitP2sh(devnet, zed, node.pay(zed.script, 5n * DOGE), redeem);
    node.mine();
    await commit.spend([...items], zed.script);
  }
  node.mine();
  node.mineMany(3);
  sync();

  // Reorg 1: the tip block (a payment to bob and a DRC-20 transfer sent to bob) is replaced by a
  // block where the same coins pay carol and the transfer goes to dave.
  const reorgPay = node.pay(alice.script, 40n * DOGE);
  const reorgTransfer = await inscribeTransfer(devnet, alice, "woof", 50n);
  node.mine();
  sync();
  const forkHeight = node.height;
  await pay(devnet, alice, [reorgPay], [{ script: bob.script, value: 15n * DOGE }]);
  await sendTransfer(devnet, alice, reorgTransfer, bob.script);
  node.mine();
  sync();
  node.rewind(forkHeight);
  await pay(devnet, alice, [reorgPay], [{ script: carol.script, value: 16n * DOGE }]);
  await sendTransfer(devnet, alice, reorgTransfer, dave.script);
  node.mine();
  node.mineMany(2);
  sync();

  // Reorg 2: two blocks (a launchpad mint, an inscription move, an OP_RETURN, a DRC-20 mint) are
  // replaced by three where the mint is absent, the move goes elsewhere and a double spend pays eve.
  const fork2 = node.height;
  const aliceCoin2 = node.pay(alice.script, 60n * DOGE);
  const token1Holder = await mint(dave, 1n);
  await mintTick(devnet, eve, "woof", 400n);
  node.mine();
  await pay(
    devnet,
    alice,
    [aliceCoin2],
    [
      { script: bob.script, value: 20n * DOGE },
      { script: nullDataScript(new TextEncoder().encode("dogeos:orphan")), value: 0n },
    ],
  );
  await sendInscription(devnet, dave, token1Holder.output, eve.script);
  node.mine();
  sync("branch-a");
  node.rewind(fork2);
  const aliceCoin2b = node.pay(alice.script, 60n * DOGE);
  await mintTick(devnet, eve, "woof", 400n);
  node.mine();
  await pay(devnet, alice, [aliceCoin2b], [{ script: eve.script, value: 25n * DOGE }]);
  node.mine();
  // Enough blocks on top for facts about the reorged heights to be six deep.
  node.mineMany(6);
  sync("final");

  return {
    name: "devnet",
    network: "regtest",
    startHeight: 0,
    steps,
    blocksByHash: node.blocksByHash,
    headers: node.headerFacts,
    slugs: [slug, "kits", "none"],
    ticks: ["woof", "MOON", "nope", "abcd"],
  };
}

/** Addresses of the fixed keys (for the header of the fixture). */
export function devnetKeys(): Record<string, string> {
  return Object.fromEntries(
    ["faucet", "miner", "alice", "bob", "carol", "dave", "eve", "zed"].map((name) => [name, fixedKey(name).address]),
  );
}
