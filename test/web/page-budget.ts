/**
 * What a page may load (issue 29, "Made for people"): at most 300 KB of script, and nothing from
 * outside this machine (no CDN): every request a page makes goes to a loopback address (the
 * daemon's own origin or the explorer's) or is a data: URL.
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import { MAX_PAGE_SCRIPT_BYTES } from "../../src/services/pages/wallet-provider";

/** Starts recording the requests `page` makes to anywhere but a loopback address; check with expectNoOutsideRequest. */
export function recordOutsideRequests(page: Page): string[] {
  const outside: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:" || url.protocol === "blob:") return;
    if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) outside.push(request.url());
  });
  return outside;
}

/** The paths of the scripts the page has loaded so far (e.g. "/wallet-provider.js"). */
export function loadedScripts(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
      .map((entry) => new URL(entry.name).pathname)
      .filter((pathname) => pathname.endsWith(".js")),
  );
}

/** The bytes of script the page has loaded (classic and module scripts, decoded), checked against the budget. */
export async function expectScriptWithinBudget(page: Page, label: string): Promise<number> {
  const bytes = await page.evaluate(() =>
    (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
      .filter((entry) => new URL(entry.name).pathname.endsWith(".js"))
      .reduce((sum, entry) => sum + entry.decodedBodySize, 0),
  );
  expect(bytes, `${label} loads ${bytes} bytes of script`).to.be.above(0).and.at.most(MAX_PAGE_SCRIPT_BYTES);
  return bytes;
}
