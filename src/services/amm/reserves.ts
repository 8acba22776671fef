/**
 * Proof of reserves (issue 26, item 7): what the custody holds against what it owes, per asset,
 * checked on every pass and published (`GET /api/reserves`), so that anyone can see the custody is
 * whole and the settlement worker stops paying out an asset the moment it is not.
 *
 * Holdings:
 * - DOGE: what the hot wallet can spend by its own view (src/wallet/spendable.ts: its P2PKH
 *   outputs without inscriptions, mature; its own unconfirmed change), never the address's balance
 *   in the index, which also counts outputs the custody cannot spend;
 * - each tick: the custody's DRC-20 balance in the index, available plus transferable (the
 *   transferable part is the custody's own payouts being inscribed, or a stranger's transfer
 *   inscription the settlement worker reclaims by sending it to itself).
 * Obligations:
 * - DOGE: every pool's DOGE reserve and its providers' unclaimed fees, the DOGE of bonding curves
 *   not yet in a pool, and DOGE payouts not sent yet;
 * - each tick: its pool's token reserve, its bonding curve's unsold and graduation tokens (or the
 *   supply a launch is still gathering), and its DRC-20 payouts not sent yet.
 * The operator's own money (the float for network fees, bonding fees, payout costs charged to
 * orders) is the surplus.
 */
import { Gauge, Registry } from "prom-client";
import type { IndexQueries } from "../../indexer/queries";
import { drc20TickKey } from "../../inscription/drc20";
import type { Sqlite } from "../../db/sqlite";
import type { AmmLedger } from "./ledger";
import type { BondingStore, CurveStatus } from "./bonding-store";
import { stuckPayoutCounts, unsentPayoutTotals } from "./settlement";

/** One asset's holdings against its obligations, in base units (koinu, or whole DRC-20 units). */
export interface ReserveLine {
  asset: "DOGE" | "DRC20";
  /** The DRC-20 tick (null for DOGE). */
  tick: string | null;
  holdings: bigint;
  /** What is owed, by kind: pools (reserves and, for DOGE, unclaimed fees), bonding curves, unsent payouts. */
  owed: { pools: bigint; bonding: bigint; payouts: bigint };
  obligations: bigint;
  /** obligations - holdings when positive, else 0. */
  shortfall: bigint;
}

export interface ReservesReport {
  custodyAddress: string;
  /** The index height the holdings and the deposits behind the obligations were read at. */
  indexedHeight: number;
  checkedAt: number;
  /** True when every asset is covered. */
  whole: boolean;
  assets: ReserveLine[];
  /** Payouts an operator must look at: failed ones, and open ones whose last try found no funds. */
  stuckPayouts: { failed: number; insufficientFunds: number };
}

export interface CustodyReservesOptions {
  db: Sqlite;
  ledger: AmmLedger;
  /** The bonding curves sharing the custody, when mounted. */
  bonding?: BondingStore;
  queries: IndexQueries;
  /** The custody's hot wallet: its spendable DOGE (confirmed and its own unconfirmed change). */
  wallet: { address: string; balance(): { confirmedKoinu: bigint; unconfirmedKoinu: bigint } };
  clock?: () => number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

const CURVE_STATUSES_OWING: readonly CurveStatus[] = ["awaiting_supply", "active", "graduated"];

export class CustodyReserves {
  private last: ReservesReport | null = null;
  private previous: ReservesReport | null = null;
  private readonly clock: () => number;
  private readonly log: (event: string, fields: Record<string, unknown>) => void;

  constructor(private readonly options: CustodyReservesOptions) {
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.log = options.log ?? (() => {});
  }

