// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";
import {EnvelopeLib} from "../envelope/EnvelopeLib.sol";
import {IDogeInscriber} from "./IDogeInscriber.sol";
import {JobServiceBase} from "./JobServiceBase.sol";

/// @title DogeInscriber
/// @notice Paid v1 envelope inscriptions on the base chain, settled by receipts that 2 of 3
/// attesters signed. The specification is `IDogeInscriber` and `IJobService`.
contract DogeInscriber is JobServiceBase, IDogeInscriber {
    /// @inheritdoc IDogeInscriber
    uint256 public constant MAX_CONTENT_TYPE_BYTES = 255;
    /// @inheritdoc IDogeInscriber
    uint256 public constant MAX_ACTION_BYTES = 64;
    /// @inheritdoc IDogeInscriber
    uint256 public constant MAX_PAYLOAD_BYTES = 65_536;
    /// @inheritdoc IDogeInscriber
    uint256 public constant MIN_RECIPIENT_LENGTH = 25;
    /// @inheritdoc IDogeInscriber
    uint256 public constant MAX_RECIPIENT_LENGTH = 64;
    /// @inheritdoc IDogeInscriber
    uint256 public constant DEFAULT_FEE = 1 ether;

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

    /// @inheritdoc IDogeInscriber
    function requestInscription(
        string calldata contentType,
        string calldata action,
        bytes calldata payload,
        string calldata dogeRecipient
    ) external payable returns (bytes32 jobId) {
        _checkInscription(bytes(contentType), bytes(action), payload.length, bytes(dogeRecipient).length);
        bytes32 resultHash = EnvelopeLib.hash(bytes(contentType), bytes(action), payload);
        uint256 feeWei;
        uint64 deadline;
        (jobId, feeWei, deadline) = _openJob(resultHash);
        emit InscriptionRequested(
            jobId,
            msg.sender,
            contentType,
            action,
            payload,
            dogeRecipient,
            resultHash,
            feeWei,
            deadline
        );
    }

    /// @inheritdoc IDogeInscriber
    function envelopeHashOf(
        string calldata contentType,
        string calldata action,
        bytes calldata payload
    ) external pure returns (bytes32) {
        return EnvelopeLib.hash(bytes(contentType), bytes(action), payload);
    }

    /// @dev The light checks of IDogeInscriber; the off-chain inscriber checks the rest.
    function _checkInscription(
        bytes calldata contentType,
        bytes calldata action,
        uint256 payloadLength,
        uint256 recipientLength
    ) private pure {
        uint256 contentTypeLength = contentType.length;
        if (contentTypeLength == 0 || contentTypeLength > MAX_CONTENT_TYPE_BYTES) {
            revert InscriberContentTypeLengthInvalid(contentTypeLength, 1, MAX_CONTENT_TYPE_BYTES);
        }
        if (action.length > MAX_ACTION_BYTES) revert InscriberActionTooLong(action.length, MAX_ACTION_BYTES);
        if (action.length == 0 && !_isPlainText(contentType)) revert InscriberActionRequired(string(contentType));
        if (payloadLength > MAX_PAYLOAD_BYTES) revert InscriberPayloadTooLarge(payloadLength, MAX_PAYLOAD_BYTES);
        if (recipientLength < MIN_RECIPIENT_LENGTH || recipientLength > MAX_RECIPIENT_LENGTH) {
            revert InscriberRecipientLengthInvalid(recipientLength, MIN_RECIPIENT_LENGTH, MAX_RECIPIENT_LENGTH);
        }
    }

    /// @dev Whether the media type is text/plain (ASCII case-insensitive), with or without
    /// parameters: "text/plain", "text/plain;charset=utf8", "Text/Plain ; charset=utf-8".
    function _isPlainText(bytes calldata contentType) private pure returns (bool) {
        uint256 length = contentType.length;
        if (length < 10) return false;
        // Setting bit 0x20 lowers an ASCII capital and changes no lower-case letter; only an upper
        // or lower case letter maps onto a lower-case one. The slash (position 4) is compared as is.
        bytes10 lowered = bytes10(contentType[:10]) | bytes10(0x20202020002020202020);
        if (lowered != bytes10("text/plain")) return false;
        return length == 10 || contentType[10] == ";" || contentType[10] == " ";
    }
}
