/**
 * The attest HTTP API end to end: a devnet history indexed by three independent indexers, three
 * attesters each over its own index, the API in front of them, and DogeAttestation on the
 * in-process Hardhat network. Facts fetched over HTTP are submitted with submitFact and read back;
 * the seed's paid flow runs exactly (requestFee, requestFact, POST /fulfill, the 20% creator share,
 * a refund after the deadline); the faults: attesters down, one lagging, one with a corrupted index.
 * Every signature is recovered with ethers' TypedDataEncoder from the HTTP answer alone.
 */
import { expect } from "chai";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import createClient from "openapi-fetch";
import type { paths } from "../../shared/openapi/attest";
import { Contract, TypedDataEncoder, recoverAddress } from "ethers";
import { statusOf } from "../../src/services/http/errors";
import { bytesToHex, nullDataScript, sha256 } from "../../src/doge";
import { FACT_TYPE_KEYS, ZERO_KEY, addressKey, tickKey } from "../../src/facts";
import { encodeDrc20, envelopeHash } from "../../src/inscription";
import { factFromJson } from "../../src/attester/wire";
import { undocumentedRoutes } from "../../src/services/http/openapi";
import { AttesterPanel } from "../../src/services/attest-api/panel";
import { AttestStack, startAttestStack } from "../helpers/attest-stack";
import { InscribeResult, inscribeDoginals, inscribeV1, pay } from "../helpers/inscribe";
import { newKey } from "../helpers/keys";
import { expectPublished } from "../helpers/openapi-publish";
import { DOGE } from "../attester/helpers";

const TEXT = "text/plain;charset=utf-8";
const TICK = "bark";
const SLUG = "attest-api-pups";
const utf8 = (text: string) => new TextEncoder().encode(text);

