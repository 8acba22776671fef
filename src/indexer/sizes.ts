/**
 * The bytes a SQLite index holds per table (with its indexes), from SQLite's dbstat (pages in
 * use), and its transaction count: for scripts/bench/index-tables.ts and operators sizing disks.
 */
import Database from "better-sqlite3";

export interface IndexTableBytes {
  table: string;
  tableBytes: number;
  indexBytes: number;
}

export function indexTableSizes(file: string): { transactions: number; tables: IndexTableBytes[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const transactions = (db.prepare("SELECT COUNT(*) AS n FROM txs").get() as { n: number }).n;
    const owner = new Map<string, string>();
    for (const row of db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')").all() as {
      name: string;
      tbl_name: string;
    }[])
      owner.set(row.name, row.tbl_name);
    const bytes = new Map<string, IndexTableBytes>();
    for (const row of db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
      name: string;
      bytes: number;
    }[]) {
      const table = owner.get(row.name) ?? row.name;
      const entry = bytes.get(table) ?? { table, tableBytes: 0, indexBytes: 0 };
      if (table === row.name) entry.tableBytes += row.bytes;
      else entry.indexBytes += row.bytes;
      bytes.set(table, entry);
    }
    return { transactions, tables: [...bytes.values()] };
  } finally {
    db.close();
  }
}
