/**
 * Deployments with Hardhat Ignition (deploy/ignition.ts) on the in-process Hardhat network: a
 * deployment that fails halfway (a parameter that makes a later creation revert; a connection lost
 * after a transaction went out) is resumed from its journal and deploys nothing twice; the deploy
 * blocks and transactions it returns are the chain's, and the ABI index records them.
 */
import { expect } from "chai";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import hre from "hardhat";
import type { EIP1193Provider, RequestArguments } from "@nomicfoundation/ignition-core";
import { PUBLISHED_CONTRACTS, indexEntry, indexFileText } from "../../deploy/contracts";
import { deployContractSet, checkParameters, type ContractSetParameters } from "../../deploy/ignition";
import { contractAddress, deployBlock, readChainDeployment } from "../../src/l2/abi-index";

const ROOT = path.resolve(__dirname, "..", "..");

const provider = hre.network.provider as unknown as EIP1193Provider;

async function attesterAddresses(): Promise<string[]> {
  const signers = await hre.ethers.getSigners();
  return signers.slice(1, 4).map((s) => s.address);
}

/** Contract creations (transactions without `to`) in blocks after `fromBlock`. */
async function creationsSince(fromBlock: number): Promise<string[]> {
  const latest = await hre.ethers.provider.getBlockNumber();
  const created: string[] = [];
  for (let n = fromBlock + 1; n <= latest; n++) {
    const block = (await provider.request({
      method: "eth_getBlockByNumber",
      params: [`0x${n.toString(16)}`, true],
    })) as { transactions: { to: string | null; hash: string }[] };
    for (const tx of block.transactions) if (tx.to === null) created.push(tx.hash);
  }
  return created;
}

