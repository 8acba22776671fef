/**
 * Token deposits from the AMM's pages in headless Debian Chromium (playwright-core), on the devnet
 * with the real index, mempool view, explorer and settlement worker: a person sells a pool's token
 * for DOGE on the swap page with the MyDoge stand-in and with the UniSat stand-in — the quote in
 * the token -> DOGE direction, the order, the tokens sent through the wallet's own DRC-20 step
 * (window.wallet.sendDrc20: a transfer inscription committed, revealed and sent for real by the
 * stand-in's key), the signed execute naming that txid, and the order followed until its DOGE payout
 * is confirmed (the index is the judge); the same sell with DogeLabs and with WalletConnect, which
 * only sign PSBTs: the page inscribes the transfer with an ephemeral reveal key onto the person's
 * address, the wallet signs the commit and the send (web/src/wallets/psbt-drc20.ts); a DogeLabs
 * build without signPsbt gets the provider's "cannot" message naming it and the step; and a liquidity add on the
 * liquidity page whose token deposit the development wallet inscribes and sends itself, the txid
 * filling itself in. The changed pages are checked with axe and saved at desktop and phone width
 * under test-artifacts/browser/.
 */
import { expect } from "chai";
import { Page } from "playwright-core";
import { NETWORKS, encodeWif } from "../../src/doge";
import type { AmmLedger } from "../../src/services/amm";
import { walletProviderScript } from "../../src/services/pages/wallet-provider";
import { checkPage, saveScreenshots } from "../helpers/a11y";
import { AmmBrowserStack } from "../helpers/amm-browser-stack";
import { mintTick } from "../helpers/drc20";
import { KOINU_PER_DOGE } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import type { LaunchpadStack } from "../helpers/launchpad-stack";
import { inscribeDrc20Transfer } from "../../web/src/wallets/drc20-transfer";
import { StandinKind } from "./standins";

const TICK = "WEBT";
/** Tokens each seller and the liquidity provider mint before the pages are opened. */
const MINTED = 100_000n;
const SOLD = 5_000n;

