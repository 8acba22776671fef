/**
 * The AMM's pages (web/amm: swap, liquidity, bonding) in headless Debian Chromium driven by
 * playwright-core, on the devnet with the real index, explorer, inscriber and settlement worker:
 * for each wallet adapter's stand-in (MyDoge, DogeLabs, UniSat; test/web/standins) a person swaps
 * DOGE for a pool's token and buys on a bonding curve through the pages — the quote, the order, the
 * deposit PSBT built by the page and signed by the wallet, broadcast through the explorer, the
 * signed execute or reservation and confirm — until the tokens are paid out and confirmed on chain
 * (the index is the judge). A refusal shows the service's message and what to do. Every page is
 * checked with axe and saved at desktop and phone width under test-artifacts/browser/.
 */
import { expect } from "chai";
import { Page } from "playwright-core";
import { checkPage, expectNoSidewaysScroll, saveScreenshots } from "../helpers/a11y";
import { AmmBrowserStack } from "../helpers/amm-browser-stack";
import { formatDoge } from "../../src/devnet/rpc-json";
import { faucetCoin } from "../helpers/drc20";
import { KOINU_PER_DOGE, pay } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import type { LaunchpadStack } from "../helpers/launchpad-stack";
import { expectScriptWithinBudget, loadedScripts } from "./page-budget";
import { StandinKind } from "./standins";
import { expectFitsWidth, expectReadableChart } from "./chart-text";
import { expectCellOnScreen } from "./on-screen";

const POOL_TICK = "WEBS";
const CURVE_TICK = "WEBC";
const WALLETS: { kind: StandinKind; name: string }[] = [
  { kind: "mydoge", name: "MyDoge" },
  { kind: "dogelabs", name: "DogeLabs" },
  { kind: "unisat", name: "UniSat" },
];

