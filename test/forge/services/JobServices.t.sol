// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DogeAttestation} from "../../../contracts/attestation/DogeAttestation.sol";
import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {DogeAnchor} from "../../../contracts/services/DogeAnchor.sol";
import {DogeInscriber} from "../../../contracts/services/DogeInscriber.sol";
import {IDogeAnchor} from "../../../contracts/services/IDogeAnchor.sol";
import {IJobService} from "../../../contracts/services/IJobService.sol";
import {AttesterSigning} from "../base/AttesterSigning.sol";
import {JobsHandler} from "./JobsHandler.sol";

/// @notice DogeAnchor and DogeInscriber one call at a time (fuzzed): the 76-byte anchor limit, a
/// settlement only with a valid receipt for that job, the gas of the hot calls, and a check that
/// the invariant handler reaches every accepted outcome.
contract JobServicesTest is AttesterSigning {
    DogeAttestation internal attestation;
    DogeInscriber internal inscriber;
    DogeAnchor internal anchor;
    address internal admin;
    address internal guardian;
    address internal operator;
    address internal requester;

    function setUp() public {
        vm.warp(1_800_000_000);
        admin = makeAddr("admin");
        guardian = makeAddr("guardian");
        operator = makeAddr("operator");
        requester = makeAddr("requester");
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
    }

    function _requestAnchor(bytes memory payload) internal returns (bytes32 jobId) {
        uint256 fee = anchor.fee();
        vm.deal(requester, fee);
        vm.prank(requester);
        jobId = anchor.requestAnchor{value: fee}(payload);
    }

    function _moveTip(uint64 height) internal {
        IDogeAttestation.Fact memory fact = IDogeAttestation.Fact({
            factType: keccak256("L1_TIP"),
            subject: bytes32(0),
            qualifier: bytes32(0),
            value: height,
            data: bytes32(0),
            l1Height: height,
            attestedAt: uint64(block.timestamp),
            attesterSetId: 1
        });
        attestation.submitFact(
            fact,
            signAll(factDigestFor(fact, block.chainid, address(attestation)), sortedBySigner(pair(0, 1)))
        );
    }

    function _receipt(
        bytes32 jobId,
        address jobContract,
        bytes32 resultHash,
        uint64 l1Height
    ) internal view returns (IDogeAttestation.Receipt memory) {
        return
            IDogeAttestation.Receipt({
                jobId: jobId,
                jobContract: jobContract,
                l1Txid: keccak256(abi.encode("txid", jobId)),
                resultHash: resultHash,
                l1Height: l1Height,
                attestedAt: uint64(block.timestamp),
                attesterSetId: 1
            });
    }

    function _signReceipt(IDogeAttestation.Receipt memory receipt) internal view returns (bytes[] memory) {
        return signAll(receiptDigestFor(receipt, block.chainid, address(attestation)), sortedBySigner(pair(1, 2)));
    }

    // ---------------------------------------------------------------- the anchor limit

    /// @notice An anchor payload of 1 to 76 bytes opens a job committed to its SHA-256; 0 or 77+ is refused.
    function testFuzzAnAnchorPayloadIsOneTo76Bytes(bytes memory payload) public {
        uint256 fee = anchor.fee();
        vm.deal(requester, fee);
        vm.prank(requester);
        if (payload.length == 0 || payload.length > 76) {
            vm.expectRevert(
                abi.encodeWithSelector(IDogeAnchor.AnchorPayloadLengthInvalid.selector, payload.length, 1, 76)
            );
        }
        bytes32 jobId = anchor.requestAnchor{value: fee}(payload);
        if (payload.length == 0 || payload.length > 76) return;
        vm.assertEq(jobId, anchor.jobIdOf(1, sha256(payload)), "the job id commits to sha256(payload)");
        vm.assertEq(address(anchor).balance, fee, "the fee is escrowed");
    }

    function testFuzzAnAnchorPayloadLengthAroundTheLimit(uint8 lengthSeed) public {
        uint256 length = bound(lengthSeed, 70, 82);
        bytes memory payload = new bytes(length);
        uint256 fee = anchor.fee();
        vm.deal(requester, fee);
        vm.prank(requester);
        if (length > 76)
            vm.expectRevert(abi.encodeWithSelector(IDogeAnchor.AnchorPayloadLengthInvalid.selector, length, 1, 76));
        anchor.requestAnchor{value: fee}(payload);
    }

    // ---------------------------------------------------------------- settlement needs the job's receipt

    /// @notice A receipt settles a job only when it names this job, this contract and this result,
    /// is 6 deep, and 2 attesters signed it; the fee is then credited once to the operator.
    function testFuzzASettlementNeedsAValidReceiptForThatJob(
        bool otherJob,
        bool otherContract,
        bool otherResult,
        uint8 depthSeed,
        bool oneSignature
    ) public {
        bytes memory payload = "anchor me";
        _moveTip(100);
        bytes32 jobId = _requestAnchor(payload);
        vm.warp(block.timestamp + 1);
        _moveTip(110);
        uint64 l1Height = uint64(bound(depthSeed, 101, 110));
        IDogeAttestation.Receipt memory receipt = _receipt(
            otherJob ? keccak256("another job") : jobId,
            otherContract ? address(inscriber) : address(anchor),
            otherResult ? sha256("another payload") : sha256(payload),
            l1Height
        );
        bytes[] memory signatures = _signReceipt(receipt);
        if (oneSignature) {
            bytes[] memory one = new bytes[](1);
            one[0] = signatures[0];
            signatures = one;
        }
        bool valid = !otherJob && !otherContract && !otherResult && l1Height + 5 <= 110 && !oneSignature;
        if (!valid) vm.expectRevert();
        anchor.settle(jobId, receipt, signatures);
        vm.assertEq(
            anchor.withdrawableOf(operator),
            valid ? anchor.fee() : 0,
            "the fee is credited once, on a valid receipt"
        );
        vm.assertEq(
            uint256(anchor.jobOf(jobId).status),
            uint256(valid ? IJobService.JobStatus.Settled : IJobService.JobStatus.Open),
            "status"
        );
        if (!valid) return;
        vm.expectRevert(abi.encodeWithSelector(IJobService.JobNotOpen.selector, jobId, IJobService.JobStatus.Settled));
        anchor.settle(jobId, receipt, signatures);
    }

    // ---------------------------------------------------------------- the handler itself

    function testTheInvariantHandlerReachesEveryAcceptedOutcome() public {
        JobsHandler handler = new JobsHandler(attestation, inscriber, anchor, admin, guardian, operator);
        for (uint256 i = 0; i < 12; ++i) {
            handler.requestAnchor(i, i * 81 + 10, false);
            handler.requestInscription(i, 2 + i * 16, false);
        }
        handler.warp(1);
        handler.moveTip(12);
        handler.warp(1);
        handler.moveTip(12);
        for (uint256 i = 0; i < 12; ++i) handler.settle(i, i, 0, i);
        handler.warp(30 hours);
        for (uint256 i = 0; i < 24; ++i) handler.refund(0, i, true);
        for (uint256 i = 0; i < handler.payeeCount(); ++i) {
            handler.withdraw(i, true);
            handler.withdraw(i, false);
        }
        string[4] memory actions = ["request", "settle", "refund", "withdraw"];
        for (uint256 i = 0; i < actions.length; ++i) {
            vm.assertGt(handler.accepted(actions[i]), 0, string.concat(actions[i], " was accepted at least once"));
        }
        vm.assertEq(handler.violationCount(), 0, "no disagreement with the model");
    }

    // ---------------------------------------------------------------- gas (the snapshot)

    function testGasRequestAnchor() public {
        _requestAnchor("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab");
    }

    function testGasRequestInscription() public {
        uint256 fee = inscriber.fee();
        vm.deal(requester, fee);
        vm.prank(requester);
        inscriber.requestInscription{value: fee}(
            "application/json",
            "LAUNCHPAD_MINT",
            '{"p":"launchpad","op":"mint","slug":"dogs","n":1}',
            "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"
        );
    }

    function testGasSettleAnchor() public {
        bytes memory payload = "anchor me";
        bytes32 jobId = _requestAnchor(payload);
        _moveTip(10);
        IDogeAttestation.Receipt memory receipt = _receipt(jobId, address(anchor), sha256(payload), 5);
        anchor.settle(jobId, receipt, _signReceipt(receipt));
    }
}
