/**
 * The last tokens of a bonding curve, fought over as an attacker would (the money path of
 * graduation), on the devnet and over HTTP: the launchpad stack's devnet, index and inscriber, the
 * AMM app with the bonding routes mounted (default reservation limits: 300 s, 3 per address, 10% of
 * the remaining tokens but the whole last slice), the daemon's payout costs, launches made the way a
 * launcher makes them (test/helpers/bonding-launch.ts), real DOGE payments to the custody.
 *
 * Each curve is first bought down to its last slice (under 10% of its sellable supply) by a whale,
 * through a store over the same database without the share cap (setup, not the attack). Then
 * several keys each ask for the whole rest: each reservation is allowed when it is made (the
 * previous one expired unpaid, by the service's clock), each payment is mined before its own
 * reservation's expiry, so together they ask for several times what is left. They pay, and confirm
 * at once (HTTP and the bonding pass).
 *
 * The rule: the last tokens are sold once. Exactly one buy completes the curve, and it is the one
 * `graduation.reservationId` names; exactly one pool is seeded, with what graduation handed it;
 * every other payment goes back whole to its payer (less the payout's cost), once; what was paid is
 * what the curve took, plus what was refunded, plus the payouts' costs; the tokens sold never exceed
 * the sellable supply. A payment that arrives after graduation is refunded, never credited; a reorg
 * of the graduating payment's block leaves one graduation.
 *
 * Deposits count at N = 2 confirmations.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, signMessage } from "../../src/doge";
import {
  AmmLedger,
  DEFAULT_PAYOUT_COSTS,
  DepositReader,
  authorizationMessage,
  createAmmApp,
  openAmmDatabase,
  reserveFields,
} from "../../src/services/amm";
import { BondingStore, graduatedProvider } from "../../src/services/amm/bonding-store";
import { mountBonding } from "../../src/services/amm/bonding-app";
import { PayoutRow, SettlementWorker } from "../../src/services/amm/settlement";
import { InscriberClient } from "../../src/services/inscriber/client";
import type { HotWallet } from "../../src/wallet";
import { launchCurve } from "../helpers/bonding-launch";
import { custodyWallet } from "../helpers/amm-pool";
import { faucetCoin } from "../helpers/drc20";
import { jsonRequest } from "../helpers/http";
import { KOINU_PER_DOGE, pay } from "../helpers/inscribe";
import { Spendable, TestKey, newKey } from "../helpers/keys";
import { Answer, LAUNCHPAD_PROJECT_KEY, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { listenLocal } from "../helpers/listen";

const DOGE = KOINU_PER_DOGE;
/** Confirmations before a deposit counts. */
const N = 2;
const TERMS = {
  totalSupply: "1000000",
  sellableSupply: "800000",
  virtualDoge: (100n * DOGE).toString(),
  graduationThreshold: (50n * DOGE).toString(),
};
const SELLABLE = BigInt(TERMS.sellableSupply);
const TOTAL = BigInt(TERMS.totalSupply);
/** What the whale leaves on each curve: under 10% of the sellable supply, so one address may reserve it whole. */
const LEFT = 60_000n;
/** The store's reservation lifetime (bonding-store.ts DEFAULT_RESERVATION_SECONDS). */
const RESERVATION_SECONDS = 300;
/** What each attacker offers for the rest: more than it costs (a buy of the last tokens asks only their cost). */
const OFFER = 40n * DOGE;

