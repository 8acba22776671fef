/**
 * Issues (or revokes) an operator API key for bonding launches (POST /api/bonding/launch) in the
 * AMM's database; only the key's SHA-256 is stored, so the key is printed once, here.
 *
 *   node --import tsx scripts/amm-bonding-key.ts --db data/amm/amm.sqlite --label "launch desk"
 *   node --import tsx scripts/amm-bonding-key.ts --db data/amm/amm.sqlite --revoke bkey_...
 *
 * Safe beside a running AMM daemon (SQLite WAL; the key is one row).
 */
import { BondingApiKeys, openAmmDatabase } from "../src/services/amm";

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const file = flag("db");
if (!file) {
  process.stderr.write("usage: amm-bonding-key.ts --db <amm.sqlite> (--label <text> | --revoke <key id>)\n");
  process.exit(2);
}
const db = openAmmDatabase(file);
const keys = new BondingApiKeys(db);
const revoke = flag("revoke");
if (revoke) {
  process.stdout.write(keys.revoke(revoke) ? `revoked ${revoke}\n` : `no live key ${revoke}\n`);
} else {
  const { id, key } = keys.issue(flag("label") ?? "operator");
  process.stdout.write(`${JSON.stringify({ id, key })}\n`);
}
db.close();
