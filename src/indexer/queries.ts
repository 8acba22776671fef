/**
 * The one reader of the index: every read of index tables by a process other than the indexer goes
 * through IndexQueries (the present state, for the explorer and the services) or IndexHistory (the
 * state as of a height, for attesters). The statements live in ./read/, one file per subject; this
 * facade composes them so callers hold one object. No SQL on index tables anywhere else
 * (test/indexer/index-readers.test.ts holds the tree to it).
 *
 * Every statement keeps to the portable SQL subset (docs/architecture.md "Who reads the index") and
 * no read scans a table on a request path: pages are keyed by a cursor, never counted.
 * Amounts are bigint koinu here; the HTTP layer decides how to carry them in JSON. Never calls the node.
 */
import type { SqlDatabase } from "../db/sql";
import { AddressPrefixReads } from "./read/address-prefix";
import { BalanceReads, UtxoView } from "./read/balances";
import { CollectionReads, CollectionTokenView } from "./read/collections";
import { Drc20Reads, Drc20Receipt, Drc20TickView, TransferInscriptionView } from "./read/drc20";
import { Drc20HolderKey, Drc20HolderReads, Drc20HolderView } from "./read/drc20-holders";
import { HistoryItemView, HistoryReads } from "./read/history";
import { InscriptionMoveKey, InscriptionMoveReads, InscriptionMoveView } from "./read/inscription-moves";
import { InscriptionReads, InscriptionView } from "./read/inscriptions";
import { CollectionDeployView, LaunchpadOperationView, LaunchpadReads } from "./read/launchpad";
import { OpReturnReads, OpReturnView } from "./read/opreturn";
import { IndexStatus, StatusReads } from "./read/status";
import { TxReads, TxView } from "./read/txs";
import { ZkpPageKey, ZkpReads } from "./read/zkp";

export type { IndexStatus } from "./read/status";
export type { TxView, TxInputView, TxOutputView } from "./read/txs";
export type { InscriptionView } from "./read/inscriptions";
export type { UtxoView } from "./read/balances";
export type { HistoryItemView } from "./read/history";
export type { Drc20Receipt, Drc20TickView, TransferInscriptionView } from "./read/drc20";
export type { Drc20HolderKey, Drc20HolderView } from "./read/drc20-holders";
export type { InscriptionMoveKey, InscriptionMoveView } from "./read/inscription-moves";
export type { CollectionTokenView } from "./read/collections";
export type { OpReturnView } from "./read/opreturn";
export type { ZkpPageKey } from "./read/zkp";
export type { CollectionDeployView, LaunchpadOperationView } from "./read/launchpad";
export { isZkpUseKey } from "./read/zkp";
export { IndexHistory } from "./read/as-of-height";

export class IndexQueries {
  readonly statusReads: StatusReads;
  readonly txs: TxReads;
  readonly balances: BalanceReads;
  readonly addressHistory: HistoryReads;
  readonly drc20: Drc20Reads;
  readonly drc20Holders: Drc20HolderReads;
  readonly inscriptionMoveReads: InscriptionMoveReads;
  readonly inscriptions: InscriptionReads;
  readonly collections: CollectionReads;
  readonly launchpad: LaunchpadReads;
  readonly opReturns: OpReturnReads;
  readonly zkp: ZkpReads;
  readonly addressPrefixes: AddressPrefixReads;

  /** `db`: a reader's handle (openIndexReader), or the indexer's own in a process that does both (tests, benches). */
  constructor(readonly db: SqlDatabase) {
    this.statusReads = new StatusReads(db);
    this.opReturns = new OpReturnReads(db);
    this.zkp = new ZkpReads(db);
    this.txs = new TxReads(db, this.opReturns, this.zkp);
    this.inscriptions = new InscriptionReads(db);
    this.drc20 = new Drc20Reads(db);
    this.drc20Holders = new Drc20HolderReads(db);
    this.inscriptionMoveReads = new InscriptionMoveReads(db);
    this.balances = new BalanceReads(db);
    this.addressHistory = new HistoryReads(db);
    this.collections = new CollectionReads(db);
    this.launchpad = new LaunchpadReads(db);
    this.addressPrefixes = new AddressPrefixReads(db);
  }

  // status

  status(): IndexStatus {
    return this.statusReads.status();
  }

  /** Height of the last indexed block, or null before the first. */
  tipHeight(): number | null {
    return this.statusReads.tip()?.height ?? null;
  }

  // transactions and outputs

