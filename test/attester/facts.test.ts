import { expect } from "chai";
import { nullDataScript } from "../../src/doge";
import {
  ZERO_KEY,
  actionKey,
  collectionCountFact,
  dogeBalanceFact,
  drc20BalanceFact,
  drc20TransferValidFact,
  inscriptionActionFact,
  inscriptionKey,
  inscriptionOwnerFact,
  inscriptionValidFact,
  l1TipFact,
  tickKey,
  txIncludedFact,
} from "../../src/facts";
import type { Fact, FactTypeName } from "../../src/facts";
import {
  Drc20Operation,
  encodeDrc20,
  encodeLaunchpadDeploy,
  encodeLaunchpadMint,
  envelopeHash,
} from "../../src/inscription";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { Indexer } from "../../src/indexer/indexer";
import { AppError, statusOf } from "../../src/services/http/errors";
import { computeFact } from "../../src/attester";
import type { FactParamsJson } from "../../src/attester";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { InscribeResult, TX_FEE_KOINU, inscribeDoginals, inscribeV1, pay, sendInscription } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { DOGE, Purse, newIndex } from "./helpers";

const utf8 = (text: string) => new TextEncoder().encode(text);
const TEXT = "text/plain;charset=utf-8";
const TICK = "woof";
const SLUG = "attest-pups";
const STAMP = { attestedAt: 1_700_000_000n, attesterSetId: 1n };

/**
 * One devnet history (payments and spends, inscriptions moving, burned and spent to fees, a
 * DRC-20 deploy / mint / capped mint / transfer / send, a launchpad deploy and mints), indexed
 * in process; every fact type is then computed at several heights and compared with values
 * worked out by hand from what the test did.
 */
