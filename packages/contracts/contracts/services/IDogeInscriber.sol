// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IJobService} from "./IJobService.sol";

/// @title IDogeInscriber
/// @notice Paid inscriptions on the base chain: pay `fee()` on the L2 and the operator's inscriber
/// writes a v1 envelope inscription (DESIGN.md 4.2: content type, ACTION, payload) whose reveal
/// output 0 goes to a Dogecoin address. The job is settled (see `IJobService`) by a receipt whose
/// `resultHash` is the inscription's envelopeHash: SHA-256 of the canonical single envelope script,
/// computed here at request time with `EnvelopeLib` (byte-identical to `envelopeHash` in
/// src/inscription/envelope.ts) and committed into the job id.
///
/// On-chain validation is deliberately light; the off-chain inscriber does the full checks (the
/// ACTION registry and the content types it allows, the recipient's Base58Check and network) and
/// leaves a job it will not inscribe to be refunded after its deadline. Here:
/// - the content type is 1 to `MAX_CONTENT_TYPE_BYTES` (255) bytes;
/// - the ACTION is at most `MAX_ACTION_BYTES` (64) bytes; it may be empty (no ACTION push) only
///   for a content type starting with `text/plain` (ASCII case-insensitive), the DRC-20 plain-text
///   case, which is the only one the registry leaves without an ACTION;
/// - the payload is at most `MAX_PAYLOAD_BYTES` (65,536) bytes (an empty payload is a valid envelope);
/// - the Dogecoin recipient is `MIN_RECIPIENT_LENGTH` (25) to `MAX_RECIPIENT_LENGTH` (64) bytes.
interface IDogeInscriber is IJobService {
    /// @notice An inscription was requested and its fee escrowed. A relayer has everything it
    /// needs here: the envelope's content type, ACTION (empty: none), payload, the recipient of
    /// the reveal's output 0, and the envelopeHash the receipt must carry.
    event InscriptionRequested(
        bytes32 indexed jobId,
        address indexed requester,
        string contentType,
        string action,
        bytes payload,
        string dogeRecipient,
        bytes32 resultHash,
        uint256 feeWei,
        uint64 deadline
    );

    /// @notice The content type is empty or longer than `maxLength` bytes.
    error InscriberContentTypeLengthInvalid(uint256 length, uint256 minLength, uint256 maxLength);

    /// @notice The ACTION is longer than `maxLength` bytes.
    error InscriberActionTooLong(uint256 length, uint256 maxLength);

    /// @notice An empty ACTION was given for a content type other than text/plain.
    error InscriberActionRequired(string contentType);

    /// @notice The payload is longer than `maxLength` bytes.
    error InscriberPayloadTooLarge(uint256 length, uint256 maxLength);

    /// @notice The Dogecoin recipient's length is outside [minLength, maxLength] bytes.
    error InscriberRecipientLengthInvalid(uint256 length, uint256 minLength, uint256 maxLength);

    /// @notice Largest content type accepted, in bytes (255).
    function MAX_CONTENT_TYPE_BYTES() external view returns (uint256);

    /// @notice Largest ACTION accepted, in bytes (64, as the registry's name rule).
    function MAX_ACTION_BYTES() external view returns (uint256);

    /// @notice Largest payload accepted, in bytes (65,536: about 88 kB of reveal transaction, under
    /// Dogecoin's 100 kB standard transaction size).
    function MAX_PAYLOAD_BYTES() external view returns (uint256);

    /// @notice Shortest Dogecoin recipient accepted, in bytes (25).
    function MIN_RECIPIENT_LENGTH() external view returns (uint256);

    /// @notice Longest Dogecoin recipient accepted, in bytes (64).
    function MAX_RECIPIENT_LENGTH() external view returns (uint256);

    /// @notice The fee at deployment: 1 DOGE.
    function DEFAULT_FEE() external view returns (uint256);

    /// @notice Opens an inscription job, escrowing exactly `fee()` and recording
    /// `attestation.l1Tip()` (the reveal must be mined above it). Emits `InscriptionRequested`.
    /// @dev Reverts with `JobPaused`, `JobWrongFee`, `InscriberContentTypeLengthInvalid`,
    /// `InscriberActionTooLong`, `InscriberActionRequired`, `InscriberPayloadTooLarge` or
    /// `InscriberRecipientLengthInvalid`.
    /// @param contentType MIME type (UTF-8), e.g. "application/json".
    /// @param action Registered ACTION (UTF-8), e.g. "LAUNCHPAD_MINT"; empty for none (text/plain only).
    /// @param payload The inscription body.
    /// @param dogeRecipient The Dogecoin address (text) that receives the inscription.
    /// @return jobId `jobIdOf(sequence, envelopeHash(contentType, action, payload))`.
    function requestInscription(
        string calldata contentType,
        string calldata action,
        bytes calldata payload,
        string calldata dogeRecipient
    ) external payable returns (bytes32 jobId);

    /// @notice The envelopeHash a job for these inputs must produce (SHA-256 of the canonical v1
    /// envelope); reverts with `EnvelopeLib`'s errors on a content type of 0 or over 520 bytes or
    /// an ACTION over 520 bytes.
    function envelopeHashOf(
        string calldata contentType,
        string calldata action,
        bytes calldata payload
    ) external pure returns (bytes32);
}
