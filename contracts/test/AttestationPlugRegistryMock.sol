// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IPlugCreatorRegistry} from "../attestation/IDogeAttestation.sol";

/// @title AttestationPlugRegistryMock
/// @notice Test stand-in for the plugs marketplace: names a creator per plug id (0 = not listed).
contract AttestationPlugRegistryMock is IPlugCreatorRegistry {
    mapping(uint256 plugId => address creator) private _creatorOf;

    function setCreator(uint256 plugId, address creator) external {
        _creatorOf[plugId] = creator;
    }

    /// @inheritdoc IPlugCreatorRegistry
    function creatorOf(uint256 plugId) external view returns (address) {
        return _creatorOf[plugId];
    }
}
