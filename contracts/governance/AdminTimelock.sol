// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAdminTimelock} from "./IAdminTimelock.sol";

/// @title AdminTimelock
/// @notice The admin, guardian, pause switch and scheduled setter calls that DogeAttestation and
/// JobServiceBase share. The specification is `IAdminTimelock`.
/// @dev A contract that inherits it
/// - keeps the pause flag where its hot paths read it (packed with other hot fields) and exposes it
///   through `_paused` / `_setPaused`;
/// - lists its own setters in `_isTimelockedSetter` (extending this one, which allows `setGuardian`
///   and `setAdmin`) and guards them with `onlyTimelock`.
abstract contract AdminTimelock is IAdminTimelock {
    /// @inheritdoc IAdminTimelock
    uint64 public constant EXECUTION_WINDOW = 14 days;
    /// @inheritdoc IAdminTimelock
    uint64 public constant MIN_TIMELOCK_DELAY = 1 hours;

    uint64 private immutable _timelockDelay;

    mapping(bytes32 operationId => Operation) private _operations;
    address private _admin;
    address private _guardian;

    modifier onlyAdmin() {
        _checkAdmin();
        _;
    }

    modifier onlyGuardian() {
        _checkGuardian();
        _;
    }

    modifier onlyTimelock() {
        _checkTimelock();
        _;
    }

    /// @param initialAdmin Schedules and executes changes, unpauses.
    /// @param initialGuardian Pauses.
    /// @param timelockDelaySeconds Delay between scheduling and execution, at least `MIN_TIMELOCK_DELAY`.
    constructor(address initialAdmin, address initialGuardian, uint64 timelockDelaySeconds) {
        if (timelockDelaySeconds < MIN_TIMELOCK_DELAY) {
            revert TimelockInvalidDelay(timelockDelaySeconds, MIN_TIMELOCK_DELAY);
        }
        _timelockDelay = timelockDelaySeconds;
        _setAdmin(initialAdmin);
        _setGuardian(initialGuardian);
    }

    // ---------------------------------------------------------------- pause

    /// @inheritdoc IAdminTimelock
    function pause() external onlyGuardian {
        if (_paused()) revert PauseUnchanged(true);
        _setPaused(true);
        emit Paused(msg.sender);
    }

    /// @inheritdoc IAdminTimelock
    function unpause() external onlyAdmin {
        if (!_paused()) revert PauseUnchanged(false);
        _setPaused(false);
        emit Unpaused(msg.sender);
    }

    /// @inheritdoc IAdminTimelock
    function paused() external view returns (bool) {
        return _paused();
    }

    // ---------------------------------------------------------------- timelock

    /// @inheritdoc IAdminTimelock
    function schedule(bytes calldata call, bytes32 salt) external onlyAdmin returns (bytes32 operationId) {
        bytes4 selector = call.length < 4 ? bytes4(0) : bytes4(call[:4]);
        if (!_isTimelockedSetter(selector)) revert TimelockOperationNotAllowed(selector);
        operationId = hashOperation(call, salt);
        if (_operations[operationId].readyAt != 0) revert TimelockOperationAlreadyScheduled(operationId);
        uint64 readyAt = uint64(block.timestamp) + _timelockDelay;
        uint64 expiresAt = readyAt + EXECUTION_WINDOW;
        _operations[operationId] = Operation({readyAt: readyAt, expiresAt: expiresAt, executed: false});
        emit OperationScheduled(operationId, call, salt, readyAt, expiresAt);
    }

    /// @inheritdoc IAdminTimelock
    function execute(bytes calldata call, bytes32 salt) external onlyAdmin {
        bytes32 operationId = hashOperation(call, salt);
        Operation storage operation = _operations[operationId];
        Operation memory scheduled = operation;
        if (scheduled.readyAt == 0) revert TimelockOperationUnknown(operationId);
        if (scheduled.executed) revert TimelockOperationAlreadyExecuted(operationId);
        if (block.timestamp < scheduled.readyAt) {
            revert TimelockOperationNotReady(operationId, scheduled.readyAt, block.timestamp);
        }
        if (block.timestamp > scheduled.expiresAt) {
            revert TimelockOperationExpired(operationId, scheduled.expiresAt, block.timestamp);
        }
        operation.executed = true;
        emit OperationExecuted(operationId);
        // The setters accept only calls from this contract (onlyTimelock); their errors pass through.
        (bool success, bytes memory returned) = address(this).call(call);
        if (!success) {
            assembly ("memory-safe") {
                revert(add(returned, 0x20), mload(returned))
            }
        }
    }

    /// @inheritdoc IAdminTimelock
    function cancel(bytes32 operationId) external onlyAdmin {
        Operation memory scheduled = _operations[operationId];
        if (scheduled.readyAt == 0) revert TimelockOperationUnknown(operationId);
        if (scheduled.executed) revert TimelockOperationAlreadyExecuted(operationId);
        delete _operations[operationId];
        emit OperationCancelled(operationId);
    }

    /// @inheritdoc IAdminTimelock
    function hashOperation(bytes calldata call, bytes32 salt) public pure returns (bytes32) {
        return keccak256(abi.encode(call, salt));
    }

    /// @inheritdoc IAdminTimelock
    function operationOf(bytes32 operationId) external view returns (Operation memory) {
        return _operations[operationId];
    }

    /// @inheritdoc IAdminTimelock
    function timelockDelay() external view returns (uint64) {
        return _timelockDelay;
    }

    // ---------------------------------------------------------------- roles

    /// @inheritdoc IAdminTimelock
    function admin() external view returns (address) {
        return _admin;
    }

    /// @inheritdoc IAdminTimelock
    function guardian() external view returns (address) {
        return _guardian;
    }

    /// @inheritdoc IAdminTimelock
    function setGuardian(address newGuardian) external onlyTimelock {
        _setGuardian(newGuardian);
    }

    /// @inheritdoc IAdminTimelock
    function setAdmin(address newAdmin) external onlyTimelock {
        _setAdmin(newAdmin);
    }

    // ---------------------------------------------------------------- for the inheriting contract

    /// @dev Whether `selector` names a setter `schedule` accepts. An override adds the contract's
    /// own setters and ends with `super._isTimelockedSetter(selector)`.
    function _isTimelockedSetter(bytes4 selector) internal pure virtual returns (bool) {
        return selector == this.setGuardian.selector || selector == this.setAdmin.selector;
    }

    /// @dev The pause flag, kept by the inheriting contract next to what its hot paths read.
    function _paused() internal view virtual returns (bool);

    /// @dev Sets the pause flag (called only when it changes).
    function _setPaused(bool newPaused) internal virtual;

    // ---------------------------------------------------------------- internals

    function _setGuardian(address newGuardian) private {
        if (newGuardian == address(0)) revert InvalidGuardian(newGuardian);
        _guardian = newGuardian;
        emit GuardianChanged(newGuardian);
    }

    function _setAdmin(address newAdmin) private {
        if (newAdmin == address(0)) revert InvalidAdmin(newAdmin);
        _admin = newAdmin;
        emit AdminChanged(newAdmin);
    }

    function _checkAdmin() private view {
        if (msg.sender != _admin) revert NotAdmin(msg.sender);
    }

    function _checkGuardian() private view {
        if (msg.sender != _guardian) revert NotGuardian(msg.sender);
    }

    function _checkTimelock() private view {
        if (msg.sender != address(this)) revert TimelockOnlySelf(msg.sender);
    }
}
