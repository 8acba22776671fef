/**
 * The explorer's records as zod schemas: its OpenAPI document (GET /openapi.json) is generated
 * from these and from the route declarations in ./app.ts and ./esplora.ts. Names and types are the
 * spec's where it names a record (DESIGN.md section 4: the OP_RETURN and OP_CHECKZKP records, the
 * history item); koinu are exact JSON integers (Koinu), DRC-20 amounts decimal strings.
 */
import { DecimalString, Koinu, orNull, z } from "../http/openapi";

const Txid = z.string().regex(/^[0-9a-f]{64}$/);
const Height = z.number().int().min(0);
const Confirmations = z
  .number()
  .int()
  .min(0)
  .openapi({ description: "blocks on top of the one that holds it, counting that block; 0 while pending" });
const Address = z
  .string()
  .nullable()
  .openapi({ description: "the address the script pays, or null for scripts without one" });
const NextCursor = z
  .string()
  .nullable()
  .openapi({ description: "pass as `cursor` for the next page; null on the last page" });

export const OpReturnRecord = z
  .object({
    txid: Txid,
    vout: z.number().int().min(0),
    payload_hex: z
      .string()
      .regex(/^([0-9a-f]{2})*$/)
      .openapi({ description: "the pushed bytes after OP_RETURN, concatenated" }),
    payload_utf8: z
      .string()
      .nullable()
      .openapi({ description: "the payload as text when it is valid UTF-8, else null" }),
    payload_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    magic: z
      .string()
      .regex(/^([0-9a-f]{2}){0,4}$/)
      .openapi({ description: "the payload's first 1 to 4 bytes, hexadecimal" }),
    bytes: z.number().int().min(0).openapi({ description: "the payload's length in bytes" }),
    block: Height.openapi({ description: "the height of the block that holds it" }),
    confirmations: Confirmations,
  })
  .openapi("OpReturnRecord", { description: "The spec's OP_RETURN record (DESIGN.md section 4)." });

export const ZkpRecord = z
  .object({
    txid: Txid,
    block_height: Height,
    role: z
      .string()
      .openapi({ description: "where the opcode sits: input (scriptSig/witness), output (scriptPubKey) or redeem" }),
    input_index: z.number().int().nullable(),
    output_index: z.number().int().nullable(),
    op_index: z.number().int(),
    mode: z.number().int().nullable(),
    mode_name: z.string().nullable(),
    proof_hex: z.string().nullable(),
    vk_hex: z.string().nullable(),
    vk_sha256: z.string().nullable(),
    public_inputs: z.array(z.string()),
    parse_error: z.string().nullable(),
    shadow_valid: z
      .boolean()
      .nullable()
      .openapi({ description: "the shadow verifier's verdict; null until verified or when not verifiable" }),
    shadow_encoding: z.string().nullable(),
    consensus_enforced: z.literal(false),
    status: z.literal("shadow (not consensus-enforced)"),
    confirmations: Confirmations,
  })
  .openapi("ZkpRecord", { description: "The spec's OP_CHECKZKP record (ZKP.md), every use in shadow mode." });

const Spend = z
  .object({
    txid: Txid,
    vin: z.number().int().min(0),
    height: Height.nullable().openapi({ description: "null while the spend is in the mempool" }),
  })
  .nullable();

export const TxBody = z
  .object({
    txid: Txid,
    block: z
      .object({ height: Height, hash: z.string(), time: z.number().int(), position: z.number().int().min(0) })
      .nullable()
      .openapi({ description: "null while the transaction is in the mempool" }),
    confirmations: Confirmations,
    size: z.number().int().min(0),
    coinbase: z.boolean(),
    fee_koinu: orNull(Koinu),
    inputs: z.array(
      z.object({
        vin: z.number().int().min(0),
        prev_txid: Txid,
        prev_vout: z.number().int().min(0),
        value_koinu: orNull(Koinu),
        address: Address,
      }),
    ),
    outputs: z.array(
      z.object({
        vout: z.number().int().min(0),
        value_koinu: Koinu,
        script_hex: z.string(),
        address: Address,
        spent: Spend,
      }),
    ),
    op_returns: z.array(OpReturnRecord),
    inscriptions: z.array(
      z.object({
        id: z.string(),
        number: z.number().int(),
        form: z.string(),
        content_type: z.string().nullable(),
        action: z.string().nullable(),
        envelope_hash: z.string().nullable(),
      }),
    ),
    zkp: z.array(ZkpRecord),
  })
  .openapi("Transaction");

