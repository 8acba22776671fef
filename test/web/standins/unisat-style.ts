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
 *
 * DRC-20 (done for real on the devnet with the stand-in's key, web/src/wallets/drc20-transfer.ts):
 * UniSat's inscribeTransfer(ticker, amount) (unisat-wallet/extension
 * src/content-script/pageProvider/index.ts; its approval page
 * src/ui/pages/Approval/components/InscribeTransfer.tsx inscribes a TRANSFER onto the wallet's own
 * address and resolves {inscriptionId, inscriptionNumber, ticker, amount}; our index numbers no
 * inscriptions, so inscriptionNumber is null) and sendInscription(toAddress, inscriptionId,
 * {feeRate}?) -> txid, both rejecting with the user-rejected error. DogeLabs has sendInscription
 * (pages call window.dogeLabs.sendInscription(to, id, {feeRate})) but no inscribeTransfer in any
 * published source, so its stand-in has none.
 */
import { Psbt, Transaction } from "bitcoinjs-lib";
import { addressToOutputScript, equalBytes } from "../../../src/doge";
import { buildPayment } from "../../../web/src/payment";
import {
  Outpoint,
  findOwnOutput,
  inscribeDrc20Transfer,
  sendInscribedOutput,
} from "../../../web/src/wallets/drc20-transfer";
import { StandinConfig, broadcast, declines, explorerBalance, explorerJson, omitMethods, standinKey } from "./common";

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
  /** Transfer inscriptions this wallet made and has not sent, by inscription id. */
  const inscribed = new Map<string, Outpoint>();
  /** Where an inscription of this wallet is now: its own record, else the explorer's index of its transfers. */
  const locate = async (inscriptionId: string): Promise<Outpoint | null> => {
    const own = inscribed.get(inscriptionId);
    if (own) return own;
    const page = await explorerJson(config, `/api/wallet/address/${key.address}/transfer_inscriptions?count=100`);
    const found = (page.items as any[]).find((t) => t.inscription_id === inscriptionId && t.location);
    return found ? findOwnOutput(key.transferKey, found.location.txid, found.location.vout) : null;
  };

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
    async inscribeTransfer(ticker: string, amount: string) {
      decline("inscribeTransfer");
      const made = await inscribeDrc20Transfer(key.transferKey, ticker, BigInt(amount));
      inscribed.set(made.inscriptionId, made.output);
      return { inscriptionId: made.inscriptionId, inscriptionNumber: null, ticker, amount };
    }
    async sendInscription(toAddress: string, inscriptionId: string, _options?: { feeRate?: number }) {
      decline("sendInscription");
      const output = await locate(inscriptionId);
      if (!output) throw new Error(`inscription ${inscriptionId} is not in this wallet`);
      const txid = await sendInscribedOutput(key.transferKey, output, toAddress);
      inscribed.delete(inscriptionId);
      return txid;
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
  omitMethods(
    wallet,
    global === "dogeLabs" ? { ...config, omit: [...(config.omit ?? []), "inscribeTransfer"] } : config,
  );
  (window as any)[global] = wallet;
}
