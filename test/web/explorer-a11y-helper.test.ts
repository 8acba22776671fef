/**
 * The shared accessibility check (test/helpers/a11y.ts) in Chromium, on pages served with the same
 * strict Content-Security-Policy as the explorer's: it runs despite the CSP, passes a clean page,
 * fails with a readable list on serious and critical violations (in the page and in a frame), lets
 * moderate ones through unless asked, sees a page that scrolls sideways at phone width, and writes
 * both screenshots.
 */
import { expect } from "chai";
import fs from "node:fs";
import http from "node:http";
import { Browser, Page } from "playwright-core";
import {
  ARTIFACTS_DIR,
  PHONE,
  axeViolations,
  checkPage,
  expectAccessible,
  expectNoSidewaysScroll,
} from "../helpers/a11y";
import { launchChromium } from "../helpers/chromium";

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self'";

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test page</title>` +
  `<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main><h1>Test</h1>${body}</main></body></html>`;

const PAGES: Record<string, string> = {
  "/clean": page(`<p>Plain text.</p><button type="button">Search</button><img src="data:," alt="a dot">`),
  "/broken": page(`<img src="data:,"><button type="button"></button><label>no input</label><input type="text" id="q">`),
  "/moderate": page(`<h3>Skips heading levels</h3>`),
  "/framed": page(`<iframe title="inner" src="/broken"></iframe>`),
  "/sandboxed": page(`<iframe title="chain content" sandbox="" srcdoc="<p>inert</p>"></iframe>`),
  "/wide": page(`<div id="too-wide" style="width: 900px">wide</div>`),
};

describe("a11y helper (axe-core in Chromium)", function () {
  this.timeout(60_000);
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let tab: Page;

  before(async () => {
    server = http.createServer((req, res) => {
      const body = PAGES[req.url ?? ""];
      res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP });
      res.end(body ?? "");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await launchChromium();
    tab = await (await browser.newContext({ viewport: PHONE })).newPage();
  });

  after(async () => {
    await browser?.close();
    server?.close();
  });

  it("runs under a strict Content-Security-Policy and passes a clean page at both widths, writing both screenshots", async () => {
    await tab.goto(`${base}/clean`);
    // The page's CSP refuses an inline <script> (the way many helpers inject axe); ours still runs.
    const inlineRan = await tab.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.inlineRan = true";
      document.head.append(script);
      return (window as any).inlineRan === true;
    });
    expect(inlineRan).to.equal(false);
    const files = await checkPage(tab, "a11y-helper-clean");
    expect(files.desktop).to.equal(`${ARTIFACTS_DIR}/a11y-helper-clean-desktop.png`);
    for (const file of [files.desktop, files.phone]) expect(fs.statSync(file).size).to.be.greaterThan(1000);
    expect(tab.viewportSize()).to.deep.equal(PHONE);
  });

  it("fails on serious and critical violations with the rule, the fix and the element", async () => {
    await tab.goto(`${base}/broken`);
    const error = await expectAccessible(tab, "the broken page").then(
      () => null,
      (e: Error) => e,
    );
    expect(error, "no violation reported").to.be.instanceOf(Error);
    expect(error!.message)
      .to.match(/violation\(s\) of impact serious or worse on the broken page/)
      .and.contain("[critical] image-alt: Images must have alternative text")
      .and.contain("[critical] button-name")
      .and.contain("[critical] label")
      .and.contain("at img")
      .and.contain('<input type="text" id="q">')
      .and.contain("fix: ");
  });

  it("lets a moderate violation through by default and fails it when asked", async () => {
    await tab.goto(`${base}/moderate`);
    const below = await expectAccessible(tab, "moderate page");
    expect(below.map((v) => v.id)).to.include("heading-order");
    const error = await expectAccessible(tab, "moderate page", { failOn: "moderate" }).catch((e: Error) => e);
    expect((error as Error).message).to.contain("heading-order");
  });

  it("checks inside a same-origin frame, and leaves out what the caller excludes", async () => {
    await tab.goto(`${base}/framed`);
    await tab.frameLocator("iframe").locator("h1").waitFor();
    const error = await expectAccessible(tab, "framed page").catch((e: Error) => e);
    expect((error as Error).message)
      .to.contain("image-alt")
      .and.contain("iframe >> img");
    expect(await expectAccessible(tab, "framed page", { exclude: ["iframe"] })).to.deep.equal([]);
  });

  it("answers for a page with a script-less sandboxed frame without waiting for it", async () => {
    await tab.goto(`${base}/sandboxed`);
    const violations = await axeViolations(tab);
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical")).to.deep.equal([]);
  });

  it("sees a page that scrolls sideways at phone width and names the element", async () => {
    await tab.goto(`${base}/wide`);
    const error = await expectNoSidewaysScroll(tab, "wide page").catch((e: Error) => e);
    expect((error as Error).message)
      .to.contain("wide page scrolls sideways at 390 px")
      .and.contain("div#too-wide");
  });
});
