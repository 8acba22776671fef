/**
 * No service imports the devnet (issue 21, item 1): the devnet is a stand-in for dogecoind that only
 * its daemon (daemons/devnet/) and the scripts that start it load. What the explorer's package check
 * shares with the devnet's mempool (policy, standardness, script checks) lives in src/doge/. Every
 * file under src/ outside src/devnet/, and under daemons/ outside daemons/devnet/, is read for
 * import/export-from/require/import() specifiers that resolve into src/devnet/.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.join(__dirname, "..", "..");
const DEVNET = path.join(ROOT, "src", "devnet");
const SCANNED = ["src", "daemons"];
const ALLOWED = [DEVNET, path.join(ROOT, "daemons", "devnet")];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") out.push(...sourceFiles(full));
    } else if (SOURCE.test(entry.name)) out.push(full);
  }
  return out;
}

/** The module specifiers of a source text: `from "x"`, `import "x"`, `require("x")`, `import("x")`. */
export function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*|\brequire\s*\(\s*|\bimport\s*\(\s*)["'`]([^"'`]+)["'`]/g;
  for (const m of source.matchAll(pattern)) found.push(m[1]);
  return found;
}

/** The specifiers of `file`'s source that resolve into src/devnet/. */
function devnetImportsOf(file: string, source: string): string[] {
  return specifiersOf(source).filter((specifier) => {
    if (!specifier.startsWith(".")) return false;
    const resolved = path.resolve(path.dirname(file), specifier);
    return resolved === DEVNET || resolved.startsWith(DEVNET + path.sep);
  });
}

describe("architecture: no service imports the devnet", () => {
  it("finds the imports it looks for", () => {
    const file = path.join(ROOT, "src", "services", "explorer", "example.ts");
    const source = [
      'import { DevnetNode } from "../../devnet/node";',
      'import type { Coin } from "../../devnet/node";',
      'export { POLICY } from "../../devnet/params";',
      'const store = require("../../devnet/store");',
      'const lazy = await import("../../devnet/rpc-server");',
      'import { minRelayFee } from "../../doge/policy";',
      'import { parse } from "devnet/node";',
    ].join("\n");
    expect(devnetImportsOf(file, source)).to.deep.equal([
      "../../devnet/node",
      "../../devnet/node",
      "../../devnet/params",
      "../../devnet/store",
      "../../devnet/rpc-server",
    ]);
  });

  it("src/ outside src/devnet/ and daemons/ outside daemons/devnet/ import nothing from src/devnet/", () => {
    const offenders: string[] = [];
    let scanned = 0;
    for (const dir of SCANNED) {
      for (const file of sourceFiles(path.join(ROOT, dir))) {
        if (ALLOWED.some((allowed) => file.startsWith(allowed + path.sep))) continue;
        scanned += 1;
        for (const specifier of devnetImportsOf(file, fs.readFileSync(file, "utf8")))
          offenders.push(`${path.relative(ROOT, file)}: ${specifier}`);
      }
    }
    expect(scanned).to.be.greaterThan(100);
    expect(offenders).to.deep.equal([]);
  });
});
