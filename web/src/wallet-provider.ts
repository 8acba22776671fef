/**
 * The pages' wallet provider: `window.wallet` (DESIGN.md 7's connect() and signPSBT(), plus what
 * the pages need) over the wallets people have. It finds the injected wallets — MyDoge
 * (window.doge, announced by `doge#initialized`), DogeLabs (window.dogeLabs), UniSat-style
 * (window.unisat) and, on a devnet page whose daemon has a development key, our development wallet —
 * lets the person choose one (remembered in this browser), and maps each wallet's methods and PSBT
 * form once (web/src/wallets/*.ts). A step a wallet cannot do, a refusal, and a wallet on another
 * network than the page are WalletErrors whose message names the wallet and the step.
 *
 *   wallet.available()                 -> [{id, name}]   the wallets found now
 *   wallet.choose(id | null)           picks one (null forgets the choice)
 *   wallet.connect({message?})         -> {address, publicKey, network, wallet, signature?}
 *   wallet.signPSBT(psbtBase64)        -> psbtBase64: the wallet's inputs signed, unfinalised
 *   wallet.signMessage(text)           -> base64 compact signature (Dogecoin signmessage)
 *   wallet.getBalance()                -> {confirmed_koinu, unconfirmed_koinu}
 *   wallet.sendDrc20({tick, amount, to}) -> {txid}  a DRC-20 deposit through the wallet's own
 *                                      transfer step (it inscribes a transfer of `amount` onto its
 *                                      address, then sends that inscription to `to`), or, for a
 *                                      wallet that only signs PSBTs (DogeLabs, WalletConnect), through
 *                                      PSBTs it signs (web/src/wallets/psbt-drc20.ts: the page
 *                                      inscribes with an ephemeral reveal key onto the person's
 *                                      address, the wallet signs the commit and the send); the txid
 *                                      is the send's, the deposit an order names
 *   wallet.checkSendDrc20()            throws the WalletError sendDrc20 would for a wallet that can
 *                                      do neither, asking the wallet nothing (before an order)
 *   wallet.disconnect()
 *   wallet.address, wallet.publicKey, wallet.name, wallet.network
 *   wallet.waiting                     -> {wallet, step, since} of the oldest request the wallet has
 *                                      not answered yet, or null
 *   wallet.stopWaiting()               rejects every unanswered request with WALLET_ABANDONED;
 *                                      answers how many there were
 *
 * A wallet may never answer: MyDoge's page script settles a request only on a response carrying
 * `data` or `error` (mydoge-com/mydogemask scripts/inject-script.js, the listener of
 * #createPopupRequestHandler), so a popup closed another way leaves the page's promise pending for
 * good. A request unanswered for WAIT_NOTICE_MS shows a notice naming the wallet and the step with a
 * "Stop waiting" button (wallet.stopWaiting()); the page's own error handling then shows the
 * WALLET_ABANDONED message and the person can try again. A late answer is dropped: nothing the page
 * has not seen is broadcast by it (a wallet that broadcasts itself, MyDoge's DRC-20 send, may still
 * send; the message says what then).
 *
 * There is no inscribe(): pages ask our services (or DogeWallets.buildPayment) for PSBTs, the wallet
 * signs, the explorer broadcasts. The one exception is sendDrc20 with MyDoge and UniSat: a DRC-20
 * transfer is inscribed and sent by the wallet itself (that is the step they offer a page), and the
 * page only learns the txid, which the AMM's deposit rule then judges from the index. Bundled for the browser by src/services/pages/wallet-provider.ts,
 * which ends the script with DogeWallets.install({network, explorerUrl?, devWallet?}).
 */
import type { Psbt } from "bitcoinjs-lib";
import * as bufferModule from "buffer";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import {
  DogeNetwork,
  addressToOutputScript,
  bytesToHex,
  decodeAddress,
  getNetwork,
  publicKeyToAddress,
  recoverMessagePublicKey,
  toBitcoinjsNetwork,
} from "../../src/doge";
import { WalletAdapter, WalletError, WalletId, WalletStep, txidAnswer, unsupported } from "./wallets/adapter";
import * as adapterModule from "./wallets/adapter";
import * as drc20TransferModule from "./wallets/drc20-transfer";
import { Drc20TransferError } from "./wallets/drc20-transfer";
import { devWalletAdapter } from "./wallets/dev";
import { MyDogeApi, myDogeAdapter } from "./wallets/mydoge";
import { UnisatStyleApi, unisatStyleAdapter } from "./wallets/unisat";
import { WalletConnectDogeApi, walletConnectAdapter } from "./wallets/walletconnect";
import * as paymentErrorModule from "./payment-error";
import { PaymentError } from "./payment-error";
import { loadPsbtKit, loadedPsbtKit, setPsbtScriptUrl } from "./psbt-load";

