// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title EnvelopeReference
/// @notice The v1 envelope (DESIGN.md 4.2) written the plain way, byte array by byte array, as a
/// second implementation to fuzz EnvelopeLib's assembly against. It is held to the TypeScript
/// envelope by the same vectors (test/forge/vectors/envelope.json), so a fuzzed input on which the
/// two Solidity encoders agree is one on which EnvelopeLib agrees with src/inscription/envelope.ts.
library EnvelopeReference {
    /// @notice A minimal push of `data` (Bitcoin Core's CheckMinimalPush): OP_0 for empty, OP_1..OP_16
    /// and OP_1NEGATE for those single bytes, a direct push up to 75 bytes, then OP_PUSHDATA1/2.
    function push(bytes memory data) internal pure returns (bytes memory) {
        uint256 length = data.length;
        if (length == 0) return hex"00";
        if (length == 1 && uint8(data[0]) >= 1 && uint8(data[0]) <= 16)
            return abi.encodePacked(uint8(0x50) + uint8(data[0]));
        if (length == 1 && uint8(data[0]) == 0x81) return hex"4f";
        if (length <= 75) return abi.encodePacked(uint8(length), data);
        if (length <= 255) return abi.encodePacked(hex"4c", uint8(length), data);
        return abi.encodePacked(hex"4d", uint8(length), uint8(length >> 8), data);
    }

    /// @notice OP_FALSE OP_IF "ord" OP_1 <content type> [<ACTION>] OP_0 <520-byte chunks> OP_ENDIF.
    function encode(
        bytes memory contentType,
        bytes memory action,
        bytes memory payload
    ) internal pure returns (bytes memory script) {
        script = abi.encodePacked(hex"0063", push("ord"), hex"51", push(contentType));
        if (action.length != 0) script = abi.encodePacked(script, push(action));
        script = abi.encodePacked(script, hex"00");
        for (uint256 offset = 0; offset < payload.length; offset += 520) {
            uint256 end = offset + 520 < payload.length ? offset + 520 : payload.length;
            bytes memory chunk = new bytes(end - offset);
            for (uint256 i = offset; i < end; ++i) chunk[i - offset] = payload[i];
            script = abi.encodePacked(script, push(chunk));
        }
        script = abi.encodePacked(script, hex"68");
    }
}
