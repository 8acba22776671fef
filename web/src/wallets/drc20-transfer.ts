/**
 * A DRC-20 transfer made the way a wallet that holds its own key makes one: a transfer inscription
 * of `amount` `tick` inscribed onto the key's own address, then that inscribed output sent to the
 * recipient (DESIGN.md 4.4: a transfer inscription moves `amount` from the available balance of its
 * first owner to the owner of the output its first send pays). Used by our development wallet on the
 * devnet (web/src/wallets/dev.ts) and by the tests' wallet stand-ins, which do for real what MyDoge's
 * and UniSat's servers do for those wallets.
 *
 * The inscription is in the classic Doginals form (text/plain, the DRC-20 JSON), one commit and one
 * reveal per part as apezord's inscriber makes them (src/inscription/doginals.ts); the reveal's output
 * 0 carries it to the key's address. The commit is funded from the key's confirmed outputs that carry
 * no inscription (the explorer's UTXO list marks them, as web/src/payment.ts reads it); every
 * transaction pays Dogecoin Core 1.14.6's relay fee for the recommended rate (src/doge/policy.ts) and
 * is broadcast through the explorer. The commit and reveals are made by inscribeTransfer, which the
 * path of wallets that only sign PSBTs (./psbt-drc20.ts) shares: the paths differ in who signs.
 */
import {
  DogeNetwork,
  RECOMMENDED_FEE_RATE,
  SOFT_DUST_LIMIT,
  Transaction,
  TxOutput,
  addressToOutputScript,
  bytesToHex,
  hash160,
  minRelayFee,
  p2pkhScriptSig,
  p2shScript,
  serializeTransaction,
  signInput,
  txidOf,
} from "../../../src/doge";
import { DoginalsRevealPart, doginalsScriptSig, encodeDoginalsReveal } from "../../../src/inscription/doginals";
import { drc20TickKey, encodeDrc20 } from "../../../src/inscription/drc20";

/** What the inscription's output 0 holds: 0.1 DOGE, ten times the soft dust limit, so the send pays its fee from it. */
export const TRANSFER_POSTAGE_KOINU = 10_000_000n;
/** The content type of a DRC-20 operation (what the DRC-20 indexers read). */
export const DRC20_CONTENT_TYPE = "text/plain;charset=utf-8";
/** A DER signature with its hash type is at most 73 bytes: sizes are reckoned with it. */
export const MAX_SIGNATURE = new Uint8Array(73);
/** A P2PKH scriptSig's size bound: a 73-byte signature and a 33-byte key, with their pushes. */
export const P2PKH_SCRIPT_SIG = new Uint8Array(1 + 73 + 1 + 33);
/** A commit spends at most this many coins (web/src/payment.ts's cap). */
export const MAX_INPUTS = 50;

export class Drc20TransferError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "Drc20TransferError";
  }
}

/** Whose transfer it is: the P2PKH address, and the explorer it reads coins from and broadcasts through. */
export interface TransferOwner {
  network: DogeNetwork;
  address: string;
  explorerUrl: string;
  /** Koinu per 1000 bytes (default RECOMMENDED_FEE_RATE). */
  feeRateKoinuPerKb?: bigint;
}

export interface KeyPair {
  privateKey: Uint8Array;
  /** Compressed public key. */
  publicKey: Uint8Array;
}

/** The key that inscribes and sends: `address` is its P2PKH address. */
export type TransferKey = TransferOwner & KeyPair;

export interface Outpoint {
  txid: string;
  vout: number;
  valueKoinu: bigint;
}

export interface InscribedTransfer {
  /** `<first reveal txid>i0`. */
  inscriptionId: string;
  commitTxid: string;
  revealTxids: string[];
  /** The last reveal's output 0: the inscription, on the key's address. */
  output: Outpoint;
}

export async function explorer(url: string, init?: RequestInit): Promise<any> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new Drc20TransferError("EXPLORER_UNREACHABLE", "the explorer did not answer; check the connection and retry");
  }
  const text = await response.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (!response.ok)
    throw new Drc20TransferError(
      "EXPLORER_REFUSED",
      `the explorer refused ${url}: ${body?.error?.message ?? `HTTP ${response.status}`}`,
    );
  return body;
}

/** A signed transaction as it is broadcast: its bytes in hex and its txid. */
export interface SignedTx {
  hex: string;
  txid: string;
}

export const signedTx = (tx: Transaction): SignedTx => ({
  hex: bytesToHex(serializeTransaction(tx)),
  txid: txidOf(tx),
});

