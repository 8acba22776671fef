/**
 * A stand-in for a WalletConnect session with a Dogecoin wallet, as a dapp sees it through
 * WalletConnect's UniversalProvider: `request({method, params}, chainId)`, `session.namespaces.bip122`
 * with CAIP-10 accounts, `connect({optionalNamespaces})`, `on("session_event", …)`, `disconnect()`.
 * The wallet's side answers the Dogecoin RPC exactly as reown's page defines it (reown-com/reown-docs
 * advanced/multichain/rpc-reference/dogecoin-rpc.mdx): getAccountAddresses({account}) ->
 * [{address, publicKey}] (a static wallet: one address), signPsbt({account, psbt, signInputs,
 * broadcast}) -> {psbt, txid?} (base64; finalised and broadcast only with `broadcast`),
 * signMessage({account, message, address?, protocol?}) -> {address, signature: hex},
 * sendTransfer({account, recipientAddress, amount, changeAddress?, memo?}) -> {txid}, and the
 * bip122_addressesChanged event right after the session is approved and whenever its coins change.
 * Refusals are WalletConnect's SDK errors (@walletconnect/utils src/errors.ts SDK_ERRORS):
 * USER_REJECTED {code: 5000, message: "User rejected."}, UNSUPPORTED_CHAINS 5100,
 * UNSUPPORTED_METHODS 5101, UNSUPPORTED_ACCOUNTS 5103. It signs with a real key. Test-only.
 */
import { Psbt } from "bitcoinjs-lib";
import { bytesToHex } from "../../../src/doge";
import { buildPayment } from "../../../web/src/payment";
import { chainIdOf } from "../../../web/src/wallets/walletconnect";
import { StandinConfig, broadcast, declines, standinKey } from "./common";

const sdkError = (code: number, message: string) => Object.assign(new Error(message), { code });
const USER_REJECTED = () => sdkError(5000, "User rejected.");

type Handler = (payload: unknown) => void;

