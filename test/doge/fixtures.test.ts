import { expect } from "chai";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { TESTDATA_DIR } from "../helpers/testdata";

describe("test fixtures", () => {
  it("are byte for byte the files whose SHA-256 the data README lists", () => {
    const readme = fs.readFileSync(path.join(TESTDATA_DIR, "README.md"), "utf8");
    const listed = [...readme.matchAll(/^([0-9a-f]{64}) {2}(\S+)$/gm)].map((m) => ({ sha256: m[1], file: m[2] }));
    expect(listed.length).to.be.at.least(10);
    for (const { sha256, file } of listed) {
      const digest = createHash("sha256")
        .update(fs.readFileSync(path.join(TESTDATA_DIR, file)))
        .digest("hex");
      expect(digest, file).to.equal(sha256);
    }
  });
});
