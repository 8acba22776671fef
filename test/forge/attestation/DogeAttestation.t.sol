// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DogeAttestation} from "../../../contracts/attestation/DogeAttestation.sol";
import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {IAdminTimelock} from "../../../contracts/governance/IAdminTimelock.sol";
import {PlugsMarketplace} from "../../../contracts/plugs/PlugsMarketplace.sol";
import {AttesterSigning} from "../base/AttesterSigning.sol";
import {AttestationHandler} from "./AttestationHandler.sol";

/// @notice DogeAttestation properties one call at a time (fuzzed), the gas of its hot calls (the
/// snapshot), and a check that the invariant handler reaches every accepted outcome.
contract DogeAttestationTest is AttesterSigning {
    bytes32 internal constant DOGE_BALANCE = keccak256("DOGE_BALANCE");
    bytes32 internal constant SUBJECT = keccak256("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L");

    DogeAttestation internal attestation;
    PlugsMarketplace internal marketplace;
    address internal admin;
    address internal guardian;
    address internal treasury;
    address internal requester;

    function setUp() public {
        vm.warp(1_800_000_000);
        admin = makeAddr("admin");
        guardian = makeAddr("guardian");
        treasury = makeAddr("treasury");
        requester = makeAddr("requester");
        marketplace = new PlugsMarketplace();
        attestation = new DogeAttestation(admin, guardian, treasury, firstAttesterSet(), 1 hours, address(marketplace));
    }

    function _balanceFact(
        uint256 value,
        uint64 l1Height,
        uint64 attestedAt
    ) internal view returns (IDogeAttestation.Fact memory) {
        return
            IDogeAttestation.Fact({
                factType: DOGE_BALANCE,
                subject: SUBJECT,
                qualifier: bytes32(0),
                value: value,
                data: bytes32(0),
                l1Height: l1Height,
                attestedAt: attestedAt,
                attesterSetId: attestation.attesterSetId()
            });
    }

    function _signByTwo(IDogeAttestation.Fact memory fact) internal view returns (bytes[] memory) {
        return signAll(factDigestFor(fact, block.chainid, address(attestation)), sortedBySigner(pair(0, 1)));
    }

    // ---------------------------------------------------------------- digests

    function testFuzzFactDigestIsTheEip712DigestOfTheSpec(IDogeAttestation.Fact memory fact) public view {
        vm.assertEq(
            attestation.factDigest(fact),
            factDigestFor(fact, block.chainid, address(attestation)),
            "factDigest"
        );
    }

    function testFuzzReceiptDigestIsTheEip712DigestOfTheSpec(IDogeAttestation.Receipt memory receipt) public view {
        vm.assertEq(
            attestation.receiptDigest(receipt),
            receiptDigestFor(receipt, block.chainid, address(attestation)),
            "receiptDigest"
        );
    }

    // ---------------------------------------------------------------- quorum

    /// @notice Any list of signers drawn from the pool (current attesters, spares, an outsider, repeats,
    /// any order) is accepted exactly when it has at least 2 entries, all current attesters, strictly
    /// increasing by address.
    function testFuzzAFactIsStoredOnlyWithTwoDistinctCurrentAttestersInOrder(uint256 signerSeed, uint8 count) public {
        uint256 length = bound(count, 0, 4);
        uint256[] memory keys = new uint256[](length);
        for (uint256 i = 0; i < length; ++i) keys[i] = (signerSeed >> (8 * i)) % ATTESTER_KEY_COUNT;
        if ((signerSeed >> 64) % 2 == 0) keys = sortedBySigner(keys);
        bool valid = length >= 2;
        for (uint256 i = 0; i < length; ++i) {
            if (keys[i] > 2) valid = false;
            if (i > 0 && attesterAddress(keys[i]) <= attesterAddress(keys[i - 1])) valid = false;
        }
        IDogeAttestation.Fact memory fact = _balanceFact(signerSeed % 1e18, 100, uint64(block.timestamp));
        bytes[] memory signatures = signAll(factDigestFor(fact, block.chainid, address(attestation)), keys);
        if (!valid) vm.expectRevert();
        attestation.submitFact(fact, signatures);
        vm.assertEq(attestation.factOf(DOGE_BALANCE, SUBJECT, bytes32(0)).exists, valid, "stored exactly when valid");
    }

    /// @notice Signatures over another chain's or another contract's domain never count.
    function testFuzzSignaturesOverAnotherDomainAreRefused(uint256 chainId, address verifyingContract) public {
        vm.assume(chainId != block.chainid || verifyingContract != address(attestation));
        IDogeAttestation.Fact memory fact = _balanceFact(1, 100, uint64(block.timestamp));
        bytes[] memory signatures = signAll(
            factDigestFor(fact, chainId, verifyingContract),
            sortedBySigner(pair(0, 1))
        );
        vm.expectRevert();
        attestation.submitFact(fact, signatures);
    }

    /// @notice After a rotation, a former attester's signature no longer counts, and a new one's does.
    function testFuzzARotationRetiresTheFormerAttesters(uint8 spareSeed) public {
        uint256 retired = spareSeed % 3;
        address[3] memory set = firstAttesterSet();
        set[retired] = attesterAddress(3);
        _executeByTimelock(abi.encodeCall(IDogeAttestation.setAttesters, (set)));
        IDogeAttestation.Fact memory fact = _balanceFact(1, 100, uint64(block.timestamp));
        bytes32 digest = factDigestFor(fact, block.chainid, address(attestation));
        uint256 kept = (retired + 1) % 3;
        vm.expectRevert(
            abi.encodeWithSelector(
                IDogeAttestation.AttestationSignerNotAttester.selector,
                attesterAddress(retired) < attesterAddress(kept) ? 0 : 1,
                attesterAddress(retired)
            )
        );
        attestation.submitFact(fact, signAll(digest, sortedBySigner(pair(retired, kept))));
        attestation.submitFact(fact, signAll(digest, sortedBySigner(pair(3, kept))));
        vm.assertTrue(attestation.factOf(DOGE_BALANCE, SUBJECT, bytes32(0)).exists, "stored with the new attester");
    }

    // ---------------------------------------------------------------- stored facts

    /// @notice A second fact replaces the first only at a height not lower and a later attestedAt;
    /// the stored height never decreases.
    function testFuzzAStoredFactNeverGoesBackInHeight(
        uint64 firstHeight,
        uint64 secondHeight,
        uint32 gap,
        bool later
    ) public {
        uint64 firstAt = uint64(block.timestamp) - 1 hours;
        uint64 secondAt = later ? firstAt + 1 + (gap % 1 hours) : firstAt - (gap % 1 hours);
        IDogeAttestation.Fact memory first = _balanceFact(1, firstHeight, firstAt);
        attestation.submitFact(first, _signByTwo(first));
        IDogeAttestation.Fact memory second = _balanceFact(2, secondHeight, secondAt);
        bool replaces = later && secondHeight >= firstHeight;
        if (!replaces) {
            vm.expectRevert(
                abi.encodeWithSelector(
                    IDogeAttestation.AttestationStaleFact.selector,
                    secondHeight,
                    secondAt,
                    firstHeight,
                    firstAt
                )
            );
        }
        attestation.submitFact(second, _signByTwo(second));
        IDogeAttestation.FactRecord memory stored = attestation.factOf(DOGE_BALANCE, SUBJECT, bytes32(0));
        vm.assertEq(stored.l1Height, replaces ? secondHeight : firstHeight, "stored height");
        vm.assertGe(stored.l1Height, firstHeight, "never lower than before");
        vm.assertEq(attestation.l1Tip(), replaces && secondHeight > firstHeight ? secondHeight : firstHeight, "l1Tip");
    }

    // ---------------------------------------------------------------- paid requests

    /// @notice A request ends exactly once: fulfilled before (or at) its deadline, or refunded to its
    /// requester after it; whichever happened, the other and a repeat are refused.
    function testFuzzAPaidRequestEndsExactlyOnce(uint32 waitSeconds, bool fulfilFirst) public {
        uint256 fee = attestation.requestFee(DOGE_BALANCE);
        vm.deal(requester, fee);
        vm.prank(requester);
        bytes32 id = attestation.requestFact{value: fee}(DOGE_BALANCE, SUBJECT, bytes32(0), 0);
        uint256 wait = bound(waitSeconds, 0, 2 hours);
        vm.warp(block.timestamp + wait);
        bool expired = wait > 1 hours;
        IDogeAttestation.Fact memory fact = _balanceFact(5, 10, uint64(block.timestamp));
        bytes[] memory signatures = _signByTwo(fact);
        if (fulfilFirst && !expired) {
            attestation.fulfill(id, fact, signatures);
            vm.assertEq(attestation.withdrawableOf(treasury), fee, "the whole fee to the treasury (no plug)");
        } else if (expired) {
            vm.prank(requester);
            attestation.refund(id);
            vm.assertEq(requester.balance, fee, "the whole fee back");
        } else {
            vm.prank(requester);
            vm.expectRevert();
            attestation.refund(id);
            return;
        }
        vm.expectRevert();
        attestation.fulfill(id, fact, signatures);
        vm.prank(requester);
        vm.expectRevert();
        attestation.refund(id);
        vm.assertEq(address(attestation).balance, attestation.withdrawableOf(treasury), "balance = what it owes");
    }

    // ---------------------------------------------------------------- timelock

    /// @notice A scheduled setter runs once, only between readyAt and readyAt + 14 days (inclusive).
    function testFuzzTheTimelockExecutesOnlyInsideItsWindow(uint32 waitSeconds) public {
        bytes memory call = abi.encodeCall(IDogeAttestation.setRequestFee, (DOGE_BALANCE, 1 ether));
        vm.prank(admin);
        attestation.schedule(call, bytes32(0));
        uint256 wait = bound(waitSeconds, 0, 1 hours + 15 days);
        vm.warp(block.timestamp + wait);
        bool inWindow = wait >= 1 hours && wait <= 1 hours + 14 days;
        vm.prank(admin);
        if (!inWindow) vm.expectRevert();
        attestation.execute(call, bytes32(0));
        vm.assertEq(attestation.requestFee(DOGE_BALANCE), inWindow ? 1 ether : 0.05 ether, "fee");
        if (!inWindow) return;
        vm.prank(admin);
        vm.expectRevert();
        attestation.execute(call, bytes32(0));
    }

    function _executeByTimelock(bytes memory call) internal {
        vm.prank(admin);
        attestation.schedule(call, bytes32(0));
        vm.warp(block.timestamp + 1 hours);
        vm.prank(admin);
        attestation.execute(call, bytes32(0));
    }

    // ---------------------------------------------------------------- the handler itself

    /// @notice The invariant handler's model is exercised: with fixed seeds, every action is
    /// accepted at least once and the model never disagrees with the contract.
    function testTheInvariantHandlerReachesEveryAcceptedOutcome() public {
        AttestationHandler handler = new AttestationHandler(attestation, marketplace, admin, guardian, treasury);
        handler.listPlug(1, false, 0);
        for (uint256 i = 0; i < 40; ++i) {
            handler.submitFact(i, i, i * 7919, i * 16);
            handler.requestFact(i, i, i * 3 + 5, false);
            handler.fulfill(i + 1, i, i * 104_729 + 1_000, i * 16 + 1, false);
        }
        handler.warp(0, false);
        handler.warp(2 hours, false);
        for (uint256 i = 0; i < 40; ++i) handler.refund(0, i, true);
        for (uint256 i = 0; i < handler.payeeCount(); ++i) handler.withdraw(i);
        handler.pause(0, true);
        handler.unpause(0, true);
        // 514: kind 514 % 9 = 1 (setRequestFee), argument 514 >> 8 = 2 (a fee in range).
        handler.schedule(0, true, 514, 0);
        handler.cancel(0, true, 0);
        handler.schedule(0, true, 514, 1);
        handler.warp(0, true);
        handler.execute(0, true, 1);
        string[10] memory actions = [
            "submitFact",
            "requestFact",
            "fulfill",
            "refund",
            "withdraw",
            "pause",
            "unpause",
            "schedule",
            "execute",
            "cancel"
        ];
        for (uint256 i = 0; i < actions.length; ++i) {
            vm.assertGt(handler.accepted(actions[i]), 0, string.concat(actions[i], " was accepted at least once"));
        }
        vm.assertEq(handler.violationCount(), 0, "no disagreement with the model");
    }

    // ---------------------------------------------------------------- gas (the snapshot)

    function testGasSubmitFact() public {
        IDogeAttestation.Fact memory fact = _balanceFact(1e8, 100, uint64(block.timestamp));
        bytes[] memory signatures = _signByTwo(fact);
        attestation.submitFact(fact, signatures);
    }

    function testGasRequestAndFulfill() public {
        uint256 fee = attestation.requestFee(DOGE_BALANCE);
        vm.deal(requester, fee);
        vm.prank(requester);
        bytes32 id = attestation.requestFact{value: fee}(DOGE_BALANCE, SUBJECT, bytes32(0), 0);
        IDogeAttestation.Fact memory fact = _balanceFact(1e8, 100, uint64(block.timestamp));
        attestation.fulfill(id, fact, _signByTwo(fact));
    }
}
