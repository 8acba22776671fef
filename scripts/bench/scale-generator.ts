/**
 * The mainnet-shaped chain of `npm run bench:scale`: serialized Dogecoin blocks (80-byte header with
 * prev-hash linkage and the merkle root of the block's txids, a coinbase first) written to one file
 * of raw bytes plus an index of offsets, deterministic for a seed. Signatures are dummies (the
 * indexer checks none), so ten million transactions take minutes, not hours.
 *
 * Shape:
 * - blocks of 50-200 transactions (plus the coinbase, which pays 10,000 DOGE + fees);
 * - payments spend 1-3 real earlier outputs (70% young, 30% anywhere in the UTXO set) and pay one
 *   recipient plus change to the first input's owner; large inputs fan out to several recipients;
 * - recipients are heavy-tailed: three "exchange" addresses take 10%, 5% and 3% of payments, the
 *   rest follow a log-uniform (Zipf, s = 1) law over an address pool of a fifth of the
 *   transactions so far (at least 1,000): new addresses keep appearing as the chain grows;
 * - payments spend more coins while the UTXO set holds more than a quarter of the transactions so
 *   far (at least 20,000), so the set grows with the chain and every part of it has one shape
 *   (about 1.8 inputs and 2.0 outputs a transaction);
 * - about 5% of transactions are classic Doginals reveals (input 0 spends the P2SH output of a
 *   commit in the same block, scriptSig "ord" <pieces> <content type> <countdown> <chunk>...
 *   <signature> <redeem script>, built by src/inscription/doginals.ts): DRC-20 deploys, mints and
 *   transfers, and other text/image content; each reveal's commit is an ordinary payment;
 * - about 2% of transactions carry an OP_RETURN output.
 *
 * Run directly (the bench runs it in a child process so its memory stays out of the indexer's peak
 * RSS): node --import tsx scripts/bench/scale-generator.ts --txs N --dir DIR [--seed S]
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { NETWORKS, OP, encodeAddress } from "../../src/doge";
import { doginalsScriptSig, encodeDoginalsReveal } from "../../src/inscription/doginals";
import { drc20TickKey, encodeDrc20 } from "../../src/inscription/drc20";

/**
 * Bumped whenever the chain's shape changes: a different version is a different cache entry.
 * Version 2: the address pool and the UTXO set's target follow the transactions so far, not --txs,
 * so the chain of N transactions is the first N of a longer one for the same seed (version 1's
 * pools were sized from --txs: its chain switched to 27% more inputs a transaction where the UTXO
 * set reached --txs / 4, about half way, so the later steps of a run had another shape than the
 * first; docs/operations.md "Generator version 2").
 */
export const SCALE_GENERATOR_VERSION = 2;
/** Bytes per block record in index.bin: offset (f64), length (u32), transactions (u32), hash (32, internal order). */
export const INDEX_RECORD_BYTES = 48;
const SUBSIDY = 10_000n * 100_000_000n; // mainnet's fixed block reward since block 600,000 (10,000 DOGE)
const HOT_SHARES = [0.1, 0.05, 0.03];
const INSCRIPTION_VALUE = 100_000; // koinu on an inscribed output (0.001 DOGE, what inscribers use)
const DUST = 1_000_000; // 0.01 DOGE

export interface ScaleChainParams {
  txs: number;
  seed: number;
}

export interface ScaleChainMeta {
  version: number;
  params: ScaleChainParams;
  network: "mainnet";
  blocks: number;
  txs: number;
  bytes: number;
  /** Transactions by kind (coinbases included in txs, not here). */
  payments: number;
  commits: number;
  reveals: number;
  drc20: { deploy: number; mint: number; transfer: number };
  otherInscriptions: number;
  opReturns: number;
  addressPool: number;
  busiest: { owner: number; address: string; txs: number };
  /** Transactions touching each of the three exchange addresses. */
  hotTxs: number[];
  /** For the busiest address, (height, position) of each transaction touching it, in chain order (touches.bin, u32 pairs). */
  touchesFile: string;
  /** Reveal txids (display hex) of the first inscriptions, for tests. */
  sampleReveals: { txid: string; kind: "deploy" | "mint" | "transfer" | "other" }[];
  generatedSeconds: number;
}

/** Where a chain with these parameters is cached. */
export function chainDirectory(root: string, params: ScaleChainParams): string {
  return path.join(root, `chain-${params.txs}-s${params.seed}-v${SCALE_GENERATOR_VERSION}`);
}

