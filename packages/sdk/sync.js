/**
 * Copies the published OpenAPI client types (shared/openapi/<surface>.d.ts, written by
 * test/helpers/openapi-publish.ts) into ./openapi/, formatted by the repository's prettier, for the
 * typed clients of src/clients.ts. test/kit/sdk-package.test.ts fails when a copy differs; rewrite
 * them with
 *
 *   node packages/sdk/sync.js
 *
 * Not part of the package (its "files" leave it out).
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const PACKAGE = __dirname;
const ROOT = path.resolve(PACKAGE, "..", "..");

/** The HTTP surfaces a dapp team calls, by their published document's name. */
const SURFACES = ["explorer", "attest", "launchpad", "amm", "inscriber"];

/** package-relative path -> the text it must have. */
async function expectedFiles() {
  const prettier = await import("prettier");
  const files = new Map();
  for (const surface of SURFACES) {
    const target = path.join("openapi", `${surface}.d.ts`);
    const source =
      `// Copied from shared/openapi/${surface}.d.ts by packages/sdk/sync.js; do not edit.\n` +
      fs.readFileSync(path.join(ROOT, "shared", "openapi", `${surface}.d.ts`), "utf8");
    const options = (await prettier.resolveConfig(path.join(PACKAGE, target))) ?? {};
    files.set(target, await prettier.format(source, { ...options, filepath: path.join(PACKAGE, target) }));
  }
  return files;
}

async function sync() {
  const files = await expectedFiles();
  fs.mkdirSync(path.join(PACKAGE, "openapi"), { recursive: true });
  for (const [relative, text] of files) fs.writeFileSync(path.join(PACKAGE, relative), text);
  return [...files.keys()];
}

module.exports = { SURFACES, expectedFiles, sync };

if (require.main === module) {
  sync().then(
    (written) => process.stdout.write(`wrote ${written.length} files to ${path.relative(ROOT, PACKAGE)}\n`),
    (error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exit(1);
    },
  );
}
