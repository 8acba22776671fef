/**
 * dogecoind-compatible JSON-RPC over HTTP for the devnet node: method names, parameters, result
 * shapes, error codes and HTTP statuses as Dogecoin Core 1.14 serves them (src/httprpc.cpp: 401 on bad
 * credentials, 404 for an unknown method, 400 for an invalid request, 500 for other errors, each
 * with the JSON-RPC error body). Methods beyond dogecoind's are named `devnet_*`.
 */
import http from "node:http";
import { timingSafeEqual } from "node:crypto";
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
import { POLICY } from "./params";
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
    const { method, params, id } = request as { method?: unknown; params?: unknown; id?: unknown };
    if (typeof method !== "string") {
      return {
        status: 400,
        body: {
          result: null,
          error: { code: RPC_INVALID_REQUEST, message: "Method must be a string" },
          id: id ?? null,
        },
      };
    }
    if (params !== undefined && params !== null && !Array.isArray(params)) {
      return {
        status: 400,
        body: {
          result: null,
          error: { code: RPC_INVALID_REQUEST, message: "Params must be an array" },
          id: id ?? null,
        },
      };
    }
    const handler = Object.prototype.hasOwnProperty.call(this.methods, method) ? this.methods[method] : undefined;
    if (!handler) {
      return {
        status: 404,
        body: { result: null, error: { code: RPC_METHOD_NOT_FOUND, message: "Method not found" }, id: id ?? null },
      };
    }
    try {
      const result = handler((params as unknown[] | undefined) ?? []);
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

// ------------------------------------------------------------------ parameter helpers (dogecoind texts)

function typeName(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

function arity(params: unknown[], min: number, max: number, usage: string): void {
  if (params.length < min || params.length > max) throw new RpcFailure(RPC_MISC_ERROR, usage);
}

function str(value: unknown): string {
  if (typeof value !== "string") throw new RpcFailure(RPC_TYPE_ERROR, `Expected type string, got ${typeName(value)}`);
  return value;
}

function int(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value))
    throw new RpcFailure(RPC_TYPE_ERROR, `Expected type number, got ${typeName(value)}`);
  return value;
}

