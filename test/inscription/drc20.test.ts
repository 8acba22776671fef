import { expect } from "chai";
import fc from "fast-check";
import { hexToBytes } from "../../src/doge";
import { DRC20_MAX_SUPPLY, MemoryDrc20Ledger, applyDrc20, encodeDrc20, parseDrc20 } from "../../src/inscription";
import type { Drc20Action, Drc20Operation } from "../../src/inscription";
import { loadVectors } from "./fixtures";

interface Drc20Input {
  contentType: string;
  body?: string;
  bodyHex?: string;
}

const vectors = loadVectors<Drc20Input, Record<string, string>>("drc20");
const bodyOf = (input: Drc20Input) =>
  input.bodyHex !== undefined ? hexToBytes(input.bodyHex) : new TextEncoder().encode(input.body!);

function operation(json: Record<string, string>, contentType = "text/plain;charset=utf-8"): Drc20Operation {
  const parsed = parseDrc20(new TextEncoder().encode(JSON.stringify({ p: "drc-20", ...json })), contentType);
  if (!parsed.ok) throw new Error(`test body refused: ${parsed.reason}`);
  return parsed.op;
}

const inscribe = (json: Record<string, string>, ownerAddress: string | null): Drc20Action => ({
  kind: "inscribe",
  operation: operation(json),
  ownerAddress,
});
const send = (toAddress: string | null): Drc20Action => ({ kind: "send", toAddress });

/** A ledger with `dogi` deployed (max 1000, lim 100) and `alice` holding 300 available. */
function seeded(): MemoryDrc20Ledger {
  const ledger = new MemoryDrc20Ledger();
  ledger.process(inscribe({ op: "deploy", tick: "dogi", max: "1000", lim: "100" }, "deployer"), {
    inscriptionId: "deploy-i0",
    height: 1,
  });
  for (let i = 0; i < 3; i++)
    ledger.process(inscribe({ op: "mint", tick: "dogi", amt: "100" }, "alice"), {
      inscriptionId: `mint${i}i0`,
      height: 2,
    });
  return ledger;
}

