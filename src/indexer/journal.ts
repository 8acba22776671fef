/**
 * Undo journal for the indexer's mutable tables (balances of DRC-20 ticks, inscription locations,
 * pending multi-transaction reveals...). Before a row is changed, its previous content (or its
 * absence) is recorded with the height of the block that changes it; a rollback replays the
 * journal backwards down to the fork point. Entries deeper than the reorg limit are pruned.
 */
import type { SqlStatement } from "../db/sql";
import type { SqlDatabase } from "../db/sql";

type Row = Record<string, unknown>;

export class Journal {
  private readonly insertEntry;
  private readonly entriesAbove;
  private readonly deleteAbove;
  private readonly pruneBelow;
  private readonly selectCache = new Map<string, SqlStatement>();
  private readonly deleteCache = new Map<string, SqlStatement>();
  private readonly insertCache = new Map<string, SqlStatement>();
  /** Changes at heights below this are not recorded (their entries would be pruned before commit). */
  private floor = 0;

  /** `tables` maps each journaled table to its primary-key columns. */
  constructor(
    private readonly db: SqlDatabase,
    private readonly tables: Readonly<Record<string, readonly string[]>>,
  ) {
    this.insertEntry = db.prepare("INSERT INTO journal (height, tbl, pk, previous) VALUES (?, ?, ?, ?)");
    this.entriesAbove = db.prepare("SELECT tbl, pk, previous FROM journal WHERE height > ? ORDER BY seq DESC");
    this.deleteAbove = db.prepare("DELETE FROM journal WHERE height > ?");
    this.pruneBelow = db.prepare("DELETE FROM journal WHERE height < ?");
  }

  private keyColumns(table: string): readonly string[] {
    const columns = this.tables[table];
    if (!columns) throw new Error(`table ${table} is not journaled`);
    return columns;
  }

  private select(table: string) {
    let statement = this.selectCache.get(table);
    if (!statement) {
      statement = this.db.prepare(
        `SELECT * FROM ${table} WHERE ${this.keyColumns(table)
          .map((c) => `${c} = ?`)
          .join(" AND ")}`,
      );
      this.selectCache.set(table, statement);
    }
    return statement;
  }

  private remove(table: string) {
    let statement = this.deleteCache.get(table);
    if (!statement) {
      statement = this.db.prepare(
        `DELETE FROM ${table} WHERE ${this.keyColumns(table)
          .map((c) => `${c} = ?`)
          .join(" AND ")}`,
      );
      this.deleteCache.set(table, statement);
    }
    return statement;
  }

  private insert(table: string, columns: string[]) {
    const key = `${table}(${columns.join(",")})`;
    let statement = this.insertCache.get(key);
    if (!statement) {
      statement = this.db.prepare(
        `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      );
      this.insertCache.set(key, statement);
    }
    return statement;
  }

  /**
   * Records no change below `height` from now on: set when a batch starts to the height its end
   * prunes the journal below, so that entries deleted before the batch commits are never written.
   */
  recordFrom(height: number): void {
    this.floor = height;
  }

  /** Records the current state of the row with primary key `pk` before the caller changes it. */
  remember(height: number, table: string, pk: readonly unknown[]): void {
    if (height < this.floor) return;
    const current = this.select(table).get(...pk) as Row | undefined;
    this.insertEntry.run(height, table, JSON.stringify(pk), current ? encodeRow(current) : null);
  }

  /** Restores every journaled row changed above `height`, newest change first. */
  rollbackAbove(height: number): void {
    for (const entry of this.entriesAbove.all(height) as { tbl: string; pk: string; previous: string | null }[]) {
      const pk = JSON.parse(entry.pk) as unknown[];
      this.remove(entry.tbl).run(...pk);
      if (entry.previous !== null) {
        const row = decodeRow(entry.previous);
        const columns = Object.keys(row);
        this.insert(entry.tbl, columns).run(...columns.map((c) => row[c]));
      }
    }
    this.deleteAbove.run(height);
  }

  /** Drops entries no rollback can reach any more (below tip - reorg limit). */
  prune(belowHeight: number): void {
    this.pruneBelow.run(belowHeight);
  }
}

/** JSON with Buffers and bigints kept exact. */
function encodeRow(row: Row): string {
  return JSON.stringify(row, (_key, value) => {
    if (
      value &&
      typeof value === "object" &&
      (value as { type?: string }).type === "Buffer" &&
      Array.isArray((value as { data?: unknown }).data)
    ) {
      return { $bytes: Buffer.from((value as { data: number[] }).data).toString("hex") };
    }
    if (typeof value === "bigint") return { $bigint: value.toString() };
    return value;
  });
}

function decodeRow(text: string): Row {
  return JSON.parse(text, (_key, value) => {
    if (value && typeof value === "object" && typeof value.$bytes === "string") return Buffer.from(value.$bytes, "hex");
    if (value && typeof value === "object" && typeof value.$bigint === "string") return BigInt(value.$bigint);
    return value;
  }) as Row;
}
