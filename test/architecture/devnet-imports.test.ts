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
import { importsInto } from "../helpers/import-scan";
import { ROOT, sourceFiles } from "../helpers/sql-scan";

const DEVNET = path.join(ROOT, "src", "devnet");
const SCANNED = ["src", "daemons"];
const ALLOWED = [DEVNET, path.join(ROOT, "daemons", "devnet")];

/** The specifiers of `file`'s source that resolve into src/devnet/. */
const devnetImportsOf = (file: string, source: string): string[] => importsInto(file, source, DEVNET);

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
