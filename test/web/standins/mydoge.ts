/**
 * A stand-in for MyDoge's page interface, `window.doge`, as mydoge-com/mydogemask
 * scripts/inject-script.js (class MyDogeWallet) defines it: the same method names, argument and
 * answer shapes, promise rejections with an Error of the wallet's message ("Invalid data" for a
 * request without its fields, as #createPopupRequestHandler's isDataValid check; the person's
 * refusal otherwise), the object set on the window's load event followed by a `doge#initialized`
 * event, and no events after connect. The popups are replaced by the knobs of StandinConfig; it signs
 * with a real key as scripts/helpers/wallet.js does (signRawPsbt: Psbt.fromHex(rawTx), signInput for
 * each of `indexes`, finalizeInput for every input, extractTransaction().toHex()).
 *
 * Its DRC-20 steps do for real on the devnet what MyDoge's servers do for the extension
 * (web/src/wallets/drc20-transfer.ts with the stand-in's key):
 * - getDRC20Balance({ticker}) -> {availableBalance, transferableBalance, ticker, address} and
 *   getTransferableDRC20({ticker}) -> {inscriptions: [{txid, vout, ticker, contentType, content,
 *   output, amount}], ticker, address}, read from the explorer's index ("Invalid data" without a
 *   ticker, as inject-script.js checks).
 * - requestAvailableDRC20Transaction({ticker, amount}) inscribes a transfer onto the wallet's own
 *   address, broadcasts [commit, reveal] and answers {txId: the reveal's txid, ticker, amount}
 *   (background.js onSendInscribeTransfer answers results[1] and caches the location
 *   `${results[1]}:0:0`; onApproveAvailableDRC20Transaction answers {txId, ticker, amount}). The
 *   popup's refusal is "User refused transaction" and a failure "Failed to inscribe token transfer"
 *   (views/ClientRequest/ClientAvailableDRC20Transaction.js).
 * - requestInscriptionTransaction({recipientAddress, location: "txid:vout:offset"}) sends the
 *   inscribed output at `location` and answers {txId} (onApproveDoginalTransaction).
 */
import {
  Drc20TransferError,
  Outpoint,
  findOwnOutput,
  inscribeDrc20Transfer,
  sendInscribedOutput,
} from "../../../web/src/wallets/drc20-transfer";
import {
  StandinConfig,
  broadcast,
  declines,
  explorerBalance,
  explorerJson,
  leftUnanswered,
  omitMethods,
  standinKey,
} from "./common";

export function installMyDoge(config: StandinConfig): void {
  const key = standinKey(config);
  let connected = false;
  /** Rejects as the extension does when the person closes the popup (its response carries `error`). */
  const decline = (method: string) => {
    if (declines(config, method)) throw new Error("User rejected request");
  };

  /** The popups of the DRC-20 requests: the person's refusal (ClientAvailableDRC20Transaction.js's text). */
  const declineTransaction = (method: string) => {
    if (declines(config, method)) throw new Error("User refused transaction");
  };
  /** Transfer inscriptions this wallet made and has not sent yet, by "txid:vout" (the extension's INSCRIPTION_TXS_CACHE). */
  const inscribed = new Map<string, Outpoint>();

  class MyDogeWallet {
    isMyDoge = true;

    async connect() {
      const pending = leftUnanswered(config, "connect");
      if (pending) return pending;
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
      const pending = leftUnanswered(config, "requestPsbt");
      if (pending) return pending;
      decline("requestPsbt");
      const psbt = key.signPsbtHex(data.rawTx, data.indexes.map(Number), false);
      for (let i = 0; i < psbt.txInputs.length; i++) psbt.finalizeInput(i);
      const rawTx = psbt.extractTransaction().toHex();
      if (data.signOnly) return { signedRawTx: rawTx };
      return { txId: await broadcast(config, rawTx) };
    }

    async requestSignedMessage(data: { message?: string }) {
      if (!data?.message) throw new Error("Invalid data");
      const pending = leftUnanswered(config, "requestSignedMessage");
      if (pending) return pending;
      decline("requestSignedMessage");
      return { signedMessage: key.signMessage(data.message) };
    }

    async getDRC20Balance(data: { ticker?: string }) {
      if (!data?.ticker) throw new Error("Invalid data");
      const { balances } = await explorerJson(config, `/api/wallet/address/${key.address}/drc20`);
      const held = (balances as { tick: string; available: string; transferable: string }[]).find(
        (b) => b.tick.toLowerCase() === data.ticker!.toLowerCase(),
      );
      return {
        availableBalance: Number(held?.available ?? 0),
        transferableBalance: Number(held?.transferable ?? 0),
        ticker: data.ticker,
        address: key.address,
      };
    }

    async getTransferableDRC20(data: { ticker?: string }) {
      if (!data?.ticker) throw new Error("Invalid data");
      const page = await explorerJson(
        config,
        `/api/wallet/address/${key.address}/transfer_inscriptions?envelope=true&count=100`,
      );
      const inscriptions = [];
      for (const t of page.items as any[]) {
        if (t.state !== "transferable" || t.tick.toLowerCase() !== data.ticker.toLowerCase() || !t.location) continue;
        // Not one whose send is already in the mempool (the extension keeps its sent transactions too).
        if (!(await findOwnOutput(key.transferKey, t.location.txid, t.location.vout))) continue;
        inscriptions.push({
          txid: t.location.txid,
          vout: t.location.vout,
          ticker: t.tick,
          contentType: t.content_type,
          content: t.body,
          output: `${t.location.txid}:${t.location.vout}`,
          amount: Number(t.amount),
        });
      }
      return { inscriptions, ticker: data.ticker, address: key.address };
    }

    async requestAvailableDRC20Transaction(data: { ticker?: string; amount?: string }) {
      if (!(data?.ticker && data?.amount)) throw new Error("Invalid data");
      const pending = leftUnanswered(config, "requestAvailableDRC20Transaction");
      if (pending) return pending;
      declineTransaction("requestAvailableDRC20Transaction");
      let made;
      try {
        made = await inscribeDrc20Transfer(key.transferKey, data.ticker, BigInt(data.amount));
      } catch (error) {
        if (!(error instanceof Drc20TransferError)) throw error;
        console.warn(`MyDoge stand-in: ${error.message}`);
        throw new Error("Failed to inscribe token transfer");
      }
      inscribed.set(`${made.output.txid}:${made.output.vout}`, made.output);
      return { txId: made.output.txid, ticker: data.ticker, amount: data.amount };
    }

    async requestInscriptionTransaction(data: { recipientAddress?: string; location?: string }) {
      if (!(data?.recipientAddress && data?.location)) throw new Error("Invalid data");
      declineTransaction("requestInscriptionTransaction");
      const [txid, vout] = data.location.split(":");
      const output = inscribed.get(`${txid}:${vout}`) ?? (await findOwnOutput(key.transferKey, txid, Number(vout)));
      if (!output) throw new Error(`no inscription of this wallet at ${data.location}`);
      const txId = await sendInscribedOutput(key.transferKey, output, data.recipientAddress);
      inscribed.delete(`${txid}:${vout}`);
      return { txId };
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
