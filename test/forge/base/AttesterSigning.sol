// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {ForgeTest} from "./ForgeTest.sol";

/// @title AttesterSigning
/// @notice Attester keys and EIP-712 signatures of facts and receipts, computed here from the type
/// strings (the same text as src/facts/eip712.ts and IDogeAttestation's NatSpec), not read from the
/// contract: a test that compares `factDigest` with `factDigestFor` holds the contract to the spec.
/// Keys: `attesterKey(i)` for i in 0..4 (the first three form set 1 in `deployAttestation`; 3 and 4
/// are spares for rotations) and `OUTSIDER_KEY_INDEX` (5), never an attester.
abstract contract AttesterSigning is ForgeTest {
    uint256 internal constant ATTESTER_KEY_COUNT = 6;
    uint256 internal constant OUTSIDER_KEY_INDEX = 5;
    /// @dev secp256k1 group order: (r, s, v) has the twin (r, n - s, v ^ 1) that OpenZeppelin's ECDSA refuses.
    uint256 internal constant SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141;

    bytes32 internal constant EIP712_DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 internal constant FACT_TYPEHASH_SPEC = keccak256(
        "Fact(bytes32 factType,bytes32 subject,bytes32 qualifier,uint256 value,bytes32 data,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)"
    );
    bytes32 internal constant RECEIPT_TYPEHASH_SPEC = keccak256(
        "Receipt(bytes32 jobId,address jobContract,bytes32 l1Txid,bytes32 resultHash,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)"
    );

    /// @notice The private key of attester pool entry `index` (deterministic, so failures reproduce).
    function attesterKey(uint256 index) internal pure returns (uint256) {
        return uint256(keccak256(abi.encodePacked("dogeos forge attester key ", index)));
    }

    function attesterAddress(uint256 index) internal pure returns (address) {
        return vm.addr(attesterKey(index));
    }

    /// @notice Pool entries 0, 1 and 2 as a set.
    function firstAttesterSet() internal pure returns (address[3] memory set) {
        for (uint256 i = 0; i < 3; ++i) set[i] = attesterAddress(i);
    }

    function domainSeparatorFor(uint256 chainId, address verifyingContract) internal pure returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    EIP712_DOMAIN_TYPEHASH,
                    keccak256("DogeAttestation"),
                    keccak256("1"),
                    chainId,
                    verifyingContract
                )
            );
    }

    function factDigestFor(
        IDogeAttestation.Fact memory fact,
        uint256 chainId,
        address verifyingContract
    ) internal pure returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                FACT_TYPEHASH_SPEC,
                fact.factType,
                fact.subject,
                fact.qualifier,
                fact.value,
                fact.data,
                fact.l1Height,
                fact.attestedAt,
                fact.attesterSetId
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparatorFor(chainId, verifyingContract), structHash));
    }

    function receiptDigestFor(
        IDogeAttestation.Receipt memory receipt,
        uint256 chainId,
        address verifyingContract
    ) internal pure returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                RECEIPT_TYPEHASH_SPEC,
                receipt.jobId,
                receipt.jobContract,
                receipt.l1Txid,
                receipt.resultHash,
                receipt.l1Height,
                receipt.attestedAt,
                receipt.attesterSetId
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparatorFor(chainId, verifyingContract), structHash));
    }

    /// @notice Signatures of `digest` by the pool keys `keyIndexes`, in the order given.
    function signAll(bytes32 digest, uint256[] memory keyIndexes) internal pure returns (bytes[] memory signatures) {
        signatures = new bytes[](keyIndexes.length);
        for (uint256 i = 0; i < keyIndexes.length; ++i) signatures[i] = signDigest(attesterKey(keyIndexes[i]), digest);
    }

    /// @notice `keyIndexes` reordered by increasing signer address (the order the contract requires).
    function sortedBySigner(uint256[] memory keyIndexes) internal pure returns (uint256[] memory sorted) {
        sorted = new uint256[](keyIndexes.length);
        for (uint256 i = 0; i < keyIndexes.length; ++i) sorted[i] = keyIndexes[i];
        for (uint256 i = 1; i < sorted.length; ++i) {
            for (uint256 j = i; j > 0 && attesterAddress(sorted[j - 1]) > attesterAddress(sorted[j]); --j) {
                (sorted[j - 1], sorted[j]) = (sorted[j], sorted[j - 1]);
            }
        }
    }

    /// @notice Two pool keys as a sorted pair.
    function pair(uint256 first, uint256 second) internal pure returns (uint256[] memory keyIndexes) {
        keyIndexes = new uint256[](2);
        keyIndexes[0] = first;
        keyIndexes[1] = second;
    }

    /// @notice The high-s twin of a 65-byte signature: the same signer to ecrecover, refused by ECDSA.
    function malleated(bytes memory signature) internal pure returns (bytes memory) {
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        return abi.encodePacked(r, bytes32(SECP256K1_N - uint256(s)), v == 27 ? uint8(28) : uint8(27));
    }
}