export const StatusBody = z
  .object({
    indexer: z.object({
      indexed_height: z.number().int(),
      indexed_hash: z.string().nullable(),
      synced: z.boolean(),
      network: z.string().nullable(),
    }),
    node: z.object({ height: z.number().int().nullable(), seen_at: z.number().nullable() }),
    capture_start_height: z.number().int(),
    progress: z.number().min(0).max(1).nullable(),
  })
  .openapi("IndexStatus");

export const BalanceBody = z
  .object({
    address: z.string(),
    confirmed_koinu: Koinu,
    unconfirmed_koinu: Koinu.openapi({
      description: "what pending transactions add to (or, negative, take from) the balance",
    }),
    tx_count: z.number().int().min(0),
    indexed_height: z.number().int(),
  })
  .openapi("Balance");

export const HistoryItem = z
  .object({
    txid: Txid,
    direction: z.enum(["in", "out", "self"]),
    counterparty_address: z.string().nullable(),
    block_height: Height.nullable().openapi({ description: "null while pending" }),
    amount_koinu: Koinu,
    is_doginal: z.boolean(),
    confirmations: Confirmations,
  })
  .openapi("HistoryItem", { description: "The spec's history item; pending items come first." });

export const HistoryBody = z
  .object({ address: z.string(), items: z.array(HistoryItem), total: z.number().int().min(0), next_cursor: NextCursor })
  .openapi("History");

export const UtxoPage = z
  .object({
    address: z.string(),
    items: z.array(
      z.object({
        txid: Txid,
        vout: z.number().int().min(0),
        value_koinu: Koinu,
        height: Height.nullable(),
        confirmations: Confirmations,
        script_hex: z.string(),
        inscriptions: z.array(
          z.object({ id: z.string(), offset: z.number().int().min(0), content_type: z.string().nullable() }),
        ),
        drc20: z.array(z.object({ tick: z.string(), amount: DecimalString }).catchall(z.unknown())),
        carrier: z
          .enum(["drc20", "inscription"])
          .nullable()
          .openapi({ description: "what the output carries: spending it moves an inscription" }),
        coinbase: z.boolean(),
        mature: z
          .boolean()
          .openapi({ description: "false for a coinbase output younger than the network's coinbase maturity" }),
        spent_in_mempool: z.object({ txid: Txid, vin: z.number().int() }).nullable(),
        spendable: z.boolean(),
      }),
    ),
    next_cursor: NextCursor,
  })
  .openapi("UtxoPage");

export const Drc20Balances = z
  .object({
    address: z.string(),
    balances: z.array(z.object({ tick: z.string(), available: DecimalString, transferable: DecimalString })),
  })
  .openapi("Drc20Balances");

export const Drc20TickBody = z
  .object({
    tick: z.string().openapi({ description: "the tick as deployed (its case kept)" }),
    max_supply: DecimalString,
    mint_limit: DecimalString,
    minted: DecimalString,
    deployer_address: z.string(),
    inscription_id: z.string().openapi({ description: "the deploy inscription" }),
    height: Height.openapi({ description: "the block of the deploy" }),
    holder_count: z
      .number()
      .int()
      .min(0)
      .openapi({ description: "addresses with a non-zero available or transferable balance" }),
    holders: z
      .array(z.object({ address: z.string(), available: DecimalString, transferable: DecimalString }))
      .openapi({ description: "largest total (available + transferable) first, ties by address; one page" }),
    next_cursor: NextCursor,
  })
  .openapi("Drc20Tick");

export const TickCarriers = z.object({
  address: z.string(),
  tick: z.string(),
  items: z.array(
    z.object({
      txid: Txid,
      vout: z.number().int(),
      value_koinu: Koinu,
      confirmations: Confirmations,
      inscription_id: z.string(),
      offset: z.number().int(),
      amount: DecimalString,
    }),
  ),
});

export const TransferInscriptions = z.object({
  address: z.string(),
  total: z.number().int().min(0),
  items: z.array(
    z.object({
      inscription_id: z.string(),
      reveal_txid: Txid,
      tick: z.string(),
      amount: DecimalString,
      block_height: Height,
      state: z.enum(["transferable", "sent", "returned"]),
      receiver_address: z.string().nullable(),
      sent_height: Height.nullable(),
      location: z.object({ txid: Txid, vout: z.number().int() }).nullable(),
      content_type: z.string().optional().openapi({ description: "with envelope=true" }),
      body: z.string().optional().openapi({ description: "with envelope=true: the inscription's body as text" }),
    }),
  ),
});

