/**
 * The operator's costs of paying out are charged to the orders, never to the custody's float
 * (issue 16, threat-model rule 3): on the devnet, with the daemon's default payout costs, a
 * DOGE -> token swap carries its DRC-20 payout's cost on top of its deposit, a token -> DOGE swap
 * has its payout's network fee withheld, and when the settlement worker has paid both (DOGE from
 * the custody wallet, the DRC-20 transfer through the real inscriber) what the operator's wallets
 * spent is at most what the orders paid toward it. On a bonding curve launched by the operator, a
 * BUY reservation's deposit carries its DRC-20 payout's cost and a SELL's DOGE payout is paid less
 * its cost, and again the operator's wallets spend no more than what those orders paid.
 */
import { expect } from "chai";
import path from "node:path";
import type { Server } from "node:http";
import { NETWORKS, signMessage } from "../../src/doge";
import {
  AmmLedger,
  DEFAULT_PAYOUT_COSTS,
  DepositReader,
  SettlementWorker,
  createAmmApp,
  openAmmDatabase,
} from "../../src/services/amm";
import { mountBonding } from "../../src/services/amm/bonding-app";
import { BondingStore } from "../../src/services/amm/bonding-store";
import { InscriberClient } from "../../src/services/inscriber/client";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import { deployTick, faucetCoin, inscribeTransfer, mintTick, sendTransfer } from "../helpers/drc20";
import { jsonRequest } from "../helpers/http";
import { launchCurve } from "../helpers/bonding-launch";
import { KOINU_PER_DOGE, pay } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import {
  Answer,
  LAUNCHPAD_PROJECT_KEY,
  LaunchpadStack,
  STACK_FEE_RATE,
  startLaunchpadStack,
} from "../helpers/launchpad-stack";
import { until } from "../helpers/wait";
import { listenLocal } from "../helpers/listen";

const DOGE = KOINU_PER_DOGE;
const TICK = "COST";
/** The bonding curve the operator launches (after the pool's test). */
const CURVE = "CSTB";
const CURVE_PARAMS = {
  totalSupply: "1000000",
  sellableSupply: "800000",
  virtualDoge: (100n * DOGE).toString(),
  graduationThreshold: (50n * DOGE).toString(),
};

