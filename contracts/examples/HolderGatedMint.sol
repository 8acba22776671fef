// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";

/// @title HolderGatedMint
/// @notice An example consumer of DogeAttestation (docs/dapps.md): an L2 mint open to the holders
/// of a launchpad collection on the base chain. `mint(dogeAddress)` mints one token to the caller
/// when the attested COLLECTION_COUNT of `dogeAddress` in `slug` is at least 1 and that fact is no
/// older than `maxFactAgeBlocks` base-chain blocks below DogeAttestation's `l1Tip()`. Each
/// Dogecoin address mints once.
///
/// A missing fact reverts with `HolderGatedMintFactMissing`, a stale one with
/// `HolderGatedMintFactStale`: ask for a fresh one by calling DogeAttestation's
/// `requestFact{value: feeWei}(factType, subject, qualifier, 0)` with what `freshFactRequest`
/// returns, then have the attest API fulfil it (POST /api/attest/fulfill, or `requestFreshFact` of
/// the TypeScript SDK, packages/sdk), and mint again.
///
/// What this example does not prove: that the caller controls `dogeAddress`. The fact says what
/// the address holds, not who is asking; a production gate also binds the Dogecoin address to the
/// L2 account (for example a Dogecoin-signed message naming the caller, checked by the dapp before
/// it lets the address claim), or the first caller naming a holder's address takes its mint.
contract HolderGatedMint {
    /// @notice The attestation contract the facts are read from.
    IDogeAttestation public immutable attestation;
    /// @notice How many base-chain blocks a holder fact may lie below `attestation.l1Tip()`.
    uint64 public immutable maxFactAgeBlocks;
    /// @notice The launchpad collection whose holders may mint.
    string public slug;

    /// @notice Tokens minted so far; token ids run from 1.
    uint256 public totalMinted;
    mapping(uint256 tokenId => address owner) public ownerOf;
    mapping(bytes32 dogeAddressKey => uint256 tokenId) public tokenOfDogeAddress;

    /// @notice A token was minted to `to` for the holder `dogeAddressKey`, on the fact at `l1Height`.
    event HolderMinted(uint256 indexed tokenId, address indexed to, bytes32 indexed dogeAddressKey, uint64 l1Height);

    /// @notice No COLLECTION_COUNT fact of (`dogeAddress`, `slug`) was ever attested: request one.
    error HolderGatedMintFactMissing(string dogeAddress, string slug);
    /// @notice The fact is `l1Tip - l1Height` blocks old, more than `maxAgeBlocks`: request a fresh one.
    error HolderGatedMintFactStale(string dogeAddress, uint64 l1Height, uint64 l1Tip, uint64 maxAgeBlocks);
    /// @notice The fresh fact says `dogeAddress` holds `count` tokens of the collection (0).
    error HolderGatedMintNotHolder(string dogeAddress, uint256 count, uint64 l1Height);
    /// @notice `dogeAddress` already minted `tokenId`.
    error HolderGatedMintAlreadyMinted(string dogeAddress, uint256 tokenId);

    constructor(IDogeAttestation attestation_, string memory slug_, uint64 maxFactAgeBlocks_) {
        attestation = attestation_;
        slug = slug_;
        maxFactAgeBlocks = maxFactAgeBlocks_;
    }

    /// @notice Mints one token to the caller for the holder `dogeAddress` (once per address).
    /// @dev Reverts with HolderGatedMintFactMissing, HolderGatedMintFactStale,
    /// HolderGatedMintNotHolder or HolderGatedMintAlreadyMinted.
    function mint(string calldata dogeAddress) external returns (uint256 tokenId) {
        bytes32 holderKey = attestation.addressKey(dogeAddress);
        uint256 minted = tokenOfDogeAddress[holderKey];
        if (minted != 0) revert HolderGatedMintAlreadyMinted(dogeAddress, minted);
        (uint256 count, uint64 l1Height, uint64 attestedAt) = attestation.collectionCount(dogeAddress, slug);
        // attestedAt is 0 only for a fact never attested (a stored fact needs attestedAt > 0).
        if (attestedAt == 0) revert HolderGatedMintFactMissing(dogeAddress, slug);
        uint64 l1Tip = attestation.l1Tip();
        if (l1Tip - l1Height > maxFactAgeBlocks)
            revert HolderGatedMintFactStale(dogeAddress, l1Height, l1Tip, maxFactAgeBlocks);
        if (count == 0) revert HolderGatedMintNotHolder(dogeAddress, count, l1Height);
        tokenId = ++totalMinted;
        ownerOf[tokenId] = msg.sender;
        tokenOfDogeAddress[holderKey] = tokenId;
        emit HolderMinted(tokenId, msg.sender, holderKey, l1Height);
    }

    /// @notice The arguments of `attestation.requestFact` that ask for a fresh holder fact of
    /// `dogeAddress`, and the fee to send with it.
    function freshFactRequest(
        string calldata dogeAddress
    ) external view returns (bytes32 factType, bytes32 subject, bytes32 qualifier, uint256 feeWei) {
        factType = keccak256("COLLECTION_COUNT");
        subject = attestation.addressKey(dogeAddress);
        qualifier = attestation.slugKey(slug);
        feeWei = attestation.requestFee(factType);
    }
}