/** The cached chain's metadata if it is complete (meta.json is written last), else null. */
export function readChainMeta(dir: string): ScaleChainMeta | null {
  const file = path.join(dir, "meta.json");
  if (!fs.existsSync(file)) return null;
  const meta = JSON.parse(fs.readFileSync(file, "utf8")) as ScaleChainMeta;
  return meta.version === SCALE_GENERATOR_VERSION ? meta : null;
}

/** sfc32: a small, fast, well-distributed deterministic PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = 0x9e3779b9,
    b = 0x243f6a88,
    c = 0xb7e15162,
    d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

function sha256d(data: Uint8Array): Buffer {
  return crypto.hash("sha256", crypto.hash("sha256", data, "buffer"), "buffer") as Buffer;
}

/** A 32-bit integer hash (murmur3 finaliser). */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The 20-byte hash behind an owner's address: a fixed function of (seed, owner). */
function ownerHash(seed: number, owner: number, out: Uint8Array, at: number): void {
  for (let i = 0; i < 5; i++) {
    const v = mix32((owner * 5 + i) ^ mix32(seed + i));
    out[at + i * 4] = v & 0xff;
    out[at + i * 4 + 1] = (v >>> 8) & 0xff;
    out[at + i * 4 + 2] = (v >>> 16) & 0xff;
    out[at + i * 4 + 3] = v >>> 24;
  }
}

/** One owner in ten (but never an exchange address) holds a P2SH address, the rest P2PKH. */
function isP2shOwner(seed: number, owner: number): boolean {
  return owner >= HOT_SHARES.length && mix32(owner ^ seed ^ 0x5bd1e995) % 10 === 0;
}

export function ownerAddress(seed: number, owner: number): string {
  const hash = new Uint8Array(20);
  ownerHash(seed, owner, hash, 0);
  return encodeAddress(hash, isP2shOwner(seed, owner) ? "scripthash" : "pubkeyhash", NETWORKS.mainnet);
}

/** Appends bytes to a growable buffer (one per block). */
class Writer {
  buf = Buffer.allocUnsafe(1 << 20);
  len = 0;
  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.len++] = v;
  }
  u32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
  }
  /** A non-negative safe integer as u64 little-endian. */
  u64(v: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(v % 4294967296, this.len);
    this.buf.writeUInt32LE(Math.floor(v / 4294967296), this.len + 4);
    this.len += 8;
  }
  varint(v: number): void {
    if (v < 0xfd) this.u8(v);
    else if (v <= 0xffff) {
      this.u8(0xfd);
      this.ensure(2);
      this.buf.writeUInt16LE(v, this.len);
      this.len += 2;
    } else {
      this.u8(0xfe);
      this.u32(v);
    }
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  varBytes(b: Uint8Array): void {
    this.varint(b.length);
    this.bytes(b);
  }
}

/**
 * The UTXO set as parallel typed arrays (txid bytes, vout, value, owner, kind): about 50 bytes a
 * coin, removal by swapping the last coin into the hole. Newest coins sit near the end.
 */
class CoinPool {
  size = 0;
  private cap = 1 << 16;
  txid = new Uint8Array(this.cap * 32);
  vout = new Uint32Array(this.cap);
  value = new Float64Array(this.cap);
  owner = new Uint32Array(this.cap);
  /** 0 ordinary output, 1 P2SH commit output, 2 output carrying an inscription (at offset 0). */
  kind = new Uint8Array(this.cap);

  private grow(): void {
    this.cap *= 2;
    const t = new Uint8Array(this.cap * 32);
    t.set(this.txid);
    this.txid = t;
    const v = new Uint32Array(this.cap);
    v.set(this.vout);
    this.vout = v;
    const x = new Float64Array(this.cap);
    x.set(this.value);
    this.value = x;
    const o = new Uint32Array(this.cap);
    o.set(this.owner);
    this.owner = o;
    const k = new Uint8Array(this.cap);
    k.set(this.kind);
    this.kind = k;
  }

  add(txid: Uint8Array, vout: number, value: number, owner: number, kind = 0): void {
    if (this.size === this.cap) this.grow();
    const i = this.size++;
    this.txid.set(txid, i * 32);
    this.vout[i] = vout;
    this.value[i] = value;
    this.owner[i] = owner;
    this.kind[i] = kind;
  }