const show = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body)}`;

interface Payment {
  key: TestKey;
  reservationId: string;
  txid: string;
  paid: bigint;
}

describe("adversarial: the last tokens of a bonding curve", function () {
  this.timeout(900_000);
  let stack: LaunchpadStack;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let deposits: DepositReader;
  let ledger: AmmLedger;
  let store: BondingStore;
  /** Over the same database, without the share cap: the whale's setup buy only. */
  let whaleStore: BondingStore;
  let settlement: SettlementWorker;
  let server: Server;
  let base: string;
  let apiKey: string;
  let clockOffset = 0;
  let nonceCounter = 0;
  const events: { event: string; fields: Record<string, unknown> }[] = [];
  const custody = newKey();
  const coins = new Map<string, Spendable>();

  const now = () => Math.floor(Date.now() / 1000) + clockOffset;
  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, body === undefined ? {} : { body });
  const mine = () => stack.mine();
  const bury = async () => {
    for (let i = 0; i < N; i++) await mine();
  };
  const nonce = () => `last-${process.pid}-${++nonceCounter}`;
  const authMessage = async (params: Record<string, string>): Promise<string> => {
    const answer = await call("GET", `/auth/message?${new URLSearchParams(params)}`);
    expect(answer.status, show(answer)).to.equal(200);
    return answer.body.message;
  };
  /** `key` reserves a BUY of `amountIn` koinu on curve `symbol`, signing it (valid 5 minutes by the service's clock). */
  const reserve = async (key: TestKey, symbol: string, amountIn: bigint): Promise<Answer> => {
    const order = { side: "BUY", address: key.address, amountIn: amountIn.toString() };
    const auth = { nonce: nonce(), expiresAt: now() + 300 };
    const message = await authMessage({
      action: "bonding-reserve",
      symbol,
      ...order,
      nonce: auth.nonce,
      expiresAt: String(auth.expiresAt),
    });
    return call("POST", `/bonding/${symbol}/reserve`, {
      ...order,
      ...auth,
      signature: signMessage(message, key.privateKey),
    });
  };
  /** `key` confirms `reservationId` with `depositTxid`, signing bonding-confirm. */
  const confirm = async (key: TestKey, reservationId: string, depositTxid: string): Promise<Answer> => {
    const message = await authMessage({ action: "bonding-confirm", reservationId, depositTxid });
    return call("POST", "/bonding/confirm", {
      reservationId,
      depositTxid,
      signature: signMessage(message, key.privateKey),
    });
  };
  /** `key` asks for its deposit `depositTxid` back (refund-deposit, signed). */
  const refundDeposit = async (key: TestKey, depositTxid: string): Promise<Answer> => {
    const request = { asset: "DOGE", address: key.address, depositTxid };
    const message = await authMessage({ action: "refund-deposit", ...request });
    return call("POST", "/deposits/refund", { ...request, signature: signMessage(message, key.privateKey) });
  };
  /** Pays `koinu` from `key`'s coin to the custody (broadcast, not mined); the change is `key`'s next coin. */
  const payCustody = async (key: TestKey, koinu: bigint, locktime?: number): Promise<string> => {
    const paid = await pay(
      stack.devnet,
      key,
      [coins.get(key.address)!],
      [{ script: custody.script, value: koinu }],
      locktime === undefined ? {} : { locktime },
    );
    coins.set(key.address, paid.change!);
    return paid.txid;
  };
  /** Fresh keys, each with a 100-DOGE coin (mined). */
  const funded = async (count: number): Promise<TestKey[]> => {
    const keys = Array.from({ length: count }, () => newKey());
    for (const key of keys) coins.set(key.address, await faucetCoin(stack.devnet, key, 100));
    await mine();
    return keys;
  };
  const curveNow = async (symbol: string): Promise<any> => {
    const answer = await call("GET", `/bonding/${symbol}`);
    expect(answer.status, show(answer)).to.equal(200);
    return answer.body;
  };
  const payoutsOf = (refId: string) =>
    ammDb.prepare("SELECT * FROM payouts WHERE ref_id = ? ORDER BY reason").all(refId) as PayoutRow[];
  const payoutsTo = (address: string) =>
    ammDb.prepare("SELECT * FROM payouts WHERE address = ? ORDER BY reason").all(address) as PayoutRow[];
  const seedsOf = (symbol: string, curveId: string) =>
    ledger.ledgerOf(symbol).filter((row) => row.kind === "seed" && row.ref_id === curveId).length;
  const poolRows = (symbol: string) =>
    (ammDb.prepare("SELECT COUNT(*) AS n FROM pools WHERE tick_key = ?").get(symbol.toLowerCase()) as { n: number }).n;
  const graduations = (symbol: string) =>
    events.filter((e) => e.event === "bonding_graduated" && e.fields.tick === symbol).length;

  /**
   * Launches `symbol` and has a whale buy all but about LEFT tokens of it (reserved through the
   * store without the share cap, paid, confirmed over HTTP). Answers the curve after the buy.
   */
  async function launchNearGraduation(symbol: string): Promise<any> {
    await launchCurve(
      {
        stack,
        base,
        apiKey,
        custodyScript: custody.script,
        confirmations: N,
        runOnce: () => store.runOnce(),
        now,
      },
      symbol,
      TERMS,
    );
    const [whale] = await funded(1);
    const quote = await call("POST", "/bonding/quote", {
      symbol,
      side: "BUY",
      amountOut: (SELLABLE - LEFT).toString(),
    });
    expect(quote.status, show(quote)).to.equal(200);
    const amountIn = BigInt(quote.body.amountIn);
    const auth = { address: whale.address, nonce: nonce(), expiresAt: now() + 300 };
    const text = authorizationMessage(
      ledger.domain,
      "bonding-reserve",
      reserveFields({ tick: symbol, side: "BUY", amountIn }),
      auth,
    );
    const reservation = whaleStore.reserve({
      tick: symbol,
      side: "BUY",
      address: whale.address,
      amountIn,
      auth: { ...auth, signature: signMessage(text, whale.privateKey) },
    });
    const txid = await payCustody(whale, reservation.amountIn + reservation.payoutCost);
    await bury();
    const bought = await confirm(whale, reservation.id, txid);
    expect(bought.status, show(bought)).to.equal(200);
    expect(bought.body.graduated).to.equal(false);
    const curve = await curveNow(symbol);
    const left = BigInt(curve.realToken);
    expect(left > 0n && left * 10n <= SELLABLE, `${left} tokens left: the last slice`).to.equal(true);
    expect(curve.status).to.equal("active");
    return curve;
  }

  /**
   * Keys each reserve the whole rest of `symbol`, one after the other: each reservation expires by
   * the service's clock before the next is made, so each is allowed. Answers the reservations
   * (their deposit amounts are the rest's cost).
   */
  async function reserveTheRestInTurn(symbol: string, keys: TestKey[]): Promise<{ key: TestKey; body: any }[]> {
    const made: { key: TestKey; body: any }[] = [];
    for (const key of keys) {
      const answer = await reserve(key, symbol, OFFER);
      expect(answer.status, show(answer)).to.equal(201);
      expect(answer.body.reservedAmount, "each asks for every token left").to.equal((await curveNow(symbol)).realToken);
      made.push({ key, body: answer.body });
      clockOffset += RESERVATION_SECONDS + 1;
    }
    expect((await curveNow(symbol)).reservedTokens, "the turns' reservations expired").to.equal("0");
    return made;
  }

  /**
   * The books of curve `symbol` after graduation: one fill completed it and is the one graduation
   * names; one pool, seeded once with what graduation handed it; each payment bound once to its
   * reservation, and either filled or refunded whole to its payer; what was paid = what the curve
   * took + DOGE paid back + the payouts' costs; tokens sold = the sellable supply, owed to the buyers.
   */
  async function expectGraduatedOnce(
    symbol: string,
    winner: Payment,
    losers: Payment[],
    before: { realDoge: bigint; feesCollected: bigint },
  ): Promise<any> {
    const curve = await curveNow(symbol);
    expect(curve.status).to.equal("graduated");
    expect(curve.realToken).to.equal("0");
    expect(curve.tokensSold, "never more than the sellable supply").to.equal(SELLABLE.toString());
    expect(curve.graduation.reservationId, "graduation names the buy that completed the curve").to.equal(
      winner.reservationId,
    );
    expect(curve.graduation).to.include({
      poolDoge: curve.realDoge,
      poolToken: (TOTAL - SELLABLE).toString(),
      poolSeeded: true,
    });
    expect(curve.error).to.equal(null);
    expect(graduations(symbol), "one graduation").to.equal(1);

    // One pool, seeded once, with what graduation handed it, owned by no key.
    const record = store.curve(symbol)!;
    expect(poolRows(symbol), "one pool row").to.equal(1);
    expect(seedsOf(symbol, record.id), "one seed").to.equal(1);
    expect(
      ledger.ledgerOf(symbol).map((row) => row.kind),
      "nothing but the seed moved the pool",
    ).to.deep.equal(["seed"]);
    const pool = ledger.pool(symbol)!.pool;
    expect([pool.dogeReserve.toString(), pool.tokenReserve.toString()]).to.deep.equal([
      curve.graduation.poolDoge,
      curve.graduation.poolToken,
    ]);
    expect(curve.graduation.pool).to.include({ dogeReserve: curve.realDoge, tokenReserve: curve.graduation.poolToken });
    const owners = ammDb.prepare("SELECT address FROM positions WHERE tick_key = ?").all(symbol.toLowerCase()) as {
      address: string;
    }[];
    expect(owners.map((o) => o.address)).to.deep.equal([graduatedProvider(symbol)]);

    // The winner's fill completed the curve: its tokens are the last ones, and no buy was filled after it.
    const won = (await call("GET", `/bonding/reservations/${winner.reservationId}`)).body;
    expect(won.status).to.equal("confirmed");
    expect(won.amountOut).to.equal(won.reservedAmount);
    const confirmed = store.reservations(symbol, "confirmed");
    const sold = confirmed.reduce((sum, r) => sum + r.amountOut!, 0n);
    expect(sold, "the confirmed buys sold the sellable supply, no more").to.equal(SELLABLE);
    expect(confirmed.every((r) => r.updatedAt <= won.updatedAt)).to.equal(true);

    const { dogeKoinu, drc20Koinu } = ledger.payoutCosts;
    let payoutsDoge = 0n;
    let costs = 0n;
    for (const payment of [winner, ...losers]) {
      // Bound once, to its own reservation, as its payer's.
      expect(
        ammDb.prepare("SELECT kind, ref_id, address, amount FROM deposits WHERE txid = ?").all(payment.txid),
      ).to.deep.equal([
        {
          kind: "bonding_buy",
          ref_id: payment.reservationId,
          address: payment.key.address,
          amount: payment.paid.toString(),
        },
      ]);
      const rows = payoutsOf(payment.reservationId);
      expect(
        rows.every((p) => p.address === payment.key.address),
        "paid back to its payer only",
      ).to.equal(true);
      for (const p of rows) {
        if (p.asset === "DOGE") payoutsDoge += BigInt(p.amount);
        costs += BigInt(p.cost_koinu!);
      }
      const reservation = (await call("GET", `/bonding/reservations/${payment.reservationId}`)).body;
      if (payment === winner) {
        expect(rows.map((p) => [p.asset, p.tick, p.amount, p.reason, p.cost_koinu])).to.deep.equal([
          ["DRC20", symbol, won.amountOut, "bonding_buy", drc20Koinu.toString()],
        ]);
      } else {
        expect(reservation.status, `${payment.reservationId}: ${JSON.stringify(reservation)}`).to.equal("refunded");
        expect(reservation.amountOut).to.equal(null);
        expect(rows.map((p) => [p.asset, p.amount, p.cost_koinu])).to.deep.equal([
          ["DOGE", (payment.paid - dogeKoinu).toString(), dogeKoinu.toString()],
        ]);
        expect(rows[0].reason).to.match(/^bonding_refund:/);
      }
    }
    // Conservation: every koinu paid is in the curve (net and fee), paid back, or the payouts' costs.
    const took = BigInt(curve.realDoge) + BigInt(curve.feesCollected) - before.realDoge - before.feesCollected;
    const paid = [winner, ...losers].reduce((sum, p) => sum + p.paid, 0n);
    expect(took, "the curve took the winner's buy only").to.equal(winner.paid - drc20Koinu);
    expect(took + payoutsDoge + costs, `paid ${paid}`).to.equal(paid);

    // The custody holds what it owes: the tick's whole supply (buyers' payouts and the pool), and its DOGE.
    const owed = ledger.obligations(symbol);
    const tokens = stack.queries.drc20Balance(custody.address, symbol.toLowerCase());
    expect(owed.token, "owed tokens: sold + pool").to.equal(TOTAL);
    expect(tokens.available + tokens.transferable >= owed.token).to.equal(true);
    expect(deposits.spendableKoinu() >= owed.doge, `custody ${deposits.spendableKoinu()}, owes ${owed.doge}`).to.equal(
      true,
    );
    return curve;
  }

  before(async () => {
    stack = await startLaunchpadStack();
    const inscriberAddress = (stack.platform as unknown as { wallet: HotWallet }).wallet.address;
    ammDb = openAmmDatabase(":memory:");
    deposits = new DepositReader(stack.queries, custody.address, {
      confirmations: N,
      serviceAddresses: [custody.address, inscriberAddress],
    });
    ledger = new AmmLedger({
      db: ammDb,
      network: NETWORKS.regtest,
      deposits,
      clock: now,
      payoutCosts: DEFAULT_PAYOUT_COSTS,
      tickDeployed: (tick) => stack.queries.drc20Tick(tick.toLowerCase())?.tick ?? null,
    });
    whaleStore = new BondingStore({
      db: ammDb,
      ledger,
      deposits,
      queries: stack.queries,
      clock: now,
      maxReservationShareBps: 10_000,
    });
    // The service's store, with the default limits (made last: it is the one the ledger asks about curves).
    store = new BondingStore({
      db: ammDb,
      ledger,
      deposits,
      queries: stack.queries,
      clock: now,
      log: (event, fields) => events.push({ event, fields }),
    });
    apiKey = store.issueApiKey("last tokens operator").key;
    settlement = new SettlementWorker({
      db: ammDb,
      wallet: custodyWallet(stack, custody),
      queries: stack.queries,
      inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
      network: NETWORKS.regtest,
      inscriberProject: "launchpad",
      depositConfirmations: N,
    });
    ({ server, base } = await listenLocal(
      createAmmApp({
        ledger,
        network: NETWORKS.regtest,
        mount: (app) => mountBonding(app, { store, ledger, network: NETWORKS.regtest }),
      }),
    ));
    await stack.devnet.rpc("devnet_faucet", [custody.address, 100, false]);
    await mine();
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  describe("keys paying for more than is left, in one block", () => {
    const SYMBOL = "LAST";
    let winner: Payment;
    let late: { key: TestKey; body: any };

    it("sells the last tokens once: the live reservation's buy completes the curve, one graduation seeds one pool, every other payment is refunded whole to its payer", async () => {
      const before = await launchNearGraduation(SYMBOL);
      const [k1, k2, k3, k4, k5, k6, k7] = await funded(7);

      // Four keys and a late payer each reserve every token left, in turn (each after the previous expired).
      const turns = await reserveTheRestInTurn(SYMBOL, [k1, k2, k3, k4, k7]);
      late = turns.pop()!;
      // Two more ask for the rest at once: live reservations never hold more than the curve has.
      const race = await Promise.all([reserve(k5, SYMBOL, OFFER), reserve(k6, SYMBOL, OFFER)]);
      expect(race.map((a) => a.status).sort(), race.map(show).join(" | ")).to.deep.equal([201, 409]);
      expect(race.find((a) => a.status === 409)!.body.error.code).to.equal("RESERVATION_CAP_REACHED");
      const holderIndex = race.findIndex((a) => a.status === 201);
      const holder = { key: [k5, k6][holderIndex], body: race[holderIndex].body };
      expect(holder.body.reservedAmount).to.equal(before.realToken);
      const asked = [...turns, holder].reduce((sum, r) => sum + BigInt(r.body.reservedAmount), 0n);
      expect(asked, "together they ask for several times what is left").to.equal(5n * BigInt(before.realToken));

      // All of them pay in the same block, each before its own reservation's expiry by the block's time.
      const payments: Payment[] = [];
      for (const { key, body } of [...turns, holder]) {
        const paid = BigInt(body.depositAmount);
        payments.push({ key, reservationId: body.reservationId, txid: await payCustody(key, paid), paid });
      }
      winner = payments[payments.length - 1];
      // The holder announces its payment before it is mined: the bonding pass is to confirm it.
      const announced = await confirm(winner.key, winner.reservationId, winner.txid);
      expect([announced.status, announced.body.pendingTxid], show(announced)).to.deep.equal([202, winner.txid]);
      await bury();
      expect(new Set(payments.map((p) => stack.queries.tx(p.txid)?.height)).size, "one block").to.equal(1);

      // Everyone confirms at once over HTTP, and the bonding pass runs among them.
      const losers = payments.slice(0, -1);
      const first = confirm(losers[0].key, losers[0].reservationId, losers[0].txid);
      const [answers, pass] = await Promise.all([
        Promise.all([first, ...losers.slice(1).map((p) => confirm(p.key, p.reservationId, p.txid))]),
        first.then(() => store.runOnce()),
      ]);
      expect(pass.checked, "the pass checked the announced payment").to.equal(1);
      for (const answer of answers) {
        expect([answer.status, answer.body.error?.code], show(answer)).to.deep.equal([422, "SOLD_OUT"]);
        expect(answer.body.error.details.refund_payout_id).to.be.a("string");
      }
      const again = await confirm(winner.key, winner.reservationId, winner.txid);
      expect(again.status, show(again)).to.equal(200);
      // Unchanged: the bonding pass had confirmed it (and graduated the curve) among the others' confirms.
      expect(again.body).to.include({ status: "confirmed", amountOut: before.realToken, graduated: false });

      await store.runOnce();
      await expectGraduatedOnce(SYMBOL, winner, losers, {
        realDoge: BigInt(before.realDoge),
        feesCollected: BigInt(before.feesCollected),
      });

      // Nothing is paid twice: the same confirms again change nothing, a refunded deposit cannot be
      // asked back again, and nobody binds another's payment.
      const pays = ammDb.prepare("SELECT COUNT(*) AS n FROM payouts").get() as { n: number };
      for (const loser of losers) {
        const replay = await confirm(loser.key, loser.reservationId, loser.txid);
        expect([replay.status, replay.body.status], show(replay)).to.deep.equal([200, "refunded"]);
        const twice = await refundDeposit(loser.key, loser.txid);
        expect([twice.status, twice.body.error?.code], show(twice)).to.deep.equal([409, "DEPOSIT_ALREADY_USED"]);
      }
      const stolen = await refundDeposit(k1, winner.txid);
      expect([stolen.status, stolen.body.error?.code], show(stolen)).to.deep.equal([409, "DEPOSIT_ALREADY_USED"]);
      const swapped = await confirm(k2, losers[1].reservationId, losers[0].txid);
      expect([swapped.status, swapped.body.error?.code], show(swapped)).to.deep.equal([409, "RESERVATION_CLOSED"]);
      expect(ammDb.prepare("SELECT COUNT(*) AS n FROM payouts").get(), "no payout more").to.deep.equal(pays);
    });

    it("refunds, and never credits, buys paid to the old curve's deposit address after graduation", async () => {
      const curve = await curveNow(SYMBOL);
      const pool = ledger.pool(SYMBOL)!.pool;
      const [stranger] = await funded(1);

      // A reservation made before graduation (expired by the service's clock), paid after it, in its time by the block's.
      const latePaid = BigInt(late.body.depositAmount);
      const lateTxid = await payCustody(late.key, latePaid);
      // The graduated curve's winner pays its closed reservation again; a stranger pays with no reservation at all.
      const againTxid = await payCustody(winner.key, winner.paid);
      const strangerTxid = await payCustody(stranger, 5n * DOGE);
      await bury();

      const [lateAnswer, againAnswer, strangerReserve] = await Promise.all([
        confirm(late.key, late.body.reservationId, lateTxid),
        confirm(winner.key, winner.reservationId, againTxid),
        reserve(stranger, SYMBOL, 5n * DOGE),
      ]);
      expect([lateAnswer.status, lateAnswer.body.error?.code], show(lateAnswer)).to.deep.equal([422, "SOLD_OUT"]);
      expect(lateAnswer.body.error.details.refund_amount).to.equal(
        (latePaid - ledger.payoutCosts.dogeKoinu).toString(),
      );
      expect(payoutsOf(late.body.reservationId).map((p) => [p.asset, p.address, p.amount, p.reason])).to.deep.equal([
        ["DOGE", late.key.address, (latePaid - ledger.payoutCosts.dogeKoinu).toString(), "bonding_refund:SOLD_OUT"],
      ]);
      expect([againAnswer.status, againAnswer.body.error?.code], show(againAnswer)).to.deep.equal([
        409,
        "RESERVATION_CLOSED",
      ]);
      expect([strangerReserve.status, strangerReserve.body.error?.code], show(strangerReserve)).to.deep.equal([
        409,
        "CURVE_GRADUATED",
      ]);
      // The stranger's signature cannot bind its payment to the winner's reservation.
      const hijack = await call("POST", "/bonding/confirm", {
        reservationId: winner.reservationId,
        depositTxid: strangerTxid,
        signature: signMessage(
          await authMessage({
            action: "bonding-confirm",
            reservationId: winner.reservationId,
            depositTxid: strangerTxid,
          }),
          stranger.privateKey,
        ),
      });
      expect(hijack.status, show(hijack)).to.equal(401);

      // Payments that serve no order go back to their payers on their own signed request, once.
      for (const [key, txid, amount] of [
        [winner.key, againTxid, winner.paid],
        [stranger, strangerTxid, 5n * DOGE],
      ] as const) {
        const refunded = await refundDeposit(key, txid);
        expect(refunded.status, show(refunded)).to.equal(202);
        expect(refunded.body).to.include({
          asset: "DOGE",
          address: key.address,
          amount: (amount - ledger.payoutCosts.dogeKoinu).toString(),
        });
        const twice = await refundDeposit(key, txid);
        expect([twice.status, twice.body.error?.code], show(twice)).to.deep.equal([409, "DEPOSIT_ALREADY_USED"]);
      }
      expect(payoutsTo(stranger.address).map((p) => [p.asset, p.reason])).to.deep.equal([["DOGE", "deposit_refund"]]);

      // Nothing of it reached the curve or the pool.
      await store.runOnce();
      const after = await curveNow(SYMBOL);
      expect(after).to.deep.include({
        status: "graduated",
        realDoge: curve.realDoge,
        feesCollected: curve.feesCollected,
        tokensSold: curve.tokensSold,
      });
      expect(after.graduation).to.deep.equal(curve.graduation);
      const now = ledger.pool(SYMBOL)!.pool;
      expect([now.dogeReserve, now.tokenReserve, now.lpSupply]).to.deep.equal([
        pool.dogeReserve,
        pool.tokenReserve,
        pool.lpSupply,
      ]);
      expect(graduations(SYMBOL)).to.equal(1);
      expect(poolRows(SYMBOL)).to.equal(1);
    });
  });

  describe("keys none of whose reservations holds the rest any more, paying in consecutive blocks", () => {
    const SYMBOL = "LSTX";

    it("fills the payment confirmed first and refunds every other whole, over HTTP and in the bonding pass alike: one fill completes the curve", async () => {
      const before = await launchNearGraduation(SYMBOL);
      const keys = await funded(4);

      // Each key reserves every token left in turn and pays at once; the first two announce their
      // payment while their reservation is live, for the bonding pass to confirm once it is mined.
      const payments: Payment[] = [];
      for (const [i, key] of keys.entries()) {
        const answer = await reserve(key, SYMBOL, OFFER);
        expect(answer.status, show(answer)).to.equal(201);
        expect(answer.body.reservedAmount).to.equal(before.realToken);
        const paid = BigInt(answer.body.depositAmount);
        const payment = { key, reservationId: answer.body.reservationId, txid: await payCustody(key, paid), paid };
        payments.push(payment);
        if (i < 2) {
          const announced = await confirm(key, payment.reservationId, payment.txid);
          expect([announced.status, announced.body.pendingTxid], show(announced)).to.deep.equal([202, payment.txid]);
        }
        // Two payments a block: the first two in one block, the last two in the next.
        if (i % 2 === 1) await mine();
        clockOffset += RESERVATION_SECONDS + 1;
      }
      await mine();
      const heights = payments.map((p) => stack.queries.tx(p.txid)!.height);
      expect(heights[0]).to.equal(heights[1]);
      expect(heights[2]).to.equal(heights[0] + 1);
      expect(heights[3]).to.equal(heights[2]);
      const curve = await curveNow(SYMBOL);
      expect(curve.reservedTokens, "every reservation expired: none holds a token").to.equal("0");
      expect(curve.status).to.equal("active");

      // The two unannounced payers confirm over HTTP, and the pass runs once the first is answered.
      const first = confirm(payments[2].key, payments[2].reservationId, payments[2].txid);
      const [answers, pass] = await Promise.all([
        Promise.all([first, confirm(payments[3].key, payments[3].reservationId, payments[3].txid)]),
        first.then(() => store.runOnce()),
      ]);
      expect(pass.checked, "the pass checked both announced payments").to.equal(2);
      // Whichever of the two reached the service first took every token left; the other found none.
      const won = answers.filter((a) => a.status === 200);
      expect(
        won.map((a) => [a.body.status, a.body.graduated]),
        answers.map(show).join(" | "),
      ).to.deep.equal([["confirmed", true]]);
      const lost = answers.find((a) => a !== won[0])!;
      expect([lost.status, lost.body.error?.code], show(lost)).to.deep.equal([422, "SOLD_OUT"]);

      // Exactly one of the four was filled; the three others were refunded, whoever confirmed them.
      const states = await Promise.all(
        payments.map(async (p) => (await call("GET", `/bonding/reservations/${p.reservationId}`)).body.status),
      );
      expect(states.filter((s) => s === "confirmed")).to.have.length(1);
      expect(states.filter((s) => s === "refunded")).to.have.length(3);
      const winner = payments[states.indexOf("confirmed")];
      expect(winner.reservationId).to.equal(won[0].body.reservationId);
      await expectGraduatedOnce(
        SYMBOL,
        winner,
        payments.filter((p) => p !== winner),
        { realDoge: BigInt(before.realDoge), feesCollected: BigInt(before.feesCollected) },
      );
      expect(ledger.announcements.count(), "no announcement left").to.equal(0);
    });
  });

  describe("a graduation whose pool seed the custody cannot cover", () => {
    const SYMBOL = "SEED";

    it("keeps the graduated tick's pool closed to a stranger's liquidity until the curve's own seed lands", async () => {
      await launchNearGraduation(SYMBOL);
      // The custody's spendable DOGE leaves it (a sweep by its operator, or payments a deep reorg
      // took back): graduation cannot seed the pool, and the curve keeps the refusal for a later pass.
      const sink = newKey();
      const coins = [...stack.queries.allUtxos(custody.address)]
        .filter((utxo) => utxo.inscriptions.length === 0 && utxo.drc20.length === 0)
        .map((utxo) => ({ txid: utxo.txid, vout: utxo.vout, value: utxo.valueKoinu }));
      const swept = coins.reduce((sum, coin) => sum + coin.value, 0n) - DOGE;
      await pay(stack.devnet, custody, coins, [{ script: sink.script, value: swept }]);
      await bury();
      let restored = false;
      const restore = async () => {
        if (restored) return;
        restored = true;
        await stack.devnet.rpc("devnet_faucet", [custody.address, Number(swept / DOGE) + 1, false]);
        await bury();
      };
      try {
        await seedRefusedThenLanded(restore);
      } finally {
        // The later tests need the custody's DOGE back whatever happened here.
        await restore();
      }
    });

    async function seedRefusedThenLanded(restore: () => Promise<void>): Promise<void> {
      const [buyer, stranger] = await funded(2);
      const rest = await reserve(buyer, SYMBOL, OFFER);
      expect(rest.status, show(rest)).to.equal(201);
      const txid = await payCustody(buyer, BigInt(rest.body.depositAmount));
      await bury();
      const bought = await confirm(buyer, rest.body.reservationId, txid);
      expect(bought.status, show(bought)).to.equal(200);
      expect(bought.body.graduated).to.equal(true);
      const curve = await curveNow(SYMBOL);
      expect(curve.status).to.equal("graduated");
      expect(curve.graduation.poolSeeded).to.equal(false);
      expect(String(curve.error)).to.match(/^SEED_NOT_COVERED/);
      expect(seedsOf(SYMBOL, store.curve(SYMBOL)!.id)).to.equal(0);

      // A stranger asks to open the empty pool at a price of its own choosing first: the tick is
      // still the curve's until its seed lands, so the order is refused before any deposit is read.
      const dogeTxid = await payCustody(stranger, 5n * DOGE);
      await bury();
      const fields = { tick: SYMBOL, address: stranger.address, dogeTxid, tokenTxid: "ab".repeat(32) };
      const asked = await call("GET", `/auth/message?${new URLSearchParams({ action: "add-liquidity", ...fields })}`);
      expect(asked.status, show(asked)).to.equal(200);
      const added = await call("POST", "/liquidity/add", {
        ...fields,
        signature: signMessage(asked.body.message as string, stranger.privateKey),
      });
      expect([added.status, added.body.error?.code], show(added)).to.deep.equal([409, "TICK_ON_BONDING_CURVE"]);
      expect(added.body.error.details).to.include({ tick: SYMBOL, curve_status: "graduated", pool_seeded: false });
      expect(ledger.pool(SYMBOL)?.pool.lpSupply ?? 0n).to.equal(0n);

      // Once the custody holds the DOGE again, the next pass seeds the pool with what graduation
      // handed it, and the pool is open to everyone.
      await restore();
      await store.runOnce();
      const seeded = await curveNow(SYMBOL);
      expect(seeded.graduation.poolSeeded, show({ status: 200, body: seeded } as Answer)).to.equal(true);
      expect(seedsOf(SYMBOL, store.curve(SYMBOL)!.id)).to.equal(1);
      const pool = ledger.pool(SYMBOL)!.pool;
      expect([pool.dogeReserve, pool.tokenReserve]).to.deep.equal([
        BigInt(curve.graduation.poolDoge),
        BigInt(curve.graduation.poolToken),
      ]);
    }
  });

  describe("the graduating payment's block reorganised away", () => {
    const SYMBOL = "LSTR";

    it("leaves one graduation when the block of the buy that completed the curve is replaced by a competing branch paying the others", async () => {
      const before = await launchNearGraduation(SYMBOL);
      const [g1, g2, g3, g4] = await funded(4);

      // Three keys ask for the rest in turn; the fourth holds it live.
      const turns = await reserveTheRestInTurn(SYMBOL, [g2, g3, g4]);
      const held = await reserve(g1, SYMBOL, OFFER);
      expect(held.status, show(held)).to.equal(201);
      expect(held.body.reservedAmount).to.equal(before.realToken);

      // Branch A: an empty block E, then g1's payment (final only above E's height) and g2's, buried N deep.
      const [blockE] = await stack.devnet.rpc<string[]>("generatetoaddress", [1, stack.miner.address]);
      await stack.indexer.syncOnce();
      const heightE = await stack.devnet.rpc<number>("getblockcount");
      const g1Coin = coins.get(g1.address)!;
      const g1Paid = BigInt(held.body.depositAmount);
      const g1Txid = await payCustody(g1, g1Paid, heightE);
      const g2Paid = BigInt(turns[0].body.depositAmount);
      const g2Txid = await payCustody(g2, g2Paid);
      await bury();

      const [graduating, beaten] = await Promise.all([
        confirm(g1, held.body.reservationId, g1Txid),
        confirm(g2, turns[0].body.reservationId, g2Txid),
      ]);
      expect([graduating.status, graduating.body.graduated], show(graduating)).to.deep.equal([200, true]);
      expect([beaten.status, beaten.body.error?.code], show(beaten)).to.deep.equal([422, "SOLD_OUT"]);
      const graduated = await curveNow(SYMBOL);
      expect(graduated.graduation.reservationId).to.equal(held.body.reservationId);

      // Branch B: E and everything after it go; g1's payment is not final on the new tip and leaves the
      // mempool; g1 spends its coin elsewhere, and g3 and g4 pay, in a longer branch.
      await stack.devnet.rpc("invalidateblock", [blockE]);
      expect(await stack.devnet.rpc<string[]>("getrawmempool"), "g1's payment left the mempool").to.not.include(g1Txid);
      const doubleSpend = await pay(stack.devnet, g1, [g1Coin], []);
      const g3Paid = BigInt(turns[1].body.depositAmount);
      const g3Txid = await payCustody(g3, g3Paid);
      const g4Paid = BigInt(turns[2].body.depositAmount);
      const g4Txid = await payCustody(g4, g4Paid);
      await stack.devnet.rpc("generatetoaddress", [5, stack.miner.address]);
      await stack.indexer.syncOnce();
      expect(stack.queries.tx(g1Txid), "the graduating payment is gone").to.equal(null);
      expect(stack.queries.tx(doubleSpend.txid), "its double spend is indexed").to.not.equal(null);
      for (const txid of [g2Txid, g3Txid, g4Txid])
        expect(stack.queries.tx(txid), `${txid} on the new branch`).to.not.equal(null);

      // The others confirm at once on the new branch, with the bonding pass, and g1 replays its confirm.
      const [g3Answer, g4Answer, g1Again, g2Again] = await Promise.all([
        confirm(g3, turns[1].body.reservationId, g3Txid),
        confirm(g4, turns[2].body.reservationId, g4Txid),
        confirm(g1, held.body.reservationId, g1Txid),
        confirm(g2, turns[0].body.reservationId, g2Txid),
        store.runOnce(),
      ]);
      for (const answer of [g3Answer, g4Answer])
        expect([answer.status, answer.body.error?.code], show(answer)).to.deep.equal([422, "SOLD_OUT"]);
      expect([g1Again.status, g1Again.body.status, g1Again.body.graduated], show(g1Again)).to.deep.equal([
        200,
        "confirmed",
        false,
      ]);
      expect([g2Again.status, g2Again.body.status], show(g2Again)).to.deep.equal([200, "refunded"]);
      const reserveAfter = await reserve(newKey(), SYMBOL, DOGE);
      expect([reserveAfter.status, reserveAfter.body.error?.code], show(reserveAfter)).to.deep.equal([
        409,
        "CURVE_GRADUATED",
      ]);

      // One graduation, as it was: the same reservation, time and pool.
      const after = await curveNow(SYMBOL);
      expect(after.graduation).to.deep.equal(graduated.graduation);
      const payments = [
        { key: g2, reservationId: turns[0].body.reservationId, txid: g2Txid, paid: g2Paid },
        { key: g3, reservationId: turns[1].body.reservationId, txid: g3Txid, paid: g3Paid },
        { key: g4, reservationId: turns[2].body.reservationId, txid: g4Txid, paid: g4Paid },
      ];
      const winner = { key: g1, reservationId: held.body.reservationId, txid: g1Txid, paid: g1Paid };
      await expectGraduatedOnce(SYMBOL, winner, payments, {
        realDoge: BigInt(before.realDoge),
        feesCollected: BigInt(before.feesCollected),
      });

      // The graduating buy's tokens never leave: its payout freezes once its payment is gone.
      const [tokensOwed] = payoutsOf(held.body.reservationId);
      await settlement.runOnce();
      const frozen = settlement.payout(tokensOwed.id)!;
      expect([frozen.status, frozen.asset, frozen.address], frozen.error ?? "").to.deep.equal([
        "frozen",
        "DRC20",
        g1.address,
      ]);
      expect(frozen.error).to.match(/^DEPOSIT_REORGED: /);
      expect(graduations(SYMBOL)).to.equal(1);
      expect(poolRows(SYMBOL)).to.equal(1);
    });
  });
});
