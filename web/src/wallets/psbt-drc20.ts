/**
 * A DRC-20 deposit for a wallet that only signs PSBTs (DogeLabs, whose published interface has no
 * inscribeTransfer; WalletConnect's Dogecoin RPC; a UniSat build without inscribeTransfer), made the
 * way inscription tools make one with an ephemeral reveal key:
 *
 *   1. commit  the person's coins (confirmed, carrying no inscription or DRC-20 transfer, as
 *              web/src/payment.ts chooses them) pay a P2SH output whose redeem script carries the
 *              DRC-20 transfer envelope (src/inscription/doginals.ts) locked to a key generated in the
 *              page (crypto.getRandomValues, through @noble/curves' randomSecretKey), the change back
 *              to the person. The wallet signs this PSBT (signPsbt; the provider's PSBT forms take its
 *              answer only as the same transaction with SIGHASH_ALL signatures that verify).
 *   2. reveal  the page signs with the ephemeral key; the last reveal pays the inscription to the
 *              PERSON's address, so the person is the transfer's first owner and the tokens move from
 *              their available balance (DESIGN.md 4.4); the AMM's payer rule (src/services/amm/
 *              deposits.ts) credits them. Commit and reveals are broadcast through the explorer.
 *   3. send    a PSBT spending the inscription's output (the person's P2PKH, input 0) and one fee coin
 *              of the person's, paying the whole inscribed output to `to` (output 0: the inscription
 *              is on the first koinu of input 0, so it lands on output 0) and the fee coin's change
 *              back to the person. The wallet signs; the page broadcasts; the send's txid is the
 *              deposit.
 *
 * What the ephemeral key can spend: only the commit's output 0, whose value is the postage plus the
 * reveals' fees (checkCommitPsbt refuses a commit paying anything else anywhere but the person). It
 * never signs for the person's coins. If the page is closed between the commit and the reveal, that
 * output would be stranded: so before the commit is broadcast, the key and the signed commit and
 * reveals are written to localStorage under `dogeos.drc20-reveal.<commit txid>`
 * (RECOVERY_PREFIX). Recovery: the next sendDrc20 through this path on any page of the same origin
 * (recoverPendingReveals) reads each such entry of the connected address, asks the explorer for its
 * last reveal, and broadcasts the commit (when the explorer does not know it) and the reveals again;
 * the transfer inscription then sits on the person's address, where any wallet can send it, and
 * a later sendDrc20 of the same tick and amount sends it instead of inscribing another (once it is
 * confirmed, a transfer of exactly that amount left unsent on its reveal's output 0 is reused: the
 * same covers a page closed between the reveal and the send). An entry
 * is dropped once its last reveal is known to the explorer, or when its commit can no longer be
 * broadcast (the explorer says MISSING_INPUTS or TX_CONFLICT: its coins were spent otherwise, so the
 * key controls nothing); an explorer that cannot be reached or answers anything else leaves it for the next try.
 * The entry is dropped as soon as the reveals are broadcast in the normal course.
 *
 * Steps 1 and 2 are inscribeTransfer (./drc20-transfer.ts), which the development wallet's path
 * shares: here the wallet signs the commit's PSBT and the ephemeral key the reveals.
 *
 * What the send's check refuses (checkSendPsbt, run on the PSBT before the wallet sees it and on the
 * signed transaction before it is broadcast): an input 0 other than the inscription's outpoint, or
 * whose previous transaction is not the reveal (its txid is recomputed), or not on the person's
 * script, or not worth the postage; any input that does not spend the person's own P2PKH; an output 0
 * other than `to` with exactly the inscribed output's value; more than one other output, or one not
 * paying the person; a fee above the one the page computed.
 */
import { Psbt, Transaction as BjsTransaction } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  DogeNetwork,
  SOFT_DUST_LIMIT,
  Transaction,
  addressToOutputScript,
  bytesToHex,
  equalBytes,
  hexToBytes,
  privateKeyToPublicKey,
  toBitcoinjsNetwork,
} from "../../../src/doge";
import {
  Drc20TransferError,
  Outpoint,
  P2PKH_SCRIPT_SIG,
  PlannedCommit,
  SignedTx,
  broadcast,
  explorer,
  feeOf,
  input,
  inscribeTransfer,
  spendableCoins,
  toDoge,
} from "./drc20-transfer";
import { drc20TickKey } from "../../../src/inscription/drc20";

