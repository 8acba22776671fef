// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IJobService} from "./IJobService.sol";

/// @title IDogeAnchor
/// @notice Paid OP_RETURN anchors on the base chain: pay `fee()` on the L2 and the operator
/// broadcasts a transaction with an output `OP_RETURN <payload>` (one push of 1 to 76 bytes, which
/// fits Dogecoin's 80-byte standard OP_RETURN script with its opcode and push prefix). The job is
/// settled (see `IJobService`) by a receipt whose `resultHash` is SHA-256 of the payload, committed
/// into the job id at request time.
interface IDogeAnchor is IJobService {
    /// @notice An anchor was requested and its fee escrowed; the relayer writes `payload` in an
    /// OP_RETURN output and the receipt must carry `resultHash` = sha256(payload).
    event AnchorRequested(
        bytes32 indexed jobId,
        address indexed requester,
        bytes payload,
        bytes32 resultHash,
        uint256 feeWei,
        uint64 deadline
    );

    /// @notice The payload's length is outside [minLength, maxLength] bytes.
    error AnchorPayloadLengthInvalid(uint256 length, uint256 minLength, uint256 maxLength);

    /// @notice Shortest payload, in bytes (1).
    function MIN_PAYLOAD_BYTES() external view returns (uint256);

    /// @notice Longest payload, in bytes (76).
    function MAX_PAYLOAD_BYTES() external view returns (uint256);

    /// @notice The fee at deployment: 0.1 DOGE.
    function DEFAULT_FEE() external view returns (uint256);

    /// @notice Opens an anchor job, escrowing exactly `fee()` and recording `attestation.l1Tip()`
    /// (the OP_RETURN must be mined above it). Emits `AnchorRequested`.
    /// @dev Reverts with `JobPaused`, `JobWrongFee` or `AnchorPayloadLengthInvalid`.
    /// @param payload The bytes to anchor, 1 to 76.
    /// @return jobId `jobIdOf(sequence, sha256(payload))`.
    function requestAnchor(bytes calldata payload) external payable returns (bytes32 jobId);
}
