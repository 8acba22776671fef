// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";
import {IDogeAnchor} from "./IDogeAnchor.sol";
import {JobServiceBase} from "./JobServiceBase.sol";

/// @title DogeAnchor
/// @notice Paid OP_RETURN anchors on the base chain, settled by receipts that 2 of 3 attesters
/// signed. The specification is `IDogeAnchor` and `IJobService`.
contract DogeAnchor is JobServiceBase, IDogeAnchor {
    /// @inheritdoc IDogeAnchor
    uint256 public constant MIN_PAYLOAD_BYTES = 1;
    /// @inheritdoc IDogeAnchor
    uint256 public constant MAX_PAYLOAD_BYTES = 76;
    /// @inheritdoc IDogeAnchor
    uint256 public constant DEFAULT_FEE = 0.1 ether;

    /// @param attestationContract DogeAttestation: checks receipts and supplies the base-chain tip.
    /// @param initialAdmin Schedules and executes changes, unpauses.
    /// @param initialGuardian Pauses.
    /// @param initialOperator Credited with the fees of settled jobs.
    /// @param timelockDelaySeconds Delay between scheduling and execution, at least 1 hour.
    constructor(
        IDogeAttestation attestationContract,
        address initialAdmin,
        address initialGuardian,
        address initialOperator,
        uint64 timelockDelaySeconds
    )
        JobServiceBase(
            attestationContract,
            initialAdmin,
            initialGuardian,
            initialOperator,
            timelockDelaySeconds,
            DEFAULT_FEE
        )
    {}

    /// @inheritdoc IDogeAnchor
    function requestAnchor(bytes calldata payload) external payable returns (bytes32 jobId) {
        uint256 length = payload.length;
        if (length < MIN_PAYLOAD_BYTES || length > MAX_PAYLOAD_BYTES) {
            revert AnchorPayloadLengthInvalid(length, MIN_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES);
        }
        bytes32 resultHash = sha256(payload);
        uint256 feeWei;
        uint64 deadline;
        (jobId, feeWei, deadline) = _openJob(resultHash);
        emit AnchorRequested(jobId, msg.sender, payload, resultHash, feeWei, deadline);
    }
}
