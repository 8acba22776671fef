/**
 * The dogeos:* timelock tasks (tasks/admin.ts) on a fresh Ignition deployment of the contract set on
 * the in-process Hardhat network: a new attester set is scheduled, refused before the delay, executed
 * after it (time moved with evm_increaseTime); the contract's address and the events' first block
 * come from the ABI index.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import hre from "hardhat";
import { indexEntry, indexFileText } from "../../deploy/contracts";
import { checkParameters, deployContractSet, type ContractSetDeployment } from "../../deploy/ignition";
import type { OperationRow, ScheduleResult } from "../../tasks/admin";

/** Runs a task with its stdout captured. */
async function runTask<T>(name: string, args: Record<string, unknown>): Promise<{ result: T; output: string }> {
  const write = process.stdout.write.bind(process.stdout);
  let output = "";
  process.stdout.write = ((chunk: string | Uint8Array) => {
    output += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  try {
    const result = (await hre.run(name, args)) as T;
    return { result, output };
  } finally {
    process.stdout.write = write;
  }
}

describe("dogeos:* timelock admin tasks", function () {
  this.timeout(120_000);
  let deployment: ContractSetDeployment;
  let indexDir: string;
  const previousIndex = process.env.ABI_INDEX;

  before(async () => {
    const signers = await hre.ethers.getSigners();
    deployment = await deployContractSet(hre, {
      parameters: checkParameters(
        { attesters: signers.slice(1, 4).map((s) => s.address), timelockDelay: 3600 },
        "test",
      ),
    });
    indexDir = fs.mkdtempSync(path.join(os.tmpdir(), "admin-index-"));
    const file = path.join(indexDir, "index.json");
    fs.writeFileSync(file, indexFileText({ [String(deployment.chainId)]: indexEntry(deployment.contracts) }));
    process.env.ABI_INDEX = file;
  });
  after(() => {
    if (previousIndex === undefined) delete process.env.ABI_INDEX;
    else process.env.ABI_INDEX = previousIndex;
    fs.rmSync(indexDir, { recursive: true, force: true });
  });

  it("schedules a new attester set, refuses to execute it early, executes it after the delay", async () => {
    const signers = await hre.ethers.getSigners();
    const newSet = signers.slice(7, 10).map((s) => s.address);
    const attestation = await hre.ethers.getContractAt("DogeAttestation", deployment.contracts.DogeAttestation.address);
    expect(await attestation.attesterSetId()).to.equal(1n);

    const { result: scheduled, output } = await runTask<ScheduleResult>("dogeos:schedule", {
      contract: "DogeAttestation",
      setter: "setAttesters",
      args: [newSet.join(",")],
      salt: "attester rotation 1",
    });
    expect(output).to.include(`operation  ${scheduled.operationId}`);
    expect(output).to.include(`dogeos:execute DogeAttestation --operation ${scheduled.operationId}`);
    expect(scheduled.salt).to.equal(hre.ethers.id("attester rotation 1"));
    expect(scheduled.call).to.equal(attestation.interface.encodeFunctionData("setAttesters", [newSet]));
    const block = await hre.ethers.provider.getBlock(
      scheduled.txHash ? (await hre.ethers.provider.getTransactionReceipt(scheduled.txHash))!.blockNumber : "latest",
    );
    expect(scheduled.readyAt).to.equal(BigInt(block!.timestamp) + 3600n);

    // Too early: the task says when it becomes ready, and nothing changes.
    let early: Error | undefined;
    try {
      await runTask("dogeos:execute", {
        contract: "DogeAttestation",
        setter: "setAttesters",
        args: [newSet.join(",")],
        salt: "attester rotation 1",
      });
    } catch (error) {
      early = error as Error;
    }
    expect(early?.message).to.match(/is not ready: it is at /);
    const { result: listed } = await runTask<OperationRow[]>("dogeos:operations", { contract: "DogeAttestation" });
    expect(listed.map((r) => [r.operationId, r.state, r.function])).to.deep.equal([
      [scheduled.operationId, "scheduled", "setAttesters(address[3])"],
    ]);

    await hre.network.provider.send("evm_increaseTime", [3600]);
    await hre.network.provider.send("hardhat_mine", ["0x1"]);
    // By operation id: the call and salt are read back from the OperationScheduled event.
    const { output: executed } = await runTask("dogeos:execute", {
      contract: "DogeAttestation",
      operation: scheduled.operationId,
      args: [],
    });
    expect(executed).to.include(`executed   ${scheduled.operationId}`);
    const [attesters, setId] = await attestation.attesters();
    expect([...attesters]).to.deep.equal(newSet);
    expect(setId).to.equal(2n);
    const { result: after } = await runTask<OperationRow[]>("dogeos:operations", { contract: "DogeAttestation" });
    expect(after[0].state).to.equal("executed");
  });

  it("schedules and executes a job service's fee by setter and arguments, and cancels another operation", async () => {
    const inscriber = await hre.ethers.getContractAt("DogeInscriber", deployment.contracts.DogeInscriber.address);
    const fee = (await inscriber.fee()) + 1n;
    const { result: scheduled } = await runTask<ScheduleResult>("dogeos:schedule", {
      contract: "DogeInscriber",
      setter: "setFee",
      args: [fee.toString()],
    });
    expect(scheduled.salt).to.equal(`0x${"00".repeat(32)}`);
    const { result: other } = await runTask<ScheduleResult>("dogeos:schedule", {
      contract: "DogeInscriber",
      setter: "setDeadlineWindow",
      args: ["7200"],
    });
    await runTask("dogeos:cancel", { contract: "DogeInscriber", operation: other.operationId });
    await hre.network.provider.send("evm_increaseTime", [3601]);
    await hre.network.provider.send("hardhat_mine", ["0x1"]);
    await runTask("dogeos:execute", { contract: "DogeInscriber", setter: "setFee", args: [fee.toString()] });
    expect(await inscriber.fee()).to.equal(fee);
    const { result: rows } = await runTask<OperationRow[]>("dogeos:operations", { contract: "DogeInscriber" });
    expect(Object.fromEntries(rows.map((r) => [r.function, r.state]))).to.deep.equal({
      "setFee(uint256)": "executed",
      "setDeadlineWindow(uint64)": "cancelled",
    });
  });

  it("refuses a sender that is not the admin, a setter the contract lacks and a wrong argument count", async () => {
    const signers = await hre.ethers.getSigners();
    const attempt = async (args: Record<string, unknown>) => {
      try {
        await runTask("dogeos:schedule", { contract: "DogeAttestation", args: [], ...args });
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    };
    expect(await attempt({ setter: "setTreasury", args: [signers[5].address], from: signers[5].address })).to.match(
      /is not the admin/,
    );
    expect(await attempt({ setter: "setNothing" })).to.match(/setNothing is not a function/);
    expect(await attempt({ setter: "setTreasury" })).to.match(/takes 1 argument\(s\), got 0/);
    expect(await attempt({ contract: "PlugsMarketplace", setter: "x" })).to.match(/has no timelock/);
  });
});
