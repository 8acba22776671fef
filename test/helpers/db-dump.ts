/**
 * Every row of every table (but meta), in a stable order: for comparing two indexes' content,
 * on either backend. Integers are compared as decimal strings and bytes as hex, so a SQLite index
 * and a PostgreSQL one of the same chain dump alike.
 */
import type { SqlDatabase } from "../../src/db/sql";

/** The index's tables by name (SQLite's own excluded), on either backend. */
export function tableNames(db: SqlDatabase): string[] {
  return (
    db.dialect === "sqlite"
      ? db
          .prepare<{ name: string }>(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
          )
          .all()
      : db
          .prepare<{ name: string }>(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
          )
          .all()
  ).map((row) => row.name);
}

export function dumpDatabase(db: SqlDatabase, skipTables: string[] = ["meta"]): Record<string, unknown[]> {
  const tables = tableNames(db).filter((name) => !skipTables.includes(name));
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    const columns =
      db.dialect === "sqlite"
        ? db
            .prepare<{ name: string }>(`PRAGMA table_info(${table})`)
            .all()
            .map((c) => c.name)
        : db
            .prepare<{ name: string }>(
              "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
            )
            .all(table)
            .map((c) => c.name);
    const order = columns.map((_, i) => i + 1).join(", ");
    const quoted = columns.map((c) => `"${c}"`).join(", ");
    out[table] = db
      .prepare<Record<string, unknown>>(`SELECT ${quoted} FROM ${table} ORDER BY ${order}`)
      .safeIntegers(true)
      .all()
      .map((row) =>
        columns.map((c) => {
          const value = row[c];
          return value instanceof Uint8Array
            ? Buffer.from(value).toString("hex")
            : typeof value === "bigint"
              ? value.toString()
              : value;
        }),
      );
  }
  return out;
}