/** Broadcasts `tx` through the explorer; BROADCAST_MISMATCH when it names another txid. */
export async function broadcast(explorerUrl: string, tx: SignedTx): Promise<string> {
  const body = await explorer(`${explorerUrl}/api/tx/broadcast`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ hex: tx.hex }),
  });
  if (body?.txid !== tx.txid)
    throw new Drc20TransferError("BROADCAST_MISMATCH", `the explorer answered ${body?.txid} for ${tx.txid}`);
  return tx.txid;
}

/** The fee of `tx` as it will be once signed: its scriptSigs stand at their largest size. */
export function feeOf(
  key: { feeRateKoinuPerKb?: bigint },
  tx: Transaction,
  outputs: readonly TxOutput[] = tx.outputs,
): bigint {
  return minRelayFee(serializeTransaction(tx).length, outputs, key.feeRateKoinuPerKb ?? RECOMMENDED_FEE_RATE);
}

export const input = (outpoint: { txid: string; vout: number }, scriptSig: Uint8Array = new Uint8Array(0)) => ({
  prevTxid: outpoint.txid,
  vout: outpoint.vout,
  scriptSig,
  sequence: 0xffffffff,
});

/** The key's confirmed coins without inscriptions, largest first. */
export async function spendableCoins(key: { explorerUrl: string; address: string }): Promise<Outpoint[]> {
  const page = await explorer(
    `${key.explorerUrl}/api/wallet/address/${encodeURIComponent(key.address)}/utxos?limit=500`,
  );
  return (page.items as any[])
    .filter(
      (u) =>
        u.spendable && u.confirmations > 0 && u.carrier === null && u.inscriptions.length === 0 && u.drc20.length === 0,
    )
    .map((u) => ({ txid: u.txid as string, vout: u.vout as number, valueKoinu: BigInt(u.value_koinu) }))
    .sort((a, b) => (a.valueKoinu === b.valueKoinu ? 0 : a.valueKoinu > b.valueKoinu ? -1 : 1));
}

export const toDoge = (koinu: bigint) => {
  const fraction = (koinu % 100_000_000n).toString().padStart(8, "0").replace(/0+$/, "");
  return `${koinu / 100_000_000n}${fraction ? `.${fraction}` : ""}`;
};

/** A commit spending `chosen` (scriptSigs at their largest size until signed) to `outputs`. */
export function commitTransaction(chosen: readonly Outpoint[], outputs: TxOutput[]): Transaction {
  return { version: 1, inputs: chosen.map((coin) => input(coin, P2PKH_SCRIPT_SIG)), outputs, locktime: 0 };
}

export interface PlannedCommit {
  chosen: Outpoint[];
  total: bigint;
  /** `lock`, then the change to `ownScript` when it is not dust. */
  outputs: TxOutput[];
  /** The fee the outputs leave: what the commit may pay at most. */
  feeKoinu: bigint;
}

/**
 * The coins of `address` a commit paying `lock` spends (in the order given, at most MAX_INPUTS,
 * until they cover the lock and the fee), and its outputs: the lock, and the change back to
 * `ownScript` unless it would be dust. INSUFFICIENT_FUNDS when the coins cannot pay it.
 */
export function planCommit(
  rate: { feeRateKoinuPerKb?: bigint },
  address: string,
  coins: readonly Outpoint[],
  lock: TxOutput,
  ownScript: Uint8Array,
): PlannedCommit {
  const chosen: Outpoint[] = [];
  let total = 0n;
  for (const coin of coins) {
    if (chosen.length === MAX_INPUTS) break;
    chosen.push(coin);
    total += coin.valueKoinu;
    if (total >= lock.value + feeOf(rate, commitTransaction(chosen, [lock]))) break;
  }
  const bareFee = feeOf(rate, commitTransaction(chosen, [lock]));
  if (total < lock.value + bareFee) {
    const spendable = coins.reduce((sum, c) => sum + c.valueKoinu, 0n);
    throw new Drc20TransferError(
      "INSUFFICIENT_FUNDS",
      `${address} has ${toDoge(spendable)} DOGE it can spend (confirmed, without inscriptions); inscribing the transfer needs ${toDoge(lock.value + bareFee)} DOGE with its fees`,
    );
  }
  const changeFee = feeOf(rate, commitTransaction(chosen, [lock, { script: ownScript, value: SOFT_DUST_LIMIT }]));
  const change = total - lock.value - changeFee;
  return change >= SOFT_DUST_LIMIT
    ? { chosen, total, outputs: [lock, { script: ownScript, value: change }], feeKoinu: changeFee }
    : { chosen, total, outputs: [lock], feeKoinu: total - lock.value };
}

