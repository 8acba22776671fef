/**
 * Read queries over the index, turning rows into the explorer's domain shapes. Never calls the
 * node. Amounts are bigint koinu here; the HTTP layer decides how to carry them in JSON.
 */
import type { SqlStatement } from "../db/sql";
import type { SqlDatabase } from "../db/sql";
import { bytesToHex, hexToBytes, sha256 } from "../doge";
import { envelopeHash } from "../inscription/envelope";

export interface IndexStatus {
  indexedHeight: number;
  indexedHash: string | null;
  nodeHeight: number | null;
  nodeSeenAt: number | null;
  startHeight: number;
  network: string | null;
}

export interface TxOutputView {
  vout: number;
  valueKoinu: bigint;
  scriptHex: string;
  address: string | null;
  spent: { txid: string; vin: number; height: number } | null;
}

export interface TxInputView {
  vin: number;
  prevTxid: string;
  prevVout: number;
  valueKoinu: bigint | null;
  address: string | null;
}

export interface TxView {
  txid: string;
  height: number;
  position: number;
  blockHash: string;
  blockTime: number;
  size: number;
  feeKoinu: bigint | null;
  coinbase: boolean;
  outputs: TxOutputView[];
  opReturns: { vout: number; payloadHex: string; magic: string; sha256: string; size: number }[];
  inscriptions: { id: string; number: number; form: string; contentType: string; action: string | null; envelopeHash: string | null }[];
  zkpUses: Record<string, unknown>[];
}

export interface InscriptionView {
  id: string;
  number: number;
  form: string;
  contentType: string;
  action: string | null;
  bodySize: number;
  envelopeHash: string | null;
  genesisTxid: string;
  revealTxid: string;
  revealTxCount: number;
  inscriberAddress: string | null;
  height: number;
  position: number;
  collectionKey: string | null;
  location: { txid: string; vout: number; offset: number } | null;
  ownerAddress: string | null;
  locationHeight: number | null;
}

export class IndexQueries {
  private readonly s: Record<string, SqlStatement>;