/** Journal lines of `type` in a deployment directory. */
function journal(dir: string, type: string): { futureId: string }[] {
  return fs
    .readFileSync(path.join(dir, "journal.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((m) => m.type === type);
}

describe("Ignition deployment of the contract set", function () {
  this.timeout(120_000);
  let dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ignition-test-"));
    dirs.push(dir);
    return path.join(dir, "chain-31337");
  };
  afterEach(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });

  it("resumes after a later creation reverted: the contracts already deployed stay, nothing is deployed twice", async () => {
    const dir = tempDir();
    const good = checkParameters({ attesters: await attesterAddresses(), timelockDelay: 3600 }, "test");
    const start = await hre.ethers.provider.getBlockNumber();
    // 60 s is below MIN_TIMELOCK_DELAY: DogeAttestation's constructor reverts (TimelockInvalidDelay),
    // after PlugsMarketplace and EnvelopeHelper (the first batch) were deployed.
    const bad: ContractSetParameters = { ...good, timelockDelay: 60 };
    let failure: Error | undefined;
    try {
      await deployContractSet(hre, { parameters: bad, deploymentDir: dir });
    } catch (error) {
      failure = error as Error;
    }
    expect(failure?.message).to.match(/DogeOS#DogeAttestation/);
    expect(failure?.message).to.match(/run the same command again to resume/);
    const firstCreations = await creationsSince(start);
    expect(firstCreations).to.have.length(2);
    const firstRun = journal(dir, "DEPLOYMENT_EXECUTION_STATE_COMPLETE")
      .map((m) => m.futureId)
      .sort();
    expect(firstRun).to.deep.equal(["DogeOS#EnvelopeHelper", "DogeOS#PlugsMarketplace"]);
    const firstAddresses = Object.fromEntries(
      journal(dir, "DEPLOYMENT_EXECUTION_STATE_COMPLETE").map((m) => [
        m.futureId,
        (m as unknown as { result: { address: string } }).result.address,
      ]),
    );

    const lines: string[] = [];
    const resumed = await deployContractSet(hre, {
      parameters: good,
      deploymentDir: dir,
      log: (line) => lines.push(line),
    });
    expect(resumed.wiped).to.deep.equal(["DogeOS#DogeAttestation"]);
    expect(lines.join("\n")).to.match(/resuming the deployment/);
    expect(resumed.contracts.PlugsMarketplace.address).to.equal(firstAddresses["DogeOS#PlugsMarketplace"]);
    expect(resumed.contracts.EnvelopeHelper.address).to.equal(firstAddresses["DogeOS#EnvelopeHelper"]);
    const creations = await creationsSince(start);
    expect(creations).to.have.length(PUBLISHED_CONTRACTS.length);
    expect(creations.slice(0, 2)).to.deep.equal(firstCreations);
    // Every contract created once, by the transaction the result names.
    expect(PUBLISHED_CONTRACTS.map((name) => resumed.contracts[name].deployTx).sort()).to.deep.equal(
      [...creations].sort(),
    );
    const attestation = await hre.ethers.getContractAt("DogeAttestation", resumed.contracts.DogeAttestation.address);
    expect(await attestation.timelockDelay()).to.equal(3600n);

    // A third run finds everything done: no transaction at all.
    const before = await hre.ethers.provider.getBlockNumber();
    const again = await deployContractSet(hre, { parameters: good, deploymentDir: dir });
    expect(await hre.ethers.provider.getBlockNumber()).to.equal(before);
    for (const name of PUBLISHED_CONTRACTS) expect(again.contracts[name]).to.deep.equal(resumed.contracts[name]);
  });

  it("resumes after the connection dropped once a creation was sent: the sent creation is found, not sent again", async () => {
    const dir = tempDir();
    const parameters = checkParameters({ attesters: await attesterAddresses(), timelockDelay: 7200 }, "test");
    const start = await hre.ethers.provider.getBlockNumber();
    // A provider whose connection drops right after the third transaction reaches the node: the
    // node has it (and mines it), the deployer never hears back.
    let sent = 0;
    const dropping: EIP1193Provider = {
      async request(args: RequestArguments) {
        const answer = await provider.request(args);
        if (args.method === "eth_sendTransaction" && ++sent === 3) throw new Error("socket hang up");
        return answer;
      },
    };
    let failure: Error | undefined;
    try {
      await deployContractSet(hre, { parameters, deploymentDir: dir, provider: dropping });
    } catch (error) {
      failure = error as Error;
    }
    expect(failure?.message).to.match(/socket hang up/);
    expect(await creationsSince(start)).to.have.length(3);

    const lines: string[] = [];
    const resumed = await deployContractSet(hre, { parameters, deploymentDir: dir, log: (line) => lines.push(line) });
    expect(lines.join("\n")).to.match(
      /found DogeOS#DogeAttestation's transaction 0x[0-9a-f]{64} \(nonce \d+\) on chain: tracking it/,
    );
    const creations = await creationsSince(start);
    expect(creations).to.have.length(PUBLISHED_CONTRACTS.length);
    expect(PUBLISHED_CONTRACTS.map((name) => resumed.contracts[name].deployTx).sort()).to.deep.equal(
      [...creations].sort(),
    );
    for (const name of PUBLISHED_CONTRACTS)
      expect(await hre.ethers.provider.getCode(resumed.contracts[name].address)).to.not.equal("0x");
  });

  it("returns each contract's deploy block and transaction, which the ABI index records and src/l2/abi-index reads", async () => {
    const parameters = checkParameters({ attesters: await attesterAddresses(), timelockDelay: 3600 }, "test");
    const deployment = await deployContractSet(hre, { parameters });
    for (const name of PUBLISHED_CONTRACTS) {
      const record = deployment.contracts[name];
      const receipt = await hre.ethers.provider.getTransactionReceipt(record.deployTx);
      expect(receipt?.contractAddress).to.equal(record.address);
      expect(receipt?.blockNumber).to.equal(record.deployBlock);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "abi-index-"));
    dirs.push(dir);
    const file = path.join(dir, "index.json");
    fs.writeFileSync(
      file,
      indexFileText({ [String(deployment.chainId)]: indexEntry(deployment.contracts), "6281971": indexEntry(null) }),
    );
    const read = readChainDeployment(deployment.chainId, { file });
    expect(read?.deployed).to.equal(true);
    expect(read?.contracts.DogeAnchor).to.deep.include({
      deployBlock: deployment.contracts.DogeAnchor.deployBlock,
      deployTx: deployment.contracts.DogeAnchor.deployTx,
    });
    expect(contractAddress(deployment.chainId, "DogeAttestation", { file })).to.equal(
      deployment.contracts.DogeAttestation.address,
    );
    const attesterFrom = deployBlock(deployment.chainId, ["DogeAttestation", "DogeInscriber", "DogeAnchor"], { file });
    expect(attesterFrom).to.equal(
      Math.min(
        ...["DogeAttestation", "DogeInscriber", "DogeAnchor"].map(
          (n) => deployment.contracts[n as "DogeAnchor"].deployBlock,
        ),
      ),
    );
    // A chain listed but not deployed gives nothing to default from; an unlisted one neither.
    expect(contractAddress(6281971, "DogeAttestation", { file })).to.equal(null);
    expect(deployBlock(6281971, "DogeAttestation", { file })).to.equal(null);
    expect(readChainDeployment(1, { file })).to.equal(null);
  });

  it("refuses parameters an operator got wrong, naming the file", () => {
    const a = "0x1000000000000000000000000000000000000001";
    const b = "0x2000000000000000000000000000000000000002";
    expect(() => checkParameters({ attesters: [] }, "ignition/parameters/dogeos.json")).to.throw(
      /dogeos.json: attesters must name exactly three/,
    );
    expect(() => checkParameters({ attesters: [a, b, a] }, "p.json")).to.throw(/distinct/);
    expect(() =>
      checkParameters({ attesters: [a, b, "0x3000000000000000000000000000000000000003"], timelockDelay: 60 }, "p.json"),
    ).to.throw(/at least 3600/);
    expect(
      checkParameters({ attesters: [b, "0x3000000000000000000000000000000000000003", a] }, "p.json").attesters[0],
    ).to.equal(a);
  });

  it("deploy/deploy.ts records the deploy blocks and transactions in the local index under DOGEOS_DATA_DIR", function () {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-data-"));
    dirs.push(dataDir);
    const output = execFileSync(
      process.execPath,
      [require.resolve("hardhat/internal/cli/cli.js"), "run", "--no-compile", "deploy/deploy.ts"],
      {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, DOGEOS_DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const addresses = Object.fromEntries(
      [...output.matchAll(/^(\w+)\s+(0x[0-9a-fA-F]{40})$/gm)].map((m) => [m[1], m[2]]),
    );
    const entry = readChainDeployment(31337, { dataDir, env: {} });
    expect(entry?.file).to.equal(path.join(dataDir, "abi", "index.json"));
    for (const name of PUBLISHED_CONTRACTS) {
      expect(entry?.contracts[name].address).to.equal(addresses[name]);
      expect(entry?.contracts[name].deployBlock).to.be.a("number").and.to.be.greaterThan(0);
      expect(entry?.contracts[name].deployTx).to.match(/^0x[0-9a-f]{64}$/);
      expect(fs.existsSync(path.join(dataDir, "abi", `${name}.json`))).to.equal(true);
    }
  });

  describe("deploy/deploy.ts against a Hardhat node (the L2 of npm start)", () => {
    const HARDHAT = require.resolve("hardhat/internal/cli/cli.js");
    let node: ChildProcess | undefined;
    let url = "";
    /** Starts `hardhat node` on a free port; resolves once it serves. */
    const startNode = async () => {
      const port = 20000 + Math.floor(Math.random() * 20000);
      node = spawn(process.execPath, [HARDHAT, "node", "--port", String(port)], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      });
      await new Promise<void>((resolve, reject) => {
        let out = "";
        node!.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("Started HTTP")) resolve();
        });
        node!.once("exit", (code) => reject(new Error(`hardhat node exited (${code}): ${out}`)));
      });
      url = `http://127.0.0.1:${port}`;
    };
    const stopNode = async () => {
      if (!node || node.exitCode !== null) return;
      const exited = new Promise((resolve) => node!.once("exit", resolve));
      node.kill("SIGTERM");
      await exited;
    };
    afterEach(stopNode);
    const blockNumber = async () =>
      Number(
        (
          await (
            await fetch(url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber" }),
            })
          ).json()
        ).result,
      );
    const deployTo = (dataDir: string) =>
      execFileSync(process.execPath, [HARDHAT, "run", "--no-compile", "deploy/deploy.ts", "--network", "localhost"], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, DOGEOS_DATA_DIR: dataDir, L2_RPC_URL: url },
        stdio: ["ignore", "pipe", "pipe"],
      });

    it("a second run resumes from the journal under the data dir and sends nothing; a new node makes it forget the journal", async function () {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-data-"));
      dirs.push(dataDir);
      await startNode();
      const first = deployTo(dataDir);
      const height = await blockNumber();
      expect(height).to.equal(PUBLISHED_CONTRACTS.length);
      expect(fs.existsSync(path.join(dataDir, "ignition", "chain-31337", "journal.jsonl"))).to.equal(true);
      const second = deployTo(dataDir);
      expect(second).to.equal(first);
      expect(await blockNumber()).to.equal(height);

      // npm start runs a new Hardhat node each time: the journal of the old chain must not count.
      await stopNode();
      await startNode();
      const third = deployTo(dataDir);
      expect(await blockNumber()).to.equal(PUBLISHED_CONTRACTS.length);
      expect(third).to.equal(first); // same deployer, same nonces: the same addresses on the new chain
      const entry = readChainDeployment(31337, { dataDir, env: {} });
      for (const name of PUBLISHED_CONTRACTS)
        expect(entry?.contracts[name].deployBlock).to.be.within(1, PUBLISHED_CONTRACTS.length);
    });
  });
});
