/**
 * Our development wallet (web/src/dev-wallet.ts: window.wallet's seed interface over one devnet
 * key) as one of the provider's wallets, offered on devnet and testnet pages whose daemon was given
 * a development key.
 */
import { Psbt } from "bitcoinjs-lib";
import { toBitcoinjsNetwork } from "../../../src/doge";
import { DevWalletConfig, createDevWallet } from "../dev-wallet";
import { WalletAdapter, WalletError, refused } from "./adapter";
import { checkSignatures } from "./psbt-forms";

const NAME = "Development wallet";

export function devWalletAdapter(
  config: DevWalletConfig,
  network: ReturnType<typeof toBitcoinjsNetwork>,
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
      return checkSignatures(Psbt.fromBase64(signed, { network }), indexes, NAME);
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
