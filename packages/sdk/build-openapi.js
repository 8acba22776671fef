/**
 * The second step of the package's build (after tsc): the published OpenAPI client types of the
 * surfaces src/clients.ts types, copied from the repository's shared/openapi/ (written by
 * test/helpers/openapi-publish.ts) over the re-exports tsc emitted in dist/openapi/, so that the
 * package carries them and its clients are typed by the documents current when it was packed.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const SURFACES = ["explorer", "attest", "launchpad", "amm", "inscriber"];
const SHARED = path.resolve(__dirname, "..", "..", "shared", "openapi");
const TARGET = path.join(__dirname, "dist", "openapi");

fs.mkdirSync(TARGET, { recursive: true });
for (const surface of SURFACES)
  fs.copyFileSync(path.join(SHARED, `${surface}.d.ts`), path.join(TARGET, `${surface}.d.ts`));
process.stdout.write(`dist/openapi: ${SURFACES.length} client type files from shared/openapi\n`);
