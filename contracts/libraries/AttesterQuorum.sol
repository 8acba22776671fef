// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";

/// @title AttesterQuorum
/// @notice The two-of-three rule over an EIP-712 digest, for any contract that holds an attester
/// set (as a membership mapping or as a copy of the three addresses). A contract that only knows
/// DogeAttestation's address asks it instead: `IDogeAttestation.verifyReceipt(receipt, signatures)`.
///
/// The rule: every signature is 65 bytes and recovers with OpenZeppelin's ECDSA `tryRecover`
/// (low s, v 27 or 28); the recovered signers strictly increase (so they are distinct); each is an
/// attester of the set; and there are at least `MIN_SIGNATURES`. Reverts with the
/// `IDogeAttestation` errors `AttestationInvalidSignature`, `AttestationSignersNotAscending`,
/// `AttestationSignerNotAttester` and `AttestationQuorumNotMet`.
library AttesterQuorum {
    /// @notice The floor of valid signatures from distinct attesters. A constant: nothing lowers it.
    uint256 internal constant MIN_SIGNATURES = 2;

    /// @notice The size of an attester set.
    uint256 internal constant ATTESTER_COUNT = 3;

    uint256 private constant SIGNATURE_LENGTH = 65;

    /// @notice Checks `signatures` over `digest` against a membership mapping: a signer counts when
    /// `attesterSetIdOf[signer] == currentSetId` (so set ids must start at 1).
    function verify(
        bytes32 digest,
        bytes[] calldata signatures,
        mapping(address => uint64) storage attesterSetIdOf,
        uint64 currentSetId
    ) internal view {
        uint256 count = signatures.length;
        address previous = address(0);
        for (uint256 i = 0; i < count; ++i) {
            address signer = recoverAt(digest, signatures, i);
            _checkOrder(i, signer, previous);
            if (attesterSetIdOf[signer] != currentSetId)
                revert IDogeAttestation.AttestationSignerNotAttester(i, signer);
            previous = signer;
        }
        _checkCount(count);
    }

    /// @notice Checks `signatures` over `digest` against the three addresses of a set.
    function verify(bytes32 digest, bytes[] calldata signatures, address[3] memory attesterSet) internal pure {
        uint256 count = signatures.length;
        address previous = address(0);
        for (uint256 i = 0; i < count; ++i) {
            address signer = recoverAt(digest, signatures, i);
            _checkOrder(i, signer, previous);
            if (signer != attesterSet[0] && signer != attesterSet[1] && signer != attesterSet[2]) {
                revert IDogeAttestation.AttestationSignerNotAttester(i, signer);
            }
            previous = signer;
        }
        _checkCount(count);
    }

    /// @notice The signer of `signatures[index]` over `digest`; reverts with
    /// `AttestationInvalidSignature(index, reason, detail)` when it does not recover.
    function recoverAt(
        bytes32 digest,
        bytes[] calldata signatures,
        uint256 index
    ) internal pure returns (address signer) {
        bytes calldata signature = signatures[index];
        if (signature.length != SIGNATURE_LENGTH) {
            revert IDogeAttestation.AttestationInvalidSignature(
                index,
                uint8(ECDSA.RecoverError.InvalidSignatureLength),
                bytes32(signature.length)
            );
        }
        bytes32 r;
        bytes32 s;
        uint8 v;
        // Read (r, s, v) straight from calldata: the bytes overload of tryRecover would copy to memory.
        assembly ("memory-safe") {
            r := calldataload(signature.offset)
            s := calldataload(add(signature.offset, 0x20))
            v := byte(0, calldataload(add(signature.offset, 0x40)))
        }
        (address recovered, ECDSA.RecoverError error, bytes32 detail) = ECDSA.tryRecover(digest, v, r, s);
        if (error != ECDSA.RecoverError.NoError) {
            revert IDogeAttestation.AttestationInvalidSignature(index, uint8(error), detail);
        }
        return recovered;
    }

    function _checkOrder(uint256 index, address signer, address previous) private pure {
        if (signer <= previous) revert IDogeAttestation.AttestationSignersNotAscending(index, signer, previous);
    }

    function _checkCount(uint256 count) private pure {
        if (count < MIN_SIGNATURES) revert IDogeAttestation.AttestationQuorumNotMet(count, MIN_SIGNATURES);
    }
}
