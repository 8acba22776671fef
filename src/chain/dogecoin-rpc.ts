/**
 * JSON-RPC 1.0 client for Dogecoin Core 1.14 (dogecoind) and the devnet, over Node's fetch.
 *
 * dogecoind's HTTP layer (src/httprpc.cpp) answers an RPC error with HTTP 500 and a JSON body
 * `{"result":null,"error":{"code","message"},"id"}`, except -32601 (404) and -32600 (400); a bad
 * password gets 401 with an empty body, an address outside rpcallowip 403, and a full work queue
 * or a node still starting its HTTP server 503 with a text body. The body is parsed whatever the
 * status, so every JSON-RPC error surfaces as a `DogecoinRpcError` with dogecoind's own code.
 *
 * Retries, with exponential back-off and jitter, happen only where resending cannot do harm:
 * transport failures (refused, reset, timed out, 5xx without a JSON-RPC body) and warm-up (-28).
 * An RPC error is dogecoind's final word and is never resent: a `sendrawtransaction` rejected with
 * -26 stays rejected.
 *
 * The password (from the options or the URL's userinfo) is sent as HTTP basic auth and appears
 * nowhere else: `toString()`, `endpoint`, log fields and error messages show it as `***`.
 */
import { inspect } from "node:util";
import {
  DogecoinRpcError,
  RpcAuthError,
  RpcClientError,
  RpcTimeoutError,
  RpcTransportError,
  isRetryableRpcError,
} from "./errors";

export * from "./errors";

/** The logging the client does: a warning per retry, a debug line per call. pino loggers fit. */
export interface RpcLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
}

export interface DogecoinRpcClientOptions {
  /** `http://host:port/`, optionally with credentials: `http://user:pass@host:port/`. */
  url: string;
  /** rpcuser; overrides the URL's. */
  username?: string;
  /** rpcpassword; overrides the URL's. */
  password?: string;
  /** Per attempt, covering the connection, the request and reading the whole body. Default 30,000. */
  timeoutMs?: number;
  /** Extra attempts after a retryable failure (transport, warm-up). Default 3. */
  retries?: number;
  /** Back-off before retry n (from 0) is between half and all of `retryBaseDelayMs * 2^n`. Default 200. */
  retryBaseDelayMs?: number;
  /** Ceiling of one back-off delay. Default 10,000. */
  retryMaxDelayMs?: number;
  logger?: RpcLogger;
  /**
   * Aborted when the daemon stops: the request in flight is cut, no retry is waited for, and every
   * call from then on rejects at once with `RpcAbortedError` (a stop never waits for a node).
   */
  signal?: AbortSignal;
}

/** The call was abandoned because the client's `signal` was aborted (the daemon is stopping). */
export class RpcAbortedError extends RpcClientError {
  constructor(method: string, endpoint: string) {
    super(`dogecoind RPC ${method} at ${endpoint} abandoned: stopping`, method, endpoint, {
      kind: "unavailable",
      code: "RPC_ABORTED",
      retryable: false,
    });
  }
}

// ------------------------------------------------------------------ result shapes (dogecoind 1.14)

/** `getblockchaininfo`. */
export interface BlockchainInfo {
  chain: "main" | "test" | "regtest" | string;
  blocks: number;
  headers: number;
  bestblockhash: string;
  difficulty: number;
  mediantime: number;
  verificationprogress: number;
  /** Whether the tip is older than -maxtipage (24 hours); latched false once it was not. */
  initialblockdownload: boolean;
  /** 64 hex digits. */
  chainwork: string;
  /** Bytes of block and undo files. */
  size_on_disk: number;
  pruned: boolean;
  /** Only when pruned. */
  pruneheight?: number;
  softforks: { id: string; version: number; reject: { status: boolean } }[];
  bip9_softforks: Record<
    string,
    {
      status: "defined" | "started" | "locked_in" | "active" | "failed";
      bit?: number;
      startTime: number;
      timeout: number;
      since?: number;
    }
  >;
  /** Dogecoin Core's status-bar warnings, "" when there are none. */
  warnings: string;
}

