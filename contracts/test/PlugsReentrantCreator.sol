// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IPlugsMarketplace} from "../plugs/IPlugsMarketplace.sol";

/// @notice Test-only: a plug creator whose payout receiver misbehaves. In `ReenterWithdraw` mode it
/// calls `withdrawPayout` again from `receive` and records how that inner call ended; in `Reject`
/// mode it refuses the ether.
contract PlugsReentrantCreator {
    enum Mode {
        Accept,
        ReenterWithdraw,
        Reject
    }

    error PlugsReentrantCreatorRejected(uint256 amountWei);

    IPlugsMarketplace public immutable market;
    Mode public mode;
    uint256 public reentryAttempts;
    bool public reentrySucceeded;
    bytes public reentryRevertData;

    constructor(IPlugsMarketplace market_) {
        market = market_;
    }

    function setMode(Mode mode_) external {
        mode = mode_;
    }

    function listPlug(
        uint256 priceWei,
        uint64 licenseDurationSeconds,
        string calldata metadataURI
    ) external returns (uint256) {
        return market.listPlug(priceWei, licenseDurationSeconds, metadataURI);
    }

    function withdrawPayout() external returns (uint256) {
        return market.withdrawPayout();
    }

    receive() external payable {
        if (mode == Mode.Reject) revert PlugsReentrantCreatorRejected(msg.value);
        if (mode == Mode.ReenterWithdraw && reentryAttempts == 0) {
            reentryAttempts++;
            try market.withdrawPayout() {
                reentrySucceeded = true;
            } catch (bytes memory revertData) {
                reentryRevertData = revertData;
            }
        }
    }
}