describe("attester facts at an explicit height", function () {
  this.timeout(180_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let history: IndexHistory;
  const alice = newKey();
  const bob = newKey();
  const carol = newKey();
  const dave = newKey();
  const miner = newKey();
  const alicePurse = new Purse(alice);
  const davePurse = new Purse(dave);
  /** Heights of the blocks of the story, by name. */
  const h: Record<string, number> = {};
  let payment: Awaited<ReturnType<typeof pay>>;
  let bobPays: Awaited<ReturnType<typeof pay>>;
  let image: InscribeResult;
  let burned: InscribeResult;
  let misfiled: InscribeResult;
  let aliceTransfer: InscribeResult;
  let bobBadTransfer: InscribeResult;
  const mints: Record<string, InscribeResult> = {};
  const IMAGE = { contentType: "image/png", action: "LIST", body: utf8("\x89PNG not really an image") };
  const BURN_BODY = utf8("an inscription about to be burned");
  const MISFILED = { contentType: "text/plain;charset=utf8", action: "LIST", body: utf8("LIST wants an image") };

  const mine = async (name: string): Promise<number> => {
    await devnet.rpc("generatetoaddress", [1, miner.address]);
    await indexer.syncOnce();
    h[name] = indexer.indexedHeight();
    return h[name];
  };
  const at = (type: FactTypeName, params: FactParamsJson, height: number): Fact =>
    computeFact(history, type, params, { ...STAMP, l1Height: height });
  const stamp = (height: number) => ({ ...STAMP, l1Height: height });
  const refusal = (run: () => unknown): AppError => {
    try {
      run();
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      return error as AppError;
    }
    throw new Error("expected a refusal");
  };
  const inscribeAlice = async <T extends InscribeResult>(
    make: (coin: ReturnType<Purse["take"]>) => Promise<T>,
  ): Promise<T> => {
    const result = await make(alicePurse.take(10n * DOGE));
    alicePurse.give(result.change);
    return result;
  };
  const drc20 = (operation: Drc20Operation, to: TestKey) =>
    inscribeAlice((coin) =>
      inscribeDoginals(devnet, alice, coin, { contentType: TEXT, body: encodeDrc20(operation) }, to.script),
    );
  const mintBody = (tokenId: bigint) => ({
    contentType: "application/json",
    action: "LAUNCHPAD_MINT",
    body: encodeLaunchpadMint({ slug: SLUG, tokenId, maxSupply: 5n }),
  });

  before(async () => {
    devnet = await startDevnet();
    ({ indexer, history } = newIndex(devnet));
    const funded = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [alice.address, 20_000, true]);
    await indexer.syncOnce();

    // A: alice pays bob 25 DOGE and dave 1,000, and splits coins for herself.
    payment = await pay(
      devnet,
      alice,
      [{ txid: funded.txid, vout: funded.vout, value: 20_000n * DOGE }],
      [
        { script: bob.script, value: 25n * DOGE },
        { script: dave.script, value: 1_000n * DOGE },
        ...Array.from({ length: 20 }, () => ({ script: alice.script, value: 100n * DOGE })),
      ],
    );
    payment.outputs.slice(2).forEach((coin) => alicePurse.give(coin));
    alicePurse.give(payment.change);
    davePurse.give(payment.outputs[1]);
    await mine("A");
    // B: bob pays carol 10 DOGE out of his 25.
    bobPays = await pay(devnet, bob, [payment.outputs[0]], [{ script: carol.script, value: 10n * DOGE }]);
    await mine("B");
    // C: inscriptions to alice: an image with its registered ACTION, a Doginals text, a text with an ACTION its content type does not allow.
    image = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, IMAGE, alice.script));
    burned = await inscribeAlice((coin) =>
      inscribeDoginals(devnet, alice, coin, { contentType: TEXT, body: BURN_BODY }, alice.script),
    );
    misfiled = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, MISFILED, alice.script));
    await mine("C");
    // D: the image moves to bob.
    const toBob = await sendInscription(devnet, alice, image.output, bob.script);
    await mine("D");
    // E: bob spends the image entirely to fees (it lands in the coinbase, the miner's); alice burns the text in an OP_RETURN output.
    await sendInscription(devnet, bob, toBob.output!, bob.script, { toFees: true });
    await sendInscription(devnet, alice, burned.output, nullDataScript(utf8("burn")));
    await mine("E");
    // F..J: DRC-20 "woof", max 1000, lim 600.
    await drc20({ kind: "deploy", tick: TICK, tickKey: TICK, maxSupply: 1_000n, mintLimit: 600n }, alice);
    await mine("F");
    await drc20({ kind: "mint", tick: TICK, tickKey: TICK, amount: 600n }, alice);
    await mine("G");
    await drc20({ kind: "mint", tick: TICK, tickKey: TICK, amount: 600n }, bob); // capped to the 400 left
    await mine("H");
    aliceTransfer = await drc20({ kind: "transfer", tick: TICK, tickKey: TICK, amount: 250n }, alice);
    bobBadTransfer = await drc20({ kind: "transfer", tick: TICK, tickKey: TICK, amount: 1_000n }, bob); // more than bob has
    await mine("I");
    await sendInscription(devnet, alice, aliceTransfer.output, bob.script);
    await mine("J");
    // K..M: dave deploys a collection, mints ids 0 and 1 to alice and 2 to bob; alice's own mint of id 3 is no member; then id 0 moves to bob.
    const deploy = await inscribeV1(
      devnet,
      dave,
      davePurse.take(),
      {
        contentType: "application/json",
        action: "LAUNCHPAD_DEPLOY",
        body: encodeLaunchpadDeploy({ slug: SLUG, name: "Attested Pups", priceKoinu: DOGE, maxSupply: 5n }),
      },
      dave.script,
    );
    davePurse.give(deploy.change);
    await mine("K");
    for (const [id, to] of [
      [0n, alice],
      [1n, alice],
      [2n, bob],
    ] as const) {
      const minted = await inscribeV1(devnet, dave, davePurse.take(), mintBody(id), to.script);
      davePurse.give(minted.change);
      mints[String(id)] = minted;
    }
    mints.foreign = await inscribeAlice((coin) => inscribeV1(devnet, alice, coin, mintBody(3n), alice.script));
    await mine("L");
    await sendInscription(devnet, alice, mints["0"].output, bob.script);
    await mine("M");
    // Five more blocks: M is now exactly 6 deep.
    for (let i = 0; i < 5; i++) await mine(`after${i}`);
  });

  after(async () => {
    await devnet?.stop();
  });

  describe("DOGE_BALANCE", () => {
    it("is the koinu of outputs created at or below the height and not spent at or below it", () => {
      const bobAt = (height: number) => at("DOGE_BALANCE", { address: bob.address }, height);
      expect(bobAt(h.A - 1)).to.deep.equal(dogeBalanceFact(bob.address, 0n, stamp(h.A - 1)));
      expect(bobAt(h.A)).to.deep.equal(dogeBalanceFact(bob.address, 25n * DOGE, stamp(h.A)));
      expect(bobAt(h.B).value, "after spending 10 DOGE and the fee").to.equal(15n * DOGE - TX_FEE_KOINU);
      expect(bobAt(h.D).value, "plus the image's output less its fee").to.equal(
        15n * DOGE - TX_FEE_KOINU + DOGE - TX_FEE_KOINU,
      );
      expect(bobAt(h.E).value, "the image's output spent to fees").to.equal(15n * DOGE - TX_FEE_KOINU);
      expect(at("DOGE_BALANCE", { address: carol.address }, h.A).value).to.equal(0n);
      expect(at("DOGE_BALANCE", { address: carol.address }, h.B).value).to.equal(10n * DOGE);
      expect(at("DOGE_BALANCE", { address: newKey().address }, h.M).value, "an address never seen").to.equal(0n);
    });

    it("equals the sum over the outputs table (created at or below H, spent above H or never) at every height", () => {
      const tip = history.tip()!.height;
      const byOutputs = history.db
        .prepare(
          `SELECT COALESCE(SUM(o.value), 0) AS koinu FROM outputs o JOIN txs t ON t.id = o.tx_id
        JOIN addresses a ON a.id = o.address_id LEFT JOIN txs s ON s.id = o.spent_tx_id
        WHERE a.address = ? AND t.height <= ? AND (s.height IS NULL OR s.height > ?)`,
        )
        .safeIntegers(true);
      for (const key of [alice, bob, carol, dave]) {
        for (let height = 0; height <= tip - 5; height++) {
          const expected = (byOutputs.get(key.address, height, height) as { koinu: bigint }).koinu;
          expect(at("DOGE_BALANCE", { address: key.address }, height).value, `${key.address} at ${height}`).to.equal(
            expected,
          );
        }
      }
    });
  });

  describe("INSCRIPTION_OWNER", () => {
    it("follows the inscription: alice, then bob, then the miner whose coinbase took it as fees", () => {
      expect(at("INSCRIPTION_OWNER", { inscription_id: image.inscriptionId }, h.C)).to.deep.equal(
        inscriptionOwnerFact(image.inscriptionId, alice.address, stamp(h.C)),
      );
      expect(at("INSCRIPTION_OWNER", { inscription_id: image.inscriptionId }, h.D - 1).data).to.equal(
        inscriptionOwnerFact(image.inscriptionId, alice.address, stamp(0)).data,
      );
      expect(at("INSCRIPTION_OWNER", { inscription_id: image.inscriptionId }, h.D)).to.deep.equal(
        inscriptionOwnerFact(image.inscriptionId, bob.address, stamp(h.D)),
      );
      expect(at("INSCRIPTION_OWNER", { inscription_id: image.inscriptionId }, h.E)).to.deep.equal(
        inscriptionOwnerFact(image.inscriptionId, miner.address, stamp(h.E)),
      );
    });

    it("names no owner (zero data) once the inscription sits in an OP_RETURN output", () => {
      expect(at("INSCRIPTION_OWNER", { inscription_id: burned.inscriptionId }, h.E - 1).data).to.equal(
        inscriptionOwnerFact(burned.inscriptionId, alice.address, stamp(0)).data,
      );
      const fact = at("INSCRIPTION_OWNER", { inscription_id: burned.inscriptionId }, h.E);
      expect(fact).to.deep.include({
        subject: inscriptionKey(burned.inscriptionId),
        qualifier: ZERO_KEY,
        value: 0n,
        data: ZERO_KEY,
      });
    });

    it("refuses with 404 INSCRIPTION_NOT_FOUND below the reveal and for an unknown id", () => {
      const early = refusal(() => at("INSCRIPTION_OWNER", { inscription_id: image.inscriptionId }, h.C - 1));
      expect([statusOf(early), early.code]).to.deep.equal([404, "INSCRIPTION_NOT_FOUND"]);
      expect(refusal(() => at("INSCRIPTION_OWNER", { inscription_id: `${"ab".repeat(32)}i0` }, h.M)).code).to.equal(
        "INSCRIPTION_NOT_FOUND",
      );
    });
  });

  describe("INSCRIPTION_VALID and INSCRIPTION_ACTION", () => {
    it("answers valid with the envelopeHash from the reveal on, for both forms, and not valid with a zero hash before", () => {
      expect(at("INSCRIPTION_VALID", { inscription_id: image.inscriptionId }, h.C - 1)).to.deep.equal(
        inscriptionValidFact(image.inscriptionId, false, ZERO_KEY, stamp(h.C - 1)),
      );
      expect(at("INSCRIPTION_VALID", { inscription_id: image.inscriptionId }, h.C)).to.deep.equal(
        inscriptionValidFact(image.inscriptionId, true, envelopeHash(IMAGE), stamp(h.C)),
      );
      expect(
        at("INSCRIPTION_VALID", { inscription_id: burned.inscriptionId }, h.M),
        "a Doginals text, burned since: still a valid inscription",
      ).to.deep.equal(
        inscriptionValidFact(
          burned.inscriptionId,
          true,
          envelopeHash({ contentType: TEXT, action: null, body: BURN_BODY }),
          stamp(h.M),
        ),
      );
      expect(at("INSCRIPTION_VALID", { inscription_id: `${"ab".repeat(32)}i0` }, h.M).value).to.equal(0n);
    });

    it("answers a registered ACTION only when the content type is one the registry allows for it", () => {
      expect(at("INSCRIPTION_ACTION", { inscription_id: image.inscriptionId }, h.C)).to.deep.equal(
        inscriptionActionFact(image.inscriptionId, "LIST", stamp(h.C)),
      );
      expect(at("INSCRIPTION_ACTION", { inscription_id: mints["0"].inscriptionId }, h.L).data).to.equal(
        actionKey("LAUNCHPAD_MINT"),
      );
      expect(at("INSCRIPTION_ACTION", { inscription_id: misfiled.inscriptionId }, h.C)).to.deep.equal(
        inscriptionActionFact(misfiled.inscriptionId, null, stamp(h.C)),
      );
      expect(at("INSCRIPTION_ACTION", { inscription_id: burned.inscriptionId }, h.C)).to.deep.equal(
        inscriptionActionFact(burned.inscriptionId, null, stamp(h.C)),
      );
      expect(refusal(() => at("INSCRIPTION_ACTION", { inscription_id: image.inscriptionId }, h.C - 1)).code).to.equal(
        "INSCRIPTION_NOT_FOUND",
      );
    });
  });

  describe("DRC20_BALANCE", () => {
    it("counts mints (a capped one by what it credited), transfers reserved and sent, height by height", () => {
      const balance = (key: TestKey, height: number) =>
        at("DRC20_BALANCE", { address: key.address, tick: TICK }, height).value;
      expect([h.F, h.G, h.H, h.I, h.J].map((height) => balance(alice, height))).to.deep.equal([
        0n,
        600n,
        600n,
        600n,
        350n,
      ]);
      expect([h.G, h.H, h.I, h.J].map((height) => balance(bob, height))).to.deep.equal([0n, 400n, 400n, 650n]);
      expect(balance(carol, h.J)).to.equal(0n);
      expect(at("DRC20_BALANCE", { address: alice.address, tick: TICK }, h.J)).to.deep.equal(
        drc20BalanceFact(alice.address, TICK, 350n, stamp(h.J)),
      );
    });

    it("reads the tick case-insensitively: the same bytes for WOOF and woof", () => {
      expect(at("DRC20_BALANCE", { address: bob.address, tick: "WOOF" }, h.J)).to.deep.equal(
        at("DRC20_BALANCE", { address: bob.address, tick: TICK }, h.J),
      );
    });

    it("equals the indexer's current balances (available + transferable) at the tip", () => {
      const tip = history.tip()!.height;
      const rows = history.db
        .prepare(
          "SELECT a.address, b.tick_key, b.available, b.transferable FROM drc20_balances b JOIN addresses a ON a.id = b.address_id",
        )
        .all() as { address: string; tick_key: string; available: string; transferable: string }[];
      expect(rows.length).to.be.greaterThan(1);
      for (const row of rows) {
        expect(history.drc20BalanceAt(row.address, row.tick_key, tip), row.address).to.equal(
          BigInt(row.available) + BigInt(row.transferable),
        );
      }
    });
  });

  describe("DRC20_TRANSFER_VALID", () => {
    const txidOf = (result: InscribeResult) => result.revealTxids[0];

    it("is the amount while the transfer inscription is valid and unsent, 0 once sent", () => {
      const valid = (height: number) => at("DRC20_TRANSFER_VALID", { txid: txidOf(aliceTransfer) }, height);
      expect(valid(h.I - 1), "not yet revealed").to.deep.equal({
        ...drc20TransferValidFact(txidOf(aliceTransfer), TICK, 0n, stamp(h.I - 1)),
        data: ZERO_KEY,
      });
      expect(valid(h.I)).to.deep.equal(drc20TransferValidFact(txidOf(aliceTransfer), TICK, 250n, stamp(h.I)));
      expect(valid(h.J)).to.deep.equal(drc20TransferValidFact(txidOf(aliceTransfer), TICK, 0n, stamp(h.J)));
    });

    it("is 0 with the tick for a transfer the balance could not cover, and 0 with zero data for a transaction that is no transfer", () => {
      expect(at("DRC20_TRANSFER_VALID", { txid: txidOf(bobBadTransfer) }, h.I)).to.deep.equal(
        drc20TransferValidFact(txidOf(bobBadTransfer), TICK, 0n, stamp(h.I)),
      );
      const payments = at("DRC20_TRANSFER_VALID", { txid: payment.txid }, h.M);
      expect([payments.value, payments.data]).to.deep.equal([0n, ZERO_KEY]);
      expect(tickKey("WOOF")).to.equal(drc20TransferValidFact(txidOf(aliceTransfer), TICK, 0n, stamp(0)).data);
    });
  });

  describe("COLLECTION_COUNT", () => {
    it("counts the member tokens an address held at the height (a mint by someone else than the deployer does not count)", () => {
      const count = (key: TestKey, height: number) =>
        at("COLLECTION_COUNT", { address: key.address, slug: SLUG }, height).value;
      expect([h.K, h.L, h.M].map((height) => count(alice, height))).to.deep.equal([0n, 2n, 1n]);
      expect([h.K, h.L, h.M].map((height) => count(bob, height))).to.deep.equal([0n, 1n, 2n]);
      expect(at("COLLECTION_COUNT", { address: bob.address, slug: SLUG }, h.M)).to.deep.equal(
        collectionCountFact(bob.address, SLUG, 2n, stamp(h.M)),
      );
      expect(at("COLLECTION_COUNT", { address: bob.address, slug: "no-such-pups" }, h.M).value).to.equal(0n);
    });
  });

  describe("TX_INCLUDED and L1_TIP", () => {
    it("tells a transaction's block from the height of its block on, and not before", async () => {
      const hashA = await devnet.rpc<string>("getblockhash", [h.A]);
      expect(at("TX_INCLUDED", { txid: payment.txid }, h.A - 1)).to.deep.equal(
        txIncludedFact(payment.txid, null, stamp(h.A - 1)),
      );
      expect(at("TX_INCLUDED", { txid: payment.txid }, h.A)).to.deep.equal(
        txIncludedFact(payment.txid, { height: h.A, blockHash: hashA }, stamp(h.A)),
      );
      expect(at("TX_INCLUDED", { txid: bobPays.txid }, h.M).value).to.equal(BigInt(h.B));
      expect(at("TX_INCLUDED", { txid: "00".repeat(32) }, h.M).value).to.equal(0n);
    });

    it("signs the block hash at the height as the tip", async () => {
      for (const height of [0, h.A, h.M]) {
        const hash = await devnet.rpc<string>("getblockhash", [height]);
        expect(at("L1_TIP", {}, height)).to.deep.equal(l1TipFact(height, hash, STAMP));
      }
    });
  });

  describe("depth", () => {
    it("refuses a height less than 6 deep with 422 NOT_DEEP_ENOUGH and one above the index with 409 INDEX_BEHIND", () => {
      const tip = history.tip()!.height;
      expect(at("DOGE_BALANCE", { address: bob.address }, tip - 5).l1Height).to.equal(BigInt(tip - 5));
      const shallow = refusal(() => at("DOGE_BALANCE", { address: bob.address }, tip - 4));
      expect([statusOf(shallow), shallow.code, shallow.details]).to.deep.equal([
        422,
        "NOT_DEEP_ENOUGH",
        { l1_height: tip - 4, signable_height: tip - 5, min_confirmations: 6 },
      ]);
      const ahead = refusal(() => at("DOGE_BALANCE", { address: bob.address }, tip + 1));
      expect([statusOf(ahead), ahead.code, ahead.details]).to.deep.equal([
        409,
        "INDEX_BEHIND",
        { indexed_height: tip, requested_height: tip + 1 },
      ]);
    });

    it("raises the requirement with more confirmations but never lowers it below 6", () => {
      const tip = history.tip()!.height;
      expect(
        refusal(() =>
          computeFact(history, "DOGE_BALANCE", { address: bob.address }, { ...STAMP, l1Height: tip - 5 }, 10),
        ).details,
      ).to.deep.include({ signable_height: tip - 9, min_confirmations: 10 });
      expect(
        refusal(() =>
          computeFact(history, "DOGE_BALANCE", { address: bob.address }, { ...STAMP, l1Height: tip - 4 }, 1),
        ).details,
      ).to.deep.include({ signable_height: tip - 5, min_confirmations: 6 });
    });

    it("signs the L1 tip at the index's own tip (it counts nothing), never above it", () => {
      const tip = history.tip()!.height;
      expect(at("L1_TIP", {}, tip).l1Height).to.equal(BigInt(tip));
      expect(at("L1_TIP", {}, tip).value).to.equal(BigInt(tip));
      expect(refusal(() => at("L1_TIP", {}, tip + 1)).code).to.equal("INDEX_BEHIND");
    });
  });
});