/** `getblockheader <hash> true`. */
export interface BlockHeaderVerbose {
  hash: string;
  /** -1 when the block is not in the active chain. */
  confirmations: number;
  height: number;
  version: number;
  versionHex: string;
  merkleroot: string;
  time: number;
  mediantime: number;
  nonce: number;
  /** Compact target as 8 hex digits. */
  bits: string;
  difficulty: number;
  chainwork: string;
  /** Absent for the genesis block. */
  previousblockhash?: string;
  /** Absent at the tip and off the active chain. */
  nextblockhash?: string;
}

/** `getblock <hash> true`: the header fields plus sizes and the txids. */
export interface BlockVerbose extends BlockHeaderVerbose {
  strippedsize: number;
  size: number;
  weight: number;
  tx: string[];
}

export interface ScriptPubKeyInfo {
  asm: string;
  hex: string;
  /** pubkeyhash, scripthash, multisig, pubkey, nulldata, nonstandard. */
  type: string;
  /** Absent for nulldata and nonstandard scripts. */
  reqSigs?: number;
  addresses?: string[];
}

export type TxInputInfo =
  | { coinbase: string; sequence: number }
  | { txid: string; vout: number; scriptSig: { asm: string; hex: string }; sequence: number };

export interface TxOutputInfo {
  /** DOGE as a JSON number with up to eight decimals: convert with `dogeToKoinu`. */
  value: number;
  n: number;
  scriptPubKey: ScriptPubKeyInfo;
}

/** `decoderawtransaction <hex>`. */
export interface DecodedRawTransaction {
  txid: string;
  /** Same as txid: Dogecoin has no segwit. */
  hash: string;
  size: number;
  vsize: number;
  version: number;
  locktime: number;
  vin: TxInputInfo[];
  vout: TxOutputInfo[];
}

/** `getrawtransaction <txid> 1`: block fields only once the transaction is in a block. */
export interface RawTransactionVerbose extends DecodedRawTransaction {
  hex: string;
  blockhash?: string;
  confirmations?: number;
  time?: number;
  blocktime?: number;
}

/** `getmempoolinfo`. */
export interface MempoolInfo {
  size: number;
  bytes: number;
  usage: number;
  maxmempool: number;
  /** DOGE per kB. */
  mempoolminfee: number;
}

/** `gettxout <txid> <n>`. */
export interface TxOutInfo {
  bestblock: string;
  /** 0 for an output of a mempool transaction. */
  confirmations: number;
  /** DOGE: convert with `dogeToKoinu`. */
  value: number;
  scriptPubKey: ScriptPubKeyInfo;
  /** Bitcoin Core 0.14's transaction version; Dogecoin Core 1.14.7 no longer writes it (src/rpc/blockchain.cpp gettxout). */
  version?: number;
  coinbase: boolean;
}

/** `getnetworkinfo`; the fee and dust fields are Dogecoin's, in DOGE per kB. */
export interface NetworkInfo {
  version: number;
  subversion: string;
  protocolversion: number;
  localservices: string;
  localrelay: boolean;
  timeoffset: number;
  networkactive: boolean;
  connections: number;
  networks: {
    name: string;
    limited: boolean;
    reachable: boolean;
    proxy: string;
    proxy_randomize_credentials: boolean;
  }[];
  relayfee: number;
  incrementalfee: number;
  softdustlimit: number;
  harddustlimit: number;
  localaddresses: { address: string; port: number; score: number }[];
  warnings: string;
}

/** `validateaddress <address>` (the wallet fields only when dogecoind runs a wallet). */
export interface ValidateAddressResult {
  isvalid: boolean;
  address?: string;
  scriptPubKey?: string;
  ismine?: boolean;
  iswatchonly?: boolean;
  isscript?: boolean;
  pubkey?: string;
  iscompressed?: boolean;
}