describe("inscription/drc20", () => {
  describe("parseDrc20 on test/vectors/drc20.json", () => {
    for (const vector of vectors.valid) {
      it(`parses ${vector.description}`, () => {
        const parsed = parseDrc20(bodyOf(vector.input), vector.input.contentType);
        if (!parsed.ok) throw new Error(`refused with ${parsed.reason}`);
        const shown = Object.fromEntries(
          Object.entries(parsed.op).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]),
        );
        expect(shown).to.deep.equal(vector.expected);
      });
    }
    for (const vector of vectors.invalid) {
      it(`refuses ${vector.description} with ${vector.error}`, () => {
        const parsed = parseDrc20(bodyOf(vector.input), vector.input.contentType);
        expect(parsed).to.include({ ok: false, reason: vector.error });
      });
    }
  });

  describe("applyDrc20", () => {
    describe("deploy", () => {
      it("creates the tick for the first deploy and ignores a later one in another case with TICK_ALREADY_DEPLOYED", () => {
        const ledger = new MemoryDrc20Ledger();
        const first = ledger.process(inscribe({ op: "deploy", tick: "DoGi", max: "21000000" }, "alice"), {
          inscriptionId: "a",
          height: 10,
        });
        expect(first).to.deep.equal({
          valid: true,
          effects: [
            {
              type: "createTick",
              tickKey: "dogi",
              tick: "DoGi",
              maxSupply: 21000000n,
              mintLimit: 21000000n,
              deployerAddress: "alice",
              inscriptionId: "a",
              height: 10,
            },
          ],
        });
        expect(
          ledger.process(inscribe({ op: "deploy", tick: "dogi", max: "5" }, "bob"), { inscriptionId: "b", height: 11 }),
        ).to.deep.equal({ valid: false, reason: "TICK_ALREADY_DEPLOYED", effects: [] });
        expect(ledger.getTick("dogi")).to.deep.include({ tick: "DoGi", maxSupply: 21000000n });
      });

      it("ignores a deploy inscribed to fees with INSCRIBED_TO_FEES, leaving the tick free", () => {
        const ledger = new MemoryDrc20Ledger();
        expect(
          ledger.process(inscribe({ op: "deploy", tick: "dogi", max: "5" }, null), { inscriptionId: "a", height: 1 })
            .reason,
        ).to.equal("INSCRIBED_TO_FEES");
        expect(
          ledger.process(inscribe({ op: "deploy", tick: "dogi", max: "5" }, "bob"), { inscriptionId: "b", height: 1 })
            .valid,
        ).to.equal(true);
      });
    });

    describe("mint", () => {
      it("credits the minter's available balance", () => {
        const ledger = seeded();
        expect(ledger.getBalance("alice", "dogi")).to.deep.equal({ available: 300n, transferable: 0n });
        expect(ledger.getTick("dogi")!.minted).to.equal(300n);
      });

      it("ignores a mint before any deploy with TICK_NOT_DEPLOYED", () => {
        expect(
          applyDrc20(
            inscribe({ op: "mint", tick: "none", amt: "1" }, "alice"),
            { inscriptionId: "m", height: 1 },
            new MemoryDrc20Ledger(),
          ).reason,
        ).to.equal("TICK_NOT_DEPLOYED");
      });

      it("ignores a mint above lim with MINT_EXCEEDS_LIMIT", () => {
        const outcome = seeded().process(inscribe({ op: "mint", tick: "DOGI", amt: "101" }, "bob"), {
          inscriptionId: "m",
          height: 3,
        });
        expect(outcome).to.deep.equal({ valid: false, reason: "MINT_EXCEEDS_LIMIT", effects: [] });
      });

      it("gives a mint that overshoots max the remainder, then refuses further mints with TICK_FULLY_MINTED", () => {
        const ledger = new MemoryDrc20Ledger();
        ledger.process(inscribe({ op: "deploy", tick: "tiny", max: "150", lim: "100" }, "d"), {
          inscriptionId: "d",
          height: 1,
        });
        ledger.process(inscribe({ op: "mint", tick: "tiny", amt: "100" }, "alice"), { inscriptionId: "m1", height: 2 });
        const capped = ledger.process(inscribe({ op: "mint", tick: "tiny", amt: "100" }, "bob"), {
          inscriptionId: "m2",
          height: 2,
        });
        expect(capped).to.deep.equal({
          valid: true,
          note: "MINT_CAPPED_TO_REMAINDER",
          effects: [
            { type: "addMinted", tickKey: "tiny", amount: 50n },
            { type: "creditAvailable", address: "bob", tickKey: "tiny", amount: 50n },
          ],
        });
        expect(
          ledger.process(inscribe({ op: "mint", tick: "tiny", amt: "1" }, "carol"), { inscriptionId: "m3", height: 3 })
            .reason,
        ).to.equal("TICK_FULLY_MINTED");
        expect(ledger.getTick("tiny")!.minted).to.equal(150n);
      });

      it("lets lim default to max, so one mint can take the whole supply", () => {
        const ledger = new MemoryDrc20Ledger();
        ledger.process(inscribe({ op: "deploy", tick: "whal", max: "18446744073709551615" }, "d"), {
          inscriptionId: "d",
          height: 1,
        });
        expect(
          ledger.process(inscribe({ op: "mint", tick: "whal", amt: "18446744073709551615" }, "w"), {
            inscriptionId: "m",
            height: 1,
          }).valid,
        ).to.equal(true);
        expect(ledger.getBalance("w", "whal").available).to.equal(DRC20_MAX_SUPPLY);
      });

      it("ignores a mint inscribed to fees with INSCRIBED_TO_FEES", () => {
        expect(
          seeded().process(inscribe({ op: "mint", tick: "dogi", amt: "1" }, null), { inscriptionId: "m", height: 3 })
            .reason,
        ).to.equal("INSCRIBED_TO_FEES");
      });
    });

    describe("transfer", () => {
      it("moves amt from available to transferable when the transfer is inscribed", () => {
        const ledger = seeded();
        const outcome = ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "120" }, "alice"), {
          inscriptionId: "t1i0",
          height: 4,
        });
        expect(outcome.valid).to.equal(true);
        expect(ledger.getBalance("alice", "dogi")).to.deep.equal({ available: 180n, transferable: 120n });
        expect(ledger.getTransfer("t1i0")).to.deep.equal({
          tickKey: "dogi",
          amount: 120n,
          ownerAddress: "alice",
          sent: false,
        });
      });

      it("ignores a transfer larger than the available balance with INSUFFICIENT_AVAILABLE_BALANCE", () => {
        const ledger = seeded();
        ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "200" }, "alice"), {
          inscriptionId: "t1i0",
          height: 4,
        });
        // 100 available and 200 transferable: the transferable part does not count.
        const outcome = ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "101" }, "alice"), {
          inscriptionId: "t2i0",
          height: 4,
        });
        expect(outcome).to.deep.equal({ valid: false, reason: "INSUFFICIENT_AVAILABLE_BALANCE", effects: [] });
        expect(ledger.getTransfer("t2i0")).to.equal(null);
      });

      it("ignores a transfer above max with TRANSFER_EXCEEDS_MAX_SUPPLY and one to fees with INSCRIBED_TO_FEES", () => {
        const ledger = seeded();
        expect(
          ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "1001" }, "alice"), {
            inscriptionId: "t",
            height: 4,
          }).reason,
        ).to.equal("TRANSFER_EXCEEDS_MAX_SUPPLY");
        expect(
          ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "1" }, null), { inscriptionId: "u", height: 4 })
            .reason,
        ).to.equal("INSCRIBED_TO_FEES");
        expect(
          ledger.process(inscribe({ op: "transfer", tick: "nope", amt: "1" }, "alice"), {
            inscriptionId: "v",
            height: 4,
          }).reason,
        ).to.equal("TICK_NOT_DEPLOYED");
      });

      it("credits the receiver's available balance on the first send and does nothing on later ones", () => {
        const ledger = seeded();
        ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "120" }, "alice"), {
          inscriptionId: "t1i0",
          height: 4,
        });
        const first = ledger.process(send("bob"), { inscriptionId: "t1i0", height: 5 });
        expect(first).to.deep.equal({
          valid: true,
          effects: [
            { type: "debitTransferable", address: "alice", tickKey: "dogi", amount: 120n },
            { type: "creditAvailable", address: "bob", tickKey: "dogi", amount: 120n },
            { type: "markTransferSent", inscriptionId: "t1i0", receiverAddress: "bob", returnedToSender: false },
          ],
        });
        expect(ledger.getBalance("alice", "dogi")).to.deep.equal({ available: 180n, transferable: 0n });
        expect(ledger.getBalance("bob", "dogi")).to.deep.equal({ available: 120n, transferable: 0n });
        expect(ledger.process(send("carol"), { inscriptionId: "t1i0", height: 6 })).to.deep.equal({
          valid: false,
          reason: "TRANSFER_ALREADY_SENT",
          effects: [],
        });
        expect(ledger.getBalance("carol", "dogi").available).to.equal(0n);
      });

      it("returns a transfer inscription spent to fees to its sender's available balance", () => {
        const ledger = seeded();
        ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "50" }, "alice"), {
          inscriptionId: "t1i0",
          height: 4,
        });
        const outcome = ledger.process(send(null), { inscriptionId: "t1i0", height: 5 });
        expect(outcome).to.deep.include({ valid: true, note: "RETURNED_TO_SENDER" });
        expect(ledger.getBalance("alice", "dogi")).to.deep.equal({ available: 300n, transferable: 0n });
      });

      it("ignores sends of inscriptions that hold no valid transfer with NOT_A_TRANSFER_INSCRIPTION", () => {
        const ledger = seeded();
        ledger.process(inscribe({ op: "transfer", tick: "dogi", amt: "999" }, "alice"), {
          inscriptionId: "short",
          height: 4,
        });
        expect(ledger.process(send("bob"), { inscriptionId: "short", height: 5 }).reason).to.equal(
          "NOT_A_TRANSFER_INSCRIPTION",
        );
        expect(ledger.process(send("bob"), { inscriptionId: "mint0i0", height: 5 }).reason).to.equal(
          "NOT_A_TRANSFER_INSCRIPTION",
        );
      });
    });
  });

  describe("encodeDrc20", () => {
    it("writes compact bodies that parse back to the same operation", () => {
      const ops = [
        operation({ op: "deploy", tick: "DoGi", max: "1000", lim: "10" }),
        operation({ op: "mint", tick: "\u{1F436}", amt: "1" }),
        operation({ op: "transfer", tick: "abcd", amt: "18446744073709551615" }),
      ];
      for (const op of ops)
        expect(parseDrc20(encodeDrc20(op), "text/plain;charset=utf8")).to.deep.equal({ ok: true, op });
      expect(new TextDecoder().decode(encodeDrc20(ops[1]))).to.equal(
        '{"p":"drc-20","op":"mint","tick":"\u{1F436}","amt":"1"}',
      );
    });
  });

  describe("properties", () => {
    it("never throws on arbitrary bytes or arbitrary JSON", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), fc.string(), (bytes, contentType) => {
          parseDrc20(bytes, contentType);
        }),
        { numRuns: 500 },
      );
      const drcLike = fc.record(
        {
          p: fc.oneof(fc.constant("drc-20"), fc.json()),
          op: fc.oneof(fc.constantFrom("deploy", "mint", "transfer"), fc.json()),
          tick: fc.oneof(fc.string({ maxLength: 6 }), fc.json()),
          amt: fc.oneof(fc.string({ maxLength: 25 }), fc.json()),
          max: fc.oneof(fc.string({ maxLength: 25 }), fc.json()),
          lim: fc.oneof(fc.string({ maxLength: 25 }), fc.json()),
        },
        { requiredKeys: [] },
      );
      fc.assert(
        fc.property(drcLike, (value) => {
          parseDrc20(new TextEncoder().encode(JSON.stringify(value).padEnd(40, " ")), "text/plain");
        }),
        { numRuns: 500 },
      );
    });

    it("conserves the supply: balances add up to minted, minted stays within max, nothing goes negative", () => {
      const addresses = ["a", "b", "c"];
      const eventArb = fc.oneof(
        fc.record({
          kind: fc.constant("mint" as const),
          to: fc.constantFrom(...addresses, null),
          amount: fc.bigInt(1n, 120n),
        }),
        fc.record({
          kind: fc.constant("transfer" as const),
          to: fc.constantFrom(...addresses, null),
          amount: fc.bigInt(1n, 400n),
        }),
        fc.record({ kind: fc.constant("send" as const), pick: fc.nat(), to: fc.constantFrom(...addresses, null) }),
      );
      fc.assert(
        fc.property(fc.array(eventArb, { maxLength: 60 }), (events) => {
          const ledger = new MemoryDrc20Ledger();
          ledger.process(inscribe({ op: "deploy", tick: "cons", max: "500", lim: "100" }, "d"), {
            inscriptionId: "d",
            height: 0,
          });
          const transfers: string[] = [];
          events.forEach((event, n) => {
            const id = `e${n}i0`;
            if (event.kind === "mint")
              ledger.process(inscribe({ op: "mint", tick: "cons", amt: String(event.amount) }, event.to), {
                inscriptionId: id,
                height: n,
              });
            else if (event.kind === "transfer") {
              transfers.push(id);
              ledger.process(inscribe({ op: "transfer", tick: "CONS", amt: String(event.amount) }, event.to), {
                inscriptionId: id,
                height: n,
              });
            } else if (transfers.length > 0)
              ledger.process(send(event.to), { inscriptionId: transfers[event.pick % transfers.length], height: n });
          });
          const minted = ledger.getTick("cons")!.minted;
          let total = 0n;
          for (const address of addresses) {
            const balance = ledger.getBalance(address, "cons");
            total += balance.available + balance.transferable;
            const pending = [...ledger.transfers.values()]
              .filter((t) => t.ownerAddress === address && !t.sent)
              .reduce((s, t) => s + t.amount, 0n);
            expect(balance.transferable).to.equal(pending);
          }
          expect(total).to.equal(minted);
          expect(minted <= 500n).to.equal(true);
        }),
        { numRuns: 300 },
      );
    });
  });
});
