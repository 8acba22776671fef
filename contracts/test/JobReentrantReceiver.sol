// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAnchor} from "../services/IDogeAnchor.sol";
import {IJobService} from "../services/IJobService.sol";

/// @title JobReentrantReceiver
/// @notice A requester / operator of DogeAnchor whose receive hook tries to call the service again
/// (refund or withdraw) and records what happened, or refuses payments altogether.
contract JobReentrantReceiver {
    enum Reentry {
        None,
        Refund,
        Withdraw
    }

    error JobReceiverRejected(uint256 amountWei);

    IDogeAnchor public immutable service;
    Reentry public reentry;
    bool public rejectPayments;
    bytes32 public jobId;
    uint256 public paymentsReceived;
    uint256 public weiReceived;
    bool public reentryAttempted;
    bool public reentrySucceeded;
    bytes public reentryRevertData;

    constructor(IDogeAnchor target) {
        service = target;
    }

    function setReentry(Reentry mode) external {
        reentry = mode;
    }

    function setRejectPayments(bool reject) external {
        rejectPayments = reject;
    }

    function requestAnchor(bytes calldata payload) external payable {
        jobId = service.requestAnchor{value: msg.value}(payload);
    }

    function refund() external {
        service.refund(jobId);
    }

    function withdraw() external {
        service.withdraw();
    }

    receive() external payable {
        if (rejectPayments) revert JobReceiverRejected(msg.value);
        paymentsReceived += 1;
        weiReceived += msg.value;
        if (reentry == Reentry.None || reentryAttempted) return;
        reentryAttempted = true;
        bytes memory call =
            reentry == Reentry.Refund
                ? abi.encodeCall(IJobService.refund, (jobId))
                : abi.encodeCall(IJobService.withdraw, ());
        (bool success, bytes memory returned) = address(service).call(call);
        reentrySucceeded = success;
        reentryRevertData = returned;
    }
}
