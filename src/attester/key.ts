/**
 * The attester's signing key: a 0x-hex EVM private key from a key file (mode 0600: no access for
 * group or others) or from the environment, never from the repository (src/config/secret-file.ts).
 * Messages never quote it.
 */
import type { Wallet } from "ethers";
import { evmPrivateKey, loadSecret } from "../config/secret-file";

/** The environment variable read when no key file is given. */
export const ATTESTER_KEY_ENV = "ATTESTER_PRIVATE_KEY";

/**
 * Loads the key: from `keyFile` when given (the environment is then ignored), else from
 * `env[ATTESTER_PRIVATE_KEY]`. A key file that group or others may access is refused (chmod 600).
 * Throws SecretError.
 */
export function loadAttesterKey(options: { keyFile?: string; env?: NodeJS.ProcessEnv }): Wallet {
  return loadSecret({
    what: "attester key",
    file: options.keyFile,
    env: { name: ATTESTER_KEY_ENV, from: options.env },
    hint: `give --key-file (mode 0600) or set ${ATTESTER_KEY_ENV}`,
    parse: evmPrivateKey(),
  });
}
