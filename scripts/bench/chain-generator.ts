/**
 * Generates a devnet-format chain for benchmarks: regtest genesis, version 0x00620004 blocks with
 * real scrypt proof of work at the regtest target, BIP34 coinbases, and transactions shaped like
 * mainnet traffic (mostly one- or two-input P2PKH payments with change, some fan-outs, some
 * OP_RETURN outputs), every input signed (tiny-secp256k1) and spending a real earlier output.
 * Deterministic for a given seed.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import * as tinysecp from "tiny-secp256k1";
import {
  Block,
  DecodedTransaction,
  NETWORKS,
  OP,
  Transaction,
  addressToOutputScript,
  bitsToTarget,
  bytesToHexReversed,
  compileScript,
  concatBytes,
  encodeScriptNum,
  legacySighash,
  merkleRoot,
  nullDataScript,
  parseBlock,
  parseTransaction,
  publicKeyToAddress,
  scryptPowHash,
  serializeBlock,
  serializeTransaction,
  SIGHASH_ALL,
} from "../../src/doge";
import { REGTEST, blockSubsidy, genesisBlock } from "../../src/devnet/params";

interface Wallet {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  script: Uint8Array;
}

interface Coin {
  txid: string;
  vout: number;
  value: bigint;
  owner: number;
  height: number;
}

export interface GeneratedChain {
  hashes: string[];
  raws: Uint8Array[];
  txCount: number;
}

/** A small deterministic PRNG (xorshift32) so the chain is the same on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
}

function derDigestSign(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const compact = tinysecp.sign(digest, privateKey);
  return concatBytes(toDer(compact.subarray(0, 32), compact.subarray(32)), Uint8Array.of(SIGHASH_ALL));
}

function toDer(r: Uint8Array, s: Uint8Array): Uint8Array {
  const integer = (x: Uint8Array) => {
    let i = 0;
    while (i < x.length - 1 && x[i] === 0 && x[i + 1] < 0x80) i++;
    const body = x.subarray(i);
    return body[0] >= 0x80
      ? concatBytes(Uint8Array.of(0x02, body.length + 1, 0), body)
      : concatBytes(Uint8Array.of(0x02, body.length), body);
  };
  const ri = integer(r);
  const si = integer(s);
  return concatBytes(Uint8Array.of(0x30, ri.length + si.length), ri, si);
}

export function generateChain(options: {
  blocks: number;
  transactions: number;
  seed?: number;
  onProgress?: (height: number, txs: number) => void;
}): GeneratedChain {
  const random = prng(options.seed ?? 42);
  const wallets: Wallet[] = Array.from({ length: 200 }, (_, i) => {
    const privateKey = createHash("sha256").update(`bench-wallet-${i}`).digest();
    const publicKey = tinysecp.pointFromScalar(privateKey, true)!;
    const address = publicKeyToAddress(publicKey, NETWORKS.regtest);
    return { privateKey, publicKey, script: addressToOutputScript(address, NETWORKS.regtest) };
  });
  const genesis = genesisBlock();
  const hashes = [genesis.hash];
  const raws = [serializeBlock(genesis)];
  const mature: Coin[] = [];
  const pendingCoinbases: Coin[] = [];
  let txCount = 0;
  let parent: Block = genesis;
  const coinbaseBlocks = REGTEST.coinbaseMaturity + 40;
  const paymentBlocks = Math.max(1, options.blocks - coinbaseBlocks);
  const perBlock = Math.ceil(options.transactions / paymentBlocks);

  for (let height = 1; height <= options.blocks; height++) {
    // Coinbases mature after 60 blocks.
    while (pendingCoinbases.length > 0 && height - pendingCoinbases[0].height >= REGTEST.coinbaseMaturity)
      mature.push(pendingCoinbases.shift()!);
    const txs: DecodedTransaction[] = [];
    let fees = 0n;
    const produced: Coin[] = [];
    const target = height > coinbaseBlocks ? perBlock : 0;
    for (let i = 0; i < target && mature.length > 0 && txCount < options.transactions; i++) {
      const pick = () => mature.splice(Math.floor(random() * mature.length), 1)[0];
      const inputs = [pick()];
      if (random() < 0.25 && mature.length > 0) inputs.push(pick());
      const total = inputs.reduce((sum, coin) => sum + coin.value, 0n);
      const fee = 1_000_000n;
      const outputs: { value: bigint; script: Uint8Array; owner: number | null }[] = [];
      const fanOut = mature.length < 2000 && total > 1000n * 100_000_000n;
      const payments = fanOut ? 20 : 1;
      let remaining = total - fee;
      for (let p = 0; p < payments; p++) {
        const owner = Math.floor(random() * wallets.length);
        const value = fanOut
          ? remaining / BigInt(payments + 1)
          : (remaining * BigInt(Math.floor(random() * 60) + 20)) / 100n;
        outputs.push({ value, script: wallets[owner].script, owner });
        remaining -= value;
      }
      if (random() < 0.05)
        outputs.push({
          value: 0n,
          script: nullDataScript(new TextEncoder().encode(`bench:${height}:${i}`)),
          owner: null,
        });
      const changeOwner = inputs[0].owner;
      outputs.push({ value: remaining, script: wallets[changeOwner].script, owner: changeOwner });
      const tx: Transaction = {
        version: 1,
        inputs: inputs.map((coin) => ({
          prevTxid: coin.txid,
          vout: coin.vout,
          scriptSig: new Uint8Array(0),
          sequence: 0xffffffff,
        })),
        outputs: outputs.map(({ value, script }) => ({ value, script })),
        locktime: 0,
      };
      tx.inputs.forEach((input, vin) => {
        const wallet = wallets[inputs[vin].owner];
        const digest = legacySighash(tx, vin, wallet.script, SIGHASH_ALL);
        input.scriptSig = compileScript([derDigestSign(digest, wallet.privateKey), wallet.publicKey]);
      });
      const parsed = parseTransaction(serializeTransaction(tx));
      if (!parsed.ok) throw parsed.error;
      txs.push(parsed.value);
      fees += fee;
      txCount += 1;
      outputs.forEach((output, vout) => {
        if (output.owner !== null)
          produced.push({ txid: parsed.value.txid, vout, value: output.value, owner: output.owner, height });
      });
    }
    // Outputs of this block become spendable from the next one.
    const minerOwner = Math.floor(random() * wallets.length);
    const coinbaseTx: Transaction = {
      version: 1,
      inputs: [
        {
          prevTxid: "0".repeat(64),
          vout: 0xffffffff,
          scriptSig: compileScript([encodeScriptNum(height), OP.OP_0]),
          sequence: 0xffffffff,
        },
      ],
      outputs: [{ value: blockSubsidy(height) + fees, script: wallets[minerOwner].script }],
      locktime: 0,
    };
    const coinbase = parseTransaction(serializeTransaction(coinbaseTx));
    if (!coinbase.ok) throw coinbase.error;
    txCount += 1;
    const all = [coinbase.value, ...txs];
    const header = {
      version: REGTEST.blockVersion,
      prevHash: parent.hash,
      merkleRoot: merkleRoot(all.map((tx) => tx.txid)),
      time: parent.header.time + 60,
      bits: REGTEST.powLimitBits,
      nonce: 0,
    };
    const targetValue = bitsToTarget(header.bits);
    for (;;) {
      const headerBytes = serializeBlock({ header, txs: [] }).subarray(0, 80);
      if (BigInt("0x" + bytesToHexReversed(scryptPowHash(headerBytes))) <= targetValue) break;
      header.nonce += 1;
    }
    const raw = serializeBlock({ header, txs: all });
    const block = parseBlock(raw);
    if (!block.ok) throw block.error;
    hashes.push(block.value.hash);
    raws.push(raw);
    parent = block.value;
    pendingCoinbases.push({
      txid: coinbase.value.txid,
      vout: 0,
      value: coinbaseTx.outputs[0].value,
      owner: minerOwner,
      height,
    });
    mature.push(...produced);
    if (height % 200 === 0) options.onProgress?.(height, txCount);
  }
  return { hashes, raws, txCount };
}

/** The generated chain is cached under data/bench/ (generation signs every input and takes a while). */
export function loadOrGenerateChain(blocks: number, transactions: number): GeneratedChain {
  const file = path.resolve(__dirname, "..", "..", "data", "bench", `chain-${blocks}-${transactions}.json`);
  if (fs.existsSync(file)) {
    const cached = JSON.parse(fs.readFileSync(file, "utf8")) as { hashes: string[]; raws: string[]; txCount: number };
    return {
      hashes: cached.hashes,
      raws: cached.raws.map((hex) => Uint8Array.from(Buffer.from(hex, "hex"))),
      txCount: cached.txCount,
    };
  }
  process.stderr.write(`generating ${blocks} blocks with ${transactions} transactions (cached in ${file})...\n`);
  const started = Date.now();
  const chain = generateChain({
    blocks,
    transactions,
    onProgress: (h, n) => process.stderr.write(`  height ${h}, ${n} txs\r`),
  });
  process.stderr.write(`\ngenerated in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    JSON.stringify({
      hashes: chain.hashes,
      raws: chain.raws.map((raw) => Buffer.from(raw).toString("hex")),
      txCount: chain.txCount,
    }),
  );
  return chain;
}
