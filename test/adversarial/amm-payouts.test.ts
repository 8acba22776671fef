/**
 * The AMM's payout path, tried as an attacker would (issue 26, "Custody you can trust, part 3",
 * items 2 and 5), on the devnet and over HTTP: the launchpad stack's devnet, index and inscriber,
 * the AMM app, the custody hot wallet and the settlement worker, real DOGE deposits and real
 * DRC-20 inscriptions made with the attacker's own key.
 *
 * - A stranger reveals a DRC-20 transfer inscription of all the custody's available WOOF to the
 *   custody's address: DRC-20 moves that balance from available to transferable, and a victim's
 *   swap payout must still be paid (the custody reclaims the foreign transfer by sending it to
 *   itself), whether the foreign transfer is mined before the payout's own transfer is asked for
 *   or in the same block ahead of it.
 * - A deposit reorged out and double-spent while its order's DRC-20 payout is already past
 *   `queued` (the transfer inscribed) must freeze the payout: the tokens never reach the attacker.
 *
 * Deposits count at N = 2 confirmations.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, OP, compileScript, signMessage } from "../../src/doge";
import { drc20TickKey, encodeDrc20 } from "../../src/inscription/drc20";
import { AmmLedger, createAmmApp, openAmmDatabase } from "../../src/services/amm";
import { Payout, PayoutStatus, SettlementWorker } from "../../src/services/amm/settlement";
import { InscriberClient } from "../../src/services/inscriber/client";
import type { HotWallet } from "../../src/wallet";
import { deployTick, faucetCoin, mintTick } from "../helpers/drc20";
import { jsonRequest } from "../helpers/http";
import { custodyAmm } from "../helpers/amm-pool";
import { KOINU_PER_DOGE, inscribeDoginals, pay } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { Answer, LAUNCHPAD_PROJECT_KEY, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { listenLocal } from "../helpers/listen";

const DOGE = KOINU_PER_DOGE;
const N = 2;
const TICK = "WOOF";
const TICK_KEY = drc20TickKey(TICK);
const MINTED = 1_000_000n;
const TEXT = "text/plain;charset=utf-8";

interface LogEvent {
  event: string;
  fields: Record<string, unknown>;
}

const show = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body)}`;
const json = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v));

describe("adversarial: the AMM's payouts (issue 26, items 2 and 5)", function () {
  this.timeout(900_000);
  let stack: LaunchpadStack;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let ledger: AmmLedger;
  let wallet: HotWallet;
  let settlement: SettlementWorker;
  let server: Server;
  let base: string;
  const events: LogEvent[] = [];
  const custody = newKey();
  const deployer = newKey();

  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, body === undefined ? {} : { body });
  const mine = () => stack.mine();
  const bury = async () => {
    for (let i = 0; i < N; i++) await mine();
  };
  const woof = (address: string) => stack.queries.drc20Balance(address, TICK_KEY);

  /** A DOGE -> WOOF swap order of `key` for `doge` DOGE: its id and the exact deposit it asks. */
  const order = async (key: TestKey, doge: bigint): Promise<{ swapId: string; deposit: bigint }> => {
    const quote = await call("POST", "/swap/quote", {
      tick: TICK,
      direction: "DOGE_TO_TOKEN",
      amountIn: (doge * DOGE).toString(),
      slippageBps: 10_000,
    });
    expect(quote.status, show(quote)).to.equal(200);
    const created = await call("POST", "/swap/create", { quoteId: quote.body.quoteId, address: key.address });
    expect(created.status, show(created)).to.equal(201);
    return { swapId: created.body.swapId, deposit: BigInt(created.body.depositAmount ?? quote.body.amountIn) };
  };
  /** `key` executes its swap on `depositTxid`, signed; answers the executed swap's DRC-20 payout. */
  const execute = async (key: TestKey, swapId: string, depositTxid: string) => {
    const message = await call(
      "GET",
      `/auth/message?${new URLSearchParams({ action: "execute-swap", swapId, depositTxid })}`,
    );
    expect(message.status, show(message)).to.equal(200);
    const executed = await call("POST", "/swap/execute", {
      swapId,
      depositTxid,
      signature: signMessage(message.body.message, key.privateKey),
    });
    expect([executed.status, executed.body?.status], show(executed)).to.deep.equal([200, "executed"]);
    expect(executed.body.payout).to.include({ asset: "DRC20", address: key.address });
    return { payoutId: executed.body.payout.id as string, amountOut: BigInt(executed.body.amountOut) };
  };
  /** `key` orders a DOGE -> WOOF swap of `doge` DOGE, pays it from a coin of its own, buries it and executes it. */
  const swapPaid = async (key: TestKey, doge: bigint) => {
    const { swapId, deposit } = await order(key, doge);
    const coin = await faucetCoin(stack.devnet, key, Number(doge) + 2);
    await mine();
    const paid = await pay(stack.devnet, key, [coin], [{ script: custody.script, value: deposit }]);
    await bury();
    return execute(key, swapId, paid.txid);
  };
  /** The stranger's transfer inscription of `amount` WOOF revealed to the custody's address (broadcast, not mined). */
  const foreignTransfer = async (stranger: TestKey, amount: bigint, recipientScript: Uint8Array = custody.script) => {
    const coin = await faucetCoin(stack.devnet, stranger, 5);
    const body = encodeDrc20({ kind: "transfer", tick: TICK, tickKey: TICK_KEY, amount });
    return inscribeDoginals(stack.devnet, stranger, coin, { contentType: TEXT, body }, recipientScript);
  };
  /**
   * Runs settlement passes (confirming the payout's inscriber job when it is inscribing, else
   * mining a block) until the payout reaches one of `statuses` or `rounds` passes are done.
   */
  const drive = async (payoutId: string, statuses: readonly PayoutStatus[], rounds = 16): Promise<Payout> => {
    for (let round = 0; round < rounds; round++) {
      await settlement.runOnce();
      const payout = settlement.payout(payoutId)!;
      if (statuses.includes(payout.status)) return payout;
      if (payout.status === "inscribing") await stack.confirmInscriberJob(payout.inscriberJobId!);
      else await mine();
    }
    return settlement.payout(payoutId)!;
  };

  before(async () => {
    stack = await startLaunchpadStack();
    ({ ammDb, ledger, wallet } = custodyAmm(stack, custody, N));
    settlement = new SettlementWorker({
      db: ammDb,
      wallet,
      queries: stack.queries,
      inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
      network: NETWORKS.regtest,
      inscriberProject: "launchpad",
      depositConfirmations: N,
      log: (event, fields) => events.push({ event, fields }),
    });
    ({ server, base } = await listenLocal(createAmmApp({ ledger, network: NETWORKS.regtest, rateLimit: 0 })));

    // The pool, seeded from what the custody holds: 1,000 DOGE and 1,000,000 WOOF minted to it.
    await deployTick(stack.devnet, deployer, TICK, 21_000_000n, MINTED);
    await mine();
    await mintTick(stack.devnet, custody, TICK, MINTED);
    for (let i = 0; i < 3; i++) await faucetCoin(stack.devnet, custody, 500);
    await mine();
    expect(woof(custody.address)).to.deep.equal({ available: MINTED, transferable: 0n });
    ledger.seedPool({
      tick: TICK,
      doge: 1_000n * DOGE,
      token: MINTED,
      provider: custody.address,
      refId: "payouts-seed",
      holdings: { doge: stack.queries.balance(custody.address).confirmedKoinu, token: MINTED },
    });
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  describe("foreign transfer inscriptions at the custody (item 2)", () => {
    it("pays a victim's DRC-20 payout after a stranger moved all the custody's available WOOF to transferable", async () => {
      const held = woof(custody.address).available;
      // Attack: a transfer of everything the custody has available, revealed to the custody by a stranger.
      const stranger = newKey();
      const foreign = await foreignTransfer(stranger, held);
      await mine();
      expect(woof(custody.address), "the foreign transfer took the custody's available").to.deep.equal({
        available: 0n,
        transferable: held,
      });
      expect(stack.queries.inscription(foreign.inscriptionId)!.ownerAddress).to.equal(custody.address);

      // The victim's swap executes on its deposit, and its payout must still be paid.
      const victim = newKey();
      const { payoutId, amountOut } = await swapPaid(victim, 10n);

      const payout = await drive(payoutId, ["confirmed", "failed", "frozen"]);
      expect(payout.status, json(payout)).to.equal("confirmed");
      expect(woof(victim.address), "the victim holds its tokens").to.deep.equal({
        available: amountOut,
        transferable: 0n,
      });
      expect(woof(custody.address), "the custody's available is back, less the payout").to.deep.equal({
        available: held - amountOut,
        transferable: 0n,
      });
      // Bounded: the foreign transfer was sent once, to the custody itself.
      const reclaims = events.filter((e) => e.event === "amm_foreign_transfer_reclaimed");
      expect(reclaims.map((e) => e.fields.inscriptionId)).to.deep.equal([foreign.inscriptionId]);
      expect(stack.queries.inscription(foreign.inscriptionId)!.ownerAddress).to.equal(custody.address);
    });

    it("pays a DRC-20 payout whose own transfer a stranger's foreign transfer voided in the same block", async () => {
      const held = woof(custody.address).available;
      const victim = newKey();
      const { payoutId, amountOut } = await swapPaid(victim, 5n);

      // Attack: the stranger's transfer of everything available is in the mempool ahead of the payout's own.
      const stranger = newKey();
      const foreign = await foreignTransfer(stranger, held);
      await settlement.runOnce();
      const inscribing = settlement.payout(payoutId)!;
      expect(inscribing.status, json(inscribing)).to.equal("inscribing");
      const firstJob = inscribing.inscriberJobId!;
      await stack.confirmInscriberJob(firstJob);
      expect(stack.queries.inscription(foreign.inscriptionId), "the foreign transfer is mined").to.not.equal(null);
      expect(woof(custody.address).transferable).to.equal(held);

      const payout = await drive(payoutId, ["confirmed", "failed", "frozen"], 24);
      expect(payout.status, json(payout)).to.equal("confirmed");
      expect(payout.inscriberJobId, "inscribed again after the void one").to.not.equal(firstJob);
      expect(woof(victim.address)).to.deep.equal({ available: amountOut, transferable: 0n });
      expect(woof(custody.address)).to.deep.equal({ available: held - amountOut, transferable: 0n });
      expect(
        events.filter(
          (e) => e.event === "amm_foreign_transfer_reclaimed" && e.fields.inscriptionId === foreign.inscriptionId,
        ),
      ).to.have.length(1);
    });
  });

  describe("foreign transfer inscriptions on a bare pay-to-pubkey output of the custody's key", () => {
    it("pays a victim's DRC-20 payout after a stranger moved the custody's available WOOF on a P2PK output the index credits to it", async () => {
      const held = woof(custody.address).available;
      // Attack: the transfer is revealed to <custody pubkey> OP_CHECKSIG, which the index lists under the
      // custody's address (so DRC-20 moves the custody's balance) but which is not the custody's P2PKH script.
      const stranger = newKey();
      const p2pk = compileScript([custody.publicKey, OP.OP_CHECKSIG]);
      const foreign = await foreignTransfer(stranger, held, p2pk);
      await mine();
      expect(woof(custody.address), "the foreign transfer took the custody's available").to.deep.equal({
        available: 0n,
        transferable: held,
      });

      const victim = newKey();
      const { payoutId, amountOut } = await swapPaid(victim, 5n);

      const payout = await drive(payoutId, ["confirmed", "failed", "frozen"], 24);
      expect(payout.status, json(payout)).to.equal("confirmed");
      expect(woof(victim.address)).to.deep.equal({ available: amountOut, transferable: 0n });
      expect(woof(custody.address)).to.deep.equal({ available: held - amountOut, transferable: 0n });
      expect(
        events.filter(
          (e) => e.event === "amm_foreign_transfer_reclaimed" && e.fields.inscriptionId === foreign.inscriptionId,
        ),
      ).to.have.length(1);
    });
  });

  describe("depth re-checked right before value leaves (item 5)", () => {
    it("freezes a DRC-20 payout already inscribed when its deposit is reorged out and double-spent", async () => {
      const before = woof(custody.address);
      const racer = newKey();
      const coin = await faucetCoin(stack.devnet, racer, 60);
      await mine();
      const { swapId, deposit } = await order(racer, 40n);

      // An empty block E, then the deposit, final only above E's height, buried N deep.
      const [blockE] = await stack.devnet.rpc<string[]>("generatetoaddress", [1, stack.miner.address]);
      await stack.indexer.syncOnce();
      const heightE = await stack.devnet.rpc<number>("getblockcount");
      const paid = await pay(stack.devnet, racer, [coin], [{ script: custody.script, value: deposit }], {
        locktime: heightE,
      });
      await bury();
      const { payoutId } = await execute(racer, swapId, paid.txid);

      // The payout's transfer is inscribed to the custody; the carrier is ready to go to the racer.
      await settlement.runOnce();
      const inscribing = settlement.payout(payoutId)!;
      expect(inscribing.status, json(inscribing)).to.equal("inscribing");
      await stack.confirmInscriberJob(inscribing.inscriberJobId!);
      await settlement.runOnce();
      const inscribed = settlement.payout(payoutId)!;
      expect(inscribed.status, json(inscribed)).to.equal("inscribed");

      // The reorg: E and every block after it go; the deposit is not final on the new tip, and its coin goes back to the racer.
      await stack.devnet.rpc("invalidateblock", [blockE]);
      expect(await stack.devnet.rpc<string[]>("getrawmempool")).to.not.include(paid.txid);
      const back = await pay(stack.devnet, racer, [coin], []);
      await stack.devnet.rpc("generatetoaddress", [5, stack.miner.address]);
      await stack.indexer.syncOnce();
      expect(stack.queries.tx(back.txid), "the double spend is indexed").to.not.equal(null);
      expect(stack.queries.tx(paid.txid), "the deposit is gone").to.equal(null);

      const payout = await drive(payoutId, ["sent", "confirmed", "failed", "frozen"], 6);
      expect(payout.status, json(payout)).to.equal("frozen");
      expect(payout.error).to.match(/^DEPOSIT_REORGED: /);
      expect(payout.txid).to.equal(null);
      for (let i = 0; i < 3; i++) {
        await settlement.runOnce();
        await mine();
      }
      expect(settlement.payout(payoutId)!.status).to.equal("frozen");
      expect(woof(racer.address), "the racer got no tokens").to.deep.equal({ available: 0n, transferable: 0n });
      const after = woof(custody.address);
      expect(after.available + after.transferable, "the tokens stay with the custody").to.equal(
        before.available + before.transferable,
      );
      expect(settlement.frozenCount()).to.be.at.least(1);
      expect(events.some((e) => e.event === "amm_payout_frozen" && e.fields.payout === payoutId)).to.equal(true);
    });
  });
});
