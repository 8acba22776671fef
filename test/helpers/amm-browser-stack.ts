/**
 * The devnet stack the AMM's browser tests (test/web/amm-*browser.test.ts) drive their pages on: the
 * launchpad stack (devnet, index, inscriber), the explorer (with a mempool view when asked), the
 * AMM's custody (custodyAmm: ledger, deposits at 1 confirmation, hot wallet), its settlement worker,
 * a bonding store when asked, AMM apps serving web/amm, the daemons' loops and headless Chromium.
 * npm run bench:pages (scripts/bench/pages.ts) measures the pages on it too, with the launchpad's
 * pages served and its own browser.
 *
 * Built by `start()` in a suite's before(); `stop()` in its after() takes down whatever was started,
 * also after a failed start.
 */
import path from "node:path";
import type { RequestListener, Server } from "node:http";
import { Browser, Page } from "playwright-core";
import { NETWORKS, encodeWif } from "../../src/doge";
import { createExplorerApp } from "../../src/services/explorer/app";
import { MempoolView } from "../../src/services/explorer/mempool";
import {
  AmmLedger,
  BondingStore,
  PayoutCosts,
  SettlementWorker,
  createAmmApp,
  mountBonding,
} from "../../src/services/amm";
import { InscriberClient } from "../../src/services/inscriber/client";
import { devWalletScript } from "../../src/services/launchpad";
import type { HotWallet } from "../../src/wallet";
import { PHONE } from "./a11y";
import { custodyAmm, seedHonestPool } from "./amm-pool";
import { CurveTerms, launchCurve } from "./bonding-launch";
import { launchChromium } from "./chromium";
import type { TestKey } from "./keys";
import { LAUNCHPAD_PROJECT_KEY, LaunchpadStack, startLaunchpadStack } from "./launchpad-stack";
import { recordOutsideRequests } from "../web/page-budget";
import { StandinKind, standinScript } from "../web/standins";
import { listenLocal } from "./listen";

export interface AmmBrowserStackOptions {
  custody: TestKey;
  /** The explorer with a mempool view (refreshed by the loops) and no status cache. */
  mempool?: boolean;
  /** The ledger's payout costs (default: none). */
  payoutCosts?: PayoutCosts;
  /** A bonding store over the AMM's database (moved along by the loops), with these options. */
  bonding?: { maxReservationShareBps?: number };
  /**
   * The launchpad app serves its pages (web/) too, with this explorer and `devWallet`'s development
   * wallet in /wallet-provider.js, as `npm start` serves them (default: its API only).
   */
  launchpadPages?: { devWallet: TestKey };
  /** A browser the caller launched and closes (default: `start()` launches Chromium, `stop()` closes it). */
  browser?: Browser;
}

export class AmmBrowserStack {
  stack!: LaunchpadStack;
  explorerUrl = "";
  ledger!: AmmLedger;
  wallet!: HotWallet;
  /** Only with the `bonding` option. */
  bonding?: BondingStore;
  browser!: Browser;
  /** The loops' errors and the pages' errors (`page error: …`). */
  readonly errors: string[] = [];
  private mempool?: MempoolView;
  private settlement!: SettlementWorker;
  private readonly servers: Server[] = [];
  private driver: NodeJS.Timeout | undefined;
  private driving = Promise.resolve();

  constructor(private readonly options: AmmBrowserStackOptions) {}

  async start(): Promise<void> {
    const { custody, launchpadPages } = this.options;
    const stack = (this.stack = await startLaunchpadStack({
      // The explorer is made over the index before the launchpad app, which may name it to its pages.
      launchpad: async ({ queries, client }) => {
        if (this.options.mempool)
          this.mempool = new MempoolView({ node: client, index: queries, network: NETWORKS.regtest });
        this.explorerUrl = await this.listen(
          createExplorerApp({
            queries,
            network: NETWORKS.regtest,
            node: client,
            ...(this.mempool ? { mempool: this.mempool, statusCacheMs: 0 } : {}),
          }),
        );
        if (!launchpadPages) return {};
        const { devWallet } = launchpadPages;
        return {
          webDir: path.resolve(__dirname, "..", "..", "web"),
          walletProviderScript: await devWalletScript(
            encodeWif(devWallet.privateKey, NETWORKS.regtest),
            NETWORKS.regtest,
            this.explorerUrl,
          ),
          explorerUrl: this.explorerUrl,
        };
      },
    }));
    const {
      ammDb: db,
      deposits,
      ledger,
      wallet,
    } = custodyAmm(stack, custody, 1, {
      payoutCosts: this.options.payoutCosts,
    });
    this.ledger = ledger;
    this.wallet = wallet;
    if (this.options.bonding)
      this.bonding = new BondingStore({ db, ledger, deposits, queries: stack.queries, ...this.options.bonding });
    this.settlement = new SettlementWorker({
      db,
      wallet,
      queries: stack.queries,
      inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
      network: NETWORKS.regtest,
      inscriberProject: "launchpad",
      depositConfirmations: 1,
    });
    this.browser = this.options.browser ?? (await launchChromium());
  }

