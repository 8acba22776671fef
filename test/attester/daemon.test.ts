import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { verifyTypedData } from "ethers";
import hre from "hardhat";
import { JsonRpcServer } from "hardhat/internal/hardhat-network/jsonrpc/server";
import { FACT_TYPES, l1TipFact } from "../../src/facts";
import type { AttestationDomain } from "../../src/facts";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { factFromJson } from "../../src/attester";
import { SpawnedDaemon, runDaemonToExit, spawnDaemon } from "../helpers/daemon";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey } from "../helpers/keys";
import { ATTESTERS } from "../contracts/attestation-fixture";
import { blockRpc, call, deployContracts, nowSeconds } from "./helpers";

/** Runs the daemon until it exits on its own, with no key in the environment unless `env` gives one. */
const runToExit = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runDaemonToExit("daemons/attester/main.ts", args, { ATTESTER_PRIVATE_KEY: "", ...env });

/**
 * The attester process: its own index file (written here by an in-process indexer over the
 * devnet), the L2 served over JSON-RPC from the in-process Hardhat network, a key file of mode 0600.
 */
describe("attester daemon", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  let rpcServer: JsonRpcServer;
  let l2Url: string;
  let dir: string;
  let indexDb: string;
  let keyFile: string;
  let domain: AttestationDomain;
  let daemon: SpawnedDaemon | undefined;
  let tip: number;

  /** The daemon's flags; an override of null leaves the flag out. */
  const args = (overrides: Record<string, string | null> = {}): string[] =>
    Object.entries({
      "--index-db": indexDb,
      "--rpc-url": devnet.url,
      "--l2-rpc-url": l2Url,
      "--attestation-address": domain.verifyingContract,
      "--chain-id": domain.chainId.toString(),
      "--key-file": keyFile,
      "--port": "0",
      ...overrides,
    })
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .flat();

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "attester-daemon-"));
    devnet = await startDevnet();
    await devnet.rpc("generatetoaddress", [12, newKey().address]);
    indexDb = path.join(dir, "index.sqlite");
    const db = openIndexerDatabase(indexDb);
    const indexer = new Indexer({
      store: new IndexerStore(db),
      source: new RpcChainSource(blockRpc(devnet)),
      network: NETWORKS.regtest,
    });
    await indexer.syncOnce();
    tip = indexer.indexedHeight();
    db.close();
    ({ domain } = await deployContracts(ATTESTERS));
    rpcServer = new JsonRpcServer({ hostname: "127.0.0.1", port: 0, provider: hre.network.provider });
    const { port } = await rpcServer.listen();
    l2Url = `http://127.0.0.1:${port}`;
    keyFile = path.join(dir, "attester.key");
    fs.writeFileSync(keyFile, `${ATTESTERS[0].privateKey}\n`, { mode: 0o600 });
  });

  after(async () => {
    await daemon?.stop();
    await rpcServer?.close();
    await devnet?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("prints its URL when ready, signs from its own index and stops cleanly on SIGTERM", async () => {
    daemon = await spawnDaemon("daemons/attester/main.ts", args(), "attester");
    const info = await call(`${daemon.url}/v1/info`);
    expect(info.body).to.deep.include({
      name: "attester",
      signer: ATTESTERS[0].address,
      attester_set_id: "1",
      indexed_height: tip,
      node_height: tip,
      signable_height: tip - 5,
    });
    const attestedAt = nowSeconds();
    const answer = await call(`${daemon.url}/v1/fact`, "POST", {
      type: "L1_TIP",
      params: {},
      l1_height: tip - 5,
      attested_at: attestedAt,
      attester_set_id: 1,
    });
    expect(answer.status).to.equal(200);
    const fact = factFromJson(answer.body.fact);
    expect(fact).to.deep.equal(
      l1TipFact(tip - 5, await devnet.rpc<string>("getblockhash", [tip - 5]), { attestedAt, attesterSetId: 1n }),
    );
    expect(verifyTypedData(domain, FACT_TYPES, fact, answer.body.signature)).to.equal(ATTESTERS[0].address);
    expect((await call(`${daemon.url}/health`)).body).to.deep.include({ ok: true, indexed_height: tip });
    expect(await (await fetch(`${daemon.url}/metrics`)).text()).to.match(/attester_signable_height \d+/);
    expect(await daemon.stop()).to.equal(0);
    daemon = undefined;
  });

  it("takes the key from ATTESTER_PRIVATE_KEY when no key file is given", async () => {
    const keyed = await spawnDaemon("daemons/attester/main.ts", args({ "--key-file": null }), "attester-2", {
      env: { ATTESTER_PRIVATE_KEY: ATTESTERS[1].privateKey, ATTESTER_NAME: "attester-2" },
    });
    try {
      expect((await call(`${keyed.url}/v1/info`)).body.signer).to.equal(ATTESTERS[1].address);
    } finally {
      await keyed.stop();
    }
  });

  it("refuses to start with a key file others may read, without a key, below 6 confirmations or on another chain", async () => {
    const open = path.join(dir, "open.key");
    fs.writeFileSync(open, ATTESTERS[0].privateKey, { mode: 0o644 });
    fs.chmodSync(open, 0o644);
    const loose = await runToExit(args({ "--key-file": open }));
    expect([loose.code, /chmod 600/.test(loose.stderr)]).to.deep.equal([2, true]);
    expect(loose.stderr).to.not.include(ATTESTERS[0].privateKey.slice(2));

    const keyless = await runToExit(args({ "--key-file": null }));
    expect([keyless.code, /ATTESTER_PRIVATE_KEY/.test(keyless.stderr)]).to.deep.equal([2, true]);

    const shallow = await runToExit(args({ "--min-confirmations": "5" }));
    expect([shallow.code, /at least 6/.test(shallow.stderr)]).to.deep.equal([2, true]);

    const otherChain = await runToExit(args({ "--chain-id": "6281971" }));
    expect([
      otherChain.code,
      /refusing to start: EIP-712 domain mismatch: chainId/.test(otherChain.stderr),
    ]).to.deep.equal([2, true]);
  });
});
