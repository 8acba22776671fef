/**
 * The dogecoind connection options every daemon shares, as an option-table fragment, and the client
 * they configure:
 *
 *   --rpc-url          http(s)://host:port/ (credentials in it still work, but `ps` shows them)
 *   --rpc-user         rpcuser
 *   --rpc-password     rpcpassword; a secret: --rpc-password-file <0600 file> / <PREFIX>_RPC_PASSWORD_FILE
 *   --rpc-cookie-file  dogecoind's cookie (`<datadir>/.cookie`, or `<datadir>/testnet3/.cookie`,
 *                      `<datadir>/regtest/.cookie`) instead of a user and password
 *
 * The cookie: a dogecoind started without -rpcpassword writes `__cookie__:<random hex>` to the
 * `.cookie` file of its network's data directory at every start and deletes it when it stops
 * (Bitcoin Core's cookie authentication, src/rpc/protocol.cpp `GenerateAuthCookie`, COOKIEAUTH_USER
 * "__cookie__", COOKIEAUTH_FILE ".cookie", inherited by Dogecoin Core 1.14). dogecoind creates it
 * under umask 077 (`-sysperms` off), so the file is 0600 and passes the same secret-file check as
 * every other secret. It changes when the node restarts, so the client made here reads it again
 * after a connection failure and on a 401 (then resends the refused call once).
 */
import {
  DogecoinRpcClient,
  DogecoinRpcClientOptions,
  RpcAuthError,
  RpcTransportError,
  RpcTimeoutError,
} from "../chain/dogecoin-rpc";
import { ConfigError, OptionSpec } from "./load";
import { readSecretLine } from "./secret-file";

export interface RpcOptionTable {
  "rpc-url": OptionSpec & { kind: "url" };
  "rpc-user": OptionSpec & { kind: "string" };
  "rpc-password": OptionSpec & { kind: "string"; secret: true };
  "rpc-cookie-file": OptionSpec & { kind: "string" };
}

export interface RpcOptionsSettings {
  /** Whether --rpc-url must be given (default true). */
  required?: boolean;
  /** What the daemon uses the node for, appended to --rpc-url's description ("broadcasts"). */
  purpose?: string;
}

/**
 * The option-table fragment for a dogecoind connection, env variables `<envPrefix>_RPC_URL`,
 * `_RPC_USER`, `_RPC_PASSWORD` (and `_RPC_PASSWORD_FILE`), `_RPC_COOKIE_FILE`: spread it into a
 * daemon's table, `{ ...rpcOptions("INDEXER"), db: ... }`.
 */
export function rpcOptions(envPrefix: string, settings: RpcOptionsSettings = {}): RpcOptionTable {
  return {
    "rpc-url": {
      kind: "url",
      env: `${envPrefix}_RPC_URL`,
      required: settings.required ?? true,
      description: `dogecoind JSON-RPC URL, http://host:port/${settings.purpose ? ` (${settings.purpose})` : ""}`,
    },
    "rpc-user": {
      kind: "string",
      env: `${envPrefix}_RPC_USER`,
      description: "dogecoind rpcuser (with --rpc-password)",
    },
    "rpc-password": {
      kind: "string",
      env: `${envPrefix}_RPC_PASSWORD`,
      secret: true,
      description: "dogecoind rpcpassword (prefer --rpc-password-file: a command line is visible to ps)",
    },
    "rpc-cookie-file": {
      kind: "string",
      env: `${envPrefix}_RPC_COOKIE_FILE`,
      description:
        "dogecoind's .cookie file (in its network's data directory) instead of a user and password; read again when the node restarts",
    },
  };
}

/** The values `rpcOptions` yields (what loadConfig gives for them). */
export interface RpcConfig {
  "rpc-url"?: string;
  "rpc-user"?: string;
  "rpc-password"?: string;
  "rpc-cookie-file"?: string;
}

export interface CookieCredentials {
  username: string;
  password: string;
}

