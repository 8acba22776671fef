// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ForgeTest} from "./base/ForgeTest.sol";

/// @notice The test base's own helpers, and proof that Forge runs with our hand-written cheatcodes.
contract ForgeTestBaseTest is ForgeTest {
    function testBoundKeepsValuesInsideTheRange() public pure {
        vm.assertEq(bound(5, 10, 20), 15, "5 wraps to 10 + 5");
        vm.assertEq(bound(15, 10, 20), 15, "inside stays");
        vm.assertEq(bound(type(uint256).max, 0, type(uint256).max), type(uint256).max, "full range");
    }

    function testFuzzBoundStaysInside(uint256 value, uint256 min, uint256 max) public pure {
        vm.assume(min <= max);
        uint256 bounded = bound(value, min, max);
        vm.assertGe(bounded, min, "not below min");
        vm.assertLe(bounded, max, "not above max");
    }

    function testSignDigestRecoversTheKeysAddress() public {
        (address signer, uint256 key) = makeKeyedAddr("signer");
        bytes32 digest = keccak256("digest");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        vm.assertEq(ecrecover(digest, v, r, s), signer, "ecrecover gives the key's address");
        bytes memory signature = signDigest(key, digest);
        vm.assertEq(signature.length, 65, "r || s || v");
    }
}
