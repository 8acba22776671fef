/**
 * Secrets (private keys, project keys, passwords, cookies): one loader, `loadSecret`, and one error,
 * `SecretError`. A secret comes from a file or from the environment, never from the repository: a
 * file must be a regular file that group and others cannot access (POSIX mode & 0o077 == 0;
 * `chmod 600`), and when one is given the environment is not read. Messages name the file or the
 * variable and the fix, never the secret. Every daemon's key loader goes through here.
 */
import fs from "node:fs";
import { Wallet } from "ethers";
import { DogeosError } from "../errors";

export type SecretErrorCode = "MISSING" | "UNREADABLE" | "INSECURE_PERMISSIONS" | "MALFORMED";

/** A secret that could not be had: none given, an unreadable or insecure file, or text that is not one. */
export class SecretError extends DogeosError<SecretErrorCode> {
  constructor(code: SecretErrorCode, message: string) {
    super("invalid", code, message);
  }
}

/** The text of the secret file `file` (untrimmed); `what` names it in messages ("wallet key"). */
export function readSecretFile(file: string, what: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new SecretError(
      "UNREADABLE",
      `cannot read the ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
  if (!stat.isFile()) throw new SecretError("UNREADABLE", `the ${what} file ${file} is not a regular file`);
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    throw new SecretError(
      "INSECURE_PERMISSIONS",
      `the ${what} file ${file} has mode ${(stat.mode & 0o777).toString(8).padStart(3, "0")}; group and others must have no access: chmod 600 ${file}`,
    );
  }
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new SecretError(
      "UNREADABLE",
      `cannot read the ${what} file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
}

/**
 * A one-line secret (a password, a cookie, a key) from the secret file `file`: its text without the
 * final line break (editors and `echo` add one), other whitespace kept (a password may hold it).
 * Refuses an empty file.
 */
export function readSecretLine(file: string, what: string): string {
  const text = readSecretFile(file, what).replace(/\r?\n$/, "");
  if (text === "") throw new SecretError("UNREADABLE", `the ${what} file ${file} is empty`);
  return text;
}

export interface LoadSecretOptions<T> {
  /** What the secret is, in messages: "attester key". */
  what: string;
  /** A secret file; when given, the environment is not read. */
  file?: string | null;
  /** The variable read when no file is given, and the environment to read it from (default process.env). */
  env?: { name: string; from?: NodeJS.ProcessEnv };
  /** How to give the secret, for the message when there is none: "give --key-file (mode 0600) or set ATTESTER_PRIVATE_KEY". */
  hint?: string;
  /**
   * The secret from its text (surrounding whitespace removed); `source` names where it came from
   * ("the attester key file /x", "the environment variable ATTESTER_PRIVATE_KEY"). Throws SecretError MALFORMED (see
   * `malformed`) or its own error for text that is not one.
   */
  parse: (text: string, source: string) => T;
}

/**
 * Loads a secret: the file when given (the environment is then ignored), else the environment
 * variable; an empty value is none. Throws SecretError: MISSING, UNREADABLE, INSECURE_PERMISSIONS,
 * and whatever `parse` throws.
 */
export function loadSecret<T>(options: LoadSecretOptions<T>): T {
  if (options.file) {
    const text = readSecretFile(options.file, options.what).trim();
    const source = `the ${options.what} file ${options.file}`;
    if (text === "") throw new SecretError("MISSING", `${source} is empty`);
    return options.parse(text, source);
  }
  const text = options.env ? ((options.env.from ?? process.env)[options.env.name] ?? "").trim() : "";
  if (text === "") throw new SecretError("MISSING", `no ${options.what}${options.hint ? `: ${options.hint}` : ""}`);
  return options.parse(text, `the environment variable ${options.env!.name}`);
}

/** The MALFORMED refusal of a `parse`: `source` and what is wrong, never the text. */
export function malformed(source: string, problem: string): SecretError {
  return new SecretError("MALFORMED", `${source} ${problem}`);
}

/** A `parse` for an EVM private key: 0x and 64 hex digits (`allowBare`: the 0x may be left out), in range. */
export function evmPrivateKey(options: { allowBare?: boolean } = {}): (text: string, source: string) => Wallet {
  return (text, source) => {
    const key = options.allowBare && !text.startsWith("0x") ? `0x${text}` : text;
    if (!/^0x[0-9a-fA-F]{64}$/.test(key))
      throw malformed(
        source,
        `does not hold a private key (${options.allowBare ? "64 hex digits, 0x optional" : "0x and 64 hex digits"})`,
      );
    try {
      return new Wallet(key);
    } catch {
      throw malformed(source, "holds an out-of-range private key");
    }
  };
}