/** localStorage keys of pending reveals: this prefix and the commit's txid. */
export const RECOVERY_PREFIX = "dogeos.drc20-reveal.";

export interface PsbtDrc20Context {
  network: DogeNetwork;
  /** The person's (the wallet's) P2PKH address. */
  address: string;
  explorerUrl: string;
  /** Signs `indexes` of `psbt` with the wallet; answers partial signatures the provider verified. */
  sign(psbt: Psbt, indexes: number[]): Promise<Psbt>;
  /** Where a pending reveal's key is kept (the page's localStorage), or null. */
  storage: Storage | null;
  feeRateKoinuPerKb?: bigint;
  /** 32 random bytes for the ephemeral key (default: @noble/curves' randomSecretKey, crypto.getRandomValues). */
  randomSecretKey?: () => Uint8Array;
}

export interface PendingReveal {
  address: string;
  /** The ephemeral key, hex: it can spend only the commit's output 0. */
  ephemeralKey: string;
  commit: string;
  reveals: string[];
}

const bjs = (network: DogeNetwork) => toBitcoinjsNetwork(network);

function previousOf(psbt: Psbt, i: number): BjsTransaction {
  const raw = psbt.data.inputs[i].nonWitnessUtxo;
  if (!raw) throw new Drc20TransferError("BAD_PSBT", `input ${i} carries no previous transaction`);
  const previous = BjsTransaction.fromBuffer(raw as never);
  // The previous transaction must be the one the input names, else its output's value and script lie.
  const named = bytesToHex(Uint8Array.from(psbt.txInputs[i].hash).reverse());
  if (previous.getId() !== named)
    throw new Drc20TransferError("BAD_PSBT", `input ${i}'s previous transaction is not ${named}`);
  return previous;
}

function spentOutput(psbt: Psbt, i: number): { script: Uint8Array; value: bigint } {
  const out = previousOf(psbt, i).outs[psbt.txInputs[i].index];
  if (!out) throw new Drc20TransferError("BAD_PSBT", `input ${i} spends an output its previous transaction lacks`);
  return { script: new Uint8Array(out.script), value: BigInt(out.value) };
}

const outpointOf = (psbt: Psbt, i: number) => ({
  txid: bytesToHex(Uint8Array.from(psbt.txInputs[i].hash).reverse()),
  vout: psbt.txInputs[i].index,
});

/** Sum of what the inputs spend less the outputs: the fee; every input must spend `ownScript`. */
function ownFee(psbt: Psbt, ownScript: Uint8Array, what: string): bigint {
  let spent = 0n;
  psbt.txInputs.forEach((_, i) => {
    const out = spentOutput(psbt, i);
    if (!equalBytes(out.script, ownScript))
      throw new Drc20TransferError("BAD_PSBT", `the ${what}'s input ${i} does not spend the person's own address`);
    spent += out.value;
  });
  const paid = psbt.txOutputs.reduce((sum, o) => sum + BigInt(o.value), 0n);
  return spent - paid;
}

/**
 * Refuses a commit PSBT that does more than lock `lock` to the ephemeral key's P2SH: inputs of the
 * person only, output 0 the lock, at most one more output paying the person, a fee at most `maxFee`.
 */
