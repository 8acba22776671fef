// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IPlugsMarketplace} from "../../../contracts/plugs/IPlugsMarketplace.sol";
import {PlugsMarketplace} from "../../../contracts/plugs/PlugsMarketplace.sol";
import {ForgeTest} from "../base/ForgeTest.sol";

/// @title PlugsHandler
/// @notice What an invariant run calls on PlugsMarketplace: many actors list plugs (valid and
/// invalid), change prices and delist (their own plugs or others'), buy licenses with right and
/// wrong payments, withdraw payouts, while time passes. Each action predicts its outcome from a
/// model and records a violation when the contract disagrees.
contract PlugsHandler is ForgeTest {
    PlugsMarketplace public immutable marketplace;

    struct ModelPlug {
        address creator;
        uint256 priceWei;
        uint64 durationSeconds;
        bool listed;
    }

    address[] public actors;
    ModelPlug[] internal _plugs;
    mapping(uint256 => mapping(address => IPlugsMarketplace.License)) internal _licenses;
    mapping(address => uint256) public owedTo;
    uint256 public paidInWei;
    uint256 public paidOutWei;
    string[] public violations;
    mapping(string => uint256) public accepted;

    constructor(PlugsMarketplace marketplace_) {
        marketplace = marketplace_;
        for (uint256 i = 0; i < 6; ++i) actors.push(makeAddr(string.concat("plug actor ", vm.toString(i))));
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function plugCount() external view returns (uint256) {
        return _plugs.length;
    }

    function plugAt(uint256 plugId) external view returns (ModelPlug memory) {
        return _plugs[plugId - 1];
    }

    function licenseOf(uint256 plugId, address buyer) external view returns (IPlugsMarketplace.License memory) {
        return _licenses[plugId][buyer];
    }

    function violationCount() external view returns (uint256) {
        return violations.length;
    }

    function listPlug(uint256 actorSeed, uint256 priceSeed, uint256 durationSeed, bool badUri) external {
        address creator = _actor(actorSeed);
        uint256 price = priceSeed % 4 == 0 ? 0 : bound(priceSeed, 1, 10 ether);
        uint64 duration = durationSeed % 3 == 0 ? 0 : uint64(bound(durationSeed, 1, 100 * 365 days + 10));
        bool expected = !badUri && duration <= 100 * 365 days;
        vm.prank(creator);
        try marketplace.listPlug(price, duration, badUri ? "" : "ipfs://plug") returns (uint256 plugId) {
            if (!expected) return _violation("listPlug accepted a listing the model refuses");
            ++accepted["listPlug"];
            _plugs.push(ModelPlug({creator: creator, priceWei: price, durationSeconds: duration, listed: true}));
            if (plugId != _plugs.length) _violation("plug ids are 1, 2, 3...");
        } catch {
            if (expected) _violation("listPlug refused a listing the model accepts");
        }
    }

    function setPrice(uint256 actorSeed, uint256 plugSeed, uint256 priceSeed, bool byCreator) external {
        if (_plugs.length == 0) return;
        uint256 plugId = 1 + (plugSeed % _plugs.length);
        ModelPlug storage plug = _plugs[plugId - 1];
        address caller = byCreator ? plug.creator : _actor(actorSeed);
        uint256 price = bound(priceSeed, 0, 10 ether);
        bool expected = plug.listed && caller == plug.creator;
        vm.prank(caller);
        try marketplace.setPrice(plugId, price) {
            if (!expected) return _violation("setPrice accepted a call the model refuses");
            ++accepted["setPrice"];
            plug.priceWei = price;
        } catch {
            if (expected) _violation("setPrice refused a call the model accepts");
        }
    }

    function delistPlug(uint256 actorSeed, uint256 plugSeed, bool byCreator) external {
        if (_plugs.length == 0) return;
        uint256 plugId = 1 + (plugSeed % _plugs.length);
        ModelPlug storage plug = _plugs[plugId - 1];
        address caller = byCreator ? plug.creator : _actor(actorSeed);
        bool expected = plug.listed && caller == plug.creator;
        vm.prank(caller);
        try marketplace.delistPlug(plugId) {
            if (!expected) return _violation("delistPlug accepted a call the model refuses");
            ++accepted["delistPlug"];
            plug.listed = false;
        } catch {
            if (expected) _violation("delistPlug refused a call the model accepts");
        }
    }

    function buyLicense(uint256 actorSeed, uint256 plugSeed, uint8 paymentKind) external {
        // Plug ids 1..count, and now and then one never listed.
        uint256 plugId = _plugs.length == 0 || plugSeed % 10 == 0 ? _plugs.length + 1 : 1 + (plugSeed % _plugs.length);
        address buyer = _actor(actorSeed);
        bool known = plugId <= _plugs.length;
        uint256 price = known ? _plugs[plugId - 1].priceWei : 0;
        // 0-5 the price; 6 one wei less; 7 one wei more.
        uint256 kind = paymentKind % 8;
        uint256 sent =
            kind == 7
                ? price + 1
                : kind == 6 && price > 0
                    ? price - 1
                    : price;
        IPlugsMarketplace.License storage license = _licenses[plugId][buyer];
        bool expected =
            known &&
                _plugs[plugId - 1].listed &&
                sent == price &&
                !(_plugs[plugId - 1].durationSeconds == 0 && license.purchasedAt != 0);
        vm.deal(buyer, buyer.balance + sent);
        uint256 balanceBefore = address(marketplace).balance;
        vm.prank(buyer);
        try marketplace.buyLicense{value: sent}(plugId) returns (uint64 expiresAt) {
            if (!expected) return _violation("buyLicense accepted a purchase the model refuses");
            ++accepted["buyLicense"];
            if (address(marketplace).balance != balanceBefore + price) _violation("buyLicense kept another amount");
            ModelPlug storage plug = _plugs[plugId - 1];
            uint64 expected_ = 0;
            if (plug.durationSeconds != 0) {
                uint64 from = license.expiresAt > block.timestamp ? license.expiresAt : uint64(block.timestamp);
                expected_ = from + plug.durationSeconds;
            }
            if (expiresAt != expected_)
                _violation("a license's expiry is not the model's (renewals extend from the expiry)");
            license.purchasedAt = uint64(block.timestamp);
            license.expiresAt = expected_;
            owedTo[plug.creator] += price;
            paidInWei += price;
        } catch {
            if (expected) _violation("buyLicense refused a purchase the model accepts");
        }
    }

    function withdrawPayout(uint256 actorSeed) external {
        address creator = _actor(actorSeed);
        uint256 owed = owedTo[creator];
        uint256 before = creator.balance;
        vm.prank(creator);
        try marketplace.withdrawPayout() returns (uint256 amount) {
            if (owed == 0) return _violation("withdrawPayout paid an account the model owes nothing");
            ++accepted["withdrawPayout"];
            if (amount != owed || creator.balance != before + owed) _violation("withdrawPayout paid another amount");
            owedTo[creator] = 0;
            paidOutWei += owed;
        } catch {
            if (owed != 0) _violation("withdrawPayout refused an account the model owes");
        }
    }

    function warp(uint256 secondsSeed) external {
        vm.warp(block.timestamp + bound(secondsSeed, 1, 400 days));
    }

    function _actor(uint256 seed) internal view returns (address) {
        return actors[seed % actors.length];
    }

    function _violation(string memory what) internal {
        violations.push(what);
    }
}
