/**
 * The demo bonding coin's launch (src/services/amm/demo.ts launchDemoCurve, as `npm start` runs it)
 * on the devnet: the launchpad stack's index and real inscriber (project "launchpad" stands in for
 * "amm"), a custody hot wallet, the bonding store, blocks mined and the bonding pass run as the
 * daemons do. The demo launcher deploys and mints MOON, deposits the whole supply to the custody and
 * announces it; the curve ends active with the custody holding the supply.
 */
import { expect } from "chai";
import path from "node:path";
import { NETWORKS } from "../../src/doge";
import { AmmLedger, BondingStore, DepositReader, openAmmDatabase } from "../../src/services/amm";
import { AMM_DEMO_CURVE, demoLauncherKey, launchDemoCurve } from "../../src/services/amm/demo";
import { InscriberClient } from "../../src/services/inscriber/client";
import { HotWallet, indexNodeChain, openWalletDatabase, walletKeyFromPrivateKey } from "../../src/wallet";
import { newKey } from "../helpers/keys";
import { LAUNCHPAD_PROJECT_KEY, LaunchpadStack, STACK_FEE_RATE, startLaunchpadStack } from "../helpers/launchpad-stack";

describe("AMM demo bonding coin on the devnet (src/services/amm/demo.ts)", function () {
  this.timeout(300_000);
  let stack: LaunchpadStack;

  before(async () => {
    stack = await startLaunchpadStack();
  });

  after(async () => {
    await stack?.stop();
  });

  it("brings MOON to active: the launcher's deploy, mint and supply deposit, announced until it counts", async () => {
    const custody = walletKeyFromPrivateKey(newKey().privateKey, NETWORKS.regtest);
    const db = openAmmDatabase(":memory:");
    const deposits = new DepositReader(stack.queries, custody.address, { confirmations: 2 });
    const ledger = new AmmLedger({
      db,
      network: NETWORKS.regtest,
      deposits,
      tickDeployed: (tick) => stack.queries.drc20Tick(tick.toLowerCase())?.tick ?? null,
    });
    const bonding = new BondingStore({ db, ledger, deposits, queries: stack.queries });
    const wallet = new HotWallet({
      db: openWalletDatabase(path.join(stack.dir, "demo-custody-wallet.sqlite")),
      key: custody,
      chain: indexNodeChain(stack.queries, stack.client),
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: STACK_FEE_RATE,
    });
    await stack.devnet.rpc("devnet_faucet", [custody.address, 100, false]);
    await stack.mine();
    await wallet.sync();
    const events: string[] = [];
    const demo = {
      ledger,
      bonding,
      queries: stack.queries,
      wallet,
      inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
      project: "launchpad",
      log: (event: string) => events.push(event),
      pollMs: 50,
    };

    // The chain moves on and the bonding pass runs while the demo waits, as under `npm start`.
    let running = true;
    const chain = (async () => {
      while (running) {
        await stack.mine();
        await wallet.sync();
        await bonding.runOnce();
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    try {
      await launchDemoCurve(demo);
    } finally {
      running = false;
      await chain;
    }
    await bonding.runOnce();
    const curve = bonding.curve(AMM_DEMO_CURVE.tick)!;
    const launcher = demoLauncherKey(wallet);
    expect([curve.status, curve.launcher, curve.supplyDeposited]).to.deep.equal([
      "active",
      launcher.address,
      AMM_DEMO_CURVE.totalSupply,
    ]);
    expect(stack.queries.drc20Balance(custody.address, "moon")).to.deep.equal({
      available: AMM_DEMO_CURVE.totalSupply,
      transferable: 0n,
    });
    expect(stack.queries.drc20Balance(launcher.address, "moon").available).to.equal(0n);
    expect(events).to.include.members(["amm_demo_curve_launched", "amm_demo_supply_sent", "amm_demo_supply_deposited"]);

    // Once launched, the demo leaves the curve as it is.
    await launchDemoCurve(demo);
    expect(events.filter((e) => e === "amm_demo_curve_launched")).to.have.length(1);
  });
});
