// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {PlugsMarketplace} from "../../../contracts/plugs/PlugsMarketplace.sol";
import {ForgeTest} from "../base/ForgeTest.sol";
import {PlugsHandler} from "./PlugsHandler.sol";

/// @notice PlugsMarketplace one call at a time (fuzzed), its gas, and a check that the invariant
/// handler reaches every accepted outcome.
contract PlugsMarketplaceTest is ForgeTest {
    PlugsMarketplace internal marketplace;
    address internal creator;
    address internal buyer;

    function setUp() public {
        vm.warp(1_800_000_000);
        marketplace = new PlugsMarketplace();
        creator = makeAddr("creator");
        buyer = makeAddr("buyer");
    }

    /// @notice A renewal before expiry extends from the expiry, after it from now; the creator is
    /// owed every payment, and exactly that comes out.
    function testFuzzRenewalsExtendFromTheExpiryAndPayTheCreator(uint64 duration, uint32 wait, uint96 price) public {
        duration = uint64(bound(duration, 1, 100 * 365 days));
        vm.prank(creator);
        uint256 plugId = marketplace.listPlug(price, duration, "ipfs://plug");
        vm.deal(buyer, uint256(price) * 2);
        vm.prank(buyer);
        uint64 firstExpiry = marketplace.buyLicense{value: price}(plugId);
        vm.warp(block.timestamp + wait);
        vm.prank(buyer);
        uint64 secondExpiry = marketplace.buyLicense{value: price}(plugId);
        uint64 from = firstExpiry > block.timestamp ? firstExpiry : uint64(block.timestamp);
        vm.assertEq(secondExpiry, from + duration, "the renewal's expiry");
        vm.assertEq(marketplace.payoutOf(creator), uint256(price) * 2, "both payments are owed to the creator");
        if (price == 0) return;
        vm.prank(creator);
        marketplace.withdrawPayout();
        vm.assertEq(creator.balance, uint256(price) * 2, "the creator took out what buyers paid in");
        vm.assertEq(address(marketplace).balance, 0, "nothing left");
    }

    function testTheInvariantHandlerReachesEveryAcceptedOutcome() public {
        PlugsHandler handler = new PlugsHandler(marketplace);
        for (uint256 i = 0; i < 6; ++i) handler.listPlug(i, i + 1, i + 1, false);
        for (uint256 i = 0; i < 12; ++i) handler.buyLicense(i, i + 1, 0);
        handler.setPrice(0, 0, 1 ether, true);
        handler.delistPlug(0, 1, true);
        for (uint256 i = 0; i < 6; ++i) handler.withdrawPayout(i);
        string[5] memory actions = ["listPlug", "setPrice", "delistPlug", "buyLicense", "withdrawPayout"];
        for (uint256 i = 0; i < actions.length; ++i) {
            vm.assertGt(handler.accepted(actions[i]), 0, string.concat(actions[i], " was accepted at least once"));
        }
        vm.assertEq(handler.violationCount(), 0, "no disagreement with the model");
    }

    function testGasBuyLicense() public {
        vm.prank(creator);
        uint256 plugId = marketplace.listPlug(0.01 ether, 30 days, "ipfs://plug");
        vm.deal(buyer, 0.01 ether);
        vm.prank(buyer);
        marketplace.buyLicense{value: 0.01 ether}(plugId);
    }
}
