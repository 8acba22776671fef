/**
 * A payment the page builds for the wallet to sign (DESIGN.md 7: the wallet only signs, the explorer
 * broadcasts): `amountKoinu` to one address, funded from the payer's confirmed outputs that carry
 * no inscription or DRC-20 transfer (the explorer's UTXO list marks them), the change back to the
 * payer, at Dogecoin Core 1.14.6's fee for the wallet's rate (src/doge/policy.ts: 0.01 DOGE per kB,
 * a soft-dust surcharge per output below 0.01 DOGE). Each input carries its previous transaction
 * (read from the explorer's Esplora subset), which is how every wallet checks what it signs.
 */
import { Psbt } from "bitcoinjs-lib";
import {
  DogeNetwork,
  RECOMMENDED_FEE_RATE,
  SOFT_DUST_LIMIT,
  addressToOutputScript,
  hexToBytes,
  minRelayFee,
  toBitcoinjsNetwork,
} from "../../src/doge";
import { PaymentError } from "./payment-error";

export { PaymentError };

/** Bytes of a signed P2PKH input and of a P2PKH output, and the rest of a version-1 transaction (src/services/user-psbt.ts). */
const P2PKH_INPUT_BYTES = 32 + 4 + 1 + 108 + 4;
const P2PKH_OUTPUT_BYTES = 8 + 1 + 25;
const TX_OVERHEAD_BYTES = 4 + 1 + 1 + 4;
/** A payment spends at most this many outputs (the launchpad's and inscriber's user PSBTs' cap). */
const MAX_INPUTS = 50;

interface ExplorerUtxo {
  txid: string;
  vout: number;
  value_koinu: string;
  confirmations: number;
  carrier: string | null;
  inscriptions: unknown[];
  drc20: unknown[];
  spendable: boolean;
}

export interface BuiltPayment {
  psbt: string;
  feeKoinu: string;
  changeKoinu: string;
  inputs: { txid: string; vout: number; valueKoinu: string }[];
}

async function explorerJson(url: string): Promise<any> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch {
    throw new PaymentError("EXPLORER_UNREACHABLE", "the explorer did not answer; check your connection and retry");
  }
  const text = await response.text();
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try {
      message = JSON.parse(text).error.message;
    } catch {
      // the status is all there is
    }
    throw new PaymentError("EXPLORER_REFUSED", `the explorer refused ${url}: ${message}`);
  }
  return text;
}

const toDoge = (koinu: bigint) => {
  const fraction = (koinu % 100_000_000n).toString().padStart(8, "0").replace(/0+$/, "");
  return `${koinu / 100_000_000n}${fraction ? `.${fraction}` : ""}`;
};

/** Builds the unsigned payment PSBT (base64) of `amountKoinu` from `address` to `to`. */
export async function buildPayment(options: {
  explorerUrl: string;
  network: DogeNetwork;
  address: string;
  to: string;
  amountKoinu: string | bigint;
  feeRateKoinuPerKb?: bigint;
}): Promise<BuiltPayment> {
  const { explorerUrl, network, address } = options;
  const amount = BigInt(options.amountKoinu);
  const rate = options.feeRateKoinuPerKb ?? RECOMMENDED_FEE_RATE;
  const payScript = addressToOutputScript(options.to, network);
  const ownScript = addressToOutputScript(address, network);
  const page = JSON.parse(
    await explorerJson(`${explorerUrl}/api/wallet/address/${encodeURIComponent(address)}/utxos?limit=500`),
  ) as { items: ExplorerUtxo[] };
  const coins = page.items
    .filter(
      (u) =>
        u.spendable && u.confirmations > 0 && u.carrier === null && u.inscriptions.length === 0 && u.drc20.length === 0,
    )
    .map((u) => ({ txid: u.txid, vout: u.vout, value: BigInt(u.value_koinu) }))
    .sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
  const fixed = [{ script: payScript, value: amount }];
  const feeFor = (inputs: number, outputs: { script: Uint8Array; value: bigint }[]) =>
    minRelayFee(TX_OVERHEAD_BYTES + inputs * P2PKH_INPUT_BYTES + outputs.length * P2PKH_OUTPUT_BYTES, outputs, rate);
  const chosen: typeof coins = [];
  let total = 0n;
  for (const coin of coins) {
    if (chosen.length === MAX_INPUTS) break;
    chosen.push(coin);
    total += coin.value;
    if (total >= amount + feeFor(chosen.length, fixed)) break;
  }
  const bare = feeFor(chosen.length, fixed);
  if (total < amount + bare) {
    const spendable = coins.reduce((sum, c) => sum + c.value, 0n);
    throw new PaymentError(
      "INSUFFICIENT_FUNDS",
      `${address} has ${toDoge(spendable)} DOGE it can spend (confirmed, without inscriptions); this payment needs ${toDoge(amount + bare)} DOGE with its network fee. Add DOGE to the address and try again.`,
      { spendable_koinu: spendable.toString(), needed_koinu: (amount + bare).toString() },
    );
  }
  let outputs = fixed;
  let fee = bare;
  const withChange = [...fixed, { script: ownScript, value: 0n }];
  const changeFee = feeFor(chosen.length, [...fixed, { script: ownScript, value: SOFT_DUST_LIMIT }]);
  const change = total - amount - changeFee;
  if (change >= SOFT_DUST_LIMIT) {
    withChange[1].value = change;
    outputs = withChange;
    fee = changeFee;
  }
  const psbt = new Psbt({ network: toBitcoinjsNetwork(network) });
  psbt.setVersion(1);
  psbt.setMaximumFeeRate(100_000_000);
  for (const coin of chosen) {
    const hex = await explorerJson(`${explorerUrl}/esplora/api/tx/${coin.txid}/hex`);
    psbt.addInput({ hash: coin.txid, index: coin.vout, nonWitnessUtxo: hexToBytes(hex.trim()) });
  }
  for (const output of outputs) psbt.addOutput({ script: output.script, value: output.value });
  return {
    psbt: psbt.toBase64(),
    feeKoinu: fee.toString(),
    changeKoinu: (outputs.length > 1 ? outputs[1].value : 0n).toString(),
    inputs: chosen.map((c) => ({ txid: c.txid, vout: c.vout, valueKoinu: c.value.toString() })),
  };
}

/** Finalises a payment PSBT signed by the wallet (P2PKH inputs) and answers the transaction's hex. */
export function finalizePayment(psbtBase64: string, network: DogeNetwork): string {
  const psbt = Psbt.fromBase64(psbtBase64, { network: toBitcoinjsNetwork(network) });
  psbt.setMaximumFeeRate(100_000_000);
  psbt.finalizeAllInputs();
  return psbt.extractTransaction().toHex();
}
