/**
 * DRC-20 on the devnet for tests, made the way a user's wallet does it: deploy, mint and transfer
 * inscriptions (Doginals form, text/plain) inscribed and sent by the user's own key.
 */
import { drc20TickKey, encodeDrc20 } from "../../src/inscription/drc20";
import type { RunningDevnet } from "./devnet";
import { inscribeDoginals, sendInscription } from "./inscribe";
import type { Spendable, TestKey } from "./keys";

const TEXT = "text/plain;charset=utf-8";

/** A fresh 100-DOGE faucet output of `key` (unconfirmed until the next block). */
export async function faucetCoin(devnet: RunningDevnet, key: TestKey, doge = 100): Promise<Spendable> {
  const { txid, vout } = await devnet.rpc<{ txid: string; vout?: number }>("devnet_faucet", [key.address, doge, false]);
  return { txid, vout: vout ?? 0, value: BigInt(doge) * 100_000_000n };
}

export async function deployTick(
  devnet: RunningDevnet,
  key: TestKey,
  tick: string,
  maxSupply: bigint,
  mintLimit: bigint,
): Promise<string> {
  const coin = await faucetCoin(devnet, key);
  const body = encodeDrc20({ kind: "deploy", tick, tickKey: drc20TickKey(tick), maxSupply, mintLimit });
  return (await inscribeDoginals(devnet, key, coin, { contentType: TEXT, body }, key.script)).inscriptionId;
}

export async function mintTick(devnet: RunningDevnet, key: TestKey, tick: string, amount: bigint): Promise<string> {
  const coin = await faucetCoin(devnet, key);
  const body = encodeDrc20({ kind: "mint", tick, tickKey: drc20TickKey(tick), amount });
  return (await inscribeDoginals(devnet, key, coin, { contentType: TEXT, body }, key.script)).inscriptionId;
}

/** Inscribes a transfer of `amount` onto `key`'s own address; the inscribed output is returned to send once mined. */
export async function inscribeTransfer(
  devnet: RunningDevnet,
  key: TestKey,
  tick: string,
  amount: bigint,
): Promise<Spendable> {
  const coin = await faucetCoin(devnet, key);
  const body = encodeDrc20({ kind: "transfer", tick, tickKey: drc20TickKey(tick), amount });
  return (await inscribeDoginals(devnet, key, coin, { contentType: TEXT, body }, key.script)).output;
}

/** Sends an inscribed transfer output to `recipientScript`; the txid is the DRC-20 deposit. */
export async function sendTransfer(
  devnet: RunningDevnet,
  key: TestKey,
  inscribed: Spendable,
  recipientScript: Uint8Array,
): Promise<string> {
  return (await sendInscription(devnet, key, inscribed, recipientScript)).txid;
}
