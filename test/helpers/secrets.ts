/** Secret files and the refusals of src/config/secret-file.ts, for the tests of the key loaders. */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { SecretError } from "../../src/config/secret-file";

/** Writes `text` to `dir/name` with exactly `mode` (the umask cannot narrow it). */
export function writeSecretFile(dir: string, name: string, text: string, mode: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, { mode });
  fs.chmodSync(file, mode);
  return file;
}

/** The SecretError code `run` throws (null when it throws nothing); its message must not quote `secret`. */
export function secretErrorCode(run: () => unknown, secret: string): string | null {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(SecretError);
    expect((error as Error).message).to.not.include(secret);
    return (error as SecretError).code;
  }
  return null;
}