export const InscriptionBody = z
  .object({
    id: z.string(),
    number: z.number().int(),
    form: z.string(),
    content_type: z.string().nullable(),
    action: z.string().nullable(),
    body_size: z.number().int().min(0),
    envelope_hash: z.string().nullable(),
    genesis_txid: Txid,
    reveal_txid: Txid,
    reveal_tx_count: z.number().int(),
    inscriber_address: z.string().nullable(),
    height: Height,
    location: z.object({ txid: Txid, vout: z.number().int(), offset: z.number().int() }).nullable(),
    owner_address: z.string().nullable(),
    content_url: z.string(),
  })
  .openapi("Inscription");

export const InscriptionMoves = z
  .object({
    id: z.string(),
    items: z.array(
      z.object({
        height: Height,
        txid: Txid.openapi({ description: "the transaction that inscribed or moved it" }),
        kind: z.enum(["genesis", "move", "fee", "lost"]).openapi({
          description:
            "genesis: inscribed; move: sent to an output; fee: spent to fees and found in the coinbase; lost: spent to fees and not found",
        }),
        to_txid: Txid.nullable(),
        to_vout: z.number().int().min(0).nullable(),
        to_offset: z.number().int().min(0).nullable(),
        owner_address: z.string().nullable(),
      }),
    ),
    next_cursor: NextCursor,
  })
  .openapi("InscriptionMoves", { description: "An inscription's owner history, oldest first." });

export const ZkpStatus = z.object({
  proposal: z.string(),
  opcode: z.object({ name: z.string(), byte: z.string(), replaces: z.string() }),
  modes: z.array(
    z.object({
      mode: z.number().int(),
      name: z.string(),
      public_inputs: z.number().int().optional(),
      shadow_verifier: z.boolean(),
    }),
  ),
  activation_height: z.number().int().nullable(),
  consensus_enforced: z.boolean(),
  status: z.string(),
  event_count: z.number().int().min(0),
  indexing: z.object({
    indexed_height: z.number().int(),
    node_height: z.number().int().nullable(),
    capture_start_height: z.number().int(),
  }),
  verifier: z.object({
    pending: z.number().int().min(0),
    valid: z.number().int().min(0),
    invalid: z.number().int().min(0),
  }),
});

export const ZkpList = z.object({ items: z.array(ZkpRecord) });
export const ZkpOfTx = z.object({ txid: Txid, items: z.array(ZkpRecord) });
export const ZkpByVk = z.object({ vk_sha256: z.string(), items: z.array(ZkpRecord), next_cursor: NextCursor });

export const OpReturnPage = z.object({ items: z.array(OpReturnRecord), next_cursor: NextCursor });
export const OpReturnsOfTx = z.object({ txid: Txid, items: z.array(OpReturnRecord) });
export const OpReturnBySha = z.object({
  sha256: z.string(),
  anchored: z.boolean(),
  first: orNull(OpReturnRecord),
  matches: z.array(OpReturnRecord),
});

export const BroadcastAnswer = z.object({ txid: Txid });

export const PipelineOutcome = z
  .object({
    accepted: z.boolean(),
    broadcast: z.boolean(),
    results: z.array(
      z.object({
        index: z.number().int().min(0),
        txid: Txid.nullable(),
        status: z.enum(["valid", "invalid", "broadcast", "failed", "skipped"]),
        error: z.object({ code: z.string(), message: z.string() }).optional(),
      }),
    ),
  })
  .openapi("PipelineOutcome");

export const PqcBinding = z
  .object({
    address: z.string(),
    key_sha256: z.string(),
    mldsa_public_key: z.string(),
    algorithm: z.literal("ML-DSA-44"),
    registered_at: z.number().int(),
    revoked_at: z.number().int().nullable(),
    anchored: z.boolean(),
    anchor: z.object({ txid: Txid, block_height: Height }).nullable(),
  })
  .openapi("PqcBinding");

export const PqcVerdict = z.object({ address: z.string(), key_sha256: z.string(), valid: z.boolean() });
