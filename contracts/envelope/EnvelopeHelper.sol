// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IEnvelopeHelper} from "./IEnvelopeHelper.sol";
import {EnvelopeLib} from "./EnvelopeLib.sol";

/// @title EnvelopeHelper
/// @notice Stateless wrapper that exposes `EnvelopeLib` to callers off chain and on chain.
contract EnvelopeHelper is IEnvelopeHelper {
    /// @inheritdoc IEnvelopeHelper
    function encodeEnvelope(
        string calldata contentType,
        string calldata action,
        bytes calldata payload
    ) external pure returns (bytes memory script) {
        return EnvelopeLib.encode(bytes(contentType), bytes(action), payload);
    }

    /// @inheritdoc IEnvelopeHelper
    function envelopeHash(
        string calldata contentType,
        string calldata action,
        bytes calldata payload
    ) external pure returns (bytes32) {
        return EnvelopeLib.hash(bytes(contentType), bytes(action), payload);
    }
}
