/**
 * The AMM's settlement worker end to end on the devnet: the launchpad stack's index and real
 * inscriber (project "launchpad" stands in for "amm"), a custody hot wallet funded by the faucet
 * holding a DRC-20 tick it deployed and minted, payouts queued by inserting rows. The index is the
 * judge of what the users received.
 */
import crypto from "node:crypto";
import path from "node:path";
import { expect } from "chai";
import { NETWORKS, addressToOutputScript, publicKeyToAddress } from "../../src/doge";
import { drc20TickKey, encodeDrc20 } from "../../src/inscription/drc20";
import { openAmmDatabase } from "../../src/services/amm/schema";
import {
  DRC20_TRANSFER_CONTENT_TYPE,
  PAYOUT_OWNER,
  Payout,
  PayoutStatus,
  SettlementWorker,
} from "../../src/services/amm/settlement";
import { InscriberClient } from "../../src/services/inscriber/client";
import { HARD_DUST_LIMIT, HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import type { Sqlite } from "../../src/db/sqlite";
import { KOINU_PER_DOGE } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import {
  LAUNCHPAD_PROJECT_KEY,
  LaunchpadStack,
  STACK_FEE_RATE,
  STACK_POSTAGE,
  startLaunchpadStack,
} from "../helpers/launchpad-stack";

const TICK = "SETL";
const MINTED = 100_000n;
const FINAL: readonly PayoutStatus[] = ["confirmed", "below_dust", "failed"];

interface LogEvent {
  event: string;
  fields: Record<string, unknown>;
}

describe("AMM settlement worker", function () {
  this.timeout(180_000);
  let stack: LaunchpadStack;
  let wallet: HotWallet;
  let walletFile: string;
  let inscriber: InscriberClient;
  const custody = newKey();

  const openCustodyWallet = () =>
    new HotWallet({
      db: openWalletDatabase(walletFile),
      key: custody,
      chain: indexNodeChain(stack.queries, stack.client),
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: STACK_FEE_RATE,
    });

  function newWorker(
    db: Sqlite,
    events: LogEvent[] = [],
    options: { wallet?: HotWallet; confirmations?: number } = {},
  ): SettlementWorker {
    return new SettlementWorker({
      db,
      wallet: options.wallet ?? wallet,
      queries: stack.queries,
      inscriber,
      network: NETWORKS.regtest,
      inscriberProject: "launchpad",
      confirmations: options.confirmations,
      log: (event, fields) => events.push({ event, fields }),
    });
  }

  function queue(
    db: Sqlite,
    payout: { asset: "DOGE" | "DRC20"; address: string; amount: bigint; tick?: string },
  ): string {
    const id = `pay_${crypto.randomBytes(12).toString("hex")}`;
    const now = Math.floor(Date.now() / 1000);
    db.prepare(
      `INSERT INTO payouts (id, asset, tick, address, amount, reason, ref_id, status, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, 'swap', ?, 'queued', ?, ?)`,
    ).run(id, payout.asset, payout.tick ?? null, payout.address, payout.amount.toString(), `swap_${id}`, now, now);
    return id;
  }

  /** Runs passes of `workers` side by side, confirming inscriber jobs and mining sends, until every payout is final. */
  async function settle(workers: SettlementWorker[], ids: string[]): Promise<Payout[]> {
    for (let round = 0; round < 12; round++) {
      await Promise.all(workers.map((worker) => worker.runOnce()));
      const payouts = ids.map((id) => workers[0].payout(id)!);
      if (payouts.every((payout) => FINAL.includes(payout.status))) return payouts;
      for (const payout of payouts) {
        if (payout.status === "inscribing") await stack.confirmInscriberJob(payout.inscriberJobId!);
      }
      if (payouts.some((payout) => payout.status === "sent")) await stack.mine();
    }
    throw new Error(
      `payouts not settled: ${JSON.stringify(
        ids.map((id) => workers[0].payout(id)),
        (_, v) => (typeof v === "bigint" ? v.toString() : v),
      )}`,
    );
  }

  /** Outputs the index has paying `address`, with the transactions they are in. */
  const received = (address: string) => stack.queries.utxos(address, null, 100).items;
  const tokenBalance = (address: string) =>
    stack.queries.drc20Balances(address).find((balance) => balance.tick === TICK) ?? {
      tick: TICK,
      available: "0",
      transferable: "0",
    };
  const count = (events: LogEvent[], event: string, id: string) =>
    events.filter((e) => e.event === event && e.fields.id === id).length;

  async function inscribeToCustody(key: string, content: Uint8Array): Promise<void> {
    const answer = await inscriber.inscribe(key, {
      project: "launchpad",
      contentType: DRC20_TRANSFER_CONTENT_TYPE,
      action: null,
      content,
      recipient: custody.address,
    });
    expect(answer.created, JSON.stringify(answer.job)).to.equal(true);
    await stack.confirmInscriberJob(answer.job.id);
  }

  before(async () => {
    stack = await startLaunchpadStack();
    walletFile = path.join(stack.dir, "custody-wallet.sqlite");
    wallet = openCustodyWallet();
    for (let i = 0; i < 3; i++) await stack.devnet.rpc("devnet_faucet", [custody.address, 100, false]);
    await stack.mine();
    await wallet.sync();
    inscriber = new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY });
    const tickKey = drc20TickKey(TICK);
    await inscribeToCustody(
      "settle-deploy",
      encodeDrc20({ kind: "deploy", tick: TICK, tickKey, maxSupply: 10n * MINTED, mintLimit: MINTED }),
    );
    await inscribeToCustody("settle-mint", encodeDrc20({ kind: "mint", tick: TICK, tickKey, amount: MINTED }));
    expect(tokenBalance(custody.address)).to.deep.equal({
      tick: TICK,
      available: MINTED.toString(),
      transferable: "0",
    });
  });

  after(async () => {
    await stack?.stop();
  });

  describe("DOGE payouts", () => {
    it("pays the address from the custody wallet and follows the transaction to confirmation", async () => {
      const db = openAmmDatabase(":memory:");
      const events: LogEvent[] = [];
      const worker = newWorker(db, events);
      const user = newKey();
      const id = queue(db, { asset: "DOGE", address: user.address, amount: 2n * KOINU_PER_DOGE });

      await worker.runOnce();
      const sent = worker.payout(id)!;
      expect(sent.status).to.equal("sent");
      expect(sent.amount).to.equal(2n * KOINU_PER_DOGE);
      expect(sent.txid).to.equal(wallet.txOf(PAYOUT_OWNER, id)!.txid);

      const [done] = await settle([worker], [id]);
      expect(done.status).to.equal("confirmed");
      expect(done.error).to.equal(null);
      expect(done.confirmedHeight).to.equal(stack.queries.tx(sent.txid!)!.height);
      const outputs = received(user.address);
      expect(outputs.map((o) => [o.txid, o.valueKoinu])).to.deep.equal([[sent.txid, 2n * KOINU_PER_DOGE]]);
      expect(stack.queries.balance(user.address).confirmedKoinu).to.equal(2n * KOINU_PER_DOGE);
      expect(events.filter((e) => e.fields.id === id).map((e) => e.event)).to.deep.equal([
        "amm_payout_sent",
        "amm_payout_confirmed",
      ]);
    });

    it("confirms only once the transaction is as deep as `confirmations`", async () => {
      const db = openAmmDatabase(":memory:");
      const worker = newWorker(db, [], { confirmations: 2 });
      const id = queue(db, { asset: "DOGE", address: newKey().address, amount: KOINU_PER_DOGE });
      await worker.runOnce();
      await stack.mine();
      await worker.runOnce();
      expect(worker.payout(id)!.status).to.equal("sent");
      await stack.mine();
      await worker.runOnce();
      const payout = worker.payout(id)!;
      expect(payout.status).to.equal("confirmed");
      expect(payout.confirmedHeight).to.equal(stack.queries.status().indexedHeight - 1);
    });

    it("never sends a payout below the hard dust limit and marks it below_dust", async () => {
      const db = openAmmDatabase(":memory:");
      const events: LogEvent[] = [];
      const worker = newWorker(db, events);
      const user = newKey();
      const id = queue(db, { asset: "DOGE", address: user.address, amount: HARD_DUST_LIMIT - 1n });
      const justAbove = queue(db, { asset: "DOGE", address: user.address, amount: HARD_DUST_LIMIT });
      await worker.runOnce();
      const payout = worker.payout(id)!;
      expect(payout.status).to.equal("below_dust");
      expect(payout.error).to.match(/^BELOW_DUST: 99999 koinu/);
      expect(wallet.txOf(PAYOUT_OWNER, id)).to.equal(null);
      expect(count(events, "amm_payout_below_dust", id)).to.equal(1);
      // The hard limit itself is sendable (the custody pays Core's soft-dust surcharge).
      expect(worker.payout(justAbove)!.status).to.equal("sent");
      await settle([worker], [justAbove]);
      expect(received(user.address).map((o) => o.valueKoinu)).to.deep.equal([HARD_DUST_LIMIT]);
    });

    it("keeps a payout the wallet cannot pay queued, with the error and the attempts, and pays it once funds arrive", async () => {
      const db = openAmmDatabase(":memory:");
      const events: LogEvent[] = [];
      const worker = newWorker(db, events);
      const amount = 400n * KOINU_PER_DOGE; // more than the custody holds
      const id = queue(db, { asset: "DOGE", address: newKey().address, amount });
      await worker.runOnce();
      await worker.runOnce();
      const waiting = worker.payout(id)!;
      expect(waiting.status).to.equal("queued");
      expect(waiting.attempts).to.equal(2);
      expect(waiting.error).to.match(/^INSUFFICIENT_FUNDS: /);
      expect(wallet.txOf(PAYOUT_OWNER, id)).to.equal(null);
      expect(count(events, "amm_payout_retry", id)).to.equal(2);

      for (let i = 0; i < 3; i++) await stack.devnet.rpc("devnet_faucet", [custody.address, 100, false]);
      await stack.mine();
      const [done] = await settle([worker], [id]);
      expect(done.status).to.equal("confirmed");
      expect(done.attempts).to.equal(2);
      expect(done.error).to.equal(null);
    });

    it("fails a payout to an address of another network without sending anything", async () => {
      const db = openAmmDatabase(":memory:");
      const worker = newWorker(db);
      const id = queue(db, {
        asset: "DOGE",
        address: publicKeyToAddress(newKey().publicKey, NETWORKS.mainnet),
        amount: KOINU_PER_DOGE,
      });
      await worker.runOnce();
      const payout = worker.payout(id)!;
      expect(payout.status).to.equal("failed");
      expect(payout.error).to.match(/^INVALID_PAYOUT: address /);
      expect(wallet.txOf(PAYOUT_OWNER, id)).to.equal(null);
    });
  });

  describe("DRC-20 payouts", () => {
    it("inscribes a transfer to the custody address and sends its carrier to the user", async () => {
      const db = openAmmDatabase(":memory:");
      const events: LogEvent[] = [];
      const worker = newWorker(db, events);
      const user = newKey();
      const before = tokenBalance(custody.address);
      const id = queue(db, { asset: "DRC20", tick: TICK, address: user.address, amount: 250n });

      await worker.runOnce();
      const inscribing = worker.payout(id)!;
      expect(inscribing.status).to.equal("inscribing");
      const job = await inscriber.job(inscribing.inscriberJobId!);
      expect(job.recipient).to.equal(custody.address);
      expect(job.form).to.equal("doginals");
      expect(job.contentType).to.equal(DRC20_TRANSFER_CONTENT_TYPE);

      const [done] = await settle([worker], [id]);
      expect(done.status, done.error ?? "").to.equal("confirmed");
      expect(done.inscriptionId).to.equal((await inscriber.job(done.inscriberJobId!)).inscriptionId);
      expect(stack.queries.inscriptionBody(done.inscriptionId!)!.body).to.deep.equal(
        new TextEncoder().encode(`{"p":"drc-20","op":"transfer","tick":"${TICK}","amt":"250"}`),
      );
      expect(stack.queries.inscription(done.inscriptionId!)!.ownerAddress).to.equal(user.address);
      expect(tokenBalance(user.address)).to.deep.equal({ tick: TICK, available: "250", transferable: "0" });
      expect(tokenBalance(custody.address)).to.deep.equal({
        tick: TICK,
        available: (BigInt(before.available) - 250n).toString(),
        transferable: "0",
      });
      // Output 0 of the send pays the user exactly the carrier (the postage), so the inscription moved with it.
      const outputs = received(user.address);
      expect(outputs.map((o) => [o.txid, o.vout, o.valueKoinu])).to.deep.equal([[done.txid, 0, STACK_POSTAGE]]);
      expect(events.filter((e) => e.fields.id === id).map((e) => e.event)).to.deep.equal([
        "amm_payout_inscribing",
        "amm_payout_inscribed",
        "amm_payout_sent",
        "amm_payout_confirmed",
      ]);
    });

    it("keeps a transfer larger than the custody's available balance queued, inscribing nothing", async () => {
      const db = openAmmDatabase(":memory:");
      const worker = newWorker(db);
      const user = newKey();
      const id = queue(db, { asset: "DRC20", tick: TICK, address: user.address, amount: 10n * MINTED });
      for (let i = 0; i < 2; i++) {
        await worker.runOnce();
        await stack.mine();
      }
      const held = worker.payout(id)!;
      expect(held.status).to.equal("queued");
      expect(held.error).to.match(/^DRC20_AVAILABLE_SHORT: /);
      expect(held.attempts).to.equal(2);
      expect(held.inscriberJobId, "no inscription was asked").to.equal(null);
      expect(wallet.txOf(PAYOUT_OWNER, id)).to.equal(null);
      expect(tokenBalance(user.address).available).to.equal("0");
      expect(tokenBalance(custody.address).transferable).to.equal("0");
    });
  });

  describe("the solvency gate", () => {
    it("holds a payout in its state while the gate names a shortfall of its asset, and pays it once the gate clears", async () => {
      const db = openAmmDatabase(":memory:");
      const events: LogEvent[] = [];
      const short = new Set<string>(["DOGE", `DRC20:${TICK}`]);
      const asked: string[] = [];
      const worker = new SettlementWorker({
        db,
        wallet,
        queries: stack.queries,
        inscriber,
        network: NETWORKS.regtest,
        inscriberProject: "launchpad",
        log: (event, fields) => events.push({ event, fields }),
        solvency: {
          shortfall: (asset, tick) => {
            const key = asset === "DOGE" ? "DOGE" : `DRC20:${tick}`;
            asked.push(key);
            return short.has(key) ? { code: "CUSTODY_SHORTFALL", message: `${key}: holds 1, owes 2` } : null;
          },
        },
      });
      const dogeUser = newKey();
      const tokenUser = newKey();
      const doge = queue(db, { asset: "DOGE", address: dogeUser.address, amount: KOINU_PER_DOGE });
      const token = queue(db, { asset: "DRC20", tick: TICK, address: tokenUser.address, amount: 40n });

      await worker.runOnce();
      await worker.runOnce();
      for (const id of [doge, token]) {
        const payout = worker.payout(id)!;
        expect([payout.status, payout.error], id).to.deep.equal([
          "queued",
          `CUSTODY_SHORTFALL: ${payout.asset === "DOGE" ? "DOGE" : `DRC20:${TICK}`}: holds 1, owes 2`,
        ]);
        expect(payout.inscriberJobId).to.equal(null);
        expect(wallet.txOf(PAYOUT_OWNER, id)).to.equal(null);
        // Logged once, not on every pass.
        expect(count(events, "amm_payout_held_shortfall", id)).to.equal(1);
      }
      // Asked once per asset and tick per pass.
      expect(asked.sort()).to.deep.equal(["DOGE", "DOGE", `DRC20:${TICK}`, `DRC20:${TICK}`]);

      // The DRC-20 side clears: the transfer is inscribed; short again, the inscribed carrier is not sent.
      short.delete(`DRC20:${TICK}`);
      await worker.runOnce();
      expect(worker.payout(token)!.status).to.equal("inscribing");
      await stack.confirmInscriberJob(worker.payout(token)!.inscriberJobId!);
      await worker.runOnce();
      expect(worker.payout(token)!.status).to.equal("inscribed");
      short.add(`DRC20:${TICK}`);
      await worker.runOnce();
      const inscribed = worker.payout(token)!;
      expect([inscribed.status, inscribed.error?.split(":")[0]]).to.deep.equal(["inscribed", "CUSTODY_SHORTFALL"]);
      expect(wallet.txOf(PAYOUT_OWNER, token)).to.equal(null);
      expect(worker.payout(doge)!.status).to.equal("queued");

      short.clear();
      const done = await settle([worker], [doge, token]);
      expect(done.map((payout) => [payout.status, payout.error])).to.deep.equal([
        ["confirmed", null],
        ["confirmed", null],
      ]);
      expect(tokenBalance(tokenUser.address).available).to.equal("40");
      expect(stack.queries.balance(dogeUser.address).confirmedKoinu).to.equal(KOINU_PER_DOGE);
    });
  });

  describe("deposits re-checked before sending", () => {
    const useDeposit = (db: Sqlite, id: string, txid: string) =>
      db
        .prepare(
          "INSERT INTO deposits (txid, kind, ref_id, asset, amount, address, used_at) VALUES (?, 'swap', ?, 'DOGE', '1', ?, 0)",
        )
        .run(txid, refOf(db, id), custody.address);
    const refOf = (db: Sqlite, id: string) =>
      (db.prepare("SELECT ref_id FROM payouts WHERE id = ?").get(id) as { ref_id: string }).ref_id;

    it("holds a payout whose deposit is below depositConfirmations and freezes one whose deposit is not in the index", async () => {
      const db = openAmmDatabase(":memory:");
      const events: LogEvent[] = [];
      const worker = new SettlementWorker({
        db,
        wallet,
        queries: stack.queries,
        inscriber,
        network: NETWORKS.regtest,
        inscriberProject: "launchpad",
        depositConfirmations: 3,
        log: (event, fields) => events.push({ event, fields }),
      });
      const user = newKey();
      const shallow = queue(db, { asset: "DOGE", address: user.address, amount: KOINU_PER_DOGE });
      const gone = queue(db, { asset: "DRC20", tick: TICK, address: user.address, amount: 5n });
      const { txid } = await stack.devnet.rpc<{ txid: string }>("devnet_faucet", [newKey().address, 1, false]);
      await stack.mine();
      useDeposit(db, shallow, txid);
      useDeposit(db, gone, "ab".repeat(32));

      await worker.runOnce();
      const held = worker.payout(shallow)!;
      expect([held.status, held.error?.split(":")[0]]).to.deep.equal(["queued", "DEPOSIT_NOT_DEEP_ENOUGH"]);
      expect(wallet.txOf(PAYOUT_OWNER, shallow)).to.equal(null);
      const frozen = worker.payout(gone)!;
      expect(frozen.status).to.equal("frozen");
      expect(frozen.error).to.match(/^DEPOSIT_REORGED: /);
      expect(frozen.inscriberJobId).to.equal(null);
      expect(worker.frozenCount()).to.equal(1);
      expect(events.filter((e) => e.event === "amm_payout_frozen").map((e) => e.fields.payout)).to.deep.equal([gone]);

      await stack.mine();
      await stack.mine();
      const [done] = await settle([worker], [shallow]);
      expect(done.status).to.equal("confirmed");
    });
  });

  describe("restarts", () => {
    it("pays a DOGE payout funded (or also broadcast) before a crash with that same transaction", async () => {
      const file = path.join(stack.dir, `amm-${crypto.randomBytes(4).toString("hex")}.sqlite`);
      const user = newKey();
      const script = addressToOutputScript(user.address, NETWORKS.regtest);
      let db = openAmmDatabase(file);
      const fundedOnly = queue(db, { asset: "DOGE", address: user.address, amount: 3n * KOINU_PER_DOGE });
      const broadcastToo = queue(db, { asset: "DOGE", address: user.address, amount: 4n * KOINU_PER_DOGE });
      // What a worker that died right after these calls left behind.
      const first = wallet.fund(PAYOUT_OWNER, fundedOnly, [{ script, value: 3n * KOINU_PER_DOGE }]);
      const second = wallet.fund(PAYOUT_OWNER, broadcastToo, [{ script, value: 4n * KOINU_PER_DOGE }]);
      await wallet.broadcast(second.txid);
      db.close();

      db = openAmmDatabase(file);
      const restarted = newWorker(db, [], { wallet: openCustodyWallet() });
      const done = await settle([restarted], [fundedOnly, broadcastToo]);
      expect(done.map((payout) => [payout.status, payout.txid])).to.deep.equal([
        ["confirmed", first.txid],
        ["confirmed", second.txid],
      ]);
      const outputs = received(user.address);
      expect(outputs.map((o) => o.valueKoinu).sort()).to.deep.equal([3n * KOINU_PER_DOGE, 4n * KOINU_PER_DOGE]);
      expect(stack.queries.history(user.address, null, 100).total).to.equal(2);
    });

    it("pays a DRC-20 payout interrupted after the inscription request and after the carrier send exactly once", async () => {
      const file = path.join(stack.dir, `amm-${crypto.randomBytes(4).toString("hex")}.sqlite`);
      const user = newKey();
      const amount = 300n;
      const before = tokenBalance(custody.address);
      let db = openAmmDatabase(file);
      const id = queue(db, { asset: "DRC20", tick: TICK, address: user.address, amount });

      // Crash 1: the inscriber got the request, the row did not move.
      const content = encodeDrc20({ kind: "transfer", tick: TICK, tickKey: drc20TickKey(TICK), amount });
      const asked = await inscriber.inscribe(id, {
        project: "launchpad",
        contentType: DRC20_TRANSFER_CONTENT_TYPE,
        action: null,
        content,
        recipient: custody.address,
      });
      expect(asked.created).to.equal(true);
      let worker = newWorker(db);
      await worker.runOnce();
      expect(worker.payout(id)!.inscriberJobId).to.equal(asked.job.id);
      await stack.confirmInscriberJob(asked.job.id);
      await worker.runOnce();
      const inscribed = worker.payout(id)!;
      expect(inscribed.status).to.equal("inscribed");

      // Crash 2: the carrier send was funded and broadcast, the row did not move.
      await wallet.sync();
      const location = stack.queries.inscription(inscribed.inscriptionId!)!.location!;
      const send = wallet.sendCarrier(PAYOUT_OWNER, id, { txid: location.txid, vout: location.vout }, user.script);
      await wallet.broadcast(send.txid);
      db.close();

      db = openAmmDatabase(file);
      worker = newWorker(db, [], { wallet: openCustodyWallet() });
      const [done] = await settle([worker], [id]);
      expect(done.status, done.error ?? "").to.equal("confirmed");
      expect(done.txid).to.equal(send.txid);
      expect(received(user.address).map((o) => o.txid)).to.deep.equal([send.txid]);
      expect(tokenBalance(user.address)).to.deep.equal({ tick: TICK, available: amount.toString(), transferable: "0" });
      expect(tokenBalance(custody.address)).to.deep.equal({
        tick: TICK,
        available: (BigInt(before.available) - amount).toString(),
        transferable: "0",
      });
    });
  });

  describe("two workers", () => {
    it("pay once when they run passes over the same database at the same time", async () => {
      const file = path.join(stack.dir, `amm-${crypto.randomBytes(4).toString("hex")}.sqlite`);
      const events: LogEvent[] = [];
      const a = newWorker(openAmmDatabase(file), events, { wallet: openCustodyWallet() });
      const b = newWorker(openAmmDatabase(file), events, { wallet: openCustodyWallet() });
      const dogeUser: TestKey = newKey();
      const tokenUser: TestKey = newKey();
      const before = tokenBalance(custody.address);
      const db = openAmmDatabase(file);
      const doge = queue(db, { asset: "DOGE", address: dogeUser.address, amount: 5n * KOINU_PER_DOGE });
      const token = queue(db, { asset: "DRC20", tick: TICK, address: tokenUser.address, amount: 75n });

      const done = await settle([a, b], [doge, token]);
      expect(done.map((payout) => payout.status)).to.deep.equal(["confirmed", "confirmed"]);
      for (const id of [doge, token]) {
        expect(count(events, "amm_payout_sent", id), id).to.equal(1);
        expect(count(events, "amm_payout_confirmed", id), id).to.equal(1);
      }
      expect(count(events, "amm_payout_inscribing", token)).to.equal(1);
      expect(received(dogeUser.address).map((o) => [o.txid, o.valueKoinu])).to.deep.equal([
        [done[0].txid, 5n * KOINU_PER_DOGE],
      ]);
      expect(received(tokenUser.address).map((o) => o.txid)).to.deep.equal([done[1].txid]);
      expect(tokenBalance(tokenUser.address)).to.deep.equal({ tick: TICK, available: "75", transferable: "0" });
      expect(tokenBalance(custody.address)).to.deep.equal({
        tick: TICK,
        available: (BigInt(before.available) - 75n).toString(),
        transferable: "0",
      });
      expect(
        wallet
          .txsOf(PAYOUT_OWNER)
          .filter((tx) => tx.label === doge || tx.label === token)
          .map((tx) => tx.txid)
          .sort(),
      ).to.deep.equal([done[0].txid, done[1].txid].sort());
    });
  });
});
