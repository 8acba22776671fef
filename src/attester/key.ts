/**
 * The attester's signing key: a 0x-hex EVM private key from a key file (mode 0600: no access for
 * group or others) or from the environment, never from the repository. Messages never quote it.
 */
import { SecretFileError, readSecretFile } from "../config/secret-file";
import { Wallet } from "ethers";

/** The environment variable read when no key file is given. */
export const ATTESTER_KEY_ENV = "ATTESTER_PRIVATE_KEY";

export class AttesterKeyError extends Error {
  constructor(readonly code: "MISSING" | "UNREADABLE" | "INSECURE_PERMISSIONS" | "MALFORMED", message: string) {
    super(message);
    this.name = "AttesterKeyError";
  }
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

function walletOf(text: string, source: string): Wallet {
  const key = text.trim();
  if (!PRIVATE_KEY.test(key)) throw new AttesterKeyError("MALFORMED", `${source} does not hold a private key (0x and 64 hex digits)`);
  try {
    return new Wallet(key);
  } catch {
    throw new AttesterKeyError("MALFORMED", `${source} holds an out-of-range private key`);
  }
}

/**
 * Loads the key: from `keyFile` when given (the environment is then ignored), else from
 * `env[ATTESTER_PRIVATE_KEY]`. A key file that group or others may access is refused (chmod 600).
 */
export function loadAttesterKey(options: { keyFile?: string; env?: NodeJS.ProcessEnv }): Wallet {
  if (options.keyFile) {
    const file = options.keyFile;
    let text: string;
    try {
      text = readSecretFile(file, "attester key");
    } catch (error) {
      if (error instanceof SecretFileError) throw new AttesterKeyError(error.code, error.message);
      throw error;
    }
    return walletOf(text, `the attester key file ${file}`);
  }
  const value = (options.env ?? process.env)[ATTESTER_KEY_ENV];
  if (!value) throw new AttesterKeyError("MISSING", `no attester key: give --key-file (mode 0600) or set ${ATTESTER_KEY_ENV}`);
  return walletOf(value, ATTESTER_KEY_ENV);
}
