/**
 * One owner per table (STYLE.md 18; issue 26, item 8): in each service's own database, the module
 * that owns a table is the only one that runs SQL on it (besides the schema file that creates and
 * migrates it); everyone else calls the owner's functions. The index's tables have their own test
 * (test/indexer/index-readers.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { ROOT, repoPath, sourceFiles, sqlTablesIn, tablesCreatedIn } from "../helpers/sql-scan";

interface ServiceDatabase {
  name: string;
  /** The file whose CREATE TABLE statements make the database. */
  schema: string;
  /** Where code that opens this database lives (a table name of another database elsewhere is not this one). */
  scope: string[];
  /** Each table's owner module. */
  owners: Record<string, string>;
}

const AMM = "src/services/amm";
const LAUNCHPAD = "src/services/launchpad";
const DATABASES: ServiceDatabase[] = [
  {
    name: "AMM",
    schema: `${AMM}/schema.ts`,
    scope: [AMM, "daemons/amm", "scripts"],
    owners: {
      auth_nonces: `${AMM}/ledger.ts`,
      bonding_api_keys: `${AMM}/bonding-store.ts`,
      bonding_curves: `${AMM}/bonding-store.ts`,
      bonding_reservations: `${AMM}/bonding-store.ts`,
      deposit_announcements: `${AMM}/announcements.ts`,
      deposits: `${AMM}/deposits.ts`,
      fee_claims: `${AMM}/ledger.ts`,
      ledger: `${AMM}/ledger.ts`,
      liquidity_ops: `${AMM}/ledger.ts`,
      payouts: `${AMM}/settlement.ts`,
      pools: `${AMM}/ledger.ts`,
      positions: `${AMM}/ledger.ts`,
      quotes: `${AMM}/ledger.ts`,
      swaps: `${AMM}/ledger.ts`,
    },
  },
  {
    name: "launchpad",
    schema: `${LAUNCHPAD}/schema.ts`,
    scope: [LAUNCHPAD, "daemons/launchpad"],
    owners: {
      challenges: `${LAUNCHPAD}/sessions.ts`,
      used_challenges: `${LAUNCHPAD}/sessions.ts`,
      sessions: `${LAUNCHPAD}/sessions.ts`,
      collections: `${LAUNCHPAD}/collections.ts`,
      collection_items: `${LAUNCHPAD}/collections.ts`,
      reservations: `${LAUNCHPAD}/collections.ts`,
      mints: `${LAUNCHPAD}/mints.ts`,
      payments: `${LAUNCHPAD}/mints.ts`,
      payment_psbts: `${LAUNCHPAD}/payment.ts`,
    },
  },
  {
    name: "inscriber",
    schema: "src/services/inscriber/store.ts",
    scope: ["src/services/inscriber", "daemons/inscriber"],
    owners: { jobs: "src/services/inscriber/store.ts", prepares: "src/services/inscriber/user-signed.ts" },
  },
  {
    name: "relayer",
    schema: "src/relayer/store.ts",
    scope: ["src/relayer", "daemons/relayer"],
    owners: { jobs: "src/relayer/store.ts", l2_cursor: "src/relayer/store.ts" },
  },
  {
    name: "hot wallet",
    schema: "src/wallet/schema.ts",
    scope: ["src/wallet"],
    owners: {
      wallet_inputs: "src/wallet/store.ts",
      wallet_labels: "src/wallet/store.ts",
      wallet_outputs: "src/wallet/store.ts",
      wallet_txs: "src/wallet/store.ts",
    },
  },
];

describe("one owner per table in the services' own databases (issue 26, item 8)", () => {
  for (const database of DATABASES) {
    it(`gives every table of the ${database.name} database an owner, and only the owner runs SQL on it`, () => {
      const tables = tablesCreatedIn(fs.readFileSync(path.join(ROOT, database.schema), "utf8"));
      expect(tables.length, `${database.schema} creates tables`).to.be.greaterThan(0);
      expect(Object.keys(database.owners).sort(), `an owner for every table of ${database.schema}`).to.deep.equal(
        tables,
      );
      const offenders: string[] = [];
      for (const dir of database.scope) {
        const full = path.join(ROOT, dir);
        if (!fs.existsSync(full)) continue;
        for (const file of sourceFiles(full)) {
          const relative = repoPath(file);
          if (relative === database.schema) continue;
          for (const table of sqlTablesIn(fs.readFileSync(file, "utf8"), tables))
            if (database.owners[table] !== relative)
              offenders.push(`${relative}: ${table} (owned by ${database.owners[table]})`);
        }
      }
      expect(offenders, "call the owner's functions (add one there) instead of SQL of your own").to.deep.equal([]);
    });
  }
});