describe("AMM token deposits through the wallet in Chromium", function () {
  this.timeout(300_000);
  const custody = newKey();
  const people = new Map<StandinKind | "dev", TestKey>(
    (["mydoge", "unisat", "dogelabs", "walletconnect", "dev"] as const).map((kind): [StandinKind | "dev", TestKey] => [
      kind,
      newKey(),
    ]),
  );
  const env = new AmmBrowserStack({ custody, mempool: true });
  const errors = env.errors;
  let stack: LaunchpadStack;
  let ledger: AmmLedger;
  let base = "";
  let devBase = "";
  let explorerUrl = "";
  let outside: string[] = [];

  /** A phone-sized page, with `kind`'s stand-in injected when given. */
  async function phonePage(kind?: StandinKind, omit: string[] = []): Promise<Page> {
    const opened = await env.phonePage(kind && { kind, key: people.get(kind)!, omit });
    outside = opened.outside;
    return opened.page;
  }

  const tokenBalance = (address: string) =>
    BigInt(stack.queries.drc20Balances(address).find((b) => b.tick.toUpperCase() === TICK)?.available ?? "0");

  before(async () => {
    await env.start();
    ({ stack, ledger, explorerUrl } = env);
    base = await env.serveAmm();
    // The same AMM with the development wallet in its pages (a devnet daemon given a development key).
    devBase = await env.serveAmm(
      await walletProviderScript({
        network: NETWORKS.regtest,
        explorerUrl,
        devWalletWif: encodeWif(people.get("dev")!.privateKey, NETWORKS.regtest),
      }),
    );

    // The custody pays the DOGE payouts' fees; each person has DOGE for the inscriptions' fees.
    await env.fund([custody, ...people.values()]);
    await env.seedPool(base, {
      deployer: newKey(),
      provider: newKey(),
      tick: TICK,
      doge: 200n * KOINU_PER_DOGE,
      tokens: 200_000n,
    });
    for (const key of people.values()) await mintTick(stack.devnet, key, TICK, MINTED);
    await stack.mine();
    await env.wallet.sync();
    for (const key of people.values()) expect(tokenBalance(key.address)).to.equal(MINTED);
    env.startDriver();
  });

  after(() => env.stop());

  /** The swap page in the token -> DOGE direction with `amount` typed, quoted, and the wallet connected. */
  async function sellPage(kind: StandinKind, name: string, amount: string, omit: string[] = []): Promise<Page> {
    const page = await phonePage(kind, omit);
    await page.goto(`${base}/`);
    await page.locator(`#pools tr[data-tick="${TICK}"]`).waitFor();
    await page.click('.presets button[data-direction="TOKEN_TO_DOGE"]');
    expect(await page.locator("#amount-label").innerText()).to.equal(`You sell (${TICK}, whole tokens)`);
    await page.fill("#amount", amount);
    await page.waitForFunction(() => / DOGE$/.test(document.getElementById("q-out")!.textContent!));
    expect(await page.locator("#q-deposit").innerText()).to.contain(
      `${Number(amount).toLocaleString("en-US")} ${TICK}`,
    );
    await page.click('.presets button[data-bps="300"]');
    await page.waitForFunction(() => document.getElementById("q-min")!.textContent!.includes("3%"));
    await page.click("#connect");
    await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.includes(":"));
    expect(await page.locator("#wallet").innerText()).to.equal(`${name}: ${people.get(kind)!.address}`);
    await page.waitForFunction(() => document.getElementById("holding")!.textContent!.includes("You hold"));
    return page;
  }

  /** The swap page after a settled swap: no quote shown, none to swap with, and the page says how to get the next. */
  async function expectQuoteCleared(page: Page): Promise<void> {
    for (const id of ["q-out", "q-min", "q-fee", "q-impact", "q-deposit"])
      expect(await page.locator(`#${id}`).innerText(), id).to.equal("–");
    expect(await page.locator("#quote-message").innerText()).to.equal(
      "Swap done. Change the amount, or type it again, for the next trade's quote.",
    );
    expect(await page.locator("#swap").isDisabled()).to.equal(true);
  }

  /** Waits until message `id` is an error, or a success beginning with `done`. */
  const finished = (page: Page, id: string, done: string) =>
    page.waitForFunction(
      ([messageId, prefix]) => {
        const message = document.getElementById(messageId)!;
        return (
          message.className.includes("error") ||
          (message.className.includes("ok") && message.textContent!.startsWith(prefix))
        );
      },
      [id, done],
      { timeout: 120_000 },
    );

  for (const { kind, name } of [
    { kind: "mydoge" as const, name: "MyDoge" },
    { kind: "unisat" as const, name: "UniSat" },
    { kind: "dogelabs" as const, name: "DogeLabs" },
    { kind: "walletconnect" as const, name: "WalletConnect" },
  ]) {
    const how =
      kind === "dogelabs" || kind === "walletconnect"
        ? "the page inscribes the transfer with an ephemeral key, the wallet signs the commit and the send"
        : "the wallet inscribes and sends the transfer";
    it(`sells ${TICK} for DOGE on the swap page with ${name}: ${how}, the order settles`, async () => {
      const key = people.get(kind)!;
      const page = await sellPage(kind, name, SOLD.toString());
      if (kind === "mydoge") await checkPage(page, "amm-swap-sell");
      await page.click("#swap");
      await finished(page, "swap-message", "Swapped: ");
      const said = await page.locator("#swap-message").innerText();
      expect(said, said).to.match(/^Swapped: [\d.]+ DOGE paid to /);
      expect(said).to.contain(key.address);
      // The quote goes with the settlement: no "You get" at the new reserves above "Swapped: …".
      await expectQuoteCleared(page);

      // The index is the judge: the transfer left the seller, the swap names its deposit, its DOGE payout is confirmed.
      expect(tokenBalance(key.address)).to.equal(MINTED - SOLD);
      const swapId = await page.locator("#o-id").innerText();
      const swap = ledger.swap(swapId)!;
      expect(swap.direction).to.equal("TOKEN_TO_DOGE");
      expect(swap.depositTxid).to.equal(await page.locator("#o-deposit").innerText());
      const receipts = stack.queries.drc20Receipts(swap.depositTxid!, custody.address);
      expect(receipts.map((r) => [r.sender, r.tick.toUpperCase(), r.amount])).to.deep.equal([
        [key.address, TICK, SOLD.toString()],
      ]);
      const payout = ledger.payout(swap.payoutId!)!;
      expect(payout.status).to.equal("confirmed");
      expect(await page.locator("#o-payout").innerText()).to.contain("confirmed on chain");
      // The ephemeral reveal key was dropped once the reveal was broadcast.
      expect(
        await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("dogeos.drc20-reveal."))),
      ).to.deep.equal([]);
      await saveScreenshots(page, `amm-swap-sold-${kind}`);
      // Still cleared once the page has reloaded the pools and the chart after the swap.
      const history = await (await fetch(`${base}/api/pools/${TICK}/DOGE/swaps`)).json();
      await page.waitForFunction(
        (count) => document.getElementById("chart")!.dataset.swaps === String(count),
        history.swaps.length,
      );
      await expectQuoteCleared(page);
      // Typing the amount again quotes the next trade.
      await page.fill("#amount", SOLD.toString());
      await page.waitForFunction(() => / DOGE$/.test(document.getElementById("q-out")!.textContent!));
      expect(await page.locator("#quote-message").innerText()).to.equal("");
      await page.waitForFunction(() => !(document.getElementById("swap") as HTMLButtonElement).disabled);
      await page.context().close();
      expect(errors).to.deep.equal([]);
      expect(outside, "requests outside this machine").to.deep.equal([]);
    });
  }

  it("says by name that a DogeLabs build without signPsbt cannot send the tokens, with what to do, and moves no token", async () => {
    const key = people.get("dogelabs")!;
    const held = tokenBalance(key.address);
    const page = await sellPage("dogelabs", "DogeLabs", "1000", ["signPsbt"]);
    await page.click("#swap");
    await finished(page, "swap-message", "Swapped: ");
    const said = await page.locator("#swap-message").innerText();
    expect(said, said).to.match(
      /^DogeLabs cannot send tokens here: it has no DRC-20 transfer step of its own \(no inscribeTransfer method, so it cannot inscribe the DRC-20 transfer\) and cannot sign the PSBTs the page would inscribe it with \(no signPsbt method\) \(WALLET_UNSUPPORTED\)\. What to do: choose another wallet for this step\.$/,
    );
    // What to do is said once (the provider's message ends with it too).
    expect(said.match(/another wallet/gi), said).to.have.length(1);
    expect(await page.locator("#swap-message").getAttribute("class")).to.contain("error");
    // Said before an order was opened: none waits to expire for nothing.
    expect(await page.locator("#order").isHidden()).to.equal(true);
    // The person can choose another wallet and try again.
    await page.waitForFunction(() => !(document.getElementById("swap") as HTMLButtonElement).disabled);
    expect(tokenBalance(key.address)).to.equal(held);
    await saveScreenshots(page, "amm-swap-sell-unsupported");
    await page.context().close();
    expect(errors).to.deep.equal([]);
  });

  it("sends a transfer a closed page left unsent (WalletConnect) instead of inscribing another, and the order settles", async () => {
    const key = people.get("walletconnect")!;
    const held = tokenBalance(key.address);
    // What a page closed after its reveal leaves: a transfer of 2,000 inscribed onto the person's address, never sent.
    const earlier = await inscribeDrc20Transfer(
      {
        network: NETWORKS.regtest,
        privateKey: key.privateKey,
        publicKey: key.publicKey,
        address: key.address,
        explorerUrl,
      },
      TICK,
      2_000n,
    );
    while (!stack.queries.tx(earlier.revealTxids[0])) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tokenBalance(key.address)).to.equal(held - 2_000n);
    const page = await sellPage("walletconnect", "WalletConnect", "2000");
    await page.click("#swap");
    await finished(page, "swap-message", "Swapped: ");
    const said = await page.locator("#swap-message").innerText();
    expect(said, said).to.match(/^Swapped: [\d.]+ DOGE paid to /);
    const swap = ledger.swap(await page.locator("#o-id").innerText())!;
    // The deposit spends the earlier reveal's output 0: no second transfer was inscribed.
    const reveal = stack.queries.tx(earlier.revealTxids[0])!;
    expect(reveal.outputs[0].spent?.txid).to.equal(swap.depositTxid);
    expect(
      stack.queries.drc20Receipts(swap.depositTxid!, custody.address).map((r) => [r.sender, r.amount]),
    ).to.deep.equal([[key.address, "2000"]]);
    expect(tokenBalance(key.address)).to.equal(held - 2_000n);
    expect(ledger.payout(swap.payoutId!)!.status).to.equal("confirmed");
    await page.context().close();
    expect(errors).to.deep.equal([]);
  });

  it("adds liquidity on the liquidity page with a token deposit the development wallet inscribes and sends itself", async () => {
    const key = people.get("dev")!;
    const page = await phonePage();
    await page.goto(`${devBase}/liquidity.html`);
    await page.click("#connect");
    await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.includes(":"));
    expect(await page.locator("#wallet").innerText()).to.equal(`Development wallet: ${key.address}`);
    await page.fill("#add-tick", TICK);
    await page.locator("#add-tick").dispatchEvent("change");
    await page.waitForFunction(() => document.getElementById("add-holding")!.textContent!.includes("You hold"));
    expect(await page.locator("#add-holding").innerText()).to.equal(`You hold 100,000 ${TICK} you can deposit.`);
    await checkPage(page, "amm-liquidity-drc20");

    await page.fill("#add-doge", "10");
    await page.click("#pay-doge");
    await finished(page, "add-message", "DOGE deposit sent: ");
    expect(await page.locator("#add-message").innerText()).to.match(/^DOGE deposit sent: [0-9a-f]{64}/);
    const dogeTxid = await page.locator("#add-doge-txid").inputValue();
    // The payment is mined before the transfer's commit is funded (both take the wallet's largest coin).
    while (!stack.queries.tx(dogeTxid)) await new Promise((resolve) => setTimeout(resolve, 100));

    await page.fill("#add-tokens", "10,000");
    await page.click("#send-tokens");
    await finished(page, "add-message", "Token deposit sent: ");
    const sent = await page.locator("#add-message").innerText();
    expect(sent, sent).to.match(/^Token deposit sent: [0-9a-f]{64}\. Now add liquidity\.$/);
    const tokenTxid = await page.locator("#add-token-txid").inputValue();
    expect(sent).to.contain(tokenTxid);

    await page.click("#add");
    await finished(page, "add-message", "Added: ");
    const added = await page.locator("#add-message").innerText();
    expect(added, added).to.match(new RegExp(`^Added: [\\d,]+ shares for [\\d.]+ DOGE and [\\d,]+ ${TICK}\\.$`));
    const receipts = stack.queries.drc20Receipts(tokenTxid, custody.address);
    expect(receipts.map((r) => [r.sender, r.amount])).to.deep.equal([[key.address, "10000"]]);
    await page.waitForFunction(() => document.querySelectorAll("#positions tbody tr").length === 1);
    await saveScreenshots(page, "amm-liquidity-added-drc20");
    await page.context().close();
    expect(errors).to.deep.equal([]);
    expect(outside, "requests outside this machine").to.deep.equal([]);
  });
});
