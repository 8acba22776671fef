/**
 * What strangers' requests leave in the AMM's database goes away (issue 16: "nothing a stranger
 * sends makes a row per request that never goes away"): quotes write nothing, swaps that expired
 * without a deposit, unpaid expired bonding reservations and spent authorization nonces are pruned
 * once nothing can need them. Over an empty in-memory index (no deposit is ever involved).
 */
import { expect } from "chai";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NETWORKS, signMessage } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { openDatabase } from "../../src/db/sqlite";
import {
  AMM_MIGRATIONS,
  AMM_SCHEMA,
  AmmLedger,
  BondingStore,
  DEPOSIT_GRACE_SECONDS,
  DepositReader,
  EXPIRED_SWAP_KEEP_SECONDS,
  MAX_AUTHORIZATION_SECONDS,
  authorizationMessage,
  openAmmDatabase,
  reserveFields,
} from "../../src/services/amm";
import { newKey } from "../helpers/keys";

const DOGE = 100_000_000n;

/** An empty index whose height the test moves (the announcements' clearing waits for the index to move). */
class MovingIndex extends DepositReader {
  height = 100;
  indexedHeight(): number {
    return this.height;
  }
}

describe("AMM pruning", () => {
  let now = 1_800_000_000;
  const custody = newKey();
  const user = newKey();
  const queries = new IndexQueries(openIndexerDatabase(":memory:"));
  const db = openAmmDatabase(":memory:");
  const deposits = new MovingIndex(queries, custody.address);
  const ledger = new AmmLedger({
    db,
    network: NETWORKS.regtest,
    deposits,
    tickDeployed: (tick) => tick,
    clock: () => now,
  });
  const store = new BondingStore({ db, ledger, deposits, queries, clock: () => now });
  const rows = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

  before(async () => {
    ledger.seedPool({
      tick: "PUPS",
      doge: 1_000n * DOGE,
      token: 1_000_000n,
      provider: custody.address,
      refId: "prune-seed",
      holdings: { doge: 1_000n * DOGE, token: 1_000_000n },
    });
    await store.launch(
      {
        tick: "MOON",
        totalSupply: 1_000_000n,
        sellableSupply: 800_000n,
        virtualDoge: 100n * DOGE,
        graduationThreshold: 50n * DOGE,
      },
      store.issueApiKey("prune").id,
    );
    // The curve's supply deposits are not what this test is about: it is opened for trading directly.
    store.activateUnsupplied("MOON");
  });

  it("writes nothing for a quote", () => {
    const before = rows("quotes") + rows("swaps");
    for (let i = 0; i < 20; i++)
      ledger.quote({ tick: "PUPS", direction: "DOGE_TO_TOKEN", amountIn: DOGE, slippageBps: 50 });
    expect(rows("quotes") + rows("swaps")).to.equal(before);
  });

  it("drops a swap that expired without a deposit a day after its expiry, and keeps it until then", () => {
    const quote = ledger.quote({ tick: "PUPS", direction: "DOGE_TO_TOKEN", amountIn: DOGE, slippageBps: 50 });
    const { swap } = ledger.createSwap(quote.id, user.address);
    now = swap.expiresAt + 1;
    expect(ledger.retryPending().expired).to.equal(1);
    expect(ledger.prune().swaps).to.equal(0);
    expect(ledger.swap(swap.id)!.status).to.equal("expired");
    now = swap.expiresAt + EXPIRED_SWAP_KEEP_SECONDS + 1;
    expect(ledger.prune().swaps).to.equal(1);
    expect(ledger.swap(swap.id)).to.equal(null);
  });

  it("drops an authorization's nonce once no authorization using it can still be valid, and the old authorization stays refused", () => {
    const auth = { address: user.address, nonce: "prune-nonce-1", expiresAt: now + 600 };
    const signature = signMessage(authorizationMessage(ledger.domain, "claim-fees", {}, auth), user.privateKey);
    expect(() => ledger.claimFees({ ...auth, signature }))
      .to.throw()
      .with.property("code", "NOTHING_TO_CLAIM");
    // The refusal rolled back the whole claim, nonce included: a nonce is kept only with what it authorized.
    const reserveAuth = { address: user.address, nonce: "prune-nonce-2", expiresAt: now + 600 };
    const fields = reserveFields({ tick: "MOON", side: "BUY", amountIn: DOGE });
    const reserved = store.reserve({
      tick: "MOON",
      side: "BUY",
      address: user.address,
      amountIn: DOGE,
      auth: {
        ...reserveAuth,
        signature: signMessage(
          authorizationMessage(ledger.domain, "bonding-reserve", fields, reserveAuth),
          user.privateKey,
        ),
      },
    });
    expect(rows("auth_nonces")).to.equal(1);
    expect(ledger.prune().nonces).to.equal(0);
    now += MAX_AUTHORIZATION_SECONDS + 61;
    expect(ledger.prune().nonces).to.equal(1);
    expect(rows("auth_nonces")).to.equal(0);
    expect(() =>
      store.reserve({
        tick: "MOON",
        side: "BUY",
        address: user.address,
        amountIn: DOGE,
        auth: {
          ...reserveAuth,
          signature: signMessage(
            authorizationMessage(ledger.domain, "bonding-reserve", fields, reserveAuth),
            user.privateKey,
          ),
        },
      }),
    )
      .to.throw()
      .with.property("code", "AUTHORIZATION_EXPIRED");
    expect(store.reservation(reserved.id)!.status).to.equal("expired");
  });

  it("drops a bonding reservation that expired unpaid and unannounced a day later", async () => {
    const [row] = db.prepare("SELECT id, expires_at FROM bonding_reservations").all() as {
      id: string;
      expires_at: number;
    }[];
    await store.runOnce();
    expect(store.reservation(row.id)).to.not.equal(null);
    now = row.expires_at + 86_400 + 1;
    await store.runOnce();
    expect(store.reservation(row.id)).to.equal(null);
    expect(rows("bonding_reservations")).to.equal(0);
  });

  it("clears a deposit announced and never indexed once the grace period is over and the index has moved, then drops its swap and reservation a day after they expired", async () => {
    const announcer = newKey();
    const quote = ledger.quote({ tick: "PUPS", direction: "DOGE_TO_TOKEN", amountIn: DOGE, slippageBps: 50 });
    const { swap } = ledger.createSwap(quote.id, announcer.address);
    const swapTxid = crypto.randomBytes(32).toString("hex");
    expect(
      ledger.executeSwap(
        swap.id,
        swapTxid,
        signMessage(ledger.executeSwapMessage(swap.id, swapTxid), announcer.privateKey),
        "192.0.2.1",
      ).outcome,
    ).to.equal("pending");
    const auth = { address: announcer.address, nonce: "prune-announced-1", expiresAt: now + 600 };
    const reservation = store.reserve({
      tick: "MOON",
      side: "BUY",
      address: announcer.address,
      amountIn: DOGE,
      auth: {
        ...auth,
        signature: signMessage(
          authorizationMessage(
            ledger.domain,
            "bonding-reserve",
            reserveFields({ tick: "MOON", side: "BUY", amountIn: DOGE }),
            auth,
          ),
          announcer.privateKey,
        ),
      },
    });
    const paymentTxid = crypto.randomBytes(32).toString("hex");
    expect(
      store.confirm(
        reservation.id,
        paymentTxid,
        signMessage(store.confirmMessage(reservation.id, paymentTxid), announcer.privateKey),
        "192.0.2.1",
      ).outcome,
    ).to.equal("pending");
    expect(ledger.announcements.count()).to.equal(2);

    // Past the grace period, but the index has not indexed a block since: nothing is cleared.
    now = Math.max(swap.expiresAt, reservation.expiresAt) + DEPOSIT_GRACE_SECONDS + 1;
    const stopped = ledger.retryPending();
    expect([stopped.checked, stopped.cleared]).to.deep.equal([1, 0]);
    expect((await store.runOnce()).cleared).to.equal(0);
    expect(ledger.swap(swap.id)).to.include({ status: "deposit_seen", depositTxid: swapTxid });
    expect(store.reservation(reservation.id)!.pendingTxid).to.equal(paymentTxid);

    // The index moves: at their next check both are cleared, and the orders are expired unpaid.
    deposits.height += 1;
    now += 64;
    expect(ledger.retryPending()).to.include({ checked: 1, cleared: 1, expired: 1 });
    expect((await store.runOnce()).cleared).to.equal(1);
    expect(ledger.announcements.count()).to.equal(0);
    expect(ledger.swap(swap.id)).to.include({ status: "expired", depositTxid: null });
    expect(ledger.swap(swap.id)!.error!.code).to.equal("DEPOSIT_NOT_SEEN");
    expect(store.reservation(reservation.id)).to.include({ status: "expired", pendingTxid: null, depositTxid: null });
    // Until a day after their expiry they stay, as any unpaid order does; then they are gone.
    ledger.prune();
    await store.runOnce();
    expect(ledger.swap(swap.id)).to.not.equal(null);
    now = Math.max(swap.expiresAt, reservation.expiresAt) + EXPIRED_SWAP_KEEP_SECONDS + 1;
    expect(ledger.prune().swaps).to.equal(1);
    await store.runOnce();
    expect(ledger.swap(swap.id)).to.equal(null);
    expect(store.reservation(reservation.id)).to.equal(null);
  });

  it("moves the pending announcements of a database before version 7 into the table, and lets the expired swaps forget their unseen txid", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "amm-prune-")), "amm.sqlite");
    const before = AMM_MIGRATIONS.filter((m) => m.version < 7);
    const old = openDatabase(file, before, AMM_SCHEMA);
    const swap = (id: string, status: string, txid: string | null) =>
      old
        .prepare(
          `INSERT INTO swaps (id, quote_id, tick_key, direction, address, amount_in, quoted_out, min_amount_out, deposit_address, status,
          deposit_txid, created_at, expires_at, updated_at) VALUES (?, ?, 'pups', 'DOGE_TO_TOKEN', ?, '1', '1', '1', ?, ?, ?, 100, 700, 200)`,
        )
        .run(id, `qt_${id}`, user.address, custody.address, status, txid);
    swap("swp_pending", "deposit_seen", "aa".repeat(32));
    swap("swp_expired", "expired", "bb".repeat(32));
    swap("swp_executed", "executed", "cc".repeat(32));
    old
      .prepare(
        `INSERT INTO bonding_reservations (id, tick_key, side, address, amount_in, reserved_out, fee, status, pending_txid, created_at, expires_at, updated_at)
        VALUES ('rsv_pending', 'moon', 'BUY', ?, '1', '1', '0', 'expired', ?, 100, 400, 300)`,
      )
      .run(user.address, "dd".repeat(32));
    old.close();
    const migrated = openAmmDatabase(file);
    expect(
      migrated
        .prepare(
          "SELECT ref_id, kind, txid, client, clear_at, next_check_at FROM deposit_announcements ORDER BY ref_id",
        )
        .all(),
    ).to.deep.equal([
      {
        ref_id: "rsv_pending",
        kind: "bonding",
        txid: "dd".repeat(32),
        client: null,
        clear_at: 400 + 3600,
        next_check_at: 0,
      },
      {
        ref_id: "swp_pending",
        kind: "swap",
        txid: "aa".repeat(32),
        client: null,
        clear_at: 700 + 3600,
        next_check_at: 0,
      },
    ]);
    expect(migrated.prepare("SELECT id, deposit_txid FROM swaps ORDER BY id").all()).to.deep.equal([
      { id: "swp_executed", deposit_txid: "cc".repeat(32) },
      { id: "swp_expired", deposit_txid: null },
      { id: "swp_pending", deposit_txid: "aa".repeat(32) },
    ]);
    migrated.close();
  });
});
