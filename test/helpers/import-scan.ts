/**
 * Which modules a piece of source imports, read as text: the scanner of the architecture tests that
 * hold who may import what (test/architecture/domain-errors.test.ts, devnet-imports.test.ts).
 */
import path from "node:path";

/** The module specifiers of a source text: `from "x"`, `import "x"`, `require("x")`, `import("x")`. */
export function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*|\brequire\s*\(\s*|\bimport\s*\(\s*)["'`]([^"'`]+)["'`]/g;
  for (const m of source.matchAll(pattern)) found.push(m[1]);
  return found;
}

/** The relative specifiers of `source` (the text of `file`) that resolve to `dir` or into it. */
export function importsInto(file: string, source: string, dir: string): string[] {
  return specifiersOf(source).filter((specifier) => {
    if (!specifier.startsWith(".")) return false;
    const resolved = path.resolve(path.dirname(file), specifier);
    return resolved === dir || resolved.startsWith(dir + path.sep);
  });
}
