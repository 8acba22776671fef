/**
 * An Esplora-compatible read subset of the explorer (issue 18, item 5), mounted at /esplora/api, so
 * that clients written for Blockstream's Esplora (API.md) can point at a Dogecoin index:
 *
 *   GET  /address/:address                      {address, chain_stats, mempool_stats}
 *   GET  /address/:address/utxo                 [{txid, vout, status, value}]
 *   GET  /address/:address/txs                  newest first: up to 50 pending, then 25 confirmed
 *   GET  /address/:address/txs/chain[/:last_seen_txid]   25 confirmed per page, newest first
 *   GET  /address/:address/txs/mempool          up to 50 pending, newest first
 *   GET  /tx/:txid                              {txid, version, locktime, vin, vout, size, weight, fee, status}
 *   GET  /tx/:txid/hex                          the raw transaction, hex text
 *   GET  /tx/:txid/status                       {confirmed, block_height, block_hash, block_time}
 *   GET  /blocks/tip/height, /blocks/tip/hash   text
 *   POST /tx                                    raw hex text in, txid text out
 *
 * The index is the source of confirmed data; pending transactions and mempool_stats come from the
 * explorer's mempool view (none without one), with status {confirmed: false}. Amounts are koinu as
 * JSON integers of every digit (the explorer's exact writer). Dogecoin has no witness, so weight is
 * 4 x size and no witness field is written.
 *
 * The index holds no raw transactions: version, lock time, scriptSigs and sequences come from the
 * block the index names, read from the node by hash (`getblock <hash> false`) and kept in a small
 * cache of parsed blocks. Everything else (values, addresses, fees, spends, heights) is the index's.
 */
import express, { RequestHandler } from "express";
import {
  Block,
  DecodedTransaction,
  DogeNetwork,
  OP,
  bytesToHex,
  classifyOutputScript,
  hexToBytes,
  isCoinbaseInput,
  opcodeName,
  outputScriptToAddress,
  parseBlock,
  parseScript,
  parseTransactionHex,
  serializeTransaction,
} from "../../doge";
import { IndexQueries, TxView } from "../../indexer/queries";
import { AppError, absentOrBehind, badRequest } from "../http/errors";
import { publicCors } from "../http/app";
import { ApiSurface, z } from "../http/openapi";
import * as E from "./esplora-schema";
import * as v from "../http/validation";
import { BroadcastNode, mapBroadcastError } from "./broadcast";
import type { MempoolReader } from "./mempool";

/** The node as the subset uses it: broadcasts, and (when it can) serialized blocks by hash. */
export interface EsploraNode extends BroadcastNode {
  /** `getblock <hash> false`. Without it, answers that need a raw transaction are 503 RAW_TX_UNAVAILABLE. */
  getBlockHex?(hash: string): Promise<string>;
}

export interface EsploraOptions {
  queries: IndexQueries;
  network: DogeNetwork;
  node: EsploraNode;
  /** The limit of POST /tx: the explorer's own broadcast limiter, so that both paths share one budget per client. */
  broadcastLimit: RequestHandler;
  /** Parsed blocks kept for raw transaction reads (default 16). */
  blockCacheSize?: number;
  /**
   * The node's mempool (mempool.ts): fills an address's mempool_stats and the pending transactions
   * of /tx/:txid, /address/:address/txs and /txs/mempool; without it nothing is pending.
   */
  mempool?: Pick<MempoolReader, "addressStats" | "tx" | "rawTx" | "history">;
  /** The explorer's document, in which these routes are declared (under /esplora/api). */
  surface: ApiSurface;
}

/** Esplora's page sizes: confirmed history per page, and the mempool part of /txs. */
export const ESPLORA_CHAIN_PAGE = 25;

/** Esplora's page of an address's mempool transactions (API.md: "up to 50 mempool transactions"). */
export const ESPLORA_MEMPOOL_PAGE = 50;

/** Esplora's confirmation status: the block of a confirmed transaction, or `{confirmed: false}`. */
type EsploraStatus =
  { confirmed: true; block_height: number; block_hash: string; block_time: number } | { confirmed: false };