/** `estimatesmartfee <blocks>`: `feerate` in DOGE per kB, -1 when dogecoind has no estimate. */
export interface SmartFeeEstimate {
  feerate: number;
  blocks: number;
}

/** `getchaintips`. */
export interface ChainTip {
  height: number;
  hash: string;
  branchlen: number;
  status: "active" | "valid-fork" | "valid-headers" | "headers-only" | "invalid" | string;
}

// ------------------------------------------------------------------ the client

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRIES = 3;
const DEFAULT_RETRY_BASE_DELAY_MS = 200;
const DEFAULT_RETRY_MAX_DELAY_MS = 10_000;
/** How much of a non-JSON body an error message quotes. */
const BODY_SNIPPET_CHARS = 200;

export class DogecoinRpcClient {
  /** The node's URL with the password shown as `***`. */
  readonly endpoint: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  // ES private fields: invisible to util.inspect, JSON.stringify and property enumeration.
  readonly #requestUrl: string;
  readonly #authorization: string | undefined;
  readonly #password: string;
  readonly #logger: RpcLogger | undefined;
  readonly #signal: AbortSignal | undefined;
  #nextId = 0;

  constructor(options: DogecoinRpcClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      // URL's own error quotes the input, password included.
      throw new TypeError("DogecoinRpcClient: url is not a valid URL");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new TypeError(`DogecoinRpcClient: url must be http: or https:, got ${parsed.protocol}`);
    }
    const username = options.username ?? decodeURIComponent(parsed.username);
    const password = options.password ?? decodeURIComponent(parsed.password);
    parsed.username = "";
    parsed.password = "";
    this.#requestUrl = parsed.href;
    this.#password = password;
    this.#authorization =
      username || password ? "Basic " + Buffer.from(`${username}:${password}`, "utf8").toString("base64") : undefined;
    this.#logger = options.logger;
    this.#signal = options.signal;
    const userinfo = username || password ? `${encodeURIComponent(username)}${password ? ":***" : ""}@` : "";
    this.endpoint = `${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${parsed.search}`;

    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
    this.retryMaxDelayMs = options.retryMaxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS;
    if (!(this.timeoutMs > 0))
      throw new RangeError(`DogecoinRpcClient: timeoutMs must be positive, got ${this.timeoutMs}`);
    if (!Number.isInteger(this.retries) || this.retries < 0)
      throw new RangeError(`DogecoinRpcClient: retries must be a non-negative integer, got ${this.retries}`);
    if (!(this.retryBaseDelayMs >= 0))
      throw new RangeError(`DogecoinRpcClient: retryBaseDelayMs must be >= 0, got ${this.retryBaseDelayMs}`);
    if (!(this.retryMaxDelayMs >= 0))
      throw new RangeError(`DogecoinRpcClient: retryMaxDelayMs must be >= 0, got ${this.retryMaxDelayMs}`);
  }

  toString(): string {
    return `DogecoinRpcClient(${this.endpoint})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }

  /**
   * Calls `method` and resolves with its `result`. Rejects with `DogecoinRpcError` (dogecoind's
   * code and message), `RpcAuthError`, or `RpcTransportError` / `RpcTimeoutError` once the retries
   * are spent. Only transport failures and warm-up (-28) are retried.
   */
  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (this.#signal?.aborted) throw new RpcAbortedError(method, this.endpoint);
      try {
        return await this.#send<T>(method, params);
      } catch (error) {
        if (this.#signal?.aborted) throw new RpcAbortedError(method, this.endpoint);
        if (attempt >= this.retries || !isRetryableRpcError(error)) throw error;
        const delayMs = this.#backoffDelay(attempt);
        this.#logger?.warn(
          {
            method,
            endpoint: this.endpoint,
            attempt: attempt + 1,
            retries: this.retries,
            delayMs,
            error: (error as RpcClientError).message,
            code: error instanceof DogecoinRpcError ? error.code : undefined,
          },
          "dogecoind RPC call failed, retrying",
        );
        await abortableSleep(delayMs, this.#signal);
      }
    }
  }

  // ---------------------------------------------------------------- chain

  getBlockchainInfo(): Promise<BlockchainInfo> {
    return this.call("getblockchaininfo");
  }

  getBlockCount(): Promise<number> {
    return this.call("getblockcount");
  }

  getBestBlockHash(): Promise<string> {
    return this.call("getbestblockhash");
  }

  /** Hash of the active chain's block at `height`; -8 "Block height out of range" above the tip. */
  getBlockHash(height: number): Promise<string> {
    return this.call("getblockhash", [height]);
  }

  /**
   * The serialized block as hex, AuxPoW included: `getblock <hash> false`. A boolean, because
   * integer verbosity only exists from 1.14.7 and earlier 1.14 releases refuse it.
   */
  getBlockHex(hash: string): Promise<string> {
    return this.call("getblock", [hash, false]);
  }

  /** `getblock <hash> true`: header fields and txids. */
  getBlockVerbose(hash: string): Promise<BlockVerbose> {
    return this.call("getblock", [hash, true]);
  }

  /**
   * The block at `height` of the active chain, as hex. Two calls: a reorg in between can make the
   * block belong to a branch that is no longer active, which the caller's parent-hash check sees.
   */
  async getBlockHexAt(height: number): Promise<string> {
    return this.getBlockHex(await this.getBlockHash(height));
  }

  getBlockHeader(hash: string, verbose?: true): Promise<BlockHeaderVerbose>;
  /** The 80-byte header as hex. */
  getBlockHeader(hash: string, verbose: false): Promise<string>;
  getBlockHeader(hash: string, verbose: boolean): Promise<BlockHeaderVerbose | string>;
  getBlockHeader(hash: string, verbose = true): Promise<BlockHeaderVerbose | string> {
    return this.call("getblockheader", [hash, verbose]);
  }

  getChainTips(): Promise<ChainTip[]> {
    return this.call("getchaintips");
  }

  /** Marks the block and its descendants invalid and reorganises away from them. */
  async invalidateBlock(hash: string): Promise<void> {
    await this.call<null>("invalidateblock", [hash]);
  }

  /** Undoes `invalidateBlock`. */
  async reconsiderBlock(hash: string): Promise<void> {
    await this.call<null>("reconsiderblock", [hash]);
  }

  /** Mines `blocks` blocks paying `address` (regtest; no wallet needed); resolves with their hashes. */
  generateToAddress(blocks: number, address: string, maxTries?: number): Promise<string[]> {
    return this.call("generatetoaddress", maxTries === undefined ? [blocks, address] : [blocks, address, maxTries]);
  }

  // ---------------------------------------------------------------- transactions

  /**
   * The serialized transaction as hex: `getrawtransaction <txid> 0` (1.14's verbose argument is
   * an integer). Without `-txindex=1` dogecoind finds only mempool and wallet transactions and
   * answers -5 for every other one.
   */
  getRawTransactionHex(txid: string): Promise<string> {
    return this.call("getrawtransaction", [txid, 0]);
  }

  /** `getrawtransaction <txid> 1`; the same `-txindex` caveat as `getRawTransactionHex`. */
  getRawTransactionVerbose(txid: string): Promise<RawTransactionVerbose> {
    return this.call("getrawtransaction", [txid, 1]);
  }

  /**
   * Broadcasts a signed transaction; resolves with its txid. A mempool transaction sent again
   * resolves with its txid; one already confirmed is -27 (RPC_VERIFY_ALREADY_IN_CHAIN), which is
   * also what a retry after a timed-out first attempt that did reach the node may see. Policy and
   * consensus refusals are -26 with `"<reject code>: <reason>"`, missing inputs -25.
   */
  sendRawTransaction(hex: string, allowHighFees = false): Promise<string> {
    return this.call("sendrawtransaction", allowHighFees ? [hex, true] : [hex]);
  }

  decodeRawTransaction(hex: string): Promise<DecodedRawTransaction> {
    return this.call("decoderawtransaction", [hex]);
  }

  /** Txids in the mempool. */
  getRawMempool(): Promise<string[]> {
    return this.call("getrawmempool", [false]);
  }

  getMempoolInfo(): Promise<MempoolInfo> {
    return this.call("getmempoolinfo");
  }

  /** The unspent output, or null when it is spent or never existed. */
  getTxOut(txid: string, vout: number, includeMempool = true): Promise<TxOutInfo | null> {
    return this.call("gettxout", [txid, vout, includeMempool]);
  }

  // ---------------------------------------------------------------- network, fees, utilities

  getNetworkInfo(): Promise<NetworkInfo> {
    return this.call("getnetworkinfo");
  }

  /** dogecoind's estimate for confirmation within `blocks` blocks; `feerate` -1 without data. */
  estimateSmartFee(blocks: number): Promise<SmartFeeEstimate> {
    return this.call("estimatesmartfee", [blocks]);
  }

  validateAddress(address: string): Promise<ValidateAddressResult> {
    return this.call("validateaddress", [address]);
  }

  /** Checks a Dogecoin signed message (base64 compact signature) against a P2PKH address. */
  verifyMessage(address: string, signature: string, message: string): Promise<boolean> {
    return this.call("verifymessage", [address, signature, message]);
  }

  // ---------------------------------------------------------------- one attempt

  async #send<T>(method: string, params: unknown[]): Promise<T> {
    const id = ++this.#nextId;
    const body = JSON.stringify({ jsonrpc: "1.0", id, method, params });
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.#authorization) headers.Authorization = this.#authorization;

    const startedAt = Date.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const stop = () => controller.abort();
    this.#signal?.addEventListener("abort", stop, { once: true });
    let status: number;
    let text: string;
    try {
      const response = await fetch(this.#requestUrl, { method: "POST", headers, body, signal: controller.signal });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (this.#signal?.aborted) throw new RpcAbortedError(method, this.endpoint);
      if (controller.signal.aborted) throw new RpcTimeoutError(method, this.endpoint, this.timeoutMs);
      const { detail, systemCode } = describeNetworkError(error);
      throw new RpcTransportError(
        `dogecoind RPC ${method} at ${this.endpoint} failed: ${this.#scrub(detail)}`,
        method,
        this.endpoint,
        "connection",
        { cause: error, systemCode },
      );
    } finally {
      clearTimeout(timer);
      this.#signal?.removeEventListener("abort", stop);
    }
    this.#logger?.debug?.({ method, status, durationMs: Date.now() - startedAt }, "dogecoind RPC call");
    return this.#interpret<T>(method, id, status, text);
  }

  #interpret<T>(method: string, id: number, status: number, text: string): T {
    if (status === 401 || status === 403) throw new RpcAuthError(method, this.endpoint, status);
    const fail = (what: string, failure: "http-status" | "invalid-response", cause?: unknown): never => {
      throw new RpcTransportError(
        `dogecoind RPC ${method} at ${this.endpoint} failed: ${what}`,
        method,
        this.endpoint,
        failure,
        { cause, httpStatus: status },
      );
    };

    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch (cause) {
      const snippet = this.#snippet(text);
      return status >= 200 && status < 300
        ? fail(`HTTP ${status} with a body that is not JSON: ${snippet}`, "invalid-response", cause)
        : fail(`HTTP ${status}: ${snippet}`, "http-status", cause);
    }
    if (!isRecord(reply))
      return fail(`HTTP ${status} with a JSON body that is not a JSON-RPC reply`, "invalid-response");

    const error = reply.error;
    if (error !== null && error !== undefined) {
      if (isRecord(error) && typeof error.code === "number" && typeof error.message === "string") {
        throw new DogecoinRpcError(error.code, error.message, method, this.endpoint, status);
      }
      return fail(
        `HTTP ${status} with a malformed error object: ${this.#snippet(JSON.stringify(error))}`,
        "invalid-response",
      );
    }
    if (status < 200 || status >= 300) return fail(`HTTP ${status} without an error object`, "invalid-response");
    if (!("result" in reply)) return fail("a reply without a result", "invalid-response");
    if (reply.id !== id)
      return fail(`a reply to request id ${JSON.stringify(reply.id)}, expected ${id}`, "invalid-response");
    return reply.result as T;
  }

  #backoffDelay(attempt: number): number {
    const ceiling = Math.min(this.retryMaxDelayMs, this.retryBaseDelayMs * 2 ** attempt);
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  #snippet(text: string): string {
    const trimmed = text.trim();
    if (!trimmed) return "(empty body)";
    const cut = trimmed.length > BODY_SNIPPET_CHARS ? `${trimmed.slice(0, BODY_SNIPPET_CHARS)}...` : trimmed;
    return JSON.stringify(this.#scrub(cut));
  }

  /** Defence in depth for text we did not write ourselves (bodies, system errors). */
  #scrub(text: string): string {
    if (!this.#password) return text;
    return text.split(this.#password).join("***").split(encodeURIComponent(this.#password)).join("***");
  }
}

