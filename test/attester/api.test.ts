import { expect } from "chai";
import { JsonRpcProvider, TypedDataEncoder, verifyTypedData } from "ethers";
import createClient from "openapi-fetch";
import type { paths } from "../../shared/openapi/attester";
import type { Contract, Wallet } from "ethers";
import { FACT_TYPES, FACT_TYPE_NAMES, attestationDomain, factDigest } from "../../src/facts";
import type { AttestationDomain, FactTypeName } from "../../src/facts";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { Indexer } from "../../src/indexer/indexer";
import { ethersAttesterL2, factFromJson } from "../../src/attester";
import { undocumentedRoutes } from "../../src/services/http/openapi";
import { expectPublished } from "../helpers/openapi-publish";
import type { FactParamsJson, SignedFactJson } from "../../src/attester";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { InscribeResult, inscribeV1, pay } from "../helpers/inscribe";
import { newKey } from "../helpers/keys";
import { ATTESTERS, OUTSIDER } from "../contracts/attestation-fixture";
import { DOGE, RunningAttester, call, deployContracts, newIndex, nowSeconds, startAttester } from "./helpers";

/**
 * Three attesters, each over its own in-process index of one devnet, signing through their HTTP
 * APIs for a DogeAttestation deployed with their three keys on the in-process Hardhat network.
 */
