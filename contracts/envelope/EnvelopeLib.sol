// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title EnvelopeLib
/// @notice Builds the v1 inscription envelope (DESIGN.md 4.2) in memory:
///
///     OP_FALSE OP_IF "ord" OP_1 <content-type> [<ACTION>] OP_0 <payload chunk>... OP_ENDIF
///
/// byte for byte as `encodeEnvelope` in src/inscription/envelope.ts does: every push is minimal
/// (an empty push is OP_0, a one-byte push of 0x01..0x10 is OP_1..OP_16, of 0x81 is OP_1NEGATE,
/// up to 75 bytes a direct push, then OP_PUSHDATA1 and OP_PUSHDATA2) and the payload is cut into
/// chunks of at most 520 bytes. `hash` is the `envelopeHash` of the same bytes (SHA-256).
/// test/vectors/envelope.json holds both implementations to the same output.
/// @dev An empty `action` means "no ACTION push". The TypeScript codec tells an absent ACTION
/// (null) from an empty one (an error); Solidity has no null bytes, and the library can never
/// write the empty ACTION push that a reader would take for the payload marker.
library EnvelopeLib {
    /// @notice Largest pushed element (Core's MAX_SCRIPT_ELEMENT_SIZE); bounds the content type and ACTION.
    uint256 internal constant MAX_PUSH_BYTES = 520;
    /// @notice Payload chunk size of the canonical single script.
    uint256 internal constant CHUNK_BYTES = 520;

    /// @notice The content type is empty or longer than one push may be.
    /// @param length Length of the content type in bytes.
    /// @param minLength Smallest accepted length (1).
    /// @param maxLength Largest accepted length (520).
    error EnvelopeContentTypeLengthInvalid(uint256 length, uint256 minLength, uint256 maxLength);

    /// @notice The ACTION is longer than one push may be.
    /// @param length Length of the ACTION in bytes.
    /// @param maxLength Largest accepted length (520).
    error EnvelopeActionTooLong(uint256 length, uint256 maxLength);

    // OP_FALSE OP_IF <push 3> "ord" OP_1: the 7 bytes every v1 header envelope starts with.
    uint256 private constant _HEADER_START = 0x0063036f726451;
    uint256 private constant _HEADER_START_BYTES = 7;
    uint256 private constant _OP_0 = 0x00;
    uint256 private constant _OP_PUSHDATA1 = 0x4c;
    uint256 private constant _OP_PUSHDATA2 = 0x4d;
    uint256 private constant _OP_1NEGATE = 0x4f;
    uint256 private constant _OP_1_MINUS_ONE = 0x50; // OP_n = 0x50 + n for n in 1..16
    uint256 private constant _OP_ENDIF = 0x68;
    uint256 private constant _MAX_DIRECT_PUSH_BYTES = 75;

    /// @notice The canonical single envelope script for (content type, ACTION, payload).
    /// @param contentType MIME type bytes (UTF-8), 1 to 520 bytes.
    /// @param action ACTION bytes (UTF-8), at most 520 bytes; empty for no ACTION push.
    /// @param payload The inscription body, any length.
    /// @return script The envelope bytes.
    function encode(
        bytes memory contentType,
        bytes memory action,
        bytes memory payload
    ) internal pure returns (bytes memory script) {
        uint256 length = encodedLength(contentType, action, payload);
        assembly ("memory-safe") {
            script := mload(0x40)
            mstore(script, length)
            // The end of the buffer is rounded up to a word; the padding is zeroed below.
            mstore(0x40, and(add(add(script, 0x3f), length), not(0x1f)))
        }
        uint256 cursor;
        assembly ("memory-safe") {
            cursor := add(script, 0x20)
            mstore(cursor, shl(sub(256, mul(8, _HEADER_START_BYTES)), _HEADER_START))
            cursor := add(cursor, _HEADER_START_BYTES)
        }
        cursor = _writePush(cursor, contentType, 0, contentType.length);
        if (action.length != 0) cursor = _writePush(cursor, action, 0, action.length);
        assembly ("memory-safe") {
            mstore8(cursor, _OP_0)
            cursor := add(cursor, 1)
        }
        uint256 payloadLength = payload.length;
        for (uint256 offset; offset < payloadLength;) {
            uint256 chunkLength = payloadLength - offset;
            if (chunkLength > CHUNK_BYTES) chunkLength = CHUNK_BYTES;
            cursor = _writePush(cursor, payload, offset, chunkLength);
            unchecked {
                offset += chunkLength;
            }
        }
        assembly ("memory-safe") {
            mstore8(cursor, _OP_ENDIF)
            // Zero the rest of the last word, so the buffer is clean like one Solidity allocates.
            mstore(add(cursor, 1), 0)
        }
    }

    /// @notice SHA-256 of the canonical single envelope script (`envelopeHash`).
    /// @param contentType MIME type bytes (UTF-8), 1 to 520 bytes.
    /// @param action ACTION bytes (UTF-8), at most 520 bytes; empty for no ACTION push.
    /// @param payload The inscription body, any length.
    /// @return The SHA-256 digest of `encode(contentType, action, payload)`.
    function hash(bytes memory contentType, bytes memory action, bytes memory payload) internal pure returns (bytes32) {
        return sha256(encode(contentType, action, payload));
    }

    /// @notice Length in bytes of the envelope `encode` would return; reverts on the same inputs.
    /// @param contentType MIME type bytes (UTF-8), 1 to 520 bytes.
    /// @param action ACTION bytes (UTF-8), at most 520 bytes; empty for no ACTION push.
    /// @param payload The inscription body, any length.
    /// @return length The envelope length in bytes.
    function encodedLength(
        bytes memory contentType,
        bytes memory action,
        bytes memory payload
    ) internal pure returns (uint256 length) {
        uint256 contentTypeLength = contentType.length;
        if (contentTypeLength == 0 || contentTypeLength > MAX_PUSH_BYTES) {
            revert EnvelopeContentTypeLengthInvalid(contentTypeLength, 1, MAX_PUSH_BYTES);
        }
        uint256 actionLength = action.length;
        if (actionLength > MAX_PUSH_BYTES) revert EnvelopeActionTooLong(actionLength, MAX_PUSH_BYTES);
        uint256 payloadLength = payload.length;
        unchecked {
            // header start, content type, [ACTION], OP_0 marker, OP_ENDIF
            length = _HEADER_START_BYTES + _pushLength(contentType, 0, contentTypeLength) + 2;
            if (actionLength != 0) length += _pushLength(action, 0, actionLength);
            uint256 fullChunks = payloadLength / CHUNK_BYTES;
            uint256 lastChunkLength = payloadLength % CHUNK_BYTES;
            // A full 520-byte chunk is OP_PUSHDATA2 <2-byte length> <520 bytes>.
            length += fullChunks * (CHUNK_BYTES + 3);
            if (lastChunkLength != 0) length += _pushLength(payload, fullChunks * CHUNK_BYTES, lastChunkLength);
        }
    }

    /// @dev Bytes the minimal push of `data[offset:offset+length]` takes (length <= 65535).
    function _pushLength(bytes memory data, uint256 offset, uint256 length) private pure returns (uint256) {
        unchecked {
            if (length == 0) return 1;
            if (length == 1) {
                uint256 value = _byteAt(data, offset);
                if ((value >= 1 && value <= 16) || value == 0x81) return 1;
                return 2;
            }
            if (length <= _MAX_DIRECT_PUSH_BYTES) return length + 1;
            if (length <= 0xff) return length + 2;
            return length + 3;
        }
    }

    /// @dev Writes the minimal push of `data[offset:offset+length]` (length <= 65535) at `cursor`.
    function _writePush(
        uint256 cursor,
        bytes memory data,
        uint256 offset,
        uint256 length
    ) private pure returns (uint256) {
        if (length == 1) {
            uint256 value = _byteAt(data, offset);
            uint256 opcode;
            if (value >= 1 && value <= 16) opcode = _OP_1_MINUS_ONE + value;
            else if (value == 0x81) opcode = _OP_1NEGATE;
            if (opcode != 0) {
                assembly ("memory-safe") {
                    mstore8(cursor, opcode)
                }
                return cursor + 1;
            }
        }
        assembly ("memory-safe") {
            switch lt(length, add(_MAX_DIRECT_PUSH_BYTES, 1))
            case 1 {
                // OP_0 for an empty push, the length byte otherwise
                mstore8(cursor, length)
                cursor := add(cursor, 1)
            }
            default {
                switch lt(length, 0x100)
                case 1 {
                    mstore8(cursor, _OP_PUSHDATA1)
                    mstore8(add(cursor, 1), length)
                    cursor := add(cursor, 2)
                }
                default {
                    mstore8(cursor, _OP_PUSHDATA2)
                    mstore8(add(cursor, 1), and(length, 0xff))
                    mstore8(add(cursor, 2), shr(8, length))
                    cursor := add(cursor, 3)
                }
            }
            mcopy(cursor, add(add(data, 0x20), offset), length)
            cursor := add(cursor, length)
        }
        return cursor;
    }

    /// @dev The byte at `data[offset]` (offset < data.length).
    function _byteAt(bytes memory data, uint256 offset) private pure returns (uint256 value) {
        assembly ("memory-safe") {
            value := byte(0, mload(add(add(data, 0x20), offset)))
        }
    }
}
