/**
 * A bonding launch on the devnet the way a launcher makes one (bonding-store.ts, issue 26): the
 * launcher signs the launch (bonding-launch, fetched from GET /api/auth/message) sent with the
 * operator key, deploys the tick (max = lim = the total supply) and mints it with its own key,
 * deposits the whole supply to the custody (a DRC-20 transfer it inscribes and sends) and
 * announces the deposit (bonding-supply) once it is deep enough; the curve is then active.
 */
import { expect } from "chai";
import { signMessage } from "../../src/doge";
import { deployTick, inscribeTransfer, mintTick, sendTransfer } from "./drc20";
import { jsonRequest } from "./http";
import { TestKey, newKey } from "./keys";
import type { LaunchpadStack } from "./launchpad-stack";

export interface CurveTerms {
  totalSupply: string;
  sellableSupply: string;
  virtualDoge: string;
  graduationThreshold: string;
}

export interface DevnetLaunch {
  stack: LaunchpadStack;
  /** The AMM's origin (API under /api). */
  base: string;
  /** An operator key of bonding launches. */
  apiKey: string;
  /** The custody's output script (where the supply is sent). */
  custodyScript: Uint8Array;
  /** Deposit confirmations the service asks (the deposit is buried this deep). */
  confirmations: number;
  /** The service's bonding pass (BondingStore.runOnce), run until the curve is active. */
  runOnce: () => Promise<unknown>;
  /** Unix seconds by the service's clock (the authorization's expiry). */
  now?: () => number;
}

/** The launcher signs curve `symbol`'s launch and the operator sends it: the answer (202 expected by the caller). */
export async function signedLaunch(
  setup: Pick<DevnetLaunch, "base" | "apiKey" | "now">,
  launcher: TestKey,
  symbol: string,
  terms: CurveTerms,
  nonce = `launch-${symbol}-${Date.now()}`,
) {
  const expiresAt = (setup.now?.() ?? Math.floor(Date.now() / 1000)) + 300;
  const query = new URLSearchParams({
    action: "bonding-launch",
    symbol,
    ...terms,
    address: launcher.address,
    nonce,
    expiresAt: String(expiresAt),
  });
  const message = await jsonRequest(`${setup.base}/api/auth/message?${query}`);
  expect(message.status, JSON.stringify(message.body)).to.equal(200);
  return jsonRequest(`${setup.base}/api/bonding/launch`, "POST", {
    token: setup.apiKey,
    body: {
      symbol,
      ...terms,
      launcher: launcher.address,
      nonce,
      expiresAt,
      signature: signMessage(message.body.message, launcher.privateKey),
    },
  });
}

/** `launcher` announces `depositTxid` as curve `symbol`'s supply (signed bonding-supply). */
export async function announceSupply(
  setup: Pick<DevnetLaunch, "base">,
  launcher: TestKey,
  symbol: string,
  depositTxid: string,
) {
  const query = new URLSearchParams({ action: "bonding-supply", symbol, depositTxid });
  const message = await jsonRequest(`${setup.base}/api/auth/message?${query}`);
  expect(message.status, JSON.stringify(message.body)).to.equal(200);
  return jsonRequest(`${setup.base}/api/bonding/${symbol}/supply`, "POST", {
    body: { depositTxid, signature: signMessage(message.body.message, launcher.privateKey) },
  });
}

/** `key` sends `amount` of `tick` it holds to the custody (a transfer inscribed, mined, sent) and buries it. */
export async function depositSupply(
  setup: Pick<DevnetLaunch, "stack" | "custodyScript" | "confirmations">,
  key: TestKey,
  tick: string,
  amount: bigint,
): Promise<string> {
  const inscribed = await inscribeTransfer(setup.stack.devnet, key, tick, amount);
  await setup.stack.mine();
  const txid = await sendTransfer(setup.stack.devnet, key, inscribed, setup.custodyScript);
  for (let i = 0; i < setup.confirmations; i++) await setup.stack.mine();
  return txid;
}

/** Launches curve `symbol` by a new launcher (or `launcher`) and brings it to active; answers the curve. */
export async function launchCurve(
  setup: DevnetLaunch,
  symbol: string,
  terms: CurveTerms,
  launcher: TestKey = newKey(),
): Promise<any> {
  const launched = await signedLaunch(setup, launcher, symbol, terms);
  expect(launched.status, JSON.stringify(launched.body)).to.equal(202);
  const total = BigInt(terms.totalSupply);
  await deployTick(setup.stack.devnet, launcher, symbol, total, total);
  await setup.stack.mine();
  await mintTick(setup.stack.devnet, launcher, symbol, total);
  await setup.stack.mine();
  const txid = await depositSupply(setup, launcher, symbol, total);
  const credited = await announceSupply(setup, launcher, symbol, txid);
  expect(credited.status, JSON.stringify(credited.body)).to.equal(200);
  await setup.runOnce();
  const curve = await jsonRequest(`${setup.base}/api/bonding/${symbol}`);
  expect(curve.body.status, JSON.stringify(curve.body)).to.equal("active");
  return curve.body;
}
