/**
 * Announced deposits that never appear (issue 26, item 6), tried as an attacker would: a free key
 * announces a made-up deposit txid for its own swap (POST /api/swap/execute, signed) or bonding
 * reservation (POST /api/bonding/confirm, signed) and gets 202 `pending`. Before the fix those rows
 * stayed forever (pruning skipped rows with a `deposit_txid` / `pending_txid`), nothing capped how
 * many one address or one client could hold, and every pass re-read each of them from the index.
 *
 * The AMM app (with the bonding routes) is served over HTTP with an injected clock; the index is a
 * stand-in (a made-up txid appears in no chain, so a devnet adds nothing here): it holds the
 * deposits a test "mines", advances a block a minute with the clock, and counts the reads the
 * custody makes of it. Behind a trusted loopback proxy, `X-Forwarded-For` names the client.
 */
import { expect } from "chai";
import crypto from "node:crypto";
import type { Server } from "node:http";
import { NETWORKS, signMessage } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import {
  AmmLedger,
  BondingStore,
  DEPOSIT_GRACE_SECONDS,
  DepositReader,
  DogeDeposit,
  authorizationMessage,
  createAmmApp,
  mountBonding,
  openAmmDatabase,
  reserveFields,
} from "../../src/services/amm";
import { TestKey, newKey } from "../helpers/keys";

const DOGE = 100_000_000n;
const T0 = 1_800_000_000;
const DAY = 86_400;