/** Refuses an amount above the address's available balance of `tick` as the explorer's index shows it. */
export async function checkAvailable(
  key: { explorerUrl: string; address: string },
  tick: string,
  amount: bigint,
): Promise<void> {
  if (amount <= 0n)
    throw new Drc20TransferError("INVALID_AMOUNT", "the amount to transfer must be a whole number above 0");
  const balances = await explorer(`${key.explorerUrl}/api/wallet/address/${encodeURIComponent(key.address)}/drc20`);
  const held = (balances.balances as { tick: string; available: string }[]).find(
    (b) => drc20TickKey(b.tick) === drc20TickKey(tick),
  );
  const available = BigInt(held?.available ?? "0");
  if (available < amount)
    throw new Drc20TransferError(
      "INSUFFICIENT_TOKENS",
      `${key.address} has ${available} ${tick} available (confirmed, not in a transfer); this transfer needs ${amount}`,
    );
}

/**
 * The reveals' plan for a transfer inscription locked to `pubkey` whose last reveal pays `ownerScript`:
 * the parts, and what each transaction's output 0 must hold before reveal k (each reveal pays its own
 * fee out of what the previous transaction left there; valueBefore(0) is the commit's lock).
 */
export function revealPlan(
  key: { feeRateKoinuPerKb?: bigint },
  tick: string,
  amount: bigint,
  pubkey: Uint8Array,
  ownerScript: Uint8Array,
) {
  const body = encodeDrc20({ kind: "transfer", tick, tickKey: drc20TickKey(tick), amount });
  const parts = encodeDoginalsReveal({ contentType: DRC20_CONTENT_TYPE, body, pubkey });
  const p2shOf = (part: DoginalsRevealPart) => p2shScript(hash160(part.redeemScript));
  const revealFees = parts.map((part, k) => {
    const last = k === parts.length - 1;
    const sized: Transaction = {
      version: 1,
      inputs: [input({ txid: "00".repeat(32), vout: 0 }, doginalsScriptSig(part, MAX_SIGNATURE))],
      outputs: [{ script: last ? ownerScript : p2shOf(parts[k + 1]), value: TRANSFER_POSTAGE_KOINU }],
      locktime: 0,
    };
    return feeOf(key, sized);
  });
  const valueBefore = (k: number) => TRANSFER_POSTAGE_KOINU + revealFees.slice(k).reduce((sum, fee) => sum + fee, 0n);
  return { parts, p2shOf, valueBefore };
}

/** The signed reveals of `plan` spending the commit's output 0, the last paying `ownerScript`. */
export function signReveals(
  plan: ReturnType<typeof revealPlan>,
  commitTxid: string,
  privateKey: Uint8Array,
  ownerScript: Uint8Array,
): Transaction[] {
  const { parts, p2shOf, valueBefore } = plan;
  const reveals: Transaction[] = [];
  let previous = { txid: commitTxid, vout: 0 };
  for (let k = 0; k < parts.length; k++) {
    const last = k === parts.length - 1;
    const reveal: Transaction = {
      version: 1,
      inputs: [input(previous)],
      outputs: [{ script: last ? ownerScript : p2shOf(parts[k + 1]), value: valueBefore(k + 1) }],
      locktime: 0,
    };
    reveal.inputs[0].scriptSig = doginalsScriptSig(parts[k], signInput(reveal, 0, parts[k].redeemScript, privateKey));
    reveals.push(reveal);
    previous = { txid: txidOf(reveal), vout: 0 };
  }
  return reveals;
}

/**
 * Who signs a transfer's commit and reveals: the one part in which the wallets differ (a wallet that
 * holds its key signs both with it; a wallet that only signs PSBTs signs the commit, and the page
 * signs the reveals with a key it makes, psbt-drc20.ts).
 */
export interface TransferSigner {
  /** The key the reveals are locked to and signed with, asked for once the balance is checked. */
  revealKey(): KeyPair;
  /** The commit spending `planned.chosen` to `planned.outputs` (the lock, and the change to `ownScript`), signed by the owner. */
  signCommit(planned: PlannedCommit, ownScript: Uint8Array): Promise<SignedTx>;
  /** Given the signed commit and reveals before the first is broadcast (to keep them for a resume). */
  beforeBroadcast?(commit: SignedTx, reveals: SignedTx[]): void;
}

/** A transfer inscribed by inscribeTransfer, with the coins it was chosen from and what it broadcast. */
export interface MadeTransfer extends InscribedTransfer {
  coins: Outpoint[];
  planned: PlannedCommit;
  commit: SignedTx;
  reveals: SignedTx[];
}

