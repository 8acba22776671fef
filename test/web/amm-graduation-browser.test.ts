/**
 * A bonding curve filled to graduation through the AMM's bonding page (web/amm/bonding.js) in
 * headless Chromium, on the devnet with the real index, explorer, inscriber and settlement worker
 * (as test/web/amm-browser.test.ts builds them, with the daemon's default payout costs and its
 * development wallet in /wallet-provider.js, as `npm start` serves them):
 *
 * - while the curves load, when the service does not answer (with a retry), and with no curve, the
 *   page says so;
 * - a person with MyDoge (test/web/standins) asks for more than one address may reserve: the
 *   refusal says so and what to do, offering the largest buy allowed, which is paid and settled;
 *   the settled buy takes its quote with it (none asked again by the page) until the amount is
 *   typed again;
 * - a person with the development wallet types more than the rest of the curve costs: the page says
 *   the last tokens cost less and that this buy completes the curve; paid, the curve graduates into
 *   its pool and the page shows it, with a link to the swap page (the MyDoge page left open shows
 *   the graduation too);
 * - the link (/?tick=) leads to the swap page with the new pool picked, though another pool (WEBA)
 *   comes first, where it quotes and swaps until settled; picking another pool keeps the address in
 *   step; the swap and liquidity pages say when the service does not answer, with a retry;
 * - the bonding page lists the graduated curve (GET /api/bonding/curves); the curve's own address
 *   (?symbol=) shows it later; an unknown one says so.
 *
 * Every state is checked at phone width (390 px): no sideways scroll, and the charts' labels at
 * least 11 px on screen (test/web/chart-text.ts); axe and screenshots (test-artifacts/browser/) on
 * the main states.
 *
 * The curve is small so that two buys fill it: 800,000 of 1,000,000 tokens sold for 20 DOGE, and
 * one address may reserve half of what is left (BondingStore's maxReservationShareBps 5000; the
 * daemon's default is 10%, which would take some twenty buys), so the second buy is the curve's
 * last slice, which may be reserved whole.
 */
import { expect } from "chai";
import { Page } from "playwright-core";
import { NETWORKS, encodeWif } from "../../src/doge";
import { DEFAULT_PAYOUT_COSTS } from "../../src/services/amm";
import { devWalletScript } from "../../src/services/launchpad";
import { checkPage, saveScreenshots } from "../helpers/a11y";
import { AmmBrowserStack } from "../helpers/amm-browser-stack";
import { jsonRequest } from "../helpers/http";
import { KOINU_PER_DOGE } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import type { LaunchpadStack } from "../helpers/launchpad-stack";
import { until } from "../helpers/wait";
import { expectFitsWidth, expectReadableChart } from "./chart-text";
import { expectCellOnScreen } from "./on-screen";

const TICK = "WEBG";
const TERMS = {
  totalSupply: "1000000",
  sellableSupply: "800000",
  virtualDoge: (20n * KOINU_PER_DOGE).toString(),
  graduationThreshold: (20n * KOINU_PER_DOGE).toString(),
};
const SHARE_BPS = 5_000;
/** Another pool, listed before the graduated one (pools are listed by tick): ?tick= must pick WEBG over it. */
const OTHER_TICK = "WEBA";

/** Koinu as the pages write DOGE (web/amm/amm.js formatDoge). */
function doge(koinu: string | bigint): string {
  const value = BigInt(koinu);
  const fraction = (value % KOINU_PER_DOGE).toString().padStart(8, "0").replace(/0+$/, "");
  return `${value / KOINU_PER_DOGE}${fraction ? `.${fraction}` : ""}`;
}
const tokens = (units: string | bigint) => BigInt(units).toLocaleString("en-US");