export { WalletError, PaymentError };

/**
 * The modules the PSBT code (/wallet-psbt.js, ./psbt-kit.ts) takes from this script instead of a
 * copy of its own, by the names src/services/pages/wallet-provider.ts gives them (SHARED_MODULES):
 * one WalletError, Drc20TransferError and PaymentError class for both scripts, the DRC-20 transfer
 * steps, the curve, SHA-256, RIPEMD-160 and Buffer once. (src/doge is not shared: the PSBT code's
 * own tree-shaken copy costs less than keeping all of it in this script.)
 */
export const shared = {
  adapter: adapterModule,
  drc20Transfer: drc20TransferModule,
  paymentError: paymentErrorModule,
  // The PSBT code uses the curve's `secp256k1` alone (web/src/wallets/psbt-forms.ts, psbt-drc20.ts).
  secp256k1: { secp256k1 },
  // The hashes bitcoinjs-lib, bs58check and src/doge/hash.ts use there (sha256 and ripemd160 alone):
  // the provider holds both already, for its addresses and message signatures.
  sha2: { sha256 },
  legacy: { ripemd160 },
  buffer: bufferModule,
};

export interface ProviderConfig {
  /** The page's network: mainnet, testnet or regtest. */
  network: string;
  /** The explorer's base URL (payments are built from its UTXOs and broadcast through it). */
  explorerUrl?: string | null;
  /** The development wallet's key (devnet and testnet pages only). */
  devWallet?: { wif: string } | null;
}

const CHOICE_KEY = "dogeos.wallet";

/** How long a wallet request goes unanswered before the page offers to stop waiting for it. */
export const WAIT_NOTICE_MS = 4000;

/** A wallet request not answered yet. */
interface Waiting {
  wallet: string;
  step: WalletStep;
  since: number;
  abandon(): void;
}

/** What a person is told after they stopped waiting for `name` to do `step`. */
function abandoned(name: string, step: WalletStep): WalletError {
  const after =
    step === "send tokens"
      ? ` If ${name} still sends them, that deposit belongs to no order: look for it in ${name}'s activity before you send again.`
      : ` If ${name} still shows the request, decline it there, then try again.`;
  return new WalletError("WALLET_ABANDONED", `stopped waiting for ${name} to ${step}.${after}`, name, step);
}

interface Connected {
  adapter: WalletAdapter;
  address: string;
  publicKey: string | null;
}

/** The human name of a network as the wallets' addresses show it. */
const networkOfAddress = (address: string): string | null => {
  try {
    return decodeAddress(address).network.name;
  } catch {
    return null;
  }
};

function mismatch(name: string, pageNetwork: string, walletNetwork: string, address: string): WalletError {
  return new WalletError(
    "NETWORK_MISMATCH",
    `${name} is on ${walletNetwork} (its address ${address}) but this page is on ${pageNetwork}: switch ${name} to ${pageNetwork}, or use the ${walletNetwork} pages, then connect again.`,
    name,
    "connect",
  );
}