/**
 * Inscribes a DRC-20 transfer of `amount` `tick` onto the owner's address and broadcasts its commit
 * and reveal(s), `signer` signing them. Refuses an amount above the owner's available balance as the
 * explorer's index shows it (an indexer would ignore such a transfer, and the tokens would not move).
 */
export async function inscribeTransfer(
  owner: TransferOwner,
  tick: string,
  amount: bigint,
  signer: TransferSigner,
): Promise<MadeTransfer> {
  await checkAvailable(owner, tick, amount);
  const revealKey = signer.revealKey();
  const ownScript = addressToOutputScript(owner.address, owner.network);
  const plan = revealPlan(owner, tick, amount, revealKey.publicKey, ownScript);

  // The commit: the owner's coins to the P2SH of part 0, the change back to the owner.
  const lock = { script: plan.p2shOf(plan.parts[0]), value: plan.valueBefore(0) };
  const coins = await spendableCoins(owner);
  const planned = planCommit(owner, owner.address, coins, lock, ownScript);
  const commit = await signer.signCommit(planned, ownScript);

  // The reveals: part k's P2SH spent with its pushes and the reveal key's signature.
  const reveals = signReveals(plan, commit.txid, revealKey.privateKey, ownScript).map(signedTx);
  signer.beforeBroadcast?.(commit, reveals);
  await broadcast(owner.explorerUrl, commit);
  for (const reveal of reveals) await broadcast(owner.explorerUrl, reveal);
  const revealTxids = reveals.map((reveal) => reveal.txid);
  return {
    inscriptionId: `${revealTxids[0]}i0`,
    commitTxid: commit.txid,
    revealTxids,
    output: { txid: revealTxids[revealTxids.length - 1], vout: 0, valueKoinu: TRANSFER_POSTAGE_KOINU },
    coins,
    planned,
    commit,
    reveals,
  };
}

/** A transfer inscribed by `key` itself onto its own address (inscribeTransfer, the key signing all). */
export function inscribeDrc20Transfer(key: TransferKey, tick: string, amount: bigint): Promise<InscribedTransfer> {
  return inscribeTransfer(key, tick, amount, {
    revealKey: () => key,
    async signCommit(planned, ownScript) {
      const commit = commitTransaction(planned.chosen, planned.outputs);
      planned.chosen.forEach((_, i) => {
        commit.inputs[i].scriptSig = p2pkhScriptSig(signInput(commit, i, ownScript, key.privateKey), key.publicKey);
      });
      return signedTx(commit);
    },
  });
}

/**
 * Sends the inscription on `inscribed` (an output of the key's address, the inscription on its
 * first koinu) to `to`: the output alone is spent, its value less the fee paid to `to`, so the
 * inscription lands on the recipient's output 0. Answers the txid: the DRC-20 deposit.
 */
export async function sendInscribedOutput(key: TransferKey, inscribed: Outpoint, to: string): Promise<string> {
  const ownScript = addressToOutputScript(key.address, key.network);
  const toScript = addressToOutputScript(to, key.network);
  const send: Transaction = {
    version: 1,
    inputs: [input(inscribed, P2PKH_SCRIPT_SIG)],
    outputs: [{ script: toScript, value: inscribed.valueKoinu }],
    locktime: 0,
  };
  const fee = feeOf(key, send);
  if (inscribed.valueKoinu - fee < SOFT_DUST_LIMIT)
    throw new Drc20TransferError(
      "POSTAGE_TOO_SMALL",
      `the inscribed output holds ${toDoge(inscribed.valueKoinu)} DOGE, too little to pay its send's fee of ${toDoge(fee)} DOGE`,
    );
  send.outputs[0].value = inscribed.valueKoinu - fee;
  send.inputs[0].scriptSig = p2pkhScriptSig(signInput(send, 0, ownScript, key.privateKey), key.publicKey);
  return broadcast(key.explorerUrl, signedTx(send));
}

/** An outpoint of the key's address as the explorer lists it (confirmed or in its mempool), or null. */
export async function findOwnOutput(key: TransferKey, txid: string, vout: number): Promise<Outpoint | null> {
  const page = await explorer(
    `${key.explorerUrl}/api/wallet/address/${encodeURIComponent(key.address)}/utxos?limit=500`,
  );
  const found = (page.items as any[]).find((u) => u.txid === txid && u.vout === vout && u.spent_in_mempool === null);
  return found ? { txid, vout, valueKoinu: BigInt(found.value_koinu) } : null;
}