describe("adversarial: the operator's payout costs are charged to the orders (issue 16)", function () {
  this.timeout(600_000);
  let stack: LaunchpadStack;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let ledger: AmmLedger;
  let custodyWallet: HotWallet;
  let settlement: SettlementWorker;
  let store: BondingStore;
  let apiKey: string;
  let server: Server;
  let base: string;
  let inscriberAddress: string;
  const custody = newKey();
  const trader = newKey();
  const deployer = newKey();

  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, body === undefined ? {} : { body });
  const show = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body)}`;
  const execute = async (key: TestKey, swapId: string, depositTxid: string): Promise<Answer> => {
    const { message } = (
      await call("GET", `/auth/message?${new URLSearchParams({ action: "execute-swap", swapId, depositTxid })}`)
    ).body;
    return call("POST", "/swap/execute", { swapId, depositTxid, signature: signMessage(message, key.privateKey) });
  };
  const confirmed = (address: string) => stack.queries.balance(address).confirmedKoinu;

  before(async () => {
    stack = await startLaunchpadStack();
    inscriberAddress = (stack.platform as unknown as { wallet: HotWallet }).wallet.address;
    ammDb = openAmmDatabase(":memory:");
    const deposits = new DepositReader(stack.queries, custody.address, {
      confirmations: 1,
      serviceAddresses: [inscriberAddress],
    });
    ledger = new AmmLedger({
      db: ammDb,
      network: NETWORKS.regtest,
      deposits,
      payoutCosts: DEFAULT_PAYOUT_COSTS,
      tickDeployed: (tick) => stack.queries.drc20Tick(tick.toLowerCase())?.tick ?? null,
    });
    custodyWallet = new HotWallet({
      db: openWalletDatabase(path.join(stack.dir, "custody-wallet.sqlite")),
      key: custody,
      chain: indexNodeChain(stack.queries, stack.client),
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: STACK_FEE_RATE,
    });
    settlement = new SettlementWorker({
      db: ammDb,
      wallet: custodyWallet,
      queries: stack.queries,
      network: NETWORKS.regtest,
      inscriberProject: "launchpad",
      inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
    });
    // The bonding routes, as the daemon mounts them (no share cap: one buyer takes what it likes).
    store = new BondingStore({
      db: ammDb,
      ledger,
      deposits,
      queries: stack.queries,
      maxReservationShareBps: 10_000,
    });
    apiKey = store.issueApiKey("costs operator").key;
    ({ server, base } = await listenLocal(
      createAmmApp({
        ledger,
        network: NETWORKS.regtest,
        rateLimit: 0,
        mount: (app) => mountBonding(app, { store, ledger, network: NETWORKS.regtest }),
      }),
    ));

    // The pool, seeded from what the custody holds: 1,000 DOGE and 1,000,000 COST minted to it.
    await deployTick(stack.devnet, deployer, TICK, 21_000_000n, 1_000_000n);
    await stack.mine();
    await mintTick(stack.devnet, custody, TICK, 1_000_000n);
    await mintTick(stack.devnet, trader, TICK, 1_000_000n);
    for (let i = 0; i < 3; i++) await faucetCoin(stack.devnet, custody, 500);
    await stack.mine();
    ledger.seedPool({
      tick: TICK,
      doge: 1_000n * DOGE,
      token: 1_000_000n,
      provider: custody.address,
      refId: "cost-seed",
      holdings: { doge: confirmed(custody.address), token: 1_000_000n },
    });
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  it("takes a DRC-20 payout's cost on top of the deposit and a DOGE payout's from the payout, and the operator's wallets spend no more than that", async () => {
    const { dogeKoinu, drc20Koinu } = DEFAULT_PAYOUT_COSTS;
    // DOGE -> COST: the deposit is the trade plus the DRC-20 payout's cost.
    const buyQuote = (
      await call("POST", "/swap/quote", {
        tick: TICK,
        direction: "DOGE_TO_TOKEN",
        amountIn: (10n * DOGE).toString(),
        slippageBps: 100,
      })
    ).body;
    expect(buyQuote).to.include({
      payoutCost: drc20Koinu.toString(),
      depositAmount: (10n * DOGE + drc20Koinu).toString(),
    });
    const buy = (await call("POST", "/swap/create", { quoteId: buyQuote.quoteId, address: trader.address })).body;
    expect(buy).to.include({ depositAmount: (10n * DOGE + drc20Koinu).toString(), payoutCost: drc20Koinu.toString() });
    const coin = await faucetCoin(stack.devnet, trader, 20);
    await stack.mine();
    // A deposit of only the trade's amount is short by the cost: refunded, less the refund's own cost.
    const shortSwap = (
      await call("POST", "/swap/create", {
        quoteId: (
          await call("POST", "/swap/quote", {
            tick: TICK,
            direction: "DOGE_TO_TOKEN",
            amountIn: (2n * DOGE).toString(),
          })
        ).body.quoteId,
        address: trader.address,
      })
    ).body;
    const paid = await pay(stack.devnet, trader, [coin], [{ script: custody.script, value: 10n * DOGE + drc20Koinu }]);
    const short = await pay(stack.devnet, trader, [paid.change!], [{ script: custody.script, value: 2n * DOGE }]);
    await stack.mine();
    const bought = await execute(trader, buy.swapId, paid.txid);
    expect([bought.status, bought.body.status], show(bought)).to.deep.equal([200, "executed"]);
    expect(bought.body.amountOut).to.equal(buyQuote.amountOut);
    expect(bought.body.payout).to.include({
      asset: "DRC20",
      amount: buyQuote.amountOut,
      costKoinu: drc20Koinu.toString(),
    });
    const refused = await execute(trader, shortSwap.swapId, short.txid);
    expect([refused.status, refused.body.error.code], show(refused)).to.deep.equal([422, "DEPOSIT_TOO_SMALL"]);
    expect(refused.body.error.details.refund_amount).to.equal((2n * DOGE - dogeKoinu).toString());

    // COST -> DOGE: the payout is the trade's output less the DOGE payout's cost.
    const inscribed = await inscribeTransfer(stack.devnet, trader, TICK, 50_000n);
    await stack.mine();
    const tokenTxid = await sendTransfer(stack.devnet, trader, inscribed, custody.script);
    const sellQuote = (
      await call("POST", "/swap/quote", { tick: TICK, direction: "TOKEN_TO_DOGE", amountIn: "50000", slippageBps: 100 })
    ).body;
    expect(sellQuote).to.include({
      payoutCost: dogeKoinu.toString(),
      payoutAmount: (BigInt(sellQuote.amountOut) - dogeKoinu).toString(),
    });
    const sell = (await call("POST", "/swap/create", { quoteId: sellQuote.quoteId, address: trader.address })).body;
    await stack.mine();
    const sold = await execute(trader, sell.swapId, tokenTxid);
    expect([sold.status, sold.body.status], show(sold)).to.deep.equal([200, "executed"]);
    expect(sold.body.payout).to.include({
      asset: "DOGE",
      amount: (BigInt(sold.body.amountOut) - dogeKoinu).toString(),
      costKoinu: dogeKoinu.toString(),
    });

    // Settle every payout; what the custody and the inscriber spent on them is what the orders paid at most.
    await custodyWallet.sync();
    const payouts = ammDb.prepare("SELECT asset, amount, cost_koinu FROM payouts").all() as {
      asset: string;
      amount: string;
      cost_koinu: string;
    }[];
    expect(payouts.map((p) => p.asset).sort()).to.deep.equal(["DOGE", "DOGE", "DRC20"]);
    const dogePaidOut = payouts.filter((p) => p.asset === "DOGE").reduce((sum, p) => sum + BigInt(p.amount), 0n);
    const charged = payouts.reduce((sum, p) => sum + BigInt(p.cost_koinu), 0n);
    const before = { custody: confirmed(custody.address), inscriber: confirmed(inscriberAddress) };
    await until(
      "every payout confirmed",
      async () => {
        await settlement.runOnce();
        await stack.mine();
        await stack.platform.checkConfirmations();
        const failed = ammDb.prepare("SELECT id, error FROM payouts WHERE status = 'failed'").all();
        if (failed.length > 0) throw new Error(`payouts failed: ${JSON.stringify(failed)}`);
        return (
          (ammDb.prepare("SELECT COUNT(*) AS n FROM payouts WHERE status <> 'confirmed'").get() as { n: number }).n ===
          0
        );
      },
      240_000,
    );
    const custodySpent = before.custody - confirmed(custody.address) - dogePaidOut;
    const inscriberSpent = before.inscriber - confirmed(inscriberAddress);
    if (process.env.AMM_COSTS_PRINT)
      process.stdout.write(
        `      custody spent ${custodySpent}, inscriber spent ${inscriberSpent}, orders paid ${charged} koinu\n`,
      );
    expect(
      custodySpent > 0n && inscriberSpent > 0n,
      `custody spent ${custodySpent}, inscriber ${inscriberSpent}`,
    ).to.equal(true);
    expect(
      custodySpent + inscriberSpent <= charged,
      `the operator spent ${custodySpent} + ${inscriberSpent} koinu; the orders paid ${charged}`,
    ).to.equal(true);
  });

  describe("on a bonding curve", () => {
    let nonceCounter = 0;
    /** `key` reserves on the curve, signing the reservation. */
    const reserve = async (key: TestKey, side: "BUY" | "SELL", amountIn: bigint): Promise<Answer> => {
      const order = { side, address: key.address, amountIn: amountIn.toString() };
      const auth = {
        nonce: `costs-${process.pid}-${++nonceCounter}`,
        expiresAt: String(Math.floor(Date.now() / 1000) + 300),
      };
      const { message } = (
        await call(
          "GET",
          `/auth/message?${new URLSearchParams({ action: "bonding-reserve", symbol: CURVE, ...order, ...auth })}`,
        )
      ).body;
      return call("POST", `/bonding/${CURVE}/reserve`, {
        ...order,
        nonce: auth.nonce,
        expiresAt: Number(auth.expiresAt),
        signature: signMessage(message, key.privateKey),
      });
    };
    /** `key` confirms its reservation with `depositTxid`, signing the bonding-confirm order. */
    const confirm = async (key: TestKey, reservationId: string, depositTxid: string): Promise<Answer> => {
      const { message } = (
        await call(
          "GET",
          `/auth/message?${new URLSearchParams({ action: "bonding-confirm", reservationId, depositTxid })}`,
        )
      ).body;
      return call("POST", "/bonding/confirm", {
        reservationId,
        depositTxid,
        signature: signMessage(message, key.privateKey),
      });
    };
    /**
     * Settles every queued payout of `refIds` (the custody pays DOGE, the inscriber inscribes DRC-20
     * transfers) and answers what the operator's wallets spent on them beyond the DOGE paid out, and
     * what their orders paid toward it.
     */
    const settle = async (refIds: string[]): Promise<{ spent: bigint; charged: bigint; detail: string }> => {
      await stack.mine();
      await custodyWallet.sync();
      const marks = refIds.map(() => "?").join(", ");
      const payouts = ammDb
        .prepare(`SELECT id, asset, amount, cost_koinu FROM payouts WHERE ref_id IN (${marks})`)
        .all(...refIds) as { id: string; asset: string; amount: string; cost_koinu: string }[];
      const dogePaidOut = payouts.filter((p) => p.asset === "DOGE").reduce((sum, p) => sum + BigInt(p.amount), 0n);
      const charged = payouts.reduce((sum, p) => sum + BigInt(p.cost_koinu), 0n);
      const before = { custody: confirmed(custody.address), inscriber: confirmed(inscriberAddress) };
      await until(
        `the payouts of ${refIds.join(", ")} confirmed`,
        async () => {
          await settlement.runOnce();
          await stack.mine();
          await stack.platform.checkConfirmations();
          const open = payouts.map((p) => settlement.payout(p.id)!);
          const failed = open.filter((p) => p.status === "failed");
          if (failed.length > 0)
            throw new Error(`payouts failed: ${JSON.stringify(failed.map((p) => [p.id, p.error]))}`);
          return open.every((p) => p.status === "confirmed");
        },
        240_000,
      );
      const custodySpent = before.custody - confirmed(custody.address) - dogePaidOut;
      const inscriberSpent = before.inscriber - confirmed(inscriberAddress);
      return {
        spent: custodySpent + inscriberSpent,
        charged,
        detail: `custody spent ${custodySpent}, inscriber spent ${inscriberSpent}, orders paid ${charged} koinu`,
      };
    };

    it("a BUY's deposit is amountIn + the DRC-20 payout's cost (recorded on its payout), a SELL's DOGE payout is paid less its cost, and the operator spends no more than that", async () => {
      const { dogeKoinu, drc20Koinu } = DEFAULT_PAYOUT_COSTS;
      // The operator launches the curve: its launcher deploys and mints the tick and deposits the supply.
      await launchCurve(
        { stack, base, apiKey, custodyScript: custody.script, confirmations: 1, runOnce: () => store.runOnce() },
        CURVE,
        CURVE_PARAMS,
      );

      // BUY: the quote names the cost; the signed reservation asks for the trade plus it.
      const buyer = newKey();
      const amountIn = 10n * DOGE;
      const quoted = (
        await call("POST", "/bonding/quote", { symbol: CURVE, side: "BUY", amountIn: amountIn.toString() })
      ).body;
      expect(quoted, JSON.stringify(quoted)).to.include({
        amountIn: amountIn.toString(),
        payoutCost: drc20Koinu.toString(),
      });
      const buy = await reserve(buyer, "BUY", amountIn);
      expect(buy.status, show(buy)).to.equal(201);
      expect(buy.body).to.include({
        depositAmount: (amountIn + drc20Koinu).toString(),
        payoutCost: drc20Koinu.toString(),
        depositAsset: "DOGE",
        reservedAmount: quoted.amountOut,
      });
      // A second BUY paid with only its amountIn (a wallet that ignores the cost): short, refunded less the refund's own cost.
      const shortIn = 2n * DOGE;
      const shortBuy = await reserve(buyer, "BUY", shortIn);
      expect(shortBuy.status, show(shortBuy)).to.equal(201);
      expect(shortBuy.body.depositAmount).to.equal((shortIn + drc20Koinu).toString());
      const coin = await faucetCoin(stack.devnet, buyer, 20);
      await stack.mine();
      const paid = await pay(stack.devnet, buyer, [coin], [{ script: custody.script, value: amountIn + drc20Koinu }]);
      const short = await pay(stack.devnet, buyer, [paid.change!], [{ script: custody.script, value: shortIn }]);
      await stack.mine();
      const bought = await confirm(buyer, buy.body.reservationId, paid.txid);
      expect([bought.status, bought.body.status], show(bought)).to.deep.equal([200, "confirmed"]);
      expect(bought.body).to.include({
        amountOut: quoted.amountOut,
        depositReceived: (amountIn + drc20Koinu).toString(),
      });
      expect(bought.body.payout).to.include({
        asset: "DRC20",
        tick: CURVE,
        address: buyer.address,
        amount: quoted.amountOut,
        reason: "bonding_buy",
      });
      expect(
        ammDb.prepare("SELECT asset, amount, cost_koinu FROM payouts WHERE ref_id = ?").all(buy.body.reservationId),
        "the BUY's payouts",
      ).to.deep.equal([{ asset: "DRC20", amount: quoted.amountOut, cost_koinu: drc20Koinu.toString() }]);
      expect(
        ammDb.prepare("SELECT payout_cost FROM bonding_reservations WHERE id = ?").get(buy.body.reservationId),
      ).to.deep.equal({ payout_cost: drc20Koinu.toString() });
      expect(bought.body.refund, "nothing to refund: the cost is not an excess").to.equal(null);
      // The curve took the trade only (its DOGE: the amount in less the curve's fee), not the cost.
      expect(bought.body.curve.realDoge).to.equal((amountIn - BigInt(quoted.fee)).toString());
      const refused = await confirm(buyer, shortBuy.body.reservationId, short.txid);
      expect([refused.status, refused.body.error?.code], show(refused)).to.deep.equal([422, "DEPOSIT_TOO_SMALL"]);
      expect(refused.body.error.details.refund_amount).to.equal((shortIn - dogeKoinu).toString());
      expect(
        ammDb
          .prepare("SELECT asset, amount, cost_koinu FROM payouts WHERE ref_id = ?")
          .all(shortBuy.body.reservationId),
      ).to.deep.equal([{ asset: "DOGE", amount: (shortIn - dogeKoinu).toString(), cost_koinu: dogeKoinu.toString() }]);

      // The buyer's tokens and the short refund reach the buyer; the operator spent at most what the orders paid.
      const buySettled = await settle([buy.body.reservationId, shortBuy.body.reservationId]);
      if (process.env.AMM_COSTS_PRINT) process.stdout.write(`      bonding BUY: ${buySettled.detail}\n`);
      expect(buySettled.charged).to.equal(drc20Koinu + dogeKoinu);
      expect(buySettled.spent > 0n && buySettled.spent <= buySettled.charged, buySettled.detail).to.equal(true);
      expect(stack.queries.drc20Balances(buyer.address)).to.deep.include({
        tick: CURVE,
        available: quoted.amountOut,
        transferable: "0",
      });

      // SELL: half the tokens back; the reservation asks exactly the tokens, the DOGE payout is the curve's output less its cost.
      const tokens = BigInt(quoted.amountOut) / 2n;
      const sellQuote = (
        await call("POST", "/bonding/quote", { symbol: CURVE, side: "SELL", amountIn: tokens.toString() })
      ).body;
      expect(sellQuote, JSON.stringify(sellQuote)).to.include({ payoutCost: dogeKoinu.toString() });
      const sell = await reserve(buyer, "SELL", tokens);
      expect(sell.status, show(sell)).to.equal(201);
      expect(sell.body).to.include({
        depositAmount: tokens.toString(),
        payoutCost: "0",
        depositAsset: CURVE,
        reservedAmount: sellQuote.amountOut,
      });
      const inscribed = await inscribeTransfer(stack.devnet, buyer, CURVE, tokens);
      await stack.mine();
      const tokenTxid = await sendTransfer(stack.devnet, buyer, inscribed, custody.script);
      await stack.mine();
      const sold = await confirm(buyer, sell.body.reservationId, tokenTxid);
      expect([sold.status, sold.body.status], show(sold)).to.deep.equal([200, "confirmed"]);
      expect(sold.body.amountOut).to.equal(sellQuote.amountOut);
      expect(sold.body.payout).to.include({
        asset: "DOGE",
        address: buyer.address,
        amount: (BigInt(sellQuote.amountOut) - dogeKoinu).toString(),
        reason: "bonding_sell",
      });
      expect(
        ammDb.prepare("SELECT asset, amount, cost_koinu FROM payouts WHERE ref_id = ?").all(sell.body.reservationId),
        "the SELL's payouts",
      ).to.deep.equal([
        {
          asset: "DOGE",
          amount: (BigInt(sellQuote.amountOut) - dogeKoinu).toString(),
          cost_koinu: dogeKoinu.toString(),
        },
      ]);
      expect(sold.body.refund).to.equal(null);
      const sellSettled = await settle([sell.body.reservationId]);
      if (process.env.AMM_COSTS_PRINT) process.stdout.write(`      bonding SELL: ${sellSettled.detail}\n`);
      expect(sellSettled.charged).to.equal(dogeKoinu);
      expect(sellSettled.spent > 0n && sellSettled.spent <= sellSettled.charged, sellSettled.detail).to.equal(true);

      // docs/api.md: "every payout answers costKoinu", the reservations' payouts too.
      expect(bought.body.payout, "the bonding BUY's payout as answered").to.include({
        costKoinu: drc20Koinu.toString(),
      });
      expect(refused.body.error.details, "the short BUY's refund").to.include({
        refund_amount: (shortIn - dogeKoinu).toString(),
      });
      expect(sold.body.payout, "the bonding SELL's payout as answered").to.include({ costKoinu: dogeKoinu.toString() });
    });
  });
});