describe("attester signing API", function () {
  this.timeout(180_000);
  let devnet: RunningDevnet;
  const indexes: { indexer: Indexer; history: IndexHistory }[] = [];
  const attesters: RunningAttester[] = [];
  const extra: RunningAttester[] = [];
  let attestation: Contract;
  let anchorAddress: string;
  let domain: AttestationDomain;
  let chainId: bigint;
  const alice = newKey();
  const bob = newKey();
  let image: InscribeResult;
  let paymentTxid: string;
  let tip: number;

  const syncAll = async () => {
    for (const index of indexes) await index.indexer.syncOnce();
  };
  const mine = async (blocks: number) => {
    await devnet.rpc("generatetoaddress", [blocks, newKey().address]);
  };
  const nodeHeight = () => devnet.rpc<number>("getblockcount");
  const factRequest = (
    type: FactTypeName,
    params: FactParamsJson,
    l1Height: number,
    overrides: Record<string, unknown> = {},
  ) => ({ type, params, l1_height: l1Height, attested_at: nowSeconds(), attester_set_id: "1", ...overrides });
  const postFact = (attester: RunningAttester, body: unknown) => call(`${attester.url}/v1/fact`, "POST", body);
  /** The refusal's status and code, checking that nothing was signed. */
  const refused = (answer: { status: number; body: any }) => {
    expect(answer.body).to.not.have.property("signature");
    return [answer.status, answer.body.error.code];
  };
  const startWith = async (
    options: Partial<Parameters<typeof startAttester>[0]> & { signer: Wallet; history: IndexHistory },
  ) => {
    const attester = await startAttester({
      attestationAddress: await attestation.getAddress(),
      chainId,
      nodeHeight,
      ...options,
    });
    extra.push(attester);
    return attester;
  };

  before(async () => {
    devnet = await startDevnet();
    for (let i = 0; i < 3; i++) indexes.push(newIndex(devnet));
    ({ attestation, domain, chainId } = await deployContracts(ATTESTERS));
    anchorAddress = await (await deployContracts(ATTESTERS)).anchor.getAddress();
    const funded = await devnet.rpc<{ txid: string; vout: number }>("devnet_faucet", [alice.address, 1_000, true]);
    const payment = await pay(
      devnet,
      alice,
      [{ txid: funded.txid, vout: funded.vout, value: 1_000n * DOGE }],
      [{ script: bob.script, value: 25n * DOGE }],
    );
    paymentTxid = payment.txid;
    image = await inscribeV1(
      devnet,
      alice,
      payment.change!,
      { contentType: "image/png", action: "LIST", body: new TextEncoder().encode("pixels") },
      alice.script,
    );
    await mine(6);
    await syncAll();
    tip = indexes[0].indexer.indexedHeight();
    for (let i = 0; i < 3; i++) {
      attesters.push(
        await startAttester({
          name: `attester-${i + 1}`,
          history: indexes[i].history,
          signer: ATTESTERS[i],
          attestationAddress: await attestation.getAddress(),
          chainId,
          nodeHeight,
        }),
      );
    }
  });

  after(async () => {
    for (const attester of [...attesters, ...extra]) await attester.close();
    await devnet?.stop();
  });

  describe("its contract", () => {
    it("documents every route it serves", () => {
      expect(undocumentedRoutes(attesters[0].app)).to.deep.equal([]);
    });

    it("publishes its OpenAPI document, with the reference page", async () => {
      const document = await (await fetch(`${attesters[0].url}/openapi.json`)).json();
      expect(document.openapi).to.equal("3.1.0");
      await expectPublished("attester", document);
      const page = await fetch(`${attesters[0].url}/docs`);
      expect(page.headers.get("content-type")).to.match(/^text\/html/);
      expect(await page.text()).to.include("docs/assets/swagger-ui-bundle.js");
      const script = await fetch(`${attesters[0].url}/docs/assets/swagger-ui-bundle.js`);
      expect(script.status).to.equal(200);
      await script.arrayBuffer();
    });
  });

  describe("GET /v1/info", () => {
    it("reports the signer, the domain, the current set and the heights", async () => {
      // A client generated from the published document (shared/openapi/attester.d.ts).
      const client = createClient<paths>({ baseUrl: attesters[1].url });
      const { data: body, response } = await client.GET("/v1/info");
      expect(response.status).to.equal(200);
      expect(body).to.deep.equal({
        name: "attester-2",
        signer: ATTESTERS[1].address,
        domain: {
          name: "DogeAttestation",
          version: "1",
          chainId: Number(chainId),
          verifyingContract: await attestation.getAddress(),
        },
        attester_set_id: "1",
        indexed_height: tip,
        indexed_hash: await devnet.rpc<string>("getblockhash", [tip]),
        node_height: tip,
        min_confirmations: 6,
        signable_height: tip - 5,
      });
    });
  });

  describe("POST /v1/fact", () => {
    const subjects = (): Record<FactTypeName, FactParamsJson> => ({
      DOGE_BALANCE: { address: bob.address },
      DRC20_BALANCE: { address: bob.address, tick: "woof" },
      DRC20_TRANSFER_VALID: { txid: paymentTxid },
      COLLECTION_COUNT: { address: alice.address, slug: "pups" },
      INSCRIPTION_OWNER: { inscription_id: image.inscriptionId },
      INSCRIPTION_VALID: { inscription_id: image.inscriptionId },
      INSCRIPTION_ACTION: { inscription_id: image.inscriptionId },
      TX_INCLUDED: { txid: paymentTxid },
      L1_TIP: {},
    });

    it("signs byte-identical facts of every type from three independently built indexes, each signature recovering to its attester", async () => {
      const attestedAt = nowSeconds();
      for (const type of FACT_TYPE_NAMES) {
        const request = factRequest(type, subjects()[type], tip - 5, { attested_at: attestedAt });
        const answers = await Promise.all(attesters.map((attester) => postFact(attester, request)));
        expect(
          answers.map((a) => a.status),
          type,
        ).to.deep.equal([200, 200, 200]);
        const facts = answers.map((a) => JSON.stringify((a.body as SignedFactJson).fact));
        expect(new Set(facts).size, `${type}: the same bytes from every index`).to.equal(1);
        answers.forEach((answer, i) => {
          const body = answer.body as SignedFactJson;
          expect(body.signer).to.equal(ATTESTERS[i].address);
          expect(verifyTypedData(domain, FACT_TYPES, factFromJson(body.fact), body.signature)).to.equal(
            ATTESTERS[i].address,
          );
        });
      }
    });

    it("hands out facts the contract accepts with two of the three signatures (submitFact)", async () => {
      // One attestedAt for all: left to each attester's clock, two answers a second apart would be
      // two different facts, and a pair of their signatures would verify for neither.
      const request = factRequest("DOGE_BALANCE", { address: bob.address }, tip - 5, { attested_at: nowSeconds() });
      const [first, , third] = await Promise.all(attesters.map((attester) => postFact(attester, request)));
      const fact = factFromJson(first.body.fact);
      const digest = factDigest(domain, fact);
      expect(TypedDataEncoder.hash(domain, FACT_TYPES, fact)).to.equal(digest);
      const pair = [first.body as SignedFactJson, third.body as SignedFactJson].sort((a, b) =>
        BigInt(a.signer) < BigInt(b.signer) ? -1 : 1,
      );
      await (
        await attestation.submitFact(
          fact,
          pair.map((p) => p.signature),
        )
      ).wait();
      const [koinu, l1Height, attestedAt] = await attestation.dogeBalance(bob.address);
      expect([koinu, l1Height, attestedAt]).to.deep.equal([25n * DOGE, BigInt(tip - 5), BigInt(request.attested_at)]);

      const tipAnswers = await Promise.all(
        attesters
          .slice(0, 2)
          .map((attester) =>
            postFact(attester, factRequest("L1_TIP", {}, tip - 5, { attested_at: request.attested_at })),
          ),
      );
      const tipFact = factFromJson(tipAnswers[0].body.fact);
      const signatures = tipAnswers
        .map((a) => a.body as SignedFactJson)
        .sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1))
        .map((a) => a.signature);
      await (await attestation.submitFact(tipFact, signatures)).wait();
      expect(await attestation.l1Tip()).to.equal(BigInt(tip - 5));
    });

    it("refuses a height above its index with 409 INDEX_BEHIND while an attester whose index has it signs", async () => {
      await mine(7);
      await indexes[0].indexer.syncOnce();
      const ahead = tip + 7;
      const request = factRequest("L1_TIP", {}, ahead - 5);
      const caughtUp = await postFact(attesters[0], request);
      expect(caughtUp.status).to.equal(200);
      const behind = await postFact(attesters[1], request);
      expect(refused(behind)).to.deep.equal([409, "INDEX_BEHIND"]);
      expect(behind.body.error.details).to.deep.equal({ indexed_height: tip, requested_height: ahead - 5 });
      await syncAll();
      tip = ahead;
      expect((await postFact(attesters[1], request)).status).to.equal(200);
    });

    it("refuses a height less than 6 deep with 422 NOT_DEEP_ENOUGH", async () => {
      const answer = await postFact(attesters[2], factRequest("DOGE_BALANCE", { address: bob.address }, tip - 4));
      expect(refused(answer)).to.deep.equal([422, "NOT_DEEP_ENOUGH"]);
      expect(answer.body.error.details).to.deep.equal({
        l1_height: tip - 4,
        signable_height: tip - 5,
        min_confirmations: 6,
      });
    });

    it("refuses with 503 DOMAIN_MISMATCH when the contract's domain is not the configured one or cannot be read", async () => {
      const otherChain = await startWith({
        signer: ATTESTERS[0],
        history: indexes[0].history,
        domain: attestationDomain(6281971, await attestation.getAddress()),
      });
      const wrongChain = await postFact(otherChain, factRequest("L1_TIP", {}, tip - 5));
      expect(refused(wrongChain)).to.deep.equal([503, "DOMAIN_MISMATCH"]);
      expect(wrongChain.body.error.details.mismatches).to.deep.equal([
        { field: "chainId", expected: "6281971", actual: chainId.toString() },
      ]);

      const notAttestation = await startWith({
        signer: ATTESTERS[0],
        history: indexes[0].history,
        attestationAddress: anchorAddress,
      });
      expect(refused(await postFact(notAttestation, factRequest("L1_TIP", {}, tip - 5)))).to.deep.equal([
        503,
        "DOMAIN_MISMATCH",
      ]);

      const deadProvider = new JsonRpcProvider("http://127.0.0.1:9", Number(chainId), { staticNetwork: true });
      try {
        const unreachable = await startWith({
          signer: ATTESTERS[0],
          history: indexes[0].history,
          l2: ethersAttesterL2(deadProvider, await attestation.getAddress()),
        });
        const answer = await postFact(unreachable, factRequest("L1_TIP", {}, tip - 5));
        expect(refused(answer)).to.deep.equal([503, "DOMAIN_MISMATCH"]);
        const info = await call(`${unreachable.url}/v1/info`);
        expect([info.status, info.body.attester_set_id]).to.deep.equal([200, null]);
      } finally {
        deadProvider.destroy();
      }
    });

    it("refuses with 503 NOT_AN_ATTESTER when its key is not in the current set", async () => {
      const outsider = await startWith({ signer: OUTSIDER, history: indexes[0].history });
      const answer = await postFact(outsider, factRequest("L1_TIP", {}, tip - 5));
      expect(refused(answer)).to.deep.equal([503, "NOT_AN_ATTESTER"]);
      expect(answer.body.error.details.signer).to.equal(OUTSIDER.address);
    });

    it("refuses with 503 WRONG_ATTESTER_SET when the request names another set", async () => {
      const answer = await postFact(attesters[0], factRequest("L1_TIP", {}, tip - 5, { attester_set_id: 2 }));
      expect(refused(answer)).to.deep.equal([503, "WRONG_ATTESTER_SET"]);
      expect(answer.body.error.details).to.deep.equal({ requested: "2", current: "1" });
    });

    it("refuses an attested_at more than 15 minutes from its clock with 422 ATTESTED_AT_OUT_OF_WINDOW", async () => {
      for (const skew of [1_000, -1_000]) {
        const answer = await postFact(
          attesters[0],
          factRequest("L1_TIP", {}, tip - 5, { attested_at: nowSeconds() + skew }),
        );
        expect(refused(answer), `skew ${skew}`).to.deep.equal([422, "ATTESTED_AT_OUT_OF_WINDOW"]);
      }
      expect(
        (await postFact(attesters[0], factRequest("L1_TIP", {}, tip - 5, { attested_at: String(nowSeconds() + 600) })))
          .status,
      ).to.equal(200);
    });

    it("answers 404 INSCRIPTION_NOT_FOUND for the owner of an inscription it does not know", async () => {
      const answer = await postFact(
        attesters[0],
        factRequest("INSCRIPTION_OWNER", { inscription_id: `${"ab".repeat(32)}i0` }, tip - 5),
      );
      expect(refused(answer)).to.deep.equal([404, "INSCRIPTION_NOT_FOUND"]);
    });

    it("answers 400 for malformed requests", async () => {
      const bad = async (body: unknown) => refused(await postFact(attesters[0], body));
      const good = factRequest("DOGE_BALANCE", { address: bob.address }, tip - 5);
      expect(await bad({ ...good, type: "DOGE_BALANCES" })).to.deep.equal([400, "UNKNOWN_FACT_TYPE"]);
      expect(await bad({ ...good, params: {} })).to.deep.equal([400, "MISSING_PARAMS"]);
      expect(await bad({ ...good, params: { address: bob.address, tick: "woof" } })).to.deep.equal([
        400,
        "UNKNOWN_FIELDS",
      ]);
      expect(await bad({ ...good, params: { address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L" } })).to.deep.equal([
        400,
        "INVALID_ADDRESS",
      ]);
      expect(await bad({ ...good, extra: 1 })).to.deep.equal([400, "UNKNOWN_FIELDS"]);
      expect(await bad({ ...good, l1_height: -1 })).to.deep.equal([400, "INVALID_INTEGER"]);
      expect(await bad({ ...good, attester_set_id: 0 })).to.deep.equal([400, "INVALID_INTEGER"]);
      const malformed = await fetch(`${attesters[0].url}/v1/fact`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{",
      });
      expect(malformed.status).to.equal(400);
    });
  });

  describe("operations", () => {
    it("serves /health and counts signatures and refusals in /metrics", async () => {
      const health = await call(`${attesters[0].url}/health`);
      expect(health.status).to.equal(200);
      expect(health.body).to.deep.include({
        ok: true,
        name: "attester-1",
        signer: ATTESTERS[0].address,
        indexed_height: tip,
        signable_height: tip - 5,
      });
      const metrics = await (await fetch(`${attesters[0].url}/metrics`)).text();
      expect(metrics).to.match(/attester_signatures_total\{kind="fact",type="DOGE_BALANCE"\} \d+/);
      expect(metrics).to.match(
        /attester_refusals_total\{code="NOT_DEEP_ENOUGH"\} \d+|attester_refusals_total\{code="WRONG_ATTESTER_SET"\} \d+/,
      );
      const misconfigured = await call(`${extra[0].url}/health`);
      expect([misconfigured.status, misconfigured.body.ok, misconfigured.body.l2.ok]).to.deep.equal([
        503,
        false,
        false,
      ]);
    });
  });
});