  /** Whether the index holds the transaction. */
  hasTx(txid: string): boolean {
    return this.txs.hasTx(txid);
  }

  tx(txid: string): TxView | null {
    return this.txs.tx(txid);
  }

  /** Spent outputs of a transaction's inputs, as the index knows them (by input index). */
  txInputs(
    txid: string,
  ): Map<number, { prevTxid: string; prevVout: number; valueKoinu: bigint; address: string | null }> {
    return this.txs.txInputs(txid);
  }

  /** An output that is unspent in the index, with its script. */
  unspentOutput(txid: string, vout: number): { value: bigint; script: Uint8Array } | null {
    return this.txs.unspentOutput(txid, vout);
  }

  /** One output, spent or not, as the index holds it. */
  output(txid: string, vout: number): { valueKoinu: bigint; scriptHex: string; address: string | null } | null {
    return this.txs.output(txid, vout);
  }

  /**
   * Who spent output `vout` of `txid` (spending txid, input index, height), spent null while
   * unspent; null when the index holds no such output (OP_RETURN outputs are not held as outputs).
   */
  outspend(txid: string, vout: number): { spent: { txid: string; vin: number; height: number } | null } | null {
    return this.txs.outspend(txid, vout);
  }

  // balances and address history

  /**
   * The address whose standard output script (P2PKH or P2SH) hashes to `scriptHashHex` under
   * SHA-256, written as 64 hex digits in the hash's own byte order (Esplora's /scripthash/:hash;
   * Electrum's protocol reverses the bytes, Esplora's HTTP API does not); null when unknown.
   */
  addressForScriptHash(scriptHashHex: string): string | null {
    return this.balances.addressForScriptHash(scriptHashHex);
  }

  /** Up to `limit` addresses the index has seen paid that begin with `prefix`, in byte order (Esplora's address search). */
  addressesWithPrefix(prefix: string, limit: number): string[] {
    return this.addressPrefixes.withPrefix(prefix, limit);
  }

  balance(address: string): { confirmedKoinu: bigint; txCount: number } {
    return this.balances.balance(address);
  }

  /** A page of `address`'s unspent outputs, oldest first, after `after` (no total: see BalanceReads.utxos). */
  utxos(
    address: string,
    after: { height: number; txid: string; vout: number } | null,
    pageSize: number,
  ): { items: UtxoView[] } {
    return this.balances.utxos(address, after, pageSize);
  }

  /** Every unspent output of `address`, oldest first, read a page of `pageSize` at a time. */
  *allUtxos(address: string, pageSize = 1000): Generator<UtxoView> {
    let after: { height: number; txid: string; vout: number } | null = null;
    for (;;) {
      const page = this.utxos(address, after, pageSize);
      yield* page.items;
      if (page.items.length < pageSize) return;
      const last = page.items[page.items.length - 1];
      after = { height: last.height, txid: last.txid, vout: last.vout };
    }
  }

  /** Esplora's chain_stats of `address`, from the indexer's counters (BalanceReads.txoStats). */
  txoStats(address: string): { fundedCount: number; fundedKoinu: bigint; spentCount: number; spentKoinu: bigint } {
    return this.balances.txoStats(address);
  }

  /** A page of `address`'s transactions, newest first; `total` is the indexer's transaction counter. */
  history(
    address: string,
    before: { height: number; position: number } | null,
    pageSize: number,
  ): { total: number; items: HistoryItemView[] } {
    return this.addressHistory.history(address, before, pageSize);
  }

  // DRC-20

  drc20Balances(address: string): { tick: string; available: string; transferable: string }[] {
    return this.drc20.balances(address);
  }

  /** `address`'s balance of one tick (by its key, the tick in lower case). */
  drc20Balance(address: string, tickKey: string): { available: bigint; transferable: bigint } {
    return this.drc20.balance(address, tickKey);
  }

  /** The deployed tick keyed `tickKey`, or null. */
  drc20Tick(tickKey: string): Drc20TickView | null {
    return this.drc20.tick(tickKey);
  }

  /**
   * Holders of the tick keyed `tickKey`, largest total (available + transferable) first, at most
   * `limit` after `after`, with the count of every holder. Reads every operation of the tick.
   */
  drc20TickHolders(
    tickKey: string,
    after: Drc20HolderKey | null,
    limit: number,
  ): { holderCount: number; items: Drc20HolderView[]; next: Drc20HolderKey | null } {
    return this.drc20Holders.holders(tickKey, after, limit);
  }