export function createProvider(config: ProviderConfig, scope: any = globalThis) {
  const network: DogeNetwork = getNetwork(config.network);
  const btcNetwork = toBitcoinjsNetwork(network);
  const dev =
    config.devWallet && network.name !== "mainnet"
      ? devWalletAdapter({ wif: config.devWallet.wif, network: network.name }, btcNetwork, config.explorerUrl ?? null)
      : null;
  let connected: Connected | null = null;
  const waits = new Set<Waiting>();
  let notice: { element: HTMLElement | null; timer: ReturnType<typeof setTimeout> | null } = {
    element: null,
    timer: null,
  };

  /** The request unanswered the longest (a Set iterates in insertion order), or undefined. */
  const oldestWait = (): Waiting | undefined => waits.values().next().value;

  /** Shows, after WAIT_NOTICE_MS, or removes the "Stop waiting" notice as requests start and end. */
  function updateNotice(): void {
    const document = scope.document as Document | undefined;
    if (!document) return;
    const oldest = oldestWait();
    if (!oldest) {
      if (notice.timer !== null) clearTimeout(notice.timer);
      notice.element?.remove();
      document.body.classList.remove("wallet-waiting-open");
      notice = { element: null, timer: null };
      return;
    }
    if (notice.element) {
      notice.element.querySelector("p")!.textContent = noticeText(oldest);
      return;
    }
    if (notice.timer !== null) return;
    notice.timer = setTimeout(() => {
      notice.timer = null;
      const first = oldestWait();
      if (!first) return;
      const element = document.createElement("div");
      element.className = "wallet-waiting";
      element.setAttribute("role", "status");
      const text = document.createElement("p");
      text.textContent = noticeText(first);
      const stop = document.createElement("button");
      stop.type = "button";
      stop.className = "secondary";
      stop.textContent = "Stop waiting";
      stop.addEventListener("click", () => provider.stopWaiting());
      element.append(text, stop);
      document.body.append(element);
      notice.element = element;
      // Room below the page's last line, so that nothing stays under the notice once scrolled to.
      document.body.classList.add("wallet-waiting-open");
    }, WAIT_NOTICE_MS);
  }

  const noticeText = (w: Waiting) =>
    `Waiting for ${w.wallet} to ${w.step}. If its window was closed or shows nothing, stop waiting and try again.`;

  /**
   * The wallet's answer to `request` for `step`, or WALLET_ABANDONED once the person stops waiting
   * (wallet.stopWaiting()); an answer after that is dropped.
   */
  function ask<T>(adapter: WalletAdapter, step: WalletStep, request: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (then: () => void) => {
        if (settled) return;
        settled = true;
        waits.delete(entry);
        updateNotice();
        then();
      };
      const entry: Waiting = {
        wallet: adapter.name,
        step,
        since: Date.now(),
        abandon: () => settle(() => reject(abandoned(adapter.name, step))),
      };
      waits.add(entry);
      updateNotice();
      let answer: Promise<T>;
      try {
        answer = request();
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then(
        (value) => settle(() => resolve(value)),
        (error) => settle(() => reject(error)),
      );
    });
  }

  /** The wallets injected now (MyDoge appears on the page's load event). */
  function adapters(): WalletAdapter[] {
    const found: WalletAdapter[] = [];
    const doge = scope.doge as MyDogeApi | undefined;
    if (doge && typeof doge.connect === "function") found.push(myDogeAdapter(doge));
    const dogeLabs = scope.dogeLabs as UnisatStyleApi | undefined;
    if (dogeLabs && typeof dogeLabs.requestAccounts === "function")
      found.push(unisatStyleAdapter("dogelabs", "DogeLabs", dogeLabs, btcNetwork));
    const unisat = scope.unisat as UnisatStyleApi | undefined;
    if (unisat && typeof unisat.requestAccounts === "function")
      found.push(unisatStyleAdapter("unisat", "UniSat", unisat, btcNetwork));
    const walletConnect = scope.walletConnectDoge as WalletConnectDogeApi | undefined;
    if (walletConnect && typeof walletConnect.request === "function")
      found.push(walletConnectAdapter(walletConnect, network));
    if (dev) found.push(dev);
    return found;
  }

  const storage = (): Storage | null => {
    try {
      return scope.localStorage ?? null;
    } catch {
      return null;
    }
  };

  function chosenId(): WalletId | null {
    return (storage()?.getItem(CHOICE_KEY) as WalletId | null) ?? null;
  }

  /** Lets the person pick a wallet in a dialog; resolves with its id, rejects when dismissed. */
  function askForWallet(list: WalletAdapter[]): Promise<WalletId> {
    const document = scope.document as Document;
    return new Promise((resolve, reject) => {
      const dialog = document.createElement("dialog");
      dialog.className = "wallet-chooser";
      dialog.setAttribute("aria-labelledby", "wallet-chooser-title");
      const title = document.createElement("h2");
      title.id = "wallet-chooser-title";
      title.textContent = "Choose a wallet";
      const hint = document.createElement("p");
      hint.textContent = "These wallets are in this browser. The page remembers your choice.";
      dialog.append(title, hint);
      const finish = (id: WalletId | null) => {
        dialog.close();
        dialog.remove();
        if (id) resolve(id);
        else reject(new WalletError("WALLET_NOT_CHOSEN", "no wallet was chosen; choose one to go on", null, "connect"));
      };
      for (const adapter of list) {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.wallet = adapter.id;
        button.textContent = adapter.name;
        button.addEventListener("click", () => finish(adapter.id));
        dialog.append(button);
      }
      const cancel = document.createElement("button");
      cancel.type = "button";
      cancel.className = "secondary";
      cancel.textContent = "Cancel";
      cancel.addEventListener("click", () => finish(null));
      dialog.addEventListener("cancel", (event) => {
        event.preventDefault();
        finish(null);
      });
      dialog.append(cancel);
      document.body.append(dialog);
      dialog.showModal();
    });
  }

  async function pickAdapter(): Promise<WalletAdapter> {
    const list = adapters();
    if (list.length === 0)
      throw new WalletError(
        "NO_WALLET",
        "no Dogecoin wallet in this browser: install MyDoge, DogeLabs or a UniSat-style wallet, then reload the page",
        null,
        "connect",
      );
    const remembered = list.find((a) => a.id === chosenId());
    if (remembered) return remembered;
    const id = list.length === 1 ? list[0].id : await askForWallet(list);
    storage()?.setItem(CHOICE_KEY, id);
    return list.find((a) => a.id === id)!;
  }

  function needConnected(step: string): Connected {
    if (!connected) throw new WalletError("NOT_CONNECTED", `connect a wallet before you ${step}`, null, null);
    return connected;
  }

  async function signMessageWith(c: Connected, message: string): Promise<string> {
    const { adapter } = c;
    if (!adapter.signMessage)
      throw new WalletError(
        "WALLET_UNSUPPORTED",
        `${adapter.name} cannot sign a message here; choose another wallet for this step.`,
        adapter.name,
        "sign a message",
      );
    if (typeof message !== "string" || message.length === 0)
      throw new WalletError(
        "INVALID_MESSAGE",
        "the message to sign must be a non-empty string",
        adapter.name,
        "sign a message",
      );
    const signature = await ask(adapter, "sign a message", () => adapter.signMessage!(message, c.address));
    const recovered = recoverMessagePublicKey(message, signature);
    if (!recovered || publicKeyToAddress(recovered.publicKey, network) !== c.address)
      throw new WalletError(
        "WALLET_BAD_ANSWER",
        `${adapter.name}'s signature of the message is not by ${c.address} (a wallet signing with another message prefix or key)`,
        adapter.name,
        "sign a message",
      );
    // A wallet that does not tell its public key shows it in its signature.
    if (!c.publicKey && recovered.compressed) c.publicKey = bytesToHex(recovered.publicKey);
    return signature;
  }

  /**
   * How sendDrc20 goes with `adapter`: the wallet's own DRC-20 step when it has one, else PSBTs it
   * signs (web/src/wallets/psbt-drc20.ts, which needs the page's explorer); throws the "cannot"
   * message of a wallet that can do neither.
   */
  function drc20Route(adapter: WalletAdapter): "wallet" | "psbt" {
    const own = adapter.sendDrc20
      ? (adapter.sendDrc20Unsupported?.() ?? null)
      : unsupported(adapter.name, "send tokens", "DRC-20 transfer step");
    if (!own) return "wallet";
    const cannotSign = adapter.signPsbt
      ? (adapter.signPsbtUnsupported?.() ?? null)
      : unsupported(adapter.name, "sign the payment", "signPsbt method");
    if (cannotSign)
      throw new WalletError(
        "WALLET_UNSUPPORTED",
        `${adapter.name} cannot send tokens here: it has no DRC-20 transfer step of its own (${own.message.replace(/^.*?: it has no /, "no ").replace(/\. Choose another wallet for this step\.$/, "")}) and cannot sign the PSBTs the page would inscribe it with (${cannotSign.message.replace(/^.*?: it has no /, "no ").replace(/\. Choose another wallet for this step\.$/, "")}). Choose another wallet for this step.`,
        adapter.name,
        "send tokens",
      );
    if (!config.explorerUrl)
      throw unsupported(
        adapter.name,
        "send tokens",
        "DRC-20 step of its own, and this page names no explorer to inscribe the transfer through",
      );
    return "psbt";
  }

  const provider = {
    isDogeosProvider: true as const,
    get network() {
      return network.name;
    },
    get address() {
      return connected?.address ?? null;
    },
    get publicKey() {
      return connected?.publicKey ?? null;
    },
    get name() {
      return connected?.adapter.name ?? null;
    },
    get explorerUrl() {
      return config.explorerUrl ?? null;
    },
    available(): { id: WalletId; name: string }[] {
      return adapters().map((a) => ({ id: a.id, name: a.name }));
    },
    choose(id: WalletId | null): void {
      connected = null;
      if (id === null) storage()?.removeItem(CHOICE_KEY);
      else storage()?.setItem(CHOICE_KEY, id);
    },
    async connect(options: { message?: unknown } = {}) {
      if (!connected) {
        const adapter = await pickAdapter();
        const account = await ask(adapter, "connect", () => adapter.connect());
        const walletNetwork = networkOfAddress(account.address);
        if (walletNetwork === null)
          throw new WalletError(
            "WALLET_BAD_ANSWER",
            `${adapter.name} answered an address that is not a Dogecoin address: ${account.address}`,
            adapter.name,
            "connect",
          );
        const hint = account.networkHint?.toLowerCase() ?? null;
        const hintedMainnet = hint === "livenet" || hint === "mainnet";
        if (walletNetwork !== network.name) throw mismatch(adapter.name, network.name, walletNetwork, account.address);
        if (hint && hintedMainnet !== (network.name === "mainnet"))
          throw mismatch(adapter.name, network.name, hintedMainnet ? "mainnet" : hint, account.address);
        connected = { adapter, address: account.address, publicKey: account.publicKey };
      }
      const c = connected;
      const answer: Record<string, string> = {
        address: c.address,
        network: network.name,
        wallet: c.adapter.name,
      };
      if (options.message !== undefined) answer.signature = await signMessageWith(c, options.message as string);
      if (c.publicKey) answer.publicKey = c.publicKey;
      return answer as { address: string; network: string; wallet: string; publicKey?: string; signature?: string };
    },
    async signMessage(message: string): Promise<string> {
      return signMessageWith(needConnected("sign a message"), message);
    },
    async signPSBT(psbtBase64: unknown): Promise<string> {
      const c = connected ?? (await provider.connect(), connected!);
      const { adapter } = c;
      if (!adapter.signPsbt)
        throw new WalletError(
          "WALLET_UNSUPPORTED",
          `${adapter.name} cannot sign the payment here; choose another wallet for this step.`,
          adapter.name,
          "sign the payment",
        );
      const kit = await loadPsbtKit();
      let psbt: Psbt;
      try {
        if (typeof psbtBase64 !== "string") throw new Error("signPSBT takes a base64 PSBT");
        psbt = kit.Psbt.fromBase64(psbtBase64, { network: btcNetwork });
      } catch (error) {
        throw new WalletError(
          "INVALID_PSBT",
          `not a PSBT: ${(error as Error).message}`,
          adapter.name,
          "sign the payment",
        );
      }
      const indexes = kit.ownInputIndexes(psbt, addressToOutputScript(c.address, network));
      if (indexes.length === 0)
        throw new WalletError(
          "NOTHING_TO_SIGN",
          `no input of this payment spends ${c.address}, the address ${adapter.name} is connected with`,
          adapter.name,
          "sign the payment",
        );
      const signed = await ask(adapter, "sign the payment", () => adapter.signPsbt!(psbt, indexes, c.address));
      return signed.toBase64();
    },
    async sendDrc20(request: { tick?: unknown; amount?: unknown; to?: unknown } = {}): Promise<{ txid: string }> {
      const c = connected ?? (await provider.connect(), connected!);
      const { adapter } = c;
      const invalid = (what: string) =>
        new WalletError("INVALID_REQUEST", `sendDrc20: ${what}`, adapter.name, "send tokens");
      const { tick, to, amount: given } = request ?? {};
      const amount = typeof given === "bigint" ? given.toString() : given;
      if (typeof tick !== "string" || !/^\S{1,64}$/.test(tick)) throw invalid("tick must be a DRC-20 tick");
      if (typeof amount !== "string" || !/^[1-9]\d*$/.test(amount))
        throw invalid("amount must be a whole number of tokens above 0, as a decimal string");
      if (typeof to !== "string" || networkOfAddress(to) !== network.name)
        throw invalid(`to must be an address on ${network.name}`);
      if (drc20Route(adapter) === "wallet") {
        const answer = await ask(adapter, "send tokens", () => adapter.sendDrc20!({ tick, amount, to }, c.address));
        return { txid: txidAnswer(adapter.name, "send tokens", answer?.txid) };
      }
      try {
        const { sendDrc20WithPsbts } = await loadPsbtKit();
        const sent = await sendDrc20WithPsbts(
          {
            network,
            address: c.address,
            explorerUrl: config.explorerUrl!,
            storage: storage(),
            sign: (psbt, indexes) =>
              ask(adapter, "sign the payment", () => adapter.signPsbt!(psbt, indexes, c.address)),
          },
          { tick, amount: BigInt(amount), to },
        );
        return { txid: sent.txid };
      } catch (error) {
        if (error instanceof Drc20TransferError)
          throw new WalletError(
            error.code,
            `${adapter.name} could not send tokens: ${error.message}`,
            adapter.name,
            "send tokens",
          );
        throw error;
      }
    },
    checkSendDrc20(): void {
      drc20Route(needConnected("send tokens").adapter);
    },
    async getBalance(): Promise<{ confirmed_koinu: string; unconfirmed_koinu: string }> {
      const c = needConnected("read the balance");
      if (!c.adapter.balance)
        throw new WalletError(
          "WALLET_UNSUPPORTED",
          `${c.adapter.name} cannot read the balance here`,
          c.adapter.name,
          "read the balance",
        );
      const balance = await ask(c.adapter, "read the balance", () => c.adapter.balance!(c.address));
      return { confirmed_koinu: balance.confirmedKoinu, unconfirmed_koinu: balance.unconfirmedKoinu };
    },
    async disconnect(): Promise<void> {
      const c = connected;
      connected = null;
      if (c?.adapter.disconnect) await ask(c.adapter, "disconnect", () => c.adapter.disconnect!());
    },
    get waiting(): { wallet: string; step: WalletStep; since: number } | null {
      const oldest = oldestWait();
      return oldest ? { wallet: oldest.wallet, step: oldest.step, since: oldest.since } : null;
    },
    stopWaiting(): number {
      const pending = [...waits];
      for (const w of pending) w.abandon();
      return pending.length;
    },
  };
  return provider;
}

