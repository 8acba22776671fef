/**
 * Index equivalence (issue 27, "Same answers"): every explorer, Esplora, attester and custody read
 * answers byte-identically on an index built by this checkout and on the version-7 index of the
 * same chain, on SQLite and on PostgreSQL.
 *
 * The reference answers are test/fixtures/index-v7-answers/<chain>.json.gz, recorded over SQLite
 * with the code of commit d320b92, the last schema-version-7 commit when they were recorded. Its
 * index code (src/indexer, src/db) is that of 8016755, where the version-8 work started; its
 * Esplora is issue 28's (8016755's answered errors as JSON and had no block routes).
 *
 * The chains (./equivalence/chain.ts): the 20 real mainnet blocks of test/fixtures/dogecoin (one
 * index per run of consecutive heights) and a generated devnet chain (payments, OP_RETURNs, DRC-20,
 * Doginals and v1 inscriptions, a launchpad collection, OP_CHECKZKP uses, a 1-block and a 2-block
 * reorg with replaced transactions), read before the second reorg and at the end.
 *
 * The reads (./equivalence/harness.ts): every explorer /api and /esplora/api GET route that reads
 * the index, over HTTP, for every transaction, block, height, address, inscription, tick, outpoint,
 * OP_RETURN hash and magic and verifying key, with cursor pages; every IndexQueries read (the
 * custody's among them: balances, UTXO pages, DRC-20 balances, carriers and receipts, collections,
 * launchpad verdicts); every IndexHistory read and attester fact (computeFact) at the chain's
 * heights (on the devnet chain every third from its first block with more than a coinbase, and the
 * last nine; facts at every other one of those). Transactions and addresses are sampled evenly
 * where a chain has many (harness.ts READ_SAMPLE, HTTP_SAMPLE).
 *
 * Answers are compared as text: HTTP status, Content-Type, Cache-Control and the body's bytes;
 * in-process values as JSON keeping key and array order. Only the wall-clock time the indexer last
 * heard from its node (meta node_seen_at: IndexStatus.nodeSeenAt, /api/status node.seen_at) is
 * normalised. The test asks the fixture's routes, in the fixture's order, of the index it builds;
 * answers that differ fail the test with the first one's route and a diff, and the count of all.
 *
 * Re-recording, when a read's answer changes on purpose (say so in the commit): record with the
 * code whose answers are the reference, then commit the fixture.
 *
 *   git worktree add /tmp/v7-tree d320b92 && ln -s "$PWD/node_modules" /tmp/v7-tree/node_modules
 *   node --import tsx test/indexer/equivalence/record.ts --tree /tmp/v7-tree
 *   git worktree remove /tmp/v7-tree
 *
 * Recording from another commit (an answer changed on purpose once version 8 is in): pass a
 * worktree of that commit and update EXPECTED_COMMIT and EXPECTED_SCHEMA_VERSION below. A change to
 * the chain generator fails the digest check until the fixture is recorded again; a change to the
 * enumeration takes effect only when it is.
 */
import { expect } from "chai";
import type { SqlDatabase } from "../../src/db/sql";
import { openIndexerDatabase } from "../../src/indexer/database";
import { createTestDatabase } from "../helpers/postgres";
import { EquivalenceChain, chainDigest, devnetChain, mainnetChains } from "./equivalence/chain";
import { ChainFixture, readFixture } from "./equivalence/fixture";
import { Reader, Route, RouteKind, buildIndex, loadStack, routeKind, routeName } from "./equivalence/harness";
import path from "node:path";

const EXPECTED_COMMIT = "d320b92";
const EXPECTED_SCHEMA_VERSION = 7;

/** Floors on what the fixture holds, so that an enumeration that found nothing cannot pass. */
const MINIMUM_ROUTES: Record<"devnet" | "mainnet", Record<RouteKind, number>> = {
  devnet: { explorer: 1200, esplora: 1500, queries: 3000, history: 3000, attester: 3000 },
  mainnet: { explorer: 4000, esplora: 4000, queries: 12000, history: 3000, attester: 200 },
};

