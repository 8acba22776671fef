/**
 * WalletConnect's Dogecoin RPC (reown docs, "Dogecoin JSON-RPC Methods",
 * docs.reown.com/advanced/multichain/rpc-reference/dogecoin-rpc; source reown-com/reown-docs
 * advanced/multichain/rpc-reference/dogecoin-rpc.mdx). The pages cannot bundle WalletConnect's SDK
 * (no outside request, 300 KB of script), so this adapter speaks to an injected provider object with
 * WalletConnect UniversalProvider's surface — `request({method, params}, chainId)`, `session`
 * (its namespaces' CAIP-10 accounts `bip122:<chain>:<address>`), `connect({optionalNamespaces})`,
 * `on("session_event", …)`, `disconnect()` — found at `window.walletConnectDoge` (a page that
 * bundles the SDK elsewhere puts its UniversalProvider there). The methods, as the reown page defines
 * them:
 *
 *   getAccountAddresses({account, intentions?})      -> [{address, publicKey?, path?, intention?}]
 *   signPsbt({account, psbt: <base64>, signInputs: [{address, index, sighashTypes?}], broadcast?})
 *                                                     -> {psbt: <base64>, txid?}
 *   signMessage({account, message, address?, protocol?: "ecdsa" | "bip322"})
 *                                                     -> {address, signature: <hex>, messageHash?}
 *   sendTransfer({account, recipientAddress, amount, changeAddress?, memo?}) -> {txid}  (not used)
 *   event bip122_addressesChanged: data as getAccountAddresses' result
 *
 * None of them inscribes a DRC-20 transfer or sends an inscription: a token deposit through this
 * adapter goes through PSBTs the wallet signs with signPsbt (./psbt-drc20.ts: the page inscribes
 * with an ephemeral reveal key, the wallet signs the commit and the send).
 *
 * The chain is CAIP-2 `bip122:<the first 32 hex digits of the genesis block hash>`.
 */
import type { Psbt } from "bitcoinjs-lib";
import { DogeNetwork, hexToBytes, toBitcoinjsNetwork } from "../../../src/doge";
import { WalletAccount, WalletAdapter, WalletError, refused, unsupported } from "./adapter";
import { loadPsbtKit } from "../psbt-load";

/**
 * Genesis block hashes (Dogecoin Core src/chainparams.cpp, consensus.hashGenesisBlock of main,
 * testnet and regtest); the CAIP-2 reference is the first 32 hex digits. The reown page's example
 * chain id "bip122:1a91e3dace36e2be3bf030a65679fe821" carries one digit too many.
 */
const GENESIS: Record<DogeNetwork["name"], string> = {
  mainnet: "1a91e3dace36e2be3bf030a65679fe821aa1d6ef92e7c9902eb318182c355691",
  testnet: "bb0a78264637406b6360aad926284d544d7049f45189db5664f3c4d07350559e",
  regtest: "3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5",
};

export const chainIdOf = (network: DogeNetwork["name"]): string => `bip122:${GENESIS[network].slice(0, 32)}`;

const networkOfChainId = (chainId: string): string => {
  for (const [name, hash] of Object.entries(GENESIS)) if (chainId === `bip122:${hash.slice(0, 32)}`) return name;
  return chainId;
};

export const WALLETCONNECT_METHODS = ["getAccountAddresses", "signPsbt", "signMessage", "sendTransfer"];
export const WALLETCONNECT_EVENTS = ["bip122_addressesChanged"];

export interface AccountAddress {
  address: string;
  publicKey?: string;
  path?: string;
  intention?: string;
}

export interface WalletConnectSession {
  namespaces?: Record<string, { accounts?: string[]; methods?: string[]; events?: string[] }>;
}

/** The slice of WalletConnect's UniversalProvider the adapter uses. */
export interface WalletConnectDogeApi {
  session?: WalletConnectSession | null;
  connect?(options: {
    optionalNamespaces: Record<string, { chains: string[]; methods: string[]; events: string[] }>;
  }): Promise<WalletConnectSession | undefined>;
  request(args: { method: string; params: unknown }, chainId?: string): Promise<unknown>;
  on?(event: string, handler: (payload: any) => void): void;
  disconnect?(): Promise<void>;
}

const NAME = "WalletConnect";

/** The session's bip122 accounts as [chainId, address]. */
function sessionAccounts(session: WalletConnectSession | null | undefined): [string, string][] {
  const accounts = session?.namespaces?.bip122?.accounts ?? [];
  return accounts
    .map((caip10) => caip10.split(":"))
    .filter((parts) => parts.length === 3 && parts[0] === "bip122")
    .map(([namespace, reference, address]) => [`${namespace}:${reference}`, address]);
}

const badAnswer = (step: "connect" | "sign the payment" | "sign a message", what: string) =>
  new WalletError("WALLET_BAD_ANSWER", `${NAME} ${what}`, NAME, step);

