import { expect } from "chai";
import {
  HARD_DUST_LIMIT,
  INCREMENTAL_RELAY_FEE_RATE,
  MAX_BLOCK_SIZE,
  MAX_DATA_CARRIER_SCRIPT,
  MAX_P2SH_SIGOPS,
  MAX_SCRIPT_SIZE,
  MAX_STANDARD_SCRIPTSIG_SIZE,
  MAX_STANDARD_TX_SIZE,
  MIN_RELAY_FEE_RATE,
  RECOMMENDED_FEE_RATE,
  REJECT,
  SOFT_DUST_LIMIT,
  dustSurcharge,
  isUnspendable,
  minRelayFee,
} from "../../src/doge/policy";
import * as policy from "../../src/doge/policy";
import * as chainErrors from "../../src/chain/errors";
import { hexToBytes } from "../../src/doge";

const P2PKH = hexToBytes("76a914111111111111111111111111111111111111111188ac");
const OP_RETURN = hexToBytes("6a0568656c6c6f");

describe("Dogecoin Core policy (src/doge/policy.ts)", () => {
  it("holds Dogecoin Core 1.14.6's defaults", () => {
    expect({
      MIN_RELAY_FEE_RATE,
      RECOMMENDED_FEE_RATE,
      INCREMENTAL_RELAY_FEE_RATE,
      SOFT_DUST_LIMIT,
      HARD_DUST_LIMIT,
    }).to.deep.equal({
      MIN_RELAY_FEE_RATE: 100_000n, // 0.001 DOGE/kB
      RECOMMENDED_FEE_RATE: 1_000_000n, // 0.01 DOGE/kB
      INCREMENTAL_RELAY_FEE_RATE: 10_000n,
      SOFT_DUST_LIMIT: 1_000_000n, // 0.01 DOGE
      HARD_DUST_LIMIT: 100_000n, // 0.001 DOGE
    });
    expect([
      MAX_SCRIPT_SIZE,
      MAX_BLOCK_SIZE,
      MAX_STANDARD_TX_SIZE,
      MAX_STANDARD_SCRIPTSIG_SIZE,
      MAX_DATA_CARRIER_SCRIPT,
      MAX_P2SH_SIGOPS,
    ]).to.deep.equal([10_000, 1_000_000, 100_000, 1650, 83, 15]);
  });

  it("holds dogecoind's RPC error codes (src/rpc/protocol.h) and reject codes (src/consensus/validation.h)", () => {
    const codes = Object.fromEntries(Object.entries(policy).filter(([name]) => name.startsWith("RPC_")));
    expect(codes).to.deep.equal({
      RPC_MISC_ERROR: -1,
      RPC_TYPE_ERROR: -3,
      RPC_INVALID_ADDRESS_OR_KEY: -5,
      RPC_OUT_OF_MEMORY: -7,
      RPC_INVALID_PARAMETER: -8,
      RPC_CLIENT_NOT_CONNECTED: -9,
      RPC_CLIENT_IN_INITIAL_DOWNLOAD: -10,
      RPC_DATABASE_ERROR: -20,
      RPC_DESERIALIZATION_ERROR: -22,
      RPC_VERIFY_ERROR: -25,
      RPC_VERIFY_REJECTED: -26,
      RPC_VERIFY_ALREADY_IN_CHAIN: -27,
      RPC_IN_WARMUP: -28,
      RPC_INVALID_REQUEST: -32600,
      RPC_METHOD_NOT_FOUND: -32601,
      RPC_INVALID_PARAMS: -32602,
      RPC_INTERNAL_ERROR: -32603,
      RPC_PARSE_ERROR: -32700,
    });
    expect(REJECT).to.deep.equal({
      MALFORMED: 0x01,
      INVALID: 0x10,
      OBSOLETE: 0x11,
      DUPLICATE: 0x12,
      NONSTANDARD: 0x40,
      DUST: 0x41,
      INSUFFICIENTFEE: 0x42,
      HIGHFEE: 0x100,
      ALREADY_KNOWN: 0x101,
      CONFLICT: 0x102,
    });
  });

  it("is where the RPC client's codes come from", () => {
    for (const [name, value] of Object.entries(policy).filter(([n]) => n.startsWith("RPC_"))) {
      expect((chainErrors as Record<string, unknown>)[name], name).to.equal(value);
    }
  });

  it("isUnspendable: OP_RETURN first, or a script over 10,000 bytes", () => {
    expect(isUnspendable(OP_RETURN)).to.equal(true);
    expect(isUnspendable(P2PKH)).to.equal(false);
    expect(isUnspendable(new Uint8Array(0))).to.equal(false);
    expect(isUnspendable(new Uint8Array(10_000))).to.equal(false);
    expect(isUnspendable(new Uint8Array(10_001))).to.equal(true);
  });

  it("charges the soft dust limit for each spendable output below it, never for OP_RETURN", () => {
    const outputs = [
      { value: SOFT_DUST_LIMIT - 1n, script: P2PKH },
      { value: SOFT_DUST_LIMIT, script: P2PKH },
      { value: 0n, script: OP_RETURN },
      { value: 1n, script: P2PKH },
    ];
    expect(dustSurcharge(outputs)).to.equal(2n * SOFT_DUST_LIMIT);
  });

  it("minRelayFee is the proportional fee (at least 1 koinu) plus the dust surcharge", () => {
    const coin = [{ value: 100_000_000n, script: P2PKH }];
    expect(minRelayFee(226, coin)).to.equal(22_600n);
    expect(minRelayFee(999, coin, RECOMMENDED_FEE_RATE)).to.equal(999_000n); // no rounding up to the next kB since 1.14.4
    expect(minRelayFee(1, coin, 1n)).to.equal(1n);
    expect(minRelayFee(0, [])).to.equal(0n);
    expect(minRelayFee(226, [{ value: 500_000n, script: P2PKH }])).to.equal(22_600n + SOFT_DUST_LIMIT);
  });
});
