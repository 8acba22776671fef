/**
 * Esplora's answers (Blockstream's API.md) as zod schemas, for the explorer's OpenAPI document:
 * the subset in ./esplora.ts writes these shapes so that Esplora clients work unchanged. Values are
 * koinu as exact JSON integers.
 */
import { Answer, Koinu, orNull, z } from "../http/openapi";

/** An answer of a route declaration (a schema or a described non-JSON body). */
export type AnswerLike = Answer;

const Txid = z.string().regex(/^[0-9a-f]{64}$/);

export const TxStatus = z
  .object({
    confirmed: z.boolean(),
    block_height: z.number().int().min(0).optional(),
    block_hash: z.string().optional(),
    block_time: z.number().int().optional(),
  })
  .openapi("EsploraTxStatus");

const Stats = z.object({
  funded_txo_count: z.number().int().min(0),
  funded_txo_sum: Koinu,
  spent_txo_count: z.number().int().min(0),
  spent_txo_sum: Koinu,
  tx_count: z.number().int().min(0),
});

export const AddressStats = z
  .object({ address: z.string(), chain_stats: Stats, mempool_stats: Stats })
  .openapi("EsploraAddress");

export const Utxo = z
  .object({ txid: Txid, vout: z.number().int().min(0), status: TxStatus, value: Koinu })
  .openapi("EsploraUtxo");

const Output = z
  .object({
    scriptpubkey: z.string(),
    scriptpubkey_asm: z.string(),
    scriptpubkey_type: z.string(),
    scriptpubkey_address: z.string().optional(),
    value: Koinu,
  })
  .openapi("EsploraOutput");

export const Tx = z
  .object({
    txid: Txid,
    version: z.number().int(),
    locktime: z.number().int().min(0),
    vin: z.array(
      z.object({
        txid: z.string(),
        vout: z.number().int().min(0),
        prevout: orNull(Output),
        scriptsig: z.string(),
        scriptsig_asm: z.string(),
        inner_redeemscript_asm: z.string().optional(),
        is_coinbase: z.boolean(),
        sequence: z.number().int().min(0),
      }),
    ),
    vout: z.array(Output),
    size: z.number().int().min(0),
    weight: z.number().int().min(0),
    fee: Koinu,
    status: TxStatus,
  })
  .openapi("EsploraTx");

export const ScripthashStats = z
  .object({ scripthash: z.string(), chain_stats: Stats, mempool_stats: Stats })
  .openapi("EsploraScripthash");

/** Esplora's block (electrs's BlockValue): header fields, sizes and the median time past. */
export const Block = z
  .object({
    id: z.string(),
    height: z.number().int().min(0),
    version: z.number().int().min(0),
    timestamp: z.number().int().min(0),
    tx_count: z.number().int().min(1),
    size: z.number().int().min(80),
    weight: z.number().int().min(320),
    merkle_root: z.string(),
    previousblockhash: orNull(z.string()),
    mediantime: z.number().int().min(0),
    nonce: z.number().int().min(0),
    bits: z.number().int().min(0),
    difficulty: z.number(),
  })
  .openapi("EsploraBlock");

export const BlockStatus = z
  .object({
    in_best_chain: z.boolean(),
    height: z.number().int().min(0).optional(),
    next_best: z.string().optional(),
  })
  .openapi("EsploraBlockStatus");

export const Outspend = z
  .object({
    spent: z.boolean(),
    txid: Txid.optional(),
    vin: z.number().int().min(0).optional(),
    status: TxStatus.optional(),
  })
  .openapi("EsploraOutspend");

export const MerkleProof = z
  .object({ block_height: z.number().int().min(0), merkle: z.array(z.string()), pos: z.number().int().min(0) })
  .openapi("EsploraMerkleProof");

export const MempoolBacklog = z
  .object({
    count: z.number().int().min(0),
    vsize: z.number().int().min(0),
    total_fee: Koinu,
    fee_histogram: z.array(z.tuple([z.number(), z.number().int().min(0)])),
  })
  .openapi("EsploraMempool");

export const MempoolRecent = z
  .array(z.object({ txid: Txid, fee: Koinu, vsize: z.number().int().min(0), value: Koinu }))
  .openapi("EsploraMempoolRecent");

export const FeeEstimates = z
  .record(z.string().regex(/^[1-9][0-9]*$/), z.number().min(0))
  .openapi("EsploraFeeEstimates", {
    description: "confirmation target in blocks -> fee rate in koinu per byte (Esplora's sat/vB)",
  });

/** A plain-text answer (Esplora writes hashes, heights and hex as text). */
export const text = (description: string) => ({ description, contentType: "text/plain" });

/**
 * Esplora's errors: plain text (the message only), with its status codes. A 429 of the broadcast
 * limit keeps the explorer's JSON error body (the document's default answer).
 */
export const TEXT_ERRORS = {
  400: text(
    'the request is malformed (Esplora: "Invalid hex string", "Invalid number", a node\'s refusal of a broadcast)',
  ),
  404: text('not found (Esplora: "Block not found", "Transaction not found", ...)'),
  500: text("an internal error"),
  502: text("the node did not answer"),
  503: text("the index has not reached the data asked for yet (Retry-After), or the node cannot serve it"),
};