export function checkCommitPsbt(
  psbt: Psbt,
  expected: { ownScript: Uint8Array; lock: { script: Uint8Array; value: bigint }; maxFeeKoinu: bigint },
): void {
  const outs = psbt.txOutputs;
  if (outs.length < 1 || outs.length > 2) throw new Drc20TransferError("BAD_PSBT", "the commit has another shape");
  if (!equalBytes(outs[0].script, expected.lock.script) || BigInt(outs[0].value) !== expected.lock.value)
    throw new Drc20TransferError("BAD_PSBT", "the commit's output 0 is not the transfer's lock");
  if (outs.length === 2 && !equalBytes(outs[1].script, expected.ownScript))
    throw new Drc20TransferError("BAD_PSBT", "the commit's change does not go back to the person");
  const fee = ownFee(psbt, expected.ownScript, "commit");
  if (fee <= 0n || fee > expected.maxFeeKoinu)
    throw new Drc20TransferError(
      "BAD_PSBT",
      `the commit pays ${fee} koinu of fee, not at most ${expected.maxFeeKoinu}`,
    );
}

/**
 * Refuses a send PSBT that does not move exactly the inscribed output to `to` with the fee coin's
 * change back to the person (see the file's comment for each rule).
 */
export function checkSendPsbt(
  psbt: Psbt,
  expected: { inscription: Outpoint; ownScript: Uint8Array; toScript: Uint8Array; maxFeeKoinu: bigint },
): void {
  const { inscription } = expected;
  if (psbt.txInputs.length < 2)
    throw new Drc20TransferError("BAD_SEND", "the send must spend the inscription and a fee coin");
  const first = outpointOf(psbt, 0);
  if (first.txid !== inscription.txid || first.vout !== inscription.vout)
    throw new Drc20TransferError(
      "BAD_SEND",
      `the send's input 0 is not the inscription ${inscription.txid}:${inscription.vout}`,
    );
  const inscribed = spentOutput(psbt, 0);
  if (!equalBytes(inscribed.script, expected.ownScript) || inscribed.value !== inscription.valueKoinu)
    throw new Drc20TransferError("BAD_SEND", "the inscribed output is not the person's postage");
  for (let i = 1; i < psbt.txInputs.length; i++) {
    const o = outpointOf(psbt, i);
    if (o.txid === inscription.txid && o.vout === inscription.vout)
      throw new Drc20TransferError("BAD_SEND", "the send spends the inscription twice");
  }
  const outs = psbt.txOutputs;
  if (outs.length < 1 || outs.length > 2) throw new Drc20TransferError("BAD_SEND", "the send has another shape");
  if (!equalBytes(outs[0].script, expected.toScript) || BigInt(outs[0].value) !== inscription.valueKoinu)
    throw new Drc20TransferError("BAD_SEND", "the send's output 0 does not pay the inscribed output to the recipient");
  if (outs.length === 2 && !equalBytes(outs[1].script, expected.ownScript))
    throw new Drc20TransferError("BAD_SEND", "the send's change does not go back to the person");
  const fee = ownFee(psbt, expected.ownScript, "send");
  if (fee <= 0n || fee > expected.maxFeeKoinu)
    throw new Drc20TransferError("BAD_SEND", `the send pays ${fee} koinu of fee, not at most ${expected.maxFeeKoinu}`);
}

/** The unsigned send: the inscription (input 0) and `feeCoin` to `to` and the change; its fee. */
export function buildSendPsbt(options: {
  network: DogeNetwork;
  inscription: Outpoint;
  inscriptionTx: Uint8Array;
  feeCoin: Outpoint;
  feeCoinTx: Uint8Array;
  ownScript: Uint8Array;
  toScript: Uint8Array;
  feeRateKoinuPerKb?: bigint;
}): { psbt: Psbt; feeKoinu: bigint } {
  const { inscription, feeCoin, ownScript, toScript } = options;
  const sized: Transaction = {
    version: 1,
    inputs: [input(inscription, P2PKH_SCRIPT_SIG), input(feeCoin, P2PKH_SCRIPT_SIG)],
    outputs: [
      { script: toScript, value: inscription.valueKoinu },
      { script: ownScript, value: SOFT_DUST_LIMIT },
    ],
    locktime: 0,
  };
  const fee = feeOf(options, sized);
  const change = feeCoin.valueKoinu - fee;
  if (change < SOFT_DUST_LIMIT)
    throw new Drc20TransferError(
      "INSUFFICIENT_FUNDS",
      `the send's fee coin holds ${toDoge(feeCoin.valueKoinu)} DOGE, too little for its fee of ${toDoge(fee)} DOGE`,
    );
  const psbt = new Psbt({ network: bjs(options.network) });
  psbt.setVersion(1);
  psbt.setMaximumFeeRate(100_000_000);
  psbt.addInput({ hash: inscription.txid, index: inscription.vout, nonWitnessUtxo: options.inscriptionTx });
  psbt.addInput({ hash: feeCoin.txid, index: feeCoin.vout, nonWitnessUtxo: options.feeCoinTx });
  psbt.addOutput({ script: toScript, value: inscription.valueKoinu });
  psbt.addOutput({ script: ownScript, value: change });
  return { psbt, feeKoinu: fee };
}

