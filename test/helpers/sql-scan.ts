/**
 * Which tables a piece of source runs SQL on, read as text: the one scanner of the tests that hold
 * table ownership (test/indexer/index-readers.test.ts for the index, test/services/table-owners.test.ts
 * for the services' own databases).
 */
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.join(__dirname, "..", "..");

/** The tables the `CREATE TABLE` statements of `sql` make. */
export function tablesCreatedIn(sql: string): string[] {
  const names = new Set<string>();
  for (const m of sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g)) names.add(m[1]);
  return [...names].sort();
}

/**
 * The tables a piece of source names in SQL: a table name right after FROM, JOIN, INTO, UPDATE,
 * TABLE or DELETE FROM, in upper case as every SQL text of this tree is written.
 */
export function sqlTablesIn(source: string, tables: readonly string[]): string[] {
  const found = new Set<string>();
  const pattern = new RegExp(
    `\\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?: IF NOT EXISTS)?)\\s+"?(${tables.join("|")})\\b(?!\\.)`,
    "g",
  );
  for (const m of source.matchAll(pattern)) found.add(m[1]);
  return [...found].sort();
}

/** Every source file below `dir` (TypeScript and JavaScript, not declarations). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** `file` relative to the repository, with forward slashes. */
export function repoPath(file: string): string {
  return path.relative(ROOT, file).split(path.sep).join("/");
}