export type WalletProvider = ReturnType<typeof createProvider>;

/** What the pages call besides window.wallet: the payment builder over this page's explorer. */
export let config: ProviderConfig | null = null;

/** Installs window.wallet (the served script calls it) and tells the page when a wallet appears. */
export function install(providerConfig: ProviderConfig): void {
  config = providerConfig;
  const scope = globalThis as any;
  // The PSBT code is loaded from beside this script (/wallet-provider.js -> /wallet-psbt.js).
  const own = scope.document?.currentScript?.src;
  if (typeof own === "string" && own) setPsbtScriptUrl(new URL("wallet-psbt.js", own).href);
  scope.wallet = createProvider(providerConfig, scope);
  // MyDoge sets window.doge on the load event and announces it (mydogemask inject-script.js).
  scope.addEventListener?.("doge#initialized", () => scope.dispatchEvent(new Event("wallet#changed")));
}

/** The unsigned payment PSBT of `amountKoinu` from the connected address to `to`. */
export async function preparePayment(to: string, amountKoinu: string) {
  const scope = globalThis as any;
  const provider = scope.wallet as WalletProvider;
  if (!config?.explorerUrl)
    throw new PaymentError("NO_EXPLORER", "this page names no explorer to build the payment from");
  if (!provider.address) throw new WalletError("NOT_CONNECTED", "connect a wallet before you pay");
  const { buildPayment } = await loadPsbtKit();
  return buildPayment({
    explorerUrl: config.explorerUrl,
    network: getNetwork(config.network),
    address: provider.address,
    to,
    amountKoinu,
  });
}

/**
 * The signed payment as a transaction to broadcast. Synchronous as the pages call it: the PSBT code
 * is loaded by then (wallet.signPSBT and preparePayment load it).
 */
export function finishPayment(signedBase64: string): string {
  if (!config) throw new Error("the wallet provider is not installed");
  const kit = loadedPsbtKit();
  if (!kit) throw new PaymentError("PSBT_NOT_LOADED", "sign the payment with wallet.signPSBT before finishing it");
  return kit.finalizePayment(signedBase64, getNetwork(config.network));
}
