/**
 * The explorer's pages in headless Debian Chromium (playwright-core), on the devnet with the real
 * indexer, mempool view and explorer: a payment with an OP_RETURN, image, text and HTML
 * inscriptions, a DRC-20 tick deployed and minted, an OP_CHECKZKP use with its shadow verdict and
 * a transaction left pending. A person finds the payment by searching its txid, follows an address,
 * opens each inscription (the HTML one runs no script: nothing it would request reaches the server),
 * looks at a block, a tick, the OP_RETURN and OP_CHECKZKP views, and sees the banner while the index
 * is behind the node. Every page passes axe (no serious or critical violation) at desktop and phone
 * width, does not scroll sideways on a phone, and is saved as test-artifacts/browser/explorer-<page>-<desktop|phone>.png.
 * No page requests anything from another origin or breaks its Content-Security-Policy.
 */
import { expect } from "chai";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Browser, Page } from "playwright-core";
import { NETWORKS, OP, bytesToHex, compileScript, nullDataScript, sha256 } from "../../src/doge";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { ZkpShadowService } from "../../src/indexer/zkp-shadow";
import { createExplorerApp } from "../../src/services/explorer/app";
import { MempoolView } from "../../src/services/explorer/mempool";
import { EXPLORER_PAGE_CSP, explorerPageBundles } from "../../src/services/explorer/pages";
import zkpVectors from "../vectors/zkp-groth16.json";
import { DESKTOP, checkPage } from "../helpers/a11y";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { deployTick, faucetCoin, mintTick } from "../helpers/drc20";
import { commitP2sh, inscribeDoginals, pay } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { launchChromium } from "../helpers/chromium";

const DOGE = 100_000_000n;
const NOTE = "dogeos explorer page <b>not bold</b>";
// A 1x1 PNG (one opaque pixel), as an image inscription.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
// What an HTML inscription's script would do if it ran: ask the explorer for a marker path, and
// write into the page that frames it.
const HOSTILE_HTML = `<!doctype html><html><head><title>hostile</title></head><body><h1>Hello from the chain</h1>
<script>fetch("/script-ran").catch(function(){}); new Image().src = "/script-ran-img"; try { top.document.title = "pwned"; } catch (e) {}</script>
<script src="/script-ran-external.js"></script><img src="/html-image" alt="x"></body></html>`;
const TICK = "pgs1";

