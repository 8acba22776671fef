// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IPlugsMarketplace} from "../../../contracts/plugs/IPlugsMarketplace.sol";
import {PlugsMarketplace} from "../../../contracts/plugs/PlugsMarketplace.sol";
import {ForgeTest} from "../base/ForgeTest.sol";
import {PlugsHandler} from "./PlugsHandler.sol";

/// @notice PlugsMarketplace under long random interleavings of list, price, delist, buy and
/// withdraw by many actors (PlugsHandler): value is conserved (what buyers paid in is what creators
/// can take out), licenses and creator payouts are what the model says.
contract PlugsMarketplaceInvariantTest is ForgeTest {
    PlugsMarketplace internal marketplace;
    PlugsHandler internal handler;

    function setUp() public {
        vm.warp(1_800_000_000);
        marketplace = new PlugsMarketplace();
        handler = new PlugsHandler(marketplace);
        targetContract(address(handler));
        bytes4[] memory selectors = new bytes4[](6);
        selectors[0] = PlugsHandler.listPlug.selector;
        selectors[1] = PlugsHandler.setPrice.selector;
        selectors[2] = PlugsHandler.delistPlug.selector;
        selectors[3] = PlugsHandler.buyLicense.selector;
        selectors[4] = PlugsHandler.withdrawPayout.selector;
        selectors[5] = PlugsHandler.warp.selector;
        targetSelector(address(handler), selectors);
    }

    /// @notice Forge runs one campaign per invariant function, all from the same seed (the same
    /// call sequences): one function checking every property after each call explores as much for a
    /// fraction of the time, and the failing assertion's message names the property.
    function invariant_valueLicensesAndPayoutsHoldForAnyInterleaving() public view {
        _theHandlerSawNoOutcomeTheModelRefuses();
        _valueIsConservedAcrossListBuyAndClaim();
        _plugsAndLicensesAreWhatTheModelSays();
    }

    function _theHandlerSawNoOutcomeTheModelRefuses() internal view {
        uint256 count = handler.violationCount();
        if (count != 0) vm.assertEq(handler.violations(0), "", string.concat(vm.toString(count), " violations; first"));
    }

    function _valueIsConservedAcrossListBuyAndClaim() internal view {
        uint256 owed;
        for (uint256 i = 0; i < handler.actorCount(); ++i) {
            address actor = handler.actors(i);
            vm.assertEq(marketplace.payoutOf(actor), handler.owedTo(actor), "payout balance");
            owed += handler.owedTo(actor);
        }
        vm.assertEq(address(marketplace).balance, owed, "balance = unpaid payouts");
        vm.assertEq(
            address(marketplace).balance,
            handler.paidInWei() - handler.paidOutWei(),
            "balance = paid in - paid out"
        );
    }

    function _plugsAndLicensesAreWhatTheModelSays() internal view {
        vm.assertEq(marketplace.plugCount(), handler.plugCount(), "plug count");
        for (uint256 plugId = 1; plugId <= handler.plugCount(); ++plugId) {
            PlugsHandler.ModelPlug memory expected = handler.plugAt(plugId);
            IPlugsMarketplace.Plug memory plug = marketplace.getPlug(plugId);
            vm.assertEq(plug.creator, expected.creator, "creator");
            vm.assertEq(plug.priceWei, expected.priceWei, "price");
            vm.assertEq(plug.listed, expected.listed, "listed");
            vm.assertEq(marketplace.creatorOf(plugId), expected.listed ? expected.creator : address(0), "creatorOf");
            for (uint256 i = 0; i < handler.actorCount(); ++i) {
                address buyer = handler.actors(i);
                IPlugsMarketplace.License memory license = marketplace.licenseOf(plugId, buyer);
                IPlugsMarketplace.License memory model = handler.licenseOf(plugId, buyer);
                vm.assertEq(license.purchasedAt, model.purchasedAt, "purchasedAt");
                vm.assertEq(license.expiresAt, model.expiresAt, "expiresAt");
                bool valid = model.purchasedAt != 0 && (model.expiresAt == 0 || block.timestamp < model.expiresAt);
                vm.assertEq(marketplace.hasLicense(plugId, buyer), valid, "hasLicense");
            }
        }
    }

    /// @notice After the run every creator can take out what it is owed, and nothing is left.
    function afterInvariant() public {
        for (uint256 i = 0; i < handler.actorCount(); ++i) {
            address actor = handler.actors(i);
            if (handler.owedTo(actor) == 0) continue;
            vm.prank(actor);
            marketplace.withdrawPayout();
        }
        vm.assertEq(address(marketplace).balance, 0, "what went in came out");
    }
}
