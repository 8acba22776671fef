/**
 * Issues (or revokes) an operator API key for bonding launches (POST /api/bonding/launch) in the
 * AMM's database; only the key's SHA-256 is stored, so the key is printed once, here.
 *
 *   npx dogeos bonding-key --db data/amm/amm.sqlite --label "launch desk"
 *   npx dogeos bonding-key --db data/amm/amm.sqlite --revoke bkey_...
 *   (or node --import tsx scripts/amm-bonding-key.ts with the same options)
 *
 * Safe beside a running AMM daemon (SQLite WAL; the key is one row). `--help` lists the options.
 */
import { loadDaemonConfig } from "../src/config/load";
import { BondingApiKeys, openAmmDatabase } from "../src/services/amm";

export const SPEC = {
  db: { kind: "string", env: "AMM_DB", required: true, description: "the AMM's SQLite database (its --db)" },
  label: { kind: "string", default: "operator", description: "who the new key is for (stored beside its hash)" },
  revoke: { kind: "string", description: "revoke this key id (bkey_...) instead of issuing a key" },
} as const;

export const HELP = {
  summary: 'Issues an operator key for bonding launches and prints {"id","key"} once, or revokes one with --revoke.',
};

/** Runs the task with `argv`; returns the exit status. */
export function run(argv: string[], name = "dogeos bonding-key"): number {
  const config = loadDaemonConfig(name, SPEC, undefined, HELP, argv);
  const db = openAmmDatabase(config.db);
  try {
    const keys = new BondingApiKeys(db);
    if (config.revoke) {
      process.stdout.write(
        keys.revoke(config.revoke) ? `revoked ${config.revoke}\n` : `no live key ${config.revoke}\n`,
      );
    } else {
      const { id, key } = keys.issue(config.label);
      process.stdout.write(`${JSON.stringify({ id, key })}\n`);
    }
    return 0;
  } finally {
    db.close();
  }
}

if (require.main === module) process.exitCode = run(process.argv.slice(2), "amm-bonding-key");
