/** Every row of every table (but meta), in a stable order: for comparing two databases' content. */
import type { Sqlite } from "../../src/db/sqlite";

export function dumpDatabase(db: Sqlite, skipTables: string[] = ["meta"]): Record<string, unknown[]> {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[])
    .map((row) => row.name)
    .filter((name) => !skipTables.includes(name));
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
    const order = columns.map((_, i) => i + 1).join(", ");
    out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).raw(true).all().map((row) =>
      (row as unknown[]).map((value) => (value instanceof Buffer ? value.toString("hex") : typeof value === "bigint" ? value.toString() : value)));
  }
  return out;
}
