import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import hre, { ethers } from "hardhat";
import { JsonRpcServer } from "hardhat/internal/hardhat-network/jsonrpc/server";
import { Wallet } from "ethers";
import type { Contract } from "ethers";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { Indexer } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { generateWalletKeyFile } from "../../src/wallet";
import { SpawnedDaemon, runDaemonToExit, spawnDaemon } from "../helpers/daemon";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey } from "../helpers/keys";
import { ATTESTERS } from "../contracts/attestation-fixture";
import { RunningAttester, blockRpc, call, deployContracts, startAttester } from "../attester/helpers";
import { until } from "../helpers/wait";

/** Runs the daemon until it exits on its own, with no key in the environment unless `env` gives one. */
const runToExit = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runDaemonToExit("daemons/relayer/main.ts", args, {
    RELAYER_PRIVATE_KEY: "",
    RELAYER_INSCRIBER_KEY: "",
    RELAYER_WALLET_WIF: "",
    ...env,
  });

/**
 * The relayer process: the L2 served over JSON-RPC from the in-process Hardhat network, three
 * attesters in process, the explorer index in a file an in-process indexer writes, key files of
 * mode 0600. An anchor job paid on the L2 is done and settled by the daemon alone.
 */
describe("relayer daemon", function () {
  this.timeout(180_000);
  let devnet: RunningDevnet;
  let rpcServer: JsonRpcServer;
  let l2Url: string;
  let dir: string;
  let indexDbFile: string;
  const indexers: Indexer[] = [];
  const attesters: RunningAttester[] = [];
  let attestation: Contract;
  let inscriber: Contract;
  let anchor: Contract;
  let daemon: SpawnedDaemon | undefined;
  const files: Record<string, string> = {};
  let fromBlock: number;

  const mine = async (blocks = 1) => {
    await devnet.rpc("generatetoaddress", [blocks, newKey().address]);
    for (const indexer of indexers) await indexer.syncOnce();
  };
  const args = (overrides: Record<string, string | null> = {}): string[] =>
    Object.entries({
      "--db": path.join(dir, "relayer.sqlite"),
      "--wallet-db": path.join(dir, "wallet.sqlite"),
      "--index-db": indexDbFile,
      "--rpc-url": devnet.url,
      "--l2-rpc-url": l2Url,
      "--attestation-address": String(attestation.target),
      "--inscriber-address": String(inscriber.target),
      "--anchor-address": String(anchor.target),
      "--attesters": attesters.map((a) => a.url).join(","),
      "--inscriber-url": "http://127.0.0.1:9",
      "--inscriber-key-file": files.inscriberKey,
      "--wallet-key-file": files.walletKey,
      "--l2-key-file": files.l2Key,
      "--from-block": String(fromBlock),
      "--poll-ms": "100",
      "--retry-max-ms": "1000",
      "--port": "0",
      ...overrides,
    })
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .flat();

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "relayer-daemon-"));
    devnet = await startDevnet();
    indexDbFile = path.join(dir, "explorer.sqlite");
    const histories: IndexHistory[] = [];
    for (let i = 0; i < 4; i++) {
      const db = openIndexerDatabase(i === 3 ? indexDbFile : ":memory:");
      indexers.push(
        new Indexer({
          store: new IndexerStore(db),
          source: new RpcChainSource(blockRpc(devnet)),
          network: NETWORKS.regtest,
        }),
      );
      histories.push(new IndexHistory(db));
    }
    files.walletKey = path.join(dir, "wallet.wif");
    const walletKey = generateWalletKeyFile(files.walletKey, NETWORKS.regtest);
    for (let i = 0; i < 3; i++) await devnet.rpc("devnet_faucet", [walletKey.address, 100, false]);
    await mine(7);

    fromBlock = await ethers.provider.getBlockNumber();
    ({ attestation, inscriber, anchor } = await deployContracts(ATTESTERS));
    const { chainId } = await ethers.provider.getNetwork();
    for (let i = 0; i < 3; i++)
      attesters.push(
        await startAttester({
          history: histories[i],
          signer: ATTESTERS[i],
          attestationAddress: String(attestation.target),
          chainId,
        }),
      );
    rpcServer = new JsonRpcServer({ hostname: "127.0.0.1", port: 0, provider: hre.network.provider });
    l2Url = `http://127.0.0.1:${(await rpcServer.listen()).port}`;

    const l2Key = Wallet.createRandom();
    const [funder] = await ethers.getSigners();
    await (await funder.sendTransaction({ to: l2Key.address, value: 10n ** 19n })).wait();
    files.l2Key = path.join(dir, "l2.key");
    fs.writeFileSync(files.l2Key, `${l2Key.privateKey}\n`, { mode: 0o600 });
    files.inscriberKey = path.join(dir, "inscriber.key");
    fs.writeFileSync(files.inscriberKey, "ik_unused_here\n", { mode: 0o600 });
  });

  after(async () => {
    await daemon?.stop();
    for (const attester of attesters) await attester.close();
    await rpcServer?.close();
    await devnet?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("prints its URL when ready, anchors and settles a paid job on its own, serves its status and stops cleanly on SIGTERM", async () => {
    daemon = await spawnDaemon("daemons/relayer/main.ts", args(), "relayer");
    const health = await until("a first scan", async () => {
      const answer = await call(`${daemon!.url}/health`);
      return answer.status === 200 ? answer.body : null;
    });
    expect(health).to.deep.include({ ok: true, name: "relayer", attesters_up: 3 });
    expect(health.wallet.confirmed_koinu).to.equal(String(300n * 100_000_000n));

    const payload = new TextEncoder().encode("anchored by the relayer daemon");
    const tx = await anchor.requestAnchor(payload, { value: await anchor.fee() });
    const mined = await tx.wait();
    const jobId = anchor.interface.parseLog(mined!.logs[0])!.args.jobId as string;
    const broadcast = await until("the anchor's broadcast", async () => {
      const { body } = await call(`${daemon!.url}/v1/status`);
      const job = body.live.find((j: { job_id: string }) => j.job_id === jobId);
      return job?.status === "l1_done" ? job : null;
    });
    expect(broadcast.wallet_label).to.equal("anchor");
    expect(await devnet.rpc<string[]>("getrawmempool")).to.include(broadcast.l1_txid);

    let settled = false;
    for (let i = 0; i < 12 && !settled; i++) {
      await mine();
      // The daemon tries again within a second (--retry-max-ms 1000); give it a little more, then mine on.
      settled = await until("settlement", async () => (await anchor.jobOf(jobId)).status === 2n, 2500).catch(
        () => false,
      );
    }
    expect(settled).to.equal(true);
    const stored = await anchor.jobOf(jobId);
    expect(stored.l1Txid).to.equal(`0x${broadcast.l1_txid}`);
    const status = await until("the settled status", async () => {
      const { body } = await call(`${daemon!.url}/v1/status`);
      return body.jobs.settled === 1 ? body : null;
    });
    expect(status.live).to.deep.equal([]);
    expect(status.cursor.block).to.be.greaterThanOrEqual(mined!.blockNumber);
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).to.match(/relayer_jobs\{status="settled"\} 1/);
    expect(metrics).to.match(/relayer_settled_total\{kind="anchor"\} 1/);
    expect(await daemon.stop()).to.equal(0);
    daemon = undefined;
  });

  it("refuses to start with a key file others may read, without an L2 key, or with contracts wired to another attestation contract", async () => {
    const open = path.join(dir, "open.key");
    fs.writeFileSync(open, fs.readFileSync(files.l2Key, "utf8"), { mode: 0o644 });
    fs.chmodSync(open, 0o644);
    const loose = await runToExit(args({ "--l2-key-file": open }));
    expect([loose.code, /chmod 600/.test(loose.stderr)]).to.deep.equal([2, true]);
    expect(loose.stderr).to.not.include(fs.readFileSync(files.l2Key, "utf8").trim().slice(2));

    const keyless = await runToExit(args({ "--l2-key-file": null }));
    expect([keyless.code, /RELAYER_PRIVATE_KEY/.test(keyless.stderr)]).to.deep.equal([2, true]);

    const other = await deployContracts(ATTESTERS);
    const foreign = await runToExit(args({ "--anchor-address": String(other.anchor.target) }));
    expect([foreign.code, /DogeAnchor at .* settles through/.test(foreign.stderr)]).to.deep.equal([2, true]);
  });
});
