/**
 * Esplora's answers (Blockstream's API.md) as zod schemas, for the explorer's OpenAPI document:
 * the subset in ./esplora.ts writes these shapes so that Esplora clients work unchanged. Values are
 * koinu as exact JSON integers.
 */
import { Koinu, orNull, z } from "../http/openapi";

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