/** The index as the custody reads it: deposits the test mined, a block a minute, every read counted. */
class IndexStandIn extends DepositReader {
  readonly mined = new Map<string, DogeDeposit>();
  reads = 0;
  constructor(
    custody: string,
    private readonly clock: { now: number },
  ) {
    super(new IndexQueries(openIndexerDatabase(":memory:")), custody);
  }
  indexedHeight(): number {
    return 100 + Math.floor((this.clock.now - T0) / 60);
  }
  read(asset: "DOGE" | "DRC20", txid: string): DogeDeposit | null {
    this.reads += 1;
    if (asset !== "DOGE") return null;
    const deposit = this.mined.get(txid);
    return deposit ? { ...deposit, confirmations: this.indexedHeight() - deposit.height + 1 } : null;
  }
  /** `payer` pays `amount` koinu to the custody in a block at the current height. */
  mine(txid: string, payer: string, amount: bigint): void {
    const height = this.indexedHeight();
    this.mined.set(txid, {
      txid,
      height,
      blockTime: this.clock.now,
      confirmations: 1,
      amount,
      payer,
      serviceFunded: false,
      unspendable: [],
    });
  }
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

const madeUpTxid = () => crypto.randomBytes(32).toString("hex");

/** The AMM with bonding over HTTP, its clock, its index stand-in and its database. */
async function startAmm(ledgerLimits: Record<string, number> = {}) {
  const clock = { now: T0 };
  const custody = newKey();
  const deposits = new IndexStandIn(custody.address, clock);
  const db = openAmmDatabase(":memory:");
  const ledger = new AmmLedger({
    db,
    network: NETWORKS.regtest,
    deposits,
    tickDeployed: (tick) => tick,
    clock: () => clock.now,
    // Limits of the fix (unknown before it), spread so that the file compiles against both.
    ...ledgerLimits,
  });
  const store = new BondingStore({
    db,
    ledger,
    deposits,
    queries: new IndexQueries(openIndexerDatabase(":memory:")),
    clock: () => clock.now,
  });
  ledger.seedPool({
    tick: "PUPS",
    doge: 1_000n * DOGE,
    token: 1_000_000n,
    provider: custody.address,
    refId: "announcements-seed",
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
    store.issueApiKey("announcements").id,
  );
  // The curve's supply deposits are not what these tests are about: it is opened for trading directly.
  store.activateUnsupplied("MOON");
  const app = createAmmApp({
    ledger,
    network: NETWORKS.regtest,
    rateLimit: 0,
    mount: (root) => mountBonding(root, { store, ledger, network: NETWORKS.regtest }),
  });
  app.set("trust proxy", "loopback");
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;
  let nonce = 0;

  const call = async (method: string, p: string, body?: unknown, client?: string): Promise<Answer> => {
    const response = await fetch(`${base}${p}`, {
      method,
      headers: {
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...(client ? { "X-Forwarded-For": client } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };

  /** `key` makes a 1-DOGE swap over HTTP; answers its id. */
  const createSwap = async (key: TestKey, client?: string): Promise<string> => {
    const quote = await call(
      "POST",
      "/swap/quote",
      { tick: "PUPS", direction: "DOGE_TO_TOKEN", amountIn: DOGE.toString(), slippageBps: 50 },
      client,
    );
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    const created = await call("POST", "/swap/create", { quoteId: quote.body.quoteId, address: key.address }, client);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.swapId;
  };
  /** `key` announces `txid` (default: made up) as its swap's deposit, signed. */
  const announceSwap = async (key: TestKey, swapId: string, txid = madeUpTxid(), client?: string) => {
    const signature = signMessage(ledger.executeSwapMessage(swapId, txid), key.privateKey);
    return call("POST", "/swap/execute", { swapId, depositTxid: txid, signature }, client);
  };
  /** `key` reserves a 0.1-DOGE buy of MOON over HTTP (signed); answers its id. */
  const reserve = async (key: TestKey, client?: string): Promise<string> => {
    const amountIn = DOGE / 10n;
    const auth = { address: key.address, nonce: `announce-${++nonce}`, expiresAt: clock.now + 600 };
    const signature = signMessage(
      authorizationMessage(
        ledger.domain,
        "bonding-reserve",
        reserveFields({ tick: "MOON", side: "BUY", amountIn }),
        auth,
      ),
      key.privateKey,
    );
    const reserved = await call(
      "POST",
      "/bonding/MOON/reserve",
      { side: "BUY", amountIn: amountIn.toString(), ...auth, signature },
      client,
    );
    expect(reserved.status, JSON.stringify(reserved.body)).to.equal(201);
    return reserved.body.reservationId;
  };
  /** `key` announces `txid` (default: made up) as its reservation's payment, signed. */
  const announceConfirm = async (key: TestKey, reservationId: string, txid = madeUpTxid(), client?: string) => {
    const signature = signMessage(store.confirmMessage(reservationId, txid), key.privateKey);
    return call("POST", "/bonding/confirm", { reservationId, depositTxid: txid, signature }, client);
  };
  /** The daemon's pending pass (daemons/amm/main.ts): swaps, pruning, then the bonding pass. */
  const pass = async () => {
    const swaps = ledger.retryPending();
    ledger.prune();
    const bonding = await store.runOnce();
    return { swaps, bonding };
  };
  const rows = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

  return {
    clock,
    deposits,
    db,
    ledger,
    store,
    call,
    createSwap,
    announceSwap,
    reserve,
    announceConfirm,
    pass,
    rows,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Amm = Awaited<ReturnType<typeof startAmm>>;

describe("adversarial: announced deposits that never appear (issue 26, item 6)", function () {
  this.timeout(300_000);
  const started: Amm[] = [];
  const start = async (limits: Record<string, number> = {}) => {
    const amm = await startAmm(limits);
    started.push(amm);
    return amm;
  };
  after(async () => {
    for (const amm of started) await amm.close();
  });

  it("clears made-up announcements after the grace period and deletes their swaps and reservations like unpaid ones", async () => {
    const amm = await start();
    const attackers = [newKey(), newKey(), newKey()];
    const swaps: string[] = [];
    const reservations: string[] = [];
    for (const key of attackers) {
      const swapId = await amm.createSwap(key);
      const announced = await amm.announceSwap(key, swapId);
      expect([announced.status, announced.body.status]).to.deep.equal([202, "deposit_seen"]);
      swaps.push(swapId);
      const reservationId = await amm.reserve(key);
      const confirmed = await amm.announceConfirm(key, reservationId);
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(202);
      expect(confirmed.body.pendingTxid).to.be.a("string");
      reservations.push(reservationId);
    }

    // The daemon's pass, every ten minutes of simulated time for the grace period and a while more.
    const graceEnd = T0 + 600 + DEPOSIT_GRACE_SECONDS;
    while (amm.clock.now < graceEnd + 1_200) {
      amm.clock.now += 600;
      await amm.pass();
    }
    // The index never showed them: the announcements are cleared, the orders are expired unpaid.
    for (const swapId of swaps) {
      const swap = await amm.call("GET", `/swap/status/${swapId}`);
      expect(swap.status).to.equal(200);
      expect([swap.body.status, swap.body.depositTxid, swap.body.error?.code]).to.deep.equal([
        "expired",
        null,
        "DEPOSIT_NOT_SEEN",
      ]);
    }
    for (const reservationId of reservations) {
      const reservation = await amm.call("GET", `/bonding/reservations/${reservationId}`);
      expect(reservation.status).to.equal(200);
      expect([reservation.body.status, reservation.body.pendingTxid, reservation.body.depositTxid]).to.deep.equal([
        "expired",
        null,
        null,
      ]);
    }

    // A year later nothing of theirs is left.
    for (let day = 0; day < 365; day += 30) {
      amm.clock.now += 30 * DAY;
      await amm.pass();
    }
    for (const swapId of swaps) expect((await amm.call("GET", `/swap/status/${swapId}`)).status).to.equal(404);
    for (const reservationId of reservations)
      expect((await amm.call("GET", `/bonding/reservations/${reservationId}`)).status).to.equal(404);
    expect(amm.rows("swaps")).to.equal(0);
    expect(amm.rows("bonding_reservations")).to.equal(0);
  });

  it("caps the live pending announcements of one address and of one client (429 TOO_MANY_PENDING with Retry-After)", async () => {
    const amm = await start();
    // One address: three pending announcements, swaps and reservations together.
    const hoarder = newKey();
    for (let i = 0; i < 2; i++) {
      const answer = await amm.announceSwap(hoarder, await amm.createSwap(hoarder));
      expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
    }
    const third = await amm.announceConfirm(hoarder, await amm.reserve(hoarder));
    expect(third.status, JSON.stringify(third.body)).to.equal(202);
    const fourthSwap = await amm.createSwap(hoarder);
    const fourth = await amm.announceSwap(hoarder, fourthSwap);
    expect([fourth.status, fourth.body.error?.code, fourth.body.error?.details?.scope]).to.deep.equal([
      429,
      "TOO_MANY_PENDING",
      "address",
    ]);
    expect(Number(fourth.headers.get("retry-after"))).to.be.at.least(1);
    const fourthConfirm = await amm.announceConfirm(hoarder, await amm.reserve(hoarder));
    expect([fourthConfirm.status, fourthConfirm.body.error?.code]).to.deep.equal([429, "TOO_MANY_PENDING"]);
    // The refused announcement left nothing: the swap is still only created.
    expect((await amm.call("GET", `/swap/status/${fourthSwap}`)).body).to.include({
      status: "created",
      depositTxid: null,
    });

    // One client: twenty pending announcements over many addresses, then no more from it.
    const client = "203.0.113.7";
    let accepted = 0;
    let refused: Answer | null = null;
    for (let k = 0; k < 7 && refused === null; k++) {
      const key = newKey();
      for (let i = 0; i < 3 && refused === null; i++) {
        const answer = await amm.announceSwap(key, await amm.createSwap(key, client), undefined, client);
        if (answer.status === 202) accepted += 1;
        else refused = answer;
      }
    }
    expect(accepted).to.equal(20);
    expect(refused, "the 21st announcement of one client").to.not.equal(null);
    expect([refused!.status, refused!.body.error.code, refused!.body.error.details.scope]).to.deep.equal([
      429,
      "TOO_MANY_PENDING",
      "client",
    ]);
    expect(Number(refused!.headers.get("retry-after"))).to.be.at.least(1);
    // Another client is not refused for it.
    const other = newKey();
    const otherAnswer = await amm.announceSwap(other, await amm.createSwap(other), undefined, "198.51.100.9");
    expect(otherAnswer.status, JSON.stringify(otherAnswer.body)).to.equal(202);
  });

  it("reads from the index only the pending announcements that are due, at most the per-pass limit", async () => {
    const amm = await start({ pendingChecksPerPass: 50 });
    const n = 150;
    for (let i = 0; i < n; i++) {
      const key = newKey();
      const swapId = amm.ledger.createSwap(
        amm.ledger.quote({ tick: "PUPS", direction: "DOGE_TO_TOKEN", amountIn: DOGE, slippageBps: 50 }).id,
        key.address,
      ).swap.id;
      const txid = madeUpTxid();
      amm.ledger.executeSwap(swapId, txid, signMessage(amm.ledger.executeSwapMessage(swapId, txid), key.privateKey));
      const amountIn = DOGE / 10n;
      const auth = { address: key.address, nonce: `due-${i}`, expiresAt: amm.clock.now + 600 };
      const reservation = amm.store.reserve({
        tick: "MOON",
        side: "BUY",
        address: key.address,
        amountIn,
        auth: {
          ...auth,
          signature: signMessage(
            authorizationMessage(
              amm.ledger.domain,
              "bonding-reserve",
              reserveFields({ tick: "MOON", side: "BUY", amountIn }),
              auth,
            ),
            key.privateKey,
          ),
        },
      });
      const confirmTxid = madeUpTxid();
      amm.store.confirm(
        reservation.id,
        confirmTxid,
        signMessage(amm.store.confirmMessage(reservation.id, confirmTxid), key.privateKey),
      );
    }
    expect(amm.db.prepare("SELECT COUNT(*) AS n FROM swaps WHERE status = 'deposit_seen'").get()).to.deep.equal({ n });
    // Passes until every announcement had its first check (each pass takes at most its limit per kind).
    for (let i = 0; i < n / 50; i++) await amm.pass();
    // Checked a moment ago, so none is due: a pass over all of them reads nothing from the index.
    let reads = amm.deposits.reads;
    const idle = await amm.pass();
    expect(amm.deposits.reads - reads, "index reads of a pass with nothing due").to.equal(0);
    expect([idle.swaps.checked, idle.bonding.checked]).to.deep.equal([0, 0]);
    amm.clock.now += 1;
    reads = amm.deposits.reads;
    await amm.pass();
    expect(amm.deposits.reads - reads, "index reads one second later").to.equal(0);
    // Once they are due, a pass reads at most its limit of each kind, and says how many it checked.
    amm.clock.now += 600;
    reads = amm.deposits.reads;
    const due = await amm.pass();
    expect([due.swaps.checked, due.bonding.checked]).to.deep.equal([50, 50]);
    expect(amm.deposits.reads - reads).to.equal(100);
  });

  it("still executes an honest deposit announced before it is mined, and keeps one that is seen but not deep at the end of the grace period", async () => {
    const amm = await start();
    const honest = newKey();
    const swapId = await amm.createSwap(honest);
    const txid = madeUpTxid();
    expect((await amm.announceSwap(honest, swapId, txid)).status).to.equal(202);
    amm.clock.now += 60;
    amm.deposits.mine(txid, honest.address, DOGE);
    amm.clock.now += 2;
    // Checked by the passes within a minute of being mined, at the back-off's pace.
    for (let i = 0; i < 30 && (await amm.call("GET", `/swap/status/${swapId}`)).body.status !== "executed"; i++) {
      amm.clock.now += 2;
      await amm.pass();
    }
    expect((await amm.call("GET", `/swap/status/${swapId}`)).body.status).to.equal("executed");

    // A reservation paid by a deposit that is in the index but not deep enough when the grace ends.
    const buyer = newKey();
    const reservationId = await amm.reserve(buyer);
    const payment = madeUpTxid();
    expect((await amm.announceConfirm(buyer, reservationId, payment)).status).to.equal(202);
    const shallow = amm.deposits;
    // Mined, then held at one confirmation (the index stand-in's height stops for it).
    shallow.mine(payment, buyer.address, DOGE / 10n);
    const deposit = shallow.mined.get(payment)!;
    amm.clock.now += 600 + DEPOSIT_GRACE_SECONDS + 60;
    shallow.mined.set(payment, { ...deposit, height: shallow.indexedHeight() + 1_000 });
    await amm.pass();
    const seen = (await amm.call("GET", `/bonding/reservations/${reservationId}`)).body;
    expect([seen.pendingTxid, seen.depositTxid]).to.deep.equal([payment, null]);
    // Deep now: the pass confirms it (it was paid in time) .
    shallow.mined.set(payment, deposit);
    amm.clock.now += 120;
    await amm.pass();
    const paid = (await amm.call("GET", `/bonding/reservations/${reservationId}`)).body;
    expect([paid.status, paid.depositTxid]).to.deep.equal(["confirmed", payment]);
  });
});
