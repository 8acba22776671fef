/**
 * Reading a secret (a private key, a project key) from a file: it must be a regular file that
 * group and others cannot access (POSIX mode & 0o077 == 0; `chmod 600`). Messages name the file
 * and the fix, never the secret. Every daemon's key loader goes through here.
 */
import fs from "node:fs";

export class SecretFileError extends Error {
  constructor(readonly code: "UNREADABLE" | "INSECURE_PERMISSIONS", message: string) {
    super(message);
    this.name = "SecretFileError";
  }
}

/** The text of the secret file `file` (untrimmed); `what` names it in messages ("wallet key"). */
export function readSecretFile(file: string, what: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new SecretFileError("UNREADABLE", `cannot read the ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
  if (!stat.isFile()) throw new SecretFileError("UNREADABLE", `the ${what} file ${file} is not a regular file`);
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    throw new SecretFileError("INSECURE_PERMISSIONS",
      `the ${what} file ${file} has mode ${(stat.mode & 0o777).toString(8).padStart(3, "0")}; group and others must have no access: chmod 600 ${file}`);
  }
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new SecretFileError("UNREADABLE", `cannot read the ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

/**
 * A one-line secret (a password, a cookie, a key) from the secret file `file`: its text without the
 * final line break (editors and `echo` add one). Refuses an empty file.
 */
export function readSecretLine(file: string, what: string): string {
  const text = readSecretFile(file, what).replace(/\r?\n$/, "");
  if (text === "") throw new SecretFileError("UNREADABLE", `the ${what} file ${file} is empty`);
  return text;
}
