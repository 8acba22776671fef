/**
 * The checks of the PSBT-only DRC-20 step (web/src/wallets/psbt-drc20.ts) in Node: the send PSBT the
 * page builds passes, and every tampered form of it — the inscription to someone else, an extra
 * output, the change elsewhere, another input 0, a foreign input, a previous transaction that is not
 * the one named, a larger fee — is refused; likewise a commit that locks anything but the transfer's
 * P2SH or sends its change elsewhere. The browser suite (test/web/amm-drc20-browser.test.ts) makes
 * the whole step for real with DogeLabs and WalletConnect.
 */
import { expect } from "chai";
import { Psbt } from "bitcoinjs-lib";
import { NETWORKS, hexToBytes, toBitcoinjsNetwork, txidOf } from "../../src/doge";
import { Drc20TransferError, TRANSFER_POSTAGE_KOINU } from "../../web/src/wallets/drc20-transfer";
import { buildSendPsbt, checkCommitPsbt, checkSendPsbt } from "../../web/src/wallets/psbt-drc20";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";

const network = toBitcoinjsNetwork(NETWORKS.regtest);

function refusal(run: () => void): Drc20TransferError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(Drc20TransferError);
    return error as Drc20TransferError;
  }
  throw new Error("expected a refusal");
}

/** A transaction of `owner`'s paying `value` to `script` as its output 0. */
function coinOf(owner: TestKey, script: Uint8Array, value: bigint, seed: number) {
  const funding = spendP2pkh(
    owner,
    [{ txid: seed.toString(16).padStart(64, "0"), vout: 0, value: value + 1_000_000n }],
    [{ script, value }],
  );
  return { outpoint: { txid: txidOf(funding.tx), vout: 0, valueKoinu: value }, raw: hexToBytes(funding.hex) };
}

