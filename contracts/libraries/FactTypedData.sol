// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";

/// @title FactTypedData
/// @notice EIP-712 struct hashes of facts and receipts. The type strings are the ones exported by
/// src/facts/eip712.ts (`FACT_TYPE_STRING`, `RECEIPT_TYPE_STRING`); test/facts and the attestation
/// tests compare keccak256 of those strings with the constants below.
library FactTypedData {
    /// @dev keccak256("Fact(bytes32 factType,bytes32 subject,bytes32 qualifier,uint256 value,bytes32 data,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)")
    bytes32 internal constant FACT_TYPEHASH = keccak256(
        "Fact(bytes32 factType,bytes32 subject,bytes32 qualifier,uint256 value,bytes32 data,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)"
    );

    /// @dev keccak256("Receipt(bytes32 jobId,address jobContract,bytes32 l1Txid,bytes32 resultHash,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)")
    bytes32 internal constant RECEIPT_TYPEHASH = keccak256(
        "Receipt(bytes32 jobId,address jobContract,bytes32 l1Txid,bytes32 resultHash,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)"
    );

    /// @notice hashStruct(fact) per EIP-712: keccak256(FACT_TYPEHASH || the 8 words of the struct).
    /// @dev Fact is static (eight 32-byte words), so its calldata is exactly its encodeData; the copy
    /// skips per-field decoding. Calldata with dirty high bits in a uint64 field hashes to a digest
    /// nobody signed (attesters sign clean values), and reading such a field reverts anyway.
    function hashFact(IDogeAttestation.Fact calldata fact) internal pure returns (bytes32 structHash) {
        bytes32 typeHash = FACT_TYPEHASH;
        assembly ("memory-safe") {
            let pointer := mload(0x40)
            mstore(pointer, typeHash)
            calldatacopy(add(pointer, 0x20), fact, 0x100)
            structHash := keccak256(pointer, 0x120)
        }
    }

    /// @notice hashStruct(receipt) per EIP-712.
    function hashReceipt(IDogeAttestation.Receipt calldata receipt) internal pure returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    RECEIPT_TYPEHASH,
                    receipt.jobId,
                    receipt.jobContract,
                    receipt.l1Txid,
                    receipt.resultHash,
                    receipt.l1Height,
                    receipt.attestedAt,
                    receipt.attesterSetId
                )
            );
    }
}
