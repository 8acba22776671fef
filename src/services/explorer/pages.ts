/**
 * The explorer's pages (issue 29, item 2): HTML people read, served by the explorer daemon beside
 * its API. Each page is the one shell web/explorer/page.html with its own script, which reads the
 * public API of this same origin (/api, /esplora/api) and renders with DOM calls only (chain text
 * is never parsed as HTML). The scripts are web/explorer/src/*.ts, bundled for the browser with
 * esbuild once per process, the way the launchpad bundles its development wallet (dev-wallet.ts).
 *
 * Every page answer carries a strict Content-Security-Policy: scripts, styles, images, frames and
 * requests from this origin only, nothing inline, no eval, no outside request; an inscription's
 * HTML is framed from the content route (which adds its own `sandbox` policy) in an iframe whose
 * sandbox allows nothing, so it never runs script. Page routes sit outside /api and /esplora/api and
 * are declared in the OpenAPI document like the launchpad's pages (tag "pages").
 */
import fs from "node:fs";
import path from "node:path";
import type express from "express";
import { build } from "esbuild";
import { ApiSurface, z } from "../http/openapi";
import { notFound } from "../http/errors";

const ROOT = path.resolve(__dirname, "..", "..", "..");
/** The pages' directory: the shell, the stylesheet and the scripts' sources. */
export const EXPLORER_WEB_DIR = path.join(ROOT, "web", "explorer");

/** The policy of every page answer (see the header). */
export const EXPLORER_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** A page: its script (web/explorer/src/<script>.ts) and the title the shell starts with. */
interface PageRoute {
  path: string;
  script: string;
  title: string;
  summary: string;
  params?: Record<string, string>;
}

/** The pages, by path. A path parameter is read by the page's script, which answers a bad one itself. */
export const EXPLORER_PAGES: readonly PageRoute[] = [
  {
    path: "/",
    script: "home",
    title: "Explorer",
    summary: "The explorer's home: search, the live tip, recent OP_RETURN and OP_CHECKZKP",
  },
  {
    path: "/search",
    script: "search",
    title: "Search",
    summary: "Search: a txid, address, inscription id, block height or hash, document SHA-256 or verifying key (?q=)",
  },
  {
    path: "/tx/:txid",
    script: "tx",
    title: "Transaction",
    summary: "A transaction page",
    params: { txid: "the transaction id" },
  },
  {
    path: "/address/:address",
    script: "address",
    title: "Address",
    summary: "An address page",
    params: { address: "the address" },
  },
  {
    path: "/inscription/:id",
    script: "inscription",
    title: "Inscription",
    summary: "An inscription page",
    params: { id: "the inscription id (<txid>i<n>)" },
  },
  {
    path: "/block/:id",
    script: "block",
    title: "Block",
    summary: "A block page",
    params: { id: "the block's hash or height" },
  },
  {
    path: "/drc20/:tick",
    script: "tick",
    title: "DRC-20",
    summary: "A DRC-20 tick page",
    params: { tick: "the tick" },
  },
  {
    path: "/opreturn",
    script: "opreturn",
    title: "OP_RETURN",
    summary: "The OP_RETURN outputs, newest first (?magic= for one prefix)",
  },
  { path: "/zkp", script: "zkp", title: "OP_CHECKZKP", summary: "OP_CHECKZKP uses and their shadow verdicts" },
  {
    path: "/zkp/vk/:sha256",
    script: "zkp",
    title: "OP_CHECKZKP",
    summary: "The OP_CHECKZKP uses of one verifying key",
    params: { sha256: "the verifying key's SHA-256" },
  },
];

const SCRIPTS = [...new Set(EXPLORER_PAGES.map((page) => page.script))];
const STYLESHEET = "explorer.css";

let bundles: Promise<Map<string, string>> | null = null;

/** Every page's script, bundled for the browser once per process (name -> JavaScript). */
export function explorerPageBundles(): Promise<Map<string, string>> {
  bundles ??= build({
    entryPoints: Object.fromEntries(SCRIPTS.map((name) => [name, path.join(EXPLORER_WEB_DIR, "src", `${name}.ts`)])),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    write: false,
    outdir: "/explorer-pages",
    logLevel: "silent",
  }).then((result) => {
    const out = new Map<string, string>();
    for (const file of result.outputFiles) out.set(path.basename(file.path, ".js"), file.text);
    return out;
  });
  bundles.catch(() => {
    bundles = null; // a failed build is tried again on the next request
  });
  return bundles;
}

let shellTemplate: string | null = null;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The shell with its title and script filled in (both ours, never the request's). */
function shell(page: PageRoute): string {
  shellTemplate ??= fs.readFileSync(path.join(EXPLORER_WEB_DIR, "page.html"), "utf8");
  return shellTemplate
    .replaceAll("{{title}}", escapeHtml(page.title))
    .replaceAll("{{script}}", `/static/explorer/${page.script}.js`)
    .replaceAll("{{stylesheet}}", `/static/explorer/${STYLESHEET}`);
}

function pageHeaders(res: express.Response): void {
  res.setHeader("Content-Security-Policy", EXPLORER_PAGE_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
}

/**
 * Serves the pages on `app` and declares them on `surface`. Mounted by createExplorerApp after
 * the API routers, before its 404 handler.
 */
export function mountExplorerPages(app: express.Express, surface: ApiSurface): void {
  const on = surface.on(app);
  for (const page of EXPLORER_PAGES) {
    on.get(
      page.path,
      {
        summary: page.summary,
        tags: ["pages"],
        params: page.params
          ? z.object(
              Object.fromEntries(
                Object.entries(page.params).map(([name, description]) => [name, z.string().openapi({ description })]),
              ),
            )
          : undefined,
        responses: { 200: { description: "an HTML page (its script reads this API)", contentType: "text/html" } },
      },
      (_input, _req, res) => {
        pageHeaders(res);
        res.setHeader("Cache-Control", "no-cache");
        res.type("html").send(shell(page));
      },
    );
  }
  const files = [...SCRIPTS.map((name) => `${name}.js`), STYLESHEET];
  on.get(
    "/static/explorer/:file",
    {
      summary: "A file of the explorer's pages: a page's script or the stylesheet",
      tags: ["pages"],
      params: z.object({ file: z.string().openapi({ description: `one of ${files.join(", ")}` }) }),
      responses: { 200: { description: "JavaScript or CSS", contentType: "*/*" } },
    },
    async ({ params: { file } }, _req, res) => {
      if (!files.includes(file)) throw notFound("NOT_FOUND", `${file} is not a file of the explorer's pages`);
      pageHeaders(res);
      res.setHeader("Cache-Control", "no-cache");
      if (file === STYLESHEET) {
        res.type("css").send(fs.readFileSync(path.join(EXPLORER_WEB_DIR, STYLESHEET), "utf8"));
        return;
      }
      const script = (await explorerPageBundles()).get(file.replace(/\.js$/, ""))!;
      res.type("text/javascript; charset=utf-8").send(script);
    },
  );
}
