/**
 * Issue 26, "Custody you can trust, part 3", item 1: deposits are value the custody can spend.
 * Tried as an attacker would, on the devnet over HTTP: the attacker pays the custody in outputs the
 * hot wallet never spends (one that carries an inscription, one bare pay-to-pubkey to the custody's
 * own public key) and asks for the deposit back with a signed `POST /api/deposits/refund`, or
 * spends it on a swap. Before the fix each such deposit was credited and refunded out of the
 * custody's plain coins: four rounds drained the float.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, OP, compileScript, signMessage } from "../../src/doge";
import { AmmLedger, DepositReader, createAmmApp, openAmmDatabase } from "../../src/services/amm";
import type { HotWallet } from "../../src/wallet";
import { faucetCoin } from "../helpers/drc20";
import { KOINU_PER_DOGE, inscribeDoginals, pay } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { Answer, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { jsonRequest } from "../helpers/http";
import { custodyAmm, seedHonestPool } from "../helpers/amm-pool";
import { listenLocal } from "../helpers/listen";

const DOGE = KOINU_PER_DOGE;
const N = 2;
const TICK = "DEPO";
const show = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body)}`;

describe("adversarial: deposits the custody cannot spend (issue 26, item 1)", function () {
  this.timeout(600_000);
  let stack: LaunchpadStack;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let server: Server;
  let base: string;
  let wallet: HotWallet;
  let deposits: DepositReader;
  const custody = newKey();
  const provider = newKey();
  const deployer = newKey();

  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, body === undefined ? {} : { body });
  const bury = async () => {
    for (let i = 0; i < N; i++) await stack.mine();
  };
  const payoutCount = () => (ammDb.prepare("SELECT COUNT(*) AS n FROM payouts").get() as { n: number }).n;
  const message = async (params: Record<string, string>): Promise<string> => {
    const answer = await call("GET", `/auth/message?${new URLSearchParams(params)}`);
    expect(answer.status, show(answer)).to.equal(200);
    return answer.body.message as string;
  };
  /** `answer` refused the deposit as not spendable (422 DEPOSIT_NOT_SPENDABLE) and queued no payout beyond `payoutsBefore`. */
  const expectNotSpendable = (answer: Answer, payoutsBefore: number) => {
    expect(answer.status, show(answer)).to.equal(422);
    expect(answer.body.error.code).to.equal("DEPOSIT_NOT_SPENDABLE");
    expect(payoutCount(), "no payout was queued").to.equal(payoutsBefore);
  };
  /** The payer's signed refund request for a DOGE deposit. */
  const askRefund = async (key: TestKey, depositTxid: string): Promise<Answer> => {
    const fields = { asset: "DOGE", address: key.address, depositTxid };
    const text = await message({ action: "refund-deposit", ...fields });
    return call("POST", "/deposits/refund", { ...fields, signature: signMessage(text, key.privateKey) });
  };
  /** An inscription of the attacker's own, on an output of its own (mined). */
  const inscribedCoin = async (key: TestKey) => {
    const coin = await faucetCoin(stack.devnet, key, 10);
    const body = new TextEncoder().encode(`attacker's picture ${Math.random()}`);
    const inscribed = await inscribeDoginals(stack.devnet, key, coin, { contentType: "text/plain", body }, key.script);
    await stack.mine();
    return inscribed;
  };

  before(async () => {
    stack = await startLaunchpadStack();
    let ledger: AmmLedger;
    ({ ammDb, ledger, wallet, deposits } = custodyAmm(stack, custody, N));
    ({ server, base } = await listenLocal(createAmmApp({ ledger, network: NETWORKS.regtest })));
    // A pool to swap on: 1,000 DOGE against 500,000 DEPO from an honest provider.
    await seedHonestPool({
      stack,
      api: `${base}/api`,
      custody,
      deployer,
      provider,
      tick: TICK,
      doge: 1_000n * DOGE,
      tokens: 500_000n,
      depth: N,
    });
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  it("refunds nothing out of the float for a deposit whose only output to the custody carries an inscription", async () => {
    const attacker = newKey();
    const inscribed = await inscribedCoin(attacker);
    const funds = await faucetCoin(stack.devnet, attacker, 60);
    await stack.mine();
    // Input 0 is the inscribed output: its first koinu, and the inscription, land on output 0 (the custody's).
    const deposit = await pay(
      stack.devnet,
      attacker,
      [inscribed.output, funds],
      [{ script: custody.script, value: 50n * DOGE }],
    );
    await bury();
    const onOutput = stack.queries.inscriptions.on(deposit.txid, 0);
    expect(
      onOutput.map((i) => i.id),
      "the inscription sits on the deposit's output 0",
    ).to.deep.equal([inscribed.inscriptionId]);
    await wallet.sync();
    expect(wallet.balance().lockedKoinu >= 50n * DOGE, "the hot wallet locks that output").to.equal(true);

    const before = payoutCount();
    const refund = await askRefund(attacker, deposit.txid);
    expectNotSpendable(refund, before);
  });

  it("refunds nothing out of the float for a bare pay-to-pubkey output to the custody's own key", async () => {
    const attacker = newKey();
    const funds = await faucetCoin(stack.devnet, attacker, 60);
    await stack.mine();
    const p2pk = compileScript([custody.publicKey, OP.OP_CHECKSIG]);
    const deposit = await pay(stack.devnet, attacker, [funds], [{ script: p2pk, value: 50n * DOGE }]);
    await bury();
    const before = payoutCount();
    const refund = await askRefund(attacker, deposit.txid);
    expectNotSpendable(refund, before);
  });

  it("does not swap on an inscription-bearing deposit", async () => {
    const attacker = newKey();
    const quote = await call("POST", "/swap/quote", {
      tick: TICK,
      direction: "DOGE_TO_TOKEN",
      amountIn: (50n * DOGE).toString(),
      slippageBps: 100,
    });
    expect(quote.status, show(quote)).to.equal(200);
    const swap = await call("POST", "/swap/create", { quoteId: quote.body.quoteId, address: attacker.address });
    expect(swap.status, show(swap)).to.equal(201);
    const inscribed = await inscribedCoin(attacker);
    const funds = await faucetCoin(stack.devnet, attacker, 60);
    await stack.mine();
    const deposit = await pay(
      stack.devnet,
      attacker,
      [inscribed.output, funds],
      [{ script: custody.script, value: BigInt(quote.body.amountIn) }],
    );
    await bury();
    const text = await message({ action: "execute-swap", swapId: swap.body.swapId, depositTxid: deposit.txid });
    const before = payoutCount();
    const executed = await call("POST", "/swap/execute", {
      swapId: swap.body.swapId,
      depositTxid: deposit.txid,
      signature: signMessage(text, attacker.privateKey),
    });
    expectNotSpendable(executed, before);
  });

  it("counts only the spendable outputs of a deposit that mixes both kinds", async () => {
    const attacker = newKey();
    const funds = await faucetCoin(stack.devnet, attacker, 60);
    await stack.mine();
    const p2pk = compileScript([custody.publicKey, OP.OP_CHECKSIG]);
    const deposit = await pay(
      stack.devnet,
      attacker,
      [funds],
      [
        { script: p2pk, value: 40n * DOGE },
        { script: custody.script, value: 5n * DOGE },
      ],
    );
    await bury();
    const refund = await askRefund(attacker, deposit.txid);
    expect(refund.status, show(refund)).to.equal(202);
    expect(refund.body.amount, "only the P2PKH output is refunded").to.equal((5n * DOGE).toString());
  });

  it("counts as the custody's holdings (a graduation seed's check) only what the hot wallet can spend", async () => {
    // After the attacks above the custody's address holds inscribed and bare P2PK outputs: the
    // index's balance counts them, the custody cannot spend them.
    await wallet.sync();
    const spendable = wallet.balance().confirmedKoinu;
    const indexBalance = stack.queries.balance(custody.address).confirmedKoinu;
    expect(indexBalance - spendable >= 140n * DOGE, "the unspendable outputs are in the index's balance").to.equal(
      true,
    );
    expect(deposits.spendableKoinu(), "the deposit reader's holdings are the wallet's").to.equal(spendable);
  });
});
