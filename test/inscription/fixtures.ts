/** Shared inputs of the inscription tests: vector files and the two parsed Doginals-era blocks. */
import fs from "node:fs";
import path from "node:path";
import { hexToBytes, parseBlock } from "../../src/doge";
import type { Block } from "../../src/doge";
import { TESTDATA_DIR, rawBlockHex } from "../helpers/testdata";

export interface VectorFile<I, E> {
  description?: string;
  valid: { description: string; input: I; expected: E }[];
  invalid: { description: string; input: I; error: string }[];
}

export function loadVectors<I, E>(name: string): VectorFile<I, E> {
  return JSON.parse(fs.readFileSync(path.join(__dirname, "..", "vectors", `${name}.json`), "utf8")) as VectorFile<I, E>;
}

const blocks = new Map<number, Block>();

/** Block 5,000,000 or 5,122,721, parsed once per test run. */
export function inscriptionBlock(height: 5000000 | 5122721): Block {
  let block = blocks.get(height);
  if (!block) {
    const parsed = parseBlock(hexToBytes(rawBlockHex(height)));
    if (!parsed.ok) throw parsed.error;
    block = parsed.value;
    blocks.set(height, block);
  }
  return block;
}

/** One entry of ../shared/testdata/dogecoin/inscriptions-derived.json (a cross-check, not ground truth). */
export interface CatalogueInscription {
  height: number;
  tx_index: number;
  txid: string;
  inscription_id: string;
  npieces: number;
  complete_in_this_tx: boolean;
  content_type: string;
  body_len: number;
  body_utf8: string | null;
  body_hex?: string | null;
  json_p_op?: [string, string];
  redeem_script_hex: string;
  spent_prevout: { txid: string; vout: number };
}

let catalogue: CatalogueInscription[] | null = null;

export function inscriptionCatalogue(): CatalogueInscription[] {
  if (!catalogue) {
    const file = JSON.parse(fs.readFileSync(path.join(TESTDATA_DIR, "inscriptions-derived.json"), "utf8")) as {
      inscriptions: CatalogueInscription[];
    };
    catalogue = file.inscriptions;
  }
  return catalogue;
}

export const COMPRESSED_PUBKEY = hexToBytes("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
/** A 71-byte strict-DER-shaped signature with SIGHASH_ALL, for building scriptSigs. */
export const DUMMY_SIGNATURE = hexToBytes("3044" + "0220" + "11".repeat(32) + "0220" + "22".repeat(32) + "01");
