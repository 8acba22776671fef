/** Test keys and P2PKH / P2SH spends built with the project's own codecs and signer. */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  NETWORKS,
  Transaction,
  addressToOutputScript,
  bytesToHex,
  compileScript,
  hash160,
  p2pkhScriptSig,
  p2shScript,
  privateKeyToPublicKey,
  publicKeyToAddress,
  serializeTransaction,
  signInput,
  encodeAddress,
} from "../../src/doge";

export interface TestKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  address: string;
  script: Uint8Array;
}

export function newKey(): TestKey {
  const privateKey = secp256k1.utils.randomSecretKey();
  const publicKey = privateKeyToPublicKey(privateKey);
  const address = publicKeyToAddress(publicKey, NETWORKS.regtest);
  return { privateKey, publicKey, address, script: addressToOutputScript(address, NETWORKS.regtest) };
}

export interface Spendable {
  txid: string;
  vout: number;
  value: bigint;
}

export function spendP2pkh(
  key: TestKey,
  coins: Spendable[],
  outputs: { script: Uint8Array; value: bigint }[],
  locktime = 0,
): { hex: string; tx: Transaction } {
  const tx: Transaction = {
    version: 1,
    inputs: coins.map((coin) => ({
      prevTxid: coin.txid,
      vout: coin.vout,
      scriptSig: new Uint8Array(0),
      sequence: 0xffffffff,
    })),
    outputs,
    locktime,
  };
  tx.inputs.forEach((input, i) => {
    input.scriptSig = p2pkhScriptSig(signInput(tx, i, key.script, key.privateKey), key.publicKey);
  });
  return { hex: bytesToHex(serializeTransaction(tx)), tx };
}

export function p2shAddressOf(redeemScript: Uint8Array): { address: string; script: Uint8Array } {
  const hash = hash160(redeemScript);
  return { address: encodeAddress(hash, "scripthash", NETWORKS.regtest), script: p2shScript(hash) };
}

/** Spends a P2SH output whose redeem script needs no signature: scriptSig = <redeemScript>. */
export function spendP2shWithoutSignature(
  redeemScript: Uint8Array,
  coin: Spendable,
  outputs: { script: Uint8Array; value: bigint }[],
): string {
  const tx: Transaction = {
    version: 1,
    inputs: [{ prevTxid: coin.txid, vout: coin.vout, scriptSig: compileScript([redeemScript]), sequence: 0xffffffff }],
    outputs,
    locktime: 0,
  };
  return bytesToHex(serializeTransaction(tx));
}