/** The wallet's signatures finalised: the transaction to broadcast (unchanged but for its scriptSigs). */
function finalised(psbt: Psbt): BjsTransaction {
  const copy = psbt.clone();
  copy.setMaximumFeeRate(100_000_000);
  copy.finalizeAllInputs();
  return copy.extractTransaction();
}

/** Whether the explorer knows `txid` (mined or in its mempool); only its 404 says no, any other failure throws. */
async function known(explorerUrl: string, txid: string): Promise<boolean> {
  let response: Response;
  try {
    response = await fetch(`${explorerUrl}/esplora/api/tx/${txid}/hex`);
  } catch {
    throw new Drc20TransferError("EXPLORER_UNREACHABLE", "the explorer did not answer; check the connection and retry");
  }
  if (response.status === 404) return false;
  if (!response.ok)
    throw new Drc20TransferError("EXPLORER_REFUSED", `the explorer answered HTTP ${response.status} for ${txid}`);
  return true;
}

/**
 * Broadcasts `hex`; answers false (instead of throwing) when the explorer says an input is unknown or
 * already spent (its MISSING_INPUTS and TX_CONFLICT refusals, src/services/explorer/broadcast.ts).
 */
async function broadcastUnlessRejected(explorerUrl: string, hex: string, txid: string): Promise<boolean> {
  let response: Response;
  try {
    response = await fetch(`${explorerUrl}/api/tx/broadcast`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ hex }),
    });
  } catch {
    throw new Drc20TransferError("EXPLORER_UNREACHABLE", "the explorer did not answer; check the connection and retry");
  }
  const body = await response.json().catch(() => null);
  if (!response.ok && ["MISSING_INPUTS", "TX_CONFLICT"].includes(body?.error?.code)) return false;
  if (!response.ok)
    throw new Drc20TransferError(
      "EXPLORER_REFUSED",
      `the explorer refused ${txid}: ${body?.error?.message ?? `HTTP ${response.status}`}`,
    );
  if (body?.txid !== txid)
    throw new Drc20TransferError("BROADCAST_MISMATCH", `the explorer answered ${body?.txid} for ${txid}`);
  return true;
}

const txHex = async (explorerUrl: string, txid: string) =>
  hexToBytes(String(await explorer(`${explorerUrl}/esplora/api/tx/${txid}/hex`)).trim());

/**
 * Finishes the reveals a closed page left in `storage` for `address` (see the file's comment);
 * answers the commit txids whose entries it dropped.
 */
export async function recoverPendingReveals(
  ctx: Pick<PsbtDrc20Context, "storage" | "explorerUrl" | "address">,
): Promise<string[]> {
  const storage = ctx.storage;
  if (!storage) return [];
  const dropped: string[] = [];
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i++) {
    const k = storage.key(i);
    if (k?.startsWith(RECOVERY_PREFIX)) keys.push(k);
  }
  for (const k of keys) {
    let entry: PendingReveal;
    try {
      entry = JSON.parse(storage.getItem(k) ?? "");
    } catch {
      storage.removeItem(k);
      continue;
    }
    if (entry.address !== ctx.address) continue;
    const commitTxid = k.slice(RECOVERY_PREFIX.length);
    const lastReveal = BjsTransaction.fromHex(entry.reveals[entry.reveals.length - 1]).getId();
    if (!(await known(ctx.explorerUrl, lastReveal))) {
      if (
        !(await known(ctx.explorerUrl, commitTxid)) &&
        !(await broadcastUnlessRejected(ctx.explorerUrl, entry.commit, commitTxid))
      ) {
        // The node rejects the commit (its coins went elsewhere): it never was, the ephemeral key controls nothing.
        storage.removeItem(k);
        dropped.push(commitTxid);
        continue;
      }
      for (const reveal of entry.reveals) {
        const txid = BjsTransaction.fromHex(reveal).getId();
        if (!(await known(ctx.explorerUrl, txid))) await broadcast(ctx.explorerUrl, { hex: reveal, txid });
      }
    }
    storage.removeItem(k);
    dropped.push(commitTxid);
  }
  return dropped;
}

