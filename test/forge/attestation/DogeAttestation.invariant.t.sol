// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DogeAttestation} from "../../../contracts/attestation/DogeAttestation.sol";
import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {IAdminTimelock} from "../../../contracts/governance/IAdminTimelock.sol";
import {PlugsMarketplace} from "../../../contracts/plugs/PlugsMarketplace.sol";
import {AttesterSigning} from "../base/AttesterSigning.sol";
import {AttestationHandler} from "./AttestationHandler.sol";

/// @notice DogeAttestation under long random call sequences by many actors (AttestationHandler):
/// facts stored only with 2 distinct current attesters over this chain and contract, never going
/// back in base-chain height; every paid request ends at most once while the run lasts and exactly
/// once after it (afterInvariant refunds what is left); the balance equals what the contract owes;
/// pause and the timelock (queued, executed, expired, cancelled) as the model says.
contract DogeAttestationInvariantTest is AttesterSigning {
    DogeAttestation internal attestation;
    PlugsMarketplace internal marketplace;
    AttestationHandler internal handler;

    function setUp() public {
        vm.warp(1_800_000_000);
        address admin = makeAddr("admin");
        address guardian = makeAddr("guardian");
        address treasury = makeAddr("treasury");
        marketplace = new PlugsMarketplace();
        attestation = new DogeAttestation(admin, guardian, treasury, firstAttesterSet(), 1 hours, address(marketplace));
        handler = new AttestationHandler(attestation, marketplace, admin, guardian, treasury);

        targetContract(address(handler));
        bytes4[] memory selectors = new bytes4[](12);
        selectors[0] = AttestationHandler.submitFact.selector;
        selectors[1] = AttestationHandler.requestFact.selector;
        selectors[2] = AttestationHandler.fulfill.selector;
        selectors[3] = AttestationHandler.refund.selector;
        selectors[4] = AttestationHandler.withdraw.selector;
        selectors[5] = AttestationHandler.listPlug.selector;
        selectors[6] = AttestationHandler.pause.selector;
        selectors[7] = AttestationHandler.unpause.selector;
        selectors[8] = AttestationHandler.schedule.selector;
        selectors[9] = AttestationHandler.execute.selector;
        selectors[10] = AttestationHandler.cancel.selector;
        selectors[11] = AttestationHandler.warp.selector;
        targetSelector(address(handler), selectors);
    }

    /// @notice Forge runs one campaign per invariant function, all from the same seed (the same
    /// call sequences): one function checking every property after each call explores as much for a
    /// fraction of the time, and the failing assertion's message names the property.
    function invariant_factsRequestsMoneyAndAdministrationHoldForAnyCallSequence() public view {
        _theHandlerSawNoOutcomeTheModelRefuses();
        _balanceEqualsOpenFeesPlusWithdrawableBalances();
        _everyRequestIsWhereTheModelSays();
        _storedFactsNeverGoBackAndMatchTheModel();
        _administrationIsWhatTheTimelockExecuted();
    }

    function _theHandlerSawNoOutcomeTheModelRefuses() internal view {
        uint256 count = handler.violationCount();
        if (count != 0) vm.assertEq(handler.violations(0), "", string.concat(vm.toString(count), " violations; first"));
    }

    function _balanceEqualsOpenFeesPlusWithdrawableBalances() internal view {
        uint256 owed;
        uint256 withdrawable;
        for (uint256 i = 0; i < handler.payeeCount(); ++i) {
            address payee = handler.payees(i);
            owed += handler.owedTo(payee);
            withdrawable += attestation.withdrawableOf(payee);
        }
        uint256 balance = address(attestation).balance;
        vm.assertEq(withdrawable, owed, "withdrawable balances equal the shares the model credited");
        vm.assertEq(balance, handler.openFeesWei() + owed, "balance = open requests' fees + withdrawable balances");
        vm.assertEq(balance, handler.paidInWei() - handler.paidOutWei(), "balance = paid in - paid out");
    }

    function _everyRequestIsWhereTheModelSays() internal view {
        uint256 openFees;
        for (uint256 i = 0; i < handler.requestCount(); ++i) {
            AttestationHandler.ModelRequest memory expected = handler.requestAt(i);
            IDogeAttestation.Request memory stored = attestation.requestOf(expected.id);
            vm.assertEq(uint256(stored.status), uint256(expected.status), "request status");
            vm.assertEq(stored.requester, expected.requester, "requester");
            vm.assertEq(stored.feeWei, expected.feeWei, "escrowed fee");
            vm.assertEq(stored.deadline, expected.deadline, "deadline");
            if (expected.status == IDogeAttestation.RequestStatus.Open) openFees += expected.feeWei;
        }
        vm.assertEq(openFees, handler.openFeesWei(), "open fees");
    }

    function _storedFactsNeverGoBackAndMatchTheModel() internal view {
        uint64 highest;
        for (uint256 i = 0; i < handler.factCount(); ++i) {
            (bytes32[3] memory id, AttestationHandler.ModelFact memory expected) = handler.factAt(i);
            IDogeAttestation.FactRecord memory stored = attestation.factOf(id[0], id[1], id[2]);
            vm.assertTrue(stored.exists, "a stored fact exists");
            vm.assertEq(stored.value, expected.value, "value");
            vm.assertEq(stored.data, expected.data, "data");
            vm.assertEq(stored.l1Height, expected.l1Height, "l1Height");
            vm.assertEq(stored.attestedAt, expected.attestedAt, "attestedAt");
            if (stored.l1Height > highest) highest = stored.l1Height;
        }
        vm.assertEq(attestation.l1Tip(), handler.modelTip(), "l1Tip is the model's");
        vm.assertEq(attestation.l1Tip(), highest, "l1Tip is the highest stored height");
    }

    function _administrationIsWhatTheTimelockExecuted() internal view {
        (address[3] memory set, uint64 setId) = attestation.attesters();
        address[3] memory expectedSet = handler.modelSet();
        for (uint256 i = 0; i < 3; ++i) vm.assertEq(set[i], expectedSet[i], "attester set");
        vm.assertEq(setId, handler.modelSetId(), "attester set id");
        vm.assertEq(attestation.treasury(), handler.modelTreasury(), "treasury");
        vm.assertEq(attestation.plugsMarketplace(), handler.modelMarketplace(), "plugs marketplace");
        vm.assertEq(attestation.admin(), handler.modelAdmin(), "admin");
        vm.assertEq(attestation.guardian(), handler.modelGuardian(), "guardian");
        vm.assertEq(attestation.paused(), handler.modelPaused(), "paused");
        vm.assertEq(attestation.requestDeadlineWindow(), handler.modelWindow(), "deadline window");
        bytes32[3] memory types = [keccak256("DOGE_BALANCE"), keccak256("DRC20_BALANCE"), keccak256("L1_TIP")];
        for (uint256 i = 0; i < 3; ++i)
            vm.assertEq(attestation.requestFee(types[i]), handler.modelFee(types[i]), "fee");
        for (uint256 i = 0; i < handler.operationCount(); ++i) {
            AttestationHandler.ModelOperation memory expected = handler.operationAt(i);
            IAdminTimelock.Operation memory stored = attestation.operationOf(
                keccak256(abi.encode(expected.call, expected.salt))
            );
            // Only the latest scheduling of an id is on chain; a cancelled one is deleted.
            if (expected.cancelled || expected.executed) {
                if (expected.executed) vm.assertTrue(stored.executed, "executed once, and it stays executed");
                continue;
            }
            vm.assertEq(stored.readyAt, expected.readyAt, "readyAt");
            vm.assertEq(stored.expiresAt, expected.expiresAt, "expiresAt = readyAt + 14 days");
            vm.assertFalse(stored.executed, "not executed");
        }
    }

    /// @notice After the run every request can end and every balance can leave: refunds of the open
    /// requests after their deadlines, then every withdrawal, leave the contract empty.
    function afterInvariant() public {
        vm.warp(block.timestamp + 8 days);
        for (uint256 i = 0; i < handler.requestCount(); ++i) {
            AttestationHandler.ModelRequest memory request = handler.requestAt(i);
            if (request.status != IDogeAttestation.RequestStatus.Open) continue;
            uint256 before = request.requester.balance;
            vm.prank(request.requester);
            attestation.refund(request.id);
            vm.assertEq(request.requester.balance, before + request.feeWei, "the refund is the whole fee");
            vm.prank(request.requester);
            vm.expectRevert(
                abi.encodeWithSelector(
                    IDogeAttestation.AttestationRequestNotOpen.selector,
                    request.id,
                    IDogeAttestation.RequestStatus.Refunded
                )
            );
            attestation.refund(request.id);
        }
        for (uint256 i = 0; i < handler.payeeCount(); ++i) {
            address payee = handler.payees(i);
            uint256 owed = handler.owedTo(payee);
            if (owed == 0) continue;
            uint256 before = payee.balance;
            vm.prank(payee);
            attestation.withdraw();
            vm.assertEq(payee.balance, before + owed, "the withdrawal is what was owed");
        }
        vm.assertEq(address(attestation).balance, 0, "nothing is left once every request ended and every balance left");
    }
}
