// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Drc20GatedVote} from "../../../contracts/examples/Drc20GatedVote.sol";
import {ExampleFacts} from "./ExampleFacts.sol";

/// @notice The DRC-20-balance-gated vote (docs/dapps.md) over the real DogeAttestation.
contract Drc20GatedVoteTest is ExampleFacts {
    Drc20GatedVote internal poll;
    string internal constant TICK = "WOOF";
    uint256 internal constant MIN_BALANCE = 100;
    uint64 internal constant MAX_AGE = 3;

    function setUp() public {
        deployAttestation();
        poll = new Drc20GatedVote(attestation, TICK, MIN_BALANCE, MAX_AGE);
    }

    function _balanceFact(uint256 amount, uint64 l1Height) internal {
        // The tick key lowers ASCII letters: the fact for "woof" is the fact for "WOOF".
        submit(DRC20_BALANCE, attestation.addressKey(HOLDER), attestation.tickKey("woof"), amount, l1Height);
    }

    function testVotesWithTheAttestedBalanceAsWeight() public {
        _balanceFact(700, 50);
        vm.assertEq(poll.vote(HOLDER, 1), 700, "weight is the balance");
        vm.assertEq(poll.weightOf(1), 700, "tallied");
        vm.assertTrue(poll.hasVoted(1, attestation.addressKey(HOLDER)), "recorded");
    }

    function testRevertsWithFactMissingWhenNoBalanceWasAttested() public {
        vm.expectRevert(abi.encodeWithSelector(Drc20GatedVote.Drc20GatedVoteFactMissing.selector, HOLDER, TICK));
        poll.vote(HOLDER, 1);
    }

    function testRevertsWithFactStaleBeyondMaxAge() public {
        _balanceFact(700, 50);
        advanceTip(54);
        vm.expectRevert(
            abi.encodeWithSelector(Drc20GatedVote.Drc20GatedVoteFactStale.selector, HOLDER, 50, 54, MAX_AGE)
        );
        poll.vote(HOLDER, 1);
    }

    function testRevertsWithBalanceTooLowBelowTheMinimum() public {
        _balanceFact(MIN_BALANCE - 1, 50);
        vm.expectRevert(
            abi.encodeWithSelector(
                Drc20GatedVote.Drc20GatedVoteBalanceTooLow.selector,
                HOLDER,
                MIN_BALANCE - 1,
                MIN_BALANCE
            )
        );
        poll.vote(HOLDER, 1);
    }

    function testVotesOncePerProposalAndAddress() public {
        _balanceFact(MIN_BALANCE, 50);
        poll.vote(HOLDER, 1);
        vm.expectRevert(abi.encodeWithSelector(Drc20GatedVote.Drc20GatedVoteAlreadyVoted.selector, HOLDER, 1));
        poll.vote(HOLDER, 1);
        vm.assertEq(poll.vote(HOLDER, 2), MIN_BALANCE, "another proposal");
    }

    function testFreshFactRequestNamesTheBalanceFactOfTheTick() public view {
        (bytes32 factType, bytes32 subject, bytes32 qualifier, uint256 feeWei) = poll.freshFactRequest(HOLDER);
        vm.assertEq(factType, DRC20_BALANCE, "fact type");
        vm.assertEq(subject, attestation.addressKey(HOLDER), "subject");
        vm.assertEq(qualifier, attestation.tickKey(TICK), "qualifier");
        vm.assertEq(feeWei, attestation.requestFee(DRC20_BALANCE), "fee");
    }

    function testFuzzVotesExactlyWhenFreshAndAboveTheMinimum(uint256 amount, uint64 behind) public {
        amount = bound(amount, 0, type(uint128).max);
        behind = uint64(bound(behind, 0, 2 * MAX_AGE));
        _balanceFact(amount, 1_000);
        if (behind > 0) advanceTip(1_000 + behind);
        if (behind > MAX_AGE)
            vm.expectRevert(
                abi.encodeWithSelector(
                    Drc20GatedVote.Drc20GatedVoteFactStale.selector,
                    HOLDER,
                    1_000,
                    1_000 + behind,
                    MAX_AGE
                )
            );
        else if (amount < MIN_BALANCE)
            vm.expectRevert(
                abi.encodeWithSelector(Drc20GatedVote.Drc20GatedVoteBalanceTooLow.selector, HOLDER, amount, MIN_BALANCE)
            );
        uint256 weight = poll.vote(HOLDER, 7);
        if (behind <= MAX_AGE && amount >= MIN_BALANCE) vm.assertEq(weight, amount, "weight");
    }
}
