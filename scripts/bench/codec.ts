/**
 * npm run bench:codec: block parse throughput on real mainnet blocks, and the devnet's
 * sendrawtransaction rate and block assembly time for 1,000 transactions. Prints its figures and
 * the targets (>= 50 MB/s parse, >= 200 sendrawtransaction/s, 1,000-tx block mined in < 2 s).
 */
import fs from "node:fs";
import path from "node:path";
import { hexToBytes, parseBlock } from "../../src/doge";
import { startDevnet } from "../../test/helpers/devnet";
import { newKey, spendP2pkh } from "../../test/helpers/keys";

const TESTDATA = path.resolve(__dirname, "..", "..", "test", "fixtures", "dogecoin", "raw");
const DOGE = 100_000_000n;

function report(name: string, value: number, unit: string, target: string, pass: boolean): void {
  process.stdout.write(
    `${name.padEnd(34)} ${value.toFixed(1).padStart(10)} ${unit.padEnd(8)} target ${target.padEnd(10)} ${pass ? "ok" : "MISSED"}\n`,
  );
}

function benchParse(): boolean {
  const blocks = ["5000000", "5122721", "1000000", "371337"].map((h) =>
    hexToBytes(fs.readFileSync(path.join(TESTDATA, `block-${h}.hex`), "utf8").trim()),
  );
  const totalBytes = blocks.reduce((sum, b) => sum + b.length, 0);
  for (let i = 0; i < 3; i++) for (const b of blocks) parseBlock(b); // warm-up
  const rounds = 40;
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) {
    for (const b of blocks) {
      const parsed = parseBlock(b);
      if (!parsed.ok) throw parsed.error;
    }
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const mbPerSecond = (totalBytes * rounds) / 1e6 / seconds;
  const txCount = blocks.reduce((sum, b) => {
    const parsed = parseBlock(b);
    return sum + (parsed.ok ? parsed.value.txs.length : 0);
  }, 0);
  report("block parse (real mainnet blocks)", mbPerSecond, "MB/s", ">= 50", mbPerSecond >= 50);
  report("block parse, transactions", (txCount * rounds) / seconds / 1000, "ktx/s", "-", true);
  return mbPerSecond >= 50;
}

async function benchDevnet(): Promise<boolean> {
  const devnet = await startDevnet();
  try {
    const key = newKey();
    const count = 1000;
    process.stderr.write("funding 1,000 coins through the faucet and a fan-out transaction...\n");
    const funded = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [key.address, 2000, true]);
    const each = DOGE + DOGE / 10n;
    const fanOut = spendP2pkh(
      key,
      [{ txid: funded.txid, vout: 0, value: 2000n * DOGE }],
      [
        ...Array.from({ length: count }, () => ({ script: key.script, value: each })),
        { script: key.script, value: 2000n * DOGE - each * BigInt(count) - 5n * DOGE },
      ],
    );
    const fanOutTxid = await devnet.rpc<string>("sendrawtransaction", [fanOut.hex]);
    await devnet.rpc("generatetoaddress", [1, key.address]);
    const sink = newKey();
    const txs = Array.from(
      { length: count },
      (_, vout) =>
        spendP2pkh(key, [{ txid: fanOutTxid, vout, value: each }], [{ script: sink.script, value: DOGE }]).hex,
    );

    const start = process.hrtime.bigint();
    let next = 0;
    const worker = async () => {
      while (next < txs.length) {
        const hex = txs[next++];
        await devnet.rpc("sendrawtransaction", [hex]);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    const sendSeconds = Number(process.hrtime.bigint() - start) / 1e9;
    const rate = count / sendSeconds;
    report("sendrawtransaction (P2PKH)", rate, "tx/s", ">= 200", rate >= 200);

    const mineStart = process.hrtime.bigint();
    const [hash] = await devnet.rpc<string[]>("generatetoaddress", [1, key.address]);
    const mineSeconds = Number(process.hrtime.bigint() - mineStart) / 1e9;
    const block = await devnet.rpc<{ tx: string[] }>("getblock", [hash, 1]);
    if (block.tx.length !== count + 1)
      throw new Error(`expected ${count + 1} transactions in the block, got ${block.tx.length}`);
    report(`mine a ${count}-tx block`, mineSeconds * 1000, "ms", "< 2000", mineSeconds < 2);
    return rate >= 200 && mineSeconds < 2;
  } finally {
    await devnet.stop();
  }
}

async function main(): Promise<void> {
  const parseOk = benchParse();
  const devnetOk = await benchDevnet();
  process.exitCode = parseOk && devnetOk ? 0 : 1;
}

void main();
