/**
 * Accessibility and screenshots for the browser tests (issue 29: "each page passes an automated
 * accessibility check ... a screenshot of each page at desktop and phone width").
 *
 * axe-core (dev dependency) is read from node_modules on disk and evaluated in every frame of a
 * playwright-core page through the DevTools protocol, so a page's strict Content-Security-Policy
 * (script-src 'self', no eval) does not stop it and no request leaves the machine. A check fails on
 * serious or critical violations with a list a person can act on: rule, impact, what to fix, and
 * the elements (selector and HTML) that break it.
 *
 *   await expectAccessible(page, "explorer tx");               // axe at the current viewport
 *   await checkPage(page, "explorer-tx");                       // axe at desktop and phone width,
 *                                                               // no sideways scroll at phone width,
 *                                                               // test-artifacts/browser/explorer-tx-{desktop,phone}.png
 */
import fs from "node:fs";
import path from "node:path";
import type { AxeResults, ImpactValue, Result, RunOptions } from "axe-core";
import type { Frame, Page } from "playwright-core";

export const ARTIFACTS_DIR = path.resolve(__dirname, "..", "..", "test-artifacts", "browser");
/** The widths the issue asks for: a laptop and a common phone (iPhone 12-15 logical size). */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export type Impact = Exclude<ImpactValue, null>;
const IMPACT_ORDER: Impact[] = ["minor", "moderate", "serious", "critical"];

export interface AccessibilityOptions {
  /** Lowest impact that fails the check (default "serious": serious and critical fail). */
  failOn?: Impact;
  /**
   * CSS selectors axe leaves out, for content the page does not author (say why at the call).
   * Frames are checked like the page unless excluded here.
   */
  exclude?: string[];
  /** axe rule ids not run (say why at the call). */
  disableRules?: string[];
}

let axeSource: string | undefined;
/** axe.min.js from node_modules, read once per process. */
function axeScript(): string {
  axeSource ??= fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  return axeSource;
}

/**
 * Evaluates axe in a frame as a plain expression through the DevTools protocol (not a <script>
 * tag and not eval inside the page, which the pages' CSP forbids). A frame that runs no script at
 * all (a sandboxed iframe without allow-scripts) refuses: false, and axe reports it as not tested.
 */
async function injectAxe(frame: Frame): Promise<boolean> {
  try {
    if (await frame.evaluate(() => typeof (window as any).axe?.run === "function")) return true;
    await frame.evaluate(axeScript());
    return await frame.evaluate(() => typeof (window as any).axe?.run === "function");
  } catch {
    return false;
  }
}

/** Runs axe-core over the page (and its frames) and returns every violation, whatever its impact. */
export async function axeViolations(page: Page, options: AccessibilityOptions = {}): Promise<Result[]> {
  const injected = await Promise.all(page.frames().map((frame) => injectAxe(frame)));
  if (!injected[page.frames().indexOf(page.mainFrame())]) throw new Error(`axe-core could not run in ${page.url()}`);
  const runOptions: RunOptions = {
    resultTypes: ["violations"],
    // A frame without axe (sandboxed without scripts) is answered for quickly instead of after 60 s.
    frameWaitTime: 2_000,
    pingWaitTime: 200,
    rules: Object.fromEntries((options.disableRules ?? []).map((id) => [id, { enabled: false }])),
  };
  // null: the whole document; otherwise axe's context object (plain data, it crosses the protocol).
  const context = options.exclude?.length ? { exclude: options.exclude.map((selector) => [selector]) } : null;
  const results = (await page.evaluate(([ctx, opts]) => (window as any).axe.run(ctx ?? window.document, opts), [
    context,
    runOptions,
  ] as const)) as AxeResults;
  return results.violations;
}

