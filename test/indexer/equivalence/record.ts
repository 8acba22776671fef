/**
 * Records the answers the index equivalence test compares against (see the header of
 * test/indexer/equivalence.test.ts): builds every equivalence chain with the code of `--tree` (a
 * git worktree of the commit whose answers are the reference) into SQLite, asks every read
 * (./harness.ts) and writes test/fixtures/index-v7-answers/<chain>.json.gz of this checkout.
 *
 *   git worktree add /tmp/v7-tree d320b92 && ln -s "$PWD/node_modules" /tmp/v7-tree/node_modules
 *   node --import tsx test/indexer/equivalence/record.ts --tree /tmp/v7-tree [--chain NAME]
 *   git worktree remove /tmp/v7-tree
 *
 * The chains and the enumeration are this checkout's; indexing, reading and serving are the tree's.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { chainDigest, devnetChain, mainnetChains } from "./chain";
import { writeFixture } from "./fixture";
import { Answers, buildIndex, loadStack, readEverything, routeKind } from "./harness";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const tree = flag("--tree");
  if (!tree) throw new Error("usage: record.ts --tree <worktree of the reference commit> [--chain NAME]");
  const root = path.resolve(tree);
  const commit = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const stack = loadStack(root);
  const schemaVersion = stack.database.INDEXER_SCHEMA_VERSION;
  const only = flag("--chain");
  const chains = [await devnetChain(), ...mainnetChains()].filter((chain) => !only || chain.name === only);
  for (const chain of chains) {
    const started = Date.now();
    const db = stack.database.openIndexerDatabase(":memory:");
    const snapshots: Record<string, Answers> = {};
    await buildIndex(stack, chain, db, async (name, active) => {
      snapshots[name] = await readEverything(stack, chain, db, active);
    });
    db.close();
    writeFixture({ chain: chain.name, commit, schemaVersion, chainDigest: chainDigest(chain), snapshots });
    const kinds: Record<string, number> = {};
    for (const answers of Object.values(snapshots))
      for (const [route] of answers) kinds[routeKind(route)] = (kinds[routeKind(route)] ?? 0) + 1;
    process.stdout.write(
      `${chain.name}: ${Object.entries(kinds)
        .map(([kind, n]) => `${n} ${kind}`)
        .join(", ")} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    );
  }
  process.stdout.write(`recorded with ${commit} (schema version ${schemaVersion})\n`);
}

// Hardhat's test run loads every file under test/: record only when run as the script.
if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
