/**
 * Rewrites the portable SQLite SQL of the index (src/db/sql.ts) for PostgreSQL. The set of
 * rewrites is small on purpose; SQL outside it is written portably at its source:
 * - `?` placeholders become `$1..$n`; `@name` placeholders become `$n` with their names recorded,
 *   so one object argument can be spread in order;
 * - `INSERT OR REPLACE INTO t (cols) VALUES ...` becomes an upsert on t's key
 *   (`ON CONFLICT (key) DO UPDATE SET col = EXCLUDED.col` for every other column);
 * - `INSERT OR IGNORE INTO` becomes `INSERT INTO ... ON CONFLICT DO NOTHING`;
 * - `col IS ?` becomes `col IS NOT DISTINCT FROM $n` (SQLite's IS compares NULLs as equal);
 * - `CAST(? AS BLOB)` becomes `CAST($n AS bytea)` (a parameter whose type nothing else tells);
 * - the column name `offset` is quoted (it is reserved in PostgreSQL; `OFFSET` in capitals is
 *   the clause and stays as it is);
 * - a camelCase alias (`AS rowKey`) is quoted, since PostgreSQL folds unquoted names to lower case.
 * String literals are left alone.
 */
import { DogeosError } from "../errors";

export interface TranslatedSql {
  text: string;
  /** Parameter names in $n order when the statement used `@name` placeholders, else null. */
  names: string[] | null;
  /** Number of parameters. */
  count: number;
}

export class DialectError extends DogeosError {
  constructor(
    message: string,
    readonly sql: string,
  ) {
    super("internal", "SQL_DIALECT", `${message} in SQL: ${sql.slice(0, 200)}`);
  }
}

/** Splits SQL into code and string-literal parts, so rewrites never touch literals. */
function splitLiterals(sql: string): { code: boolean; text: string }[] {
  const parts: { code: boolean; text: string }[] = [];
  let i = 0;
  let start = 0;
  while (i < sql.length) {
    if (sql[i] === "'") {
      if (i > start) parts.push({ code: true, text: sql.slice(start, i) });
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new DialectError("unterminated string literal", sql);
        if (sql[j] === "'") {
          if (sql[j + 1] === "'") {
            j += 2;
            continue;
          }
          break;
        }
        j += 1;
      }
      parts.push({ code: false, text: sql.slice(i, j + 1) });
      i = j + 1;
      start = i;
    } else {
      i += 1;
    }
  }
  if (start < sql.length) parts.push({ code: true, text: sql.slice(start) });
  return parts;
}

/**
 * Translates one statement. `conflictKeys` maps a table to its key columns, for `INSERT OR
 * REPLACE` (the unique key the upsert targets).
 */
export function toPostgres(sql: string, conflictKeys: Readonly<Record<string, readonly string[]>>): TranslatedSql {
  let text = sql;
  let upsert: { table: string; columns: string[] } | null = null;
  let ignore = false;
  const replace = /^\s*INSERT\s+OR\s+REPLACE\s+INTO\s+(\w+)\s*\(([^)]*)\)/i.exec(text);
  if (replace) {
    upsert = { table: replace[1], columns: replace[2].split(",").map((c) => c.trim()) };
    text = text.replace(/^\s*INSERT\s+OR\s+REPLACE\s+INTO/i, "INSERT INTO");
  } else if (/^\s*INSERT\s+OR\s+IGNORE\s+INTO/i.test(text)) {
    ignore = true;
    text = text.replace(/^\s*INSERT\s+OR\s+IGNORE\s+INTO/i, "INSERT INTO");
  }
  let count = 0;
  const names: string[] = [];
  let named = false;
  let positional = false;
  const out = splitLiterals(text)
    .map((part) => {
      if (!part.code) return part.text;
      return part.text
        .replace(/\bIS\s+\?/g, "IS NOT DISTINCT FROM ?")
        .replace(/\bCAST\(\s*\?\s+AS\s+BLOB\s*\)/gi, "CAST(? AS bytea)")
        .replace(/(?<![\w".])offset\b/g, '"offset"')
        .replace(/(\.)offset\b/g, '$1"offset"')
        .replace(/\bAS\s+([a-z]+[A-Z]\w*)/g, 'AS "$1"')
        .replace(/\?|@([A-Za-z_]\w*)/g, (match, name: string | undefined) => {
          if (name !== undefined) {
            named = true;
            let index = names.indexOf(name);
            if (index === -1) {
              names.push(name);
              index = names.length - 1;
            }
            return `$${index + 1}`;
          }
          positional = true;
          count += 1;
          return `$${count}`;
        });
    })
    .join("");
  if (named && positional) throw new DialectError("mixes ? and @name placeholders", sql);
  let result = out.trimEnd().replace(/;$/, "");
  if (upsert) {
    const key = conflictKeys[upsert.table];
    if (!key) throw new DialectError(`INSERT OR REPLACE into ${upsert.table}, whose key is not known`, sql);
    const quote = (c: string) => (c === "offset" ? '"offset"' : c);
    const rest = upsert.columns.filter((c) => !key.includes(c));
    result +=
      ` ON CONFLICT (${key.map(quote).join(", ")}) ` +
      (rest.length === 0
        ? "DO NOTHING"
        : `DO UPDATE SET ${rest.map((c) => `${quote(c)} = EXCLUDED.${quote(c)}`).join(", ")}`);
  } else if (ignore) {
    result += " ON CONFLICT DO NOTHING";
  }
  return { text: result, names: named ? names : null, count: named ? names.length : count };
}
