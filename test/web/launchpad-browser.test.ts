/**
 * The launchpad's pages in headless Debian Chromium driven by playwright-core, on the devnet with
 * the real inscriber, the real explorer (payments are broadcast through it) and the development
 * wallet the launchpad injects as window.wallet: open the directory, open a collection, connect,
 * claim, pay, mint, see the counter go from X to X+1 without a reload, open the members-only page;
 * a second browser context without the session is refused; a collection whose deploy is not confirmed
 * yet shows it with minting disabled, then opens once the deploy is indexed; a paid mint the index
 * rejects shows the buyer the index's reason and what the creator owes; a failed deploy shows its
 * error and no mint button. A second buyer mints with the MyDoge stand-in (test/web/standins), chosen
 * in the provider's wallet chooser beside the development wallet; a mainnet MyDoge is told it is on
 * the wrong network, and a UniSat build without message signing is told it cannot sign in. A MyDoge
 * that never answers the payment request (as its page script does when a popup goes away without an
 * answer) gets the provider's "Stop waiting" notice, and the next try pays.
 * Screenshots are saved under test-artifacts/browser/ (one per step, at phone width and at desktop
 * width: `<step>-desktop.png`), and axe (test/helpers/a11y.ts) checks every page.
 */
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import type { Server } from "node:http";
import { Browser, BrowserContext, Page } from "playwright-core";
import { NETWORKS, encodeWif } from "../../src/doge";
import { encodeLaunchpadMint } from "../../src/inscription/launchpad";
import { createExplorerApp } from "../../src/services/explorer/app";
import { InscriberClient } from "../../src/services/inscriber/client";
import { devWalletScript } from "../../src/services/launchpad";
import { checkPage } from "../helpers/a11y";
import { KOINU_PER_DOGE } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { LAUNCHPAD_PROJECT_KEY, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { expectScriptWithinBudget, recordOutsideRequests } from "./page-budget";
import { StandinConfig, StandinKind, standinScript } from "./standins";
import { launchChromium } from "../helpers/chromium";
import { listenLocal } from "../helpers/listen";

const ARTIFACTS = path.resolve(__dirname, "..", "..", "test-artifacts", "browser");
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const PRICE = 2n * KOINU_PER_DOGE;
const PAID = "web-pups";
const TINY = "web-tiny";
const LATER = "web-later";
const BROKEN = "web-broken";

describe("launchpad pages in Chromium", function () {
  this.timeout(300_000);
  let stack: LaunchpadStack;
  let explorer: Server;
  let browser: Browser;
  let member: BrowserContext;
  let page: Page;
  let driver: NodeJS.Timeout | undefined;
  let driving = Promise.resolve();
  /** While true the chain driver does nothing: no block is mined, so no deploy is confirmed. */
  let holdChain = false;
  const creator = newKey(); // lists both collections (a listing is its creator's; the free one with the operator key)
  const holder = newKey(); // the development wallet's key: the person at the browser
  const myDogeHolder = newKey(); // a second buyer, with MyDoge
  const patientBuyer = newKey(); // a third, whose MyDoge leaves the first payment request unanswered
  let explorerUrl = "";

  /**
   * A phone-width context with the stand-ins of `wallets` injected, each over its key on its network
   * (regtest unless named), with the stand-in's knobs (`omit`, `unanswered`) as given.
   */
  async function walletContext(
    wallets: ({ kind: StandinKind; key: TestKey; network?: "regtest" | "mainnet" } & Pick<
      StandinConfig,
      "omit" | "unanswered"
    >)[],
  ): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: PHONE });
    const script = await standinScript(
      wallets.map(({ kind, key, network = "regtest", ...knobs }) => ({
        kind,
        config: { wif: encodeWif(key.privateKey, NETWORKS[network]), network, explorerUrl, ...knobs },
      })),
    );
    await context.addInitScript(script);
    return context;
  }
  const errors: string[] = [];
  let outside: string[] = [];

  /** The page at phone width (`<name>.png`) and at desktop width (`<name>-desktop.png`), as people see it. */
  const shot = async (p: Page, name: string) => {
    await p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    const phone = p.viewportSize();
    await p.setViewportSize(DESKTOP);
    await p.screenshot({ path: path.join(ARTIFACTS, `${name}-desktop.png`), fullPage: true });
    if (phone) await p.setViewportSize(phone);
  };
  const text = (p: Page, selector: string) => p.locator(selector).innerText();

  /**
   * What the operator's daemons do on their own, in one loop: mine when the mempool holds a
   * transaction, index, let the inscriber see confirmations, let the launchpad follow its jobs.
   */
  const startChainDriver = () => {
    driver = setInterval(() => {
      driving = driving
        .then(async () => {
          if (holdChain) return;
          const mempool = await stack.devnet.rpc<string[]>("getrawmempool");
          if (mempool.length > 0) await stack.devnet.rpc("generatetoaddress", [1, stack.miner.address]);
          await stack.indexer.syncOnce();
          await stack.platform.checkConfirmations();
          await stack.app.launchpad.mints.runOnce();
        })
        .catch((error) => {
          errors.push((error as Error).message);
        });
    }, 250);
  };

  before(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const walletProviderScript = await devWalletScript(
      encodeWif(holder.privateKey, NETWORKS.regtest),
      NETWORKS.regtest,
    );
    stack = await startLaunchpadStack({
      launchpad: async ({ queries, client }) => {
        ({ server: explorer } = await listenLocal(
          createExplorerApp({ queries, network: NETWORKS.regtest, node: client }),
        ));
        explorerUrl = `http://127.0.0.1:${(explorer.address() as { port: number }).port}`;
        return { webDir: path.resolve(__dirname, "..", "..", "web"), walletProviderScript, explorerUrl };
      },
    });
    for (let i = 0; i < 2; i++) await stack.devnet.rpc("devnet_faucet", [holder.address, 100, false]);
    await stack.devnet.rpc("devnet_faucet", [myDogeHolder.address, 100, false]);
    await stack.devnet.rpc("devnet_faucet", [patientBuyer.address, 100, false]);
    await stack.mine();
    const token = await stack.signIn(creator);
    for (const [slug, price, max] of [
      [PAID, PRICE, 5],
      [TINY, 0n, 1],
    ] as const) {
      const listed = await stack.call("POST", "/collections", {
        token,
        operator: price === 0n,
        body: {
          slug,
          name: slug === PAID ? "Web Pups" : "Web Tiny",
          price_koinu: price.toString(),
          max,
          creator_address: creator.address,
        },
      });
      expect(listed.status, JSON.stringify(listed.body)).to.equal(201);
      await stack.confirmInscriberJob(listed.body.deploy.job_id);
    }
    await stack.app.launchpad.mints.runOnce();
    // Someone else holds the tiny collection's only index.
    expect((await stack.call("POST", `/collections/${TINY}/claim`, { token })).status).to.equal(201);
    startChainDriver();
    browser = await launchChromium();
    member = await browser.newContext({ viewport: PHONE });
    page = await member.newPage();
    page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
    outside = recordOutsideRequests(page);
  });

  after(async () => {
    if (driver) clearInterval(driver);
    await driving;
    await browser?.close();
    explorer?.close();
    await stack?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed" && page)
      return shot(page, `failed-${this.currentTest.title.slice(0, 40).replace(/[^a-z0-9]+/gi, "-")}`);
  });

  it("lists the collections as a storefront: art, price, X / Y minted with a progress bar", async () => {
    await page.goto(`${stack.base}/`);
    const card = page.locator(`li[data-slug="${PAID}"]`);
    await card.waitFor();
    expect(await card.innerText())
      .to.contain("Web Pups")
      .and.contain("0 / 5 minted")
      .and.contain("2 DOGE")
      .and.contain("Minting now");
    expect(await card.locator("progress").evaluate((p: HTMLProgressElement) => [p.value, p.max])).to.deep.equal([0, 5]);
    expect(await card.locator("img.art").getAttribute("src")).to.match(/^data:image\/svg\+xml/);
    await shot(page, "1-directory");
    await checkPage(page, "launchpad-directory");
    await expectScriptWithinBudget(page, "the directory");
  });

  it("opens a collection with its live counter, and connects the wallet (a signed sign-in challenge)", async () => {
    await page.locator(`li[data-slug="${PAID}"] a`).click();
    await page.waitForURL(/collection\.html\?slug=web-pups/);
    await page.waitForFunction(() => document.getElementById("minted")!.textContent === "0");
    expect(await text(page, "#max")).to.equal("5");
    expect(await page.evaluate(() => typeof (window as any).wallet?.connect)).to.equal("function");
    expect(await page.evaluate(() => "inscribe" in (window as any).wallet)).to.equal(false);
    await page.click("#connect");
    await page.waitForFunction(() =>
      document.getElementById("connect-message")!.textContent!.startsWith("Connected as"),
    );
    expect(await text(page, "#connect-message")).to.contain(holder.address);
    // Nothing overflows a phone-sized screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).to.equal(true);
    await shot(page, "2-connected");
    await checkPage(page, "launchpad-collection");
    await expectScriptWithinBudget(page, "the collection page");
  });

  it("claims, pays with a PSBT the wallet signs (broadcast through the explorer), mints, and the counter moves from 0 to 1 without a reload", async () => {
    await page.evaluate(() => {
      (window as any).__sameDocument = true;
    });
    await page.click("#claim");
    await page.waitForFunction(() => document.getElementById("claim-message")!.textContent!.includes("#0"));
    await shot(page, "3-claimed");
    await page.click("#pay");
    await page.waitForFunction(
      () => document.getElementById("pay-message")!.textContent!.startsWith("Payment sent"),
      undefined,
      { timeout: 60_000 },
    );
    await expectScriptWithinBudget(page, "the collection page after paying");
    const paymentTxid = (await text(page, "#pay-message")).split(": ")[1].trim();
    expect(paymentTxid).to.match(/^[0-9a-f]{64}$/);
    await shot(page, "4-paid");
    await page.click("#mint");
    await page.waitForFunction(
      () => document.getElementById("mint-message")!.textContent!.startsWith("Minted #0"),
      undefined,
      { timeout: 120_000 },
    );
    await page.waitForFunction(() => document.getElementById("minted")!.textContent === "1", undefined, {
      timeout: 10_000,
    });
    expect(await page.evaluate(() => (window as any).__sameDocument)).to.equal(true);
    await shot(page, "5-minted");

    // The explorer's index is the judge: the inscription is the holder's, paid by the payment.
    const inscriptionId = (await text(page, "#mint-message")).split("inscription ")[1].trim();
    expect(stack.queries.inscription(inscriptionId)!.ownerAddress).to.equal(holder.address);
    const record = await stack.call("GET", `/collections/${PAID}/mints/0`);
    expect(record.body).to.include({
      status: "confirmed",
      payment_txid: paymentTxid,
      inscription_id: inscriptionId,
      address: holder.address,
    });
    expect(errors).to.deep.equal([]);
  });

  it("opens the members-only page for the holder", async () => {
    await page.click("#members-link");
    await page.waitForURL(/members\.html/);
    await page.waitForFunction(() => document.getElementById("status")!.className.includes("ok"));
    expect(await text(page, "#status")).to.contain("Welcome, holder of #0 of Web Pups");
    await shot(page, "6-members");
    await checkPage(page, "launchpad-members");
    await expectScriptWithinBudget(page, "the members page");
  });

  it("refuses the members-only page to a second browser context without the session (401 from requireMember)", async () => {
    const stranger = await browser.newContext({ viewport: PHONE });
    try {
      const other = await stranger.newPage();
      await other.goto(`${stack.base}/members.html?slug=${PAID}`);
      await other.waitForFunction(() => document.getElementById("status")!.className.includes("error"));
      expect(await text(other, "#status"))
        .to.contain("Refused")
        .and.contain("SESSION_REQUIRED");
      await shot(other, "7-stranger-refused");
    } finally {
      await stranger.close();
    }
  });

  it("shows a clear message when a collection is sold out", async () => {
    await page.goto(`${stack.base}/collection.html?slug=${TINY}`);
    await page.waitForFunction(() =>
      document.getElementById("connect-message")!.textContent!.startsWith("Connected as"),
    );
    await page.click("#claim");
    await page.waitForFunction(() => document.getElementById("claim-message")!.className.includes("error"));
    expect(await text(page, "#claim-message")).to.contain("SOLD_OUT");
    await shot(page, "8-sold-out");
  });

  it("disables minting with a plain sentence while a collection's deploy is not confirmed, and opens it once the deploy is indexed", async () => {
    // No block while the collection is listed: its deploy is handed to the inscriber and waits.
    holdChain = true;
    await driving;
    const listed = await stack.call("POST", "/collections", {
      token: await stack.signIn(creator),
      body: { slug: LATER, name: "Web Later", price_koinu: PRICE.toString(), max: 3, creator_address: creator.address },
    });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(201);
    expect(listed.body.deploy.status).to.be.oneOf(["pending", "submitted"]);

    await page.goto(`${stack.base}/`);
    await page.locator(`li[data-slug="${LATER}"]`).waitFor();
    expect(await text(page, `li[data-slug="${LATER}"]`)).to.contain("Being deployed on chain");

    await page.goto(`${stack.base}/collection.html?slug=${LATER}`);
    // The page has loaded and set its buttons (refreshButtons shows the signed-in address last).
    await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.startsWith("signed in as"));
    expect(await text(page, "#deploy")).to.equal(
      "The collection is being deployed on chain; minting opens once its deploy is confirmed.",
    );
    expect(await page.locator("#claim").isDisabled()).to.equal(true);
    expect(await page.locator("#mint").isDisabled()).to.equal(true);
    expect(await page.locator("#mint").isVisible()).to.equal(true);
    // The API agrees: no claim before the deploy is in the index at depth.
    const refused = await stack.call("POST", `/collections/${LATER}/claim`, { token: await stack.signIn(newKey()) });
    expect([refused.status, refused.body.error.code, refused.body.error.details.reason]).to.deep.equal([
      409,
      "COLLECTION_NOT_DEPLOYED",
      "DEPLOY_NOT_INDEXED",
    ]);
    await shot(page, "9-deploying");

    // The chain moves on: the deploy is mined, indexed and followed; the page opens minting by itself.
    holdChain = false;
    await page.waitForFunction(() => !(document.getElementById("claim") as HTMLButtonElement).disabled, undefined, {
      timeout: 120_000,
    });
    expect((await stack.call("GET", `/collections/${LATER}`)).body.deploy.status).to.equal("indexed");
    expect(await text(page, "#deploy")).to.equal("");
    await page.click("#claim");
    await page.waitForFunction(() => document.getElementById("claim-message")!.textContent!.includes("#0"));
    expect(await page.locator("#pay").isDisabled()).to.equal(false);
    await shot(page, "10-deployed");
    expect(errors).to.deep.equal([]);
  });

  it("shows the buyer a mint the index rejects (its reason) and what the creator owes back", async () => {
    // Index 0 of the collection is minted on chain outside the launchpad's records, before the buyer's mint.
    holdChain = true;
    await driving;
    try {
      const outside = new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY });
      const { job } = await outside.inscribe("browser-outside-mint", {
        project: "launchpad",
        contentType: "application/json",
        action: "LAUNCHPAD_MINT",
        content: encodeLaunchpadMint({ slug: LATER, tokenId: 0n, maxSupply: 3n }),
        recipient: newKey().address,
      });
      await stack.confirmInscriberJob(job.id);
    } finally {
      holdChain = false;
    }
    // The page still holds its claim of #0 from the test before.
    await page.click("#pay");
    await page.waitForFunction(
      () => document.getElementById("pay-message")!.textContent!.startsWith("Payment sent"),
      undefined,
      { timeout: 60_000 },
    );
    await page.click("#mint");
    await page.waitForFunction(
      () => document.getElementById("mint-message")!.textContent!.startsWith("The index did not count"),
      undefined,
      { timeout: 120_000 },
    );
    const shown = await text(page, "#mint-message");
    expect(shown)
      .to.contain("The index did not count #0 as your token of Web Later: ALREADY_MINTED")
      .and.contain("You are owed 2 DOGE (MINT_REJECTED")
      .and.contain(`the creator ${creator.address} owes it back to ${holder.address}`);
    expect(outside, "requests outside this machine").to.deep.equal([]);
    expect(await page.locator("#mint-message").getAttribute("class")).to.contain("error");
    expect(await text(page, "#minted")).to.equal("0");
    const record = (await stack.call("GET", `/collections/${LATER}/mints/0`)).body;
    expect(record).to.include({ status: "rejected_by_index", index_reason: "ALREADY_MINTED" });
    expect(record.payment.settlement).to.include({ reason: "MINT_REJECTED", owed_koinu: PRICE.toString() });
    // The used reservation is gone from the page: claiming again is the next step.
    expect(await page.locator("#mint").isDisabled()).to.equal(true);
    expect(await page.locator("#claim").isDisabled()).to.equal(false);
    await shot(page, "11-mint-rejected");
    expect(errors).to.deep.equal([]);
  });

  it("shows a failed deploy's error and no mint button", async () => {
    holdChain = true;
    await driving;
    try {
      const listed = await stack.call("POST", "/collections", {
        token: await stack.signIn(creator),
        body: {
          slug: BROKEN,
          name: "Web Broken",
          price_koinu: PRICE.toString(),
          max: 3,
          creator_address: creator.address,
        },
      });
      expect(listed.status, JSON.stringify(listed.body)).to.equal(201);
      // What the launchpad's worker records when the inscriber job fails or another deploy holds the slug.
      const reason = "INSCRIBER_JOB_FAILED: the node refused the reveal";
      stack.app.launchpad.collections.markDeployFailed(BROKEN, reason);
      expect((await stack.call("GET", `/collections/${BROKEN}`)).body.deploy).to.include({
        status: "failed",
        error: reason,
      });

      await page.goto(`${stack.base}/collection.html?slug=${BROKEN}`);
      await page.waitForFunction(() => document.getElementById("wallet")!.textContent!.startsWith("signed in as"));
      expect(await text(page, "#deploy"))
        .to.contain("This collection's deploy failed, so it cannot be minted")
        .and.contain(reason);
      expect(await page.locator("#deploy").getAttribute("class")).to.contain("error");
      expect(await page.locator("#mint").isVisible()).to.equal(false);
      expect(await page.locator("#claim").isVisible()).to.equal(false);
      expect(await page.locator("#pay").isVisible()).to.equal(false);
      await shot(page, "12-deploy-failed");
    } finally {
      holdChain = false;
    }
  });

  it("mints with MyDoge: chosen beside the development wallet, signs in, pays with requestPsbt and mints, and the directory counts it", async () => {
    const context = await walletContext([{ kind: "mydoge", key: myDogeHolder }]);
    try {
      const buyer = await context.newPage();
      buyer.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
      await buyer.goto(`${stack.base}/collection.html?slug=${PAID}`);
      await buyer.waitForFunction(() => (window as any).doge?.isMyDoge === true);
      expect(await buyer.evaluate(() => (window as any).wallet.available().map((w: any) => w.id))).to.deep.equal([
        "mydoge",
        "dev",
      ]);
      await buyer.click("#connect");
      // Two wallets: the provider asks which.
      await buyer.locator("dialog.wallet-chooser").waitFor();
      await shot(buyer, "13-wallet-chooser");
      await checkPage(buyer, "launchpad-wallet-chooser");
      await buyer.click('dialog.wallet-chooser button[data-wallet="mydoge"]');
      await buyer.waitForFunction(() =>
        document.getElementById("connect-message")!.textContent!.startsWith("Connected as"),
      );
      expect(await text(buyer, "#connect-message")).to.contain(myDogeHolder.address);
      await buyer.click("#claim");
      await buyer.waitForFunction(() => document.getElementById("claim-message")!.textContent!.includes("#1"));
      await buyer.click("#pay");
      await buyer.waitForFunction(
        () => document.getElementById("pay-message")!.textContent!.startsWith("Payment sent"),
        undefined,
        { timeout: 60_000 },
      );
      await buyer.click("#mint");
      await buyer.waitForFunction(
        () => document.getElementById("mint-message")!.textContent!.startsWith("Minted #1"),
        undefined,
        { timeout: 120_000 },
      );
      await shot(buyer, "14-mydoge-minted");
      const inscriptionId = (await text(buyer, "#mint-message")).split("inscription ")[1].trim();
      expect(stack.queries.inscription(inscriptionId)!.ownerAddress).to.equal(myDogeHolder.address);
      await buyer.goto(`${stack.base}/`);
      await buyer.waitForFunction(
        (slug) => document.querySelector(`li[data-slug="${slug}"] .counter-line`)?.textContent === "2 / 5 minted",
        PAID,
      );
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it("tells a mainnet MyDoge it is on the wrong network, and a UniSat without message signing that it cannot sign in", async () => {
    const context = await walletContext([
      { kind: "mydoge", key: newKey(), network: "mainnet" },
      { kind: "unisat", key: newKey(), omit: ["signMessage"] },
    ]);
    try {
      const other = await context.newPage();
      await other.goto(`${stack.base}/collection.html?slug=${PAID}`);
      await other.waitForFunction(() => (window as any).doge?.isMyDoge === true);
      await other.click("#connect");
      await other.click('dialog.wallet-chooser button[data-wallet="mydoge"]');
      await other.waitForFunction(() => document.getElementById("connect-message")!.className.includes("error"));
      expect(await text(other, "#connect-message"))
        .to.contain("MyDoge is on mainnet")
        .and.contain("this page is on regtest")
        .and.contain("NETWORK_MISMATCH");
      await shot(other, "15-network-mismatch");
      await other.evaluate(() => (window as any).wallet.choose("unisat"));
      await other.click("#connect");
      await other.waitForFunction(() =>
        document.getElementById("connect-message")!.textContent!.includes("WALLET_UNSUPPORTED"),
      );
      expect(await text(other, "#connect-message")).to.contain("UniSat cannot sign a message here");
    } finally {
      await context.close();
    }
  });

  it("offers to stop waiting for a MyDoge that never answers the payment request, and pays on the next try", async () => {
    const context = await walletContext([{ kind: "mydoge", key: patientBuyer, unanswered: ["requestPsbt"] }]);
    try {
      const buyer = await context.newPage();
      buyer.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
      await buyer.goto(`${stack.base}/collection.html?slug=${PAID}`);
      await buyer.waitForFunction(() => (window as any).doge?.isMyDoge === true);
      await buyer.evaluate(() => (window as any).wallet.choose("mydoge"));
      await buyer.click("#connect");
      await buyer.waitForFunction(() =>
        document.getElementById("connect-message")!.textContent!.startsWith("Connected as"),
      );
      await buyer.click("#claim");
      await buyer.waitForFunction(() => document.getElementById("claim-message")!.textContent!.includes("You hold"));
      await buyer.click("#pay");
      const notice = buyer.locator(".wallet-waiting");
      await notice.waitFor({ timeout: 30_000 });
      expect(await notice.innerText()).to.contain("Waiting for MyDoge to sign the payment");
      expect(await buyer.evaluate(() => (window as any).wallet.waiting)).to.include({
        wallet: "MyDoge",
        step: "sign the payment",
      });
      expect(await buyer.locator("#pay").isDisabled()).to.equal(true);
      // Scrolled to the end, the page's last line is above the notice, not under it.
      await buyer.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const last = (await buyer.locator("#members-link").boundingBox())!;
      const over = (await notice.boundingBox())!;
      expect(last.y + last.height, "the members link's bottom against the notice's top").to.be.at.most(over.y);
      await shot(buyer, "16-wallet-waiting");
      await checkPage(buyer, "launchpad-wallet-waiting");
      await notice.getByRole("button", { name: "Stop waiting" }).click();
      await buyer.waitForFunction(() => document.getElementById("pay-message")!.className.includes("error"));
      expect(await text(buyer, "#pay-message"))
        .to.contain("stopped waiting for MyDoge to sign the payment")
        .and.contain("WALLET_ABANDONED")
        .and.not.contain("WALLET_REFUSED");
      expect(await notice.count()).to.equal(0);
      expect(await buyer.evaluate(() => (window as any).wallet.waiting)).to.equal(null);
      // MyDoge answers the next request: the same reservation is paid.
      await buyer.click("#pay");
      await buyer.waitForFunction(
        () => document.getElementById("pay-message")!.textContent!.startsWith("Payment sent"),
        undefined,
        { timeout: 60_000 },
      );
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
