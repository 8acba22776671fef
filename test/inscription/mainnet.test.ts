/**
 * The inscription decoders on the real Doginals-era blocks 5,000,000 and 5,122,721, cross-checked
 * against ../shared/testdata/dogecoin/inscriptions-derived.json (a research catalogue, not ground
 * truth: it has no body for the two-piece reveal and records DRC-20 p/op from a lenient parse).
 */
import { expect } from "chai";
import { NETWORKS, bytesToHex, outputScriptToAddress } from "../../src/doge";
import type { DecodedTransaction } from "../../src/doge";
import {
  DoginalsAssembly,
  MemoryDrc20Ledger,
  findV1Inscription,
  parseDrc20,
  readDoginalsInput,
} from "../../src/inscription";
import type { DoginalsAssemblyResult } from "../../src/inscription";
import { inscriptionBlock, inscriptionCatalogue } from "./fixtures";

interface FoundReveal {
  height: number;
  tx: DecodedTransaction;
  result: DoginalsAssemblyResult;
  redeemScriptHex: string | null;
}

describe("inscription on mainnet blocks 5,000,000 and 5,122,721", () => {
  const reveals: FoundReveal[] = [];
  const otherInputHeaders: string[] = [];
  const v1Findings: string[] = [];

  before(() => {
    for (const height of [5000000, 5122721] as const) {
      for (const tx of inscriptionBlock(height).txs) {
        const found = findV1Inscription(tx);
        if (found.inscription || found.issues.length > 0) v1Findings.push(tx.txid);
        tx.inputs.forEach((input, index) => {
          const read = readDoginalsInput(input.scriptSig);
          if (read.kind === "invalid" || (read.kind === "start" && index > 0))
            otherInputHeaders.push(`${tx.txid}:${index}`);
          if (read.kind === "start" && index === 0) {
            reveals.push({
              height,
              tx,
              result: DoginalsAssembly.start(read).result(),
              redeemScriptHex: read.redeemScript && bytesToHex(read.redeemScript),
            });
          }
        });
      }
    }
  });

  describe("readDoginalsInput", () => {
    it("finds exactly the 486 catalogued reveals (477 + 9), each complete in its transaction", () => {
      const catalogue = inscriptionCatalogue();
      expect(reveals.length).to.equal(486);
      expect(reveals.filter((r) => r.height === 5000000).length).to.equal(477);
      expect(reveals.map((r) => r.tx.txid)).to.deep.equal(catalogue.map((c) => c.txid));
      expect(reveals.every((r) => r.result.complete && r.result.error === null)).to.equal(true);
    });

    it("reads the catalogue's content type, body and redeem script for every reveal", () => {
      const byTxid = new Map(inscriptionCatalogue().map((c) => [c.txid, c]));
      let bodiesCompared = 0;
      const mismatches: string[] = [];
      for (const reveal of reveals) {
        const entry = byTxid.get(reveal.tx.txid)!;
        if (reveal.result.contentType !== entry.content_type) mismatches.push(`${entry.txid} content type`);
        if (reveal.result.body.length !== entry.body_len) mismatches.push(`${entry.txid} body length`);
        if (reveal.redeemScriptHex !== entry.redeem_script_hex) mismatches.push(`${entry.txid} redeem script`);
        const catalogueBody =
          entry.body_hex ?? (entry.body_utf8 !== null ? bytesToHex(new TextEncoder().encode(entry.body_utf8)) : null);
        if (catalogueBody !== null) {
          if (bytesToHex(reveal.result.body) !== catalogueBody) mismatches.push(`${entry.txid} body`);
          bodiesCompared++;
        }
      }
      expect(mismatches).to.deep.equal([]);
      // Only the two-piece reveal d32b44a3... has no body in the catalogue.
      expect(bodiesCompared).to.equal(485);
    });

    it("reads the two-piece reveal d32b44a3... as 240 + 174 bytes of text", () => {
      const reveal = reveals.find((r) => r.tx.txid.startsWith("d32b44a3"))!;
      expect(reveal.result.body.length).to.equal(414);
      const text = new TextDecoder().decode(reveal.result.body);
      expect(text.startsWith("5 million blocks. much wows.")).to.equal(true);
      expect(text).to.include('{"p":"drc-20","op":"mint","tick":"5mil","amt":"50"}');
    });

    it("sees no Doginals header outside input 0 of the reveals and no malformed one anywhere", () => {
      expect(otherInputHeaders).to.deep.equal([]);
    });
  });

  describe("findV1Inscription", () => {
    it("finds no v1 envelope (and nothing odd) in any of the 2,847 transactions", () => {
      expect(inscriptionBlock(5000000).txs.length + inscriptionBlock(5122721).txs.length).to.equal(2847);
      expect(v1Findings).to.deep.equal([]);
    });
  });

  describe("parseDrc20", () => {
    it("classifies 1 deploy, 419 mints and 48 transfers, and refuses the 18 other bodies with a reason", () => {
      const counts: Record<string, number> = {};
      const byTxid = new Map(inscriptionCatalogue().map((c) => [c.txid, c]));
      const disagreements: string[] = [];
      for (const reveal of reveals) {
        const parsed = parseDrc20(reveal.result.body, reveal.result.contentType);
        const key = parsed.ok ? parsed.op.kind : parsed.reason;
        counts[key] = (counts[key] ?? 0) + 1;
        const catalogued = byTxid.get(reveal.tx.txid)!.json_p_op;
        if ((catalogued ? catalogued.join("/") : null) !== (parsed.ok ? `drc-20/${parsed.op.kind}` : null))
          disagreements.push(reveal.tx.txid);
      }
      expect(disagreements).to.deep.equal([]);
      // 15 dogemap/.doge names are shorter than 40 bytes; two mints lost their braces; one is prose.
      expect(counts).to.deep.equal({ deploy: 1, mint: 419, transfer: 48, BODY_TOO_SHORT: 15, INVALID_JSON: 3 });
    });

    it("reads the deploy of 5ive (max 5000000, lim 50)", () => {
      const reveal = reveals.find((r) => r.tx.txid.startsWith("b7655035"))!;
      const parsed = parseDrc20(reveal.result.body, reveal.result.contentType);
      expect(parsed).to.deep.equal({
        ok: true,
        op: { kind: "deploy", tick: "5ive", tickKey: "5ive", maxSupply: 5000000n, mintLimit: 50n },
      });
    });
  });

  describe("applyDrc20", () => {
    it("credits the receiver of 4b949f39... with the dogi transfer inscribed in 410f77cf... of the same block", () => {
      const txs = inscriptionBlock(5000000).txs;
      const reveal = txs.find((t) => t.txid.startsWith("410f77cf"))!;
      const spend = txs.find((t) => t.inputs[0].prevTxid === reveal.txid && t.inputs[0].vout === 0)!;
      expect(spend.txid.startsWith("4b949f39")).to.equal(true);
      const owner = outputScriptToAddress(reveal.outputs[0].script, NETWORKS.mainnet)!;
      // The inscription's first koinu is the first koinu of input 0, which lands in output 0.
      const receiver = outputScriptToAddress(spend.outputs[0].script, NETWORKS.mainnet)!;
      const read = readDoginalsInput(reveal.inputs[0].scriptSig);
      if (read.kind !== "start") throw new Error("not a reveal");
      const parsed = parseDrc20(DoginalsAssembly.start(read).body, read.contentType);
      if (!parsed.ok) throw new Error(parsed.reason);

      // The dogi history before this block is not in the test data: give the owner the balance.
      const ledger = new MemoryDrc20Ledger();
      ledger.process(
        {
          kind: "inscribe",
          operation: { kind: "deploy", tick: "dogi", tickKey: "dogi", maxSupply: 10n ** 12n, mintLimit: 10n ** 12n },
          ownerAddress: "earlier",
        },
        { inscriptionId: "deploy", height: 1 },
      );
      ledger.process(
        {
          kind: "inscribe",
          operation: { kind: "mint", tick: "dogi", tickKey: "dogi", amount: 214060n },
          ownerAddress: owner,
        },
        { inscriptionId: "mint", height: 2 },
      );

      const inscriptionId = `${reveal.txid}i0`;
      expect(
        ledger.process(
          { kind: "inscribe", operation: parsed.op, ownerAddress: owner },
          { inscriptionId, height: 5000000 },
        ).valid,
      ).to.equal(true);
      expect(ledger.process({ kind: "send", toAddress: receiver }, { inscriptionId, height: 5000000 }).valid).to.equal(
        true,
      );
      expect(ledger.getBalance(owner, "dogi")).to.deep.equal({ available: 0n, transferable: 0n });
      expect(ledger.getBalance(receiver, "dogi")).to.deep.equal({ available: 214060n, transferable: 0n });
      expect(receiver).to.not.equal(owner);
    });
  });
});