function hash(value: unknown, name: string): string {
  const text = str(value);
  if (!isHex(text)) throw new RpcFailure(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
  if (text.length !== 64)
    throw new RpcFailure(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${text.length})`);
  return text.toLowerCase();
}

/** dogecoind accepts true/false or 0/1/2 for verbosity-like flags. */
function verbosity(value: unknown, fallback: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "boolean") return value ? 1 : 0;
  const n = int(value);
  if (n < 0 || n > max) throw new RpcFailure(RPC_INVALID_PARAMETER, `Verbosity must be between 0 and ${max}`);
  return n;
}

function amountParam(value: unknown): bigint {
  let text: string;
  if (typeof value === "number") text = value.toFixed(8);
  else if (typeof value === "string" && /^\d+(\.\d{1,8})?$/.test(value)) text = value;
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
        chainwork: tip.chainwork.toString(16).padStart(64, "0"),
        pruned: false,
        softforks: [
          { id: "bip34", version: 2, reject: { status: false } },
          { id: "bip66", version: 3, reject: { status: node.height >= 1251 } },
          { id: "bip65", version: 4, reject: { status: node.height >= 1351 } },
        ],
        bip9_softforks: {},
      };
    },
    getblockcount: (params) => {
      arity(params, 0, 0, "getblockcount");
      return node.height;
    },
    getbestblockhash: (params) => {
      arity(params, 0, 0, "getbestblockhash");
      return node.tipHash;
    },
    getblockhash: (params) => {
      arity(params, 1, 1, "getblockhash height");
      const height = int(params[0]);
      const found = height >= 0 ? node.hashAtHeight(height) : undefined;
      if (!found) throw new RpcFailure(RPC_INVALID_PARAMETER, "Block height out of range");
      return found;
    },
    getblock: (params) => {
      arity(params, 1, 2, 'getblock "blockhash" ( verbosity )');
      const blockHash = hash(params[0], "blockhash");
      const level = verbosity(params[1], 1, 2);
      const block = requireBlock(blockHash);
      if (level === 0) return bytesToHex(serializeBlock(block));
      return blockJson(block, headerContext(blockHash), level as 1 | 2, network);
    },
    getblockheader: (params) => {
      arity(params, 1, 2, 'getblockheader "hash" ( verbose )');
      const blockHash = hash(params[0], "hash");
      const verbose = params[1] === undefined ? true : params[1];
      if (typeof verbose !== "boolean")
        throw new RpcFailure(RPC_TYPE_ERROR, `Expected type bool, got ${typeName(verbose)}`);
      const block = requireBlock(blockHash);
      if (!verbose) return bytesToHex(serializeBlock({ header: block.header, txs: [] }).subarray(0, 80));
      return headerJson(block.header, headerContext(blockHash));
    },
    getrawtransaction: (params) => {
      arity(params, 1, 2, 'getrawtransaction "txid" ( verbose )');
      const txid = hash(params[0], "parameter 1");
      const verbose = verbosity(params[1], 0, 1);
      const found = node.findTransaction(txid);
      if (!found)
        throw new RpcFailure(
          RPC_INVALID_ADDRESS_OR_KEY,
          "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
        );
      const hex = bytesToHex(serializeTransaction(found.tx));
      if (verbose === 0) return hex;
      const out = txJson(found.tx, network, true);
      if (found.blockHash) {
        const entry = node.blockEntry(found.blockHash)!;
        out.blockhash = found.blockHash;
        out.confirmations = node.isInActiveChain(found.blockHash) ? node.height - entry.height + 1 : 0;
        out.time = entry.time;
        out.blocktime = entry.time;
      }
      return out;
    },
    decoderawtransaction: (params) => {
      arity(params, 1, 1, 'decoderawtransaction "hexstring"');
      const text = str(params[0]);
      const parsed = isHex(text) ? parseTransaction(hexToBytes(text)) : null;
      if (!parsed || !parsed.ok) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "TX decode failed");
      return txJson(parsed.value, network, false);
    },
    sendrawtransaction: (params) => {
      arity(params, 1, 2, 'sendrawtransaction "hexstring" ( allowhighfees )');
      const text = str(params[0]);
      if (!isHex(text)) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "TX decode failed");
      const allowHighFees = params[1] === undefined ? false : params[1];
      if (typeof allowHighFees !== "boolean")
        throw new RpcFailure(RPC_TYPE_ERROR, `Expected type bool, got ${typeName(allowHighFees)}`);
      return node.sendRawTransaction(hexToBytes(text), allowHighFees);
    },
    submitblock: (params) => {
      arity(params, 1, 2, 'submitblock "hexdata" ( "parameters" )');
      const text = str(params[0]);
      if (!isHex(text)) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "Block decode failed");
      return node.submitBlock(hexToBytes(text));
    },
    getrawmempool: (params) => {
      arity(params, 0, 1, "getrawmempool ( verbose )");
      const verbose = params[0] === undefined ? false : params[0];
      if (typeof verbose !== "boolean")
        throw new RpcFailure(RPC_TYPE_ERROR, `Expected type bool, got ${typeName(verbose)}`);
      const txids = node.mempoolEntries().map((entry) => entry.tx.txid);
      if (!verbose) return txids;
      return Object.fromEntries(txids.map((txid) => [txid, mempoolEntryJson(txid)]));
    },
    getmempoolentry: (params) => {
      arity(params, 1, 1, "getmempoolentry txid");
      const txid = hash(params[0], "parameter 1");
      if (!node.mempoolEntry(txid)) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
      return mempoolEntryJson(txid);
    },
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
    gettxout: (params) => {
      arity(params, 2, 3, 'gettxout "txid" n ( include_mempool )');
      const txid = hash(params[0], "txid");
      const vout = int(params[1]);
      const includeMempool = params[2] === undefined ? true : params[2];
      if (typeof includeMempool !== "boolean")
        throw new RpcFailure(RPC_TYPE_ERROR, `Expected type bool, got ${typeName(includeMempool)}`);
      if (vout < 0) return null;
      const coin = node.getCoin(txid, vout, includeMempool);
      if (!coin) return null;
      return {
        bestblock: node.tipHash,
        confirmations: coin.inMempool ? 0 : node.height - coin.height + 1,
        value: new Amount(coin.value),
        scriptPubKey: scriptPubKeyJson(coin.script, network),
        version: 1,
        coinbase: coin.coinbase,
      };
    },
    gettxoutsetinfo: (params) => {
      arity(params, 0, 0, "gettxoutsetinfo");
      const stats = node.utxoStats();
      return {
        height: node.height,
        bestblock: node.tipHash,
        txouts: stats.count,
        total_amount: new Amount(stats.total),
      };
    },
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
        networks: [],
        relayfee: new Amount(node.minRelayFeePerKb),
        incrementalfee: new Amount(INCREMENTAL_RELAY_FEE_RATE),
        softdustlimit: new Amount(SOFT_DUST_LIMIT),
        harddustlimit: new Amount(HARD_DUST_LIMIT),
        localaddresses: [],
        warnings: "",
      };
    },
    validateaddress: (params) => {
      arity(params, 1, 1, 'validateaddress "address"');
      const address = str(params[0]);
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
    verifymessage: (params) => {
      arity(params, 3, 3, 'verifymessage "address" "signature" "message"');
      const address = str(params[0]);
      const signature = str(params[1]);
      const message = str(params[2]);
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
    estimatesmartfee: (params) => {
      arity(params, 1, 1, "estimatesmartfee nblocks");
      const target = int(params[0]);
      if (target < 1) throw new RpcFailure(RPC_INVALID_PARAMETER, "Invalid nblocks");
      return estimateSmartFee(node, target);
    },
    estimatefee: (params) => {
      arity(params, 1, 1, "estimatefee nblocks");
      const estimate = estimateSmartFee(node, int(params[0]));
      return estimate.feerate;
    },
    generatetoaddress: (params) => {
      arity(params, 2, 3, "generatetoaddress nblocks address (maxtries)");
      const count = int(params[0]);
      const address = str(params[1]);
      if (count < 0 || count > 10_000)
        throw new RpcFailure(RPC_INVALID_PARAMETER, "nblocks must be between 0 and 10000");
      try {
        decodeAddress(address, network);
      } catch {
        throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address");
      }
      return node.generateToAddress(count, address);
    },
    invalidateblock: (params) => {
      arity(params, 1, 1, 'invalidateblock "blockhash"');
      node.invalidateBlock(hash(params[0], "blockhash"));
      return null;
    },
    reconsiderblock: (params) => {
      arity(params, 1, 1, 'reconsiderblock "blockhash"');
      node.reconsiderBlock(hash(params[0], "blockhash"));
      return null;
    },
    getchaintips: (params) => {
      arity(params, 0, 0, "getchaintips");
      return chainTips(node);
    },
    uptime: () => Math.floor(process.uptime()),
    stop: (params) => {
      arity(params, 0, 0, "stop");
      setImmediate(() => options.onStop?.());
      return "Dogecoin server stopping";
    },
    // ---------------------------------------------------------- devnet extras
    devnet_faucet: (params) => {
      arity(params, 2, 3, 'devnet_faucet "address" amount ( confirm )');
      const address = str(params[0]);
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
      const seconds = int(params[0]);
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
      return { evicted: node.evictFromMempool(hash(params[0], "txid")) };
    },
    devnet_setminrelayfee: (params) => {
      arity(params, 1, 1, "devnet_setminrelayfee amount (DOGE per kB)");
      const feePerKb = amountParam(params[0]);
      if (feePerKb > 100_000_000n * 100n)
        throw new RpcFailure(RPC_INVALID_PARAMETER, "amount must be at most 100 DOGE per kB");
      node.minRelayFeePerKb = feePerKb;
      return { relayfee: new Amount(node.minRelayFeePerKb) };
    },
  };
}

/**
 * Fee estimate from what recent blocks actually paid: the median fee rate of the non-coinbase
 * transactions in the last `max(target, 6)` blocks, never below the relay minimum. With no such
 * transactions dogecoind has no estimate either and answers -1.
 */
function estimateSmartFee(node: DevnetNode, target: number): { feerate: Amount | number; blocks: number } {
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
  const tips: unknown[] = [{ height: node.height, hash: node.tipHash, branchlen: 0, status: "active" }];
  return tips.concat(
    node.sideTips().map((tip) => ({
      height: tip.height,
      hash: tip.hash,
      branchlen: tip.branchlen,
      status: tip.invalid ? "invalid" : "valid-fork",
    })),
  );
}
