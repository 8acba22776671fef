/**
 * The published contract set as one Hardhat Ignition module (what deploy/deploy.ts deployed by
 * hand before): PlugsMarketplace and EnvelopeHelper; DogeAttestation wired to the marketplace;
 * DogeInscriber and DogeAnchor settling through DogeAttestation, with the same admin, guardian and
 * timelock delay and the treasury as their operator.
 *
 * Parameters (ignition/parameters/<network>.json, under "DogeOS"):
 *   attesters      three distinct addresses, ascending (the order the quorum reads signatures in)
 *   admin          schedules and executes timelocked changes (default: the deployer)
 *   guardian       pauses (default: the deployer)
 *   treasury       DogeAttestation's treasury, the job services' operator (default: the deployer)
 *   timelockDelay  seconds between schedule and execute, at least 3600 (MIN_TIMELOCK_DELAY in
 *                  contracts/governance/AdminTimelock.sol); default 86400
 *
 * Run it through deploy/deploy.ts (which checks the parameters, sorts the attesters, journals the
 * deployment and writes the ABI index) or directly:
 *   npx hardhat ignition deploy ignition/modules/DogeOS.ts --network dogeosTestnet --parameters ignition/parameters/dogeos.json
 */
import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

export const MODULE_ID = "DogeOS";

export default buildModule(MODULE_ID, (m) => {
  const deployer = m.getAccount(0);
  const admin = m.getParameter("admin", deployer);
  const guardian = m.getParameter("guardian", deployer);
  const treasury = m.getParameter("treasury", deployer);
  const attesters = m.getParameter<string[]>("attesters");
  const timelockDelay = m.getParameter<number>("timelockDelay", 86400);

  const plugs = m.contract("PlugsMarketplace");
  const envelope = m.contract("EnvelopeHelper");
  const attestation = m.contract("DogeAttestation", [admin, guardian, treasury, attesters, timelockDelay, plugs]);
  const inscriber = m.contract("DogeInscriber", [attestation, admin, guardian, treasury, timelockDelay]);
  const anchor = m.contract("DogeAnchor", [attestation, admin, guardian, treasury, timelockDelay]);

  return {
    DogeAttestation: attestation,
    PlugsMarketplace: plugs,
    EnvelopeHelper: envelope,
    DogeInscriber: inscriber,
    DogeAnchor: anchor,
  };
});
