/**
 * The pages a daemon serves (the launchpad's and the AMM's): the files of its pages directory at `/`
 * (index.html as a directory's page), the wallet provider at /wallet-provider.js and the PSBT code it
 * loads when a page first needs it at /wallet-psbt.js (./wallet-provider.ts), declared in the
 * daemon's OpenAPI document whether a directory is given or not (404 NOT_FOUND without one).
 * Mount after the API and `surface.serve(app)`, before the 404 handler.
 */
import express from "express";
import { notFound } from "../http/errors";
import { type ApiSurface, z } from "../http/openapi";
import { walletPsbtBundle } from "./wallet-provider";

export interface PagesOptions {
  /** The pages directory; without it every page route answers 404 NOT_FOUND. */
  webDir?: string;
  /** The provider script (walletProviderScript), made at the first request. */
  providerScript: () => Promise<string>;
  /** What the provider offers on this daemon, for the document. */
  providerDescription: string;
  /** Files from outside the directory served beside it, by URL path (e.g. the pages' shared /style.css). */
  files?: Record<string, string>;
}

export function servePages(app: express.Express, surface: ApiSurface, options: PagesOptions): void {
  const pages = surface.on(app);
  /** A script the pages load, built on first request: JavaScript, never cached (404 without a pages directory). */
  const serveScript = (url: string, summary: string, description: string, text: () => Promise<string>) =>
    pages.get(
      url,
      {
        summary,
        tags: ["pages"],
        description: `${description} Served with the pages (404 without a pages directory).`,
        responses: { 200: { description: "JavaScript", contentType: "text/javascript" } },
      },
      async (_input, req, res) => {
        if (!options.webDir) throw notFound("NOT_FOUND", `no route for ${req.method} ${req.path}`);
        const body = await text();
        res.setHeader("Content-Type", "text/javascript; charset=utf-8");
        res.setHeader("Cache-Control", "no-store");
        res.send(body);
      },
    );
  let script: Promise<string> | null = null;
  serveScript("/wallet-provider.js", "The pages' wallet provider script", options.providerDescription, () => {
    script ??= options.providerScript();
    return script;
  });
  serveScript(
    "/wallet-psbt.js",
    "The pages' PSBT code, which the wallet provider loads when a page first signs or builds a PSBT",
    "bitcoinjs-lib's Psbt and the provider's PSBT steps (checking what a wallet signed, payments, DRC-20 sends through PSBTs), kept out of /wallet-provider.js so that a page that never pays does not load them.",
    walletPsbtBundle,
  );
  const PAGES = "served from the daemon's pages directory (--web-dir; 404 without one)";
  surface.declare("get", "/", {
    summary: "The directory page (index.html)",
    tags: ["pages"],
    description: PAGES,
    responses: { 200: { description: "an HTML page", contentType: "text/html" } },
  });
  surface.declare("get", "/:file", {
    summary: "A file of the pages: HTML, JavaScript, CSS",
    tags: ["pages"],
    params: z.object({ file: z.string() }),
    description: `${PAGES}; the content type follows the file's extension, and a directory's name redirects to its page (/<directory>/).`,
    responses: { 200: { description: "the file", contentType: "*/*" } },
  });
  surface.declare("get", "/:directory/", {
    summary: "A directory's page (its index.html)",
    tags: ["pages"],
    params: z.object({ directory: z.string() }),
    description: PAGES,
    responses: { 200: { description: "an HTML page", contentType: "text/html" } },
  });
  if (!options.webDir) return;
  for (const [urlPath, file] of Object.entries(options.files ?? {}))
    app.get(urlPath, (_req, res) => res.sendFile(file));
  app.use(express.static(options.webDir, { index: "index.html", redirect: true }));
}