export function createEsploraRouter(options: EsploraOptions): express.Router {
  const { queries, network, node } = options;
  const router = express.Router();
  const blocks = new BlockCache(node, options.blockCacheSize ?? 16);

  // Esplora is served to browsers on any origin, without credentials, like the explorer's /api.
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  router.use(publicCors);

  /** Not in the index: absent, or not indexed yet (503 while the index is behind the node). */
  const missing = (code: string, message: string, details: Record<string, unknown>): AppError =>
    absentOrBehind(queries.status(), code, message, details);
  const indexedTx = (txid: string): TxView => {
    const tx = queries.tx(txid);
    if (!tx) throw missing("TX_NOT_FOUND", `transaction ${txid} is not in the index`, { txid });
    return tx;
  };
  /** A transaction of the index, else of the mempool view, else 404 (or 503 while the index is behind). */
  const anyTx = (txid: string): { indexed: TxView } | { pending: DecodedTransaction; fee: bigint | null } => {
    const tx = queries.tx(txid);
    if (tx) return { indexed: tx };
    const raw = options.mempool?.rawTx(txid);
    if (raw) return { pending: raw, fee: options.mempool!.tx(txid)?.feeKoinu ?? null };
    throw missing("TX_NOT_FOUND", `transaction ${txid} is neither in the index nor in the node's mempool`, { txid });
  };
  const statusOf = (tx: TxView): EsploraStatus & { confirmed: true } => ({
    confirmed: true,
    block_height: tx.height,
    block_hash: tx.blockHash,
    block_time: tx.blockTime,
  });

  /** The output as Esplora writes it; the address only when the script has one. */
  const outputJson = (scriptHex: string, valueKoinu: bigint, address: string | null) => ({
    scriptpubkey: scriptHex,
    scriptpubkey_asm: esploraAsm(hexToBytes(scriptHex)),
    scriptpubkey_type: esploraScriptType(hexToBytes(scriptHex)),
    ...(address !== null ? { scriptpubkey_address: address } : {}),
    value: valueKoinu,
  });

  /** The output a pending input spends: a confirmed one (the index) or another pending transaction's. */
  const prevOutput = (
    txid: string,
    vout: number,
  ): { scriptHex: string; valueKoinu: bigint; address: string | null } | null => {
    const indexed = queries.output(txid, vout);
    if (indexed) return indexed;
    const parent = options.mempool?.tx(txid)?.outputs.find((o) => o.vout === vout);
    return parent ? { scriptHex: parent.scriptHex, valueKoinu: parent.valueKoinu, address: parent.address } : null;
  };

  const txJson = async (tx: TxView) => {
    const raw = await blocks.transaction(tx.blockHash, tx.txid);
    const byVout = new Map(tx.outputs.map((o) => [o.vout, o]));
    return rawTxJson(raw, {
      size: tx.size,
      fee: tx.feeKoinu ?? 0n,
      status: statusOf(tx),
      output: (vout) => byVout.get(vout) ?? null,
    });
  };

  /** A pending transaction in Esplora's shape: status `{confirmed: false}`, values from the outputs it spends. */
  const pendingTxJson = (raw: DecodedTransaction, fee: bigint | null) =>
    rawTxJson(raw, { size: raw.size, fee: fee ?? 0n, status: { confirmed: false }, output: () => null });

  const rawTxJson = (
    raw: DecodedTransaction,
    known: {
      size: number;
      fee: bigint;
      status: EsploraStatus;
      output: (vout: number) => { scriptHex: string; valueKoinu: bigint; address: string | null } | null;
    },
  ) => {
    return {
      txid: raw.txid,
      version: raw.version,
      locktime: raw.locktime,
      vin: raw.inputs.map((input) => {
        const coinbase = isCoinbaseInput(input);
        const prev = coinbase ? null : prevOutput(input.prevTxid, input.vout);
        const prevout = prev ? outputJson(prev.scriptHex, prev.valueKoinu, prev.address) : null;
        const redeemScript = prevout?.scriptpubkey_type === "p2sh" ? lastPush(input.scriptSig) : null;
        return {
          txid: input.prevTxid,
          vout: input.vout,
          prevout,
          scriptsig: bytesToHex(input.scriptSig),
          scriptsig_asm: esploraAsm(input.scriptSig),
          ...(redeemScript ? { inner_redeemscript_asm: esploraAsm(redeemScript) } : {}),
          is_coinbase: coinbase,
          sequence: input.sequence,
        };
      }),
      // The index keeps every output but OP_RETURNs' values and scripts come from the raw
      // transaction too; values and addresses are the index's where it has the output.
      vout: raw.outputs.map((output, vout) => {
        const indexed = known.output(vout);
        return indexed
          ? outputJson(indexed.scriptHex, indexed.valueKoinu, indexed.address)
          : outputJson(bytesToHex(output.script), output.value, outputScriptToAddress(output.script, network));
      }),
      size: known.size,
      weight: 4 * known.size,
      fee: known.fee,
      status: known.status,
    };
  };

  /** The address's pending transactions, newest first, at most one Esplora mempool page. */
  const mempoolPage = (address: string) =>
    (options.mempool?.history(address) ?? []).slice(0, ESPLORA_MEMPOOL_PAGE).flatMap((item) => {
      const raw = options.mempool!.rawTx(item.txid);
      return raw ? [pendingTxJson(raw, options.mempool!.tx(item.txid)?.feeKoinu ?? null)] : [];
    });

  const on = options.surface.on(router, "/esplora/api");
  const tags = ["esplora"];
  const AddressParams = z.object({ address: v.Address(network) });
  const TxParams = z.object({ txid: v.Txid });

  on.get(
    "/address/:address",
    {
      summary: "Esplora: an address's chain and mempool statistics",
      tags,
      params: AddressParams,
      responses: { 200: E.AddressStats },
    },
    ({ params: { address } }, _req, res) => {
      const stats = queries.txoStats(address);
      res.json({
        address,
        chain_stats: {
          funded_txo_count: stats.fundedCount,
          funded_txo_sum: stats.fundedKoinu,
          spent_txo_count: stats.spentCount,
          spent_txo_sum: stats.spentKoinu,
          tx_count: queries.balance(address).txCount,
        },
        mempool_stats: mempoolStats(address),
      });
    },
  );

  function mempoolStats(address: string) {
    const pending = options.mempool?.addressStats(address);
    if (!pending)
      return { funded_txo_count: 0, funded_txo_sum: 0n, spent_txo_count: 0, spent_txo_sum: 0n, tx_count: 0 };
    return {
      funded_txo_count: pending.fundedCount,
      funded_txo_sum: pending.fundedKoinu,
      spent_txo_count: pending.spentCount,
      spent_txo_sum: pending.spentKoinu,
      tx_count: pending.txCount,
    };
  }

  on.get(
    "/address/:address/utxo",
    {
      summary: "Esplora: every confirmed unspent output of an address",
      tags,
      params: AddressParams,
      responses: { 200: z.array(E.Utxo) },
    },
    ({ params: { address } }, _req, res) => {
      // Esplora answers every unspent output at once; pages of 500 from the index until the end.
      const items: { txid: string; vout: number; height: number; valueKoinu: bigint }[] = [];
      let after: { height: number; txid: string; vout: number } | null = null;
      for (;;) {
        const page = queries.utxos(address, after, 500);
        for (const u of page.items)
          items.push({ txid: u.txid, vout: u.vout, height: u.height, valueKoinu: u.valueKoinu });
        if (page.items.length < 500) break;
        const last = page.items[page.items.length - 1];
        after = { height: last.height, txid: last.txid, vout: last.vout };
      }
      // The status names the funding block: read once per height from the index.
      const blockAt = new Map<number, { hash: string; time: number }>();
      res.json(
        items.map((u) => {
          let block = blockAt.get(u.height);
          if (!block) {
            const funding = indexedTx(u.txid);
            block = { hash: funding.blockHash, time: funding.blockTime };
            blockAt.set(u.height, block);
          }
          return {
            txid: u.txid,
            vout: u.vout,
            status: { confirmed: true, block_height: u.height, block_hash: block.hash, block_time: block.time },
            value: u.valueKoinu,
          };
        }),
      );
    },
  );

  /** A page of the address's confirmed history, newest first, after `lastSeen` when given. */
  const chainPage = async (address: string, lastSeen: string | null) => {
    let before: { height: number; position: number } | null = null;
    if (lastSeen !== null) {
      const seen = indexedTx(lastSeen);
      before = { height: seen.height, position: seen.position };
    }
    const page = queries.history(address, before, ESPLORA_CHAIN_PAGE);
    return Promise.all(page.items.map((item) => txJson(indexedTx(item.txid))));
  };

  // mempool.js and newer Esplora servers page this path with ?after_txid=.
  on.get(
    "/address/:address/txs",
    {
      summary: "Esplora: an address's transactions, newest first: up to 50 pending ones, then 25 confirmed per page",
      tags,
      params: AddressParams,
      query: z.object({
        after_txid: v.Txid.optional().openapi({
          description: "the last confirmed transaction of the previous page (the next pages hold confirmed ones only)",
        }),
      }),
      responses: { 200: z.array(E.Tx) },
    },
    async ({ params: { address }, query }, _req, res) => {
      const after = query.after_txid ?? null;
      res.json([...(after === null ? mempoolPage(address) : []), ...(await chainPage(address, after))]);
    },
  );
  on.get(
    "/address/:address/txs/chain",
    {
      summary: "Esplora: an address's confirmed transactions, newest first (25 per page)",
      tags,
      params: AddressParams,
      responses: { 200: z.array(E.Tx) },
    },
    async ({ params: { address } }, _req, res) => {
      res.json(await chainPage(address, null));
    },
  );
  on.get(
    "/address/:address/txs/chain/:last_seen_txid",
    {
      summary: "Esplora: the next page of an address's confirmed transactions, after the last one seen",
      tags,
      params: AddressParams.extend({ last_seen_txid: v.Txid }),
      responses: { 200: z.array(E.Tx) },
    },
    async ({ params }, _req, res) => {
      res.json(await chainPage(params.address, params.last_seen_txid));
    },
  );
  on.get(
    "/address/:address/txs/mempool",
    {
      summary: "Esplora: an address's pending transactions, newest first (up to 50)",
      tags,
      params: AddressParams,
      responses: { 200: z.array(E.Tx) },
    },
    ({ params: { address } }, _req, res) => {
      res.json(mempoolPage(address));
    },
  );

  on.get(
    "/tx/:txid",
    {
      summary: "Esplora: a transaction, confirmed (the index) or pending (the node's mempool)",
      tags,
      params: TxParams,
      responses: { 200: E.Tx },
    },
    async ({ params: { txid } }, _req, res) => {
      const found = anyTx(txid);
      res.json("indexed" in found ? await txJson(found.indexed) : pendingTxJson(found.pending, found.fee));
    },
  );
  on.get(
    "/tx/:txid/status",
    { summary: "Esplora: a transaction's confirmation status", tags, params: TxParams, responses: { 200: E.TxStatus } },
    ({ params: { txid } }, _req, res) => {
      const found = anyTx(txid);
      res.json("indexed" in found ? statusOf(found.indexed) : { confirmed: false });
    },
  );
  on.get(
    "/tx/:txid/hex",
    {
      summary: "Esplora: the raw transaction, hexadecimal text",
      tags,
      params: TxParams,
      responses: { 200: { description: "hexadecimal", contentType: "text/plain" } },
    },
    async ({ params: { txid } }, _req, res) => {
      const found = anyTx(txid);
      const raw =
        "indexed" in found ? await blocks.transaction(found.indexed.blockHash, found.indexed.txid) : found.pending;
      res.type("text/plain").send(bytesToHex(serializeTransaction(raw)));
    },
  );

  const tip = () => {
    const s = queries.status();
    if (s.indexedHash === null) throw missing("NO_BLOCKS", "no block is indexed yet", {});
    return s;
  };
  on.get(
    "/blocks/tip/height",
    {
      summary: "Esplora: the indexed tip's height, as text",
      tags,
      responses: { 200: { description: "a decimal integer", contentType: "text/plain" } },
    },
    (_input, _req, res) => {
      res.type("text/plain").send(String(tip().indexedHeight));
    },
  );
  on.get(
    "/blocks/tip/hash",
    {
      summary: "Esplora: the indexed tip's block hash, as text",
      tags,
      responses: { 200: { description: "64 hexadecimal characters", contentType: "text/plain" } },
    },
    (_input, _req, res) => {
      res.type("text/plain").send(tip().indexedHash);
    },
  );

  // Limit first, then the body: Esplora clients post the hex as text under any content type
  // (axios says application/x-www-form-urlencoded), so every type is read as text here.
  on.post(
    "/tx",
    {
      summary: "Esplora: broadcasts a raw transaction (hexadecimal text); answers its txid as text",
      tags,
      rawBody: {
        contentType: "text/plain",
        description: "the raw transaction in hexadecimal (any content type is read as text)",
      },
      before: [options.broadcastLimit, express.text({ type: () => true, limit: "2mb" })],
      responses: { 200: { description: "the txid", contentType: "text/plain" } },
    },
    async (_input, req, res) => {
      const hex = typeof req.body === "string" ? req.body.trim() : "";
      const parsed = parseTransactionHex(hex);
      if (!parsed.ok)
        throw badRequest("TX_DECODE_FAILED", `not a transaction: ${parsed.error.message}`, {
          offset: parsed.error.offset,
        });
      let txid: string;
      try {
        txid = await node.sendRawTransaction(hex);
      } catch (error) {
        throw mapBroadcastError(error);
      }
      res.type("text/plain").send(txid);
    },
  );

  return router;
}

