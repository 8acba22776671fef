/**
 * The AMM's custody over the launchpad stack's devnet and index, as the attack tests build it: its
 * database, the deposit reader (deposits count at `confirmations`; the custody and the stack's
 * inscriber hot wallet are service addresses), the ledger and the custody's hot wallet.
 */
export function custodyAmm(
  stack: LaunchpadStack,
  custody: TestKey,
  confirmations: number,
  ledgerOptions: Pick<AmmLedgerOptions, "payoutCosts"> = {},
): { ammDb: ReturnType<typeof openAmmDatabase>; deposits: DepositReader; ledger: AmmLedger; wallet: HotWallet } {
  const inscriberAddress = (stack.platform as unknown as { wallet: HotWallet }).wallet.address;
  const ammDb = openAmmDatabase(":memory:");
  const deposits = new DepositReader(stack.queries, custody.address, {
    confirmations,
    serviceAddresses: [inscriberAddress],
  });
  const ledger = new AmmLedger({
    db: ammDb,
    network: NETWORKS.regtest,
    deposits,
    tickDeployed: (tick) => stack.queries.drc20Tick(tick.toLowerCase())?.tick ?? null,
    ...ledgerOptions,
  });
  return { ammDb, deposits, ledger, wallet: custodyWallet(stack, custody) };
}

/** The custody's hot wallet over the launchpad stack's index and node (custody-wallet.sqlite in the stack's folder). */
export function custodyWallet(stack: LaunchpadStack, custody: TestKey): HotWallet {
  return new HotWallet({
    db: openWalletDatabase(path.join(stack.dir, "custody-wallet.sqlite")),
    key: custody,
    chain: indexNodeChain(stack.queries, stack.client),
    network: NETWORKS.regtest,
    feeRateKoinuPerKb: STACK_FEE_RATE,
  });
}

/**
 * An honest AMM pool on the devnet for the custody attacks: a tick deployed by `deployer`, minted
 * by `provider`, who deposits `doge` koinu and `tokens` of it to the custody, buries both
 * `depth` blocks and adds them as liquidity with its signed order, over the AMM's HTTP API.
 */
import { expect } from "chai";
import path from "node:path";
import { NETWORKS, signMessage } from "../../src/doge";
import { AmmLedger, AmmLedgerOptions, DepositReader, openAmmDatabase } from "../../src/services/amm";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import { deployTick, faucetCoin, inscribeTransfer, mintTick, sendTransfer } from "./drc20";
import { KOINU_PER_DOGE, pay } from "./inscribe";
import type { TestKey } from "./keys";
import { Answer, LaunchpadStack, STACK_FEE_RATE } from "./launchpad-stack";
import { jsonRequest } from "./http";

export async function seedHonestPool(options: {
  stack: LaunchpadStack;
  /** The AMM's API base, ending in /api. */
  api: string;
  custody: TestKey;
  deployer: TestKey;
  provider: TestKey;
  tick: string;
  doge: bigint;
  tokens: bigint;
  depth: number;
}): Promise<Answer> {
  const { stack, api, custody, deployer, provider, tick } = options;
  await deployTick(stack.devnet, deployer, tick, 21_000_000n, 1_000_000n);
  await stack.mine();
  await mintTick(stack.devnet, provider, tick, 1_000_000n);
  await stack.mine();
  const coin = await faucetCoin(stack.devnet, provider, Number(options.doge / KOINU_PER_DOGE) + 2);
  await stack.mine();
  const dogeTxid = (await pay(stack.devnet, provider, [coin], [{ script: custody.script, value: options.doge }])).txid;
  const inscribed = await inscribeTransfer(stack.devnet, provider, tick, options.tokens);
  await stack.mine();
  const tokenTxid = await sendTransfer(stack.devnet, provider, inscribed, custody.script);
  for (let i = 0; i < options.depth; i++) await stack.mine();
  const fields = { tick, address: provider.address, dogeTxid, tokenTxid };
  const asked = await jsonRequest(
    `${api}/auth/message?${new URLSearchParams({ action: "add-liquidity", ...fields })}`,
    "GET",
  );
  expect(asked.status, JSON.stringify(asked.body)).to.equal(200);
  const added = await jsonRequest(`${api}/liquidity/add`, "POST", {
    body: { ...fields, signature: signMessage(asked.body.message as string, provider.privateKey) },
  });
  expect(added.status, JSON.stringify(added.body)).to.equal(201);
  return added;
}
