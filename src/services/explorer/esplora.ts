/**
 * Blockstream Esplora's read API (its API.md) over the Dogecoin index, mounted at /esplora/api, so
 * that clients written for Esplora (wallet libraries, mempool.js) work unchanged:
 *
 *   blocks        /blocks[/:start_height], /blocks/tip/height, /blocks/tip/hash, /block-height/:height,
 *                 /block/:hash, /block/:hash/status, /block/:hash/txs[/:start_index], /block/:hash/txids,
 *                 /block/:hash/txid/:index, /block/:hash/raw, /block/:hash/header
 *   transactions  /tx/:txid, /tx/:txid/status, /tx/:txid/hex, /tx/:txid/raw, /tx/:txid/merkle-proof,
 *                 /tx/:txid/merkleblock-proof, /tx/:txid/outspend/:vout, /tx/:txid/outspends, POST /tx
 *   addresses     /address/:address and /scripthash/:hash [/txs, /txs/chain[/:last_seen_txid], /txs/mempool,
 *                 /utxo], /address-prefix/:prefix
 *   mempool, fees /mempool, /mempool/txids, /mempool/recent, /fee-estimates (esplora-mempool.ts)
 *
 * Errors are Esplora's: a plain-text message with its status (400 malformed or a refused
 * broadcast, 404 "Block not found" / "Transaction not found", 503 while the index is behind), not
 * the explorer's JSON error body; a 429 of the broadcast limit keeps the JSON body.
 *
 * Sources: the index for everything confirmed (transactions, values, addresses, fees, spends,
 * heights, the chain of block hashes); the explorer's mempool view for pending transactions; the
 * node for what the index does not keep: serialized blocks (version, lock time, scriptSigs and
 * sequences of transactions, block headers, raw blocks and proofs: esplora-blocks.ts), header facts
 * (height, median time, difficulty), the mempool backlog and fee estimates. Amounts are koinu as
 * JSON integers of every digit (the explorer's exact writer). Dogecoin has no witness, so weight
 * is 4 x size and no witness field is written.
 */
import express, { ErrorRequestHandler, RequestHandler, Response } from "express";
import {
  DecodedTransaction,
  DogeNetwork,
  OP,
  bytesToHex,
  classifyOutputScript,
  hexToBytes,
  isCoinbaseInput,
  opcodeName,
  outputScriptToAddress,
  parseScript,
  parseTransactionHex,
  serializeTransaction,
} from "../../doge";
import { LRUCache } from "lru-cache";
import { IndexHistory, IndexQueries } from "../../indexer/queries";
import type { AsyncIndexReads } from "../../indexer/read/async";
import { addressForScriptHashOf, txoStatsOf, utxoPage, UtxoView } from "../../indexer/read/balances";
import { IndexedBlock, blockAt, indexedTip } from "../../indexer/read/blocks";
import { historyPage } from "../../indexer/read/history";
import { PlanRunner, ReadPlan } from "../../indexer/read/rows";
import { TxCoreView, outputOf, spentOutputsOf, txCoreOf, txRowOf } from "../../indexer/read/txs";
import { AppError, Refusal, absentOrBehind, badRequest, notFound, statusOf } from "../http/errors";
import { publicCors } from "../http/app";
import { exactJson } from "./records";
import { ApiSurface, coded, z } from "../http/openapi";
import * as E from "./esplora-schema";
import * as v from "../http/validation";
import type { BroadcastNode } from "./broadcast";
import {
  EsploraBlockNode,
  EsploraBlockReader,
  RawBlock,
  blockJson,
  headerBytes,
  merkleBlock,
  merkleBranch,
} from "./esplora-blocks";
import { EsploraMempoolNode, EsploraMempoolSource, MEMPOOL_RECENT, backlog } from "./esplora-mempool";
import type { MempoolReader } from "./mempool";

/** The node as the Esplora routes use it: broadcasts, blocks by hash, the mempool and fee estimates. */
export interface EsploraNode extends BroadcastNode, EsploraBlockNode, EsploraMempoolNode {}

export interface EsploraOptions {
  queries: IndexQueries;
  network: DogeNetwork;
  node: EsploraNode;
  /** The limit of POST /tx: the explorer's own broadcast limiter, so that both paths share one budget per client. */
  broadcastLimit: RequestHandler;
  /** Parsed blocks kept for raw transaction and block reads (default 16). */
  blockCacheSize?: number;
  /** Confirmed transactions kept in Esplora's shape (default 10,000). */
  txCacheSize?: number;
  /**
   * The node's mempool (mempool.ts): fills an address's mempool_stats and the pending transactions
   * of /tx/:txid, /address/:address/txs and /txs/mempool, and pending spends in /outspend(s);
   * without it nothing is pending.
   */
  mempool?: Pick<MempoolReader, "addressStats" | "tx" | "rawTx" | "history" | "spentBy">;
  /** How long the node's mempool and fee estimates are reused between requests (default 1000 ms). */
  cacheMs?: number;
  /**
   * Index reads on a PostgreSQL connection pool (the explorer's AsyncIndexReads, `--pg-pool`): the
   * address and script-hash routes, and the transactions they answer, then await their reads so
   * that requests overlap their queries. Without it every read is synchronous (SQLite).
   */
  plans?: Pick<AsyncIndexReads, "run">;
  /** Internal errors (500) are logged here. */
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** The explorer's document, in which these routes are declared (under /esplora/api). */
  surface: ApiSurface;
}

/** Esplora's page sizes: confirmed history per page, and the mempool part of /txs. */
export const ESPLORA_CHAIN_PAGE = 25;

/** Esplora's page of an address's mempool transactions (API.md: "up to 50 mempool transactions"). */
export const ESPLORA_MEMPOOL_PAGE = 50;

/** Esplora's /blocks page: the 10 newest blocks from the tip or a height. */
export const ESPLORA_BLOCKS_PAGE = 10;

/** JSON text of whole answers kept by indexed tip (byTip), at most. */
const RESPONSE_CACHE_BYTES = 64 * 1024 * 1024;

/** The index's blocks (hash and time) kept by height at most (about 200 bytes each). */
const KEPT_BLOCKS = 100_000;