describe("PSBT-only DRC-20 step: the checks of the commit and the send", () => {
  const person = newKey();
  const custody = newKey();
  const attacker = newKey();
  const inscribed = coinOf(person, person.script, TRANSFER_POSTAGE_KOINU, 1);
  const fee = coinOf(person, person.script, 50_000_000n, 2);

  function built() {
    return buildSendPsbt({
      network: NETWORKS.regtest,
      inscription: inscribed.outpoint,
      inscriptionTx: inscribed.raw,
      feeCoin: fee.outpoint,
      feeCoinTx: fee.raw,
      ownScript: person.script,
      toScript: custody.script,
    });
  }
  const expected = (maxFeeKoinu: bigint) => ({
    inscription: inscribed.outpoint,
    ownScript: person.script,
    toScript: custody.script,
    maxFeeKoinu,
  });

  /** The built send with its outputs replaced (inputs as built). */
  function withOutputs(
    outputs: { script: Uint8Array; value: bigint }[],
    inputs?: { hash: string; index: number; raw: Uint8Array }[],
  ) {
    const psbt = new Psbt({ network });
    psbt.setVersion(1);
    for (const i of inputs ?? [
      { hash: inscribed.outpoint.txid, index: 0, raw: inscribed.raw },
      { hash: fee.outpoint.txid, index: 0, raw: fee.raw },
    ])
      psbt.addInput({ hash: i.hash, index: i.index, nonWitnessUtxo: i.raw });
    for (const o of outputs) psbt.addOutput(o);
    return psbt;
  }

  it("builds a send that moves exactly the inscribed output to the recipient and the change back, and passes", () => {
    const { psbt, feeKoinu } = built();
    expect(psbt.txInputs.map((i) => i.index)).to.deep.equal([0, 0]);
    expect(psbt.txOutputs.map((o) => [Buffer.from(o.script).toString("hex"), BigInt(o.value)])).to.deep.equal([
      [Buffer.from(custody.script).toString("hex"), TRANSFER_POSTAGE_KOINU],
      [Buffer.from(person.script).toString("hex"), 50_000_000n - feeKoinu],
    ]);
    expect(feeKoinu > 0n).to.equal(true);
    checkSendPsbt(psbt, expected(feeKoinu));
  });

  it("refuses a send that pays the inscription, its value or the change to anyone else, or pays more fee", () => {
    const { feeKoinu } = built();
    const change = 50_000_000n - feeKoinu;
    const cases: [string, Psbt, string][] = [
      [
        "inscription to the attacker",
        withOutputs([
          { script: attacker.script, value: TRANSFER_POSTAGE_KOINU },
          { script: person.script, value: change },
        ]),
        "output 0 does not pay the inscribed output to the recipient",
      ],
      [
        "an output to the attacker",
        withOutputs([
          { script: custody.script, value: TRANSFER_POSTAGE_KOINU },
          { script: person.script, value: change - 10_000_000n },
          { script: attacker.script, value: 10_000_000n },
        ]),
        "another shape",
      ],
      [
        "change to the attacker",
        withOutputs([
          { script: custody.script, value: TRANSFER_POSTAGE_KOINU },
          { script: attacker.script, value: change },
        ]),
        "change does not go back to the person",
      ],
      [
        "part of the postage moved to the change",
        withOutputs([
          { script: custody.script, value: TRANSFER_POSTAGE_KOINU - 1_000_000n },
          { script: person.script, value: change + 1_000_000n },
        ]),
        "output 0 does not pay the inscribed output",
      ],
      [
        "a larger fee",
        withOutputs([
          { script: custody.script, value: TRANSFER_POSTAGE_KOINU },
          { script: person.script, value: change - 1n },
        ]),
        "koinu of fee, not at most",
      ],
      [
        "the fee coin as input 0",
        withOutputs(
          [
            { script: custody.script, value: TRANSFER_POSTAGE_KOINU },
            { script: person.script, value: change },
          ],
          [
            { hash: fee.outpoint.txid, index: 0, raw: fee.raw },
            { hash: inscribed.outpoint.txid, index: 0, raw: inscribed.raw },
          ],
        ),
        "input 0 is not the inscription",
      ],
    ];
    for (const [what, psbt, says] of cases) {
      const error = refusal(() => checkSendPsbt(psbt, expected(feeKoinu)));
      expect([what, error.code]).to.deep.equal([what, "BAD_SEND"]);
      expect(error.message, what).to.contain(says);
    }
  });

  it("refuses a send with a foreign input or a previous transaction that is not the one its input names", () => {
    const { feeKoinu } = built();
    const foreign = coinOf(attacker, attacker.script, 50_000_000n, 3);
    const outputs = [
      { script: custody.script, value: TRANSFER_POSTAGE_KOINU },
      { script: person.script, value: 50_000_000n - feeKoinu },
    ];
    const withForeign = withOutputs(outputs, [
      { hash: inscribed.outpoint.txid, index: 0, raw: inscribed.raw },
      { hash: foreign.outpoint.txid, index: 0, raw: foreign.raw },
    ]);
    expect(refusal(() => checkSendPsbt(withForeign, expected(feeKoinu))).message).to.contain(
      "input 1 does not spend the person's own address",
    );
    // A bigger coin's transaction put behind the fee coin's outpoint: bitcoinjs would take its value.
    const bigger = coinOf(person, person.script, 900_000_000n, 4);
    const lying = built().psbt;
    lying.data.inputs[1].nonWitnessUtxo = bigger.raw as never;
    expect(refusal(() => checkSendPsbt(lying, expected(feeKoinu))).message).to.contain(
      "input 1's previous transaction is not",
    );
  });

  it("refuses a commit that locks anything but the transfer's P2SH or sends its change elsewhere", () => {
    const coin = coinOf(person, person.script, 100_000_000n, 5);
    const lock = { script: hexToBytes("a914" + "11".repeat(20) + "87"), value: 20_000_000n };
    const commit = (outputs: { script: Uint8Array; value: bigint }[]) => {
      const psbt = new Psbt({ network });
      psbt.setVersion(1);
      psbt.addInput({ hash: coin.outpoint.txid, index: 0, nonWitnessUtxo: coin.raw });
      for (const o of outputs) psbt.addOutput(o);
      return psbt;
    };
    const good = { ownScript: person.script, lock, maxFeeKoinu: 1_000_000n };
    checkCommitPsbt(commit([lock, { script: person.script, value: 79_000_000n }]), good);
    for (const [psbt, says] of [
      [
        commit([
          { ...lock, value: 90_000_000n },
          { script: person.script, value: 9_000_000n },
        ]),
        "not the transfer's lock",
      ],
      [
        commit([
          { script: attacker.script, value: lock.value },
          { script: person.script, value: 79_000_000n },
        ]),
        "not the transfer's lock",
      ],
      [commit([lock, { script: attacker.script, value: 79_000_000n }]), "change does not go back"],
      [commit([lock, { script: person.script, value: 70_000_000n }]), "koinu of fee"],
    ] as const) {
      const error = refusal(() => checkCommitPsbt(psbt, good));
      expect(error.code).to.equal("BAD_PSBT");
      expect(error.message).to.contain(says);
    }
  });
});
