/**
 * The development wallet provider (DESIGN.md 7): `window.wallet` over one devnet key, for the
 * embedded default and the browser tests. It implements exactly what the launchpad pages use:
 *
 *   connect({ message? }) -> { address, publicKey, network, signature? }
 *     The wallet's address and compressed public key (hex); with `message`, also the Dogecoin
 *     message signature (base64, compact, as `signmessage`) of that text, which is how a page signs
 *     in (POST /api/session takes the challenge signed this way).
 *   signPSBT(psbtBase64) -> psbtBase64
 *     Adds a SIGHASH_ALL low-s signature to every input that spends the wallet's own P2PKH output
 *     and returns the PSBT unfinalised: the service that built it finalises it.
 *
 * There is no inscribe(): pages ask our services to build PSBTs, the wallet only signs. This file is
 * bundled for the browser by src/services/launchpad/dev-wallet.ts; the key is a devnet key handed
 * to it in the page, never a key that holds real value.
 */
import type { Psbt } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  addressToOutputScript,
  bytesToHex,
  decodeWif,
  equalBytes,
  getNetwork,
  parseTransaction,
  privateKeyToPublicKey,
  publicKeyToAddress,
  signMessage,
  toBitcoinjsNetwork,
} from "../../src/doge";
import { loadPsbtKit } from "./psbt-load";

export interface DevWalletConfig {
  wif: string;
  network: string;
}

export interface ConnectAnswer {
  address: string;
  publicKey: string;
  network: string;
  signature?: string;
}

export class DevWalletError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "DevWalletError";
  }
}

export function createDevWallet(config: DevWalletConfig) {
  const network = getNetwork(config.network);
  const { privateKey } = decodeWif(config.wif, network);
  const publicKey = privateKeyToPublicKey(privateKey);
  const address = publicKeyToAddress(publicKey, network);
  const ownScript = addressToOutputScript(address, network);
  const btcNetwork = toBitcoinjsNetwork(network);
  const signer = {
    publicKey,
    sign: (hash: Uint8Array) => secp256k1.sign(hash, privateKey, { prehash: false, lowS: true }),
  };

  return {
    isDevelopmentWallet: true as const,
    async connect(options: { message?: unknown } = {}): Promise<ConnectAnswer> {
      const answer: ConnectAnswer = { address, publicKey: bytesToHex(publicKey), network: network.name };
      if (options.message !== undefined) {
        if (typeof options.message !== "string" || options.message.length === 0)
          throw new DevWalletError("INVALID_MESSAGE", "message must be a non-empty string");
        answer.signature = signMessage(options.message, privateKey);
      }
      return answer;
    },
    async signPSBT(psbtBase64: unknown): Promise<string> {
      if (typeof psbtBase64 !== "string") throw new DevWalletError("INVALID_PSBT", "signPSBT takes a base64 PSBT");
      const { Psbt: PsbtClass } = await loadPsbtKit();
      let psbt: Psbt;
      try {
        psbt = PsbtClass.fromBase64(psbtBase64, { network: btcNetwork });
      } catch (error) {
        throw new DevWalletError("INVALID_PSBT", `not a PSBT: ${(error as Error).message}`);
      }
      let signed = 0;
      psbt.data.inputs.forEach((input, i) => {
        const prevout = psbt.txInputs[i];
        const previous = input.nonWitnessUtxo;
        if (!previous) return;
        // Only inputs spending this wallet's own output: the previous transaction is in the PSBT, and
        // bitcoinjs checks that its hash is the input's outpoint before signing.
        const decoded = parseTransaction(previous);
        const spent = decoded.ok ? decoded.value.outputs[prevout.index] : undefined;
        if (spent && equalBytes(spent.script, ownScript)) {
          psbt.signInput(i, signer);
          signed += 1;
        }
      });
      if (signed === 0) throw new DevWalletError("NOTHING_TO_SIGN", `no input of this PSBT spends ${address}`);
      return psbt.toBase64();
    },
  };
}

/** Installs the provider as `window.wallet` (the script the launchpad serves calls it with the key). */
export function install(config: DevWalletConfig): void {
  (globalThis as { wallet?: ReturnType<typeof createDevWallet> }).wallet = createDevWallet(config);
}