/**
 * Sends `amount` `tick` from the person to `to` with PSBTs the wallet signs (see the file's comment):
 * answers the send's txid (the deposit) and the commit and reveals it inscribed with.
 */
export async function sendDrc20WithPsbts(
  ctx: PsbtDrc20Context,
  request: { tick: string; amount: bigint; to: string },
): Promise<{ txid: string; commitTxid: string | null; revealTxids: string[] }> {
  const { network, address, explorerUrl } = ctx;
  await recoverPendingReveals(ctx);
  const ownScript = addressToOutputScript(address, network);
  const toScript = addressToOutputScript(request.to, network);

  // A transfer of exactly this amount inscribed before and never sent (a page closed before its send,
  // or a reveal recovered above) is sent as it is, from its reveal's output 0, with any spare coin.
  const earlier = await unsentTransfer(ctx, request.tick, request.amount);
  if (earlier) {
    const coins = await spendableCoins(ctx);
    if (coins.length === 0)
      throw new Drc20TransferError(
        "INSUFFICIENT_FUNDS",
        `${address} holds an unsent transfer of ${request.amount} ${request.tick}, but no coin to pay its send's fee`,
      );
    const txid = await sendInscribed(ctx, ownScript, toScript, {
      inscription: earlier,
      inscriptionTx: await txHex(explorerUrl, earlier.txid),
      feeCoin: coins[0],
      feeCoinTx: await txHex(explorerUrl, coins[0].txid),
    });
    return { txid, commitTxid: null, revealTxids: [] };
  }

  // 1. The commit, locked to a key made here and now, signed by the wallet; 2. the reveals, signed
  // with that key, kept in storage until broadcast so a closed page can finish them.
  let ephemeral: Uint8Array = new Uint8Array(0);
  const made = await inscribeTransfer(ctx, request.tick, request.amount, {
    revealKey() {
      ephemeral = (ctx.randomSecretKey ?? secp256k1.utils.randomSecretKey)();
      if (!secp256k1.utils.isValidSecretKey(ephemeral))
        throw new Drc20TransferError("BAD_RANDOM", "the page's random source gave no usable key");
      return { privateKey: ephemeral, publicKey: privateKeyToPublicKey(ephemeral) };
    },
    signCommit: (planned) => signCommitPsbt(ctx, planned, ownScript),
    beforeBroadcast(commit, reveals) {
      const pending: PendingReveal = {
        address,
        ephemeralKey: bytesToHex(ephemeral),
        commit: commit.hex,
        reveals: reveals.map((reveal) => reveal.hex),
      };
      ctx.storage?.setItem(`${RECOVERY_PREFIX}${commit.txid}`, JSON.stringify(pending));
    },
  });
  const { coins, planned, commit, commitTxid, revealTxids } = made;
  ctx.storage?.removeItem(`${RECOVERY_PREFIX}${commitTxid}`);
  ephemeral.fill(0);

  // 3. The send: the inscription and a fee coin (the commit's change, else another coin) to `to`.
  let feeCoin: Outpoint;
  let feeCoinTx: Uint8Array;
  if (planned.outputs.length === 2) {
    feeCoin = { txid: commitTxid, vout: 1, valueKoinu: planned.outputs[1].value };
    feeCoinTx = hexToBytes(commit.hex);
  } else {
    const spare = coins.filter((c) => !planned.chosen.includes(c));
    if (spare.length === 0)
      throw new Drc20TransferError(
        "INSUFFICIENT_FUNDS",
        `the transfer is inscribed on ${address}, but no other coin is left to pay its send's fee`,
      );
    feeCoin = spare[0];
    feeCoinTx = await txHex(explorerUrl, feeCoin.txid);
  }
  const txid = await sendInscribed(ctx, ownScript, toScript, {
    inscription: made.output,
    inscriptionTx: hexToBytes(made.reveals[made.reveals.length - 1].hex),
    feeCoin,
    feeCoinTx,
  });
  return { txid, commitTxid, revealTxids };
}

