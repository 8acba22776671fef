/**
 * POST /tx/pipeline: an ordered package of signed transactions (parents first) is checked as a
 * whole before anything is broadcast, the way testmempoolaccept would (Dogecoin Core 1.14 has no
 * such call): decoding, context-free and standardness checks, inputs unspent in the index or made
 * by an earlier package member, no double spend inside the package, value, relay fee with
 * Dogecoin's dust surcharge, and every input's scripts through the same interpreter the devnet
 * uses. The checks are the devnet mempool's own, from src/doge/ (policy, standardness, script-check);
 * the explorer never imports the devnet. Only when all pass are they broadcast in order; a failure
 * then (e.g. a conflict only the node's mempool knows) stops the rest and is reported.
 */
import { DecodedTransaction, parseTransactionHex } from "../../doge";
import { minRelayFee } from "../../doge/policy";
import { TxRejected, checkStandard, checkTransaction } from "../../doge/standardness";
import { PreparedTransaction, checkScriptsForMempool } from "../../doge/script-check";
import { IndexQueries } from "../../indexer/queries";
import { BroadcastNode, mapBroadcastError } from "./broadcast";

export interface PipelineItemResult {
  index: number;
  txid: string | null;
  status: "valid" | "invalid" | "broadcast" | "failed" | "skipped";
  error?: { code: string; message: string };
}

export const MAX_PACKAGE_SIZE = 25;

/** What the package check reads of the chain: an output's value and script while it is unspent in the index. */
export type UnspentOutputs = Pick<IndexQueries, "unspentOutput">;

export async function runPipeline(
  hexes: string[],
  queries: UnspentOutputs,
  node: BroadcastNode,
): Promise<{ accepted: boolean; broadcast: boolean; results: PipelineItemResult[] }> {
  const results: PipelineItemResult[] = hexes.map((_, index) => ({ index, txid: null, status: "valid" }));
  const decoded: DecodedTransaction[] = [];
  const fail = (index: number, code: string, message: string) => {
    results[index].status = "invalid";
    results[index].error = { code, message };
  };

  // Outputs made by earlier members, and outpoints already spent inside the package.
  const packageOutputs = new Map<string, { value: bigint; script: Uint8Array; position: number }>();
  const laterTxids = new Set<string>();
  const spentInPackage = new Set<string>();
  hexes.forEach((hex) => {
    const parsed = parseTransactionHex(hex);
    if (parsed.ok) laterTxids.add(parsed.value.txid);
  });

  for (let index = 0; index < hexes.length; index++) {
    const parsed = parseTransactionHex(hexes[index]);
    if (!parsed.ok) {
      fail(index, "TX_DECODE_FAILED", parsed.error.message);
      continue;
    }
    const tx = parsed.value;
    decoded.push(tx);
    results[index].txid = tx.txid;
    laterTxids.delete(tx.txid);
    try {
      checkTransaction(tx);
      checkStandard(tx);
    } catch (error) {
      fail(index, "TX_REJECTED", error instanceof TxRejected ? error.message : String(error));
      continue;
    }
    const spent: { script: Uint8Array; value: bigint }[] = [];
    let inputTotal = 0n;
    let problem: [string, string] | null = null;
    for (const input of tx.inputs) {
      const key = `${input.prevTxid}:${input.vout}`;
      if (spentInPackage.has(key)) {
        problem = ["PACKAGE_DOUBLE_SPEND", `input ${key} is spent twice in the package`];
        break;
      }
      const inPackage = packageOutputs.get(key);
      if (inPackage) {
        spent.push({ script: inPackage.script, value: inPackage.value });
        inputTotal += inPackage.value;
        continue;
      }
      if (laterTxids.has(input.prevTxid)) {
        problem = [
          "PACKAGE_OUT_OF_ORDER",
          `input ${key} spends a transaction that comes later in the package (parents must come first)`,
        ];
        break;
      }
      const coin = queries.unspentOutput(input.prevTxid, input.vout);
      if (!coin) {
        problem = ["MISSING_INPUTS", `input ${key} is not an unspent output in the index or the package`];
        break;
      }
      spent.push({ script: coin.script, value: coin.value });
      inputTotal += coin.value;
    }
    if (problem) {
      fail(index, problem[0], problem[1]);
      continue;
    }
    const outputTotal = tx.outputs.reduce((sum, output) => sum + output.value, 0n);
    if (inputTotal < outputTotal) {
      fail(index, "TX_REJECTED", "16: bad-txns-in-belowout");
      continue;
    }
    if (inputTotal - outputTotal < minRelayFee(tx.size, tx.outputs)) {
      fail(index, "TX_REJECTED", "66: min relay fee not met");
      continue;
    }
    const verdict = checkScriptsForMempool(new PreparedTransaction(Buffer.from(hexes[index], "hex")), spent, false);
    if (!verdict.ok) {
      fail(index, "TX_REJECTED", `${verdict.rejectCode}: ${verdict.reason}`);
      continue;
    }
    for (const input of tx.inputs) spentInPackage.add(`${input.prevTxid}:${input.vout}`);
    tx.outputs.forEach((output, vout) =>
      packageOutputs.set(`${tx.txid}:${vout}`, { value: output.value, script: output.script, position: index }),
    );
  }

  if (results.some((r) => r.status === "invalid")) {
    for (const r of results) if (r.status === "valid") r.status = "skipped";
    return { accepted: false, broadcast: false, results };
  }
  let broadcastAll = true;
  for (let index = 0; index < hexes.length; index++) {
    if (!broadcastAll) {
      results[index].status = "skipped";
      continue;
    }
    try {
      await node.sendRawTransaction(hexes[index]);
      results[index].status = "broadcast";
    } catch (error) {
      const mapped = mapBroadcastError(error);
      results[index].status = "failed";
      results[index].error = { code: mapped.code, message: mapped.message };
      broadcastAll = false;
    }
  }
  return { accepted: true, broadcast: broadcastAll, results };
}