describe("AMM bonding curve to graduation through the pages in Chromium", function () {
  this.timeout(240_000);
  const custody = newKey();
  const mydogePerson = newKey();
  const devPerson = newKey();
  const env = new AmmBrowserStack({
    custody,
    payoutCosts: DEFAULT_PAYOUT_COSTS,
    bonding: { maxReservationShareBps: SHARE_BPS },
  });
  const errors = env.errors;
  let stack: LaunchpadStack;
  let base = "";
  /** The requests each page made outside this machine (recordOutsideRequests). */
  const outside: string[][] = [];
  /** The MyDoge page, left open on the curve after its buy: it must see the graduation by itself. */
  let mydogePage: Page;
  /** The development wallet's page, which makes the last buy and then follows the link to the swap page. */
  let devPage: Page;

  /** A phone-sized page; with MyDoge's stand-in when `mydoge` is given (the development wallet is always offered). */
  async function newPage(mydoge?: TestKey): Promise<Page> {
    const opened = await env.phonePage(mydoge && { kind: "mydoge", key: mydoge });
    outside.push(opened.outside);
    return opened.page;
  }

  /** Waits until message `id` says ok or error (a final word); answers its class and text. */
  async function finalMessage(page: Page, id: string, timeout = 120_000): Promise<{ kind: string; text: string }> {
    await page.waitForFunction((element) => /\b(ok|error)\b/.test(document.getElementById(element)!.className), id, {
      timeout,
    });
    const locator = page.locator(`#${id}`);
    return { kind: (await locator.getAttribute("class")) ?? "", text: await locator.innerText() };
  }

  /** The bonding page after a settled buy: no quote shown, none to buy with, and the page says how to get the next. */
  async function expectQuoteCleared(page: Page): Promise<void> {
    for (const id of ["q-out", "q-fee", "q-deposit"])
      expect(await page.locator(`#${id}`).innerText(), id).to.equal("–");
    expect(await page.locator("#quote-message").innerText()).to.equal(
      "Buy done. Change the amount, or type it again, for the next trade's quote.",
    );
    expect(await page.locator("#buy").isDisabled()).to.equal(true);
  }

  /** The API calls `page` makes from now on ("POST /api/bonding/quote"), in the order it makes them. */
  function recordApiCalls(page: Page): string[] {
    const calls: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/")) calls.push(`${request.method()} ${url.pathname}`);
    });
    return calls;
  }

  const tokenBalance = (address: string) =>
    BigInt(stack.queries.drc20Balances(address).find((b) => b.tick.toUpperCase() === TICK)?.available ?? "0");

  before(async () => {
    await env.start();
    stack = env.stack;
    // What the daemon serves with --dev-wallet-key-file on the devnet: the provider offers the development wallet.
    base = await env.serveAmm(
      await devWalletScript(encodeWif(devPerson.privateKey, NETWORKS.regtest), NETWORKS.regtest, env.explorerUrl),
    );

    // The custody pays the payouts' postage and fees; each person has DOGE to buy with.
    const provider = newKey();
    await env.fund([custody, mydogePerson, devPerson, provider]);
    await env.seedPool(base, {
      deployer: newKey(),
      provider,
      tick: OTHER_TICK,
      doge: 50n * KOINU_PER_DOGE,
      tokens: 50_000n,
    });
    await env.wallet.sync();
  });

  after(() => env.stop());

  afterEach(() => {
    expect(errors, "page and loop errors").to.deep.equal([]);
    expect(outside.flat(), "requests outside this machine").to.deep.equal([]);
  });

  it("says so while the curves load, when the service does not answer (with a retry), and when no curve trades", async () => {
    const page = await newPage();
    // Loading: the page's first read is held until the loading state has been looked at.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const curvesRoute = (url: URL) => url.pathname === "/api/bonding/curves";
    await page.route(curvesRoute, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${base}/bonding.html`);
    await page.locator("#curves-loading").waitFor({ state: "visible" });
    expect(await page.locator("#curves-status").innerText()).to.equal("Loading the curves…");
    await expectFitsWidth(page, "the bonding page while it loads");
    await saveScreenshots(page, "amm-bonding-loading");
    release();
    await page.locator("#curves-empty").waitFor({ state: "visible" });
    await page.unroute(curvesRoute);

    // The service does not answer: the message says so, with a retry that works once it answers.
    await page.route(curvesRoute, (route) => route.abort("connectionrefused"));
    await page.reload();
    await page.locator("#retry").waitFor({ state: "visible" });
    expect(await page.locator("#curves-status").getAttribute("class")).to.contain("error");
    expect(await page.locator("#curves-status").innerText()).to.contain(
      "Could not load the curves: the service did not answer; check your connection and retry",
    );
    expect(await page.locator("#curves-loading").isHidden()).to.equal(true);
    await expectFitsWidth(page, "the bonding page when the service does not answer");
    await saveScreenshots(page, "amm-bonding-error");
    await page.unroute(curvesRoute);
    await page.click("#retry");

    // No curve yet: the empty state says when one appears and where graduated tokens trade.
    await page.locator("#curves-empty").waitFor({ state: "visible" });
    expect(await page.locator("#curves-empty").innerText()).to.contain("No curve is trading now.");
    expect(await page.locator("#curves-empty a").getAttribute("href")).to.equal("/");
    expect(await page.locator("#curve-panel").isHidden()).to.equal(true);
    expect(await page.locator("#retry-row").isHidden()).to.equal(true);
    await checkPage(page, "amm-bonding-empty");
    await expectFitsWidth(page, "the bonding page with no curve");
    await page.context().close();
  });

  it("refuses a MyDoge buy over the address's share with what to do, then pays and settles the largest buy allowed", async () => {
    await env.launchCurve(base, TICK, TERMS, "graduation browser test");
    // The daemon's loops start once the curve is launched (the launch mines and indexes by itself).
    env.startDriver();
    mydogePage = await newPage(mydogePerson);
    const page = mydogePage;
    await page.goto(`${base}/bonding.html`);
    // 10 DOGE (the amount the page starts with) buys more than half the curve.
    await page.waitForFunction((tick) => document.getElementById("q-out")!.textContent!.includes(tick), TICK);
    const asked = BigInt((await page.locator("#q-out").innerText()).replace(/[^\d]/g, ""));
    expect(asked > 400_000n, `10 DOGE buys ${asked}`).to.equal(true);
    expect(await page.locator("#c-raised").innerText()).to.equal("0 of 20 DOGE (0.00%)");
    // The chart at 390 px: drawn at the panel's width, its labels readable, its title and description kept.
    await expectReadableChart(page, "#chart", "the bonding page's chart");
    expect(await page.locator("#chart svg").getAttribute("role")).to.equal("img");
    expect(await page.locator("#chart svg title").textContent()).to.contain(`${TICK}: price in koinu per token`);
    expect(await page.locator("#chart svg desc").textContent()).to.contain("where it stands now");
    await expectFitsWidth(page, "the bonding page with a curve");

    // Two wallets in this browser (MyDoge and the development wallet): the person chooses MyDoge.
    await page.click("#connect");
    await page.click('dialog.wallet-chooser button[data-wallet="mydoge"]');
    await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.includes(":"));
    expect(await page.locator("#wallet").innerText()).to.equal(`MyDoge: ${mydogePerson.address}`);

    await page.click("#buy");
    const refused = await finalMessage(page, "buy-message");
    expect(refused.kind).to.contain("error");
    // The largest buy allowed: half of the curve's 800,000 tokens, priced by the service.
    const cap = (await jsonRequest(`${base}/api/bonding/quote`, "POST", {
      body: { symbol: TICK, side: "BUY", amountOut: "400000" },
    })) as { status: number; body: { amountIn: string } };
    expect(cap.status).to.equal(200);
    expect(refused.text)
      .to.contain("(RESERVATION_SHARE_EXCEEDED)")
      .and.contain(`What to do: one address may hold at most 400,000 ${TICK} of this curve in reservations now`)
      .and.contain(`buy at most 400,000 ${TICK}, for ${doge(cap.body.amountIn)} DOGE`);
    expect(await page.locator("#use-suggested").innerText()).to.equal(`Pay ${doge(cap.body.amountIn)} DOGE instead`);
    await expectFitsWidth(page, "the bonding page with a refusal");
    await saveScreenshots(page, "amm-bonding-share-refused");
    await page.click("#use-suggested");
    expect(await page.locator("#amount").inputValue()).to.equal(doge(cap.body.amountIn));
    await page.waitForFunction((tick) => document.getElementById("q-out")!.textContent === `400,000 ${tick}`, TICK);
    expect(await page.locator("#q-deposit").innerText()).to.equal(
      `${doge(BigInt(cap.body.amountIn) + DEFAULT_PAYOUT_COSTS.drc20Koinu)} DOGE`,
    );

    const calls = recordApiCalls(page);
    await page.click("#buy");
    await page.waitForFunction(() => document.getElementById("o-countdown")!.textContent!.includes(":"));
    const bought = await finalMessage(page, "buy-message");
    expect(bought.text, bought.text).to.equal(`Bought: 400,000 ${TICK} paid to ${mydogePerson.address}.`);
    // The quote goes with the settlement: no "You get" at the curve's new price above "Bought: …".
    await expectQuoteCleared(page);
    expect(tokenBalance(mydogePerson.address)).to.equal(400_000n);
    const curve = (await jsonRequest(`${base}/api/bonding/${TICK}`)).body;
    expect(curve.status).to.equal("active");
    await page.waitForFunction(
      (bps) => (document.getElementById("c-progress") as HTMLProgressElement).value === bps,
      curve.progressBps,
    );
    expect(curve.progressBps).to.be.above(3_000).and.below(5_000);
    // It stays cleared once the buy is over: after the confirm the page reads the curves (active and
    // graduated) as the buy ends, then every 10 s once it is over, and asks no quote meanwhile.
    const sinceConfirm = () => calls.slice(calls.lastIndexOf("POST /api/bonding/confirm") + 1);
    expect(calls).to.include("POST /api/bonding/confirm");
    await until(
      "the page's first read of the curves after the buy",
      () => sinceConfirm().filter((call) => call === "GET /api/bonding/curves").length > 2,
      30_000,
    );
    expect(sinceConfirm()).to.not.include("POST /api/bonding/quote");
    await expectQuoteCleared(page);
    await saveScreenshots(page, "amm-bonding-bought");

    // Typing the amount again quotes the next buy, at the curve's new price: the same DOGE buys fewer tokens.
    const next = (await jsonRequest(`${base}/api/bonding/quote`, "POST", {
      body: { symbol: TICK, side: "BUY", amountIn: cap.body.amountIn },
    })) as { status: number; body: { amountOut: string } };
    expect(next.status).to.equal(200);
    expect(BigInt(next.body.amountOut) < 400_000n, `then ${next.body.amountOut}`).to.equal(true);
    await page.fill("#amount", doge(cap.body.amountIn));
    await page.waitForFunction(
      (text) => document.getElementById("q-out")!.textContent === text,
      `${tokens(next.body.amountOut)} ${TICK}`,
    );
    expect(await page.locator("#quote-message").innerText()).to.equal("");
    await page.waitForFunction(() => !(document.getElementById("buy") as HTMLButtonElement).disabled);
  });

  it("the development wallet's last buy overshoots the curve: the page says it costs less and completes the curve; paid, the curve graduates into its pool", async () => {
    devPage = await newPage();
    const page = devPage;
    await page.goto(`${base}/bonding.html`);
    await page.waitForFunction((tick) => document.getElementById("q-out")!.textContent!.includes(tick), TICK);
    await page.fill("#amount", "20");
    await page.waitForFunction(() => document.getElementById("quote-message")!.textContent!.includes("Only"));
    // What the rest of the curve costs, by the service.
    const rest = (await jsonRequest(`${base}/api/bonding/quote`, "POST", {
      body: { symbol: TICK, side: "BUY", amountIn: (20n * KOINU_PER_DOGE).toString() },
    })) as { status: number; body: { amountIn: string; amountOut: string; refund: string; depositAmount: string } };
    expect(rest.status).to.equal(200);
    expect(rest.body.amountOut).to.equal("400000");
    expect(BigInt(rest.body.refund) > 0n).to.equal(true);
    expect(await page.locator("#quote-message").innerText()).to.equal(
      `Only 400,000 ${TICK} are left on the curve: this buy takes them all for ${doge(rest.body.amountIn)} DOGE, not the 20 DOGE you typed, so you deposit only ${doge(rest.body.depositAmount)} DOGE. ` +
        `This buy completes the curve: ${TICK} then graduates into a ${TICK}/DOGE pool and trades on the swap page.`,
    );
    expect(await page.locator("#q-deposit").innerText()).to.equal(`${doge(rest.body.depositAmount)} DOGE`);

    // Only the development wallet in this browser: no choice to make.
    await page.click("#connect");
    await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.includes(":"));
    expect(await page.locator("#wallet").innerText()).to.equal(`Development wallet: ${devPerson.address}`);
    await checkPage(page, "amm-bonding-last-buy");
    await expectFitsWidth(page, "the bonding page before the last buy");

    await page.click("#buy");
    const bought = await finalMessage(page, "buy-message");
    expect(bought.text, bought.text).to.equal(`Bought: 400,000 ${TICK} paid to ${devPerson.address}.`);
    expect(tokenBalance(devPerson.address)).to.equal(400_000n);

    // The curve graduated and its pool is open: the service's record, and the page's.
    const curve = (await jsonRequest(`${base}/api/bonding/${TICK}`)).body;
    expect(curve.status).to.equal("graduated");
    expect(curve.graduation.poolSeeded).to.equal(true);
    await page.locator("#graduation-panel").waitFor({ state: "visible" });
    expect(await page.locator("#graduation-title").innerText()).to.equal(`${TICK} graduated into its pool`);
    expect(await page.locator("#g-summary").innerText()).to.contain(
      `It handed ${doge(curve.graduation.poolDoge)} DOGE and ${tokens(curve.graduation.poolToken)} ${TICK} to the ${TICK}/DOGE pool`,
    );
    expect(await page.locator("#g-reserves").innerText()).to.equal(
      `${doge(curve.graduation.pool.dogeReserve)} DOGE and ${tokens(curve.graduation.pool.tokenReserve)} ${TICK}`,
    );
    expect(await page.locator("#g-swap").getAttribute("href")).to.equal(`/?tick=${TICK}`);
    expect(await page.locator("#g-swap").innerText()).to.equal(`Trade ${TICK} on the swap page`);
    expect(await page.locator("#c-status").innerText()).to.equal("graduated: it trades in its pool on the swap page");
    expect(await page.locator("#c-progress").evaluate((p) => (p as HTMLProgressElement).value)).to.equal(10_000);
    // No buy form on a graduated curve: it says why and where to go; the settled buy stays shown.
    expect(await page.locator("#buy-form").isHidden()).to.equal(true);
    expect(await page.locator("#buy-closed").innerText()).to.equal(
      `Your buy completed the curve. ${TICK} no longer sells on its curve: buy it in its pool on the swap page.`,
    );
    expect(await page.locator("#o-countdown").innerText()).to.equal("done");
    await expectReadableChart(page, "#chart", "the graduated curve's chart");
    await checkPage(page, "amm-bonding-graduated");
    await expectFitsWidth(page, "the bonding page after graduation");

    // The MyDoge page, open all along, sees the graduation when it next reads its curve.
    await mydogePage.locator("#graduation-panel").waitFor({ state: "visible", timeout: 30_000 });
    expect(await mydogePage.locator("#buy-form").isHidden()).to.equal(true);
    expect(await mydogePage.locator("#buy-closed").innerText()).to.equal(
      `${TICK} no longer sells on its curve: buy it in its pool on the swap page.`,
    );
    expect(await mydogePage.locator("#o-status").innerText()).to.equal("confirmed");
    await expectFitsWidth(mydogePage, "the MyDoge page after graduation");
    await mydogePage.context().close();
  });

  it("the link leads to the swap page with the new pool picked: listed, quoted, and swapped until settled", async () => {
    const page = devPage;
    await Promise.all([page.waitForURL(`${base}/?tick=${TICK}`), page.click("#g-swap")]);
    await page.locator(`#pools tr[data-tick="${TICK}"]`).waitFor();
    // ?tick= picks the graduated pool, though the other pool is listed first.
    expect(
      await page.locator("#pools tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-tick"))),
    ).to.deep.equal([OTHER_TICK, TICK]);
    expect(await page.locator("#pool").inputValue()).to.equal(TICK);
    await page.waitForFunction((tick) => document.getElementById("chart-tick")!.textContent === tick, TICK);
    expect(await page.locator("#pools-status").innerText()).to.equal("");
    const pool = (await jsonRequest(`${base}/api/bonding/${TICK}`)).body.graduation.pool;
    expect(await page.locator(`#pools tr[data-tick="${TICK}"] td`).nth(1).innerText()).to.equal(doge(pool.dogeReserve));
    expect(await page.locator(`#pools tr[data-tick="${TICK}"] td`).nth(2).innerText()).to.equal(
      tokens(pool.tokenReserve),
    );
    await page.fill("#amount", "1");
    await page.waitForFunction((tick) => document.getElementById("q-out")!.textContent!.includes(tick), TICK);
    await page.click("#connect");
    await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.includes(":"));
    await page.click("#swap");
    const swapped = await finalMessage(page, "swap-message");
    expect(swapped.text, swapped.text).to.match(
      new RegExp(`^Swapped: [\\d,]+ ${TICK} paid to ${devPerson.address}\\.$`),
    );
    // The quote goes with the settlement: no "You get" at the new reserves above "Swapped: …".
    expect(await page.locator("#q-out").innerText()).to.equal("–");
    expect(tokenBalance(devPerson.address) > 400_000n).to.equal(true);
    await page.waitForFunction(() => document.getElementById("chart")!.dataset.swaps === "1");
    await expectReadableChart(page, "#chart", "the swap page's chart");
    await expectFitsWidth(page, "the swap page with the graduated pool");
    await saveScreenshots(page, "amm-swap-graduated-pool");

    // The pools' caption sits outside the table's scrolling box: at 390 px it is read whole.
    const caption = await page.locator("#pools-caption").evaluate((element) => {
      const box = element.getBoundingClientRect();
      return {
        inScroller: element.closest(".table-wrap") !== null,
        left: box.left,
        right: box.right,
        width: window.innerWidth,
        clipped: element.scrollWidth > element.clientWidth,
      };
    });
    expect(caption.inScroller).to.equal(false);
    expect(caption.clipped).to.equal(false);
    expect(caption.left).to.be.at.least(0);
    expect(caption.right).to.be.at.most(caption.width);
    expect(await page.locator("#pools-caption").isVisible()).to.equal(true);
    // Every column of the pools is seen at 390 px without scrolling sideways: the first pool's
    // Price (its last column), the table's box scrolling nowhere.
    expect(page.viewportSize()!.width).to.equal(390);
    expect(await page.locator("#pools tbody tr").first().locator("td").nth(3).getAttribute("data-label")).to.equal(
      "Price",
    );
    await expectCellOnScreen(page, "#pools tbody tr:first-child td:nth-child(4)", "the first pool's price");

    // Picking another pool keeps the address in step: a reload opens the pool picked.
    await page.selectOption("#pool", OTHER_TICK);
    await page.waitForURL(`${base}/?tick=${OTHER_TICK}`);
    await page.reload();
    await page.locator(`#pools tr[data-tick="${OTHER_TICK}"]`).waitFor();
    expect(await page.locator("#pool").inputValue()).to.equal(OTHER_TICK);
    await page.waitForFunction((tick) => document.getElementById("chart-tick")!.textContent === tick, OTHER_TICK);
    // A tick with no pool: the page says so and shows the first pool, and the address follows it.
    await page.goto(`${base}/?tick=nope`);
    await page.locator(`#pools tr[data-tick="${OTHER_TICK}"]`).waitFor();
    expect(await page.locator("#pools-status").innerText()).to.equal(
      `There is no nope/DOGE pool; showing ${OTHER_TICK}/DOGE.`,
    );
    expect(await page.locator("#pool").inputValue()).to.equal(OTHER_TICK);
    expect(new URL(page.url()).search).to.equal(`?tick=${OTHER_TICK}`);

    // The service does not answer: the swap page says so, with a retry that works once it answers.
    const poolsRoute = (url: URL) => url.pathname === "/api/pools";
    await page.route(poolsRoute, (route) => route.abort("connectionrefused"));
    await page.goto(`${base}/?tick=${TICK}`);
    await page.locator("#retry").waitFor({ state: "visible" });
    expect(await page.locator("#pools-status").getAttribute("class")).to.contain("error");
    expect(await page.locator("#pools-status").innerText()).to.contain(
      "Could not load the pools: the service did not answer; check your connection and retry",
    );
    expect(await page.locator("#pools-caption").isHidden()).to.equal(true);
    await expectFitsWidth(page, "the swap page when the service does not answer");
    await checkPage(page, "amm-swap-error");
    await page.unroute(poolsRoute);
    await page.click("#retry");
    await page.locator(`#pools tr[data-tick="${TICK}"]`).waitFor();
    expect(await page.locator("#pool").inputValue()).to.equal(TICK);
    expect(await page.locator("#retry-row").isHidden()).to.equal(true);

    // The liquidity page at phone width, with the same wallet: when the service does not answer it
    // says so, with a retry that works once it answers.
    const positionsRoute = (url: URL) => url.pathname.startsWith("/api/liquidity/positions/");
    await page.route(positionsRoute, (route) => route.abort("connectionrefused"));
    await page.goto(`${base}/liquidity.html`);
    await page.click("#connect");
    await page.locator("#retry").waitFor({ state: "visible" });
    expect(await page.locator("#status").innerText()).to.contain(
      "Could not load your positions: the service did not answer; check your connection and retry",
    );
    await expectFitsWidth(page, "the liquidity page when the service does not answer");
    await checkPage(page, "amm-liquidity-error");
    await page.unroute(positionsRoute);
    await page.click("#retry");
    await page.locator("#positions-empty").waitFor({ state: "visible" });
    expect(await page.locator("#retry-row").isHidden()).to.equal(true);
    expect(await page.locator("#status").innerText()).to.equal("");
    await expectFitsWidth(page, "the liquidity page");
    await page.context().close();
  });

  it("the bonding page lists the graduated curve; its address shows it later; an unknown curve says so", async () => {
    const page = await newPage();
    // No curve is active: the page lists the graduated one (GET /api/bonding/curves?status=graduated).
    await page.goto(`${base}/bonding.html`);
    await page.locator("#graduation-panel").waitFor({ state: "visible" });
    expect(await page.locator("#curve option").allInnerTexts()).to.deep.equal([`${TICK} (graduated)`]);
    expect(await page.locator("#curves-empty").isHidden()).to.equal(true);

    await page.goto(`${base}/bonding.html?symbol=${TICK.toLowerCase()}`);
    await page.locator("#graduation-panel").waitFor({ state: "visible" });
    expect(await page.locator("#curve-title").innerText()).to.equal(`${TICK} on its bonding curve`);
    expect(await page.locator("#curve option").allInnerTexts()).to.deep.equal([`${TICK} (graduated)`]);
    expect(await page.locator("#buy-closed").innerText()).to.equal(
      `${TICK} no longer sells on its curve: buy it in its pool on the swap page.`,
    );
    await expectReadableChart(page, "#chart", "a graduated curve's chart");
    await expectFitsWidth(page, "a graduated curve's page");

    await page.goto(`${base}/bonding.html?symbol=NOPE`);
    await page.waitForFunction(() => document.getElementById("curves-status")!.textContent!.includes("NOPE"));
    expect(await page.locator("#curves-status").innerText()).to.equal(
      "There is no bonding curve for NOPE. The other curves are below.",
    );
    expect(await page.locator("#curve option").allInnerTexts()).to.deep.equal([`${TICK} (graduated)`]);
    expect(new URL(page.url()).search).to.equal("");
    await expectFitsWidth(page, "the page of an unknown curve");
    await page.context().close();
  });
});
