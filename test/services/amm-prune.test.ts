/**
 * What strangers' requests leave in the AMM's database goes away (issue 16: "nothing a stranger
 * sends makes a row per request that never goes away"): quotes write nothing, swaps that expired
 * without a deposit, unpaid expired bonding reservations and spent authorization nonces are pruned
 * once nothing can need them. Over an empty in-memory index (no deposit is ever involved).
 */
import { expect } from "chai";
import { NETWORKS, signMessage } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import {
  AmmLedger,
  BondingStore,
  DepositReader,
  EXPIRED_SWAP_KEEP_SECONDS,
  MAX_AUTHORIZATION_SECONDS,
  authorizationMessage,
  openAmmDatabase,
  reserveFields,
} from "../../src/services/amm";
import { InscriberCallError } from "../../src/services/inscriber/client";
import type { InscriberClient } from "../../src/services/inscriber/client";
import { inscriberJob } from "../helpers/inscriber-job";
import { newKey } from "../helpers/keys";

const DOGE = 100_000_000n;

describe("AMM pruning", () => {
  let now = 1_800_000_000;
  const custody = newKey();
  const user = newKey();
  const queries = new IndexQueries(openIndexerDatabase(":memory:"));
  const db = openAmmDatabase(":memory:");
  const deposits = new DepositReader(queries, custody.address);
  const ledger = new AmmLedger({
    db,
    network: NETWORKS.regtest,
    deposits,
    tickDeployed: (tick) => tick,
    clock: () => now,
  });
  const inscriber: Pick<InscriberClient, "inscribe" | "job"> = {
    inscribe: async () => ({ job: inscriberJob({ id: "job_prune" }), created: true }),
    job: async (id) => {
      throw new InscriberCallError(404, "JOB_NOT_FOUND", `no job ${id}`);
    },
  };
  const store = new BondingStore({ db, ledger, deposits, queries, inscriber, clock: () => now });
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
    // The curve's launch inscriptions are not what this test is about: it is made tradable directly.
    db.prepare("UPDATE bonding_curves SET status = 'active' WHERE tick_key = 'moon'").run();
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
});