/** Parsed blocks by hash, the most recently used kept; concurrent reads of one block share a call. */
class BlockCache {
  private readonly blocks = new Map<string, Promise<Map<string, DecodedTransaction>>>();

  constructor(
    private readonly node: EsploraNode,
    private readonly size: number,
  ) {}

  async transaction(blockHash: string, txid: string): Promise<DecodedTransaction> {
    const tx = (await this.block(blockHash)).get(txid);
    if (!tx)
      throw new AppError(
        "upstream",
        "NODE_BLOCK_MISMATCH",
        `block ${blockHash} from the node does not hold transaction ${txid}`,
        { block_hash: blockHash, txid },
      );
    return tx;
  }

  private block(hash: string): Promise<Map<string, DecodedTransaction>> {
    const cached = this.blocks.get(hash);
    if (cached) {
      this.blocks.delete(hash);
      this.blocks.set(hash, cached);
      return cached;
    }
    const read = this.fetch(hash);
    this.blocks.set(hash, read);
    read.catch(() => this.blocks.delete(hash));
    while (this.blocks.size > this.size) this.blocks.delete(this.blocks.keys().next().value as string);
    return read;
  }

  private async fetch(hash: string): Promise<Map<string, DecodedTransaction>> {
    const getBlockHex = this.node.getBlockHex?.bind(this.node);
    if (!getBlockHex)
      throw new AppError(
        "unavailable",
        "RAW_TX_UNAVAILABLE",
        "this explorer's node client cannot read blocks, so raw transactions are not served",
      );
    let hex: string;
    try {
      hex = await getBlockHex(hash);
    } catch (error) {
      throw new AppError("upstream", "NODE_UNAVAILABLE", "the base-chain node did not answer the block read", {
        node_message: error instanceof Error ? error.message : String(error),
      });
    }
    const parsed = parseBlock(hexToBytes(hex));
    if (!parsed.ok)
      throw new AppError(
        "upstream",
        "NODE_BLOCK_MISMATCH",
        `block ${hash} from the node does not parse: ${parsed.error.message}`,
        { block_hash: hash },
      );
    const block: Block = parsed.value;
    return new Map(block.txs.map((tx) => [tx.txid, tx]));
  }
}