  /**
   * An AMM app over the custody's ledger serving web/amm with this explorer (and the bonding routes
   * when there is a bonding store), listening on a free port; answers its base URL.
   */
  serveAmm(walletProviderScript?: string): Promise<string> {
    const { ledger, bonding } = this;
    return this.listen(
      createAmmApp({
        ledger,
        network: NETWORKS.regtest,
        webDir: path.resolve(__dirname, "..", "..", "web", "amm"),
        explorerUrl: this.explorerUrl,
        walletProviderScript,
        mount: bonding
          ? (root) => mountBonding(root, { store: bonding, ledger, network: NETWORKS.regtest })
          : undefined,
      }),
    );
  }

  /** 100 DOGE from the devnet's faucet to each of `keys` (a key named twice gets two coins), then a block. */
  async fund(keys: TestKey[]): Promise<void> {
    for (const key of keys) await this.stack.devnet.rpc("devnet_faucet", [key.address, 100, false]);
    await this.stack.mine();
  }

  /** An honest pool seeded into the custody through the AMM at `base` (seedHonestPool, buried 1 block). */
  async seedPool(
    base: string,
    pool: { deployer: TestKey; provider: TestKey; tick: string; doge: bigint; tokens: bigint },
  ): Promise<void> {
    await seedHonestPool({ stack: this.stack, api: `${base}/api`, custody: this.options.custody, depth: 1, ...pool });
  }

  /**
   * Launches curve `symbol` through the AMM at `base` and brings it to active (launchCurve), with a
   * new API key of the bonding store's named `keyName`; the supply deposit counts at 1 confirmation.
   */
  launchCurve(base: string, symbol: string, terms: CurveTerms, keyName: string): Promise<unknown> {
    const bonding = this.bonding!;
    return launchCurve(
      {
        stack: this.stack,
        base,
        apiKey: bonding.issueApiKey(keyName).key,
        custodyScript: this.options.custody.script,
        confirmations: 1,
        runOnce: () => bonding.runOnce(),
      },
      symbol,
      terms,
    );
  }

  /**
   * What the daemons' loops do, every 250 ms: mine what is pending, index, refresh the mempool view,
   * let the inscriber see confirmations, execute mined deposits, move curves and reservations along,
   * pay and follow the payouts. Their errors go to `errors`.
   */
  startDriver(): void {
    const { stack, wallet, ledger, bonding, settlement, mempool } = this;
    this.driver = setInterval(() => {
      this.driving = this.driving
        .then(async () => {
          const pending = await stack.devnet.rpc<string[]>("getrawmempool");
          if (pending.length > 0) await stack.devnet.rpc("generatetoaddress", [1, stack.miner.address]);
          await stack.indexer.syncOnce();
          await mempool?.refresh();
          await stack.platform.checkConfirmations();
          await wallet.sync();
          ledger.retryPending();
          await bonding?.runOnce();
          await settlement.runOnce();
        })
        .catch((error) => {
          this.errors.push((error as Error).message);
        });
    }, 250);
  }

  /**
   * A phone-sized page in a new browser context, with `standin`'s wallet over its key injected when
   * given; its page errors go to `errors`; `outside` lists the requests it makes outside this machine.
   */
  async phonePage(standin?: {
    kind: StandinKind;
    key: TestKey;
    omit?: string[];
  }): Promise<{ page: Page; outside: string[] }> {
    const context = await this.browser.newContext({ viewport: PHONE });
    if (standin) {
      const wif = encodeWif(standin.key.privateKey, NETWORKS.regtest);
      const config = { wif, network: "regtest", explorerUrl: this.explorerUrl, omit: standin.omit };
      await context.addInitScript(await standinScript([{ kind: standin.kind, config }]));
    }
    const page = await context.newPage();
    page.on("pageerror", (error) => this.errors.push(`page error: ${error.message}`));
    return { page, outside: recordOutsideRequests(page) };
  }

  async stop(): Promise<void> {
    if (this.driver) clearInterval(this.driver);
    await this.driving;
    if (!this.options.browser) await this.browser?.close();
    for (const server of this.servers) server.close();
    await this.stack?.stop();
  }

  private async listen(app: RequestListener): Promise<string> {
    const { server, base } = await listenLocal(app);
    this.servers.push(server);
    return base;
  }
}
