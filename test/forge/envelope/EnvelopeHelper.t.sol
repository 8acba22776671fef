// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {EnvelopeHelper} from "../../../contracts/envelope/EnvelopeHelper.sol";
import {EnvelopeLib} from "../../../contracts/envelope/EnvelopeLib.sol";
import {ForgeTest} from "../base/ForgeTest.sol";
import {EnvelopeReference} from "./EnvelopeReference.sol";

/// @notice EnvelopeHelper's `encodeEnvelope` and `envelopeHash` equal the TypeScript envelope
/// (src/inscription/envelope.ts) on precomputed vectors (the shared ones and random ones, written by
/// scripts/forge-envelope-vectors.ts; ffi stays off), and equal a plain Solidity encoder held to the
/// same vectors on fuzzed inputs.
contract EnvelopeHelperTest is ForgeTest {
    /// @dev Fields in the JSON's key order (alphabetical), as parseJsonTypeArray decodes them.
    struct Vector {
        bytes action;
        bytes body;
        bytes contentType;
        string description;
        bytes32 envelopeHash;
        bytes script;
    }

    string internal constant VECTORS_FILE = "test/forge/vectors/envelope.json";
    string internal constant VECTOR_TYPE =
        "Vector(bytes action,bytes body,bytes contentType,string description,bytes32 envelopeHash,bytes script)";

    EnvelopeHelper internal helper;

    function setUp() public {
        helper = new EnvelopeHelper();
    }

    function _vectors() internal view returns (Vector[] memory) {
        string memory json = vm.readFile(VECTORS_FILE);
        return abi.decode(vm.parseJsonTypeArray(json, ".vectors", VECTOR_TYPE), (Vector[]));
    }

    function testEncodeAndHashEqualTheTypeScriptEnvelopeOnEveryVector() public view {
        Vector[] memory vectors = _vectors();
        vm.assertGt(vectors.length, 150, "the shared and the random vectors are there");
        for (uint256 i = 0; i < vectors.length; ++i) {
            Vector memory v = vectors[i];
            bytes memory script = helper.encodeEnvelope(string(v.contentType), string(v.action), v.body);
            vm.assertEq(script, v.script, string.concat("encodeEnvelope: ", v.description));
            vm.assertEq(
                helper.envelopeHash(string(v.contentType), string(v.action), v.body),
                v.envelopeHash,
                string.concat("envelopeHash: ", v.description)
            );
        }
    }

    /// @notice The reference encoder the fuzz tests compare against gives the TypeScript bytes too.
    function testTheReferenceEncoderEqualsTheTypeScriptEnvelopeOnEveryVector() public view {
        Vector[] memory vectors = _vectors();
        for (uint256 i = 0; i < vectors.length; ++i) {
            Vector memory v = vectors[i];
            vm.assertEq(EnvelopeReference.encode(v.contentType, v.action, v.body), v.script, v.description);
        }
    }

    /// @notice Fuzzed content type, ACTION and payload: EnvelopeHelper's bytes are the reference's and
    /// its hash is their SHA-256.
    function testFuzzEncodeEqualsTheReferenceEncoder(
        bytes memory contentType,
        bytes memory action,
        bytes memory payload
    ) public view {
        vm.assume(contentType.length >= 1 && contentType.length <= 520 && action.length <= 520);
        bytes memory script = helper.encodeEnvelope(string(contentType), string(action), payload);
        vm.assertEq(script, EnvelopeReference.encode(contentType, action, payload), "encodeEnvelope");
        vm.assertEq(helper.envelopeHash(string(contentType), string(action), payload), sha256(script), "envelopeHash");
    }

    /// @notice Fuzzed lengths across the push boundaries (75/76, 255/256) and the 520-byte chunks,
    /// with bytes drawn from a seed (Forge's own byte arrays stay short).
    function testFuzzEncodeEqualsTheReferenceAcrossLengths(
        uint16 contentTypeLength,
        uint16 actionLength,
        uint16 payloadLength,
        uint256 seed
    ) public view {
        bytes memory contentType = _bytes(seed, bound(contentTypeLength, 1, 520));
        bytes memory action = _bytes(seed >> 1, bound(actionLength, 0, 520));
        bytes memory payload = _bytes(seed >> 2, bound(payloadLength, 0, 1600));
        bytes memory script = helper.encodeEnvelope(string(contentType), string(action), payload);
        vm.assertEq(script, EnvelopeReference.encode(contentType, action, payload), "encodeEnvelope");
        vm.assertEq(helper.envelopeHash(string(contentType), string(action), payload), sha256(script), "envelopeHash");
    }

    /// @notice A content type must fit one push (1 to 520 bytes) and an ACTION at most 520 bytes.
    function testFuzzRefusesWhatOnePushCannotHold(uint16 contentTypeLength, uint16 actionLength) public {
        uint256 ctLength = bound(contentTypeLength, 0, 700);
        uint256 acLength = bound(actionLength, 0, 700);
        bytes memory contentType = new bytes(ctLength);
        bytes memory action = new bytes(acLength);
        if (ctLength == 0 || ctLength > 520) {
            vm.expectRevert(
                abi.encodeWithSelector(EnvelopeLib.EnvelopeContentTypeLengthInvalid.selector, ctLength, 1, 520)
            );
        } else if (acLength > 520) {
            vm.expectRevert(abi.encodeWithSelector(EnvelopeLib.EnvelopeActionTooLong.selector, acLength, 520));
        }
        helper.envelopeHash(string(contentType), string(action), "");
    }

    function testGasEnvelopeHashOfALaunchpadMint() public view {
        helper.envelopeHash("application/json", "LAUNCHPAD_MINT", '{"p":"launchpad","op":"mint","slug":"dogs","n":1}');
    }

    function _bytes(uint256 seed, uint256 length) internal pure returns (bytes memory data) {
        data = new bytes(length);
        bytes32 word;
        for (uint256 i = 0; i < length; ++i) {
            if (i % 32 == 0) word = keccak256(abi.encode(seed, i));
            data[i] = word[i % 32];
        }
        // Now and then a one-byte input is a small-integer opcode's byte.
        if (length == 1) data[0] = bytes1(uint8(seed % 20));
    }
}