  /** Copies coin i into `out` and removes it from the pool. */
  take(i: number, out: Coin): void {
    out.txid.set(this.txid.subarray(i * 32, i * 32 + 32));
    out.vout = this.vout[i];
    out.value = this.value[i];
    out.owner = this.owner[i];
    const last = --this.size;
    if (i !== last) {
      this.txid.copyWithin(i * 32, last * 32, last * 32 + 32);
      this.vout[i] = this.vout[last];
      this.value[i] = this.value[last];
      this.owner[i] = this.owner[last];
      this.kind[i] = this.kind[last];
    }
  }
}

interface Coin {
  txid: Uint8Array;
  vout: number;
  value: number;
  owner: number;
}

interface OutputSpec {
  value: number;
  owner: number; // -1: OP_RETURN or commit script (not an owner's address)
  script: Uint8Array | null; // explicit script (OP_RETURN, P2SH commit), else the owner's
}

export interface GenerateOptions extends ScaleChainParams {
  dir: string;
  onProgress?: (txs: number, blocks: number) => void;
}

/** Generates the chain into `dir` (blocks.dat, index.bin, touches.bin, meta.json last) and returns its metadata. */
export function generateScaleChain(options: GenerateOptions): ScaleChainMeta {
  const { txs: targetTxs, seed, dir } = options;
  if (!Number.isSafeInteger(targetTxs) || targetTxs < 1000)
    throw new Error(`--txs must be an integer >= 1000, got ${targetTxs}`);
  const started = Date.now();
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(path.join(dir, "meta.json"), { force: true });
  const random = seededRandom(seed);
  // Both pools follow the chain so far (version 2): nothing below depends on targetTxs but where
  // the chain stops. The coin pool takes 49 bytes a coin: 120 MB at 10M transactions.
  const addressPoolAt = (txs: number) => Math.max(1000, Math.floor(txs / 5));
  const poolTargetAt = (txs: number) => Math.max(20_000, Math.floor(txs / 4));
  const addressPool = addressPoolAt(targetTxs);

  // Dummy signatures and public keys: deterministic bytes shaped like DER signatures, drawn from a
  // table so the scriptSigs' bytes look like mainnet's (random, 0xb9 included now and then).
  const sigTable: Buffer[] = [];
  const filler = seededRandom(seed ^ 0x51a7);
  const randomBytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(filler() * 256)));
  const derSig = () =>
    Buffer.concat([
      Buffer.from([0x30, 0x45, 0x02, 0x21, 0x00]),
      randomBytes(32),
      Buffer.from([0x02, 0x20]),
      randomBytes(32),
      Buffer.from([0x01]),
    ]);
  const pubkey = () => Buffer.concat([Buffer.from([0x02 + (filler() < 0.5 ? 0 : 1)]), randomBytes(32)]);
  const noOrd = (b: Buffer) => !b.includes(Buffer.from([0x03, 0x6f, 0x72, 0x64]));
  while (sigTable.length < 512) {
    const p2pkh = Buffer.concat([Buffer.from([72]), derSig(), Buffer.from([33]), pubkey()]);
    if (noOrd(p2pkh)) sigTable.push(p2pkh);
  }
  const multisigTable: Buffer[] = [];
  while (multisigTable.length < 128) {
    const redeem = Buffer.concat([
      Buffer.from([OP.OP_2, 33]),
      pubkey(),
      Buffer.from([33]),
      pubkey(),
      Buffer.from([33]),
      pubkey(),
      Buffer.from([OP.OP_3, OP.OP_CHECKMULTISIG]),
    ]);
    const script = Buffer.concat([
      Buffer.from([OP.OP_0, 72]),
      derSig(),
      Buffer.from([72]),
      derSig(),
      Buffer.from([OP.OP_PUSHDATA1, redeem.length]),
      redeem,
    ]);
    if (noOrd(script)) multisigTable.push(script);
  }
  const inscriberKey = pubkey();
  const revealSig = derSig();

  const scriptScratch = new Uint8Array(25);
  const writeOwnerScript = (w: Writer, owner: number) => {
    if (isP2shOwner(seed, owner)) {
      w.u8(23);
      w.u8(OP.OP_HASH160);
      w.u8(20);
      ownerHash(seed, owner, scriptScratch, 0);
      w.bytes(scriptScratch.subarray(0, 20));
      w.u8(OP.OP_EQUAL);
    } else {
      w.u8(25);
      w.u8(OP.OP_DUP);
      w.u8(OP.OP_HASH160);
      w.u8(20);
      ownerHash(seed, owner, scriptScratch, 0);
      w.bytes(scriptScratch.subarray(0, 20));
      w.u8(OP.OP_EQUALVERIFY);
      w.u8(OP.OP_CHECKSIG);
    }
  };

  const pickRecipient = (): number => {
    let r = random();
    for (let h = 0; h < HOT_SHARES.length; h++) {
      if (r < HOT_SHARES[h]) return h;
      r -= HOT_SHARES[h];
    }
    // Log-uniform rank in [1, N - 3] for the pool N of the chain so far: P(rank <= k) = ln k / ln N,
    // Zipf with s = 1.
    const rank = Math.floor(Math.exp(random() * Math.log(addressPoolAt(txCount) - HOT_SHARES.length)));
    return HOT_SHARES.length - 1 + Math.max(1, rank);
  };

  const pool = new CoinPool();
  const touchCount = new Uint32Array(addressPool);
  const hotTouches: Uint32Array[] = HOT_SHARES.map(() => new Uint32Array(1 << 16));
  const hotTouchLen = HOT_SHARES.map(() => 0);
  const touchedScratch: number[] = [];
  const recordTouches = (owners: number[], height: number, position: number) => {
    touchedScratch.length = 0;
    for (const owner of owners) if (owner >= 0 && !touchedScratch.includes(owner)) touchedScratch.push(owner);
    for (const owner of touchedScratch) {
      touchCount[owner]++;
      if (owner < HOT_SHARES.length) {
        if (hotTouchLen[owner] + 2 > hotTouches[owner].length) {
          const grown = new Uint32Array(hotTouches[owner].length * 2);
          grown.set(hotTouches[owner]);
          hotTouches[owner] = grown;
        }
        hotTouches[owner][hotTouchLen[owner]++] = height;
        hotTouches[owner][hotTouchLen[owner]++] = position;
      }
    }
  };

  const blocksFd = fs.openSync(path.join(dir, "blocks.dat"), "w");
  const index = Buffer.alloc(INDEX_RECORD_BYTES * Math.ceil(targetTxs / 40 + 16));
  let fileOffset = 0;
  let height = 0;
  let txCount = 0;
  let prevHash: Buffer = Buffer.alloc(32);
  let time = 1_700_000_000;
  const stats = { payments: 0, commits: 0, reveals: 0, deploy: 0, mint: 0, transfer: 0, other: 0, opReturns: 0 };
  const sampleReveals: ScaleChainMeta["sampleReveals"] = [];
  // DRC-20 state the generator keeps to write mostly valid operations: deployed ticks and, per tick,
  // recent minters with what they minted (a transfer inscription moves one of those amounts).
  const ticks: { tick: string; lim: bigint; minters: { owner: number; amount: bigint }[] }[] = [];
  const tickName = (n: number) => {
    let s = "";
    for (let i = 0; i < 4; i++) {
      s += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    }
    return s;
  };

  const txw = new Writer();
  const blockTxs = new Writer();
  const txids: Buffer[] = [];
  const produced: { txid: Buffer; vout: number; value: number; owner: number; kind: number }[] = [];
  const pendingCoinbase: { height: number; txid: Buffer; value: number; owner: number }[] = [];
  const coins: Coin[] = [0, 1, 2].map(() => ({ txid: new Uint8Array(32), vout: 0, value: 0, owner: 0 }));
  const owners: number[] = [];
  const outputs: OutputSpec[] = [];

  /** Serializes one transaction into txw and appends it to the block; returns its txid (internal order). */
  const emitTx = (
    inputs: { coin: Coin; scriptSig: Uint8Array }[],
    outs: OutputSpec[],
    isCoinbase: boolean,
    coinbaseScriptSig?: Uint8Array,
  ): Buffer => {
    txw.len = 0;
    txw.u32(isCoinbase ? 1 : 2);
    if (isCoinbase) {
      txw.u8(1);
      txw.bytes(new Uint8Array(32));
      txw.u32(0xffffffff);
      txw.varBytes(coinbaseScriptSig!);
      txw.u32(0xffffffff);
    } else {
      txw.varint(inputs.length);
      for (const { coin, scriptSig } of inputs) {
        txw.bytes(coin.txid);
        txw.u32(coin.vout);
        txw.varBytes(scriptSig);
        txw.u32(0xfffffffe);
      }
    }
    txw.varint(outs.length);
    for (const out of outs) {
      txw.u64(out.value);
      if (out.script) txw.varBytes(out.script);
      else writeOwnerScript(txw, out.owner);
    }
    txw.u32(0);
    const raw = txw.buf.subarray(0, txw.len);
    const txid = sha256d(raw);
    blockTxs.bytes(raw);
    txids.push(txid);
    return txid;
  };

  const scriptSigFor = (owner: number): Uint8Array =>
    isP2shOwner(seed, owner)
      ? multisigTable[Math.floor(random() * multisigTable.length)]
      : sigTable[Math.floor(random() * sigTable.length)];

  /**
   * Takes a coin: 70% among the ~50,000 youngest, 30% anywhere. `plain` asks for a coin without an
   * inscription (a commit's first input: wallets keep inscribed coins out of new inscriptions,
   * which the indexer would reject as reinscriptions).
   */
  const takeCoin = (into: Coin, plain = false): boolean => {
    if (pool.size === 0) return false;
    let i = 0;
    for (let attempt = 0; attempt < 16; attempt++) {
      if (random() < 0.7) {
        const r = random();
        i = pool.size - 1 - Math.floor(r * r * Math.min(pool.size, 50_000));
      } else {
        i = Math.floor(random() * pool.size);
      }
      if (!plain || pool.kind[i] !== 2) break;
    }
    if (plain && pool.kind[i] === 2) return false;
    pool.take(i, into);
    return true;
  };

  let blockFees = 0;
  const opReturnPayload = () => {
    const n = 20 + Math.floor(random() * 60);
    const payload = Buffer.alloc(n);
    for (let i = 0; i < n; i++) payload[i] = Math.floor(random() * 256);
    return Buffer.concat([Buffer.from([OP.OP_RETURN, n]), payload]);
  };

  /** An ordinary payment spending 1-3 coins; `extra` outputs go first (a commit's P2SH output). Returns its txid or null without coins. */
  const payment = (position: number, extra: OutputSpec | null): Buffer | null => {
    const shrink = pool.size > poolTargetAt(txCount);
    const r = random();
    let want = shrink ? (r < 0.3 ? 1 : r < 0.7 ? 2 : 3) : r < 0.6 ? 1 : r < 0.85 ? 2 : 3;
    if (extra) want = 1;
    const inputs: { coin: Coin; scriptSig: Uint8Array }[] = [];
    for (let k = 0; k < want; k++) {
      if (!takeCoin(coins[k], extra !== null && k === 0)) break;
      inputs.push({ coin: coins[k], scriptSig: scriptSigFor(coins[k].owner) });
    }
    if (inputs.length === 0) return null;
    let total = 0;
    for (const input of inputs) total += input.coin.value;
    // A commit needs its output's value and the fee: add inputs while short (at most three).
    while (extra && total < extra.value + 4 * DUST && inputs.length < 3 && takeCoin(coins[inputs.length])) {
      const coin = coins[inputs.length];
      inputs.push({ coin, scriptSig: scriptSigFor(coin.owner) });
      total += coin.value;
    }
    const fee = total < 8 * DUST ? Math.floor(total / 8) : 2 * DUST;
    let remaining = total - fee;
    blockFees += fee;
    outputs.length = 0;
    if (extra) {
      const value = Math.min(extra.value, remaining);
      outputs.push({ ...extra, value });
      remaining -= value;
    }
    const changeOwner = inputs[0].coin.owner;
    if (remaining > 0) {
      // Big coins fan out (exchange payouts); otherwise one payment and change.
      const payees = remaining > 1e14 ? 2 + Math.floor(random() * 7) : 1;
      if (remaining < 4 * DUST) {
        outputs.push({ value: remaining, owner: extra ? changeOwner : pickRecipient(), script: null });
      } else {
        for (let p = 0; p < payees; p++) {
          const value = Math.floor(remaining * (payees > 1 ? 1 / (payees + 1) : 0.1 + random() * 0.8));
          outputs.push({ value, owner: pickRecipient(), script: null });
          remaining -= value;
        }
        outputs.push({ value: remaining, owner: changeOwner, script: null });
      }
    }
    if (random() < 0.02 / 0.93) {
      outputs.splice((extra ? 1 : 0) + Math.floor(random() * (outputs.length + (extra ? 0 : 1))), 0, {
        value: 0,
        owner: -1,
        script: opReturnPayload(),
      });
      stats.opReturns++;
    }
    const txid = emitTx(inputs, outputs, false);
    owners.length = 0;
    for (const input of inputs) owners.push(input.coin.owner);
    outputs.forEach((out, vout) => {
      if (out.owner >= 0) owners.push(out.owner);
      if (out.script === null || out.owner === -2)
        produced.push({ txid, vout, value: out.value, owner: out.owner, kind: out.owner === -2 ? 1 : 0 });
    });
    recordTouches(owners, height, position);
    return txid;
  };

  /** An inscription: a commit paying a P2SH output, then the reveal spending it. Two transactions. */
  const inscription = (position: number): boolean => {
    const r = random();
    let kind: "deploy" | "mint" | "transfer" | "other";
    let body: Uint8Array;
    let contentType = "text/plain;charset=utf-8";
    let recipient = -1;
    if (r < 0.03 || ticks.length === 0) {
      kind = "deploy";
      // One deploy in ten repeats an existing tick (rejected by the rules, as on mainnet).
      const n = random() < 0.1 && ticks.length > 0 ? Math.floor(random() * ticks.length) : ticks.length;
      const tick = tickName(n);
      const lim = BigInt(100 * (1 + Math.floor(random() * 100)));
      if (n === ticks.length) ticks.push({ tick, lim, minters: [] });
      body = encodeDrc20({
        kind: "deploy",
        tick,
        tickKey: drc20TickKey(tick),
        maxSupply: lim * BigInt(1000 + Math.floor(random() * 1_000_000)),
        mintLimit: lim,
      });
    } else if (r < 0.65) {
      kind = "mint";
      // Recent ticks are minted most (a mint rush follows each deploy).
      const t = ticks[ticks.length - 1 - Math.floor(random() * random() * ticks.length)];
      const amount = t.lim;
      recipient = pickRecipient();
      if (t.minters.length < 64) t.minters.push({ owner: recipient, amount });
      else t.minters[Math.floor(random() * 64)] = { owner: recipient, amount };
      body = encodeDrc20({ kind: "mint", tick: t.tick, tickKey: drc20TickKey(t.tick), amount });
    } else if (r < 0.85) {
      kind = "transfer";
      const t = ticks[Math.floor(random() * ticks.length)];
      const minter =
        t.minters.length > 0
          ? t.minters.splice(Math.floor(random() * t.minters.length), 1)[0]
          : { owner: pickRecipient(), amount: t.lim };
      recipient = minter.owner;
      body = encodeDrc20({ kind: "transfer", tick: t.tick, tickKey: drc20TickKey(t.tick), amount: minter.amount });
    } else {
      kind = "other";
      if (random() < 0.5) {
        body = new TextEncoder().encode(`such inscription ${height}.${position} wow`);
      } else {
        contentType = "image/webp";
        body = Buffer.alloc(100 + Math.floor(random() * 1100));
        for (let i = 0; i < body.length; i++) body[i] = Math.floor(random() * 256);
      }
    }
    const parts = encodeDoginalsReveal({ contentType, body, pubkey: inscriberKey });
    if (parts.length !== 1)
      throw new Error(`generator bug: inscription of ${body.length} bytes needs ${parts.length} reveals`);
    const part = parts[0];
    const redeemHash = crypto
      .createHash("ripemd160")
      .update(crypto.hash("sha256", part.redeemScript, "buffer"))
      .digest();
    const commitScript = Buffer.concat([Buffer.from([OP.OP_HASH160, 20]), redeemHash, Buffer.from([OP.OP_EQUAL])]);
    const commitValue = INSCRIPTION_VALUE + 3 * DUST;
    const before = produced.length;
    const commitTxid = payment(position, { value: commitValue, owner: -2, script: commitScript });
    if (!commitTxid) return false;
    const commitOut = produced.splice(before, 1)[0];
    if (commitOut.kind !== 1 || commitOut.vout !== 0) throw new Error("generator bug: commit output not first");
    stats.commits++;
    // The payer of the commit inscribes to itself unless the operation names a holder.
    const funder = owners[0];
    const owner = recipient >= 0 ? recipient : funder;
    const revealCoin: Coin = { txid: commitTxid, vout: 0, value: commitOut.value, owner: funder };
    const revealValue = Math.min(INSCRIPTION_VALUE, commitOut.value);
    const change = commitOut.value - revealValue > 2 * DUST ? commitOut.value - revealValue - DUST : 0;
    blockFees += commitOut.value - revealValue - change;
    const revealOutputs: OutputSpec[] = [{ value: revealValue, owner, script: null }];
    if (change > 0) revealOutputs.push({ value: change, owner: funder, script: null });
    const revealTxid = emitTx(
      [{ coin: revealCoin, scriptSig: doginalsScriptSig(part, revealSig) }],
      revealOutputs,
      false,
    );
    revealOutputs.forEach((out, vout) =>
      produced.push({ txid: revealTxid, vout, value: out.value, owner: out.owner, kind: vout === 0 ? 2 : 0 }),
    );
    recordTouches(
      revealOutputs.map((out) => out.owner),
      height,
      position + 1,
    );
    stats.reveals++;
    stats[kind]++;
    if (sampleReveals.length < 200)
      sampleReveals.push({ txid: Buffer.from(revealTxid).reverse().toString("hex"), kind });
    return true;
  };

  const writeBlock = (txCountInBlock: number) => {
    // Merkle root over txids (internal byte order), an odd last node paired with itself.
    let level = txids.slice();
    while (level.length > 1) {
      const next: Buffer[] = [];
      for (let i = 0; i < level.length; i += 2)
        next.push(sha256d(Buffer.concat([level[i], i + 1 < level.length ? level[i + 1] : level[i]])));
      level = next;
    }
    const header = Buffer.alloc(80);
    header.writeInt32LE(0x00620004, 0);
    prevHash.copy(header, 4);
    level[0].copy(header, 36);
    header.writeUInt32LE(time, 68);
    header.writeUInt32LE(0x1a01a3a5, 72); // mainnet-like compact target (not checked by the indexer)
    header.writeUInt32LE(height, 76);
    const countBytes = new Writer();
    countBytes.varint(txCountInBlock);
    const block = Buffer.concat([
      header,
      countBytes.buf.subarray(0, countBytes.len),
      blockTxs.buf.subarray(0, blockTxs.len),
    ]);
    fs.writeSync(blocksFd, block, 0, block.length, fileOffset);
    const hash = sha256d(header);
    const at = height * INDEX_RECORD_BYTES;
    index.writeDoubleLE(fileOffset, at);
    index.writeUInt32LE(block.length, at + 8);
    index.writeUInt32LE(txCountInBlock, at + 12);
    hash.copy(index, at + 16);
    fileOffset += block.length;
    prevHash = hash;
  };

  while (txCount < targetTxs) {
    blockTxs.len = 0;
    txids.length = 0;
    produced.length = 0;
    time += 30 + Math.floor(random() * 60);
    // Coinbase: height (BIP34) in the scriptSig; at height 0 a distribution to 5,000 addresses
    // seeds the UTXO set (spendable at once), afterwards 10,000 DOGE + fees to one miner.
    const bodyTxsWanted = height === 0 ? 0 : Math.min(50 + Math.floor(random() * 151), targetTxs - txCount - 1);
    // The coinbase must be first but needs the fees: build the other transactions, then prepend it.
    let position = 1;
    let inBlock = 0;
    blockFees = 0;
    while (inBlock < bodyTxsWanted) {
      if (bodyTxsWanted - inBlock >= 2 && random() < 0.05 / 0.95) {
        if (!inscription(position)) break;
        position += 2;
        inBlock += 2;
      } else {
        if (!payment(position, null)) break;
        stats.payments++;
        position += 1;
        inBlock += 1;
      }
    }
    const fees = blockFees;
    // Prepend the coinbase (its txid goes first in the merkle tree).
    const bodyBytes = Buffer.from(blockTxs.buf.subarray(0, blockTxs.len));
    const bodyTxids = txids.slice();
    blockTxs.len = 0;
    txids.length = 0;
    const minerOwner = pickRecipient();
    const heightPush = Buffer.alloc(4);
    heightPush.writeUInt32LE(height);
    const coinbaseScriptSig = Buffer.concat([Buffer.from([4]), heightPush, Buffer.from("/scale-bench/")]);
    let coinbaseOutputs: OutputSpec[];
    if (height === 0) {
      coinbaseOutputs = Array.from({ length: 5000 }, (_, i) => ({
        value: 1e12,
        owner: i < HOT_SHARES.length ? i : HOT_SHARES.length + (i % (addressPoolAt(0) - HOT_SHARES.length)),
        script: null,
      }));
    } else {
      coinbaseOutputs = [{ value: Number(SUBSIDY) + fees, owner: minerOwner, script: null }];
    }
    const coinbaseTxid = emitTx([], coinbaseOutputs, true, coinbaseScriptSig);
    recordTouches(
      coinbaseOutputs.map((o) => o.owner),
      height,
      0,
    );
    blockTxs.bytes(bodyBytes);
    txids.push(...bodyTxids);
    const txCountInBlock = txids.length;
    writeBlock(txCountInBlock);
    txCount += txCountInBlock;
    if (height === 0) coinbaseOutputs.forEach((o, vout) => pool.add(coinbaseTxid, vout, o.value, o.owner));
    else pendingCoinbase.push({ height, txid: coinbaseTxid, value: coinbaseOutputs[0].value, owner: minerOwner });
    // Coinbases mature after 240 blocks on mainnet (consensus COINBASE_MATURITY after block 145,000).
    while (pendingCoinbase.length > 0 && height - pendingCoinbase[0].height >= 240) {
      const c = pendingCoinbase.shift()!;
      pool.add(c.txid, 0, c.value, c.owner);
    }
    for (const p of produced) pool.add(p.txid, p.vout, p.value, p.owner, p.kind);
    height++;
    if (index.length < (height + 1) * INDEX_RECORD_BYTES) throw new Error("generator bug: index buffer too small");
    if (height % 1000 === 0) options.onProgress?.(txCount, height);
  }
  fs.closeSync(blocksFd);
  fs.writeFileSync(path.join(dir, "index.bin"), index.subarray(0, height * INDEX_RECORD_BYTES));

  let busiest = 0;
  for (let owner = 1; owner < addressPool; owner++) if (touchCount[owner] > touchCount[busiest]) busiest = owner;
  if (busiest >= HOT_SHARES.length)
    throw new Error(`generator bug: busiest owner ${busiest} is not an exchange address`);
  fs.writeFileSync(path.join(dir, "touches.bin"), Buffer.from(hotTouches[busiest].buffer, 0, hotTouchLen[busiest] * 4));
  const meta: ScaleChainMeta = {
    version: SCALE_GENERATOR_VERSION,
    params: { txs: targetTxs, seed },
    network: "mainnet",
    blocks: height,
    txs: txCount,
    bytes: fileOffset,
    payments: stats.payments,
    commits: stats.commits,
    reveals: stats.reveals,
    drc20: { deploy: stats.deploy, mint: stats.mint, transfer: stats.transfer },
    otherInscriptions: stats.other,
    opReturns: stats.opReturns,
    addressPool,
    busiest: { owner: busiest, address: ownerAddress(seed, busiest), txs: touchCount[busiest] },
    hotTxs: HOT_SHARES.map((_, h) => touchCount[h]),
    touchesFile: "touches.bin",
    sampleReveals,
    generatedSeconds: (Date.now() - started) / 1000,
  };
  fs.writeFileSync(path.join(dir, "meta.json"), JSON.stringify(meta, null, 2));
  return meta;
}

