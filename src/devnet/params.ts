/**
 * Consensus and policy parameters of the devnet: Dogecoin Core 1.14's regtest (src/chainparams.cpp
 * CRegTestParams, src/dogecoin.cpp, src/policy/policy.h), as read off a real 1.14.7 regtest node
 * (DESIGN.md section 3).
 */
import {
  hexToBytes,
  parseBlock,
  parseTransaction,
  serializeBlock,
  Block,
  BlockHeader,
  headerHash,
  Transaction,
  DecodedTransaction,
} from "../doge";
import { KOINU_PER_DOGE } from "../doge/networks";
import { MAX_BLOCK_SIZE } from "../doge/policy";
import { FLAGS } from "../doge/script-check";
import { COINBASE_MATURITY } from "../doge/maturity";

export const COIN = KOINU_PER_DOGE;

/** Regtest genesis: Dogecoin's mainnet genesis coinbase (88 DOGE) with time 1296688602, bits 0x207fffff, nonce 2. */
export const GENESIS_HASH = "3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5";
const GENESIS_COINBASE_HEX =
  "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff1004ffff001d0104084e696e746f6e646fffffffff010058850c020000004341040184710fa689ad5023690c80f3a49c8f13f8d45b8c857fbcbc8bc4a8e4d3eb4b10f4d4604fa08dce601aaf0f470216fe1b51850b4acf21b179c45070ac7b03a9ac00000000";

export const REGTEST = Object.freeze({
  /** Version of mined blocks: chain id 0x62 << 16 | 4, no AuxPoW flag. */
  blockVersion: 0x00620004,
  powLimitBits: 0x207fffff,
  /** Regtest's coinbase maturity, from the one rule (src/doge/maturity.ts); the node checks spends with coinbaseSpendableAt. */
  coinbaseMaturity: COINBASE_MATURITY.regtest,
  subsidyHalvingInterval: 150,
  /** Dogecoin's MAX_BLOCK_SERIALIZED_SIZE (1 MB; no segwit). */
  maxBlockSize: MAX_BLOCK_SIZE,
  /** Room left in a block for the header and coinbase when assembling a template. */
  coinbaseReserve: 1_000,
  /** BIP66 (strict DER) and BIP65 (CHECKLOCKTIMEVERIFY) activation heights on regtest. */
  bip66Height: 1251,
  bip65Height: 1351,
  targetSpacingSeconds: 60,
  medianTimeSpan: 11,
});

/**
 * The devnet's own knobs beyond Dogecoin Core's relay policy (whose values are src/doge/policy.ts):
 * dogecoind's -maxtxfee and -maxmempool defaults.
 */
export const POLICY = Object.freeze({
  /** -maxtxfee default: sendrawtransaction refuses larger fees unless allowhighfees is set. */
  maxTxFee: 100n * COIN,
  maxMempoolBytes: 300_000_000,
});

/** Consensus flags for a block at `height` (BIP16 always; BIP66 and BIP65 from their regtest heights). */
export function blockFlags(height: number): number {
  let flags = FLAGS.P2SH;
  if (height >= REGTEST.bip66Height) flags |= FLAGS.DERSIG;
  if (height >= REGTEST.bip65Height) flags |= FLAGS.CHECKLOCKTIMEVERIFY;
  return flags;
}

/** Dogecoin's GetDogecoinBlockSubsidy with simplified rewards, as regtest uses (src/dogecoin.cpp). */
export function blockSubsidy(height: number): bigint {
  if (height === 0) return 88n * COIN;
  const interval = REGTEST.subsidyHalvingInterval;
  if (height < 6 * interval) return (500_000n * COIN) >> BigInt(Math.floor(height / interval));
  return 10_000n * COIN;
}

export function genesisBlock(): Block {
  const coinbase = hexToBytes(GENESIS_COINBASE_HEX);
  const header: BlockHeader = {
    version: 1,
    prevHash: "0".repeat(64),
    merkleRoot: "5b2a3f53f605d62c53e62932dac6925e3d74afa5a4b459745c36d42d0ed26a69",
    time: 1296688602,
    bits: REGTEST.powLimitBits,
    nonce: 2,
  };
  const parsed = parseBlock(serializeBlock({ header, txs: [parseTxOrThrow(coinbase)] }));
  if (!parsed.ok) throw parsed.error;
  if (parsed.value.hash !== GENESIS_HASH || headerHash(header) !== GENESIS_HASH)
    throw new Error("genesis block does not hash to the regtest genesis hash");
  return parsed.value;
}

function parseTxOrThrow(bytes: Uint8Array): DecodedTransaction {
  const parsed = parseTransaction(bytes);
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

export function isTxFinal(tx: Transaction, height: number, blockTime: number): boolean {
  if (tx.locktime === 0) return true;
  const limit = tx.locktime < 500_000_000 ? height : blockTime;
  if (tx.locktime < limit) return true;
  return tx.inputs.every((input) => input.sequence === 0xffffffff);
}
