/**
 * node --import tsx scripts/bench/index-tables.ts <index.sqlite>
 *
 * The bytes of each table of a SQLite index with its indexes (SQLite's dbstat: pages in use), per
 * transaction, and how much of it an attester's facts read (issue 27, item 5): the facts read the
 * index only through IndexHistory (src/indexer/read/as-of-height.ts), whose statements name the
 * tables in ATTESTER_READS; the indexer itself also needs the outputs (to know what an input
 * spends), the pending Doginals and the undo journal while it writes.
 */
import { indexTableSizes } from "../../src/indexer/sizes";

/** Tables IndexHistory's statements read (as of schema version 8). */
const ATTESTER_READS = new Set([
  "meta",
  "blocks",
  "txs",
  "addresses",
  "address_history",
  "inscriptions",
  "inscription_moves",
  "collection_members",
  "drc20_operations",
  "drc20_ticks",
  "op_returns",
]);
/** Tables the indexer reads back while it writes (needed by any index, read by no fact). */
const WRITER_NEEDS = new Set([
  "outputs",
  "doginals_pending",
  "journal",
  "inscription_locations",
  "drc20_balances",
  "drc20_transfers",
  "collections",
]);

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error("usage: index-tables.ts <index.sqlite>");
  const sizes = indexTableSizes(file);
  const txs = sizes.transactions;
  const bytes = new Map(sizes.tables.map((t) => [t.table, { table: t.tableBytes, indexes: t.indexBytes }]));
  const total = [...bytes.values()].reduce((sum, b) => sum + b.table + b.indexes, 0);
  process.stdout.write(`${file}: ${txs.toLocaleString("en-US")} transactions, ${(total / 1e6).toFixed(1)} MB in use\n`);
  process.stdout.write(
    `${"table".padEnd(26)} ${"table MB".padStart(9)} ${"index MB".padStart(9)} ${"B/tx".padStart(7)}  read by\n`,
  );
  const sums = { facts: 0, writer: 0, neither: 0 };
  for (const [table, b] of [...bytes].sort((x, y) => y[1].table + y[1].indexes - (x[1].table + x[1].indexes))) {
    const size = b.table + b.indexes;
    const use = ATTESTER_READS.has(table) ? "facts" : WRITER_NEEDS.has(table) ? "writer" : "neither";
    sums[use] += size;
    process.stdout.write(
      `${table.padEnd(26)} ${(b.table / 1e6).toFixed(1).padStart(9)} ${(b.indexes / 1e6).toFixed(1).padStart(9)} ${(size / txs).toFixed(0).padStart(7)}  ${use}\n`,
    );
  }
  const pct = (n: number) => `${((100 * n) / total).toFixed(1)}%`;
  process.stdout.write(
    `\nread by an attester's facts: ${(sums.facts / 1e6).toFixed(1)} MB (${pct(sums.facts)}); read only by the indexer while writing: ${(sums.writer / 1e6).toFixed(1)} MB (${pct(sums.writer)}); by neither: ${(sums.neither / 1e6).toFixed(1)} MB (${pct(sums.neither)})\n`,
  );
}

main();
