import { expect } from "chai";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Wallet } from "ethers";
import hre from "hardhat";
import { JsonRpcServer } from "hardhat/internal/hardhat-network/jsonrpc/server";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { DogecoinRpcError, RPC_INVALID_ADDRESS_OR_KEY } from "../../src/chain/errors";
import { CheckedNode, checkTxindex, probeTxindex } from "../../src/chain/network-check";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { generateWalletKeyFile } from "../../src/wallet/keys";
import { runDaemonToExit, spawnDaemon } from "../helpers/daemon";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey, spendP2pkh } from "../helpers/keys";

const DOGE = 100_000_000n;

/** A TCP port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The start-up checks and the bound on stopping of the daemons other than the indexer (issue 19,
 * items 3 and 5): the explorer refuses a node on another network, the relayer an L2 with another
 * chain id; the explorer, the inscriber and the relayer stop within 5 s of SIGTERM when their node
 * (and L2) do not answer; the -txindex probe against the devnet.
 */
describe("daemon start-up checks and stopping", function () {
  this.timeout(180_000);
  let devnet: RunningDevnet;
  let dir: string;
  let walletKeyFile: string;

  before(async () => {
    devnet = await startDevnet();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "daemon-checks-"));
    walletKeyFile = path.join(dir, "wallet.wif");
    generateWalletKeyFile(walletKeyFile, NETWORKS.regtest);
    // The indexes the readers open, as their indexer would have created them (readers never do).
    for (const name of [
      "explorer",
      "relayer-index",
      "inscriber-index",
      "relayer2-index",
      "amm-index",
      "launchpad-index",
      "attester-index",
      "attest-index",
    ]) {
      openIndexerDatabase(path.join(dir, `${name}.sqlite`)).close();
    }
  });

  after(async () => {
    await devnet?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const explorerArgs = (rpcUrl: string, network: string) => [
    "--db",
    path.join(dir, "explorer.sqlite"),
    "--pqc-db",
    path.join(dir, "pqc.sqlite"),
    "--rpc-url",
    rpcUrl,
    "--network",
    network,
    "--port",
    "0",
  ];

  it("explorer: exits 2 with the mismatch line when --network mainnet meets the devnet", async () => {
    const run = await runDaemonToExit("daemons/explorer/main.ts", explorerArgs(devnet.url, "mainnet"));
    expect(run.code).to.equal(2);
    const host = new URL(devnet.url).host;
    expect(run.stderr.split("\n").filter((line) => line.startsWith("explorer:"))).to.deep.equal([
      `explorer: the node at http://${host}/ is on regtest ("regtest") but --network is mainnet; pass --network regtest or point --rpc-url at a mainnet node`,
    ]);
  });

  it("relayer: exits 2 with one line when the L2 (a Hardhat node) has another chain id than --chain-id", async () => {
    const rpcServer = new JsonRpcServer({ hostname: "127.0.0.1", port: 0, provider: hre.network.provider });
    const l2Url = `http://127.0.0.1:${(await rpcServer.listen()).port}`;
    try {
      const actual = BigInt((await hre.network.provider.send("eth_chainId", [])) as string);
      const contract = () => Wallet.createRandom().address;
      const run = await runDaemonToExit(
        "daemons/relayer/main.ts",
        [
          "--db",
          path.join(dir, "relayer.sqlite"),
          "--wallet-db",
          path.join(dir, "relayer-wallet.sqlite"),
          "--index-db",
          path.join(dir, "relayer-index.sqlite"),
          "--rpc-url",
          devnet.url,
          "--l2-rpc-url",
          l2Url,
          "--chain-id",
          "6281971",
          "--attestation-address",
          contract(),
          "--inscriber-address",
          contract(),
          "--anchor-address",
          contract(),
          "--attesters",
          "http://127.0.0.1:9/a,http://127.0.0.1:9/b,http://127.0.0.1:9/c",
          "--inscriber-url",
          "http://127.0.0.1:9",
          "--wallet-key-file",
          walletKeyFile,
          "--port",
          "0",
        ],
        {
          RELAYER_PRIVATE_KEY: Wallet.createRandom().privateKey,
          RELAYER_INSCRIBER_KEY: "ik_unused",
          RELAYER_WALLET_WIF: "",
        },
      );
      expect(run.code).to.equal(2);
      expect(run.stderr.split("\n").filter((line) => line.startsWith("relayer:"))).to.deep.equal([
        `relayer: the L2 at ${l2Url}/ has chain id ${actual} but --chain-id is 6281971; pass --chain-id ${actual} or point --l2-rpc-url at chain 6281971`,
      ]);
    } finally {
      await rpcServer.close();
    }
  });

  /** Starts the daemon, sends SIGTERM once it is ready and its node calls are failing, and bounds the stop. */
  async function stopsWithin5s(
    entry: string,
    args: string[],
    name: string,
    env: NodeJS.ProcessEnv = {},
  ): Promise<void> {
    const daemon = await spawnDaemon(entry, args, name, { env: { LOG_LEVEL: "info", ...env } });
    // Its node does not answer: some call is being retried (or waited for) right now.
    const deadline = Date.now() + 20_000;
    while (!/retrying|node_checks_waiting/.test(daemon.stderr()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(daemon.stderr()).to.match(/retrying|node_checks_waiting/);
    const started = Date.now();
    const code = await daemon.stop();
    expect(Date.now() - started, `${name} took too long to stop`).to.be.below(5_000);
    expect(code).to.equal(0);
  }

  it("explorer: stops within 5 s of SIGTERM with its node unreachable", async () => {
    await stopsWithin5s(
      "daemons/explorer/main.ts",
      explorerArgs(`http://u:p@127.0.0.1:${await closedPort()}`, "regtest"),
      "explorer",
    );
  });

  it("explorer: waits for the indexer to create the index, then serves it", async () => {
    const later = path.join(dir, "later.sqlite");
    const args = explorerArgs(`http://u:p@127.0.0.1:${await closedPort()}`, "regtest");
    args[args.indexOf("--db") + 1] = later;
    // The index is created only once the daemon said it waits for it (not after a fixed delay: a
    // loaded machine starts the daemon later than that).
    let sawWaiting: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (sawWaiting = resolve));
    const starting = spawnDaemon("daemons/explorer/main.ts", args, "explorer", {
      env: { LOG_LEVEL: "info" },
      onStderr: (stderr) => {
        if (stderr.includes('"event":"index_waiting"')) sawWaiting();
      },
    });
    await Promise.race([waiting, starting]);
    expect(fs.existsSync(later), "a reader never creates the index").to.equal(false);
    openIndexerDatabase(later).close();
    const daemon = await starting;
    try {
      expect(daemon.stderr().match(/"event":"index_waiting"/g)).to.have.length(1);
      expect(
        ((await (await fetch(`${daemon.url}/status`)).json()) as { indexer: { indexed_height: number } }).indexer
          .indexed_height,
      ).to.equal(-1);
    } finally {
      await daemon.stop();
    }
  });

  it("inscriber: stops within 5 s of SIGTERM with its node unreachable", async () => {
    const projects = path.join(dir, "projects.json");
    fs.writeFileSync(projects, JSON.stringify({ projects: { demo: { key_sha256: "00".repeat(32) } } }));
    await stopsWithin5s(
      "daemons/inscriber/main.ts",
      [
        "--index-db",
        path.join(dir, "inscriber-index.sqlite"),
        "--rpc-url",
        `http://u:p@127.0.0.1:${await closedPort()}`,
        "--network",
        "regtest",
        "--db",
        path.join(dir, "inscriber.sqlite"),
        "--wallet-db",
        path.join(dir, "inscriber-wallet.sqlite"),
        "--wallet-key-file",
        walletKeyFile,
        "--projects-file",
        projects,
        "--port",
        "0",
      ],
      "inscriber",
      { DOGEOS_WALLET_WIF: "" },
    );
  });

  it("relayer: stops within 5 s of SIGTERM with its node and its L2 unreachable", async () => {
    const contract = () => Wallet.createRandom().address;
    await stopsWithin5s(
      "daemons/relayer/main.ts",
      [
        "--db",
        path.join(dir, "relayer2.sqlite"),
        "--wallet-db",
        path.join(dir, "relayer2-wallet.sqlite"),
        "--index-db",
        path.join(dir, "relayer2-index.sqlite"),
        "--rpc-url",
        `http://u:p@127.0.0.1:${await closedPort()}`,
        "--l2-rpc-url",
        `http://127.0.0.1:${await closedPort()}`,
        "--chain-id",
        "31337",
        "--attestation-address",
        contract(),
        "--inscriber-address",
        contract(),
        "--anchor-address",
        contract(),
        "--attesters",
        "http://127.0.0.1:9/a,http://127.0.0.1:9/b,http://127.0.0.1:9/c",
        "--inscriber-url",
        "http://127.0.0.1:9",
        "--wallet-key-file",
        walletKeyFile,
        "--port",
        "0",
      ],
      "relayer",
      {
        RELAYER_PRIVATE_KEY: Wallet.createRandom().privateKey,
        RELAYER_INSCRIBER_KEY: "ik_unused",
        RELAYER_WALLET_WIF: "",
      },
    );
  });

  it("amm and launchpad: stop within 5 s of SIGTERM with their node unreachable", async () => {
    const projectKey = path.join(dir, "project.key");
    fs.writeFileSync(projectKey, "ik_unused\n", { mode: 0o600 });
    const ammWallet = path.join(dir, "amm.wif");
    generateWalletKeyFile(ammWallet, NETWORKS.regtest);
    await stopsWithin5s(
      "daemons/amm/main.ts",
      [
        "--db",
        path.join(dir, "amm.sqlite"),
        "--index-db",
        path.join(dir, "amm-index.sqlite"),
        "--rpc-url",
        `http://u:p@127.0.0.1:${await closedPort()}`,
        "--inscriber-url",
        `http://127.0.0.1:${await closedPort()}`,
        "--inscriber-key-file",
        projectKey,
        "--wallet-key-file",
        ammWallet,
        "--wallet-db",
        path.join(dir, "amm-wallet.sqlite"),
        "--port",
        "0",
      ],
      "amm",
      { AMM_WALLET_WIF: "" },
    );
    await stopsWithin5s(
      "daemons/launchpad/main.ts",
      [
        "--db",
        path.join(dir, "launchpad.sqlite"),
        "--index-db",
        path.join(dir, "launchpad-index.sqlite"),
        "--rpc-url",
        `http://u:p@127.0.0.1:${await closedPort()}`,
        "--inscriber-url",
        `http://127.0.0.1:${await closedPort()}`,
        "--inscriber-key-file",
        projectKey,
        "--port",
        "0",
      ],
      "launchpad",
    );
  });

  it("attester and attest: stop within 5 s of SIGTERM with their node and L2 unreachable", async () => {
    const attestation = Wallet.createRandom().address;
    await stopsWithin5s(
      "daemons/attester/main.ts",
      [
        "--index-db",
        path.join(dir, "attester-index.sqlite"),
        "--rpc-url",
        `http://u:p@127.0.0.1:${await closedPort()}`,
        "--l2-rpc-url",
        `http://127.0.0.1:${await closedPort()}`,
        "--attestation-address",
        attestation,
        "--chain-id",
        "31337",
        "--port",
        "0",
      ],
      "attester",
      { ATTESTER_PRIVATE_KEY: Wallet.createRandom().privateKey },
    );
    await stopsWithin5s(
      "daemons/attest-api/main.ts",
      [
        "--attesters",
        "http://127.0.0.1:9/a,http://127.0.0.1:9/b,http://127.0.0.1:9/c",
        "--index-db",
        path.join(dir, "attest-index.sqlite"),
        "--l2-rpc-url",
        `http://127.0.0.1:${await closedPort()}`,
        "--attestation-address",
        attestation,
        "--chain-id",
        "31337",
        "--port",
        "0",
      ],
      "attest",
      { RELAYER_PRIVATE_KEY: Wallet.createRandom().privateKey },
    );
  });

  it("-txindex probe: finds the devnet's index through a fully spent transaction, and reports a node without one", async () => {
    const client = new DogecoinRpcClient({ url: devnet.url });
    // A fresh chain of coinbases only cannot tell.
    await devnet.rpc("generatetoaddress", [2, newKey().address]);
    expect((await probeTxindex(client)).state).to.equal("unknown");
    // A transaction whose only output a later one spends: the probe's witness.
    const alice = newKey();
    const bob = newKey();
    const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 10, true]);
    const first = spendP2pkh(
      alice,
      [{ txid: paid.txid, vout: 0, value: 10n * DOGE }],
      [{ script: bob.script, value: 9n * DOGE }],
    );
    const firstTxid = await devnet.rpc<string>("sendrawtransaction", [first.hex]);
    const second = spendP2pkh(
      bob,
      [{ txid: firstTxid, vout: 0, value: 9n * DOGE }],
      [{ script: newKey().script, value: 8n * DOGE }],
    );
    await devnet.rpc("sendrawtransaction", [second.hex]);
    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    expect(await client.getTxOut(firstTxid, 0, false)).to.equal(null);
    expect(await probeTxindex(client)).to.deep.equal({ state: "on", txid: firstTxid });

    // Dogecoin Core 1.14 without -txindex: getrawtransaction finds mempool transactions and those
    // with an unspent output (GetTransaction's UTXO fallback), -5 for the rest. The devnet's answers
    // are filtered by that rule here (the devnet itself always keeps the index).
    const withoutIndex: CheckedNode = {
      endpoint: client.endpoint,
      getBlockchainInfo: () => client.getBlockchainInfo(),
      getBestBlockHash: () => client.getBestBlockHash(),
      getBlockHex: (hash) => client.getBlockHex(hash),
      getTxOut: (txid, vout, includeMempool) => client.getTxOut(txid, vout, includeMempool),
      async getRawTransactionHex(txid) {
        const verbose = await client.getRawTransactionVerbose(txid);
        const confirmed = (verbose.confirmations ?? 0) > 0;
        let unspent = false;
        for (let vout = 0; vout < verbose.vout.length && !unspent; vout++)
          unspent = (await client.getTxOut(txid, vout, false)) !== null;
        if (confirmed && !unspent)
          throw new DogecoinRpcError(
            RPC_INVALID_ADDRESS_OR_KEY,
            "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
            "getrawtransaction",
            client.endpoint,
            500,
          );
        return verbose.hex;
      },
    };
    const error = await checkTxindex(withoutIndex, "inscriber", "the PSBTs").then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).to.equal(
      `inscriber: the node at http://${new URL(devnet.url).host}/ has no transaction index (getrawtransaction ${firstTxid} answers -5), which the PSBTs needs; restart dogecoind with -txindex=1 (once: -reindex)`,
    );
  });
});
