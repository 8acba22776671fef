// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DogeAttestation} from "../../../contracts/attestation/DogeAttestation.sol";
import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {PlugsMarketplace} from "../../../contracts/plugs/PlugsMarketplace.sol";
import {ForgeTest} from "../base/ForgeTest.sol";

/// @title ExampleFacts
/// @notice The base of the example consumers' suites: the real DogeAttestation with three attester
/// keys, and facts signed by two of them and stored with `submitFact`, as the attest API's answers
/// are. The digest is the contract's own `factDigest` (the attestation suites hold it to the spec).
abstract contract ExampleFacts is ForgeTest {
    DogeAttestation internal attestation;
    uint256[3] internal attesterKeys;
    uint64 internal attestedAt = 1_000;

    string internal constant HOLDER = "DHoLderAddressOfTheExampleSuites1";
    bytes32 internal constant COLLECTION_COUNT = keccak256("COLLECTION_COUNT");
    bytes32 internal constant DRC20_BALANCE = keccak256("DRC20_BALANCE");
    bytes32 internal constant L1_TIP = keccak256("L1_TIP");

    function deployAttestation() internal {
        address[3] memory attesters;
        for (uint256 i = 0; i < 3; ++i) {
            attesterKeys[i] = uint256(keccak256(abi.encodePacked("dogeos example attester ", i)));
            attesters[i] = vm.addr(attesterKeys[i]);
        }
        address admin = makeAddr("admin");
        attestation = new DogeAttestation(admin, admin, admin, attesters, 1 hours, address(new PlugsMarketplace()));
        vm.warp(10_000);
    }

    /// @notice `fact` signed by attesters 0 and 1, in the ascending order the contract requires.
    function signed(IDogeAttestation.Fact memory fact) internal view returns (bytes[] memory signatures) {
        bytes32 digest = attestation.factDigest(fact);
        uint256 first = attesterKeys[0];
        uint256 second = attesterKeys[1];
        if (vm.addr(first) > vm.addr(second)) (first, second) = (second, first);
        signatures = new bytes[](2);
        signatures[0] = signDigest(first, digest);
        signatures[1] = signDigest(second, digest);
    }

    /// @notice Stores a fact of (factType, subject, qualifier) at `l1Height`, attested later than the last one.
    function submit(bytes32 factType, bytes32 subject, bytes32 qualifier, uint256 value, uint64 l1Height) internal {
        IDogeAttestation.Fact memory fact = IDogeAttestation.Fact({
            factType: factType,
            subject: subject,
            qualifier: qualifier,
            value: value,
            data: bytes32(0),
            l1Height: l1Height,
            attestedAt: ++attestedAt,
            attesterSetId: attestation.attesterSetId()
        });
        attestation.submitFact(fact, signed(fact));
    }

    /// @notice Moves `l1Tip()` up to `height` with an L1_TIP fact.
    function advanceTip(uint64 height) internal {
        submit(L1_TIP, bytes32(0), bytes32(0), height, height);
    }
}
