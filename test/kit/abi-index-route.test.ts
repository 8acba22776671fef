/**
 * The ABI index served where the seed publishes it (issue 30, src/services/http/abi-index-route.ts):
 * the explorer's and the launchpad's real apps answer GET /shared/abi/index.json and the ABI files
 * beside it over HTTP, to any origin, with the committed index of the real chains (DogeOS 6281971,
 * `deployed: false`) and the local chain's deployment as the deploy step records it (a DogeAttestation
 * deployed on the in-process Hardhat network, its block and transaction). Every other daemon's
 * published OpenAPI document lists the routes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import type express from "express";
import { expect } from "chai";
import { ethers } from "hardhat";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { createExplorerApp } from "../../src/services/explorer/app";
import { createLaunchpadApp, openLaunchpadDatabase } from "../../src/services/launchpad";
import { surfaceOf } from "../../src/services/http/openapi";
import { ABI_DIR, PUBLISHED_CONTRACTS, indexEntry, indexFileText } from "../../deploy/contracts";
import { jsonRequest } from "../helpers/http";
import { listenLocal } from "../helpers/listen";

const ROOT = path.resolve(__dirname, "..", "..");

async function listen(app: express.Express): Promise<{ origin: string; server: Server }> {
  const { server, base } = await listenLocal(app);
  return { origin: base, server };
}

describe("the ABI index served by the daemons", function () {
  this.timeout(60_000);
  const savedDataDir = process.env.DOGEOS_DATA_DIR;
  const savedAbiIndex = process.env.ABI_INDEX;
  let dataDir: string;
  let localIndexFile: string;
  let deployment: { address: string; deployBlock: number; deployTx: string };
  const servers: Server[] = [];
  const origins: Record<string, string> = {};
  const apps: Record<string, express.Express> = {};

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "abi-index-route-"));
    process.env.DOGEOS_DATA_DIR = dataDir;
    delete process.env.ABI_INDEX;
    // The local chain's deployment as deploy/deploy.ts records it: address, block and transaction.
    const [deployer] = await ethers.getSigners();
    const plugs = await ethers.deployContract("PlugsMarketplace");
    const attesters = [1, 2, 3]
      .map(() => ethers.Wallet.createRandom().address)
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const attestation = await ethers.deployContract("DogeAttestation", [
      deployer.address,
      deployer.address,
      deployer.address,
      attesters,
      3600,
      await plugs.getAddress(),
    ]);
    const receipt = (await attestation.deploymentTransaction()!.wait())!;
    deployment = { address: await attestation.getAddress(), deployBlock: receipt.blockNumber, deployTx: receipt.hash };
    fs.mkdirSync(path.join(dataDir, "abi"));
    localIndexFile = path.join(dataDir, "abi", "index.json");
    fs.writeFileSync(localIndexFile, indexFileText({ "31337": indexEntry({ DogeAttestation: deployment }) }));
    for (const name of PUBLISHED_CONTRACTS)
      fs.copyFileSync(path.join(ABI_DIR, `${name}.json`), path.join(dataDir, "abi", `${name}.json`));

    const queries = new IndexQueries(openIndexerDatabase(":memory:"));
    apps.explorer = createExplorerApp({
      queries,
      network: NETWORKS.regtest,
      node: { sendRawTransaction: async () => "" },
      statusCacheMs: 0,
    });
    apps.launchpad = createLaunchpadApp({
      db: openLaunchpadDatabase(":memory:"),
      queries,
      network: NETWORKS.regtest,
    });
    for (const [name, app] of Object.entries(apps)) {
      const { origin, server } = await listen(app);
      origins[name] = origin;
      servers.push(server);
    }
  });

  after(() => {
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    if (savedDataDir === undefined) delete process.env.DOGEOS_DATA_DIR;
    else process.env.DOGEOS_DATA_DIR = savedDataDir;
    if (savedAbiIndex !== undefined) process.env.ABI_INDEX = savedAbiIndex;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  for (const name of ["explorer", "launchpad"]) {
    describe(`the ${name}`, () => {
      it("answers the committed chains and the local deployment as recorded, readable from any origin", async () => {
        const answer = await jsonRequest(`${origins[name]}/shared/abi/index.json`);
        expect(answer.status).to.equal(200);
        expect(answer.headers.get("access-control-allow-origin")).to.equal("*");
        const committed = JSON.parse(fs.readFileSync(path.join(ABI_DIR, "index.json"), "utf8"));
        expect(answer.body["6281971"]).to.deep.equal(committed["6281971"]);
        expect(answer.body["6281971"].deployed).to.equal(false);
        expect(answer.body["31337"].deployed).to.equal(true);
        expect(answer.body["31337"].contracts.DogeAttestation).to.deep.equal({
          ...deployment,
          abi: "DogeAttestation.json",
        });
        expect(answer.body["31337"].contracts.DogeAnchor).to.deep.equal({ address: null, abi: "DogeAnchor.json" });
        // What it says is on chain: the recorded transaction created the recorded address in the recorded block.
        const receipt = await ethers.provider.getTransactionReceipt(
          answer.body["31337"].contracts.DogeAttestation.deployTx,
        );
        expect(receipt!.contractAddress).to.equal(deployment.address);
        expect(receipt!.blockNumber).to.equal(deployment.deployBlock);
      });

      it("serves every ABI file the index names, byte for byte, to any origin", async () => {
        for (const contract of PUBLISHED_CONTRACTS) {
          const response = await fetch(`${origins[name]}/shared/abi/${contract}.json`);
          expect(response.status, contract).to.equal(200);
          expect(response.headers.get("access-control-allow-origin")).to.equal("*");
          expect(response.headers.get("content-type")).to.match(/^application\/json/);
          expect(await response.text()).to.equal(fs.readFileSync(path.join(ABI_DIR, `${contract}.json`), "utf8"));
        }
      });

      it("refuses a file the index does not name with 404 ABI_FILE_NOT_FOUND, whatever the path tries", async () => {
        for (const file of ["Unknown.json", "..%2F..%2Fpackage.json", "..%2Findex.json", "DogeAttestation.sol"]) {
          const answer = await jsonRequest(`${origins[name]}/shared/abi/${file}`);
          expect(answer.status, file).to.equal(404);
          expect(answer.body.error.code, file).to.equal("ABI_FILE_NOT_FOUND");
        }
      });

      it("declares both routes in its OpenAPI document", () => {
        const surface = surfaceOf(apps[name])!;
        expect(surface.has("get", "/shared/abi/index.json")).to.equal(true);
        expect(surface.has("get", "/shared/abi/{file}")).to.equal(true);
      });
    });
  }

  it("shows a deployment recorded while the daemon runs, and answers 503 ABI_INDEX_UNREADABLE for a broken file", async () => {
    const original = fs.readFileSync(localIndexFile, "utf8");
    try {
      const index = JSON.parse(original);
      index["31337"].contracts.DogeAnchor = {
        address: deployment.address,
        abi: "DogeAnchor.json",
        deployBlock: 7,
        deployTx: deployment.deployTx,
      };
      fs.writeFileSync(localIndexFile, indexFileText(index));
      const seen = await jsonRequest(`${origins.launchpad}/shared/abi/index.json`);
      expect(seen.body["31337"].contracts.DogeAnchor.deployBlock).to.equal(7);
      fs.writeFileSync(localIndexFile, "{ not json");
      const broken = await jsonRequest(`${origins.explorer}/shared/abi/index.json`);
      expect(broken.status).to.equal(503);
      expect(broken.body.error.code).to.equal("ABI_INDEX_UNREADABLE");
    } finally {
      fs.writeFileSync(localIndexFile, original);
    }
  });

  it("is listed in the published OpenAPI document of every HTTP daemon", () => {
    for (const name of ["explorer", "launchpad", "amm", "inscriber", "attest", "attester"]) {
      const document = JSON.parse(fs.readFileSync(path.join(ROOT, "shared", "openapi", `${name}.json`), "utf8"));
      expect(document.paths, name).to.have.property("/shared/abi/index.json");
      expect(document.paths, name).to.have.property("/shared/abi/{file}");
    }
  });
});
