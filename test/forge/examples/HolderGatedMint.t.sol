// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {HolderGatedMint} from "../../../contracts/examples/HolderGatedMint.sol";
import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {ExampleFacts} from "./ExampleFacts.sol";

/// @notice The holder-gated mint (docs/dapps.md) over the real DogeAttestation.
contract HolderGatedMintTest is ExampleFacts {
    HolderGatedMint internal gate;
    string internal constant SLUG = "dogeos-pups";
    uint64 internal constant MAX_AGE = 6;
    address internal minter;

    function setUp() public {
        deployAttestation();
        gate = new HolderGatedMint(attestation, SLUG, MAX_AGE);
        minter = makeAddr("minter");
    }

    function _holderFact(uint256 count, uint64 l1Height) internal {
        submit(COLLECTION_COUNT, attestation.addressKey(HOLDER), attestation.slugKey(SLUG), count, l1Height);
    }

    function testMintsToTheCallerForAFreshHolderFact() public {
        _holderFact(1, 100);
        advanceTip(106);
        vm.prank(minter);
        uint256 tokenId = gate.mint(HOLDER);
        vm.assertEq(tokenId, 1, "first token");
        vm.assertEq(gate.ownerOf(1), minter, "minted to the caller");
        vm.assertEq(gate.tokenOfDogeAddress(attestation.addressKey(HOLDER)), 1, "the holder's token");
    }

    function testRevertsWithFactMissingWhenNoFactWasAttested() public {
        vm.expectRevert(abi.encodeWithSelector(HolderGatedMint.HolderGatedMintFactMissing.selector, HOLDER, SLUG));
        gate.mint(HOLDER);
    }

    function testRevertsWithFactStaleOneBlockPastTheLimitThenMintsOnAFreshFact() public {
        _holderFact(1, 100);
        advanceTip(107);
        vm.expectRevert(
            abi.encodeWithSelector(HolderGatedMint.HolderGatedMintFactStale.selector, HOLDER, 100, 107, MAX_AGE)
        );
        gate.mint(HOLDER);
        // The fresh answer to a request: the same fact at the tip.
        _holderFact(1, 107);
        vm.prank(minter);
        vm.assertEq(gate.mint(HOLDER), 1, "minted on the fresh fact");
    }

    function testRevertsWithNotHolderForAFreshZeroCount() public {
        _holderFact(0, 100);
        vm.expectRevert(abi.encodeWithSelector(HolderGatedMint.HolderGatedMintNotHolder.selector, HOLDER, 0, 100));
        gate.mint(HOLDER);
    }

    function testMintsOncePerDogecoinAddress() public {
        _holderFact(3, 100);
        vm.prank(minter);
        gate.mint(HOLDER);
        vm.expectRevert(abi.encodeWithSelector(HolderGatedMint.HolderGatedMintAlreadyMinted.selector, HOLDER, 1));
        gate.mint(HOLDER);
    }

    function testFreshFactRequestOpensARequestTheAttestersAnswerForTheMint() public {
        (bytes32 factType, bytes32 subject, bytes32 qualifier, uint256 feeWei) = gate.freshFactRequest(HOLDER);
        vm.assertEq(feeWei, attestation.requestFee(COLLECTION_COUNT), "the contract's fee");
        vm.deal(minter, feeWei);
        vm.prank(minter);
        bytes32 requestId = attestation.requestFact{value: feeWei}(factType, subject, qualifier, 0);
        IDogeAttestation.Fact memory fact = IDogeAttestation.Fact({
            factType: factType,
            subject: subject,
            qualifier: qualifier,
            value: 1,
            data: bytes32(0),
            l1Height: 200,
            attestedAt: uint64(block.timestamp),
            attesterSetId: attestation.attesterSetId()
        });
        attestation.fulfill(requestId, fact, signed(fact));
        vm.assertEq(uint256(attestation.requestOf(requestId).status), 2, "fulfilled");
        vm.prank(minter);
        vm.assertEq(gate.mint(HOLDER), 1, "the fulfilled fact opens the mint");
    }

    function testFuzzMintsExactlyWhenTheFactIsWithinMaxAgeOfTheTip(uint64 l1Height, uint64 behind) public {
        l1Height = uint64(bound(l1Height, 1, 1e12));
        behind = uint64(bound(behind, 0, 3 * MAX_AGE));
        _holderFact(1, l1Height);
        if (behind > 0) advanceTip(l1Height + behind);
        if (behind > MAX_AGE) {
            vm.expectRevert(
                abi.encodeWithSelector(
                    HolderGatedMint.HolderGatedMintFactStale.selector,
                    HOLDER,
                    l1Height,
                    l1Height + behind,
                    MAX_AGE
                )
            );
            gate.mint(HOLDER);
        } else {
            vm.assertEq(gate.mint(HOLDER), 1, "fresh enough");
        }
    }
}