/** The commit (step 1) as a PSBT: built, checked, signed by the wallet, checked again, finalised. */
async function signCommitPsbt(ctx: PsbtDrc20Context, planned: PlannedCommit, ownScript: Uint8Array): Promise<SignedTx> {
  const psbt = new Psbt({ network: bjs(ctx.network) });
  psbt.setVersion(1);
  psbt.setMaximumFeeRate(100_000_000);
  for (const coin of planned.chosen)
    psbt.addInput({ hash: coin.txid, index: coin.vout, nonWitnessUtxo: await txHex(ctx.explorerUrl, coin.txid) });
  for (const output of planned.outputs) psbt.addOutput({ script: output.script, value: output.value });
  // planCommit's output 0 is the transfer's lock.
  const expected = { ownScript, lock: planned.outputs[0], maxFeeKoinu: planned.feeKoinu };
  checkCommitPsbt(psbt, expected);
  const signed = await ctx.sign(
    psbt,
    planned.chosen.map((_, i) => i),
  );
  checkCommitPsbt(signed, expected);
  const commit = finalised(signed);
  return { hex: commit.toHex(), txid: commit.getId() };
}

/** The send (step 3): built, checked, signed by the wallet, checked again, broadcast; its txid. */
async function sendInscribed(
  ctx: PsbtDrc20Context,
  ownScript: Uint8Array,
  toScript: Uint8Array,
  coins: { inscription: Outpoint; inscriptionTx: Uint8Array; feeCoin: Outpoint; feeCoinTx: Uint8Array },
): Promise<string> {
  const { psbt, feeKoinu } = buildSendPsbt({
    network: ctx.network,
    ...coins,
    ownScript,
    toScript,
    feeRateKoinuPerKb: ctx.feeRateKoinuPerKb,
  });
  const expected = { inscription: coins.inscription, ownScript, toScript, maxFeeKoinu: feeKoinu };
  checkSendPsbt(psbt, expected);
  const signed = await ctx.sign(psbt, [0, 1]);
  checkSendPsbt(signed, expected);
  const send = finalised(signed);
  return broadcast(ctx.explorerUrl, { hex: send.toHex(), txid: send.getId() });
}

/**
 * The person's confirmed transfer inscription of exactly `amount` `tick` that was never sent and
 * still sits on its reveal's output 0 (unspent, in no mempool spend), or null.
 */
async function unsentTransfer(ctx: PsbtDrc20Context, tick: string, amount: bigint): Promise<Outpoint | null> {
  const address = encodeURIComponent(ctx.address);
  const page = await explorer(`${ctx.explorerUrl}/api/wallet/address/${address}/transfer_inscriptions?count=100`);
  const match = (page.items as any[]).find(
    (t) =>
      t.state === "transferable" &&
      drc20TickKey(String(t.tick)) === drc20TickKey(tick) &&
      String(t.amount) === amount.toString() &&
      t.location?.txid === t.reveal_txid &&
      t.location?.vout === 0,
  );
  if (!match) return null;
  const utxos = await explorer(`${ctx.explorerUrl}/api/wallet/address/${address}/utxos?limit=500`);
  const output = (utxos.items as any[]).find(
    (u) => u.txid === match.reveal_txid && u.vout === 0 && u.spent_in_mempool === null,
  );
  return output ? { txid: output.txid, vout: 0, valueKoinu: BigInt(output.value_koinu) } : null;
}