  constructor(readonly db: SqlDatabase) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      meta: p("SELECT key, value FROM meta"),
      tip: p("SELECT height, hash FROM blocks ORDER BY height DESC LIMIT 1"),
      hasTx: p("SELECT 1 FROM txs WHERE txid = ?"),
      tx: p("SELECT t.txid, t.height, t.position, t.size, t.fee, t.coinbase, b.hash AS block_hash, b.time AS block_time FROM txs t JOIN blocks b ON b.height = t.height WHERE t.txid = ?").safeIntegers(true),
      txOutputs: p("SELECT vout, value, hex(script) AS script, address, spent_txid, spent_vin, spent_height FROM outputs WHERE txid = ? ORDER BY vout").safeIntegers(true),
      txInputs: p("SELECT txid, vout, value, address, spent_vin FROM outputs WHERE spent_txid = ? ORDER BY spent_vin").safeIntegers(true),
      txOpReturns: p("SELECT vout, hex(payload) AS payload, magic, sha256, size FROM op_returns WHERE txid = ? ORDER BY vout"),
      txInscriptions: p("SELECT id, number, form, content_type, action, envelope_hash FROM inscriptions WHERE reveal_txid = ? ORDER BY number"),
      txZkp: p("SELECT * FROM zkp_uses WHERE txid = ? ORDER BY role, input_index, output_index, op_index"),
      balance: p("SELECT confirmed, tx_count FROM balances WHERE address = ?").safeIntegers(true),
      utxos: p(`SELECT o.txid, o.vout, o.value, o.height, hex(o.script) AS script, (SELECT coinbase FROM txs WHERE txid = o.txid) AS coinbase FROM outputs o WHERE o.address = ? AND o.spent_txid IS NULL
        AND (o.height > ? OR (o.height = ? AND (o.txid > ? OR (o.txid = ? AND o.vout > ?)))) ORDER BY o.height, o.txid, o.vout LIMIT ?`).safeIntegers(true),
      utxoCount: p("SELECT COUNT(*) AS n FROM outputs WHERE address = ? AND spent_txid IS NULL"),
      inscriptionsOn: p("SELECT l.inscription_id, l.offset, i.content_type, i.body_size FROM inscription_locations l JOIN inscriptions i ON i.id = l.inscription_id WHERE l.txid = ? AND l.vout = ?"),
      drc20Carrier: p("SELECT t.tick_key, d.tick, t.amount FROM drc20_transfers t JOIN drc20_ticks d ON d.tick_key = t.tick_key WHERE t.inscription_id = ? AND t.sent = 0"),
      history: p(`SELECT h.txid, h.height, h.position, h.received, h.sent, h.counterparty FROM address_history h WHERE h.address = ?
        AND (h.height < ? OR (h.height = ? AND h.position < ?)) ORDER BY h.height DESC, h.position DESC LIMIT ?`).safeIntegers(true),
      historyCount: p("SELECT tx_count FROM balances WHERE address = ?"),
      revealedIn: p("SELECT 1 FROM inscriptions WHERE reveal_txid = ? LIMIT 1"),
      drc20Balances: p(`SELECT b.tick_key, t.tick, b.available, b.transferable FROM drc20_balances b JOIN drc20_ticks t ON t.tick_key = b.tick_key
        WHERE b.address = ? AND (b.available != '0' OR b.transferable != '0') ORDER BY b.tick_key`),
      opReturnRecent: p(`SELECT txid, vout, height, position, hex(payload) AS payload, magic, sha256, size FROM op_returns
        WHERE (? IS NULL OR magic = ?) AND (height < ? OR (height = ? AND (position < ? OR (position = ? AND vout < ?))))
        ORDER BY height DESC, position DESC, vout DESC LIMIT ?`),
      opReturnTx: p("SELECT txid, vout, height, position, hex(payload) AS payload, magic, sha256, size FROM op_returns WHERE txid = ? ORDER BY vout"),
      opReturnBySha: p("SELECT txid, vout, height, position, hex(payload) AS payload, magic, sha256, size FROM op_returns WHERE sha256 = ? ORDER BY height, position, vout LIMIT 50"),
      opReturnCount: p("SELECT COUNT(*) AS n FROM op_returns WHERE (? IS NULL OR magic = ?)"),
      unspent: p("SELECT value, script FROM outputs WHERE txid = ? AND vout = ? AND spent_txid IS NULL").safeIntegers(true),
      output: p("SELECT value, hex(script) AS script, address FROM outputs WHERE txid = ? AND vout = ?").safeIntegers(true),
      txoStats: p(`SELECT COUNT(*) AS funded_count, COALESCE(SUM(o.value), 0) AS funded, COALESCE(SUM(o.spent_txid IS NOT NULL), 0) AS spent_count,
        COALESCE(SUM(CASE WHEN o.spent_txid IS NULL THEN 0 ELSE o.value END), 0) AS spent
        FROM address_history h JOIN outputs o ON o.txid = h.txid AND o.address = h.address WHERE h.address = ?`).safeIntegers(true),
      tickCarriers: p(`SELECT l.txid, l.vout, l.offset, l.inscription_id, t.amount, o.value, o.height FROM inscription_locations l
        JOIN drc20_transfers t ON t.inscription_id = l.inscription_id AND t.sent = 0
        JOIN outputs o ON o.txid = l.txid AND o.vout = l.vout AND o.spent_txid IS NULL
        WHERE l.owner_address = ? AND t.tick_key = ? ORDER BY o.height, l.txid, l.vout`).safeIntegers(true),
      transfers: p(`SELECT t.inscription_id, t.tick_key, d.tick, t.amount, t.owner_address, t.sent, t.receiver_address, t.returned, t.height, t.sent_height,
        i.reveal_txid, hex(i.body) AS body, i.content_type, l.txid AS location_txid, l.vout AS location_vout
        FROM drc20_transfers t JOIN drc20_ticks d ON d.tick_key = t.tick_key JOIN inscriptions i ON i.id = t.inscription_id
        LEFT JOIN inscription_locations l ON l.inscription_id = t.inscription_id
        WHERE t.owner_address = ? AND (? IS NULL OR i.reveal_txid = ?)`),
      anchorBySha: p("SELECT txid, height FROM op_returns WHERE sha256 = ? ORDER BY height, position, vout LIMIT 1"),
      zkpCount: p("SELECT COUNT(*) AS n, SUM(CASE WHEN verified_at IS NULL AND mode = 0 AND parse_error IS NULL THEN 1 ELSE 0 END) AS pending, SUM(CASE WHEN shadow_valid = 1 THEN 1 ELSE 0 END) AS valid, SUM(CASE WHEN shadow_valid = 0 THEN 1 ELSE 0 END) AS invalid FROM zkp_uses"),
      zkpRecent: p("SELECT * FROM zkp_uses ORDER BY height DESC, position DESC, role, input_index, output_index, op_index LIMIT ?"),
      zkpByVk: p(`SELECT rowid AS row_key, * FROM zkp_uses WHERE vk_sha256 = ? AND (height < ? OR (height = ? AND (position < ? OR (position = ? AND rowid < ?))))
        ORDER BY height DESC, position DESC, rowid DESC LIMIT ?`),
      zkpByVkCount: p("SELECT COUNT(*) AS n FROM zkp_uses WHERE vk_sha256 = ?"),
      inscription: p(`SELECT i.id, i.number, i.form, i.content_type, i.action, i.body_size, i.envelope_hash, i.genesis_txid, i.reveal_txid,
        i.reveal_tx_count, i.inscriber_address, i.height, i.position, i.collection_key, l.txid AS location_txid, l.vout AS location_vout,
        l.offset AS location_offset, l.owner_address, l.height AS location_height
        FROM inscriptions i LEFT JOIN inscription_locations l ON l.inscription_id = i.id WHERE i.id = ?`),
      inscriptionBody: p("SELECT content_type, body FROM inscriptions WHERE id = ?"),
    };
  }

  status(): IndexStatus {
    const meta = Object.fromEntries((this.s.meta.all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    const tip = this.s.tip.get() as { height: number; hash: string } | undefined;
    const startHeight = Number(meta.start_height ?? 0);
    return {
      indexedHeight: tip ? tip.height : startHeight - 1,
      indexedHash: tip ? tip.hash : null,
      nodeHeight: meta.node_height !== undefined ? Number(meta.node_height) : null,
      nodeSeenAt: meta.node_seen_at !== undefined ? Number(meta.node_seen_at) : null,
      startHeight,
      network: meta.network ?? null,
    };
  }

  /** Whether the index holds the transaction. */
  hasTx(txid: string): boolean {
    return this.s.hasTx.get(txid) !== undefined;
  }

  tx(txid: string): TxView | null {
    const row = this.s.tx.get(txid) as { txid: string; height: bigint; position: bigint; size: bigint; fee: bigint | null; coinbase: bigint; block_hash: string; block_time: bigint } | undefined;
    if (!row) return null;
    const outputs = (this.s.txOutputs.all(txid) as { vout: bigint; value: bigint; script: string; address: string | null; spent_txid: string | null; spent_vin: bigint | null; spent_height: bigint | null }[])
      .map((o) => ({ vout: Number(o.vout), valueKoinu: o.value, scriptHex: o.script.toLowerCase(), address: o.address,
        spent: o.spent_txid ? { txid: o.spent_txid, vin: Number(o.spent_vin), height: Number(o.spent_height) } : null }));
    const opReturns = (this.s.txOpReturns.all(txid) as { vout: number; payload: string; magic: string; sha256: string; size: number }[])
      .map((o) => ({ vout: o.vout, payloadHex: o.payload.toLowerCase(), magic: o.magic, sha256: o.sha256, size: o.size }));
    const inscriptions = (this.s.txInscriptions.all(txid) as { id: string; number: number; form: string; content_type: string; action: string | null; envelope_hash: string | null }[])
      .map((i) => ({ id: i.id, number: i.number, form: i.form, contentType: i.content_type, action: i.action, envelopeHash: i.envelope_hash }));
    return {
      txid: row.txid, height: Number(row.height), position: Number(row.position), blockHash: row.block_hash, blockTime: Number(row.block_time),
      size: Number(row.size), feeKoinu: row.fee, coinbase: row.coinbase !== 0n, outputs, opReturns, inscriptions,
      zkpUses: (this.s.txZkp.all(txid) as Record<string, unknown>[]).map(zkpRow),
    };
  }

  /** Spent outputs of a transaction's inputs, as the index knows them (by input index). */
  txInputs(txid: string): Map<number, { prevTxid: string; prevVout: number; valueKoinu: bigint; address: string | null }> {
    const out = new Map<number, { prevTxid: string; prevVout: number; valueKoinu: bigint; address: string | null }>();
    for (const row of this.s.txInputs.all(txid) as { txid: string; vout: bigint; value: bigint; address: string | null; spent_vin: bigint }[]) {
      out.set(Number(row.spent_vin), { prevTxid: row.txid, prevVout: Number(row.vout), valueKoinu: row.value, address: row.address });
    }
    return out;
  }

  balance(address: string): { confirmedKoinu: bigint; txCount: number } {
    const row = this.s.balance.get(address) as { confirmed: bigint; tx_count: bigint } | undefined;
    return row ? { confirmedKoinu: row.confirmed, txCount: Number(row.tx_count) } : { confirmedKoinu: 0n, txCount: 0 };
  }

  utxos(address: string, after: { height: number; txid: string; vout: number } | null, pageSize: number) {
    const key = after ?? { height: -1, txid: "", vout: -1 };
    const rows = this.s.utxos.all(address, key.height, key.height, key.txid, key.txid, key.vout, pageSize) as { txid: string; vout: bigint; value: bigint; height: bigint; script: string; coinbase: bigint | null }[];
    return {
      total: (this.s.utxoCount.get(address) as { n: number }).n,
      items: rows.map((r) => {
        const inscriptions = this.s.inscriptionsOn.all(r.txid, Number(r.vout)) as { inscription_id: string; offset: number; content_type: string; body_size: number }[];
        const drc20 = inscriptions.map((i) => this.s.drc20Carrier.get(i.inscription_id) as { tick_key: string; tick: string; amount: string } | undefined).filter((x) => x !== undefined);
        return {
          txid: r.txid, vout: Number(r.vout), valueKoinu: r.value, height: Number(r.height), scriptHex: r.script.toLowerCase(), coinbase: r.coinbase === 1n,
          inscriptions: inscriptions.map((i) => ({ id: i.inscription_id, offset: i.offset, contentType: i.content_type })),
          drc20: drc20.map((d) => ({ tick: d!.tick, amount: d!.amount })),
        };
      }),
    };
  }

  history(address: string, before: { height: number; position: number } | null, pageSize: number) {
    const key = before ?? { height: Number.MAX_SAFE_INTEGER, position: 0 };
    const rows = this.s.history.all(address, key.height, key.height, key.position, pageSize) as { txid: string; height: bigint; position: bigint; received: bigint; sent: bigint; counterparty: string | null }[];
    const total = (this.s.historyCount.get(address) as { tx_count: number } | undefined)?.tx_count ?? 0;
    return {
      total,
      items: rows.map((r) => {
        const net = r.received - r.sent;
        const direction = r.sent === 0n ? "in" : r.received === 0n ? "out" : net >= 0n ? "self" : "out";
        return {
          txid: r.txid, height: Number(r.height), position: Number(r.position), direction, counterparty: r.counterparty,
          amountKoinu: net < 0n ? -net : net, isDoginal: this.s.revealedIn.get(r.txid) !== undefined,
        };
      }),
    };
  }

  drc20Balances(address: string): { tick: string; available: string; transferable: string }[] {
    return (this.s.drc20Balances.all(address) as { tick: string; available: string; transferable: string }[])
      .map((r) => ({ tick: r.tick, available: r.available, transferable: r.transferable }));
  }

  opReturnRecent(magic: string | null, before: { height: number; position: number; vout: number } | null, pageSize: number) {
    const key = before ?? { height: Number.MAX_SAFE_INTEGER, position: 0, vout: 0 };
    const rows = this.s.opReturnRecent.all(magic, magic, key.height, key.height, key.position, key.position, key.vout, pageSize) as OpReturnRow[];
    return { total: (this.s.opReturnCount.get(magic, magic) as { n: number }).n, items: rows.map(opReturnView) };
  }

  opReturnsOfTx(txid: string) {
    return (this.s.opReturnTx.all(txid) as OpReturnRow[]).map(opReturnView);
  }

  opReturnsBySha(sha: string) {
    return (this.s.opReturnBySha.all(sha) as OpReturnRow[]).map(opReturnView);
  }

  /** Unspent outputs of `address` carrying unsent DRC-20 transfer inscriptions of one tick. */
  tickCarriers(address: string, tickKey: string) {
    return (this.s.tickCarriers.all(address, tickKey) as { txid: string; vout: bigint; offset: bigint; inscription_id: string; amount: string; value: bigint; height: bigint }[])
      .map((r) => ({ txid: r.txid, vout: Number(r.vout), offset: Number(r.offset), inscriptionId: r.inscription_id, amount: r.amount, valueKoinu: r.value, height: Number(r.height) }));
  }

  /** DRC-20 transfer inscriptions inscribed by `address`, newest or oldest first. */
  transferInscriptions(address: string, options: { order: "asc" | "desc"; count: number; revealTxid: string | null }) {
    const rows = this.s.transfers.all(address, options.revealTxid, options.revealTxid) as {
      inscription_id: string; tick_key: string; tick: string; amount: string; owner_address: string; sent: number; receiver_address: string | null;
      returned: number; height: number; sent_height: number | null; reveal_txid: string; body: string; content_type: string; location_txid: string | null; location_vout: number | null;
    }[];
    rows.sort((a, b) => (options.order === "asc" ? 1 : -1) * (a.height - b.height || a.inscription_id.localeCompare(b.inscription_id)));
    return { total: rows.length, items: rows.slice(0, options.count) };
  }

  /** An output that is unspent in the index, with its script. */
  /** An inscription with where it sits now (owner null when it was spent to fees and not re-found). */
  inscription(id: string): InscriptionView | null {
    const r = this.s.inscription.get(id) as Record<string, unknown> | undefined;
    if (!r) return null;
    let hash = (r.envelope_hash as string | null) ?? null;
    if (hash === null) {
      // Doginals-form rows carry no envelope; envelopeHash is a commitment to (content type,
      // ACTION, body) whatever the form, so it is computed here from the stored body.
      const body = this.inscriptionBody(id);
      try {
        hash = body ? envelopeHash({ contentType: body.contentType, action: (r.action as string | null) ?? null, body: body.body }) : null;
      } catch {
        hash = null; // content with no envelope encoding (e.g. an empty content type)
      }
    }
    return {
      id: r.id as string, number: Number(r.number), form: r.form as string, contentType: r.content_type as string, action: (r.action as string | null) ?? null,
      bodySize: Number(r.body_size), envelopeHash: hash, genesisTxid: r.genesis_txid as string,
      revealTxid: r.reveal_txid as string, revealTxCount: Number(r.reveal_tx_count), inscriberAddress: (r.inscriber_address as string | null) ?? null,
      height: Number(r.height), position: Number(r.position), collectionKey: (r.collection_key as string | null) ?? null,
      location: r.location_txid == null ? null : { txid: r.location_txid as string, vout: Number(r.location_vout), offset: Number(r.location_offset) },
      ownerAddress: (r.owner_address as string | null) ?? null,
      locationHeight: r.location_height == null ? null : Number(r.location_height),
    };
  }

  /** An inscription's content type and body bytes. */
  inscriptionBody(id: string): { contentType: string; body: Uint8Array } | null {
    const r = this.s.inscriptionBody.get(id) as { content_type: string; body: Buffer } | undefined;
    return r ? { contentType: r.content_type, body: new Uint8Array(r.body) } : null;
  }

  unspentOutput(txid: string, vout: number): { value: bigint; script: Uint8Array } | null {
    const row = this.s.unspent.get(txid, vout) as { value: bigint; script: Buffer } | undefined;
    return row ? { value: row.value, script: new Uint8Array(row.script) } : null;
  }

  /** One output, spent or not, as the index holds it. */
  output(txid: string, vout: number): { valueKoinu: bigint; scriptHex: string; address: string | null } | null {
    const row = this.s.output.get(txid, vout) as { value: bigint; script: string; address: string | null } | undefined;
    return row ? { valueKoinu: row.value, scriptHex: row.script.toLowerCase(), address: row.address } : null;
  }

  /**
   * Outputs ever paid to `address` (funded) and those of them spent since, counted and summed in
   * koinu over the address's history (Esplora's chain_stats). One pass over its history rows.
   */
  txoStats(address: string): { fundedCount: number; fundedKoinu: bigint; spentCount: number; spentKoinu: bigint } {
    const row = this.s.txoStats.get(address) as { funded_count: bigint; funded: bigint; spent_count: bigint; spent: bigint };
    return { fundedCount: Number(row.funded_count), fundedKoinu: row.funded, spentCount: Number(row.spent_count), spentKoinu: row.spent };
  }

  /** First OP_RETURN whose payload is exactly `payloadHex`. */
  firstAnchor(payloadHex: string): { txid: string; blockHeight: number } | null {
    const sha = bytesToHex(sha256(hexToBytes(payloadHex)));
    const row = this.s.anchorBySha.get(sha) as { txid: string; height: number } | undefined;
    return row ? { txid: row.txid, blockHeight: row.height } : null;
  }

  zkpSummary(): { events: number; pending: number; valid: number; invalid: number } {
    const row = this.s.zkpCount.get() as { n: number; pending: number | null; valid: number | null; invalid: number | null };
    return { events: row.n, pending: row.pending ?? 0, valid: row.valid ?? 0, invalid: row.invalid ?? 0 };
  }

  zkpRecent(limit: number) {
    return (this.s.zkpRecent.all(limit) as Record<string, unknown>[]).map(zkpRow);
  }

  zkpOfTx(txid: string) {
    return (this.s.txZkp.all(txid) as Record<string, unknown>[]).map(zkpRow);
  }

  /**
   * Uses of the verifying key `sha`, newest first, a page of `pageSize` after the key `before` (the
   * `next` of the previous page); `next` is null on the last page.
   */
  zkpByVk(sha: string, before: ZkpPageKey | null, pageSize: number): { total: number; items: Record<string, unknown>[]; next: ZkpPageKey | null } {
    const key = before ?? { height: Number.MAX_SAFE_INTEGER, position: 0, row: 0 };
    const rows = this.s.zkpByVk.all(sha, key.height, key.height, key.position, key.position, key.row, pageSize) as Record<string, unknown>[];
    const last = rows[rows.length - 1];
    return {
      total: (this.s.zkpByVkCount.get(sha) as { n: number }).n,
      items: rows.map(zkpRow),
      next: rows.length === pageSize && last ? { height: Number(last.height), position: Number(last.position), row: Number(last.row_key) } : null,
    };
  }
}

/** Where a page of OP_CHECKZKP uses ended: height, position in the block, and the row's key. */
export interface ZkpPageKey { height: number; position: number; row: number }

interface OpReturnRow { txid: string; vout: number; height: number; position: number; payload: string; magic: string; sha256: string; size: number }

function opReturnView(r: OpReturnRow) {
  return { txid: r.txid, vout: r.vout, height: r.height, position: r.position, payloadHex: r.payload.toLowerCase(), magic: r.magic, sha256: r.sha256, size: r.size };
}

/** A zkp_uses row in the seed's record shape (ZKP.md). */
function zkpRow(row: Record<string, unknown>): Record<string, unknown> {
  return {
    txid: row.txid,
    block_height: row.height,
    role: row.role,
    input_index: row.input_index,
    output_index: row.output_index,
    op_index: row.op_index,
    mode: row.mode,
    mode_name: row.mode_name,
    proof_hex: row.proof_hex,
    vk_hex: row.vk_hex,
    vk_sha256: row.vk_sha256,
    public_inputs: JSON.parse(String(row.public_inputs ?? "[]")),
    parse_error: row.parse_error,
    shadow_valid: row.shadow_valid === null ? null : row.shadow_valid === 1,
    shadow_encoding: row.shadow_encoding,
    consensus_enforced: false,
    status: "shadow (not consensus-enforced)",
  };
}