/**
 * Script as Esplora writes it (rust-bitcoin's ASM): every push with its opcode
 * (`OP_PUSHBYTES_20 <hex>`, `OP_PUSHDATA1 <hex>`), small numbers as `OP_PUSHNUM_n`, `OP_0` as such.
 */
export function esploraAsm(script: Uint8Array): string {
  const parts: string[] = [];
  for (const chunk of parseScript(script).chunks) {
    if (chunk.malformed) {
      parts.push("<push past end>");
      break;
    }
    const op = chunk.opcode;
    if (op === 0) parts.push("OP_0");
    else if (chunk.data)
      parts.push(`${op < OP.OP_PUSHDATA1 ? `OP_PUSHBYTES_${op}` : opcodeName(op)} ${bytesToHex(chunk.data)}`);
    else if (op === OP.OP_1NEGATE) parts.push("OP_PUSHNUM_NEG1");
    else if (op >= OP.OP_1 && op <= OP.OP_16) parts.push(`OP_PUSHNUM_${op - OP.OP_1 + 1}`);
    else if (op === OP.OP_CHECKLOCKTIMEVERIFY) parts.push("OP_CLTV");
    else if (op === OP.OP_CHECKSEQUENCEVERIFY) parts.push("OP_CSV");
    else parts.push(opcodeName(op));
  }
  return parts.join(" ");
}

/** Esplora's scriptpubkey_type names for the templates Dogecoin has (no witness programs). */
export function esploraScriptType(script: Uint8Array): string {
  if (script.length === 0) return "empty";
  if (script[0] === OP.OP_RETURN) return "op_return";
  switch (classifyOutputScript(script).type) {
    case "pubkeyhash":
      return "p2pkh";
    case "scripthash":
      return "p2sh";
    case "pubkey":
      return "p2pk";
    case "multisig":
      return "multisig";
    default:
      return "unknown";
  }
}

/** The last data push of a push-only scriptSig (a P2SH input's redeem script), else null. */
function lastPush(scriptSig: Uint8Array): Uint8Array | null {
  const parsed = parseScript(scriptSig);
  const last = parsed.chunks[parsed.chunks.length - 1];
  if (parsed.malformed || !last?.data || parsed.chunks.some((c) => c.opcode > OP.OP_16)) return null;
  return last.data;
}