/** Parses `--name value` flags; unknown flags and non-numeric values are errors. */
export function parseFlags(argv: string[], known: Record<string, string | boolean>): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = { ...known };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${arg}`);
    const name = arg.slice(2);
    if (!(name in known))
      throw new Error(
        `unknown flag ${arg} (known: ${Object.keys(known)
          .map((k) => "--" + k)
          .join(", ")})`,
      );
    if (typeof known[name] === "boolean") out[name] = true;
    else {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      out[name] = argv[++i];
    }
  }
  return out;
}

/** A flag's value as a positive safe integer (underscores allowed: 10_000_000). */
export function integerFlag(flags: Record<string, string | boolean>, name: string): number {
  const text = String(flags[name]).replace(/_/g, "");
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value))
    throw new Error(`--${name} must be a non-negative integer, got ${flags[name]}`);
  return value;
}

if (require.main === module) {
  try {
    const flags = parseFlags(process.argv.slice(2), { txs: "10000000", seed: "20", dir: "" });
    if (!flags.dir) throw new Error("--dir is required");
    const meta = generateScaleChain({
      txs: integerFlag(flags, "txs"),
      seed: integerFlag(flags, "seed"),
      dir: String(flags.dir),
      onProgress: (txs, blocks) => {
        if (blocks % 10_000 === 0) process.stderr.write(`  generated ${blocks} blocks, ${txs} txs\n`);
      },
    });
    process.stderr.write(
      `generated ${meta.blocks} blocks, ${meta.txs} txs, ${(meta.bytes / 1e6).toFixed(0)} MB in ${meta.generatedSeconds.toFixed(1)} s\n`,
    );
  } catch (error) {
    process.stderr.write(`scale-generator: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
