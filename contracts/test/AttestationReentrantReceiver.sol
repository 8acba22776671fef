// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";

/// @title AttestationReentrantReceiver
/// @notice A requester / payee whose receive hook tries to call DogeAttestation again (refund or
/// withdraw) and records what happened, or refuses payments altogether.
contract AttestationReentrantReceiver {
    enum Reentry {
        None,
        Refund,
        Withdraw
    }

    error AttestationReceiverRejected(uint256 amountWei);

    IDogeAttestation public immutable attestation;
    Reentry public reentry;
    bool public rejectPayments;
    bytes32 public requestId;
    uint256 public paymentsReceived;
    uint256 public weiReceived;
    bool public reentryAttempted;
    bool public reentrySucceeded;
    bytes public reentryRevertData;

    constructor(IDogeAttestation target) {
        attestation = target;
    }

    function setReentry(Reentry mode) external {
        reentry = mode;
    }

    function setRejectPayments(bool reject) external {
        rejectPayments = reject;
    }

    function requestFact(bytes32 factType, bytes32 subject, bytes32 qualifier, uint256 plugId) external payable {
        requestId = attestation.requestFact{value: msg.value}(factType, subject, qualifier, plugId);
    }

    function refund() external {
        attestation.refund(requestId);
    }

    function withdraw() external {
        attestation.withdraw();
    }

    receive() external payable {
        if (rejectPayments) revert AttestationReceiverRejected(msg.value);
        paymentsReceived += 1;
        weiReceived += msg.value;
        if (reentry == Reentry.None || reentryAttempted) return;
        reentryAttempted = true;
        bytes memory call =
            reentry == Reentry.Refund
                ? abi.encodeCall(IDogeAttestation.refund, (requestId))
                : abi.encodeCall(IDogeAttestation.withdraw, ());
        (bool success, bytes memory returned) = address(attestation).call(call);
        reentrySucceeded = success;
        reentryRevertData = returned;
    }
}
