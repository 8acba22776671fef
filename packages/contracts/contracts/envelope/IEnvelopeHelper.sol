// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IEnvelopeHelper
/// @notice Builds the v1 inscription envelope and its `envelopeHash` on chain, byte for byte as
/// the TypeScript codec (src/inscription/envelope.ts `encodeEnvelope` / `envelopeHash`) does:
///
///     OP_FALSE OP_IF "ord" OP_1 <content-type> [<ACTION>] OP_0 <payload chunk>... OP_ENDIF
///
/// Pushes are minimal (empty = OP_0; one byte 0x01..0x10 = OP_1..OP_16; 0x81 = OP_1NEGATE; up to
/// 75 bytes direct; OP_PUSHDATA1 to 255; OP_PUSHDATA2 above) and the payload is cut into chunks of
/// at most 520 bytes. The shared vector file test/vectors/envelope.json proves both
/// implementations identical. Stateless: both functions are `pure`.
///
/// Reverts with the errors of `EnvelopeLib`:
/// `EnvelopeContentTypeLengthInvalid(length, 1, 520)` for an empty content type or one over 520
/// bytes, and `EnvelopeActionTooLong(length, 520)` for an ACTION over 520 bytes.
interface IEnvelopeHelper {
    /// @notice The canonical single envelope script (the whole payload chunked at 520 bytes).
    /// @param contentType MIME type (UTF-8), 1 to 520 bytes, e.g. "application/json".
    /// @param action Registered ACTION (UTF-8), at most 520 bytes; the empty string means no ACTION
    /// push (DRC-20 plain text). An empty ACTION push is never written: a reader would take it for
    /// the payload marker OP_0.
    /// @param payload The inscription body, any length (an empty body gives no chunk at all).
    /// @return script The envelope bytes.
    function encodeEnvelope(
        string calldata contentType,
        string calldata action,
        bytes calldata payload
    ) external pure returns (bytes memory script);

    /// @notice SHA-256 of `encodeEnvelope(contentType, action, payload)`: the `envelopeHash` that
    /// inscriber receipts and `inscriptionMatches` compare against.
    /// @param contentType MIME type (UTF-8), 1 to 520 bytes.
    /// @param action Registered ACTION (UTF-8), at most 520 bytes; empty for none.
    /// @param payload The inscription body.
    /// @return envelopeHash The SHA-256 digest (not keccak256) of the envelope bytes.
    function envelopeHash(
        string calldata contentType,
        string calldata action,
        bytes calldata payload
    ) external pure returns (bytes32 envelopeHash);
}
