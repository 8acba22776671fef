/**
 * Stand-ins for the UniSat page interface (UniSat Wallet API, docs.unisat.io; the shapes as typed in
 * @btc-vision/transaction src/transaction/browser/types/Unisat.ts): `window.unisat`, and DogeLabs'
 * `window.dogeLabs` with the same interface (requestAccounts, getAccounts, getBalance, sendBitcoin,
 * signPsbt(hex), pushPsbt, switchNetwork/getNetwork, on('accountsChanged' | 'networkChanged'), and
 * signMessage(text, type) as pages call it). Rejections are UniSat's `{code: 4001, message: "User
 * rejected the request."}` (EIP-1193's user-rejected code, which UniSat answers). signPsbt
 * finalises the inputs it signs unless `autoFinalized: false`; `toSignInputs` names them, else every
 * input the key can sign. Balances are koinu as numbers; getNetwork answers "testnet" for a test
 * network's key ("livenet" for mainnet), UniSat's two network names.
 */
import { Psbt, Transaction } from "bitcoinjs-lib";
import { addressToOutputScript, equalBytes } from "../../../src/doge";
import { buildPayment } from "../../../web/src/payment";
import { StandinConfig, broadcast, declines, explorerBalance, omitMethods, standinKey } from "./common";

const rejection = () => Object.assign(new Error("User rejected the request."), { code: 4001 });

export function installUnisatStyle(config: StandinConfig, global: "unisat" | "dogeLabs"): void {
  const key = standinKey(config);
  const own = addressToOutputScript(key.address, key.network);
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const decline = (method: string) => {
    if (declines(config, method)) throw rejection();
  };
  /** The inputs this key can sign: those spending its own output (their previous transaction is in the PSBT). */
  const ownInputs = (hex: string) => {
    const psbt = Psbt.fromHex(hex, { network: key.btcNetwork });
    return psbt.txInputs
      .map((input, i) => ({ input, i, previous: psbt.data.inputs[i].nonWitnessUtxo }))
      .filter(({ input, previous }) => {
        if (!previous) return false;
        return equalBytes(Transaction.fromBuffer(previous as never).outs[input.index].script, own);
      })
      .map(({ i }) => i);
  };
  const network = key.network.name === "mainnet" ? "livenet" : "testnet";

  class UnisatStyleWallet {
    async requestAccounts() {
      decline("requestAccounts");
      return [key.address];
    }
    async getAccounts() {
      return [key.address];
    }
    async getPublicKey() {
      return key.publicKeyHex;
    }
    async getNetwork() {
      return network;
    }
    async switchNetwork(to: string) {
      if (to !== network) throw new Error(`this wallet holds a ${network} key only`);
      return network;
    }
    async getBalance() {
      const { confirmed, unconfirmed } = await explorerBalance(config, key.address);
      return { confirmed: Number(confirmed), unconfirmed: Number(unconfirmed), total: Number(confirmed + unconfirmed) };
    }
    async signPsbt(hex: string, options: { autoFinalized?: boolean; toSignInputs?: { index: number }[] } = {}) {
      decline("signPsbt");
      const indexes = options.toSignInputs ? options.toSignInputs.map((t) => t.index) : ownInputs(hex);
      if (indexes.length === 0) throw new Error("no input to sign");
      return key.signPsbtHex(hex, indexes, options.autoFinalized !== false).toHex();
    }
    async signPsbts(hexes: string[], options: { autoFinalized?: boolean; toSignInputs?: { index: number }[] }[] = []) {
      const out: string[] = [];
      for (const [i, hex] of hexes.entries()) out.push(await this.signPsbt(hex, options[i]));
      return out;
    }
    async pushPsbt(hex: string) {
      const psbt = Psbt.fromHex(hex, { network: key.btcNetwork });
      psbt.setMaximumFeeRate(100_000_000);
      return broadcast(config, psbt.extractTransaction().toHex());
    }
    async pushTx({ rawtx }: { rawtx: string }) {
      return broadcast(config, rawtx);
    }
    async sendBitcoin(to: string, koinu: number) {
      decline("sendBitcoin");
      const built = await buildPayment({
        explorerUrl: config.explorerUrl,
        network: key.network,
        address: key.address,
        to,
        amountKoinu: BigInt(koinu),
      });
      const psbt = key.signPsbtHex(Psbt.fromBase64(built.psbt).toHex(), null, true);
      return broadcast(config, psbt.extractTransaction().toHex());
    }
    async signMessage(text: string, type = "ecdsa") {
      decline("signMessage");
      if (type === "bip322-simple")
        throw new Error("bip322-simple needs a segwit or taproot address; Dogecoin has none");
      return key.signMessage(text);
    }
    on(event: string, handler: (...args: unknown[]) => void) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(handler);
    }
    removeListener(event: string, handler: (...args: unknown[]) => void) {
      listeners.get(event)?.delete(handler);
    }
  }

  const wallet = new UnisatStyleWallet();
  omitMethods(wallet, config);
  (window as any)[global] = wallet;
}
