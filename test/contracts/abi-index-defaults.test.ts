import { expect } from "chai";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { contractAddresses } from "../../src/l2/abi-index";

// Daemons take their contract addresses from the ABI index of their --chain-id when no flag gives
// them (issue 19, item 7): src/l2/abi-index.ts contractAddresses.
describe("contract addresses from the ABI index", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "abi-index-"));
  const file = path.join(dir, "index.json");
  const recorded = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
  const flag = "0x1111111111111111111111111111111111111111";
  fs.writeFileSync(
    file,
    JSON.stringify({
      6281971: {
        deployed: true,
        contracts: {
          DogeAttestation: {
            address: recorded,
            abi: "DogeAttestation.json",
            deployBlock: 12,
            deployTx: `0x${"ab".repeat(32)}`,
          },
        },
      },
      1: { deployed: false, contracts: { DogeAttestation: { address: null, abi: "DogeAttestation.json" } } },
    }),
  );
  const CONTRACTS = { "attestation-address": "DogeAttestation" } as const;

  it("keeps a flag's address, and reads a missing one from the index of the chain id", () => {
    expect(contractAddresses(6281971, { "attestation-address": flag }, CONTRACTS, { file })).to.deep.equal({
      "attestation-address": flag,
    });
    expect(contractAddresses(6281971, {}, CONTRACTS, { file })).to.deep.equal({ "attestation-address": recorded });
  });

  it("names the flag when neither the flag nor the index has the address, or no chain id says which deployment", () => {
    expect(() => contractAddresses(1, {}, CONTRACTS, { file })).to.throw(
      /no DogeAttestation address recorded for chain 1 in .*index\.json.*--attestation-address/,
    );
    expect(() => contractAddresses(undefined, {}, CONTRACTS, { file })).to.throw(
      "missing --attestation-address: give it, or --chain-id to read it from the ABI index",
    );
  });

  it("stops the attest daemon with one line when the address is neither given nor recorded", () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ["bin/dogeos.js", "attest", ...args], {
        cwd: path.join(__dirname, "..", ".."),
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, ABI_INDEX: file },
      });
    const missing = run([
      "--attesters",
      "http://a,http://b,http://c",
      "--index-db",
      path.join(dir, "none.sqlite"),
      "--l2-rpc-url",
      "http://127.0.0.1:9",
    ]);
    expect(missing.status).to.equal(2);
    expect(missing.stderr.trim()).to.equal(
      "attest: missing --attestation-address: give it, or --chain-id to read it from the ABI index",
    );
    const undeployed = run([
      "--attesters",
      "http://a,http://b,http://c",
      "--index-db",
      path.join(dir, "none.sqlite"),
      "--l2-rpc-url",
      "http://127.0.0.1:9",
      "--chain-id",
      "1",
    ]);
    expect(undeployed.status).to.equal(2);
    expect(undeployed.stderr).to.match(/^attest: no DogeAttestation address recorded for chain 1 in /);
  });
});
