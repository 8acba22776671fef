/**
 * Domain code throws refusals from src/errors.ts and imports nothing from src/services/http/ (issue
 * 26, item 8): a Refusal says what went wrong in the domain's words (a kind, a code, when to ask
 * again, which credentials to present), and only the HTTP layer (the files that build Express apps
 * and routers, the zod API schemas and OpenAPI documents, and the daemons' wiring of them) turns it
 * into a status and headers. Every file under src/ and daemons/ is read for import/export-from/
 * require/import() specifiers that resolve into src/services/http/; a file doing so must be listed
 * below with its reason, and a listed file that no longer imports it fails the test too, so the
 * list cannot go stale (as test/indexer/index-readers.test.ts keeps its OWN_TABLES).
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { ROOT, repoPath, sourceFiles } from "../helpers/sql-scan";
import { importsInto } from "../helpers/import-scan";

const HTTP_DIR = path.join(ROOT, "src", "services", "http");
const SCANNED = ["src", "daemons"];

interface Entry {
  file: string;
  why: string;
}

/** The HTTP layer: files that may import src/services/http/, each with its reason. */
const HTTP_LAYER: Entry[] = [
  // Daemons: wiring of an HTTP app.
  { file: "daemons/amm/main.ts", why: "reads the AMM app's rate-limit and trust-proxy options" },
  { file: "daemons/attest-api/main.ts", why: "reads the attest API's rate-limit and trust-proxy options" },
  { file: "daemons/explorer/main.ts", why: "reads the explorer app's rate-limit and trust-proxy options" },
  { file: "daemons/inscriber/main.ts", why: "reads the inscriber app's rate-limit and trust-proxy options" },
  { file: "daemons/launchpad/main.ts", why: "reads the launchpad app's rate-limit and trust-proxy options" },
  // The attester's signing API.
  { file: "src/attester/app.ts", why: "builds the attester's Express app and its OpenAPI document" },
  { file: "src/attester/schemas.ts", why: "the attester's zod API schemas" },
  // The relayer's ops endpoints.
  { file: "src/relayer/http.ts", why: "the relayer's /v1/status route and its OpenAPI schema" },
  // The AMM and its bonding curves.
  { file: "src/services/amm/api-schema.ts", why: "the AMM's zod API schemas" },
  { file: "src/services/amm/app.ts", why: "builds the AMM's Express app" },
  { file: "src/services/amm/bonding-app.ts", why: "builds the bonding curves' Express router and its OpenAPI routes" },
  // The attest API.
  { file: "src/services/attest-api/app.ts", why: "builds the attest API's Express app" },
  { file: "src/services/attest-api/schemas.ts", why: "the attest API's zod API schemas" },
  // The explorer.
  { file: "src/services/explorer/api-schema.ts", why: "the explorer's zod API schemas" },
  { file: "src/services/explorer/app.ts", why: "builds the explorer's Express app" },
  { file: "src/services/explorer/esplora-schema.ts", why: "the Esplora subset's zod API schemas" },
  { file: "src/services/explorer/esplora.ts", why: "builds the Esplora subset's Express router" },
  {
    file: "src/services/explorer/pages.ts",
    why: "serves the explorer's pages and declares them in its OpenAPI document",
  },
  // The inscriber.
  { file: "src/services/inscriber/app.ts", why: "builds the inscriber's Express app" },
  { file: "src/services/inscriber/schemas.ts", why: "the inscriber's zod API schemas" },
  // The launchpad.
  { file: "src/services/launchpad/api-schema.ts", why: "the launchpad's zod API schemas" },
  { file: "src/services/launchpad/app.ts", why: "builds the launchpad's Express app" },
  {
    file: "src/services/pages/mount.ts",
    why: "mounts the pages and /wallet-provider.js on the launchpad's and the AMM's Express apps, declared in their OpenAPI documents",
  },
  // Every daemon's ops endpoints.
  { file: "src/services/ops/server.ts", why: "builds the ops endpoints' Express app and OpenAPI document" },
];

/** Every file under src/ and daemons/ outside src/services/http/ itself, with the specifiers that reach into it. */
function httpImporters(): { files: number; importers: Map<string, string[]> } {
  const importers = new Map<string, string[]>();
  let files = 0;
  for (const dir of SCANNED) {
    for (const file of sourceFiles(path.join(ROOT, dir))) {
      if (file.startsWith(HTTP_DIR + path.sep)) continue;
      files += 1;
      const specifiers = importsInto(file, fs.readFileSync(file, "utf8"), HTTP_DIR);
      if (specifiers.length > 0) importers.set(repoPath(file), specifiers);
    }
  }
  return { files, importers };
}

describe("architecture: domain code imports nothing from src/services/http (issue 26, item 8)", () => {
  it("finds the imports it looks for", () => {
    const file = path.join(ROOT, "src", "services", "amm", "example.ts");
    const source = [
      'import { AppError, badRequest } from "../http/errors";',
      'import type { Refusal } from "../http/errors";',
      'export { z } from "../http/openapi";',
      'const limits = require("../http/rate-limit");',
      'const lazy = await import("../http/validation");',
      'import { Refusal } from "../../errors";',
      'import { route } from "./http";',
      'import http from "node:http";',
      "// the answer is mapped by services/http/errors.ts",
    ].join("\n");
    expect(importsInto(file, source, HTTP_DIR)).to.deep.equal([
      "../http/errors",
      "../http/errors",
      "../http/openapi",
      "../http/rate-limit",
      "../http/validation",
    ]);
    const relayer = path.join(ROOT, "src", "relayer", "example.ts");
    expect(importsInto(relayer, 'import { z } from "../services/http/openapi";', HTTP_DIR)).to.deep.equal([
      "../services/http/openapi",
    ]);
  });

  it("lists each file once, in one list, with a reason", () => {
    const all = [...HTTP_LAYER];
    expect(new Set(all.map((entry) => entry.file)).size, "a file is listed twice").to.equal(all.length);
    for (const entry of all) {
      expect(fs.existsSync(path.join(ROOT, entry.file)), `${entry.file} does not exist: drop its entry`).to.equal(true);
      expect(entry.why.trim(), `${entry.file} needs its reason`).to.not.equal("");
    }
  });

  it("only the HTTP layer imports src/services/http/ (src, daemons)", () => {
    const { files, importers } = httpImporters();
    expect(files).to.be.greaterThan(100);
    const listed = new Set([...HTTP_LAYER].map((entry) => entry.file));
    const offenders = [...importers]
      .filter(([file]) => !listed.has(file))
      .map(([file, specifiers]) => `${file}: ${specifiers.join(", ")}`);
    expect(
      offenders,
      "domain code throws refusals from src/errors.ts (Refusal, badRequest, conflict, notFound, unprocessable, " +
        "unavailable; retryAfterSeconds, challenge) and moves any pure helper it needs out of services/http; " +
        "a new HTTP-layer file (an Express app or router, zod API schemas) goes into HTTP_LAYER with its reason",
    ).to.deep.equal([]);
  });

  it("every HTTP-layer file still imports src/services/http/ (the list cannot go stale)", () => {
    const { importers } = httpImporters();
    const stale = HTTP_LAYER.filter((entry) => !importers.has(entry.file)).map((entry) => entry.file);
    expect(stale, "these no longer import src/services/http/: drop their HTTP_LAYER entries").to.deep.equal([]);
  });
});