/** Unspent outputs read per statement for /utxo (which answers all of an address's). */
const UTXO_READ_PAGE = 500;

/** A block by hash never changes: Esplora says these answers "can be cached indefinitely". */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** Esplora's confirmation status: the block of a confirmed transaction, or `{confirmed: false}`. */
type EsploraStatus =
  { confirmed: true; block_height: number; block_hash: string; block_time: number } | { confirmed: false };

/** An output as a transaction's JSON writes it (its own outputs, and the prevouts of its inputs). */
interface PrevOutput {
  scriptHex: string;
  valueKoinu: bigint;
  address: string | null;
}

/** An unspent output as Esplora writes it (/utxo): the index's row (UtxoView) with its block's status. */
function utxoJson(u: Pick<UtxoView, "txid" | "vout" | "valueKoinu">, status: EsploraStatus) {
  return { txid: u.txid, vout: u.vout, status, value: u.valueKoinu };
}

// Path parameters refused with Esplora's own messages (electrs's rest.rs): the text is the answer.
const HEX64 = /^[0-9a-fA-F]{64}$/;
const hex64 = (description: string, message: string) =>
  coded(
    z
      .string()
      .regex(HEX64)
      .transform((value) => value.toLowerCase())
      .openapi({ type: "string", pattern: HEX64.source, description }),
    "INVALID_HEX",
    () => message,
  );
const TxidParam = hex64("a transaction id, 64 hexadecimal characters", "Invalid hex string");
const BlockHashParam = hex64("a block hash, 64 hexadecimal characters", "Invalid hex string");
const numberParam = (description: string) =>
  coded(
    z
      .string()
      .regex(/^\d{1,10}$/)
      .transform(Number)
      .pipe(z.number().int().max(0xffffffff))
      .openapi({ type: "integer", minimum: 0, description }),
    "INVALID_NUMBER",
    () => "Invalid number",
  );

/** Addresses /address-prefix answers at most (electrs's ADDRESS_SEARCH_LIMIT, src/rest.rs). */
const ADDRESS_SEARCH_LIMIT = 10;