/** A signature as base64 from the RPC's hex (65 bytes, compact recoverable, as Dogecoin's signmessage). */
function signatureBase64(signature: unknown): string {
  if (typeof signature !== "string" || !/^(0x)?[0-9a-fA-F]{130}$/.test(signature))
    throw badAnswer("sign a message", `answered no 65-byte signature in hex: ${JSON.stringify(signature)}`);
  const bytes = hexToBytes(signature.replace(/^0x/, ""));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function walletConnectAdapter(api: WalletConnectDogeApi, network: DogeNetwork): WalletAdapter {
  const chainId = chainIdOf(network.name);
  const btcNetwork = toBitcoinjsNetwork(network);
  let account: string | null = null;
  /** The account's addresses as the wallet last told them (getAccountAddresses, bip122_addressesChanged). */
  let addresses: AccountAddress[] = [];
  let listening = false;

  const request = async (method: string, params: unknown, step: Parameters<typeof refused>[1]) => {
    const offered = api.session?.namespaces?.bip122?.methods;
    if (Array.isArray(offered) && !offered.includes(method))
      throw unsupported(NAME, step, `${method} method in its session`);
    try {
      return await api.request({ method, params }, chainId);
    } catch (error) {
      throw refused(NAME, step, error);
    }
  };

  function listen(): void {
    if (listening || typeof api.on !== "function") return;
    listening = true;
    // UniversalProvider re-emits the session's events as "session_event" ({params: {event, chainId}}).
    api.on("session_event", (payload) => {
      const params = payload?.params ?? payload;
      if (params?.event?.name !== "bip122_addressesChanged") return;
      if (params.chainId && params.chainId !== chainId) return;
      if (Array.isArray(params.event.data)) addresses = params.event.data;
    });
  }

  /** Fails when the wallet's latest addresses no longer hold the connected account (another account chosen in the wallet). */
  function stillConnected(step: "sign the payment" | "sign a message"): string {
    if (!account) throw new WalletError("NOT_CONNECTED", `connect ${NAME} before you ${step}`, NAME, step);
    if (addresses.length > 0 && !addresses.some((a) => a.address === account))
      throw new WalletError(
        "ACCOUNT_CHANGED",
        `${NAME} switched away from ${account} (its addresses are now ${addresses.map((a) => a.address).join(", ")}); connect again to ${step} with the new account`,
        NAME,
        step,
      );
    return account;
  }

  return {
    id: "walletconnect",
    name: NAME,
    async connect(): Promise<WalletAccount> {
      listen();
      let accounts = sessionAccounts(api.session);
      if (accounts.length === 0) {
        if (typeof api.connect !== "function") throw unsupported(NAME, "connect", "session and no connect method");
        try {
          const session = await api.connect({
            optionalNamespaces: {
              bip122: { chains: [chainId], methods: WALLETCONNECT_METHODS, events: WALLETCONNECT_EVENTS },
            },
          });
          accounts = sessionAccounts(session ?? api.session);
        } catch (error) {
          throw refused(NAME, "connect", error);
        }
      }
      if (accounts.length === 0)
        throw new WalletError(
          "WALLET_REFUSED",
          `${NAME} did not connect: its session has no Dogecoin account`,
          NAME,
          "connect",
        );
      const onChain = accounts.find(([chain]) => chain === chainId);
      if (!onChain) {
        // The provider names the mismatch (the address's network, else this hint).
        const [otherChain, address] = accounts[0];
        return { address, publicKey: null, networkHint: networkOfChainId(otherChain) };
      }
      account = onChain[1];
      const answer = await request("getAccountAddresses", { account }, "connect");
      if (!Array.isArray(answer) || answer.some((a) => typeof a?.address !== "string"))
        throw badAnswer("connect", "answered getAccountAddresses with no list of addresses");
      addresses = answer as AccountAddress[];
      const own = addresses.find((a) => a.address === account);
      const publicKey =
        typeof own?.publicKey === "string" && /^(02|03)[0-9a-fA-F]{64}$/.test(own.publicKey)
          ? own.publicKey.toLowerCase()
          : null;
      return { address: account, publicKey, networkHint: network.name };
    },
    async signPsbt(psbt: Psbt, indexes: number[], address: string): Promise<Psbt> {
      const connected = stillConnected("sign the payment");
      const answer = (await request(
        "signPsbt",
        {
          account: connected,
          psbt: psbt.toBase64(),
          signInputs: indexes.map((index) => ({ address, index, sighashTypes: [1] })),
          broadcast: false,
        },
        "sign the payment",
      )) as { psbt?: unknown; txid?: unknown } | null;
      if (typeof answer?.psbt !== "string") throw badAnswer("sign the payment", "answered no signed PSBT");
      const kit = await loadPsbtKit();
      let hex: string;
      try {
        hex = kit.Psbt.fromBase64(answer.psbt, { network: btcNetwork }).toHex();
      } catch (error) {
        throw badAnswer("sign the payment", `answered a PSBT that does not decode: ${(error as Error).message}`);
      }
      return kit.takeSignedPsbtHex(psbt, hex, indexes, NAME, btcNetwork);
    },
    async signMessage(message: string, address: string): Promise<string> {
      const connected = stillConnected("sign a message");
      const answer = (await request(
        "signMessage",
        { account: connected, message, address, protocol: "ecdsa" },
        "sign a message",
      )) as { address?: unknown; signature?: unknown } | null;
      if (answer?.address !== undefined && answer.address !== address)
        throw badAnswer("sign a message", `signed with ${String(answer.address)}, not ${address}`);
      return signatureBase64(answer?.signature);
    },
    signPsbtUnsupported() {
      const offered = api.session?.namespaces?.bip122?.methods;
      return Array.isArray(offered) && !offered.includes("signPsbt")
        ? unsupported(NAME, "sign the payment", "signPsbt method in its session")
        : null;
    },
    async disconnect(): Promise<void> {
      account = null;
      addresses = [];
      try {
        await api.disconnect?.();
      } catch (error) {
        throw refused(NAME, "disconnect", error);
      }
    },
  };
}
