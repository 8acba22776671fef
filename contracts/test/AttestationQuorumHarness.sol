// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AttesterQuorum} from "../libraries/AttesterQuorum.sol";
import {FactKeys} from "../libraries/FactKeys.sol";

/// @title AttestationQuorumHarness
/// @notice Exposes AttesterQuorum (both set forms) and FactKeys for direct tests.
contract AttestationQuorumHarness {
    mapping(address attester => uint64 attesterSetId) private _attesterSetIdOf;
    uint64 private _currentSetId;

    function setMembers(address[] calldata members, uint64 setId) external {
        for (uint256 i = 0; i < members.length; ++i) {
            _attesterSetIdOf[members[i]] = setId;
        }
        _currentSetId = setId;
    }

    function verifyWithMapping(bytes32 digest, bytes[] calldata signatures) external view {
        AttesterQuorum.verify(digest, signatures, _attesterSetIdOf, _currentSetId);
    }

    function verifyWithSet(bytes32 digest, bytes[] calldata signatures, address[3] calldata attesterSet) external pure {
        AttesterQuorum.verify(digest, signatures, attesterSet);
    }

    function recoverAt(bytes32 digest, bytes[] calldata signatures, uint256 index) external pure returns (address) {
        return AttesterQuorum.recoverAt(digest, signatures, index);
    }

    function factTypeKeys() external pure returns (bytes32[9] memory) {
        return
            [
                FactKeys.DOGE_BALANCE,
                FactKeys.DRC20_BALANCE,
                FactKeys.DRC20_TRANSFER_VALID,
                FactKeys.COLLECTION_COUNT,
                FactKeys.INSCRIPTION_OWNER,
                FactKeys.INSCRIPTION_VALID,
                FactKeys.INSCRIPTION_ACTION,
                FactKeys.TX_INCLUDED,
                FactKeys.L1_TIP
            ];
    }

    function asciiLower(bytes calldata text) external pure returns (bytes memory) {
        return FactKeys.asciiLower(text);
    }

    function factKey(bytes32 factType, bytes32 subject, bytes32 qualifier) external pure returns (bytes32) {
        return FactKeys.factKey(factType, subject, qualifier);
    }

    function requestId(
        bytes32 factType,
        bytes32 subject,
        bytes32 qualifier,
        uint64 sequence
    ) external pure returns (bytes32) {
        return FactKeys.requestId(factType, subject, qualifier, sequence);
    }
}
