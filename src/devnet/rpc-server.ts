/**
 * dogecoind-compatible JSON-RPC over HTTP for the devnet node: method names, parameters, result
 * shapes, error codes and HTTP statuses as Dogecoin Core 1.14 serves them (src/httprpc.cpp: 401 on bad
 * credentials, 404 for an unknown method, 400 for an invalid request, 500 for other errors, each
 * with the JSON-RPC error body). Methods beyond dogecoind's are named `devnet_*`.
 */
import http from "node:http";
import { createHash, timingSafeEqual } from "node:crypto";
import {
  AddressError,
  DecodeError,
  bytesToHex,
  decodeAddress,
  hexToBytes,
  isHex,
  parseTransaction,
  serializeBlock,
  serializeTransaction,
  verifyMessage,
} from "../doge";
import { DevnetNode } from "./node";
import { StoredCoin } from "./store";
import { RpcFailure } from "./errors";
import {
  Amount,
  blockJson,
  difficulty,
  headerJson,
  scriptPubKeyJson,
  stringifyRpc,
  txJson,
  HeaderContext,
} from "./rpc-json";
import { POLICY, REGTEST } from "./params";
import {
  HARD_DUST_LIMIT,
  INCREMENTAL_RELAY_FEE_RATE,
  MIN_RELAY_FEE_RATE,
  SOFT_DUST_LIMIT,
  RPC_DESERIALIZATION_ERROR,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_MISC_ERROR,
  RPC_PARSE_ERROR,
  RPC_TYPE_ERROR,
} from "../doge/policy";
import { TxRejected } from "../doge/standardness";

export interface RpcServerOptions {
  node: DevnetNode;
  host?: string;
  port?: number;
  username: string;
  password: string;
  /** Called by devnet_setautomine. */
  setAutomine?: (seconds: number) => void;
  getAutomine?: () => number;
  onStop?: () => void;
  log?: (event: string, fields?: Record<string, unknown>) => void;
}

type Handler = (params: unknown[]) => unknown;

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export class DevnetRpcServer {
  private readonly server: http.Server;
  private readonly methods: Record<string, Handler>;
  private readonly expectedAuth: Buffer;

  constructor(private readonly options: RpcServerOptions) {
    this.expectedAuth = Buffer.from(
      "Basic " + Buffer.from(`${options.username}:${options.password}`).toString("base64"),
    );
    this.methods = buildMethods(options);
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
  }

  listen(): Promise<{ host: string; port: number }> {
    const host = this.options.host ?? "127.0.0.1";
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port ?? 18332, host, () => {
        const address = this.server.address();
        resolve({ host, port: typeof address === "object" && address ? address.port : 0 });
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private authorized(req: http.IncomingMessage): boolean {
    const header = Buffer.from(req.headers.authorization ?? "");
    return header.length === this.expectedAuth.length && timingSafeEqual(header, this.expectedAuth);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method !== "POST") {
      res.writeHead(405, { "Content-Type": "text/plain" }).end("JSONRPC server handles only POST requests");
      return;
    }
    if (!this.authorized(req)) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="jsonrpc"' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let request: unknown;
      try {
        request = JSON.parse(body);
      } catch {
        this.reply(res, 500, { result: null, error: { code: RPC_PARSE_ERROR, message: "Parse error" }, id: null });
        return;
      }
      if (Array.isArray(request)) {
        const replies = request.map((item) => this.execute(item).body);
        this.reply(res, 200, replies);
        return;
      }
      if (typeof request !== "object" || request === null) {
        // src/httprpc.cpp HTTPReq_JSONRPC: neither an object nor a batch.
        this.reply(res, 500, {
          result: null,
          error: { code: RPC_PARSE_ERROR, message: "Top-level object parse error" },
          id: null,
        });
        return;
      }
      const { status, body: reply } = this.execute(request);
      this.reply(res, status, reply);
    });
  }

  private reply(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { "Content-Type": "application/json" }).end(stringifyRpc(body) + "\n");
  }

  private execute(request: unknown): { status: number; body: unknown } {
    if (typeof request !== "object" || request === null || Array.isArray(request)) {
      return {
        status: 400,
        body: { result: null, error: { code: RPC_INVALID_REQUEST, message: "Invalid Request object" }, id: null },
      };
    }
    // src/rpc/server.cpp JSONRPCRequest::parse; HTTP 400 for -32600 (src/httprpc.cpp JSONErrorReply).
    const { method, params, id } = request as { method?: unknown; params?: unknown; id?: unknown };
    const invalid = (message: string) => ({
      status: 400,
      body: { result: null, error: { code: RPC_INVALID_REQUEST, message }, id: id ?? null },
    });
    if (method === undefined || method === null) return invalid("Missing method");
    if (typeof method !== "string") return invalid("Method must be a string");
    if (params !== undefined && params !== null && typeof params !== "object")
      return invalid("Params must be an array or object");
    const handler = Object.prototype.hasOwnProperty.call(this.methods, method) ? this.methods[method] : undefined;
    if (!handler) {
      return {
        status: 404,
        body: { result: null, error: { code: RPC_METHOD_NOT_FOUND, message: "Method not found" }, id: id ?? null },
      };
    }
    try {
      const positional = Array.isArray(params)
        ? params
        : params
          ? namedToPositional(method, params as Record<string, unknown>)
          : [];
      const result = handler(positional);
      return { status: 200, body: { result: result === undefined ? null : result, error: null, id: id ?? null } };
    } catch (error) {
      if (error instanceof RpcFailure || error instanceof TxRejected) {
        return {
          status: 500,
          body: { result: null, error: { code: error.code, message: error.message }, id: id ?? null },
        };
      }
      this.options.log?.("rpc_internal_error", { method, error: (error as Error).stack });
      return {
        status: 500,
        body: { result: null, error: { code: RPC_MISC_ERROR, message: "Internal error" }, id: id ?? null },
      };
    }
  }
}

