// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";

/// @title Drc20GatedVote
/// @notice An example consumer of DogeAttestation (docs/dapps.md): a poll on the L2 where each
/// Dogecoin address holding at least `minBalance` of the DRC-20 `tick` votes once per proposal,
/// weighted by its attested balance (`drc20Balance`, available + transferable, in the tick's
/// integer units). The balance fact must be no older than `maxFactAgeBlocks` base-chain blocks
/// below DogeAttestation's `l1Tip()`.
///
/// A missing fact reverts with `Drc20GatedVoteFactMissing`, a stale one with
/// `Drc20GatedVoteFactStale`: call DogeAttestation's `requestFact{value: feeWei}(factType,
/// subject, qualifier, 0)` with what `freshFactRequest` returns, have the attest API fulfil it
/// (`requestFreshFact` of the TypeScript SDK, packages/sdk), and vote again.
///
/// As in HolderGatedMint, the caller is not proved to control `dogeAddress`: a production poll
/// binds the Dogecoin address to the voter first.
contract Drc20GatedVote {
    IDogeAttestation public immutable attestation;
    /// @notice The least balance (tick units) that may vote.
    uint256 public immutable minBalance;
    /// @notice How many base-chain blocks a balance fact may lie below `attestation.l1Tip()`.
    uint64 public immutable maxFactAgeBlocks;
    /// @notice The DRC-20 tick whose holders vote.
    string public tick;

    mapping(uint256 proposalId => uint256 weight) public weightOf;
    mapping(uint256 proposalId => mapping(bytes32 dogeAddressKey => bool)) public hasVoted;

    /// @notice `dogeAddressKey` voted for `proposalId` with its balance `weight` at `l1Height`.
    event Voted(
        uint256 indexed proposalId,
        bytes32 indexed dogeAddressKey,
        address indexed voter,
        uint256 weight,
        uint64 l1Height
    );

    /// @notice No DRC20_BALANCE fact of (`dogeAddress`, `tick`) was ever attested: request one.
    error Drc20GatedVoteFactMissing(string dogeAddress, string tick);
    /// @notice The fact is `l1Tip - l1Height` blocks old, more than `maxAgeBlocks`: request a fresh one.
    error Drc20GatedVoteFactStale(string dogeAddress, uint64 l1Height, uint64 l1Tip, uint64 maxAgeBlocks);
    /// @notice The fresh balance is below the minimum.
    error Drc20GatedVoteBalanceTooLow(string dogeAddress, uint256 balance, uint256 minBalance);
    /// @notice `dogeAddress` already voted on `proposalId`.
    error Drc20GatedVoteAlreadyVoted(string dogeAddress, uint256 proposalId);

    constructor(IDogeAttestation attestation_, string memory tick_, uint256 minBalance_, uint64 maxFactAgeBlocks_) {
        attestation = attestation_;
        tick = tick_;
        minBalance = minBalance_;
        maxFactAgeBlocks = maxFactAgeBlocks_;
    }

    /// @notice Votes for `proposalId` as the holder `dogeAddress`, weighted by its fresh balance.
    /// @dev Reverts with Drc20GatedVoteFactMissing, Drc20GatedVoteFactStale,
    /// Drc20GatedVoteBalanceTooLow or Drc20GatedVoteAlreadyVoted.
    function vote(string calldata dogeAddress, uint256 proposalId) external returns (uint256 weight) {
        bytes32 holderKey = attestation.addressKey(dogeAddress);
        if (hasVoted[proposalId][holderKey]) revert Drc20GatedVoteAlreadyVoted(dogeAddress, proposalId);
        (uint256 balance, uint64 l1Height, uint64 attestedAt) = attestation.drc20Balance(dogeAddress, tick);
        if (attestedAt == 0) revert Drc20GatedVoteFactMissing(dogeAddress, tick);
        uint64 l1Tip = attestation.l1Tip();
        if (l1Tip - l1Height > maxFactAgeBlocks)
            revert Drc20GatedVoteFactStale(dogeAddress, l1Height, l1Tip, maxFactAgeBlocks);
        if (balance < minBalance) revert Drc20GatedVoteBalanceTooLow(dogeAddress, balance, minBalance);
        hasVoted[proposalId][holderKey] = true;
        weight = balance;
        weightOf[proposalId] += weight;
        emit Voted(proposalId, holderKey, msg.sender, weight, l1Height);
    }

    /// @notice The arguments of `attestation.requestFact` that ask for a fresh balance fact of
    /// `dogeAddress`, and the fee to send with it.
    function freshFactRequest(
        string calldata dogeAddress
    ) external view returns (bytes32 factType, bytes32 subject, bytes32 qualifier, uint256 feeWei) {
        factType = keccak256("DRC20_BALANCE");
        subject = attestation.addressKey(dogeAddress);
        qualifier = attestation.tickKey(tick);
        feeWei = attestation.requestFee(factType);
    }
}