// ------------------------------------------------------------------ amounts

const KOINU_PER_DOGE = 100_000_000n;

/**
 * DOGE as dogecoind writes it (a JSON number with up to eight decimals) to integer koinu, exactly:
 * the number is rounded to eight decimals in its decimal form (`toFixed(8)`), never multiplied as
 * a float, so 0.1 + 0.2 gives 30000000n and 21.00000001 gives 2100000001n. Every amount below
 * 2^26 DOGE (67,108,864) round-trips; above that a JSON number cannot tell neighbouring koinu
 * apart and the result is the nearest koinu to the number received.
 */
export function dogeToKoinu(value: number): bigint {
  if (!Number.isFinite(value)) throw new RangeError(`dogeToKoinu: not a finite amount: ${value}`);
  if (Math.abs(value) >= 1e21) throw new RangeError(`dogeToKoinu: amount out of range: ${value}`);
  const fixed = value.toFixed(8);
  const negative = fixed.startsWith("-");
  const [whole, fraction] = (negative ? fixed.slice(1) : fixed).split(".");
  const koinu = BigInt(whole) * KOINU_PER_DOGE + BigInt(fraction);
  return negative ? -koinu : koinu;
}

/** Koinu to DOGE as a number for dogecoind's amount parameters (exact below 2^26 DOGE). */
export function koinuToDoge(koinu: bigint): number {
  const negative = koinu < 0n;
  const magnitude = negative ? -koinu : koinu;
  const text = `${magnitude / KOINU_PER_DOGE}.${(magnitude % KOINU_PER_DOGE).toString().padStart(8, "0")}`;
  return negative ? -Number(text) : Number(text);
}

// ------------------------------------------------------------------ helpers

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves after `ms`, or at once when `signal` is (or gets) aborted. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * fetch reports "fetch failed" and hides the reason in `cause` (sometimes an AggregateError of
 * one attempt per address): the most specific message and the first system code in the chain.
 */
function describeNetworkError(error: unknown): { detail: string; systemCode?: string } {
  let detail = error instanceof Error && error.message ? error.message : String(error);
  let systemCode: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const link = current as { message?: unknown; code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof link.code === "string" && systemCode === undefined) systemCode = link.code;
    if (typeof link.message === "string" && link.message && link.message !== "fetch failed") detail = link.message;
    current = link.cause ?? (Array.isArray(link.errors) ? link.errors[0] : undefined);
  }
  if (systemCode && !detail.includes(systemCode)) detail = `${detail} (${systemCode})`;
  return { detail, systemCode };
}