describe("attest API", function () {
  this.timeout(240_000);
  let stack: AttestStack;
  let devnet: AttestStack["devnet"];
  let dbs: AttestStack["dbs"];
  let attesters: AttestStack["attesters"];
  let attesterKeys: AttestStack["attesterKeys"];
  let attestation: Contract;
  let chainId: bigint;
  let base: string;
  let alice: AttestStack["alice"];
  const bob = newKey();
  let image: InscribeResult;
  let transfer: InscribeResult;
  let paymentTxid: string;
  let anchorTxid: string;
  const anchorPayload = utf8("dogeos attest anchor");

  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, body: (await response.json()) as any };
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const syncAll = (which?: number[]) => stack.sync(which);
  const mine = (blocks?: number, which?: number[]) => stack.mine(blocks, which);
  const clock = () => stack.clock();
  const panelFor = (urls: string[]) => stack.panelFor(urls);

  /** Corrupts index `i` (undone with a negative `koinu`): each row of bob's address history says he received `koinu` more. */
  const corruptReceived = (i: number, koinu: number) =>
    dbs[i]
      .prepare(
        "UPDATE address_history SET received = received + ? WHERE address_id = (SELECT id FROM addresses WHERE address = ?)",
      )
      .run(koinu, bob.address);

  /** Recovers each signer of an answer with ethers alone, from the answer's typedData. */
  function recoveredSigners(answer: {
    typedData: { domain: any; types: any; message: any };
    signatures: string[];
  }): string[] {
    const digest = TypedDataEncoder.hash(answer.typedData.domain, answer.typedData.types, answer.typedData.message);
    return answer.signatures.map((signature) => recoverAddress(digest, signature));
  }

  before(async () => {
    // The history: coins for alice, a payment to bob, an OP_RETURN anchor, a DRC-20 deploy, mint and
    // transfer inscription, an image inscription for bob, and a launchpad collection with one mint
    // for bob; each attester over its own index, the API over a fourth.
    stack = await startAttestStack({
      attesterSeed: "attest api test attester",
      coins: 8,
      indexes: "separate",
      history: async (chain) => {
        const payment = await pay(
          chain.devnet,
          chain.alice,
          [chain.purse.take(100n * DOGE)],
          [{ script: bob.script, value: 25n * DOGE }],
        );
        chain.purse.give(payment.change);
        paymentTxid = payment.txid;
        const anchor = await pay(
          chain.devnet,
          chain.alice,
          [chain.purse.take(100n * DOGE)],
          [{ script: nullDataScript(anchorPayload), value: 0n }],
        );
        chain.purse.give(anchor.change);
        anchorTxid = anchor.txid;
        await chain.drc20(TICK, 700n);
        transfer = await chain.inscribe((coin) =>
          inscribeDoginals(
            chain.devnet,
            chain.alice,
            coin,
            {
              contentType: TEXT,
              body: encodeDrc20({ kind: "transfer", tick: TICK, tickKey: tickKey(TICK), amount: 200n }),
            },
            chain.alice.script,
          ),
        );
        image = await chain.inscribe((coin) =>
          inscribeV1(
            chain.devnet,
            chain.alice,
            coin,
            { contentType: "image/png", action: "LIST", body: utf8("not really a png") },
            bob.script,
          ),
        );
        await chain.collection(SLUG, "Pups", 3n, bob);
        await chain.mine(6);
      },
    });
    ({ devnet, dbs, attesters, attesterKeys, attestation, chainId, alice } = stack);
    base = `${stack.origin}/api/attest`;
  });

  after(async () => {
    await stack?.close();
  });

  it("documents every route it serves", () => {
    expect(undocumentedRoutes(stack.app)).to.deep.equal([]);
  });

  it("publishes its OpenAPI document, with the reference page", async () => {
    const origin = base.replace(/\/api\/attest$/, "");
    const document = await (await fetch(`${origin}/openapi.json`)).json();
    expect(document.openapi).to.equal("3.1.0");
    await expectPublished("attest", document);
    const page = await fetch(`${origin}/docs`);
    expect(page.headers.get("content-type")).to.match(/^text\/html/);
    expect(await page.text()).to.include("docs/assets/swagger-ui-bundle.js");
    const script = await fetch(`${origin}/docs/assets/swagger-ui-bundle.js`);
    expect(script.status).to.equal(200);
    await script.arrayBuffer();
  });

  it("describes the attesters, the depth and the facts", async () => {
    // A client generated from the published document (shared/openapi/attest.d.ts).
    const client = createClient<paths>({ baseUrl: base.replace(/\/api\/attest$/, "") });
    const { data: body, response } = await client.GET("/api/attest/");
    expect(response.status).to.equal(200);
    if (!body) throw new Error("no body");
    expect(body.attesters.map((a) => (a.up ? a.address : null)).sort()).to.deep.equal(
      attesterKeys.map((w) => w.address).sort(),
    );
    expect(body.attesters.every((a) => a.up)).to.equal(true);
    expect(body.confirmation_depth).to.equal(6);
    expect(body.min_signatures).to.equal(2);
    expect(body.facts.map((f) => f.type)).to.include.members([
      "DOGE_BALANCE",
      "DRC20_BALANCE",
      "COLLECTION_COUNT",
      "INSCRIPTION_OWNER",
      "INSCRIPTION_VALID",
      "DRC20_TRANSFER_VALID",
      "TX_INCLUDED",
      "L1_TIP",
    ]);
  });

  it("serves each fact with two or more signatures that ethers recovers and the contract stores; the reads return the same values", async () => {
    const cases: [string, (answer: any) => Promise<void>][] = [
      [
        `/doge-balance?address=${bob.address}`,
        async (answer) => {
          expect(answer.fact.value).to.equal((25n * DOGE + 100_000_000n + 100_000_000n).toString());
          const [koinu, l1Height] = await attestation.dogeBalance(bob.address);
          expect(koinu).to.equal(BigInt(answer.fact.value));
          expect(l1Height).to.equal(BigInt(answer.fact.l1Height));
        },
      ],
      [
        `/drc20-balance?address=${alice.address}&tick=${TICK.toUpperCase()}`,
        async (answer) => {
          expect(answer.fact.value).to.equal("700");
          const [amount] = await attestation.drc20Balance(alice.address, TICK);
          expect(amount).to.equal(700n);
        },
      ],
      [
        `/collection-count?address=${bob.address}&collection=${SLUG}`,
        async (answer) => {
          expect(answer.fact.value).to.equal("1");
          const [count] = await attestation.collectionCount(bob.address, SLUG);
          expect(count).to.equal(1n);
        },
      ],
      [
        `/inscription-owner?id=${image.inscriptionId}`,
        async (answer) => {
          expect(answer.owner_address).to.equal(bob.address);
          expect(answer.fact.data).to.equal(addressKey(bob.address));
          expect(await attestation.isInscriptionOwner(image.inscriptionId, bob.address)).to.equal(true);
          expect(await attestation.isInscriptionOwner(image.inscriptionId, alice.address)).to.equal(false);
        },
      ],
      [
        `/inscription-valid?id=${image.inscriptionId}`,
        async () => {
          const [ok, contentHash] = await attestation.inscriptionValid(image.inscriptionId);
          expect(ok).to.equal(true);
          expect(contentHash).to.equal(
            `0x${envelopeHash({ contentType: "image/png", action: "LIST", body: utf8("not really a png") })}`,
          );
        },
      ],
      [
        `/drc20-transfer-valid?txid=${transfer.revealTxids[0]}`,
        async (answer) => {
          expect(answer.fact.value).to.equal("200");
          expect(await attestation.drc20TransferValid(transfer.revealTxids[0])).to.equal(true);
        },
      ],
      [
        `/tx-included?txid=${paymentTxid}`,
        async () => {
          expect(await attestation.txConfirmed(paymentTxid, 6)).to.equal(true);
        },
      ],
      [
        "/l1-tip",
        async (answer) => {
          expect(await attestation.l1Tip()).to.be.greaterThanOrEqual(BigInt(answer.fact.l1Height));
        },
      ],
    ];
    for (const [path, check] of cases) {
      const { status, body } = await get(path);
      expect(status, `${path}: ${JSON.stringify(body)}`).to.equal(200);
      expect(body.signatures.length).to.be.greaterThanOrEqual(2);
      expect(body.typedData.primaryType).to.equal("Fact");
      expect(body.typedData.domain).to.deep.equal({
        name: "DogeAttestation",
        version: "1",
        chainId: Number(chainId),
        verifyingContract: await attestation.getAddress(),
      });
      expect(body.typedData.message).to.deep.equal(body.fact);
      expect(recoveredSigners(body)).to.deep.equal(body.signers);
      for (const signer of body.signers) expect(attesterKeys.map((w) => w.address)).to.include(signer);
      await (await attestation.submitFact(factFromJson(body.fact), body.signatures)).wait();
      await check(body);
    }
  });

  it("serves the OP_RETURN and OP_CHECKZKP data of a transaction as unsigned index data", async () => {
    const opReturn = await get(`/op-return?txid=${paymentTxid}`);
    expect(opReturn.status).to.equal(200);
    expect(opReturn.body.signed).to.equal(false);
    expect(opReturn.body.items).to.deep.equal([]);
    const zkp = await get(`/zkp?txid=${paymentTxid}`);
    expect(zkp.body.verified_by_consensus).to.equal(false);
    expect((await get(`/op-return?txid=${"ab".repeat(32)}`)).body.error.code).to.equal("TX_NOT_FOUND");
  });

  it("answers the spec's OP_RETURN record, with every field name and type, for a transaction's OP_RETURNs", async () => {
    const { status, body } = await get(`/op-return?txid=${anchorTxid}`);
    expect(status).to.equal(200);
    const tip = await devnet.rpc<number>("getblockcount");
    expect(body.items).to.deep.equal([
      {
        txid: anchorTxid,
        vout: 0,
        payload_hex: bytesToHex(anchorPayload),
        payload_utf8: "dogeos attest anchor",
        payload_sha256: bytesToHex(sha256(anchorPayload)),
        magic: bytesToHex(anchorPayload.subarray(0, 4)),
        bytes: anchorPayload.length,
        block: body.block_height,
        confirmations: tip - body.block_height + 1,
      },
    ]);
  });

  it("refuses bad input with 400", async () => {
    expect((await get("/doge-balance?address=nope")).body.error.code).to.equal("INVALID_ADDRESS");
    expect((await get(`/drc20-balance?address=${bob.address}&tick=toolong`)).body.error.code).to.equal("INVALID_TICK");
    expect((await get("/inscription-owner?id=12")).body.error.code).to.equal("INVALID_INSCRIPTION_ID");
    expect((await get(`/doge-balance?address=${bob.address}&extra=1`)).body.error.code).to.equal("UNKNOWN_FIELDS");
  });

  describe("the paid flow of the seed", () => {
    it("requestFee, requestFact with the fee and a plug, POST /fulfill: the fact is stored, the creator gets 20%, the operator the rest", async () => {
      const [deployer, , requester, creator] = await ethers.getSigners();
      const plugs = await ethers.getContractAt("PlugsMarketplace", await attestation.plugsMarketplace());
      await (await (plugs.connect(creator) as Contract).listPlug(0n, 0n, "ipfs://plug")).wait();
      const plugId = await plugs.plugCount();
      const fee = await attestation.requestFee(FACT_TYPE_KEYS.DOGE_BALANCE);
      expect(fee).to.equal(50_000_000_000_000_000n);
      const asRequester = attestation.connect(requester) as Contract;
      const args = [FACT_TYPE_KEYS.DOGE_BALANCE, addressKey(bob.address), ZERO_KEY, plugId] as const;
      const requestId = await asRequester.requestFact.staticCall(...args, { value: fee });
      await (await asRequester.requestFact(...args, { value: fee })).wait();
      const creatorBefore = await attestation.withdrawableOf(creator.address);
      const operatorBefore = await attestation.withdrawableOf(deployer.address);
      const { status, body } = await post("/fulfill", { requestId, address: bob.address });
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.status).to.equal("fulfilled");
      expect((await attestation.requestOf(requestId)).status).to.equal(2n);
      expect((await attestation.withdrawableOf(creator.address)) - creatorBefore).to.equal(fee / 5n);
      expect((await attestation.withdrawableOf(deployer.address)) - operatorBefore).to.equal(fee - fee / 5n);
      const [koinu] = await attestation.dogeBalance(bob.address);
      expect(koinu).to.equal(BigInt(body.fact.value));
      const again = await post("/fulfill", { requestId, address: bob.address });
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal("ALREADY_FULFILLED");
    });

    it("fulfils a request without a plug (all to the operator) for a DRC-20 balance, checking the tick key", async () => {
      const [deployer, , requester] = await ethers.getSigners();
      const fee = await attestation.requestFee(FACT_TYPE_KEYS.DRC20_BALANCE);
      const asRequester = attestation.connect(requester) as Contract;
      const args = [FACT_TYPE_KEYS.DRC20_BALANCE, addressKey(alice.address), tickKey(TICK), 0n] as const;
      const requestId = await asRequester.requestFact.staticCall(...args, { value: fee });
      await (await asRequester.requestFact(...args, { value: fee })).wait();
      const wrong = await post("/fulfill", { requestId, address: alice.address, tick: "miss" });
      expect(wrong.status).to.equal(422);
      expect(wrong.body.error.code).to.equal("INPUTS_DO_NOT_MATCH_REQUEST");
      const operatorBefore = await attestation.withdrawableOf(deployer.address);
      const { status, body } = await post("/fulfill", { requestId, address: alice.address, tick: TICK });
      expect(status, JSON.stringify(body)).to.equal(200);
      expect((await attestation.withdrawableOf(deployer.address)) - operatorBefore).to.equal(fee);
      expect((await attestation.drc20Balance(alice.address, TICK))[0]).to.equal(700n);
    });

    it("leaves a request nobody fulfils to be refunded after its deadline, and then refuses to fulfil it", async () => {
      const [, , requester] = await ethers.getSigners();
      const fee = await attestation.requestFee(FACT_TYPE_KEYS.DOGE_BALANCE);
      const asRequester = attestation.connect(requester) as Contract;
      const args = [FACT_TYPE_KEYS.DOGE_BALANCE, addressKey(alice.address), ZERO_KEY, 0n] as const;
      const requestId = await asRequester.requestFact.staticCall(...args, { value: fee });
      await (await asRequester.requestFact(...args, { value: fee })).wait();
      await time.increase(Number(await attestation.requestDeadlineWindow()) + 1);
      const late = await post("/fulfill", { requestId, address: alice.address });
      expect(late.status).to.equal(410);
      expect(late.body.error.code).to.equal("REQUEST_EXPIRED");
      const before = await ethers.provider.getBalance(requester.address);
      const receipt = await (await asRequester.refund(requestId)).wait();
      const after = await ethers.provider.getBalance(requester.address);
      expect(after - before + BigInt(receipt!.gasUsed) * BigInt(receipt!.gasPrice)).to.equal(fee);
      stack.advanceClock(Number(await attestation.requestDeadlineWindow()) + 1);
      expect((await post("/fulfill", { requestId, address: alice.address })).body.error.code).to.equal(
        "REQUEST_REFUNDED",
      );
      expect(
        (await post("/fulfill", { requestId: `0x${"00".repeat(32)}`, address: alice.address })).body.error.code,
      ).to.equal("REQUEST_NOT_FOUND");
    });
  });

  it("hands out the same signed fact again for the same question at the same height, and a new one after a block", async () => {
    const cached = new AttesterPanel({
      attesters: attesters.map((a) => a.url),
      nowSeconds: clock,
      infoCacheMs: 0,
      answerCacheMs: 60_000,
    });
    const first = await cached.fact("DOGE_BALANCE", { address: alice.address });
    const again = await cached.fact("DOGE_BALANCE", { address: alice.address });
    expect(again).to.equal(first);
    const other = await cached.fact("DOGE_BALANCE", { address: bob.address });
    expect(other.fact.subject).to.not.equal(first.fact.subject);
    await mine();
    const next = await cached.fact("DOGE_BALANCE", { address: alice.address });
    expect(BigInt(next.fact.l1Height)).to.equal(BigInt(first.fact.l1Height) + 1n);
  });

  describe("faults", () => {
    it("serves facts with one attester stopped, and a clear 503 with two stopped", async () => {
      const partial = panelFor([attesters[0].url, attesters[1].url, "http://127.0.0.1:1"]);
      const answer = await partial.fact("DOGE_BALANCE", { address: bob.address });
      expect(answer.signers).to.have.length(2);
      const none = panelFor([attesters[0].url, "http://127.0.0.1:1", "http://127.0.0.1:2"]);
      let error: any = null;
      try {
        await none.fact("DOGE_BALANCE", { address: bob.address });
      } catch (caught) {
        error = caught;
      }
      expect(error && statusOf(error)).to.equal(503);
      expect(error?.code).to.equal("ATTESTERS_UNAVAILABLE");
      expect(error?.details.attesters).to.have.length(3);
    });

    it("outvotes a lagging attester: it refuses, the other two sign", async () => {
      // Blocks only the first two attesters' indexes see.
      await mine(3, [0, 1, 3]);
      const { status, body } = await get(`/doge-balance?address=${bob.address}`);
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.signers.sort()).to.deep.equal([attesterKeys[0].address, attesterKeys[1].address].sort());
      await syncAll([2]);
    });

    it("outvotes an attester whose index is corrupted: it disagrees and its signature is not used", async () => {
      corruptReceived(2, 1);
      try {
        const { status, body } = await get(`/doge-balance?address=${bob.address}`);
        expect(status, JSON.stringify(body)).to.equal(200);
        expect(body.signers.sort()).to.deep.equal([attesterKeys[0].address, attesterKeys[1].address].sort());
        expect(recoveredSigners(body)).to.deep.equal(body.signers);
      } finally {
        corruptReceived(2, -1);
      }
    });

    it("answers 502 ATTESTERS_DISAGREE when no two attesters agree", async () => {
      corruptReceived(1, 1);
      corruptReceived(2, 2);
      try {
        const { status, body } = await get(`/doge-balance?address=${bob.address}`);
        expect(status).to.equal(502);
        expect(body.error.code).to.equal("ATTESTERS_DISAGREE");
        expect(body.error.details.attesters).to.have.length(3);
      } finally {
        corruptReceived(1, -1);
        corruptReceived(2, -2);
      }
    });
  });
});
