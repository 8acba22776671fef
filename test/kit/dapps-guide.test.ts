/**
 * docs/dapps.md cannot rot: every fenced code block of it runs, in order, in one empty folder,
 * against the kit's stack (./stack.ts, what `npm start` runs): a `sh` block through bash, a block
 * whose info string says `file=<path>` written to that path. The guide's own variables point at
 * the stack (its defaults are npm start's). A block of any other kind fails the test, so none is
 * left unrun. Then what the guide says happened is checked on chain: the holder-gated mint deployed,
 * refused for a missing fact, a fresh fact paid for, the token minted; the DRC-20 vote likewise.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { ethers } from "hardhat";
import { KIT_SLUG, KIT_TICK, KitStack, startKitStack } from "./stack";

const ROOT = path.resolve(__dirname, "..", "..");
const GUIDE = path.join(ROOT, "docs", "dapps.md");
/** Hardhat's account 8 (the guide's default DEPLOYER_KEY). */
const ACCOUNT_8 = "0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f";

export interface GuideBlock {
  line: number;
  lang: string;
  file: string | null;
  code: string;
}

/** The fenced blocks of a Markdown text, with their info strings read. */
export function guideBlocks(markdown: string): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]);
    if (i >= lines.length) throw new Error(`docs/dapps.md:${start + 1}: an unclosed code block`);
    const file = /(?:^|\s)file=(\S+)/.exec(open[2])?.[1] ?? null;
    blocks.push({ line: start + 1, lang: open[1], file, code: `${body.join("\n")}\n` });
  }
  return blocks;
}

function runBash(
  code: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", code], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", reject);
    child.once("exit", (exitCode) => {
      clearTimeout(timer);
      resolve({ code: exitCode, out });
    });
  });
}

describe("docs/dapps.md, run block by block against the stack", function () {
  this.timeout(240_000);
  let stack: KitStack;
  let folder: string;
  const outputs: { block: GuideBlock; out: string }[] = [];
  const blocks = guideBlocks(fs.readFileSync(GUIDE, "utf8"));

  before(async () => {
    stack = await startKitStack();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "dapps-guide-"));
  });

  after(async () => {
    await stack?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it("has only blocks it can run: sh, or a file to write", () => {
    expect(blocks.length).to.be.greaterThan(5);
    for (const block of blocks)
      expect(block.lang === "sh" || block.file !== null, `docs/dapps.md:${block.line} (${block.lang})`).to.equal(true);
  });

  it("shows the holder-gated mint exactly as contracts/examples/ has it, with the package import", () => {
    const guide = blocks.find((block) => block.file === "contracts/HolderGatedMint.sol");
    const example = fs
      .readFileSync(path.join(ROOT, "contracts", "examples", "HolderGatedMint.sol"), "utf8")
      .replace(
        '"../attestation/IDogeAttestation.sol"',
        '"@dogeos/contracts/contracts/attestation/IDogeAttestation.sol"',
      );
    expect(guide?.code).to.equal(example);
  });

  it("runs every block in order in an empty folder", async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DOGEOS_STACK: ROOT,
      L2_RPC_URL: stack.l2Url,
      DOGEOS_ORIGIN: stack.launchpadOrigin,
      ATTEST_ORIGIN: stack.attestOrigin,
      HOLDER_ADDRESS: stack.holder.address,
      COLLECTION: KIT_SLUG,
      VOTER_ADDRESS: stack.alice.address,
      TICK: KIT_TICK,
      npm_config_update_notifier: "false",
    };
    // The guide's default key (Hardhat's account 8), as on npm start's L2.
    delete env.DEPLOYER_KEY;
    for (const block of blocks) {
      if (block.file) {
        const target = path.join(folder, block.file);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, block.code);
        continue;
      }
      const { code, out } = await runBash(block.code, folder, env, 150_000);
      expect(code, `docs/dapps.md:${block.line} exited ${code}:\n${out}`).to.equal(0);
      outputs.push({ block, out });
    }
  });

  it("installed the SDK with the client types of the documents the daemons publish", () => {
    const installed = path.join(folder, "node_modules", "@dogeos", "sdk", "dist");
    for (const surface of ["explorer", "attest", "launchpad", "amm", "inscriber"])
      expect(fs.readFileSync(path.join(installed, "openapi", `${surface}.d.ts`), "utf8"), surface).to.equal(
        fs.readFileSync(path.join(ROOT, "shared", "openapi", `${surface}.d.ts`), "utf8"),
      );
    expect(fs.readFileSync(path.join(installed, "clients.d.ts"), "utf8")).to.include('from "./openapi/explorer"');
  });

  it("deployed the gate, was refused for want of a fact, paid for a fresh one and minted token 1", async () => {
    const mint = outputs.find((o) => o.block.code.includes("node mint.mjs"))?.out ?? "";
    expect(mint).to.include("mint refused: HolderGatedMintFactMissing");
    expect(mint).to.include(`minted token 1 to ${ACCOUNT_8}`);
    const { address, abi } = JSON.parse(fs.readFileSync(path.join(folder, "HolderGatedMint.json"), "utf8"));
    const gate = new ethers.Contract(address, abi, ethers.provider);
    expect(await gate.attestation()).to.equal(await stack.attestation.getAddress());
    expect(await gate.slug()).to.equal(KIT_SLUG);
    expect(await gate.ownerOf(1)).to.equal(ACCOUNT_8);
    const [count, l1Height, attestedAt] = await stack.attestation.collectionCount(stack.holder.address, KIT_SLUG);
    expect(count).to.equal(1n);
    expect(l1Height > 0n && attestedAt > 0n).to.equal(true);
  });

  it("deployed the DRC-20 vote, paid for the voter's balance and voted with it", async () => {
    const vote = outputs.find((o) => o.block.code.includes("node vote.mjs"))?.out ?? "";
    expect(vote).to.include("vote refused: Drc20GatedVoteFactMissing");
    expect(vote).to.include("voted on proposal 1 with weight 700");
    const { address, abi } = JSON.parse(fs.readFileSync(path.join(folder, "Drc20GatedVote.json"), "utf8"));
    const poll = new ethers.Contract(address, abi, ethers.provider);
    expect(await poll.weightOf(1)).to.equal(700n);
    expect(await poll.tick()).to.equal(KIT_TICK);
  });
});
