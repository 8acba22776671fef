/**
 * Copies what @dogeos/contracts publishes from the repository's one source of each: the Solidity
 * interfaces from contracts/ (same folder layout, so their relative imports hold) and the ABI
 * files with the ABI index from shared/abi/ (written by deploy/ and scripts/export-abi.ts).
 * test/kit/contracts-package.test.ts fails when a copy differs; rewrite them with
 *
 *   node packages/contracts/sync.js
 *
 * Not part of the package (its "files" leave it out).
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const PACKAGE = __dirname;
const ROOT = path.resolve(PACKAGE, "..", "..");

/** The interfaces a consumer contract imports, by their path under contracts/. */
const INTERFACES = [
  "attestation/IDogeAttestation.sol",
  "governance/IAdminTimelock.sol",
  "services/IJobService.sol",
  "services/IDogeInscriber.sol",
  "services/IDogeAnchor.sol",
  "plugs/IPlugsMarketplace.sol",
  "envelope/IEnvelopeHelper.sol",
];

/** Every file the package carries from the repository: package-relative path -> its text. */
function expectedFiles() {
  const files = new Map();
  for (const file of INTERFACES)
    files.set(path.join("contracts", file), fs.readFileSync(path.join(ROOT, "contracts", file), "utf8"));
  const abiDir = path.join(ROOT, "shared", "abi");
  for (const name of fs
    .readdirSync(abiDir)
    .filter((n) => n.endsWith(".json"))
    .sort())
    files.set(path.join("abi", name), fs.readFileSync(path.join(abiDir, name), "utf8"));
  return files;
}

/** Writes the copies; removes copies whose source is gone. Returns the paths written. */
function sync() {
  const files = expectedFiles();
  for (const dir of ["contracts", "abi"]) {
    const root = path.join(PACKAGE, dir);
    if (!fs.existsSync(root)) continue;
    for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const relative = path.relative(PACKAGE, path.join(entry.parentPath ?? entry.path, entry.name));
      if (!files.has(relative)) fs.rmSync(path.join(PACKAGE, relative));
    }
  }
  for (const [relative, text] of files) {
    fs.mkdirSync(path.dirname(path.join(PACKAGE, relative)), { recursive: true });
    fs.writeFileSync(path.join(PACKAGE, relative), text);
  }
  return [...files.keys()];
}

module.exports = { INTERFACES, expectedFiles, sync };

if (require.main === module) {
  const written = sync();
  process.stdout.write(`wrote ${written.length} files to ${path.relative(ROOT, PACKAGE)}\n`);
}