export function createEsploraRouter(options: EsploraOptions): express.Router {
  const { queries, network, node } = options;
  const router = express.Router();
  const blocks = new EsploraBlockReader(node, options.blockCacheSize ?? 16);
  const chain = new IndexHistory(queries.db);
  const mempoolSource = new EsploraMempoolSource(node, options.cacheMs ?? 1000, options.mempool);
  const log = options.log ?? (() => undefined);

  /**
   * Index reads are read plans (src/indexer/read/rows.ts), run on the explorer's PostgreSQL pool
   * when it has one (requests overlap their queries), else synchronously on the index's handle.
   */
  const planRunner = new PlanRunner(queries.db);
  const read = <T>(plan: ReadPlan<T>): T | Promise<T> =>
    options.plans ? options.plans.run(plan) : planRunner.run(plan);

  // Esplora is served to browsers on any origin, without credentials, like the explorer's /api.
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  router.use(publicCors);

  /** Not in the index: absent, or not indexed yet (503 while the index is behind the node). */
  const missing = (code: string, message: string, details: Record<string, unknown>): AppError =>
    absentOrBehind(queries.status(), code, message, details);
  const txNotFound = (txid: string) => missing("TX_NOT_FOUND", "Transaction not found", { txid });
  const indexedTx = async (txid: string): Promise<TxCoreView> => {
    const tx = await read(txCoreOf(txid));
    if (!tx) throw txNotFound(txid);
    return tx;
  };
  /** A transaction of the index, else of the mempool view, else 404 (or 503 while the index is behind). */
  const anyTx = async (
    txid: string,
  ): Promise<{ indexed: TxCoreView } | { pending: DecodedTransaction; fee: bigint | null }> => {
    const tx = await read(txCoreOf(txid));
    if (tx) return { indexed: tx };
    const raw = options.mempool?.rawTx(txid);
    if (raw) return { pending: raw, fee: options.mempool!.tx(txid)?.feeKoinu ?? null };
    throw txNotFound(txid);
  };
  /** Esplora's status of something confirmed in the index's block at `height`. */
  const confirmedStatus = (height: number, block: IndexedBlock): EsploraStatus & { confirmed: true } => ({
    confirmed: true,
    block_height: height,
    block_hash: block.hash,
    block_time: block.time,
  });
  const statusOfTx = (tx: Pick<TxCoreView, "height" | "blockHash" | "blockTime">) =>
    confirmedStatus(tx.height, { hash: tx.blockHash, time: tx.blockTime });

  /**
   * The index's blocks by height (hash and time), read once and kept while the chain below an
   * anchor (the indexed tip when last checked) stays: `followChain(tip)`, before an answer is read
   * from the index, compares the block at the anchor's height with the anchor once the tip has
   * moved, and forgets every kept block when a reorg replaced it. Only heights at or below the
   * anchor are kept, so a reorg that changes a kept height always changes the anchor's block too.
   * Reads overlap on a pool: when another request moved the anchor during the check, or a reorg
   * was noticed during a block's read (`generation` moved), nothing read meanwhile is trusted.
   */
  const keptBlocks = new LRUCache<number, IndexedBlock>({ max: KEPT_BLOCKS });
  let anchor: { height: number; hash: string } | null = null;
  let generation = 0;
  function* followChain(tip: { height: number; hash: string } | null): ReadPlan<void> {
    const previous = anchor;
    if (previous?.hash === tip?.hash) return;
    const replaced = previous === null || (yield* blockAt(previous.height))?.hash !== previous.hash;
    if (replaced || tip === null || anchor !== previous) {
      keptBlocks.clear();
      generation++;
    }
    anchor = tip;
  }
  function* indexedBlock(height: number): ReadPlan<IndexedBlock | null> {
    const kept = keptBlocks.get(height);
    if (kept) return kept;
    const seen = generation;
    const block = yield* blockAt(height);
    if (block && anchor && height <= anchor.height && seen === generation) keptBlocks.set(height, block);
    return block;
  }

  /**
   * Answers that depend on the index alone (an address's confirmed lists), kept as their JSON items
   * with the indexed tip they were read at: every block the indexer writes or rolls back changes
   * the tip, so an answer serves exactly while the tip is the same one. An answer read while the
   * tip moved is not kept. At most RESPONSE_CACHE_BYTES of text are kept, none over a sixteenth.
   */
  const responses = new LRUCache<string, { tip: string; items: string[] }>({
    maxSize: RESPONSE_CACHE_BYTES,
    maxEntrySize: RESPONSE_CACHE_BYTES / 16,
    sizeCalculation: (entry) => entry.items.reduce((sum, item) => sum + item.length, 1),
  });
  const byTip = async (key: string, compute: () => string[] | Promise<string[]>): Promise<string[]> => {
    const tip = await read(indexedTip());
    const kept = responses.get(key);
    if (tip !== null && kept?.tip === tip.hash) return kept.items;
    await read(followChain(tip));
    const items = await compute();
    if (tip !== null && (await read(indexedTip()))?.hash === tip.hash) responses.set(key, { tip: tip.hash, items });
    return items;
  };

  /** The output as Esplora writes it; the address only when the script has one. */
  const outputJson = (scriptHex: string, valueKoinu: bigint, address: string | null) => ({
    scriptpubkey: scriptHex,
    scriptpubkey_asm: esploraAsm(hexToBytes(scriptHex)),
    scriptpubkey_type: esploraScriptType(hexToBytes(scriptHex)),
    ...(address !== null ? { scriptpubkey_address: address } : {}),
    value: valueKoinu,
  });

  /** An output of a transaction in the mempool view (a pending transaction's parent), or null. */
  const pendingOutput = (txid: string, vout: number): PrevOutput | null => {
    const parent = options.mempool?.tx(txid)?.outputs.find((o) => o.vout === vout);
    return parent ? { scriptHex: parent.scriptHex, valueKoinu: parent.valueKoinu, address: parent.address } : null;
  };

  /**
   * The outputs a transaction the index does not hold spends, by input index: confirmed ones (the
   * index) or another pending transaction's.
   */
  function* prevoutsOf(raw: DecodedTransaction): ReadPlan<Map<number, PrevOutput>> {
    const found = new Map<number, PrevOutput>();
    for (const [vin, input] of raw.inputs.entries()) {
      if (isCoinbaseInput(input)) continue;
      const prev = (yield* outputOf(input.prevTxid, input.vout)) ?? pendingOutput(input.prevTxid, input.vout);
      if (prev) found.set(vin, prev);
    }
    return found;
  }

  /**
   * Confirmed transactions in Esplora's shape, by txid with the block they are in: everything in
   * them (inputs with their prevouts, outputs, fee, status) is fixed once the block is, so an
   * entry serves until a reorg moves the transaction to another block (checked on every read).
   */
  const confirmedJson = new LRUCache<string, { blockHash: string; text: Promise<string> }>({
    max: options.txCacheSize ?? 10_000,
  });
  /** A confirmed transaction's JSON text when the index puts it in block `blockHash`, else null. */
  const cachedTxText = (txid: string, blockHash: string): Promise<string> | null => {
    const cached = confirmedJson.get(txid);
    return cached && cached.blockHash === blockHash ? cached.text : null;
  };
  /** A confirmed transaction as Esplora's JSON text (written once with the exact writer, then kept). */
  const txText = (tx: TxCoreView): Promise<string> => {
    const cached = cachedTxText(tx.txid, tx.blockHash);
    if (cached) return cached;
    const text = buildTxJson(tx).then(exactJson);
    confirmedJson.set(tx.txid, { blockHash: tx.blockHash, text });
    text.catch(() => {
      if (confirmedJson.peek(tx.txid)?.text === text) confirmedJson.delete(tx.txid);
    });
    return text;
  };
  const buildTxJson = async (tx: TxCoreView) => {
    // The outputs its inputs spend, as the index recorded them (by input index), else a pending
    // transaction's (the mempool view may still hold a parent confirmed a moment ago).
    const raw = await blocks.transaction(tx.blockHash, tx.txid);
    const spent = await read(spentOutputsOf(tx.txid));
    const byVout = new Map(tx.outputs.map((o) => [o.vout, o]));
    return rawTxJson(raw, {
      size: tx.size,
      fee: tx.feeKoinu ?? 0n,
      status: statusOfTx(tx),
      prevout: (vin, input) => spent.get(vin) ?? pendingOutput(input.prevTxid, input.vout),
      output: (vout) => byVout.get(vout) ?? null,
    });
  };

  /** A pending transaction in Esplora's shape: status `{confirmed: false}`, values from the outputs it spends. */
  const pendingTxJson = async (raw: DecodedTransaction, fee: bigint | null, known?: Map<number, PrevOutput>) => {
    const prevouts = known ?? (await read(prevoutsOf(raw)));
    return rawTxJson(raw, {
      size: raw.size,
      fee: fee ?? 0n,
      status: { confirmed: false },
      prevout: (vin) => prevouts.get(vin) ?? null,
      output: () => null,
    });
  };

  /** A transaction the index does not hold (a block off the index's chain): its fee when every input is found. */
  const unindexedTxJson = async (raw: DecodedTransaction) => {
    const prevouts = await read(prevoutsOf(raw));
    let fee: bigint | null = 0n;
    if (!raw.inputs.some(isCoinbaseInput)) {
      for (const vin of raw.inputs.keys()) {
        const prev = prevouts.get(vin);
        fee = prev && fee !== null ? fee + prev.valueKoinu : null;
      }
      if (fee !== null) fee -= raw.outputs.reduce((sum, o) => sum + o.value, 0n);
    }
    return pendingTxJson(raw, fee, prevouts);
  };

  const rawTxJson = (
    raw: DecodedTransaction,
    known: {
      size: number;
      fee: bigint;
      status: EsploraStatus;
      prevout: (vin: number, input: DecodedTransaction["inputs"][number]) => PrevOutput | null;
      output: (vout: number) => PrevOutput | null;
    },
  ) => {
    return {
      txid: raw.txid,
      version: raw.version,
      locktime: raw.locktime,
      vin: raw.inputs.map((input, vin) => {
        const coinbase = isCoinbaseInput(input);
        const prev = coinbase ? null : known.prevout(vin, input);
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
      // The index keeps every spendable output; OP_RETURNs' values and scripts come from the raw
      // transaction. Values and addresses are the index's where it has the output.
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

  /** The serialized transaction: from its block (the node) when indexed, else from the mempool view. */
  const rawTransaction = async (txid: string): Promise<DecodedTransaction> => {
    let found: Awaited<ReturnType<typeof anyTx>>;
    try {
      found = await anyTx(txid);
    } catch (error) {
      // Broadcast a moment ago and not in the mempool view yet (it refreshes every second): the
      // node's mempool has it, as an Esplora server's has a transaction it just broadcast.
      const fromNode = await nodeMempoolTx(txid);
      if (fromNode) return fromNode;
      throw error;
    }
    return "indexed" in found ? blocks.transaction(found.indexed.blockHash, found.indexed.txid) : found.pending;
  };
  const nodeMempoolTx = async (txid: string): Promise<DecodedTransaction | null> => {
    if (!node.getRawTransactionHex) return null;
    try {
      const parsed = parseTransactionHex(await node.getRawTransactionHex(txid));
      return parsed.ok && parsed.value.txid === txid ? parsed.value : null;
    } catch {
      return null;
    }
  };

  const on = options.surface.on(router, "/esplora/api");
  const tags = ["esplora"];
  const TxParams = z.object({ txid: TxidParam });
  const BlockParams = z.object({ hash: BlockHashParam });
  /** Every Esplora answer also documents its plain-text errors. */
  const answers = (ok: Record<number, E.AnswerLike>) => ({ ...E.TEXT_ERRORS, ...ok });

  // ------------------------------------------------------------------ addresses

  const address = createAddressReads();
  function createAddressReads() {
    const stats = async (addr: string) => {
      const txo = await read(txoStatsOf(addr));
      const pending = options.mempool?.addressStats(addr);
      return {
        chain_stats: {
          funded_txo_count: txo.fundedCount,
          funded_txo_sum: txo.fundedKoinu,
          spent_txo_count: txo.spentCount,
          spent_txo_sum: txo.spentKoinu,
          tx_count: txo.txCount,
        },
        mempool_stats: pending
          ? {
              funded_txo_count: pending.fundedCount,
              funded_txo_sum: pending.fundedKoinu,
              spent_txo_count: pending.spentCount,
              spent_txo_sum: pending.spentKoinu,
              tx_count: pending.txCount,
            }
          : { funded_txo_count: 0, funded_txo_sum: 0n, spent_txo_count: 0, spent_txo_sum: 0n, tx_count: 0 },
      };
    };

    /** Every confirmed unspent output, oldest first, each with its funding block's status. */
    function* confirmedUtxos(addr: string): ReadPlan<string[]> {
      const items: string[] = [];
      let after: { height: number; txid: string; vout: number } | null = null;
      for (;;) {
        // Esplora's UTXOs carry no inscriptions or DRC-20 amounts: those are not read.
        const page: { items: UtxoView[] } = yield* utxoPage(addr, after, UTXO_READ_PAGE, { carriers: false });
        for (const u of page.items) {
          // The status names the funding block: the index's block at that height (kept by height).
          const block = yield* indexedBlock(u.height);
          if (!block) throw txNotFound(u.txid); // rolled back while being read
          items.push(exactJson(utxoJson(u, confirmedStatus(u.height, block))));
        }
        const last: UtxoView | undefined = page.items.at(-1);
        if (page.items.length < UTXO_READ_PAGE || !last) return items;
        after = { height: last.height, txid: last.txid, vout: last.vout };
      }
    }

    /**
     * The transactions (with the block the index puts each in) of a page of the confirmed history,
     * newest first, after `lastSeen` when given. As electrs does, a last seen txid the index does
     * not hold (a pending or unknown one) ends the list: [].
     */
    function* confirmedPageOf(
      addr: string,
      lastSeen: string | null,
    ): ReadPlan<{ txid: string; block: IndexedBlock | null }[]> {
      let before: { height: number; position: number } | null = null;
      if (lastSeen !== null) {
        const seen = yield* txRowOf(lastSeen);
        if (!seen) return [];
        before = { height: seen.height, position: seen.position };
      }
      const page = yield* historyPage(addr, before, ESPLORA_CHAIN_PAGE);
      const items: { txid: string; block: IndexedBlock | null }[] = [];
      for (const item of page.items) items.push({ txid: item.txid, block: yield* indexedBlock(item.height) });
      return items;
    }
    const confirmedPage = async (addr: string, lastSeen: string | null) => {
      const page = await read(confirmedPageOf(addr, lastSeen));
      return Promise.all(
        page.map(
          async ({ txid, block }) => (block ? cachedTxText(txid, block.hash) : null) ?? txText(await indexedTx(txid)),
        ),
      );
    };

    /** The address's pending transactions, newest first, at most one Esplora mempool page. */
    const mempoolPage = async (addr: string) => {
      const pending = (options.mempool?.history(addr) ?? []).slice(0, ESPLORA_MEMPOOL_PAGE).flatMap((item) => {
        const raw = options.mempool!.rawTx(item.txid);
        return raw ? [{ raw, fee: options.mempool!.tx(item.txid)?.feeKoinu ?? null }] : [];
      });
      return Promise.all(pending.map(({ raw, fee }) => pendingTxJson(raw, fee)));
    };

    /** /txs: the pending page, then the first confirmed page (only confirmed ones after `after`). */
    const txs = async (addr: string, after: string | null) => [
      ...(after === null ? (await mempoolPage(addr)).map(exactJson) : []),
      ...(await chainPage(addr, after)),
    ];

    /** Confirmed lists depend on nothing but the index, so they are kept per indexed tip. */
    const utxos = (addr: string) => byTip(`utxo ${addr}`, () => read(confirmedUtxos(addr)));
    const chainPage = (addr: string, lastSeen: string | null) =>
      byTip(`chain ${addr} ${lastSeen ?? ""}`, () => confirmedPage(addr, lastSeen));

    return { stats, utxos, chainPage, mempoolPage, txs };
  }

  const AddressParams = z.object({ address: v.Address(network) });
  on.get(
    "/address/:address",
    {
      summary: "Esplora: an address's chain and mempool statistics",
      tags,
      params: AddressParams,
      responses: answers({ 200: E.AddressStats }),
    },
    async ({ params: { address: addr } }, _req, res) => {
      res.json({ address: addr, ...(await address.stats(addr)) });
    },
  );
  on.get(
    "/address/:address/utxo",
    {
      summary: "Esplora: every confirmed unspent output of an address",
      tags,
      params: AddressParams,
      responses: answers({ 200: z.array(E.Utxo) }),
    },
    async ({ params: { address: addr } }, _req, res) => {
      sendJsonArray(res, await address.utxos(addr));
    },
  );
  // mempool.js and newer Esplora servers page this path with ?after_txid=.
  const AfterTxid = z.object({
    after_txid: TxidParam.optional().openapi({
      description: "the last confirmed transaction of the previous page (the next pages hold confirmed ones only)",
    }),
  });
  on.get(
    "/address/:address/txs",
    {
      summary: "Esplora: an address's transactions, newest first: up to 50 pending ones, then 25 confirmed per page",
      tags,
      params: AddressParams,
      query: AfterTxid,
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { address: addr }, query }, _req, res) => {
      sendJsonArray(res, await address.txs(addr, query.after_txid ?? null));
    },
  );
  on.get(
    "/address/:address/txs/chain",
    {
      summary: "Esplora: an address's confirmed transactions, newest first (25 per page)",
      tags,
      params: AddressParams,
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { address: addr } }, _req, res) => {
      sendJsonArray(res, await address.chainPage(addr, null));
    },
  );
  on.get(
    "/address/:address/txs/chain/:last_seen_txid",
    {
      summary: "Esplora: the next page of an address's confirmed transactions, after the last one seen",
      tags,
      params: AddressParams.extend({ last_seen_txid: TxidParam }),
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params }, _req, res) => {
      sendJsonArray(res, await address.chainPage(params.address, params.last_seen_txid));
    },
  );
  on.get(
    "/address/:address/txs/mempool",
    {
      summary: "Esplora: an address's pending transactions, newest first (up to 50)",
      tags,
      params: AddressParams,
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { address: addr } }, _req, res) => {
      res.json(await address.mempoolPage(addr));
    },
  );
  // Script hashes (SHA-256 of the output script, in that byte order): the index's address of that
  // script, then the same reads as /address. A hash the index holds no transaction of (a script
  // with no address, or none confirmed yet) has zero stats and empty lists.
  const ScripthashParams = z.object({
    hash: coded(
      z
        .string()
        .regex(HEX64)
        .transform((value) => value.toLowerCase())
        .openapi({
          type: "string",
          pattern: HEX64.source,
          description: "SHA-256 of an output script, 64 hexadecimal characters",
        }),
      "INVALID_SCRIPTHASH",
      () => "Invalid scripthash",
    ),
  });
  const addressOf = async (hash: string): Promise<string | null> => read(addressForScriptHashOf(hash));
  const zeroStats = { funded_txo_count: 0, funded_txo_sum: 0n, spent_txo_count: 0, spent_txo_sum: 0n, tx_count: 0 };
  on.get(
    "/scripthash/:hash",
    {
      summary: "Esplora: a script hash's chain and mempool statistics",
      tags,
      params: ScripthashParams,
      responses: answers({ 200: E.ScripthashStats }),
    },
    async ({ params: { hash } }, _req, res) => {
      const addr = await addressOf(hash);
      res.json({
        scripthash: hash,
        ...(addr ? await address.stats(addr) : { chain_stats: zeroStats, mempool_stats: zeroStats }),
      });
    },
  );
  on.get(
    "/scripthash/:hash/utxo",
    {
      summary: "Esplora: every confirmed unspent output of a script hash",
      tags,
      params: ScripthashParams,
      responses: answers({ 200: z.array(E.Utxo) }),
    },
    async ({ params: { hash } }, _req, res) => {
      const addr = await addressOf(hash);
      sendJsonArray(res, addr ? await address.utxos(addr) : []);
    },
  );
  on.get(
    "/scripthash/:hash/txs",
    {
      summary: "Esplora: a script hash's transactions, newest first: up to 50 pending ones, then 25 confirmed per page",
      tags,
      params: ScripthashParams,
      query: AfterTxid,
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { hash }, query }, _req, res) => {
      const addr = await addressOf(hash);
      sendJsonArray(res, addr ? await address.txs(addr, query.after_txid ?? null) : []);
    },
  );
  on.get(
    "/scripthash/:hash/txs/chain",
    {
      summary: "Esplora: a script hash's confirmed transactions, newest first (25 per page)",
      tags,
      params: ScripthashParams,
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { hash } }, _req, res) => {
      const addr = await addressOf(hash);
      sendJsonArray(res, addr ? await address.chainPage(addr, null) : []);
    },
  );
  on.get(
    "/scripthash/:hash/txs/chain/:last_seen_txid",
    {
      summary: "Esplora: the next page of a script hash's confirmed transactions, after the last one seen",
      tags,
      params: ScripthashParams.extend({ last_seen_txid: TxidParam }),
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params }, _req, res) => {
      const addr = await addressOf(params.hash);
      sendJsonArray(res, addr ? await address.chainPage(addr, params.last_seen_txid) : []);
    },
  );
  on.get(
    "/scripthash/:hash/txs/mempool",
    {
      summary: "Esplora: a script hash's pending transactions, newest first (up to 50)",
      tags,
      params: ScripthashParams,
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { hash } }, _req, res) => {
      const addr = await addressOf(hash);
      res.json(addr ? await address.mempoolPage(addr) : []);
    },
  );
  on.get(
    "/address-prefix/:prefix",
    {
      summary:
        "Esplora: up to 10 addresses the index has seen paid that begin with a prefix, in byte order (electrs's address search)",
      tags,
      params: z.object({ prefix: z.string() }),
      responses: answers({ 200: z.array(z.string()) }),
    },
    ({ params: { prefix } }, _req, res) => {
      res.json(queries.addressesWithPrefix(prefix, ADDRESS_SEARCH_LIMIT));
    },
  );

  // ------------------------------------------------------------------ transactions

  on.get(
    "/tx/:txid",
    {
      summary: "Esplora: a transaction, confirmed (the index) or pending (the node's mempool)",
      tags,
      params: TxParams,
      responses: answers({ 200: E.Tx }),
    },
    async ({ params: { txid } }, _req, res) => {
      const found = await anyTx(txid);
      res
        .type("application/json")
        .send(
          "indexed" in found ? await txText(found.indexed) : exactJson(await pendingTxJson(found.pending, found.fee)),
        );
    },
  );
  on.get(
    "/tx/:txid/status",
    {
      summary: "Esplora: a transaction's confirmation status",
      tags,
      params: TxParams,
      responses: answers({ 200: E.TxStatus }),
    },
    async ({ params: { txid } }, _req, res) => {
      const found = await anyTx(txid);
      res.json("indexed" in found ? statusOfTx(found.indexed) : { confirmed: false });
    },
  );
  on.get(
    "/tx/:txid/hex",
    {
      summary: "Esplora: the raw transaction, hexadecimal text",
      tags,
      params: TxParams,
      responses: answers({ 200: E.text("hexadecimal") }),
    },
    async ({ params: { txid } }, _req, res) => {
      res.type("text/plain").send(bytesToHex(serializeTransaction(await rawTransaction(txid))));
    },
  );
  on.get(
    "/tx/:txid/raw",
    {
      summary: "Esplora: the raw transaction, binary",
      tags,
      params: TxParams,
      responses: answers({
        200: { description: "the serialized transaction", contentType: "application/octet-stream" },
      }),
    },
    async ({ params: { txid } }, _req, res) => {
      res.type("application/octet-stream").send(Buffer.from(serializeTransaction(await rawTransaction(txid))));
    },
  );

  /** A confirmed transaction and its block, for the proofs; Esplora's 404 otherwise. */
  const confirmedIn = async (txid: string): Promise<{ tx: TxCoreView; block: RawBlock; pos: number }> => {
    const tx = await read(txCoreOf(txid));
    if (!tx) throw missing("TX_NOT_FOUND", "Transaction not found or is unconfirmed", { txid });
    const block = await blocks.raw(tx.blockHash);
    const pos = block.txids.indexOf(txid);
    if (pos < 0)
      throw new AppError(
        "upstream",
        "NODE_BLOCK_MISMATCH",
        `block ${tx.blockHash} from the node does not hold ${txid}`,
      );
    return { tx, block, pos };
  };
  on.get(
    "/tx/:txid/merkle-proof",
    {
      summary: "Esplora: the transaction's merkle branch in Electrum's form (blockchain.transaction.get_merkle)",
      tags,
      params: TxParams,
      responses: answers({ 200: E.MerkleProof }),
    },
    async ({ params: { txid } }, _req, res) => {
      const { tx, block, pos } = await confirmedIn(txid);
      res.json({ block_height: tx.height, merkle: merkleBranch(block.txids, pos), pos });
    },
  );
  on.get(
    "/tx/:txid/merkleblock-proof",
    {
      summary:
        "Esplora: the transaction's inclusion proof as bitcoind's merkleblock, hexadecimal text (80-byte header)",
      tags,
      params: TxParams,
      responses: answers({ 200: E.text("a serialized merkleblock, hexadecimal") }),
    },
    async ({ params: { txid } }, _req, res) => {
      const { block, pos } = await confirmedIn(txid);
      res.type("text/plain").send(bytesToHex(merkleBlock(headerBytes(block), block.txids, pos)));
    },
  );

  /** Esplora's spending status of one output: the index's spend, else a pending one, else unspent. */
  const outspend = async (
    spent: { txid: string; vin: number } | null,
    pending: { txid: string; vin: number } | null,
  ) => {
    if (spent) {
      const spender = await read(txRowOf(spent.txid));
      if (!spender) throw txNotFound(spent.txid);
      return { spent: true, txid: spent.txid, vin: spent.vin, status: statusOfTx(spender) };
    }
    if (pending) return { spent: true, txid: pending.txid, vin: pending.vin, status: { confirmed: false } };
    return { spent: false };
  };
  on.get(
    "/tx/:txid/outspend/:vout",
    {
      summary: "Esplora: whether an output is spent, and by which input (an unknown output is unspent, as in Esplora)",
      tags,
      params: TxParams.extend({ vout: numberParam("the output's index") }),
      responses: answers({ 200: E.Outspend }),
    },
    async ({ params: { txid, vout } }, _req, res) => {
      const indexed = queries.outspend(txid, vout)?.spent ?? null;
      res.json(await outspend(indexed, options.mempool?.spentBy(txid, vout) ?? null));
    },
  );
  on.get(
    "/tx/:txid/outspends",
    {
      summary: "Esplora: the spending status of every output of a transaction",
      tags,
      params: TxParams,
      responses: answers({ 200: z.array(E.Outspend) }),
    },
    async ({ params: { txid } }, _req, res) => {
      const found = await anyTx(txid);
      const raw = "indexed" in found ? await blocks.transaction(found.indexed.blockHash, txid) : found.pending;
      const indexed = "indexed" in found ? new Map(found.indexed.outputs.map((o) => [o.vout, o.spent])) : null;
      res.json(
        await Promise.all(
          raw.outputs.map((_output, vout) =>
            outspend(indexed?.get(vout) ?? null, options.mempool?.spentBy(txid, vout) ?? null),
          ),
        ),
      );
    },
  );

  // Limit first, then the body: Esplora clients post the hex as text under any content type
  // (axios says application/x-www-form-urlencoded), so every type is read as text here.
  on.post(
    "/tx",
    {
      summary: "Esplora: broadcasts a raw transaction (hexadecimal text); answers its txid as text",
      description:
        'A refusal is 400 with the node\'s answer as Esplora writes it: `sendrawtransaction RPC error: {"code":-26,"message":"..."}`.',
      tags,
      rawBody: {
        contentType: "text/plain",
        description: "the raw transaction in hexadecimal (any content type is read as text)",
      },
      before: [options.broadcastLimit, express.text({ type: () => true, limit: "2mb" })],
      responses: answers({ 200: E.text("the txid") }),
    },
    async (_input, req, res) => {
      const hex = typeof req.body === "string" ? req.body.trim() : "";
      const parsed = parseTransactionHex(hex);
      if (!parsed.ok)
        throw badRequest("TX_DECODE_FAILED", `TX decode failed: ${parsed.error.message}`, {
          offset: parsed.error.offset,
        });
      let txid: string;
      try {
        txid = await node.sendRawTransaction(hex);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (typeof code === "number") {
          // The node's refusal, in electrs's words (clients match on this text).
          const message = error instanceof Error ? error.message : String(error);
          throw badRequest("TX_REJECTED", `sendrawtransaction RPC error: ${JSON.stringify({ code, message })}`);
        }
        throw new AppError("upstream", "NODE_UNAVAILABLE", "the base-chain node did not answer the broadcast");
      }
      res.type("text/plain").send(txid);
    },
  );

  // ------------------------------------------------------------------ blocks

  /** The index's tip; 503/404 before the first indexed block. */
  const tip = () => {
    const s = queries.status();
    if (s.indexedHash === null) throw missing("NO_BLOCKS", "Block not found", {});
    return { height: s.indexedHeight, hash: s.indexedHash, startHeight: s.startHeight };
  };
  /** The hash of the index's block at `height`, or Esplora's 404 (503 while the index is behind). */
  const hashAt = (height: number): string => {
    const hash = chain.blockHashAt(height);
    if (hash === null) throw missing("BLOCK_NOT_FOUND", "Block not found", { height });
    return hash;
  };
  const block = async (hash: string) => {
    const [raw, meta] = await Promise.all([blocks.raw(hash), blocks.meta(hash)]);
    return { raw, meta };
  };
  const immutable = (res: Response) => res.setHeader("Cache-Control", IMMUTABLE);

  on.get(
    "/blocks/tip/height",
    {
      summary: "Esplora: the indexed tip's height, as text",
      tags,
      responses: answers({ 200: E.text("a decimal integer") }),
    },
    (_input, _req, res) => {
      res.type("text/plain").send(String(tip().height));
    },
  );
  on.get(
    "/blocks/tip/hash",
    {
      summary: "Esplora: the indexed tip's block hash, as text",
      tags,
      responses: answers({ 200: E.text("64 hexadecimal characters") }),
    },
    (_input, _req, res) => {
      res.type("text/plain").send(tip().hash);
    },
  );
  const blocksFrom = async (start: number | null, res: Response) => {
    const top = tip();
    const first = start === null ? top.height : start;
    if (first > top.height) throw notFound("BLOCK_NOT_FOUND", "Block not found", { height: first });
    const heights: number[] = [];
    for (let h = first; h >= top.startHeight && heights.length < ESPLORA_BLOCKS_PAGE; h--) heights.push(h);
    const found = await Promise.all(heights.map(async (h) => block(hashAt(h))));
    res.json(found.map(({ raw, meta }) => blockJson(raw, meta)));
  };
  on.get(
    "/blocks",
    {
      summary: "Esplora: the 10 newest blocks, from the indexed tip down",
      tags,
      responses: answers({ 200: z.array(E.Block) }),
    },
    async (_input, _req, res) => blocksFrom(null, res),
  );
  on.get(
    "/blocks/:start_height",
    {
      summary: "Esplora: 10 blocks from a height down (a height that is not a number means the tip, as in Esplora)",
      tags,
      params: z.object({ start_height: z.string().openapi({ description: "a height" }) }),
      responses: answers({ 200: z.array(E.Block) }),
    },
    async ({ params }, _req, res) =>
      blocksFrom(/^\d{1,10}$/.test(params.start_height) ? Number(params.start_height) : null, res),
  );
  on.get(
    "/block-height/:height",
    {
      summary: "Esplora: the hash of the indexed block at a height, as text",
      tags,
      params: z.object({ height: numberParam("a block height") }),
      responses: answers({ 200: E.text("64 hexadecimal characters") }),
    },
    ({ params: { height } }, _req, res) => {
      res.type("text/plain").send(hashAt(height));
    },
  );
  on.get(
    "/block/:hash",
    {
      summary: "Esplora: a block's header fields, size and transaction count (from the node, by hash)",
      tags,
      params: BlockParams,
      responses: answers({ 200: E.Block }),
    },
    async ({ params: { hash } }, _req, res) => {
      const { raw, meta } = await block(hash);
      immutable(res);
      res.json(blockJson(raw, meta));
    },
  );
  on.get(
    "/block/:hash/status",
    {
      summary: "Esplora: whether a block is in the indexed chain, its height and the next block's hash",
      tags,
      params: BlockParams,
      responses: answers({ 200: E.BlockStatus }),
    },
    async ({ params: { hash } }, _req, res) => {
      let height: number;
      try {
        height = (await blocks.meta(hash)).height;
      } catch (error) {
        // Esplora answers an unknown block as not in the best chain.
        if (error instanceof Refusal && error.code === "BLOCK_NOT_FOUND") {
          res.json({ in_best_chain: false });
          return;
        }
        throw error;
      }
      if (chain.blockHashAt(height) !== hash) {
        res.json({ in_best_chain: false });
        return;
      }
      const next = chain.blockHashAt(height + 1);
      res.json({ in_best_chain: true, height, ...(next !== null ? { next_best: next } : {}) });
    },
  );
  on.get(
    "/block/:hash/txids",
    {
      summary: "Esplora: every txid of a block, in block order",
      tags,
      params: BlockParams,
      responses: answers({ 200: z.array(z.string()) }),
    },
    async ({ params: { hash } }, _req, res) => {
      const raw = await blocks.raw(hash);
      immutable(res);
      res.json(raw.txids);
    },
  );
  on.get(
    "/block/:hash/txid/:index",
    {
      summary: "Esplora: the txid at an index of a block, as text",
      tags,
      params: BlockParams.extend({ index: numberParam("the transaction's index in the block") }),
      responses: answers({ 200: E.text("64 hexadecimal characters") }),
    },
    async ({ params: { hash, index } }, _req, res) => {
      const raw = await blocks.raw(hash);
      if (index >= raw.txids.length) throw notFound("TX_INDEX_OUT_OF_RANGE", "tx index out of range", { index });
      immutable(res);
      res.type("text/plain").send(raw.txids[index]);
    },
  );
  const blockTxs = async (hash: string, start: number, res: Response) => {
    const raw = await blocks.raw(hash);
    if (start % ESPLORA_CHAIN_PAGE !== 0)
      throw badRequest("INVALID_START_INDEX", `start index must be a multiple of ${ESPLORA_CHAIN_PAGE}`);
    if (start >= raw.txids.length) throw badRequest("INVALID_START_INDEX", "start index out of range");
    const page = raw.block.txs.slice(start, start + ESPLORA_CHAIN_PAGE);
    sendJsonArray(
      res,
      await Promise.all(
        page.map(async (tx) => {
          const indexed = await read(txCoreOf(tx.txid));
          return indexed ? txText(indexed) : exactJson(await unindexedTxJson(tx));
        }),
      ),
    );
  };
  on.get(
    "/block/:hash/txs",
    {
      summary: "Esplora: the first 25 transactions of a block",
      tags,
      params: BlockParams,
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { hash } }, _req, res) => blockTxs(hash, 0, res),
  );
  on.get(
    "/block/:hash/txs/:start_index",
    {
      summary: "Esplora: 25 transactions of a block from an index (a multiple of 25)",
      tags,
      params: BlockParams.extend({ start_index: numberParam("a multiple of 25") }),
      responses: answers({ 200: z.array(E.Tx) }),
    },
    async ({ params: { hash, start_index } }, _req, res) => blockTxs(hash, start_index, res),
  );
  on.get(
    "/block/:hash/raw",
    {
      summary: "Esplora: the serialized block, binary (a Dogecoin AuxPoW block carries its AuxPoW after the header)",
      tags,
      params: BlockParams,
      responses: answers({ 200: { description: "the serialized block", contentType: "application/octet-stream" } }),
    },
    async ({ params: { hash } }, _req, res) => {
      const raw = await blocks.raw(hash);
      immutable(res);
      res.type("application/octet-stream").send(Buffer.from(raw.bytes));
    },
  );
  on.get(
    "/block/:hash/header",
    {
      summary: "Esplora: the 80-byte block header, hexadecimal text (without a Dogecoin block's AuxPoW)",
      tags,
      params: BlockParams,
      responses: answers({ 200: E.text("160 hexadecimal characters") }),
    },
    async ({ params: { hash } }, _req, res) => {
      const raw = await blocks.raw(hash);
      immutable(res);
      res.type("text/plain").send(bytesToHex(headerBytes(raw)));
    },
  );

  // ------------------------------------------------------------------ mempool and fees

  on.get(
    "/mempool",
    {
      summary:
        "Esplora: the node's mempool backlog: count, size, total fee and the fee-rate histogram (koinu per byte)",
      tags,
      responses: answers({ 200: E.MempoolBacklog }),
    },
    async (_input, _req, res) => {
      res.json(backlog(await mempoolSource.entries()));
    },
  );
  on.get(
    "/mempool/txids",
    {
      summary: "Esplora: every txid in the node's mempool",
      tags,
      responses: answers({ 200: z.array(z.string()) }),
    },
    async (_input, _req, res) => {
      res.json((await mempoolSource.entries()).map((e) => e.txid));
    },
  );
  on.get(
    "/mempool/recent",
    {
      summary: "Esplora: the last 10 transactions to enter the node's mempool",
      tags,
      responses: answers({ 200: E.MempoolRecent }),
    },
    async (_input, _req, res) => {
      const latest = [...(await mempoolSource.entries())]
        .sort((a, b) => b.time - a.time || (a.txid < b.txid ? -1 : 1))
        .slice(0, MEMPOOL_RECENT);
      const items = await Promise.all(
        latest.map(async (e) => ({ entry: e, value: await mempoolSource.value(e.txid) })),
      );
      res.json(
        items
          .filter((i) => i.value !== null)
          .map(({ entry, value }) => ({ txid: entry.txid, fee: entry.feeKoinu, vsize: entry.size, value })),
      );
    },
  );
  on.get(
    "/fee-estimates",
    {
      summary:
        "Esplora: fee rates by confirmation target, in koinu per byte (Esplora's sat/vB), never below 0.01 DOGE per kB (1000)",
      tags,
      responses: answers({ 200: E.FeeEstimates }),
    },
    async (_input, _req, res) => {
      res.json(await mempoolSource.feeEstimates());
    },
  );

  // Esplora's answer to a path it does not serve (not a documented operation: no Link header).
  router.use((req, res) => {
    res
      .status(404)
      .type("text/plain")
      .send(`endpoint does not exist ${JSON.stringify(req.path)}`);
  });
  router.use(textErrors(log));
  return router;
}

/**
 * Esplora's error answers: the message as plain text, with the refusal's status (Retry-After kept
 * for a 503 while the index is behind). Body parser failures keep their 4xx; anything else is a
 * logged 500.
 */
function textErrors(log: (event: string, fields: Record<string, unknown>) => void): ErrorRequestHandler {
  return (error, req, res, _next) => {
    res.setHeader("Cache-Control", "no-store");
    if (error instanceof Refusal) {
      if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
      res.status(statusOf(error)).type("text/plain").send(error.message);
      return;
    }
    const status = (error as { status?: number }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      res
        .status(status)
        .type("text/plain")
        .send(String((error as Error).message));
      return;
    }
    log("http_internal_error", { method: req.method, path: req.path, err: (error as Error)?.stack ?? String(error) });
    res.status(500).type("text/plain").send("Internal server error");
  };
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

/** A JSON array of items already written as JSON text. */
function sendJsonArray(res: Response, items: readonly string[]): void {
  res.type("application/json").send(`[${items.join(",")}]`);
}
