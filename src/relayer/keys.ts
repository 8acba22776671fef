/**
 * The relayer's secrets: its L2 key (0x hex, sends submitFact and settle) and its inscriber project
 * key, each from a file of mode 0600 or from the environment, never from the repository. Messages
 * never quote a secret.
 */
import { SecretFileError, readSecretFile as readSecret } from "../config/secret-file";
import { Wallet } from "ethers";

/** Read when no L2 key file is given. */
export const RELAYER_L2_KEY_ENV = "RELAYER_PRIVATE_KEY";
/** Read when no inscriber key file is given. */
export const RELAYER_INSCRIBER_KEY_ENV = "RELAYER_INSCRIBER_KEY";
/** Read when no wallet key file is given (the relayer's own hot wallet; never the inscriber's DOGEOS_WALLET_WIF). */
export const RELAYER_WALLET_KEY_ENV = "RELAYER_WALLET_WIF";

export class RelayerKeyError extends Error {
  constructor(readonly code: "MISSING" | "UNREADABLE" | "INSECURE_PERMISSIONS" | "MALFORMED", message: string) {
    super(message);
    this.name = "RelayerKeyError";
  }
}

/** The trimmed text of a secret file that group and others cannot access. */
export function readSecretFile(file: string, what: string): string {
  try {
    return readSecret(file, what).trim();
  } catch (error) {
    if (error instanceof SecretFileError) throw new RelayerKeyError(error.code, error.message);
    throw error;
  }
}

/** The L2 key from `keyFile` (the environment is then ignored) or RELAYER_PRIVATE_KEY. */
export function loadRelayerL2Key(options: { keyFile?: string; env?: NodeJS.ProcessEnv }): Wallet {
  const source = options.keyFile ? `the L2 key file ${options.keyFile}` : RELAYER_L2_KEY_ENV;
  const text = options.keyFile ? readSecretFile(options.keyFile, "L2 key") : ((options.env ?? process.env)[RELAYER_L2_KEY_ENV] ?? "").trim();
  if (!text) throw new RelayerKeyError("MISSING", `no L2 key for the relayer: give --l2-key-file (mode 0600) or set ${RELAYER_L2_KEY_ENV}`);
  if (!/^0x[0-9a-fA-F]{64}$/.test(text)) throw new RelayerKeyError("MALFORMED", `${source} does not hold a private key (0x and 64 hex digits)`);
  try {
    return new Wallet(text);
  } catch {
    throw new RelayerKeyError("MALFORMED", `${source} holds an out-of-range private key`);
  }
}

/** The inscriber project key from `keyFile` or RELAYER_INSCRIBER_KEY. */
export function loadInscriberKey(options: { keyFile?: string; env?: NodeJS.ProcessEnv }): string {
  const text = options.keyFile ? readSecretFile(options.keyFile, "inscriber key") : ((options.env ?? process.env)[RELAYER_INSCRIBER_KEY_ENV] ?? "").trim();
  if (!text) throw new RelayerKeyError("MISSING", `no inscriber project key: give --inscriber-key-file (mode 0600) or set ${RELAYER_INSCRIBER_KEY_ENV}`);
  if (!/^[\x21-\x7e]+$/.test(text)) throw new RelayerKeyError("MALFORMED", "the inscriber project key must be printable ASCII without spaces");
  return text;
}