export function walletConnectStandin(config: StandinConfig) {
  const key = standinKey(config);
  const chainId = chainIdOf(key.network.name);
  const methods = ["getAccountAddresses", "signPsbt", "signMessage", "sendTransfer"].filter(
    (m) => !(config.omit ?? []).includes(m),
  );
  const listeners = new Map<string, Set<Handler>>();
  let addresses: { address: string; publicKey?: string }[] = [{ address: key.address, publicKey: key.publicKeyHex }];

  const emit = (event: string, payload: unknown) => {
    for (const handler of listeners.get(event) ?? []) handler(payload);
  };
  /** What the wallet sends when the account's addresses change (a session_event, as UniversalProvider re-emits it). */
  const addressesChanged = (data: { address: string; publicKey?: string }[]) => {
    addresses = data;
    emit("session_event", {
      id: Date.now(),
      topic: "standin",
      params: { event: { name: "bip122_addressesChanged", data }, chainId },
    });
  };

  const needAccount = (params: { account?: unknown } | undefined) => {
    if (!provider.session) throw sdkError(5103, "Unsupported accounts.");
    if (params?.account !== key.address) throw sdkError(5103, "Unsupported accounts.");
  };

  const handlers: Record<string, (params: any) => Promise<unknown>> = {
    async getAccountAddresses(params: { account?: string }) {
      needAccount(params);
      if (declines(config, "getAccountAddresses")) throw USER_REJECTED();
      return addresses;
    },
    async signPsbt(params: {
      account?: string;
      psbt?: string;
      signInputs?: { address: string; index: number; sighashTypes?: number[] }[];
      broadcast?: boolean;
    }) {
      needAccount(params);
      if (typeof params.psbt !== "string" || !Array.isArray(params.signInputs))
        throw sdkError(-32602, "Invalid params: psbt and signInputs are required");
      if (declines(config, "signPsbt")) throw USER_REJECTED();
      for (const input of params.signInputs) {
        if (input.address !== key.address) throw sdkError(5103, `Unsupported accounts: ${input.address}`);
        if (input.sighashTypes && input.sighashTypes.some((t) => t !== 1))
          throw sdkError(-32602, "Invalid params: only SIGHASH_ALL is signed");
      }
      const hex = bytesToHex(Uint8Array.from(atob(params.psbt), (c) => c.charCodeAt(0)));
      const indexes = params.signInputs.map((input) => input.index);
      const signed = key.signPsbtHex(hex, indexes, params.broadcast === true);
      if (!params.broadcast) return { psbt: signed.toBase64() };
      const txid = await broadcast(config, signed.extractTransaction().toHex());
      addressesChanged(addresses);
      return { psbt: signed.toBase64(), txid };
    },
    async signMessage(params: { account?: string; message?: string; address?: string; protocol?: string }) {
      needAccount(params);
      if (typeof params.message !== "string") throw sdkError(-32602, "Invalid params: message is required");
      if (params.address !== undefined && params.address !== key.address)
        throw sdkError(5103, `Unsupported accounts: ${params.address}`);
      if (params.protocol === "bip322") throw sdkError(-32602, "bip322 needs a segwit or taproot address");
      if (declines(config, "signMessage")) throw USER_REJECTED();
      const base64 = key.signMessage(params.message);
      return { address: key.address, signature: bytesToHex(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))) };
    },
    async sendTransfer(params: { account?: string; recipientAddress?: string; amount?: string; memo?: string }) {
      needAccount(params);
      if (typeof params.recipientAddress !== "string" || typeof params.amount !== "string")
        throw sdkError(-32602, "Invalid params: recipientAddress and amount are required");
      if (params.memo !== undefined) throw sdkError(-32602, "this stand-in sends no memo");
      if (declines(config, "sendTransfer")) throw USER_REJECTED();
      const built = await buildPayment({
        explorerUrl: config.explorerUrl,
        network: key.network,
        address: key.address,
        to: params.recipientAddress,
        amountKoinu: BigInt(params.amount),
      });
      const signed = key.signPsbtHex(Psbt.fromBase64(built.psbt).toHex(), null, true);
      const txid = await broadcast(config, signed.extractTransaction().toHex());
      addressesChanged(addresses);
      return { txid };
    },
  };

  const provider = {
    session: null as {
      topic: string;
      namespaces: Record<string, { accounts: string[]; methods: string[]; events: string[] }>;
    } | null,
    async connect(_options: { optionalNamespaces?: Record<string, { chains?: string[] }> }) {
      // The wallet approves the session on the one chain its key is for, asked or not (wallets may
      // approve other chains than a dapp's optional ones); the dapp sees the mismatch in the account.
      if (declines(config, "connect")) throw USER_REJECTED();
      provider.session = {
        topic: "standin",
        namespaces: {
          bip122: { accounts: [`${chainId}:${key.address}`], methods, events: ["bip122_addressesChanged"] },
        },
      };
      addressesChanged(addresses);
      return provider.session;
    },
    async request(args: { method: string; params: unknown }, chain?: string) {
      if (!provider.session) throw new Error("Please call connect() before request()");
      if (chain !== undefined && chain !== chainId) throw sdkError(5100, "Unsupported chains.");
      if (!methods.includes(args?.method)) throw sdkError(5101, "Unsupported methods.");
      return handlers[args.method](args.params);
    },
    on(event: string, handler: Handler) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(handler);
    },
    removeListener(event: string, handler: Handler) {
      listeners.get(event)?.delete(handler);
    },
    async disconnect() {
      provider.session = null;
    },
  };
  return { provider, address: key.address, chainId, addressesChanged };
}

/** Puts the stand-in's provider where the pages' wallet provider looks for it: window.walletConnectDoge. */
export function installWalletConnect(config: StandinConfig): void {
  (window as any).walletConnectDoge = walletConnectStandin(config).provider;
}
