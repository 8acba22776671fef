// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IAdminTimelock
/// @notice The administration DogeAttestation, DogeInscriber and DogeAnchor share: an admin, a
/// guardian, a pause switch and a timelock through which every configuration change goes.
///
/// Timelock. A contract's setters (its own, plus `setGuardian` and `setAdmin`) accept only calls
/// from the contract itself. The admin `schedule`s the ABI-encoded setter call with a salt; the
/// operation becomes executable at `readyAt` = schedule time + `timelockDelay()` (fixed at
/// deployment, at least `MIN_TIMELOCK_DELAY()`, 1 hour) and stays executable until `expiresAt` =
/// `readyAt` + `EXECUTION_WINDOW()` (14 days), both inclusive. The admin `execute`s it once in that
/// window (the contract then calls itself, so the setter's own errors pass through) or `cancel`s it
/// before. Only the contract's timelocked setters can be scheduled.
///
/// Pause. The guardian pauses at once; the admin unpauses. What a pause stops is the contract's
/// own business (its interface says which calls); reads and the timelock keep working.
interface IAdminTimelock {
    // ---------------------------------------------------------------- types

    /// @notice A scheduled admin call. `readyAt` is 0 for an operation never scheduled (or cancelled).
    /// @param readyAt Block time from which `execute` accepts it.
    /// @param expiresAt Last block time at which `execute` accepts it (`readyAt` + `EXECUTION_WINDOW()`).
    /// @param executed Whether it ran (an executed operation cannot be scheduled again with the same salt).
    struct Operation {
        uint64 readyAt;
        uint64 expiresAt;
        bool executed;
    }

    // ---------------------------------------------------------------- events

    /// @notice The guardian changed.
    event GuardianChanged(address indexed guardian);

    /// @notice The admin changed.
    event AdminChanged(address indexed admin);

    /// @notice The guardian paused the contract.
    event Paused(address indexed guardian);

    /// @notice The admin unpaused the contract.
    event Unpaused(address indexed admin);

    /// @notice An admin call was scheduled; it is executable from `readyAt` to `expiresAt`.
    event OperationScheduled(bytes32 indexed operationId, bytes call, bytes32 salt, uint64 readyAt, uint64 expiresAt);

    /// @notice A scheduled admin call was executed.
    event OperationExecuted(bytes32 indexed operationId);

    /// @notice A scheduled admin call was cancelled before execution.
    event OperationCancelled(bytes32 indexed operationId);

    // ---------------------------------------------------------------- errors

    /// @notice Only the admin may do this.
    error NotAdmin(address caller);

    /// @notice Only the guardian may do this.
    error NotGuardian(address caller);

    /// @notice Only an executed timelock operation (the contract calling itself) may do this.
    error TimelockOnlySelf(address caller);

    /// @notice `pause`/`unpause` would not change the state (`paused` is the current state).
    error PauseUnchanged(bool paused);

    /// @notice The admin cannot be the zero address.
    error InvalidAdmin(address admin);

    /// @notice The guardian cannot be the zero address.
    error InvalidGuardian(address guardian);

    /// @notice The timelock delay must be at least `min` seconds (constructor).
    error TimelockInvalidDelay(uint64 delaySeconds, uint64 min);

    /// @notice Only the contract's timelocked setters can be scheduled (`selector` is 0 for a call
    /// shorter than 4 bytes).
    error TimelockOperationNotAllowed(bytes4 selector);

    /// @notice The operation (same call and salt) is already scheduled or was executed.
    error TimelockOperationAlreadyScheduled(bytes32 operationId);

    /// @notice No such operation is scheduled (never, or it was cancelled).
    error TimelockOperationUnknown(bytes32 operationId);

    /// @notice The operation becomes executable only at `readyAt`.
    error TimelockOperationNotReady(bytes32 operationId, uint64 readyAt, uint256 timestamp);

    /// @notice The operation expired at `expiresAt` without being executed.
    error TimelockOperationExpired(bytes32 operationId, uint64 expiresAt, uint256 timestamp);

    /// @notice The operation was executed already.
    error TimelockOperationAlreadyExecuted(bytes32 operationId);

    // ---------------------------------------------------------------- constants

    /// @notice Seconds an operation stays executable after it became ready (14 days).
    function EXECUTION_WINDOW() external view returns (uint64);

    /// @notice The shortest timelock delay a deployment may choose (1 hour).
    function MIN_TIMELOCK_DELAY() external view returns (uint64);

    // ---------------------------------------------------------------- pause

    /// @notice Pauses at once (guardian only). Emits `Paused`.
    /// @dev Reverts with `NotGuardian` or `PauseUnchanged(true)`.
    function pause() external;

    /// @notice Unpauses (admin only). Emits `Unpaused`.
    /// @dev Reverts with `NotAdmin` or `PauseUnchanged(false)`.
    function unpause() external;

    /// @notice Whether the contract is paused.
    function paused() external view returns (bool);

    // ---------------------------------------------------------------- timelock

    /// @notice Schedules `call` (an ABI-encoded call of one of this contract's timelocked
    /// setters), executable from now + `timelockDelay()` for `EXECUTION_WINDOW()` seconds. Admin
    /// only. Emits `OperationScheduled`.
    /// @dev Reverts with `NotAdmin`, `TimelockOperationNotAllowed` or `TimelockOperationAlreadyScheduled`.
    /// @param call The setter call.
    /// @param salt Any value; lets the same call be scheduled again after it ran.
    /// @return operationId `hashOperation(call, salt)`.
    function schedule(bytes calldata call, bytes32 salt) external returns (bytes32 operationId);

    /// @notice Runs a scheduled call once it is ready and before it expires (admin only). Emits
    /// `OperationExecuted`, plus the setter's event; the setter's own errors are passed through.
    /// @dev Reverts with `NotAdmin`, `TimelockOperationUnknown`, `TimelockOperationAlreadyExecuted`,
    /// `TimelockOperationNotReady` or `TimelockOperationExpired`.
    function execute(bytes calldata call, bytes32 salt) external;

    /// @notice Drops a scheduled, not yet executed operation (admin only). Emits `OperationCancelled`.
    /// @dev Reverts with `NotAdmin`, `TimelockOperationUnknown` or `TimelockOperationAlreadyExecuted`.
    function cancel(bytes32 operationId) external;

    /// @notice The id of an operation: keccak256(abi.encode(call, salt)).
    function hashOperation(bytes calldata call, bytes32 salt) external pure returns (bytes32);

    /// @notice The scheduling state of an operation.
    function operationOf(bytes32 operationId) external view returns (Operation memory);

    /// @notice Seconds between scheduling and execution (fixed at deployment).
    function timelockDelay() external view returns (uint64);

    // ---------------------------------------------------------------- roles

    /// @notice Who schedules, executes and cancels operations and unpauses.
    function admin() external view returns (address);

    /// @notice Who may pause.
    function guardian() external view returns (address);

    /// @notice Sets the guardian (timelock only). Emits `GuardianChanged`.
    /// @dev Reverts with `TimelockOnlySelf` or `InvalidGuardian`.
    function setGuardian(address newGuardian) external;

    /// @notice Sets the admin (timelock only). Emits `AdminChanged`.
    /// @dev Reverts with `TimelockOnlySelf` or `InvalidAdmin`.
    function setAdmin(address newAdmin) external;
}
