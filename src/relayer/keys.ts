/**
 * The relayer's secrets: its L2 key (0x hex, sends submitFact and settle) and its inscriber project
 * key, each from a file of mode 0600 or from the environment, never from the repository
 * (src/config/secret-file.ts). Messages never quote a secret.
 */
import type { Wallet } from "ethers";
import { evmPrivateKey, loadSecret, malformed } from "../config/secret-file";

/** Read when no L2 key file is given. */
export const RELAYER_L2_KEY_ENV = "RELAYER_PRIVATE_KEY";
/** Read when no inscriber key file is given. */
export const RELAYER_INSCRIBER_KEY_ENV = "RELAYER_INSCRIBER_KEY";
/** Read when no wallet key file is given (the relayer's own hot wallet; never the inscriber's DOGEOS_WALLET_WIF). */
export const RELAYER_WALLET_KEY_ENV = "RELAYER_WALLET_WIF";

/** The L2 key from `keyFile` (the environment is then ignored) or RELAYER_PRIVATE_KEY. Throws SecretError. */
export function loadRelayerL2Key(options: { keyFile?: string; env?: NodeJS.ProcessEnv }): Wallet {
  return loadSecret({
    what: "L2 key",
    file: options.keyFile,
    env: { name: RELAYER_L2_KEY_ENV, from: options.env },
    hint: `the relayer needs one: give --l2-key-file (mode 0600) or set ${RELAYER_L2_KEY_ENV}`,
    parse: evmPrivateKey(),
  });
}

/** The inscriber project key from `keyFile` or RELAYER_INSCRIBER_KEY. Throws SecretError. */
export function loadInscriberKey(options: { keyFile?: string; env?: NodeJS.ProcessEnv }): string {
  return loadSecret({
    what: "inscriber project key",
    file: options.keyFile,
    env: { name: RELAYER_INSCRIBER_KEY_ENV, from: options.env },
    hint: `give --inscriber-key-file (mode 0600) or set ${RELAYER_INSCRIBER_KEY_ENV}`,
    parse: (text, source) => {
      if (!/^[\x21-\x7e]+$/.test(text)) throw malformed(source, "is not a project key: printable ASCII without spaces");
      return text;
    },
  });
}