/** The violations as lines a person can act on: impact, rule, what it asks, where (selector and HTML). */
export function describeViolations(violations: Result[]): string {
  const lines: string[] = [];
  for (const violation of violations) {
    lines.push(`- [${violation.impact ?? "unknown"}] ${violation.id}: ${violation.help} (${violation.helpUrl})`);
    for (const node of violation.nodes.slice(0, 8)) {
      lines.push(`    at ${node.target.map(String).join(" >> ")}`);
      lines.push(`       ${node.html.replace(/\s+/g, " ").slice(0, 200)}`);
      const fix = node.failureSummary
        ?.split("\n")
        .slice(1)
        .map((line) => line.trim())
        .join("; ");
      if (fix) lines.push(`       fix: ${fix.slice(0, 300)}`);
    }
    if (violation.nodes.length > 8) lines.push(`    ... and ${violation.nodes.length - 8} more elements`);
  }
  return lines.join("\n");
}

/**
 * Fails (throws) when axe finds a violation at or above `failOn` (default serious) on the page as it
 * is now; `label` names the page in the message. Returns the violations below the bar, for a test
 * that wants to log them.
 */
export async function expectAccessible(page: Page, label: string, options: AccessibilityOptions = {}) {
  const violations = await axeViolations(page, options);
  const bar = IMPACT_ORDER.indexOf(options.failOn ?? "serious");
  const failing = violations.filter((v) => IMPACT_ORDER.indexOf(v.impact ?? "minor") >= bar);
  if (failing.length > 0) {
    const { width } = page.viewportSize() ?? { width: 0 };
    throw new Error(
      `${failing.length} accessibility violation(s) of impact ${IMPACT_ORDER[bar]} or worse on ${label} ` +
        `(${page.url()}, ${width} px wide):\n${describeViolations(failing)}`,
    );
  }
  return violations.filter((v) => !failing.includes(v));
}

/** Fails when the page scrolls sideways at its current width, naming the widest elements. */
export async function expectNoSidewaysScroll(page: Page, label: string) {
  const overflow = await page.evaluate(() => {
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth <= width) return null;
    const wide = [...document.body.querySelectorAll("*")]
      .filter((element) => element.getBoundingClientRect().right > width + 0.5)
      .slice(0, 5)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${
            element.className && typeof element.className === "string"
              ? `.${element.className.split(" ").join(".")}`
              : ""
          } (right edge ${Math.round(element.getBoundingClientRect().right)} px)`,
      );
    return { scrollWidth: document.documentElement.scrollWidth, width, wide };
  });
  if (overflow)
    throw new Error(
      `${label} scrolls sideways at ${overflow.width} px (content ${overflow.scrollWidth} px wide): ${overflow.wide.join(", ")}`,
    );
}

function artifactName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, "-");
  if (!safe) throw new Error(`no file name in ${JSON.stringify(name)}`);
  return safe;
}

/**
 * Saves the page at desktop and at phone width, whole page, as
 * test-artifacts/browser/<name>-desktop.png and <name>-phone.png; the viewport is put back after.
 */
export async function saveScreenshots(page: Page, name: string): Promise<{ desktop: string; phone: string }> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const before = page.viewportSize();
  const files = {
    desktop: path.join(ARTIFACTS_DIR, `${artifactName(name)}-desktop.png`),
    phone: path.join(ARTIFACTS_DIR, `${artifactName(name)}-phone.png`),
  };
  try {
    await page.setViewportSize(DESKTOP);
    await page.screenshot({ path: files.desktop, fullPage: true });
    await page.setViewportSize(PHONE);
    // A page that lays itself out again at the new width (a chart redrawn by its ResizeObserver) is
    // taken once that is done: two frames, or the full-page height is the old layout's.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: files.phone, fullPage: true });
  } finally {
    if (before) await page.setViewportSize(before);
  }
  return files;
}

/**
 * The whole check of a page in its current state: axe at desktop width and at phone width (a
 * layout can hide or squeeze things differently), no sideways scroll at phone width, and the two
 * screenshots. Restores the viewport.
 */
export async function checkPage(page: Page, name: string, options: AccessibilityOptions = {}) {
  const before = page.viewportSize();
  try {
    await page.setViewportSize(DESKTOP);
    await expectAccessible(page, `${name} (desktop)`, options);
    await page.setViewportSize(PHONE);
    await expectAccessible(page, `${name} (phone)`, options);
    await expectNoSidewaysScroll(page, name);
  } finally {
    if (before) await page.setViewportSize(before);
  }
  return saveScreenshots(page, name);
}
