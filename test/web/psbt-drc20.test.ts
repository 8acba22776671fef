/**
 * The checks of the PSBT-only DRC-20 step (web/src/wallets/psbt-drc20.ts) in Node: the send PSBT the
 * page builds passes, and every tampered form of it — the inscription to someone else, an extra
 * output, the change elsewhere, another input 0, a foreign input, a previous transaction that is not
 * the one named, a larger fee — is refused; likewise a commit that locks anything but the transfer's
 * P2SH or sends its change elsewhere. The browser suite (test/web/amm-drc20-browser.test.ts) makes
 * the whole step for real with DogeLabs and WalletConnect.
 */
import { expect } from "chai";
import { Psbt, Transaction as BjsTransaction } from "bitcoinjs-lib";
import { NETWORKS, hexToBytes, toBitcoinjsNetwork, txidOf } from "../../src/doge";
import { Drc20TransferError, TRANSFER_POSTAGE_KOINU } from "../../web/src/wallets/drc20-transfer";
import {
  PendingReveal,
  RECOVERY_PREFIX,
  buildSendPsbt,
  checkCommitPsbt,
  checkSendPsbt,
  recoverPendingReveals,
} from "../../web/src/wallets/psbt-drc20";
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

describe("PSBT-only DRC-20 step: a closed page's reveal recovered", () => {
  const person = newKey();
  const other = newKey();
  const explorerUrl = "http://explorer.test";
  const realFetch = globalThis.fetch;
  /** What the fake explorer knows, what it was sent, and the broadcasts it refuses. */
  let known: Set<string>;
  let sent: string[];
  let refuse: Set<string>;

  /** A Storage over a Map, as the page's localStorage. */
  function memoryStorage(): Storage {
    const map = new Map<string, string>();
    return {
      get length() {
        return map.size;
      },
      key: (i: number) => [...map.keys()][i] ?? null,
      getItem: (k: string) => map.get(k) ?? null,
      setItem: (k: string, v: string) => void map.set(k, v),
      removeItem: (k: string) => void map.delete(k),
      clear: () => map.clear(),
    };
  }

  /** A pending entry: a commit and one reveal (real transactions, their txids as the explorer names them). */
  function entry(owner: TestKey, seed: number) {
    const commit = spendP2pkh(
      owner,
      [{ txid: seed.toString(16).padStart(64, "0"), vout: 0, value: 50_000_000n }],
      [{ script: owner.script, value: 40_000_000n }],
    );
    const reveal = spendP2pkh(
      owner,
      [{ txid: txidOf(commit.tx), vout: 0, value: 40_000_000n }],
      [{ script: owner.script, value: 30_000_000n }],
    );
    const value: PendingReveal = {
      address: owner.address,
      ephemeralKey: "11".repeat(32),
      commit: commit.hex,
      reveals: [reveal.hex],
    };
    return { commitTxid: txidOf(commit.tx), revealTxid: txidOf(reveal.tx), value };
  }

  beforeEach(() => {
    known = new Set();
    sent = [];
    refuse = new Set();
    globalThis.fetch = (async (url: string, init?: RequestInit) => {
      const reply = (status: number, body: unknown) =>
        new Response(typeof body === "string" ? body : JSON.stringify(body), { status });
      const hexOf = /\/esplora\/api\/tx\/([0-9a-f]{64})\/hex$/.exec(url);
      if (hexOf) return known.has(hexOf[1]) ? reply(200, "00") : reply(404, { error: { message: "not found" } });
      if (url === `${explorerUrl}/api/tx/broadcast` && init?.method === "POST") {
        const { hex } = JSON.parse(String(init.body));
        const txid = BjsTransaction.fromHex(hex).getId();
        if (refuse.has(txid))
          return reply(422, { error: { code: "MISSING_INPUTS", message: "an input is unknown or already spent" } });
        sent.push(txid);
        known.add(txid);
        return reply(200, { txid });
      }
      return reply(404, { error: { message: `no route ${url}` } });
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it("broadcasts the commit and reveal a closed page left, drops entries done or dead, keeps other addresses'", async () => {
    const storage = memoryStorage();
    const pending = entry(person, 1);
    const revealed = entry(person, 2);
    const dead = entry(person, 3);
    const someoneElse = entry(other, 4);
    for (const e of [pending, revealed, dead, someoneElse])
      storage.setItem(`${RECOVERY_PREFIX}${e.commitTxid}`, JSON.stringify(e.value));
    known.add(revealed.commitTxid).add(revealed.revealTxid);
    refuse.add(dead.commitTxid);

    const dropped = await recoverPendingReveals({ storage, explorerUrl, address: person.address });
    expect(new Set(dropped)).to.deep.equal(new Set([pending.commitTxid, revealed.commitTxid, dead.commitTxid]));
    // The pending commit first, then its reveal; nothing of the dead entry went out.
    expect(sent).to.deep.equal([pending.commitTxid, pending.revealTxid]);
    expect(storage.length).to.equal(1);
    expect(storage.key(0)).to.equal(`${RECOVERY_PREFIX}${someoneElse.commitTxid}`);
  });

  it("keeps the entry when the explorer cannot be reached, to try again", async () => {
    const storage = memoryStorage();
    const pending = entry(person, 5);
    storage.setItem(`${RECOVERY_PREFIX}${pending.commitTxid}`, JSON.stringify(pending.value));
    globalThis.fetch = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch;
    const error = await recoverPendingReveals({ storage, explorerUrl, address: person.address }).then(
      () => null,
      (e: Drc20TransferError) => e,
    );
    expect(error?.code).to.equal("EXPLORER_UNREACHABLE");
    expect(storage.getItem(`${RECOVERY_PREFIX}${pending.commitTxid}`)).to.not.equal(null);
  });
});
