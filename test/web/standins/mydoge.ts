/**
 * A stand-in for MyDoge's page interface, `window.doge`, as mydoge-com/mydogemask
 * scripts/inject-script.js (class MyDogeWallet) defines it: the same method names, argument and
 * answer shapes, promise rejections with an Error of the wallet's message ("Invalid data" for a
 * request without its fields, as #createPopupRequestHandler's isDataValid check; the person's
 * refusal otherwise), the object set on the window's load event followed by a `doge#initialized`
 * event, and no events after connect. The popups are replaced by the knobs of StandinConfig; it signs
 * with a real key as scripts/helpers/wallet.js does (signRawPsbt: Psbt.fromHex(rawTx), signInput for
 * each of `indexes`, finalizeInput for every input, extractTransaction().toHex()).
 */
import { StandinConfig, broadcast, declines, explorerBalance, omitMethods, standinKey } from "./common";

export function installMyDoge(config: StandinConfig): void {
  const key = standinKey(config);
  let connected = false;
  /** Rejects as the extension does when the person closes the popup (its response carries `error`). */
  const decline = (method: string) => {
    if (declines(config, method)) throw new Error("User rejected request");
  };

  class MyDogeWallet {
    isMyDoge = true;

    async connect() {
      decline("connect");
      connected = true;
      const { confirmed } = await explorerBalance(config, key.address);
      return { approved: true, address: key.address, publicKey: key.publicKeyHex, balance: confirmed.toString() };
    }

    async getBalance() {
      const { confirmed } = await explorerBalance(config, key.address);
      return { address: key.address, balance: confirmed.toString() };
    }

    async requestTransaction(data: { recipientAddress?: string; dogeAmount?: number }) {
      if (!(data?.recipientAddress && data?.dogeAmount)) throw new Error("Invalid data");
      throw new Error("requestTransaction is not used by the pages and not modelled by this stand-in");
    }

    async requestPsbt(data: { rawTx?: string; indexes?: number[]; signOnly?: boolean }) {
      if (!(data?.rawTx && data?.indexes?.length)) throw new Error("Invalid data");
      decline("requestPsbt");
      const psbt = key.signPsbtHex(data.rawTx, data.indexes.map(Number), false);
      for (let i = 0; i < psbt.txInputs.length; i++) psbt.finalizeInput(i);
      const rawTx = psbt.extractTransaction().toHex();
      if (data.signOnly) return { signedRawTx: rawTx };
      return { txId: await broadcast(config, rawTx) };
    }

    async requestSignedMessage(data: { message?: string }) {
      if (!data?.message) throw new Error("Invalid data");
      decline("requestSignedMessage");
      return { signedMessage: key.signMessage(data.message) };
    }

    async getConnectionStatus() {
      return { connected, address: key.address, selectedWalletAddress: key.address };
    }

    async disconnect() {
      connected = false;
      return { disconnected: true };
    }
  }

  const doge = new MyDogeWallet();
  omitMethods(doge, config);
  window.addEventListener("load", () => {
    (window as any).doge = doge;
    window.dispatchEvent(new Event("doge#initialized"));
  });
}