describe("explorer pages in Chromium", function () {
  this.timeout(180_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let mempool: MempoolView;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const problems: string[] = [];
  const refusedInFrame: string[] = [];
  let alice: TestKey;
  let bob: TestKey;
  let carol: TestKey;
  let paymentTxid: string;
  let pendingTxid: string;
  let imageId: string;
  let textId: string;
  let htmlId: string;
  let zkpTxid: string;
  let vkSha: string;

  const mine = async () => {
    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    await indexer.syncOnce();
  };
  const text = (selector = "main") => page.locator(selector).innerText();
  /** Waits until the main region has rendered (no loading state left in it). */
  const rendered = async () => {
    await page.waitForFunction(() => {
      const main = document.getElementById("content");
      return main !== null && main.getAttribute("aria-busy") === null && !main.querySelector(".state.loading");
    });
  };

  before(async () => {
    // Promiscuous like a miner that takes OP_NOP10 spends, so OP_CHECKZKP uses reach blocks.
    devnet = await startDevnet({ args: ["--promiscuousmempool"] });
    const rpc = new DogecoinRpcClient({ url: devnet.url });
    const db = openIndexerDatabase(":memory:");
    indexer = new Indexer({ store: new IndexerStore(db), source: new RpcChainSource(rpc), network: NETWORKS.regtest });
    const queries = new IndexQueries(db);
    mempool = new MempoolView({ node: rpc, index: queries, network: NETWORKS.regtest });
    const app = createExplorerApp({ queries, network: NETWORKS.regtest, node: rpc, mempool, statusCacheMs: 0 });
    server = http.createServer((req, res) => {
      requested.push(req.url ?? "");
      app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    alice = newKey();
    bob = newKey();
    carol = newKey();
    // A payment to bob with an OP_RETURN note.
    const coin = await faucetCoin(devnet, alice);
    paymentTxid = (
      await pay(
        devnet,
        alice,
        [coin],
        [
          { script: bob.script, value: 25n * DOGE },
          { script: nullDataScript(Buffer.from(NOTE)), value: 0n },
        ],
      )
    ).txid;
    // Inscriptions held by carol: an image, a text, an HTML page with scripts.
    for (const [contentType, body, set] of [
      ["image/png", PNG, (id: string) => (imageId = id)],
      [
        "text/plain;charset=utf-8",
        Buffer.from("Such text, very chain.\n<script>alert(1)</script>"),
        (id: string) => (textId = id),
      ],
      ["text/html;charset=utf-8", Buffer.from(HOSTILE_HTML), (id: string) => (htmlId = id)],
    ] as const) {
      const made = await inscribeDoginals(
        devnet,
        carol,
        await faucetCoin(devnet, carol),
        { contentType, body },
        carol.script,
      );
      set(made.inscriptionId);
    }
    await mine();
    await deployTick(devnet, carol, TICK, 21_000_000n, 1_000n);
    await mine();
    await mintTick(devnet, carol, TICK, 1_000n);
    await mine();
    // An OP_CHECKZKP use with a valid Groth16 proof (the first vector), verified in shadow.
    const vector = (zkpVectors.valid as { input: { script_asm: string } }[])[0];
    const items = vector.input.script_asm
      .split(" ")
      .filter((token) => !token.startsWith("OP_"))
      .map((hex) => Buffer.from(hex, "hex"));
    const verifyRedeem = compileScript([OP.OP_0, OP.OP_CHECKZKP, OP.OP_DROP, ...Array(8).fill(OP.OP_2DROP), OP.OP_1]);
    const committed = await commitP2sh(devnet, alice, await faucetCoin(devnet, alice, 30), verifyRedeem);
    await mine();
    zkpTxid = (await committed.spend(items, alice.script)).txid;
    await mine();
    const shadow = new ZkpShadowService(db);
    shadow.enqueuePending();
    await shadow.drain();
    vkSha = bytesToHex(sha256(Buffer.concat(items.slice(10, 16))));
    // A payment left in the mempool.
    pendingTxid = (
      await pay(
        devnet,
        bob,
        [{ txid: paymentTxid, vout: 0, value: 25n * DOGE }],
        [{ script: carol.script, value: 5n * DOGE }],
      )
    ).txid;
    await mempool.refresh();

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP });
    page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const where = message.location().url;
      // An inscription's own document (framed from the content route): what Chromium refused it.
      if (where.startsWith(`${base}/api/explorer/inscription/`)) refusedInFrame.push(message.text());
      // A lookup the page shows as a designed state (not found, no such route): the browser logs the 404.
      else if (/status of 404/.test(message.text()) && /^\/(api|esplora\/api)\//.test(new URL(where).pathname)) return;
      else problems.push(`console: ${message.text()} (${where})`);
    });
    page.on("request", (request) => {
      const url = request.url();
      if (!url.startsWith(`${base}/`) && !url.startsWith("data:")) problems.push(`outside request: ${url}`);
    });
  });

  after(async () => {
    await browser?.close();
    server?.close();
    await devnet?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed" && page)
      return page.screenshot({
        path: `test-artifacts/browser/explorer-failed-${this.currentTest.title.slice(0, 30).replace(/[^a-z0-9]+/gi, "-")}.png`,
      });
  });

  it("serves each page with a strict Content-Security-Policy and less than 300 KB of script", async () => {
    const answer = await fetch(`${base}/tx/${paymentTxid}`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("content-security-policy")).to.equal(EXPLORER_PAGE_CSP);
    expect(EXPLORER_PAGE_CSP)
      .to.contain("default-src 'none'")
      .and.contain("script-src 'self'")
      .and.not.contain("unsafe");
    for (const [name, script] of await explorerPageBundles())
      expect(script.length, `${name}.js`).to.be.below(300 * 1024);
  });

  it("finds a transaction by searching its txid, with inputs, outputs, fee, rate and the OP_RETURN as text", async () => {
    await page.goto(`${base}/`);
    await rendered();
    await page.waitForFunction(() => document.getElementById("tip")!.textContent!.includes("#"));
    await checkPage(page, "explorer-home");
    await page.fill("#q", paymentTxid);
    await page.press("#q", "Enter");
    await page.waitForURL(`${base}/tx/${paymentTxid}`);
    await rendered();
    const shown = await text();
    expect(shown)
      .to.contain(paymentTxid)
      .and.contain(
        `Confirmed, ${(await (await fetch(`${base}/api/tx/${paymentTxid}`)).json()).confirmations} confirmations`,
      )
      .and.contain(alice.address)
      .and.contain(bob.address)
      .and.contain("25 DOGE")
      .and.contain("0.1 DOGE") // the helper's fee
      .and.contain("koinu per byte")
      .and.contain(`spending in the mempool by ${pendingTxid.slice(0, 16)}`);
    // The note is shown as text: its markup is not markup.
    expect(await page.locator("main .payload q").first().innerText()).to.equal(NOTE);
    expect(await page.locator("main b").count()).to.equal(0);
    await checkPage(page, "explorer-tx");
  });

  it("follows an address from the transaction: balances, history and unspent outputs", async () => {
    await page.locator(`main a[href="/address/${bob.address}"]`).first().click();
    await page.waitForURL(`${base}/address/${bob.address}`);
    await rendered();
    await page.locator("main section[aria-label='History'] table").waitFor();
    const shown = await text();
    expect(shown)
      .to.contain("25 DOGE")
      .and.contain("−5.1 DOGE in the mempool")
      .and.contain("received")
      .and.contain("No DRC-20 balance.");
    await checkPage(page, "explorer-address");
  });

  it("shows a pending transaction as pending in the mempool", async () => {
    await page.goto(`${base}/tx/${pendingTxid}`);
    await rendered();
    expect(await text())
      .to.contain("Pending in the mempool")
      .and.contain(carol.address);
    await checkPage(page, "explorer-tx-pending");
  });

  it("shows the DRC-20 balances and inscriptions an address holds", async () => {
    await page.goto(`${base}/address/${carol.address}`);
    await rendered();
    await page.waitForFunction(
      () => document.querySelector("main section[aria-label='Inscriptions held'] li") !== null,
    );
    const held = await text("main section[aria-label='Inscriptions held']");
    for (const id of [imageId, textId, htmlId]) expect(held).to.contain(id);
    expect(await text("main section[aria-label='DRC-20 balances']"))
      .to.contain(TICK)
      .and.contain("1000");
    await checkPage(page, "explorer-address-drc20");
  });

  it("opens an image and a text inscription, shown inline", async () => {
    await page.goto(`${base}/`);
    await page.fill("#q", imageId);
    await page.press("#q", "Enter");
    await page.waitForURL(`${base}/inscription/${imageId}`);
    await rendered();
    await page.waitForFunction(
      () => (document.querySelector("main img.inscribed") as HTMLImageElement)?.naturalWidth === 1,
    );
    expect(await text())
      .to.contain("image/png")
      .and.contain(carol.address);
    // The owner history, from the moves route: inscribed to carol, never moved since.
    await page.locator("main section[aria-label='Owner history'] table").waitFor();
    const history = await page.locator("main section[aria-label='Owner history'] tbody tr").allInnerTexts();
    expect(history).to.have.length(1);
    expect(history[0]).to.contain("inscribed").and.contain(carol.address).and.contain(imageId.slice(0, 16));
    await checkPage(page, "explorer-inscription-image");

    await page.goto(`${base}/inscription/${textId}`);
    await rendered();
    expect(await page.locator("main pre.text").innerText()).to.equal(
      "Such text, very chain.\n<script>alert(1)</script>",
    );
    expect(await page.locator("main script").count()).to.equal(0);
    await checkPage(page, "explorer-inscription-text");
  });

  it("frames an HTML inscription in a sandbox that runs no script", async () => {
    const before = requested.length;
    await page.goto(`${base}/inscription/${htmlId}`);
    await rendered();
    const frame = page.locator("main iframe.inscribed");
    expect(await frame.getAttribute("sandbox")).to.equal("");
    await page.frameLocator("main iframe.inscribed").locator("h1").waitFor();
    expect(await page.frameLocator("main iframe.inscribed").locator("h1").innerText()).to.equal("Hello from the chain");
    // Give a script every chance to have run: the frame has loaded, and the page reads the tip again.
    await page.waitForFunction(() => document.getElementById("tip")!.textContent!.includes("#"));
    await checkPage(page, "explorer-inscription-html", { exclude: ["iframe.inscribed"] });
    const after = requested.slice(before);
    expect(after).to.include(`/api/explorer/inscription/${htmlId}/content`);
    expect(after.filter((url) => /script-ran|html-image/.test(url))).to.deep.equal([]);
    // Chromium says why: the frame's sandbox allows no script.
    expect(refusedInFrame.join("\n"))
      .to.contain("Blocked script execution")
      .and.contain("'allow-scripts' permission is not set");
    expect(await page.title()).to.equal("Inscription #2 · DogeOS explorer");
  });

  it("shows a block by height from the search, or says block pages are not available", async () => {
    const height = (await (await fetch(`${base}/api/tx/${paymentTxid}`)).json()).block.height as number;
    await page.goto(`${base}/`);
    await page.fill("#q", String(height));
    await page.press("#q", "Enter");
    await page.waitForURL(`${base}/block/${height}`);
    await rendered();
    const shown = await text();
    const served = (await fetch(`${base}/esplora/api/block-height/${height}`)).status === 200;
    if (served) expect(shown).to.contain(`Block #${height}`).and.contain(paymentTxid);
    else expect(shown).to.contain("block pages are not available on this explorer");
    await checkPage(page, "explorer-block");
  });

  it("opens a DRC-20 tick from the address: its supply, minted and holders", async () => {
    await page.goto(`${base}/address/${carol.address}`);
    await rendered();
    await page.locator(`main a[href="/drc20/${TICK}"]`).click();
    await page.waitForURL(`${base}/drc20/${TICK}`);
    await rendered();
    const shown = await text();
    expect(shown).to.contain(`DRC-20 ${TICK}`).and.contain("21000000").and.contain(carol.address);
    expect(await page.locator("main dl.facts").innerText())
      .to.match(/Minted\s+1000\b/)
      .and.match(/Holders\s+1\b/);
    const holders = await page.locator("main section[aria-label='Holders'] tbody tr").allInnerTexts();
    expect(holders).to.have.length(1);
    expect(holders[0]).to.contain(carol.address).and.contain("1000");
    await checkPage(page, "explorer-tick");
    // The search finds the tick by its name.
    await page.goto(`${base}/search?q=${TICK}`);
    await page.waitForURL(`${base}/drc20/${TICK}`);
  });

  it("lists OP_RETURN outputs, filters them by magic and checks a document's anchor", async () => {
    await page.goto(`${base}/opreturn`);
    await rendered();
    await page.locator("main table.records").first().waitFor();
    expect(await text()).to.contain(NOTE);
    const magic = Buffer.from(NOTE).subarray(0, 4).toString("hex");
    await page.locator(`main a[href="/opreturn?magic=${magic}"]`).first().click();
    await page.waitForURL(`${base}/opreturn?magic=${magic}`);
    await page.locator("main table.records").first().waitFor();
    expect(await text("main h1")).to.equal(`OP_RETURN outputs starting with ${magic}`);
    await page.fill("#sha", bytesToHex(sha256(Buffer.from(NOTE))));
    await page.click("main form.inline:has(#sha) button");
    await page.waitForFunction(() =>
      document.querySelector("main .status.ok")?.textContent?.startsWith("Anchored first in"),
    );
    await checkPage(page, "explorer-opreturn");
    await page.fill("#sha", "00".repeat(32));
    await page.click("main form.inline:has(#sha) button");
    await page.waitForFunction(() =>
      document.querySelector("main .state.empty")?.textContent?.startsWith("Not anchored"),
    );
  });

  it("shows OP_CHECKZKP uses with their shadow verdict, and a verifying key's uses", async () => {
    await page.goto(`${base}/zkp`);
    await rendered();
    await page.locator("main table.records").waitFor();
    await page.waitForFunction(() => document.querySelector("main section[aria-label='Status'] dl") !== null);
    const shown = await text();
    expect(shown)
      .to.contain("shadow (not consensus-enforced)")
      .and.contain("valid proof")
      .and.contain(zkpTxid.slice(0, 16));
    await checkPage(page, "explorer-zkp");
    await page.locator(`main a[href="/zkp/vk/${vkSha}"]`).first().click();
    await page.waitForURL(`${base}/zkp/vk/${vkSha}`);
    await page.locator("main table.records").waitFor();
    expect(await text())
      .to.contain(vkSha)
      .and.contain("valid proof");
    await checkPage(page, "explorer-zkp-vk");
  });

  it("shows a designed error for an unknown transaction and for nothing found", async () => {
    await page.goto(`${base}/tx/${"ab".repeat(32)}`);
    await rendered();
    expect(await text("main [role=alert]"))
      .to.contain("TX_NOT_FOUND")
      .and.contain("Check the identifier");
    await checkPage(page, "explorer-not-found");
    await page.goto(`${base}/search?q=${"cd".repeat(32)}`);
    await page.waitForFunction(() =>
      document.querySelector("main .state.empty")?.textContent?.startsWith("Nothing found"),
    );
    expect(await page.inputValue("#q")).to.equal("cd".repeat(32));
    await checkPage(page, "explorer-search-nothing");
    // A word that is no deployed tick: nothing found (the tick route answers 404 TICK_NOT_FOUND).
    await page.goto(`${base}/search?q=nope`);
    await page.waitForFunction(() =>
      document.querySelector("main .state.empty")?.textContent?.startsWith("Nothing found"),
    );
    const probe = await fetch(`${base}/api/explorer/drc20/nope`);
    expect(probe.status).to.equal(404);
    expect((await probe.json()).error.code).to.equal("TICK_NOT_FOUND");
    expect(await text()).to.not.contain("tick search is not available");
  });

  it("shows a banner while the index is behind its node", async () => {
    const indexed = (await (await fetch(`${base}/api/status`)).json()).indexer.indexed_height as number;
    // What the indexer writes when it has seen the node's tip and not indexed up to it yet.
    indexer.store.setMeta("node_height", String(indexed + 3));
    try {
      await page.goto(`${base}/`);
      await page.waitForFunction(() => !document.getElementById("banner")!.hidden);
      expect(await text("#banner")).to.contain(
        `The index is 3 blocks behind the node (indexed #${indexed}, node #${indexed + 3})`,
      );
      await checkPage(page, "explorer-behind");
    } finally {
      await indexer.syncOnce();
    }
    await page.reload();
    await page.waitForFunction(() => document.getElementById("tip")!.textContent!.includes("#"));
    expect(await page.locator("#banner").isHidden()).to.equal(true);
  });

  it("made no outside request, broke no Content-Security-Policy and threw no error on any page", () => {
    expect(problems).to.deep.equal([]);
  });
});