// ------------------------------------------------------------------ named arguments

/**
 * Each call's argument names, from the RPC tables of Dogecoin Core 1.14 (the `argNames` column of
 * src/rpc/blockchain.cpp, rawtransaction.cpp, mining.cpp, misc.cpp, net.cpp, server.cpp), for
 * JSON-RPC requests that pass `params` as an object.
 */
const ARG_NAMES: Record<string, string[]> = {
  getblockhash: ["height"],
  getblock: ["blockhash", "verbosity"],
  getblockheader: ["blockhash", "verbose"],
  getrawtransaction: ["txid", "verbose"],
  decoderawtransaction: ["hexstring"],
  sendrawtransaction: ["hexstring", "allowhighfees"],
  submitblock: ["hexdata", "parameters"],
  getrawmempool: ["verbose"],
  getmempoolentry: ["txid"],
  gettxout: ["txid", "n", "include_mempool"],
  validateaddress: ["address"],
  verifymessage: ["address", "signature", "message"],
  estimatesmartfee: ["nblocks"],
  estimatefee: ["nblocks"],
  generatetoaddress: ["nblocks", "address", "maxtries"],
  invalidateblock: ["blockhash"],
  reconsiderblock: ["blockhash"],
  stop: ["detach"],
  devnet_faucet: ["address", "amount", "confirm"],
  devnet_setautomine: ["seconds"],
  devnet_setpromiscuousmempool: ["enabled"],
  devnet_evict: ["txid"],
  devnet_setminrelayfee: ["amount"],
  devnet_setmaxtxfee: ["amount"],
};

/**
 * src/rpc/server.cpp transformNamedArguments: named values in the call's order, nulls for the
 * holes between them (never at the end), -8 "Unknown named parameter" for a name the call lacks.
 */
function namedToPositional(method: string, named: Record<string, unknown>): unknown[] {
  const names = ARG_NAMES[method] ?? [];
  const left = new Set(Object.keys(named));
  const out: unknown[] = [];
  let hole = 0;
  for (const name of names) {
    if (left.has(name)) {
      for (; hole > 0; hole--) out.push(null);
      out.push(named[name]);
      left.delete(name);
    } else {
      hole += 1;
    }
  }
  const unknown = [...left].sort()[0];
  if (unknown !== undefined) throw new RpcFailure(RPC_INVALID_PARAMETER, `Unknown named parameter ${unknown}`);
  return out;
}

// ------------------------------------------------------------------ parameter helpers (dogecoind texts)
//
// Dogecoin Core 1.14 reads a parameter in one of two ways, and the error differs:
// - UniValue's accessors (get_int, get_str, get_bool; src/univalue/lib/univalue.cpp) throw a
//   std::runtime_error that the RPC table turns into RPC_MISC_ERROR (-1) with its text
//   (src/rpc/server.cpp CRPCTable::execute): `getblockhash "x"` answers -1 "JSON value is not an
//   integer as expected";
// - RPCTypeCheck (src/rpc/server.cpp) answers RPC_TYPE_ERROR (-3) "Expected type number, got
//   string"; only the calls that run it first (decoderawtransaction, sendrawtransaction,
//   estimatefee, estimatesmartfee) answer -3.
// Each method below reads its parameters the way its Core source does (cited per method).

