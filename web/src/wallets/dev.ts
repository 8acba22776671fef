/**
 * Our development wallet (web/src/dev-wallet.ts: window.wallet's seed interface over one devnet
 * key) as one of the provider's wallets, offered on devnet and testnet pages whose daemon was given
 * a development key. It makes DRC-20 deposits itself (./drc20-transfer.ts): a transfer inscription
 * onto its own address, then that inscription sent, funded from its coins through the page's explorer.
 */
import type { Psbt } from "bitcoinjs-lib";
import {
  decodeWif,
  getNetwork,
  privateKeyToPublicKey,
  publicKeyToAddress,
  toBitcoinjsNetwork,
} from "../../../src/doge";
import { DevWalletConfig, createDevWallet } from "../dev-wallet";
import { Drc20Send, WalletAdapter, WalletError, refused, unsupported } from "./adapter";
import { inscribeDrc20Transfer, sendInscribedOutput } from "./drc20-transfer";
import { loadPsbtKit } from "../psbt-load";

const NAME = "Development wallet";

export function devWalletAdapter(
  config: DevWalletConfig,
  network: ReturnType<typeof toBitcoinjsNetwork>,
  explorerUrl: string | null = null,
): WalletAdapter {
  const wallet = createDevWallet(config);
  return {
    id: "dev",
    name: NAME,
    async connect() {
      const answer = await wallet.connect();
      return { address: answer.address, publicKey: answer.publicKey, networkHint: answer.network };
    },
    async signPsbt(psbt: Psbt, indexes: number[]) {
      let signed: string;
      try {
        signed = await wallet.signPSBT(psbt.toBase64());
      } catch (error) {
        throw refused(NAME, "sign the payment", error);
      }
      const kit = await loadPsbtKit();
      return kit.checkSignatures(kit.Psbt.fromBase64(signed, { network }), indexes, NAME);
    },
    async sendDrc20({ tick, amount, to }: Drc20Send) {
      if (!explorerUrl) throw unsupported(NAME, "send tokens", "explorer named by this page to fund the transfer from");
      const dogeNetwork = getNetwork(config.network);
      const { privateKey } = decodeWif(config.wif, dogeNetwork);
      const publicKey = privateKeyToPublicKey(privateKey);
      const key = {
        network: dogeNetwork,
        privateKey,
        publicKey,
        address: publicKeyToAddress(publicKey, dogeNetwork),
        explorerUrl,
      };
      try {
        const inscribed = await inscribeDrc20Transfer(key, tick, BigInt(amount));
        return { txid: await sendInscribedOutput(key, inscribed.output, to) };
      } catch (error) {
        throw refused(NAME, "send tokens", error);
      }
    },
    async signMessage(message: string) {
      let answer;
      try {
        answer = await wallet.connect({ message });
      } catch (error) {
        throw refused(NAME, "sign a message", error);
      }
      if (typeof answer.signature !== "string")
        throw new WalletError("WALLET_BAD_ANSWER", `${NAME} answered no signature`, NAME, "sign a message");
      return answer.signature;
    },
  };
}