describe("AMM pages in Chromium", function () {
  this.timeout(300_000);
  const custody = newKey();
  const people = new Map<StandinKind, TestKey>(
    [...WALLETS.map((w) => w.kind), "walletconnect" as const].map((kind) => [kind, newKey()]),
  );
  const env = new AmmBrowserStack({ custody, bonding: {} });
  const errors = env.errors;
  let stack: LaunchpadStack;
  let base = "";
  let outside: string[] = [];

  /** A page in a new context with `kind`'s stand-in injected. */
  async function personPage(kind: StandinKind, key: TestKey): Promise<Page> {
    const opened = await env.phonePage({ kind, key });
    outside = opened.outside;
    return opened.page;
  }

  before(async () => {
    await env.start();
    stack = env.stack;
    base = await env.serveAmm();

    // The custody pays the DRC-20 payouts' postage and fees (two coins); each person has DOGE to trade.
    await env.fund([custody, custody, ...people.values()]);
    await env.seedPool(base, {
      deployer: newKey(),
      // The UniSat person provides the pool's liquidity: the liquidity page shows its position and fees.
      provider: people.get("unisat")!,
      tick: POOL_TICK,
      doge: 200n * KOINU_PER_DOGE,
      tokens: 200_000n,
    });
    await env.launchCurve(
      base,
      CURVE_TICK,
      {
        totalSupply: "1000000",
        sellableSupply: "800000",
        virtualDoge: (1000n * KOINU_PER_DOGE).toString(),
        graduationThreshold: (500n * KOINU_PER_DOGE).toString(),
      },
      "browser test",
    );
    await env.wallet.sync();
    env.startDriver();
  });

  after(() => env.stop());

  const tokenBalance = (address: string, tick: string) =>
    BigInt(stack.queries.drc20Balances(address).find((b) => b.tick.toUpperCase() === tick)?.available ?? "0");

  /** A swap of 5 DOGE for the pool's token through the swap page with `kind`'s stand-in, until paid and confirmed. */
  async function swapThroughPage(kind: StandinKind, name: string): Promise<void> {
    const key = people.get(kind)!;
    const page = await personPage(kind, key);
    await page.goto(`${base}/`);
    await page.locator(`#pools tr[data-tick="${POOL_TICK}"]`).waitFor();
    await page.fill("#amount", "5");
    await page.waitForFunction(() => document.getElementById("q-out")!.textContent!.includes("WEBS"));
    await page.click('.presets button[data-bps="100"]');
    await page.waitForFunction(() => document.getElementById("q-min")!.textContent!.includes("1%"));
    await page.click("#connect");
    await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.includes(":"));
    expect(await page.locator("#wallet").innerText()).to.equal(`${name}: ${key.address}`);
    if (kind === "mydoge") {
      await checkPage(page, "amm-swap");
      await expectScriptWithinBudget(page, "the swap page");
    }
    await page.click("#swap");
    await page.waitForFunction(
      () => {
        const message = document.getElementById("swap-message")!;
        return message.className.includes("ok") || message.className.includes("error");
      },
      undefined,
      { timeout: 120_000 },
    );
    const said = await page.locator("#swap-message").innerText();
    expect(said, said).to.match(/^Swapped: [\d,]+ WEBS paid to /);
    // The quote goes with the settlement: no "You get" at the new reserves above "Swapped: …".
    expect(await page.locator("#q-out").innerText()).to.equal("–");
    expect(await page.locator("#quote-message").innerText()).to.contain("for the next trade's quote");
    expect(tokenBalance(key.address, POOL_TICK) > 0n).to.equal(true);
    // The chart redraws with the pool's swaps (every trader's), this one the newest, once the order is settled.
    const history = await (await fetch(`${base}/api/pools/${POOL_TICK}/DOGE/swaps`)).json();
    expect(history.swaps[0].address).to.equal(key.address);
    await page.waitForFunction(
      (count) =>
        document.querySelectorAll("#chart svg path").length === 1 &&
        document.getElementById("chart")!.dataset.swaps === String(count),
      history.swaps.length,
    );
    // At phone width the chart is drawn at the panel's width: its labels are as large as on a desktop.
    await expectReadableChart(page, "#chart", "the swap page's price chart");
    await expectFitsWidth(page, "the swap page after a swap");
    await expectScriptWithinBudget(page, "the swap page after paying");
    await saveScreenshots(page, `amm-swap-settled-${kind}`);
    await page.context().close();
    expect(errors).to.deep.equal([]);
    expect(outside, "requests outside this machine").to.deep.equal([]);
  }

  for (const { kind, name } of WALLETS) {
    it(`swaps DOGE for ${POOL_TICK} through the swap page with ${name}, until the tokens are paid and confirmed`, () =>
      swapThroughPage(kind, name));

    it(`buys ${CURVE_TICK} on its bonding curve through the bonding page with ${name}: reservation, deposit, confirm, payout`, async () => {
      const key = people.get(kind)!;
      const page = await personPage(kind, key);
      await page.goto(`${base}/bonding.html`);
      await page.waitForFunction(() => document.getElementById("q-out")!.textContent!.includes("WEBC"));
      await page.click("#connect");
      await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.includes(":"));
      if (kind === "mydoge") {
        await checkPage(page, "amm-bonding");
        await expectScriptWithinBudget(page, "the bonding page");
        // The PSBT code (/wallet-psbt.js) is loaded when the payment is built, not at first render.
        expect(await loadedScripts(page))
          .to.include("/wallet-provider.js")
          .and.not.include("/wallet-psbt.js");
      }
      await page.click("#buy");
      await page.waitForFunction(
        () =>
          document.getElementById("o-countdown")!.textContent!.includes(":") ||
          document.getElementById("buy-message")!.className.includes("error"),
      );
      expect(
        await page.locator("#buy-message").getAttribute("class"),
        await page.locator("#buy-message").innerText(),
      ).to.not.contain("error");
      await page.waitForFunction(
        () => {
          const message = document.getElementById("buy-message")!;
          return message.className.includes("ok") || message.className.includes("error");
        },
        undefined,
        { timeout: 120_000 },
      );
      const said = await page.locator("#buy-message").innerText();
      expect(said, said).to.match(/^Bought: [\d,]+ WEBC paid to /);
      expect(await loadedScripts(page)).to.include("/wallet-psbt.js");
      // Within the budget with the PSBT code loaded too (issue 29: 300 KB of script a page).
      await expectScriptWithinBudget(page, "the bonding page after paying");
      expect(tokenBalance(key.address, CURVE_TICK) > 0n).to.equal(true);
      await expectReadableChart(page, "#chart", "the bonding page's chart");
      await expectFitsWidth(page, "the bonding page after a buy");
      await saveScreenshots(page, `amm-bonding-bought-${kind}`);
      await page.context().close();
      expect(errors).to.deep.equal([]);
      expect(outside, "requests outside this machine").to.deep.equal([]);
    });
  }

  it("shows the provider's position and fees on the liquidity page, claims the fees and removes shares with signed authorizations", async () => {
    const provider = people.get("unisat")!;
    const page = await personPage("unisat", provider);
    await page.goto(`${base}/liquidity.html`);
    await page.click("#connect");
    await page.waitForFunction(() => document.querySelectorAll("#positions tbody tr").length === 1);
    expect(await page.locator("#positions tbody tr").innerText()).to.contain(`${POOL_TICK}/DOGE`);
    // At phone width every column of the position shows without scrolling sideways, its Fees (the last) too.
    await expectCellOnScreen(page, "#positions tbody tr:first-child td:nth-child(5)", "the position's fees");
    await checkPage(page, "amm-liquidity");
    await expectScriptWithinBudget(page, "the liquidity page");
    // Three swaps of 5 DOGE paid 1% each to the pool's providers.
    await page.waitForFunction(() => !(document.getElementById("claim") as HTMLButtonElement).disabled);
    await page.click("#claim");
    await page.waitForFunction(
      () =>
        document.getElementById("claim-message")!.className.includes("ok") ||
        document.getElementById("claim-message")!.className.includes("error"),
    );
    expect(await page.locator("#claim-message").innerText()).to.match(/^Claimed: 0\.1\d* DOGE: /);
    const shares = BigInt((await page.locator("#positions tbody tr td").nth(1).innerText()).replace(/,/g, ""));
    await page.fill("#remove-shares", "1000000");
    await page.click("#remove");
    await page.waitForFunction(
      () =>
        document.getElementById("remove-message")!.className.includes("ok") ||
        document.getElementById("remove-message")!.className.includes("error"),
    );
    expect(await page.locator("#remove-message").innerText()).to.match(/^Removed: [\d.]+ DOGE, [\d,]+ WEBS/);
    await page.waitForFunction(
      (left) => document.querySelector("#positions tbody tr td:nth-child(2)")?.textContent === left,
      (shares - 1_000_000n).toLocaleString("en-US"),
    );
    await expectNoSidewaysScroll(page, "the liquidity page after a claim and a removal");
    await saveScreenshots(page, "amm-liquidity-removed");
    await page.context().close();
    expect(errors).to.deep.equal([]);
    expect(outside, "requests outside this machine").to.deep.equal([]);
  });

  it(`swaps DOGE for ${POOL_TICK} through the swap page with WalletConnect (its Dogecoin RPC over window.walletConnectDoge)`, () =>
    swapThroughPage("walletconnect", "WalletConnect"));

  it("gives back a payment to the custody that served no order: asked on the swap page, signed by the wallet, paid on chain", async () => {
    const payer = newKey();
    const coin = await faucetCoin(stack.devnet, payer, 20);
    await stack.mine();
    // 7 DOGE straight to the custody: no order names it.
    const deposit = await pay(stack.devnet, payer, [coin], [{ script: custody.script, value: 7n * KOINU_PER_DOGE }]);
    // The driver mines and indexes it; the custody counts a deposit at one confirmation here.
    while (!stack.queries.hasTx(deposit.txid)) await new Promise((resolve) => setTimeout(resolve, 100));
    const page = await personPage("mydoge", payer);
    // The liquidity page links to the panel (a token deposit sent there may serve no order too).
    await page.goto(`${base}/liquidity.html`);
    await page.getByRole("link", { name: "Get the payment back on the swap page" }).click();
    await page.waitForURL(`${base}/#refund`);
    await page.locator(`#pools tr[data-tick="${POOL_TICK}"]`).waitFor();
    expect(await page.locator("#refund-txid").isVisible()).to.equal(true);
    const refundSays = async (kind: string): Promise<string> => {
      await page.waitForFunction((k) => document.getElementById("refund-message")!.className.includes(k), kind, {
        timeout: 120_000,
      });
      return page.locator("#refund-message").innerText();
    };

    // A mistyped id is refused on the page, before the wallet is asked anything.
    await page.fill("#refund-txid", deposit.txid.slice(1));
    await page.click("#refund-ask");
    expect(await refundSays("error")).to.contain("64 hexadecimal characters");
    expect(await page.locator("#wallet").innerText()).to.equal("");

    await page.fill("#refund-txid", deposit.txid);
    await page.click("#refund-ask");
    const said = await refundSays("ok");
    const match = /^Refund to (\S+): ([\d.]+) DOGE: confirmed on chain \(([0-9a-f]{64})\)\.$/.exec(said);
    expect(match, said).to.not.equal(null);
    expect(match![1]).to.equal(payer.address);
    // The wallet the panel connected is the page's: the header names it, and the swap form may use it.
    expect(await page.locator("#wallet").innerText()).to.equal(`MyDoge: ${payer.address}`);
    // On chain, the custody's payment back pays the payer what the page said: the 7 DOGE less the
    // service's cost of a DOGE payout (none in this stack's ledger).
    const back = stack.queries.tx(match![3])!.outputs.filter((o) => o.address === payer.address);
    // The page writes DOGE without trailing zeros (formatDoge in web/amm/amm.js).
    expect(back.map((o) => formatDoge(o.valueKoinu).replace(/\.?0+$/, ""))).to.deep.equal([match![2]]);
    expect(back[0].valueKoinu).to.equal(7n * KOINU_PER_DOGE - env.ledger.payoutCosts.dogeKoinu);
    await checkPage(page, "amm-swap-refund");
    await saveScreenshots(page, "amm-swap-refunded");

    // Asked again, the same payment is not paid twice, and the page says why.
    await page.click("#refund-ask");
    const again = await refundSays("error");
    expect(again).to.contain("DEPOSIT_ALREADY_USED").and.contain("What to do: nothing to give back");
    await page.context().close();
    expect(errors).to.deep.equal([]);
  });

  it("shows a refusal with the service's message and what to do", async () => {
    const page = await personPage("dogelabs", people.get("dogelabs")!);
    await page.goto(`${base}/`);
    await page.locator(`#pools tr[data-tick="${POOL_TICK}"]`).waitFor();
    await page.fill("#amount", "0.001");
    await page.waitForFunction(() => document.getElementById("quote-message")!.className.includes("error"));
    expect(await page.locator("#quote-message").innerText())
      .to.contain("AMOUNT_TOO_SMALL")
      .and.contain("What to do: trade at least 0.01 DOGE");
    expect(await page.locator("#swap").isDisabled()).to.equal(true);
    await saveScreenshots(page, "amm-swap-refused");
    await page.context().close();
  });
});
