// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {EnvelopeLib} from "../envelope/EnvelopeLib.sol";

/// @notice Test-only: exposes the internal functions of EnvelopeLib that EnvelopeHelper does not.
contract EnvelopeLibHarness {
    function encodedLength(
        bytes calldata contentType,
        bytes calldata action,
        bytes calldata payload
    ) external pure returns (uint256) {
        return EnvelopeLib.encodedLength(contentType, action, payload);
    }

    /// @dev Encodes, then allocates once more, so a test can see the free memory pointer was advanced
    /// past the envelope: the second allocation must not overlap the envelope bytes.
    function encodeThenAllocate(
        bytes calldata contentType,
        bytes calldata action,
        bytes calldata payload
    ) external pure returns (bytes memory script, bytes memory scriptAfterAllocation) {
        script = EnvelopeLib.encode(contentType, action, payload);
        bytes memory filler = new bytes(64);
        for (uint256 i; i < filler.length; ++i) filler[i] = 0xff;
        scriptAfterAllocation = script;
    }

    /// @dev Gas that EnvelopeLib.hash itself spends, without the call's base cost and calldata.
    function hashGas(
        bytes calldata contentType,
        bytes calldata action,
        bytes calldata payload
    ) external view returns (bytes32 envelopeHash, uint256 gasUsed) {
        bytes memory contentTypeBytes = contentType;
        bytes memory actionBytes = action;
        bytes memory payloadBytes = payload;
        uint256 gasBefore = gasleft();
        envelopeHash = EnvelopeLib.hash(contentTypeBytes, actionBytes, payloadBytes);
        gasUsed = gasBefore - gasleft();
    }
}