function typeName(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

/** Wrong parameter count: Core throws its help text (-1); the devnet answers the usage line only. */
function arity(params: unknown[], min: number, max: number, usage: string): void {
  if (params.length < min || params.length > max) throw new RpcFailure(RPC_MISC_ERROR, usage);
}

/** RPCTypeCheck: -3 "Expected type <t>, got <t>" (src/rpc/server.cpp RPCTypeCheckArgument, uvTypeName). */
function typeCheck(params: unknown[], expected: ("string" | "number" | "bool")[]): void {
  expected.forEach((type, i) => {
    if (i >= params.length) return;
    const actual = typeName(params[i]);
    if (actual !== type) throw new RpcFailure(RPC_TYPE_ERROR, `Expected type ${type}, got ${actual}`);
  });
}

/** UniValue::get_str. */
function getStr(value: unknown): string {
  if (typeof value !== "string") throw new RpcFailure(RPC_MISC_ERROR, "JSON value is not a string as expected");
  return value;
}

/** UniValue::get_int: a JSON number that ParseInt32 accepts (no fraction, no exponent, 32-bit). */
function getInt(value: unknown): number {
  if (typeof value !== "number") throw new RpcFailure(RPC_MISC_ERROR, "JSON value is not an integer as expected");
  if (!Number.isInteger(value) || value < -2_147_483_648 || value > 2_147_483_647)
    throw new RpcFailure(RPC_MISC_ERROR, "JSON integer out of range");
  return value;
}

/** UniValue::get_bool. */
function getBool(value: unknown): boolean {
  if (typeof value !== "boolean") throw new RpcFailure(RPC_MISC_ERROR, "JSON value is not a boolean as expected");
  return value;
}

/**
 * ParseHashV as Core 1.14 has it (src/rpc/server.cpp): a non-string reads as "", the hex check
 * comes before the length check, both -8.
 */
function parseHashV(value: unknown, name: string): string {
  const text = typeof value === "string" ? value : "";
  // Core's IsHex("") is false (src/utilstrencodings.cpp).
  if (text.length === 0 || !isHex(text))
    throw new RpcFailure(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
  if (text.length !== 64)
    throw new RpcFailure(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${text.length})`);
  return text.toLowerCase();
}

/**
 * `uint256S(param.get_str())`, how getblock, getblockheader, gettxout, invalidateblock and
 * reconsiderblock read a hash in Core 1.14: no validation, leading spaces and "0x" skipped, the
 * hex digits up to the first other character, the last 64 of them, zero-padded on the left
 * (src/uint256.cpp base_blob::SetHex). A malformed hash is simply a hash no block has (-5).
 */
function uint256S(value: unknown): string {
  let text = getStr(value).replace(/^[ \t\n\r\f\v]+/, "");
  if (/^0x/i.test(text)) text = text.slice(2);
  const digits = /^[0-9a-fA-F]*/.exec(text)![0];
  return digits.slice(-64).padStart(64, "0").toLowerCase();
}

/** `isNum() ? get_int() : get_bool()` (getblock's verbosity, src/rpc/blockchain.cpp). */
function numOrBool(value: unknown): number {
  return typeof value === "number" ? getInt(value) : getBool(value) ? 1 : 0;
}

/** AmountFromValue (src/rpc/server.cpp): a number or a numeric string with at most 8 decimals. */
function amountParam(value: unknown): bigint {
  let text: string;
  if (typeof value === "number") text = value.toFixed(8);
  else if (typeof value === "string") text = value;
  else throw new RpcFailure(RPC_TYPE_ERROR, "Amount is not a number or string");
  if (!/^\d+(\.\d{1,8})?$/.test(text)) throw new RpcFailure(RPC_TYPE_ERROR, "Invalid amount");
  const [whole, fraction = ""] = text.split(".");
  return BigInt(whole) * 100_000_000n + BigInt(fraction.padEnd(8, "0"));
}

// ------------------------------------------------------------------ methods

function buildMethods(options: RpcServerOptions): Record<string, Handler> {
  const node = options.node;
  const network = node.network;

  const headerContext = (blockHash: string): HeaderContext => {
    const entry = node.blockEntry(blockHash)!;
    const active = node.isInActiveChain(blockHash);
    return {
      hash: blockHash,
      height: entry.height,
      confirmations: active ? node.height - entry.height + 1 : -1,
      mediantime: node.medianTimePast(blockHash),
      chainwork: entry.chainwork,
      nextHash: active ? node.hashAtHeight(entry.height + 1) : undefined,
    };
  };

  const requireBlock = (blockHash: string) => {
    if (!node.blockEntry(blockHash)) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    const block = node.readBlock(blockHash);
    if (!block) throw new RpcFailure(RPC_MISC_ERROR, "Block not available");
    return block;
  };

  const mempoolEntryJson = (txid: string) => {
    const entry = node.mempoolEntry(txid)!;
    const descendants = node.mempoolDescendants(txid);
    return {
      size: entry.size,
      fee: new Amount(entry.fee),
      modifiedfee: new Amount(entry.fee),
      time: entry.time,
      height: entry.height,
      startingpriority: 0,
      currentpriority: 0,
      descendantcount: descendants.length + 1,
      descendantsize: entry.size + descendants.reduce((sum, id) => sum + (node.mempoolEntry(id)?.size ?? 0), 0),
      descendantfees: Number(entry.fee + descendants.reduce((sum, id) => sum + (node.mempoolEntry(id)?.fee ?? 0n), 0n)),
      ancestorcount: entry.depends.length + 1,
      ancestorsize: entry.size,
      ancestorfees: Number(entry.fee),
      depends: entry.depends,
    };
  };

  return {
    // src/rpc/blockchain.cpp getblockchaininfo; csv and segwit are regtest's BIP9 deployments
    // (src/chainparams.cpp CRegTestParams: start 0, timeout 999999999999, window 720).
    getblockchaininfo: (params) => {
      arity(params, 0, 0, "getblockchaininfo");
      const tip = node.tip();
      return {
        chain: "regtest",
        blocks: node.height,
        headers: node.headerCount(),
        bestblockhash: tip.hash,
        difficulty: difficulty(tip.bits),
        mediantime: node.medianTimePast(tip.hash),
        verificationprogress: 1,
        initialblockdownload: node.isInitialBlockDownload(),
        chainwork: tip.chainwork.toString(16).padStart(64, "0"),
        size_on_disk: sizeOnDisk(node),
        pruned: false,
        softforks: [
          { id: "bip34", version: 2, reject: { status: false } },
          { id: "bip66", version: 3, reject: { status: node.height >= REGTEST.bip66Height } },
          { id: "bip65", version: 4, reject: { status: node.height >= REGTEST.bip65Height } },
        ],
        bip9_softforks: {
          csv: bip9Deployment(node.height, 0),
          segwit: bip9Deployment(node.height, 1),
        },
        warnings: "",
      };
    },
    // src/rpc/blockchain.cpp getblockcount
    getblockcount: (params) => {
      arity(params, 0, 0, "getblockcount");
      return node.height;
    },
    // src/rpc/blockchain.cpp getbestblockhash
    getbestblockhash: (params) => {
      arity(params, 0, 0, "getbestblockhash");
      return node.tipHash;
    },
    // src/rpc/blockchain.cpp getdifficulty
    getdifficulty: (params) => {
      arity(params, 0, 0, "getdifficulty");
      return difficulty(node.tip().bits);
    },
    // src/rpc/blockchain.cpp getblockhash: get_int, then -8 outside [0, height]
    getblockhash: (params) => {
      arity(params, 1, 1, "getblockhash height");
      const height = getInt(params[0]);
      if (height < 0 || height > node.height) throw new RpcFailure(RPC_INVALID_PARAMETER, "Block height out of range");
      return node.hashAtHeight(height)!;
    },
    // src/rpc/blockchain.cpp getblock: uint256S(get_str()); verbosity isNum ? get_int : get_bool;
    // <= 0 hex, 1 txids, >= 2 transactions
    getblock: (params) => {
      arity(params, 1, 2, 'getblock "blockhash" ( verbosity )');
      const blockHash = uint256S(params[0]);
      const level = params.length > 1 ? numOrBool(params[1]) : 1;
      const block = requireBlock(blockHash);
      if (level <= 0) return bytesToHex(serializeBlock(block));
      return blockJson(block, headerContext(blockHash), level >= 2 ? 2 : 1, network);
    },
    // src/rpc/blockchain.cpp getblockheader: uint256S(get_str()), verbose get_bool
    getblockheader: (params) => {
      arity(params, 1, 2, 'getblockheader "hash" ( verbose )');
      const blockHash = uint256S(params[0]);
      const verbose = params.length > 1 ? getBool(params[1]) : true;
      const block = requireBlock(blockHash);
      if (!verbose) return bytesToHex(serializeBlock({ header: block.header, txs: [] }).subarray(0, 80));
      return headerJson(block.header, headerContext(blockHash));
    },
    // src/rpc/rawtransaction.cpp getrawtransaction (as with -txindex): ParseHashV "parameter 1";
    // verbose: a number (non-zero) or a bool, anything else -3; TxToJSON's blockhash fields
    getrawtransaction: (params) => {
      arity(params, 1, 2, 'getrawtransaction "txid" ( verbose )');
      const txid = parseHashV(params[0], "parameter 1");
      let verbose = false;
      if (params.length > 1) {
        if (typeof params[1] === "number") verbose = getInt(params[1]) !== 0;
        else if (typeof params[1] === "boolean") verbose = params[1];
        else throw new RpcFailure(RPC_TYPE_ERROR, "Invalid type provided. Verbose parameter must be a boolean.");
      }
      const found = node.findTransaction(txid);
      if (!found)
        throw new RpcFailure(
          RPC_INVALID_ADDRESS_OR_KEY,
          "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
        );
      const hex = bytesToHex(serializeTransaction(found.tx));
      if (!verbose) return hex;
      const out: Record<string, unknown> = { hex, ...txJson(found.tx, network, false) };
      if (found.blockHash) {
        const entry = node.blockEntry(found.blockHash)!;
        out.blockhash = found.blockHash;
        if (node.isInActiveChain(found.blockHash)) {
          out.confirmations = node.height - entry.height + 1;
          out.time = entry.time;
          out.blocktime = entry.time;
        } else {
          out.confirmations = 0;
        }
      }
      return out;
    },
    // src/rpc/rawtransaction.cpp decoderawtransaction: RPCTypeCheck(VSTR), -22 on a bad decode
    decoderawtransaction: (params) => {
      arity(params, 1, 1, 'decoderawtransaction "hexstring"');
      typeCheck(params, ["string"]);
      const text = params[0] as string;
      const parsed = isHex(text) ? parseTransaction(hexToBytes(text)) : null;
      if (!parsed || !parsed.ok) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "TX decode failed");
      return txJson(parsed.value, network, false);
    },
    // src/rpc/rawtransaction.cpp sendrawtransaction: RPCTypeCheck(VSTR, VBOOL)
    sendrawtransaction: (params) => {
      arity(params, 1, 2, 'sendrawtransaction "hexstring" ( allowhighfees )');
      typeCheck(params, ["string", "bool"]);
      const text = params[0] as string;
      if (!isHex(text)) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "TX decode failed");
      return node.sendRawTransaction(hexToBytes(text), params.length > 1 && params[1] === true);
    },
    // src/rpc/mining.cpp submitblock: get_str, -22 "Block decode failed", BIP22 result strings
    submitblock: (params) => {
      arity(params, 1, 2, 'submitblock "hexdata" ( "jsonparametersobject" )');
      const text = getStr(params[0]);
      if (!isHex(text)) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "Block decode failed");
      return node.submitBlock(hexToBytes(text));
    },
    // src/rpc/blockchain.cpp getrawmempool: verbose get_bool
    getrawmempool: (params) => {
      arity(params, 0, 1, "getrawmempool ( verbose )");
      const verbose = params.length > 0 ? getBool(params[0]) : false;
      const txids = node.mempoolEntries().map((entry) => entry.tx.txid);
      if (!verbose) return txids;
      return Object.fromEntries(txids.map((txid) => [txid, mempoolEntryJson(txid)]));
    },
    // src/rpc/blockchain.cpp getmempoolentry: ParseHashV "parameter 1"
    getmempoolentry: (params) => {
      arity(params, 1, 1, "getmempoolentry txid");
      const txid = parseHashV(params[0], "parameter 1");
      if (!node.mempoolEntry(txid)) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
      return mempoolEntryJson(txid);
    },
    // src/rpc/blockchain.cpp getmempoolinfo (mempoolInfoToJSON)
    getmempoolinfo: (params) => {
      arity(params, 0, 0, "getmempoolinfo");
      const entries = node.mempoolEntries();
      const bytes = entries.reduce((sum, entry) => sum + entry.size, 0);
      return {
        size: entries.length,
        bytes,
        usage: bytes * 2,
        maxmempool: POLICY.maxMempoolBytes,
        mempoolminfee: new Amount(0n),
      };
    },
    // src/rpc/blockchain.cpp gettxout: uint256S(get_str()), n get_int, include_mempool get_bool
    gettxout: (params) => {
      arity(params, 2, 3, 'gettxout "txid" n ( include_mempool )');
      const txid = uint256S(params[0]);
      const vout = getInt(params[1]);
      const includeMempool = params.length > 2 ? getBool(params[2]) : true;
      if (vout < 0) return null;
      const coin = node.getCoin(txid, vout, includeMempool);
      if (!coin) return null;
      return {
        bestblock: node.tipHash,
        confirmations: coin.inMempool ? 0 : node.height - coin.height + 1,
        value: new Amount(coin.value),
        scriptPubKey: scriptPubKeyJson(coin.script, network),
        coinbase: coin.coinbase,
      };
    },
    // src/rpc/blockchain.cpp gettxoutsetinfo (GetUTXOStats)
    gettxoutsetinfo: (params) => {
      arity(params, 0, 0, "gettxoutsetinfo");
      const { total_amount, ...stats } = utxoSetInfo(node);
      return { ...stats, disk_size: node.store.fileBytes(), total_amount };
    },
    // src/rpc/net.cpp getnetworkinfo; softdustlimit and harddustlimit are Dogecoin's additions
    getnetworkinfo: (params) => {
      arity(params, 0, 0, "getnetworkinfo");
      return {
        version: 1140700,
        subversion: "/Shibetoshi:1.14.7(dogeos-devnet)/",
        protocolversion: 70015,
        localservices: "0000000000000005",
        localrelay: true,
        timeoffset: 0,
        networkactive: true,
        connections: 0,
        networks: ["ipv4", "ipv6", "onion"].map((name) => ({
          name,
          limited: false,
          reachable: name !== "onion",
          proxy: "",
          proxy_randomize_credentials: false,
        })),
        relayfee: new Amount(node.minRelayFeePerKb),
        incrementalfee: new Amount(INCREMENTAL_RELAY_FEE_RATE),
        softdustlimit: new Amount(SOFT_DUST_LIMIT),
        harddustlimit: new Amount(HARD_DUST_LIMIT),
        localaddresses: [],
        warnings: "",
      };
    },
    // src/rpc/net.cpp getconnectioncount: the devnet has no peers
    getconnectioncount: (params) => {
      arity(params, 0, 0, "getconnectioncount");
      return 0;
    },
    // src/rpc/misc.cpp validateaddress (wallet-enabled build, an address not in the wallet)
    validateaddress: (params) => {
      arity(params, 1, 1, 'validateaddress "address"');
      const address = getStr(params[0]);
      try {
        const decoded = decodeAddress(address, network);
        const script =
          decoded.type === "pubkeyhash"
            ? Uint8Array.from([0x76, 0xa9, 20, ...decoded.hash, 0x88, 0xac])
            : Uint8Array.from([0xa9, 20, ...decoded.hash, 0x87]);
        return {
          isvalid: true,
          address,
          scriptPubKey: bytesToHex(script),
          ismine: false,
          iswatchonly: false,
          isscript: decoded.type === "scripthash",
        };
      } catch (error) {
        if (error instanceof AddressError || error instanceof DecodeError) return { isvalid: false };
        throw error;
      }
    },
    // src/rpc/misc.cpp verifymessage: three get_str, then -3 for the address, -5 for the base64
    verifymessage: (params) => {
      arity(params, 3, 3, 'verifymessage "address" "signature" "message"');
      const address = getStr(params[0]);
      const signature = getStr(params[1]);
      const message = getStr(params[2]);
      let decoded;
      try {
        decoded = decodeAddress(address, network);
      } catch {
        throw new RpcFailure(RPC_TYPE_ERROR, "Invalid address");
      }
      if (decoded.type !== "pubkeyhash") throw new RpcFailure(RPC_TYPE_ERROR, "Address does not refer to key");
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(signature) || signature.length % 4 !== 0) {
        throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Malformed base64 encoding");
      }
      return verifyMessage(address, signature, message, network);
    },
    // src/rpc/mining.cpp estimatesmartfee: RPCTypeCheck(VNUM), get_int, no range check
    estimatesmartfee: (params) => {
      arity(params, 1, 1, "estimatesmartfee nblocks");
      typeCheck(params, ["number"]);
      return estimateSmartFee(node, getInt(params[0]));
    },
    // src/rpc/mining.cpp estimatefee: RPCTypeCheck(VNUM), nblocks below 1 reads as 1
    estimatefee: (params) => {
      arity(params, 1, 1, "estimatefee nblocks");
      typeCheck(params, ["number"]);
      return estimateSmartFee(node, Math.max(1, getInt(params[0]))).feerate;
    },
    // src/rpc/mining.cpp generatetoaddress: nblocks get_int, address get_str, maxtries get_int
    generatetoaddress: (params) => {
      arity(params, 2, 3, "generatetoaddress nblocks address (maxtries)");
      const count = getInt(params[0]);
      const address = getStr(params[1]);
      if (params.length > 2) getInt(params[2]);
      try {
        decodeAddress(address, network);
      } catch {
        throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address");
      }
      // Deliberate difference: Core has no upper bound (a negative count mines nothing, as in Core).
      if (count > MAX_GENERATE_BLOCKS)
        throw new RpcFailure(RPC_INVALID_PARAMETER, `nblocks must be at most ${MAX_GENERATE_BLOCKS}`);
      return count <= 0 ? [] : node.generateToAddress(count, address);
    },
    // src/rpc/blockchain.cpp invalidateblock: uint256S(get_str()), -5 "Block not found"
    invalidateblock: (params) => {
      arity(params, 1, 1, 'invalidateblock "blockhash"');
      node.invalidateBlock(uint256S(params[0]));
      return null;
    },
    // src/rpc/blockchain.cpp reconsiderblock
    reconsiderblock: (params) => {
      arity(params, 1, 1, 'reconsiderblock "blockhash"');
      node.reconsiderBlock(uint256S(params[0]));
      return null;
    },
    // src/rpc/blockchain.cpp getchaintips: highest first
    getchaintips: (params) => {
      arity(params, 0, 0, "getchaintips");
      return chainTips(node);
    },
    // src/rpc/server.cpp uptime
    uptime: (params) => {
      arity(params, 0, 0, "uptime");
      return Math.floor(process.uptime());
    },
    // src/rpc/server.cpp stop: one ignored argument allowed (the deprecated detach flag)
    stop: (params) => {
      arity(params, 0, 1, "stop");
      setImmediate(() => options.onStop?.());
      return "Dogecoin server stopping";
    },
    // ---------------------------------------------------------- devnet extras
    devnet_faucet: (params) => {
      arity(params, 2, 3, 'devnet_faucet "address" amount ( confirm )');
      const address = getStr(params[0]);
      try {
        decodeAddress(address, network);
      } catch {
        throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Invalid Dogecoin address");
      }
      const amount = amountParam(params[1]);
      const confirm = params[2] === undefined ? false : params[2];
      if (typeof confirm !== "boolean")
        throw new RpcFailure(RPC_TYPE_ERROR, `Expected type bool, got ${typeName(confirm)}`);
      const txid = node.faucet(address, amount);
      const blockhash = confirm ? node.generateToAddress(1, node.faucetAddress())[0] : null;
      return { txid, vout: 0, amount: new Amount(amount), blockhash };
    },
    devnet_faucetaddress: () => node.faucetAddress(),
    devnet_setautomine: (params) => {
      arity(params, 1, 1, "devnet_setautomine seconds (0 turns it off)");
      const seconds = getInt(params[0]);
      if (seconds < 0 || seconds > 86_400)
        throw new RpcFailure(RPC_INVALID_PARAMETER, "seconds must be between 0 and 86400");
      if (!options.setAutomine) throw new RpcFailure(RPC_MISC_ERROR, "automine is not available in this process");
      options.setAutomine(seconds);
      return { automine: seconds };
    },
    devnet_getautomine: () => ({ automine: options.getAutomine ? options.getAutomine() : 0 }),
    devnet_setpromiscuousmempool: (params) => {
      arity(params, 1, 1, "devnet_setpromiscuousmempool enabled");
      if (typeof params[0] !== "boolean")
        throw new RpcFailure(RPC_TYPE_ERROR, `Expected type bool, got ${typeName(params[0])}`);
      node.promiscuousMempool = params[0];
      return { promiscuousmempool: node.promiscuousMempool };
    },
    devnet_evict: (params) => {
      arity(params, 1, 1, 'devnet_evict "txid"');
      return { evicted: node.evictFromMempool(parseHashV(params[0], "txid")) };
    },
    devnet_setminrelayfee: (params) => {
      arity(params, 1, 1, "devnet_setminrelayfee amount (DOGE per kB)");
      const feePerKb = amountParam(params[0]);
      if (feePerKb > 100_000_000n * 100n)
        throw new RpcFailure(RPC_INVALID_PARAMETER, "amount must be at most 100 DOGE per kB");
      node.minRelayFeePerKb = feePerKb;
      return { relayfee: new Amount(node.minRelayFeePerKb) };
    },
    devnet_setmaxtxfee: (params) => {
      arity(params, 1, 1, "devnet_setmaxtxfee amount (DOGE)");
      node.maxTxFee = amountParam(params[0]);
      return { maxtxfee: new Amount(node.maxTxFee) };
    },
  };
}

/**
 * Fee estimate from what recent blocks actually paid: the median fee rate of the non-coinbase
 * transactions in the last `max(target, 6)` blocks, never below the relay minimum. With no such
 * transactions dogecoind has no estimate either and answers -1.
 */
function estimateSmartFee(node: DevnetNode, target: number): { feerate: Amount | number; blocks: number } {
  // Core 0.14's estimator tracks 1..25 blocks (src/policy/fees.h MAX_BLOCK_CONFIRMS); outside it answers -1.
  if (target <= 0 || target > MAX_BLOCK_CONFIRMS) return { feerate: -1, blocks: target };
  const span = Math.max(target, 6);
  const rates: bigint[] = [];
  for (let height = node.height; height > 0 && height > node.height - span; height--) {
    const block = node.readBlock(node.hashAtHeight(height)!);
    if (!block) continue;
    for (const tx of block.txs.slice(1)) {
      const fee = feeOf(node, tx);
      if (fee !== null) rates.push((fee * 1000n) / BigInt(tx.size));
    }
  }
  if (rates.length === 0) return { feerate: -1, blocks: target };
  rates.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const median = rates[Math.floor(rates.length / 2)];
  return { feerate: new Amount(median > MIN_RELAY_FEE_RATE ? median : MIN_RELAY_FEE_RATE), blocks: target };
}

function feeOf(node: DevnetNode, tx: Parameters<typeof txJson>[0]): bigint | null {
  let inputTotal = 0n;
  for (const input of tx.inputs) {
    const previous = node.findTransaction(input.prevTxid);
    if (!previous) return null;
    inputTotal += previous.tx.outputs[input.vout].value;
  }
  return inputTotal - tx.outputs.reduce((sum, output) => sum + output.value, 0n);
}

function chainTips(node: DevnetNode): unknown[] {
  const tips = [{ height: node.height, hash: node.tipHash, branchlen: 0, status: "active" }].concat(
    node.sideTips().map((tip) => ({
      height: tip.height,
      hash: tip.hash,
      branchlen: tip.branchlen,
      status: tip.invalid ? "invalid" : "valid-fork",
    })),
  );
  // Core's set is ordered by height, highest first (CompareBlocksByHeight).
  return tips.sort((a, b) => b.height - a.height);
}

/** The fee estimator's longest target (Dogecoin Core 1.14 src/policy/fees.h MAX_BLOCK_CONFIRMS). */
const MAX_BLOCK_CONFIRMS = 25;

/** The devnet's cap on one generatetoaddress call (Core has none). */
const MAX_GENERATE_BLOCKS = 10_000;

/** Regtest's BIP9 window and the deployments' timeout (src/chainparams.cpp CRegTestParams). */
const REGTEST_BIP9_WINDOW = 720;
const REGTEST_BIP9_TIMEOUT = 999_999_999_999;

/**
 * A regtest BIP9 deployment as getblockchaininfo shows it (src/rpc/blockchain.cpp
 * BIP9SoftForkDesc, src/versionbits.cpp): "defined" until the first 720-block window closes, then
 * "started" for good, since the devnet's blocks (version 0x00620004, no version-bits top bits)
 * never signal. The state is the one for the block after the tip.
 */
function bip9Deployment(tipHeight: number, bit: number): Record<string, unknown> {
  const periodEnd = tipHeight - ((tipHeight + 1) % REGTEST_BIP9_WINDOW);
  if (periodEnd < 0) return { status: "defined", startTime: 0, timeout: REGTEST_BIP9_TIMEOUT, since: 0 };
  return { status: "started", bit, startTime: 0, timeout: REGTEST_BIP9_TIMEOUT, since: REGTEST_BIP9_WINDOW };
}

/**
 * getblockchaininfo's size_on_disk: Core's CalculateCurrentUsage sums its block files (each block
 * with an 8-byte magic and length record) and undo files. The devnet counts the same records for
 * every block it stores, plus its undo data (kept in its own format, so this part is close, not equal).
 */
function sizeOnDisk(node: DevnetNode): number {
  const stored = node.store.storedBytes();
  return stored.blockBytes + 8 * stored.blocks + stored.undoBytes;
}

/** Bitcoin's VARINT (src/serialize.h WriteVarInt): base 128, most significant first, minus one per continuation. */
function writeVarInt(out: number[], value: bigint): void {
  const bytes: number[] = [];
  let n = value;
  for (;;) {
    bytes.push(Number(n & 0x7fn) | (bytes.length > 0 ? 0x80 : 0));
    if (n <= 0x7fn) break;
    n = (n >> 7n) - 1n;
  }
  for (let i = bytes.length - 1; i >= 0; i--) out.push(bytes[i]);
}

function writeCompactSize(out: number[], length: number): void {
  if (length < 0xfd) out.push(length);
  else if (length <= 0xffff) out.push(0xfd, length & 0xff, length >> 8);
  else out.push(0xfe, length & 0xff, (length >> 8) & 0xff, (length >> 16) & 0xff, (length >>> 24) & 0xff);
}

/**
 * gettxoutsetinfo's figures (src/rpc/blockchain.cpp GetUTXOStats, Dogecoin Core 1.14): the coins
 * grouped per transaction in the coin database's key order (txid bytes as stored, little-endian),
 * hashed as Core serializes them: best block, then per transaction its txid, VARINT(height * 2 +
 * coinbase), per unspent output VARINT(index + 1), the script and VARINT(value), and VARINT(0).
 */
function utxoSetInfo(node: DevnetNode): Record<string, unknown> {
  const byTx = new Map<string, StoredCoin[]>();
  let total = 0n;
  for (const coin of node.store.allCoins()) {
    const key = bytesToHex(hexToBytes(coin.txid).reverse());
    const list = byTx.get(key);
    if (list) list.push(coin);
    else byTx.set(key, [coin]);
    total += coin.value;
  }
  const keys = [...byTx.keys()].sort();
  const data: number[] = [...hexToBytes(node.tipHash).reverse()];
  let txouts = 0;
  for (const key of keys) {
    const coins = byTx.get(key)!.sort((a, b) => a.vout - b.vout);
    data.push(...hexToBytes(key));
    writeVarInt(data, BigInt(coins[0].height * 2 + (coins[0].coinbase ? 1 : 0)));
    for (const coin of coins) {
      writeVarInt(data, BigInt(coin.vout + 1));
      writeCompactSize(data, coin.script.length);
      for (const byte of coin.script) data.push(byte);
      writeVarInt(data, coin.value);
      txouts += 1;
    }
    writeVarInt(data, 0n);
  }
  const once = createHash("sha256").update(Uint8Array.from(data)).digest();
  const twice = createHash("sha256").update(once).digest();
  return {
    height: node.height,
    bestblock: node.tipHash,
    transactions: keys.length,
    txouts,
    hash_serialized_2: bytesToHex(Uint8Array.from(twice).reverse()),
    total_amount: new Amount(total),
  };
}