  /** Unspent outputs of `address` carrying unsent DRC-20 transfer inscriptions of one tick. */
  tickCarriers(address: string, tickKey: string) {
    return this.drc20.tickCarriers(address, tickKey);
  }

  /** DRC-20 transfer inscriptions inscribed by `address`, newest or oldest first. */
  transferInscriptions(
    address: string,
    options: { order: "asc" | "desc"; count: number; revealTxid: string | null },
  ): { total: number; items: TransferInscriptionView[] } {
    return this.drc20.transferInscriptions(address, options);
  }

  /** The DRC-20 deposits transaction `txid` made to `address`: first sends of transfer inscriptions that credited it. */
  drc20Receipts(txid: string, address: string): Drc20Receipt[] {
    return this.drc20.receiptsOf(txid, address);
  }

  // inscriptions and collections

  /** The deploy of launchpad `slug` the index admitted (the first one, whoever made it), or null. */
  collectionDeploy(slug: string): CollectionDeployView | null {
    return this.launchpad.collectionDeploy(slug);
  }

  /** The index's verdict on launchpad inscription `inscriptionId` (a mint: member or not, and why), or null. */
  launchpadOperation(inscriptionId: string): LaunchpadOperationView | null {
    return this.launchpad.launchpadOperation(inscriptionId);
  }

  /** The inscriptions sitting on output `vout` of `txid` now (DRC-20 transfers included). */
  inscriptionsOn(txid: string, vout: number): { id: string; offset: number; contentType: string }[] {
    return this.inscriptions.on(txid, vout);
  }

  /** An inscription with where it sits now (owner null when it was spent to fees and not re-found). */
  inscription(id: string): InscriptionView | null {
    return this.inscriptions.inscription(id);
  }

  /** Inscription `id`'s moves (owner history), oldest first, at most `limit` after `after`. */
  inscriptionMoves(id: string, after: InscriptionMoveKey | null, limit: number): InscriptionMoveView[] {
    return this.inscriptionMoveReads.moves(id, after, limit);
  }

  /** An inscription's content type and body bytes. */
  inscriptionBody(id: string): { contentType: string; body: Uint8Array } | null {
    return this.inscriptions.body(id);
  }

  /** Whether the index holds a launchpad deploy of `slug`. */
  hasCollection(slug: string): boolean {
    return this.collections.hasCollection(slug);
  }

  /** The member tokens of collection `slug` that `address` holds now. */
  collectionTokensHeld(slug: string, address: string): CollectionTokenView[] {
    return this.collections.tokensHeld(slug, address);
  }

  // OP_RETURN

  /** A page of the latest OP_RETURN outputs, newest first (no total: the caller pages until a short page). */
  opReturnRecent(
    magic: string | null,
    before: { height: number; position: number; vout: number } | null,
    pageSize: number,
  ): { items: OpReturnView[] } {
    return this.opReturns.recent(magic, before, pageSize);
  }

  opReturnsOfTx(txid: string): OpReturnView[] {
    return this.opReturns.ofTx(txid);
  }

  opReturnsBySha(sha: string): OpReturnView[] {
    return this.opReturns.bySha(sha);
  }

  /** First OP_RETURN whose payload is exactly `payloadHex`. */
  firstAnchor(payloadHex: string): { txid: string; blockHeight: number } | null {
    return this.opReturns.firstAnchor(payloadHex);
  }

  // OP_CHECKZKP

  zkpSummary(): { events: number; pending: number; valid: number; invalid: number } {
    return this.zkp.summary();
  }

  zkpRecent(limit: number): Record<string, unknown>[] {
    return this.zkp.recent(limit);
  }

  zkpOfTx(txid: string): Record<string, unknown>[] {
    return this.zkp.ofTx(txid);
  }

  /** Whether any OP_CHECKZKP use names the verifying key `sha`. */
  zkpVkUsed(sha: string): boolean {
    return this.zkp.vkUsed(sha);
  }

  /** Uses of the verifying key `sha`, newest first, a page after `before`; `next` is null on the last page. */
  zkpByVk(
    sha: string,
    before: ZkpPageKey | null,
    pageSize: number,
  ): { items: Record<string, unknown>[]; next: ZkpPageKey | null } {
    return this.zkp.byVk(sha, before, pageSize);
  }

  // benches and operators' tools

  /** The addresses with the most transactions: reads every balance row, never for a request. */
  busiestAddresses(limit: number): { address: string; txCount: number }[] {
    return this.balances.busiestAddresses(limit);
  }
}