  /** Holdings against obligations now (reads the index, the ledger and the wallet's last sync). */
  compute(): ReservesReport {
    const { queries, ledger, bonding, wallet } = this.options;
    const indexedHeight = queries.status().indexedHeight;
    const doge = { pools: 0n, bonding: 0n, payouts: 0n };
    const tokens = new Map<string, { tick: string; pools: bigint; bonding: bigint; payouts: bigint }>();
    const tokenLine = (tick: string) => {
      const key = drc20TickKey(tick);
      let line = tokens.get(key);
      if (!line) {
        line = { tick, pools: 0n, bonding: 0n, payouts: 0n };
        tokens.set(key, line);
      }
      return line;
    };

    for (const owed of ledger.poolsOwed()) {
      doge.pools += owed.doge;
      tokenLine(owed.tick).pools += owed.token;
    }
    for (const status of bonding ? CURVE_STATUSES_OWING : []) {
      for (const curve of bonding!.curves(status)) {
        if (curve.poolSeededAt !== null) continue; // its pool's reserves are owed instead
        const line = tokenLine(curve.tick);
        if (curve.status === "active") {
          doge.bonding += curve.state.realDoge;
          line.bonding += curve.state.realToken + (curve.state.totalSupply - curve.state.sellableSupply);
        } else if (curve.status === "graduated") {
          doge.bonding += curve.poolDoge ?? curve.state.realDoge;
          line.bonding += curve.poolToken ?? 0n;
        } else {
          // A launch gathering its supply owes what its launcher deposited (the curve's, or the launcher's back).
          line.bonding += curve.supplyDeposited;
        }
      }
    }
    const unsent = unsentPayoutTotals(this.options.db);
    doge.payouts += unsent.doge;
    for (const { tick, amount } of unsent.tokens.values()) tokenLine(tick).payouts += amount;

    const balance = wallet.balance();
    const assets: ReserveLine[] = [line("DOGE", null, balance.confirmedKoinu + balance.unconfirmedKoinu, doge)];
    for (const [key, owed] of [...tokens.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const held = queries.drc20Balance(wallet.address, key);
      assets.push(line("DRC20", owed.tick, held.available + held.transferable, owed));
    }
    return {
      custodyAddress: wallet.address,
      indexedHeight,
      checkedAt: this.clock(),
      whole: assets.every((a) => a.shortfall === 0n),
      assets,
      stuckPayouts: stuckPayoutCounts(this.options.db),
    };
  }

  /** The daemon's pass: computes the report, keeps it for the gate and /health, logs each asset that turns short or whole. */
  runOnce(): ReservesReport {
    const previous = this.last;
    const report = this.compute();
    this.previous = previous;
    this.last = report;
    for (const asset of report.assets) {
      const before = previous?.assets.find((a) => a.asset === asset.asset && a.tick === asset.tick);
      const wasShort = (before?.shortfall ?? 0n) > 0n;
      const isShort = asset.shortfall > 0n;
      if (isShort && !wasShort)
        this.log("amm_reserves_shortfall", {
          asset: asset.asset,
          tick: asset.tick,
          holdings: asset.holdings.toString(),
          obligations: asset.obligations.toString(),
          shortfall: asset.shortfall.toString(),
          indexedHeight: report.indexedHeight,
        });
      else if (!isShort && wasShort) this.log("amm_reserves_whole", { asset: asset.asset, tick: asset.tick });
    }
    return report;
  }

  /** The last pass's report (computed now when no pass ran yet). */
  report(): ReservesReport {
    return this.last ?? this.runOnce();
  }

  /**
   * For /health: not ok while an asset was short in the last two passes (one pass alone can be
   * short for a moment: a deposit credited after the wallet's last sync), or while a payout is
   * failed or waits on INSUFFICIENT_FUNDS. Names each asset with its figures.
   */
  health(): {
    ok: boolean;
    shortfalls: { asset: string; tick: string | null; holdings: string; obligations: string; shortfall: string }[];
    stuckPayouts: { failed: number; insufficientFunds: number };
  } {
    const report = this.report();
    const shortBefore = (a: ReserveLine) =>
      this.previous === null ||
      this.previous.assets.some((b) => b.asset === a.asset && b.tick === a.tick && b.shortfall > 0n);
    const shortfalls = report.assets
      .filter((a) => a.shortfall > 0n && shortBefore(a))
      .map((a) => ({
        asset: a.asset,
        tick: a.tick,
        holdings: a.holdings.toString(),
        obligations: a.obligations.toString(),
        shortfall: a.shortfall.toString(),
      }));
    const stuck = report.stuckPayouts;
    return {
      ok: shortfalls.length === 0 && stuck.failed + stuck.insufficientFunds === 0,
      shortfalls,
      stuckPayouts: stuck,
    };
  }

  /**
   * The settlement worker's gate: a shortfall of `asset` (DRC-20 of `tick`) in the last pass, or
   * null. While an asset is short, nothing of it is paid out (no partial drain): what is left is
   * kept for an operator to decide on.
   */
  shortfall(asset: "DOGE" | "DRC20", tick: string | null): { code: string; message: string } | null {
    if (!this.last) return null;
    const key = tick === null ? null : drc20TickKey(tick);
    const line = this.last.assets.find(
      (a) => a.asset === asset && (a.tick === null ? key === null : key !== null && drc20TickKey(a.tick) === key),
    );
    if (!line || line.shortfall === 0n) return null;
    return {
      code: "CUSTODY_SHORTFALL",
      message: `the custody holds ${line.holdings} ${line.tick ?? "koinu"} against ${line.obligations} owed (short ${line.shortfall}) at height ${this.last.indexedHeight}; payouts of it wait for an operator`,
    };
  }
}

function line(
  asset: "DOGE" | "DRC20",
  tick: string | null,
  holdings: bigint,
  owed: { pools: bigint; bonding: bigint; payouts: bigint },
): ReserveLine {
  const obligations = owed.pools + owed.bonding + owed.payouts;
  return {
    asset,
    tick,
    holdings,
    owed: { pools: owed.pools, bonding: owed.bonding, payouts: owed.payouts },
    obligations,
    shortfall: obligations > holdings ? obligations - holdings : 0n,
  };
}

/** A report as JSON (amounts as decimal strings), the shape of `GET /api/reserves`. */
export function reservesJson(report: ReservesReport) {
  return {
    custodyAddress: report.custodyAddress,
    indexedHeight: report.indexedHeight,
    checkedAt: report.checkedAt,
    whole: report.whole,
    assets: report.assets.map((a) => ({
      asset: a.asset,
      tick: a.tick,
      holdings: a.holdings.toString(),
      obligations: a.obligations.toString(),
      owed: { pools: a.owed.pools.toString(), bonding: a.owed.bonding.toString(), payouts: a.owed.payouts.toString() },
      shortfall: a.shortfall.toString(),
    })),
    stuckPayouts: report.stuckPayouts,
  };
}

/**
 * The reserves as Prometheus gauges, read at scrape time from the last pass: holdings, obligations
 * and shortfall per asset (`asset`, `tick` labels; base units), and the stuck payouts.
 */
export function registerReservesMetrics(registry: Registry, reserves: CustodyReserves): void {
  const perAsset = (name: string, help: string, pick: (line: ReserveLine) => bigint) =>
    new Gauge({
      name,
      help,
      labelNames: ["asset", "tick"],
      registers: [registry],
      collect() {
        this.reset();
        for (const line of reserves.report().assets)
          this.set({ asset: line.asset, tick: line.tick ?? "" }, Number(pick(line)));
      },
    });
  perAsset("amm_reserves_holdings", "What the custody holds, per asset (koinu or DRC-20 units)", (l) => l.holdings);
  perAsset(
    "amm_reserves_obligations",
    "What the custody owes, per asset (koinu or DRC-20 units)",
    (l) => l.obligations,
  );
  perAsset(
    "amm_reserves_shortfall",
    "Obligations not covered by holdings, per asset (0 when whole)",
    (l) => l.shortfall,
  );
  new Gauge({
    name: "amm_payouts_stuck",
    help: "Payouts an operator must look at, by kind (failed, insufficient_funds)",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      const stuck = reserves.report().stuckPayouts;
      this.set({ kind: "failed" }, stuck.failed);
      this.set({ kind: "insufficient_funds" }, stuck.insufficientFunds);
    },
  });
}