/** Route templates each answered 200 at least once somewhere in the fixture (every GET the explorer serves from the index). */
const TEMPLATES: [string, RegExp][] = [
  ["/api/status", /^\/api\/status$/],
  ["/api/tx/:txid", /^\/api\/tx\/[0-9a-f]{64}$/],
  ["/api/wallet/address/:address/balance", /^\/api\/wallet\/address\/\w+\/balance$/],
  ["/api/wallet/address/:address/utxos (cursor page)", /^\/api\/wallet\/address\/\w+\/utxos\?limit=2&cursor=/],
  ["/api/wallet/address/:address/drc20", /^\/api\/wallet\/address\/\w+\/drc20$/],
  ["/api/wallet/address/:address/drc20/:tick/utxos", /^\/api\/wallet\/address\/\w+\/drc20\/[^/]+\/utxos$/],
  ["/api/wallet/address/:address/transfer_inscriptions", /^\/api\/wallet\/address\/\w+\/transfer_inscriptions\?txid=/],
  ["/api/wallet/address/:address/history (cursor page)", /^\/api\/wallet\/address\/\w+\/history\?limit=2&cursor=/],
  ["/api/explorer/inscription/:id", /^\/api\/explorer\/inscription\/[0-9a-f]{64}i\d+$/],
  ["/api/explorer/inscription/:id/content", /^\/api\/explorer\/inscription\/[0-9a-f]{64}i\d+\/content$/],
  ["/api/explorer/zkp/status", /^\/api\/explorer\/zkp\/status$/],
  ["/api/explorer/zkp/recent", /^\/api\/explorer\/zkp\/recent/],
  ["/api/explorer/zkp/tx/:txid", /^\/api\/explorer\/zkp\/tx\//],
  ["/api/explorer/zkp/vk/:sha256 (cursor page)", /^\/api\/explorer\/zkp\/vk\/[0-9a-f]{64}\?limit=1&cursor=/],
  ["/api/explorer/opreturn/recent (cursor page)", /^\/api\/explorer\/opreturn\/recent\?limit=3&cursor=/],
  [
    "/api/explorer/opreturn/recent?magic (cursor page)",
    /^\/api\/explorer\/opreturn\/recent\?magic=\w+&limit=2&cursor=/,
  ],
  ["/api/explorer/opreturn/tx/:txid", /^\/api\/explorer\/opreturn\/tx\//],
  ["/api/explorer/opreturn/sha256/:hash", /^\/api\/explorer\/opreturn\/sha256\//],
  ["/esplora/api/address/:address", /^\/esplora\/api\/address\/\w+$/],
  ["/esplora/api/address/:address/utxo", /^\/esplora\/api\/address\/\w+\/utxo$/],
  ["/esplora/api/address/:address/txs", /^\/esplora\/api\/address\/\w+\/txs$/],
  ["/esplora/api/address/:address/txs?after_txid", /^\/esplora\/api\/address\/\w+\/txs\?after_txid=/],
  ["/esplora/api/address/:address/txs/chain", /^\/esplora\/api\/address\/\w+\/txs\/chain$/],
  [
    "/esplora/api/address/:address/txs/chain/:last_seen_txid",
    /^\/esplora\/api\/address\/\w+\/txs\/chain\/[0-9a-f]{64}$/,
  ],
  ["/esplora/api/address/:address/txs/mempool", /^\/esplora\/api\/address\/\w+\/txs\/mempool$/],
  ["/esplora/api/tx/:txid", /^\/esplora\/api\/tx\/[0-9a-f]{64}$/],
  ["/esplora/api/tx/:txid/status", /^\/esplora\/api\/tx\/[0-9a-f]{64}\/status$/],
  ["/esplora/api/tx/:txid/hex", /^\/esplora\/api\/tx\/[0-9a-f]{64}\/hex$/],
  ["/esplora/api/blocks/tip/height", /^\/esplora\/api\/blocks\/tip\/height$/],
  ["/esplora/api/blocks/tip/hash", /^\/esplora\/api\/blocks\/tip\/hash$/],
];

/**
 * Routes whose answer changed on purpose after the recording, each with why and where its new answer
 * is tested; they are still asked (a crash would show) but not compared with the fixture.
 */
const CHANGED_ON_PURPOSE: { http: RegExp; why: string }[] = [
  {
    http: /^\/esplora\/api\/address-prefix\//,
    why: "version 7 had no address search (400); version 8 answers from its addresses table (test/services/esplora-api.test.ts)",
  },
];
const changedOnPurpose = (route: Route) => "http" in route && CHANGED_ON_PURPOSE.some((c) => c.http.test(route.http));

/** The code under test: this checkout. */
const stack = loadStack(path.resolve(__dirname, "..", ".."));

/** HTTP status of a recorded HTTP answer. */
const statusOf = (answer: string) => Number(answer.slice(0, 3));

/** An answer for reading: JSON bodies and values indented (display only; the comparison is on the text). */
function readable(answer: string): string {
  const newline = answer.indexOf("\n");
  const [head, body] =
    newline >= 0 && /^\d{3} /.test(answer) ? [answer.slice(0, newline + 1), answer.slice(newline + 1)] : ["", answer];
  try {
    return head + JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return answer;
  }
}

/**
 * Builds `chain` into `db` with this checkout and asks every route of its fixture; fails on the
 * first differing answer with its route and a diff, counting all that differ.
 */
async function compareChain(chain: EquivalenceChain, fixture: ChainFixture, db: SqlDatabase): Promise<number> {
  expect(fixture.chainDigest, `chain ${chain.name} is not the chain the fixture was recorded on: re-record`).to.equal(
    chainDigest(chain),
  );
  let asked = 0;
  const differing: { route: Route; expected: string; actual: string }[] = [];
  await buildIndex(stack, chain, db, async (name) => {
    const answers = fixture.snapshots[name];
    expect(answers?.length ?? 0, `answers of snapshot ${name} of ${chain.name} in the fixture`).to.be.greaterThan(0);
    const reader = new Reader(stack, chain, db);
    await reader.start();
    try {
      // HTTP answers overlap in groups; the comparison keeps the fixture's order.
      for (let i = 0; i < answers.length; i += 16) {
        const group = answers.slice(i, i + 16);
        const actual = await Promise.all(group.map(([route]) => reader.answer(route)));
        group.forEach(([route, expected], j) => {
          if (actual[j].text !== expected && !changedOnPurpose(route))
            differing.push({ route, expected, actual: actual[j].text });
        });
        asked += group.length;
      }
    } finally {
      await reader.stop();
    }
  });
  if (differing.length > 0) {
    const first = differing[0];
    const [expected, actual] =
      readable(first.expected) !== readable(first.actual)
        ? [readable(first.expected), readable(first.actual)]
        : [first.expected, first.actual];
    expect(
      actual,
      `${differing.length} of ${asked} answers of ${chain.name} differ from version 7's; the first: ${routeName(first.route)}` +
        (differing.length > 1
          ? `; the next: ${differing
              .slice(1, 6)
              .map((d) => routeName(d.route))
              .join("; ")}`
          : ""),
    ).to.equal(expected);
  }
  return asked;
}

describe("index equivalence: every read answers as on the version-7 index of the same chain", function () {
  const fixtures = new Map<string, ChainFixture>();
  const fixtureOf = (name: string) => {
    if (!fixtures.has(name)) fixtures.set(name, readFixture(name));
    return fixtures.get(name)!;
  };

  describe("the version-7 fixture", () => {
    it(`was recorded with commit ${EXPECTED_COMMIT} at schema version ${EXPECTED_SCHEMA_VERSION}, over the chains this checkout generates`, async () => {
      for (const chain of [await devnetChain(), ...mainnetChains()]) {
        const fixture = fixtureOf(chain.name);
        expect(fixture.commit.startsWith(EXPECTED_COMMIT), `${chain.name} recorded with ${fixture.commit}`).to.equal(
          true,
        );
        expect(fixture.schemaVersion).to.equal(EXPECTED_SCHEMA_VERSION);
        expect(fixture.chainDigest, chain.name).to.equal(chainDigest(chain));
      }
    });

    it("holds at least the minimum count of routes of each kind and answers every route template", async () => {
      const counts = { devnet: {} as Record<string, number>, mainnet: {} as Record<string, number> };
      const answered = new Set<string>();
      for (const chain of [await devnetChain(), ...mainnetChains()]) {
        const group = chain.network === "regtest" ? counts.devnet : counts.mainnet;
        for (const answers of Object.values(fixtureOf(chain.name).snapshots))
          for (const [route, answer] of answers) {
            const kind = routeKind(route);
            group[kind] = (group[kind] ?? 0) + 1;
            if ("http" in route && statusOf(answer) === 200)
              for (const [template, pattern] of TEMPLATES) if (pattern.test(route.http)) answered.add(template);
          }
      }
      for (const group of ["devnet", "mainnet"] as const)
        for (const [kind, minimum] of Object.entries(MINIMUM_ROUTES[group]))
          expect(counts[group][kind] ?? 0, `${group} ${kind} routes`).to.be.at.least(minimum);
      expect(
        TEMPLATES.map(([template]) => template).filter((t) => !answered.has(t)),
        "templates never answered 200",
      ).to.deep.equal([]);
    });
  });

  for (const backend of ["sqlite", "postgres"] as const) {
    describe(`[${backend}]`, function () {
      this.timeout(600_000);
      const withIndex = async (body: (db: SqlDatabase) => Promise<void>) => {
        if (backend === "sqlite") {
          const db = openIndexerDatabase(":memory:");
          try {
            await body(db);
          } finally {
            db.close();
          }
          return;
        }
        const database = await createTestDatabase();
        try {
          const db = openIndexerDatabase(database.url);
          try {
            await body(db);
          } finally {
            db.close();
          }
        } finally {
          await database.drop();
        }
      };

      it("answers every read of the devnet chain, before and after its reorgs, as version 7 did", async () => {
        const chain = await devnetChain();
        let asked = 0;
        await withIndex(async (db) => {
          asked = await compareChain(chain, fixtureOf(chain.name), db);
        });
        expect(asked).to.be.greaterThan(0);
      });

      it("answers every read of the 20 real mainnet blocks as version 7 did", async () => {
        let asked = 0;
        for (const chain of mainnetChains())
          await withIndex(async (db) => {
            asked += await compareChain(chain, fixtureOf(chain.name), db);
          });
        expect(asked).to.be.greaterThan(0);
      });
    });
  }
});
