// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DogeAttestation} from "../../../contracts/attestation/DogeAttestation.sol";
import {DogeAnchor} from "../../../contracts/services/DogeAnchor.sol";
import {DogeInscriber} from "../../../contracts/services/DogeInscriber.sol";
import {IJobService} from "../../../contracts/services/IJobService.sol";
import {AttesterSigning} from "../base/AttesterSigning.sol";
import {JobsHandler} from "./JobsHandler.sol";

/// @notice DogeInscriber and DogeAnchor under long random call sequences by many actors
/// (JobsHandler): each job's fee leaves escrow exactly once (credited to the operator on a valid
/// receipt for that job, or sent back to its requester after the deadline), a base-chain txid
/// settles at most one job per service, and each service's balance equals what it owes.
contract JobServicesInvariantTest is AttesterSigning {
    DogeAttestation internal attestation;
    DogeInscriber internal inscriber;
    DogeAnchor internal anchor;
    JobsHandler internal handler;

    function setUp() public {
        vm.warp(1_800_000_000);
        address admin = makeAddr("admin");
        address guardian = makeAddr("guardian");
        address operator = makeAddr("operator");
        attestation = new DogeAttestation(
            admin,
            guardian,
            makeAddr("treasury"),
            firstAttesterSet(),
            1 hours,
            address(0)
        );
        inscriber = new DogeInscriber(attestation, admin, guardian, operator, 1 hours);
        anchor = new DogeAnchor(attestation, admin, guardian, operator, 1 hours);
        handler = new JobsHandler(attestation, inscriber, anchor, admin, guardian, operator);

        targetContract(address(handler));
        bytes4[] memory selectors = new bytes4[](10);
        selectors[0] = JobsHandler.requestAnchor.selector;
        selectors[1] = JobsHandler.requestInscription.selector;
        selectors[2] = JobsHandler.settle.selector;
        selectors[3] = JobsHandler.refund.selector;
        selectors[4] = JobsHandler.withdraw.selector;
        selectors[5] = JobsHandler.moveTip.selector;
        selectors[6] = JobsHandler.pause.selector;
        selectors[7] = JobsHandler.unpause.selector;
        selectors[8] = JobsHandler.administer.selector;
        selectors[9] = JobsHandler.warp.selector;
        targetSelector(address(handler), selectors);
    }

    /// @notice Forge runs one campaign per invariant function, all from the same seed (the same
    /// call sequences): one function checking every property after each call explores as much for a
    /// fraction of the time, and the failing assertion's message names the property.
    function invariant_jobsPayOnceAndServicesHoldWhatTheyOweForAnyCallSequence() public view {
        _theHandlerSawNoOutcomeTheModelRefuses();
        _eachServiceHoldsExactlyWhatItOwes();
        _eachJobsFeeLeavesEscrowAtMostOnceAndAsTheModelSays();
    }

    function _theHandlerSawNoOutcomeTheModelRefuses() internal view {
        uint256 count = handler.violationCount();
        if (count != 0) vm.assertEq(handler.violations(0), "", string.concat(vm.toString(count), " violations; first"));
    }

    function _eachServiceHoldsExactlyWhatItOwes() internal view {
        IJobService[2] memory services = [IJobService(address(inscriber)), IJobService(address(anchor))];
        for (uint256 s = 0; s < 2; ++s) {
            IJobService service = services[s];
            uint256 owed;
            uint256 withdrawable;
            for (uint256 i = 0; i < handler.payeeCount(); ++i) {
                address payee = handler.payees(i);
                owed += handler.owedTo(service, payee);
                withdrawable += service.withdrawableOf(payee);
            }
            uint256 balance = address(service).balance;
            vm.assertEq(withdrawable, owed, "withdrawable balances equal the fees the model credited");
            vm.assertEq(balance, handler.openFeesWei(service) + owed, "balance = open jobs' fees + withdrawable");
            vm.assertEq(balance, handler.paidInWei(service) - handler.paidOutWei(service), "balance = in - out");
        }
    }

    function _eachJobsFeeLeavesEscrowAtMostOnceAndAsTheModelSays() internal view {
        for (uint256 i = 0; i < handler.jobCount(); ++i) {
            JobsHandler.ModelJob memory expected = handler.jobAt(i);
            IJobService.Job memory stored = expected.service.jobOf(expected.id);
            vm.assertEq(uint256(stored.status), uint256(expected.status), "job status");
            vm.assertEq(stored.requester, expected.requester, "requester");
            vm.assertEq(stored.feeWei, expected.feeWei, "escrowed fee");
            vm.assertEq(stored.l1TipAtRequest, expected.l1TipAtRequest, "l1TipAtRequest");
            uint256 releases = handler.feeReleases(expected.id);
            vm.assertEq(releases, expected.status == IJobService.JobStatus.Open ? 0 : 1, "fee released once");
            if (expected.status == IJobService.JobStatus.Settled) {
                vm.assertEq(stored.l1Txid, expected.l1Txid, "settling txid");
                vm.assertEq(expected.service.settledJobOf(expected.l1Txid), expected.id, "the txid names this job");
            }
        }
    }

    /// @notice After the run every job can end and every balance can leave.
    function afterInvariant() public {
        vm.warp(block.timestamp + 8 days);
        for (uint256 i = 0; i < handler.jobCount(); ++i) {
            JobsHandler.ModelJob memory job = handler.jobAt(i);
            if (job.status != IJobService.JobStatus.Open) continue;
            uint256 before = job.requester.balance;
            vm.prank(job.requester);
            job.service.refund(job.id);
            vm.assertEq(job.requester.balance, before + job.feeWei, "the refund is the whole fee");
        }
        IJobService[2] memory services = [IJobService(address(inscriber)), IJobService(address(anchor))];
        for (uint256 s = 0; s < 2; ++s) {
            for (uint256 i = 0; i < handler.payeeCount(); ++i) {
                address payee = handler.payees(i);
                uint256 owed = handler.owedTo(services[s], payee);
                if (owed == 0) continue;
                vm.prank(payee);
                services[s].withdraw();
            }
            vm.assertEq(address(services[s]).balance, 0, "nothing left once every job ended and every balance left");
        }
    }
}
