// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title FactKeys
/// @notice Fact type keys and subject keys, the Solidity twin of src/facts/keys.ts: every key is
/// keccak256 of the UTF-8 bytes of a canonical string. Canonical forms: Dogecoin addresses and
/// collection slugs as given; ticks, inscription ids and txids with ASCII letters lowered (A-Z
/// only, so the key of a tick with non-ASCII letters depends on how those were written).
library FactKeys {
    /// @dev keccak256("DOGE_BALANCE")
    bytes32 internal constant DOGE_BALANCE = keccak256("DOGE_BALANCE");
    /// @dev keccak256("DRC20_BALANCE")
    bytes32 internal constant DRC20_BALANCE = keccak256("DRC20_BALANCE");
    /// @dev keccak256("DRC20_TRANSFER_VALID")
    bytes32 internal constant DRC20_TRANSFER_VALID = keccak256("DRC20_TRANSFER_VALID");
    /// @dev keccak256("COLLECTION_COUNT")
    bytes32 internal constant COLLECTION_COUNT = keccak256("COLLECTION_COUNT");
    /// @dev keccak256("INSCRIPTION_OWNER")
    bytes32 internal constant INSCRIPTION_OWNER = keccak256("INSCRIPTION_OWNER");
    /// @dev keccak256("INSCRIPTION_VALID")
    bytes32 internal constant INSCRIPTION_VALID = keccak256("INSCRIPTION_VALID");
    /// @dev keccak256("INSCRIPTION_ACTION")
    bytes32 internal constant INSCRIPTION_ACTION = keccak256("INSCRIPTION_ACTION");
    /// @dev keccak256("TX_INCLUDED")
    bytes32 internal constant TX_INCLUDED = keccak256("TX_INCLUDED");
    /// @dev keccak256("L1_TIP")
    bytes32 internal constant L1_TIP = keccak256("L1_TIP");

    /// @notice keccak256 of a Dogecoin address's text, as given.
    function addressKey(string calldata dogeAddress) internal pure returns (bytes32) {
        return keccak256(bytes(dogeAddress));
    }

    /// @notice keccak256 of a DRC-20 tick with ASCII letters lowered.
    function tickKey(string calldata tick) internal pure returns (bytes32) {
        return keccak256(asciiLower(bytes(tick)));
    }

    /// @notice keccak256 of a launchpad collection slug, as given.
    function slugKey(string calldata slug) internal pure returns (bytes32) {
        return keccak256(bytes(slug));
    }

    /// @notice keccak256 of an inscription id (`<txid>i<n>`) with ASCII letters lowered.
    function inscriptionKey(string calldata inscriptionId) internal pure returns (bytes32) {
        return keccak256(asciiLower(bytes(inscriptionId)));
    }

    /// @notice keccak256 of a txid (64 hex digits) with ASCII letters lowered.
    function txKey(string calldata txid) internal pure returns (bytes32) {
        return keccak256(asciiLower(bytes(txid)));
    }

    /// @notice A copy of `text` with the ASCII letters A-Z lowered; every other byte unchanged.
    function asciiLower(bytes calldata text) internal pure returns (bytes memory lowered) {
        lowered = text;
        for (uint256 i = 0; i < lowered.length; ++i) {
            bytes1 char = lowered[i];
            if (char >= 0x41 && char <= 0x5a) lowered[i] = bytes1(uint8(char) | 0x20);
        }
    }

    /// @notice Where a fact lives: keccak256(abi.encode(factType, subject, qualifier)).
    function factKey(bytes32 factType, bytes32 subject, bytes32 qualifier) internal pure returns (bytes32 key) {
        assembly ("memory-safe") {
            // Scratch space past the free memory pointer; nothing is allocated.
            let pointer := mload(0x40)
            mstore(pointer, factType)
            mstore(add(pointer, 0x20), subject)
            mstore(add(pointer, 0x40), qualifier)
            key := keccak256(pointer, 0x60)
        }
    }

    /// @notice A request's id: keccak256(abi.encode(factType, subject, qualifier, sequence)).
    /// Binding the asked-for keys into the id is what lets `fulfill` check the answer without storing them.
    function requestId(
        bytes32 factType,
        bytes32 subject,
        bytes32 qualifier,
        uint64 sequence
    ) internal pure returns (bytes32 id) {
        assembly ("memory-safe") {
            let pointer := mload(0x40)
            mstore(pointer, factType)
            mstore(add(pointer, 0x20), subject)
            mstore(add(pointer, 0x40), qualifier)
            mstore(add(pointer, 0x60), and(sequence, 0xffffffffffffffff))
            id := keccak256(pointer, 0x80)
        }
    }
}