/** `user:password` from a dogecoind cookie file (a secret file: 0600). */
export function readCookieFile(file: string): CookieCredentials {
  const text = readSecretLine(file, "dogecoind cookie");
  const colon = text.indexOf(":");
  if (colon <= 0 || colon === text.length - 1)
    throw new ConfigError(`the dogecoind cookie file ${file} does not hold "user:password"`);
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * Checks the combination (a cookie file excludes a user and password, and the URL must not carry
 * credentials beside it) and reads the cookie once, so a daemon stops at start-up with one clear
 * line. For a loadDaemonConfig `check`.
 */
export function checkRpcConfig(config: RpcConfig): void {
  const cookieFile = config["rpc-cookie-file"];
  if (!cookieFile) return;
  if (config["rpc-user"] || config["rpc-password"])
    throw new ConfigError("--rpc-cookie-file replaces --rpc-user and --rpc-password: give one or the other");
  if (config["rpc-url"]) {
    const url = new URL(config["rpc-url"]);
    if (url.username || url.password)
      throw new ConfigError("--rpc-cookie-file replaces the credentials in --rpc-url: remove them from the URL");
  }
  readCookieFile(cookieFile);
}

/**
 * DogecoinRpcClient options from the configuration (without `extra`'s timeouts and logger). With a
 * cookie file the credentials are the cookie's as read now; `createDogecoinRpcClient` also reads it
 * again when the node restarts.
 */
export function rpcClientOptions(
  config: RpcConfig,
  extra: Omit<DogecoinRpcClientOptions, "url" | "username" | "password"> = {},
): DogecoinRpcClientOptions {
  const url = config["rpc-url"];
  if (!url) throw new ConfigError("no --rpc-url");
  checkRpcConfig(config);
  const cookieFile = config["rpc-cookie-file"];
  const credentials = cookieFile
    ? readCookieFile(cookieFile)
    : { username: config["rpc-user"] || undefined, password: config["rpc-password"] || undefined };
  return { ...extra, url, ...credentials };
}

/** The dogecoind client for the configuration: a `CookieAuthRpcClient` when a cookie file is given. */
export function createDogecoinRpcClient(
  config: RpcConfig,
  extra: Omit<DogecoinRpcClientOptions, "url" | "username" | "password"> = {},
): DogecoinRpcClient {
  const options = rpcClientOptions(config, extra);
  const cookieFile = config["rpc-cookie-file"];
  return cookieFile ? new CookieAuthRpcClient(options, cookieFile) : new DogecoinRpcClient(options);
}

/**
 * A DogecoinRpcClient authenticated with dogecoind's cookie file. Every call goes through `call`
 * (the typed methods too), which sends it with the cookie last read; the file is read again before
 * the next call after a connection failure or time-out (the node may be restarting, and writes a
 * new cookie when it is back), and at once on a 401, after which the call is sent once more if
 * the cookie changed. An unreadable cookie while the node is down keeps the last one.
 */
export class CookieAuthRpcClient extends DogecoinRpcClient {
  readonly cookieFile: string;
  readonly #options: DogecoinRpcClientOptions;
  #password: string;
  #inner: DogecoinRpcClient;
  #stale = false;

  constructor(options: DogecoinRpcClientOptions, cookieFile: string) {
    const credentials = readCookieFile(cookieFile);
    const withCookie = { ...options, ...credentials };
    super(withCookie);
    this.cookieFile = cookieFile;
    this.#options = options;
    this.#password = credentials.password;
    this.#inner = new DogecoinRpcClient(withCookie);
  }

  /** Reads the cookie again; true when it changed (and the next calls use it). */
  reloadCookie(): boolean {
    let credentials: CookieCredentials;
    try {
      credentials = readCookieFile(this.cookieFile);
    } catch {
      return false;
    }
    this.#stale = false;
    if (credentials.password === this.#password) return false;
    this.#password = credentials.password;
    this.#inner = new DogecoinRpcClient({ ...this.#options, ...credentials });
    this.#options.logger?.warn(
      { endpoint: this.endpoint, cookieFile: this.cookieFile },
      "dogecoind cookie changed; using the new one",
    );
    return true;
  }

  override async call<T>(method: string, params: unknown[] = []): Promise<T> {
    if (this.#stale) this.reloadCookie();
    try {
      return await this.#inner.call<T>(method, params);
    } catch (error) {
      if (error instanceof RpcAuthError && this.reloadCookie()) return this.#inner.call<T>(method, params);
      if (error instanceof RpcTransportError || error instanceof RpcTimeoutError) this.#stale = true;
      throw error;
    }
  }
}
