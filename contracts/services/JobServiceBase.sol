// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";
import {IJobService} from "./IJobService.sol";
import {AdminTimelock} from "../governance/AdminTimelock.sol";

/// @title JobServiceBase
/// @notice Escrow, settlement by signed receipt, refunds, payouts and the timelocked setters that
/// DogeInscriber and DogeAnchor share (the timelock, roles and pause are `AdminTimelock`'s). The
/// specification is `IJobService`; a service adds its request function, validates its inputs,
/// computes the job's result hash and calls `_openJob`.
/// @dev AdminTimelock comes after ReentrancyGuard so that the guard's status keeps storage slot 0
/// (addressed with PUSH0 on every refund and withdrawal).
abstract contract JobServiceBase is IJobService, ReentrancyGuard, AdminTimelock {
    /// @inheritdoc IJobService
    uint256 public constant CONFIRMATIONS = 6;
    /// @inheritdoc IJobService
    uint256 public constant MIN_FEE = 1;
    /// @inheritdoc IJobService
    uint256 public constant MAX_FEE = 1_000 ether;
    /// @inheritdoc IJobService
    uint64 public constant DEFAULT_DEADLINE_WINDOW = 1 days;
    /// @inheritdoc IJobService
    uint64 public constant MIN_DEADLINE_WINDOW = 1 hours;
    /// @inheritdoc IJobService
    uint64 public constant MAX_DEADLINE_WINDOW = 7 days;

    /// @dev What every request reads and writes, in one slot.
    struct HotState {
        uint96 feeWei;
        uint64 jobCount;
        uint32 deadlineWindow;
        bool paused;
    }

    /// @dev The operator and the fees credited to it since it last withdrew, in one slot that a
    /// settlement updates without opening a fresh one (as DogeAttestation's treasury). The
    /// operator's withdrawable balance is `accruedWei` plus its mapping entry.
    struct OperatorAccount {
        address account;
        uint96 accruedWei;
    }

    uint256 private constant _STATUS_OFFSET = 104; // bits: sequence (64) + deadline (40)
    uint256 private constant _L1_HEIGHT_OFFSET = 112; // bits: + status (8)
    uint256 private constant _L1_TIP_AT_REQUEST_OFFSET = 176; // bits: + l1Height (64)

    IDogeAttestation private immutable _attestation;

    HotState private _hot;
    OperatorAccount private _operator;
    mapping(bytes32 jobId => Job) private _jobs;
    mapping(bytes32 l1Txid => bytes32 jobId) private _settledJobOf;
    mapping(address account => uint256 amountWei) private _withdrawableOf;

    /// @param attestationContract DogeAttestation: checks receipts and supplies the base-chain tip.
    /// @param initialAdmin Schedules and executes changes, unpauses.
    /// @param initialGuardian Pauses.
    /// @param initialOperator Credited with the fees of settled jobs.
    /// @param timelockDelaySeconds Delay between scheduling and execution, at least `MIN_TIMELOCK_DELAY`.
    /// @param initialFeeWei The fee per job, within [`MIN_FEE`, `MAX_FEE`].
    constructor(
        IDogeAttestation attestationContract,
        address initialAdmin,
        address initialGuardian,
        address initialOperator,
        uint64 timelockDelaySeconds,
        uint256 initialFeeWei
    ) AdminTimelock(initialAdmin, initialGuardian, timelockDelaySeconds) {
        if (address(attestationContract).code.length == 0) revert JobInvalidAttestation(address(attestationContract));
        _attestation = attestationContract;
        _setOperator(initialOperator);
        _setFee(initialFeeWei);
        _setDeadlineWindow(DEFAULT_DEADLINE_WINDOW);
    }

    // ---------------------------------------------------------------- jobs

    /// @inheritdoc IJobService
    function settle(bytes32 jobId, IDogeAttestation.Receipt calldata receipt, bytes[] calldata signatures) external {
        if (_hot.paused) revert JobPaused();
        if (receipt.jobContract != address(this)) revert JobReceiptForOtherContract(jobId, receipt.jobContract);
        if (receipt.jobId != jobId) revert JobReceiptForOtherJob(jobId, receipt.jobId);
        Job storage job = _jobs[jobId];
        // Slot 1 read once: sequence, deadline, status, l1Height, l1TipAtRequest (see Job).
        uint256 terms;
        assembly ("memory-safe") {
            terms := sload(add(job.slot, 1))
        }
        JobStatus status = JobStatus(uint8(terms >> _STATUS_OFFSET));
        if (status != JobStatus.Open) revert JobNotOpen(jobId, status);
        // The id commits to the result hash: a receipt for another result gives another id.
        if (_jobIdOf(uint64(terms), receipt.resultHash) != jobId)
            revert JobResultHashMismatch(jobId, receipt.resultHash);
        uint64 l1Height = receipt.l1Height;
        bytes32 l1Txid = receipt.l1Txid;
        _checkMadeForJob(jobId, l1Height, uint64(terms >> _L1_TIP_AT_REQUEST_OFFSET), l1Txid);
        // Both calls are views (STATICCALL) on the immutable attestation contract: no re-entry.
        uint64 tip = _attestation.l1Tip();
        // tip >= l1Height + CONFIRMATIONS - 1, in 256 bits so that no height overflows.
        if (uint256(tip) + 1 < uint256(l1Height) + CONFIRMATIONS) {
            revert JobNotConfirmed(jobId, l1Height, tip, CONFIRMATIONS);
        }
        _attestation.verifyReceipt(receipt, signatures);

        // Slot 1 in one SSTORE: Open becomes Settled and l1Height is filled in (it was 0); the
        // sequence, deadline and l1TipAtRequest stay.
        terms +=
            ((uint256(uint8(JobStatus.Settled)) - uint256(uint8(JobStatus.Open))) << _STATUS_OFFSET) |
            (uint256(l1Height) << _L1_HEIGHT_OFFSET);
        assembly ("memory-safe") {
            sstore(add(job.slot, 1), terms)
            sstore(add(job.slot, 2), l1Txid)
        }
        _settledJobOf[l1Txid] = jobId;
        uint256 feeWei = job.feeWei;
        OperatorAccount memory operatorAccount = _operator;
        // Checked: reverts only if over 79 billion DOGE of fees went unwithdrawn.
        _operator.accruedWei = operatorAccount.accruedWei + uint96(feeWei);
        emit JobSettled(jobId, operatorAccount.account, l1Txid, l1Height, feeWei);
    }

    /// @inheritdoc IJobService
    function refund(bytes32 jobId) external nonReentrant {
        Job storage job = _jobs[jobId];
        JobStatus status = job.status;
        if (status != JobStatus.Open) revert JobNotOpen(jobId, status);
        address requester = job.requester;
        if (msg.sender != requester) revert JobNotRequester(jobId, msg.sender, requester);
        uint40 deadline = job.deadline;
        if (block.timestamp <= deadline) revert JobNotExpired(jobId, deadline, block.timestamp);
        uint256 feeWei = job.feeWei;
        job.status = JobStatus.Refunded;
        emit JobRefunded(jobId, requester, feeWei);
        _send(requester, feeWei);
    }

    /// @inheritdoc IJobService
    function withdraw() external nonReentrant {
        uint256 creditedWei = _withdrawableOf[msg.sender];
        OperatorAccount memory operatorAccount = _operator;
        uint256 accruedWei = msg.sender == operatorAccount.account ? operatorAccount.accruedWei : 0;
        uint256 amountWei = creditedWei + accruedWei;
        if (amountWei == 0) revert JobNothingToWithdraw(msg.sender);
        if (creditedWei != 0) _withdrawableOf[msg.sender] = 0;
        if (accruedWei != 0) _operator.accruedWei = 0;
        emit PayoutWithdrawn(msg.sender, amountWei);
        _send(msg.sender, amountWei);
    }

    /// @inheritdoc IJobService
    function jobOf(bytes32 jobId) external view returns (Job memory) {
        return _jobs[jobId];
    }

    /// @inheritdoc IJobService
    function settledJobOf(bytes32 l1Txid) external view returns (bytes32 jobId) {
        return _settledJobOf[l1Txid];
    }

    /// @inheritdoc IJobService
    function jobIdOf(uint64 sequence, bytes32 resultHash) external view returns (bytes32) {
        return _jobIdOf(sequence, resultHash);
    }

    /// @inheritdoc IJobService
    function jobCount() external view returns (uint64) {
        return _hot.jobCount;
    }

    /// @inheritdoc IJobService
    function fee() external view returns (uint256 feeWei) {
        return _hot.feeWei;
    }

    /// @inheritdoc IJobService
    function deadlineWindow() external view returns (uint64 windowSeconds) {
        return _hot.deadlineWindow;
    }

    /// @inheritdoc IJobService
    function withdrawableOf(address account) external view returns (uint256 amountWei) {
        OperatorAccount memory operatorAccount = _operator;
        amountWei = _withdrawableOf[account];
        if (account == operatorAccount.account) amountWei += operatorAccount.accruedWei;
    }

    /// @inheritdoc IJobService
    function attestation() external view returns (IDogeAttestation) {
        return _attestation;
    }

    /// @inheritdoc IJobService
    function operator() external view returns (address) {
        return _operator.account;
    }

    // ---------------------------------------------------------------- timelocked setters
    // schedule / execute / cancel, the roles and the pause are AdminTimelock's.

    /// @inheritdoc IJobService
    function setFee(uint256 feeWei) external onlyTimelock {
        _setFee(feeWei);
    }

    /// @inheritdoc IJobService
    function setDeadlineWindow(uint64 windowSeconds) external onlyTimelock {
        _setDeadlineWindow(windowSeconds);
    }

    /// @inheritdoc IJobService
    function setOperator(address newOperator) external onlyTimelock {
        _setOperator(newOperator);
    }

    // ---------------------------------------------------------------- for the services

    /// @dev Opens a job for `resultHash`: refuses while paused or without exactly the fee, numbers
    /// the job, records the attested base-chain tip, stores it (two fresh slots) and returns what
    /// the service's event reports.
    function _openJob(bytes32 resultHash) internal returns (bytes32 jobId, uint256 feeWei, uint64 deadline) {
        HotState memory hot = _hot;
        if (hot.paused) revert JobPaused();
        feeWei = hot.feeWei;
        if (msg.value != feeWei) revert JobWrongFee(msg.value, feeWei);
        uint64 sequence = hot.jobCount + 1;
        _hot.jobCount = sequence;
        jobId = _jobIdOf(sequence, resultHash);
        // Fits 40 bits until the year 36812: the window is at most 7 days.
        deadline = uint64(block.timestamp) + hot.deadlineWindow;
        // A view call (STATICCALL) on the immutable attestation contract: no re-entry.
        uint64 l1TipAtRequest = _attestation.l1Tip();
        // Two SSTOREs laid out as Job declares its members (low-order bits first) instead of a
        // read-modify-write per member. feeWei fits 96 bits: MAX_FEE is far below 2^96.
        uint256 requesterAndFee = uint256(uint160(msg.sender)) | (feeWei << 160);
        uint256 terms =
            uint256(sequence) |
                (uint256(deadline) << 64) |
                (uint256(uint8(JobStatus.Open)) << _STATUS_OFFSET) |
                (uint256(l1TipAtRequest) << _L1_TIP_AT_REQUEST_OFFSET);
        Job storage job = _jobs[jobId];
        assembly ("memory-safe") {
            sstore(job.slot, requesterAndFee)
            sstore(add(job.slot, 1), terms)
        }
    }

    // ---------------------------------------------------------------- internals

    /// @dev Refuses a transaction that was not made for this job: one in a block the attesters had
    /// already reported when the job was requested (an OP_RETURN or inscription of the same content
    /// that already existed), or one that settled another job (two jobs of one result hash would
    /// otherwise both be settled by it).
    function _checkMadeForJob(bytes32 jobId, uint64 l1Height, uint64 l1TipAtRequest, bytes32 l1Txid) private view {
        if (l1Height <= l1TipAtRequest) revert JobL1TxNotAfterRequest(jobId, l1Height, l1TipAtRequest);
        bytes32 settledJobId = _settledJobOf[l1Txid];
        if (settledJobId != bytes32(0)) revert JobL1TxidAlreadySettled(jobId, l1Txid, settledJobId);
    }

    function _jobIdOf(uint64 sequence, bytes32 resultHash) private view returns (bytes32) {
        return keccak256(abi.encode(address(this), block.chainid, sequence, resultHash));
    }

    function _send(address to, uint256 amountWei) private {
        (bool success, ) = to.call{value: amountWei}("");
        if (!success) revert JobPayoutFailed(to, amountWei);
    }

    function _isTimelockedSetter(bytes4 selector) internal pure override returns (bool) {
        return
            selector == this.setFee.selector ||
            selector == this.setDeadlineWindow.selector ||
            selector == this.setOperator.selector ||
            super._isTimelockedSetter(selector);
    }

    /// @dev The flag stays in `_hot`: requests read it with the fee and the job counter.
    function _paused() internal view override returns (bool) {
        return _hot.paused;
    }

    function _setPaused(bool newPaused) internal override {
        _hot.paused = newPaused;
    }

    function _setFee(uint256 feeWei) private {
        if (feeWei < MIN_FEE || feeWei > MAX_FEE) revert JobFeeOutOfRange(feeWei, MIN_FEE, MAX_FEE);
        _hot.feeWei = uint96(feeWei);
        emit FeeChanged(feeWei);
    }

    function _setDeadlineWindow(uint64 windowSeconds) private {
        if (windowSeconds < MIN_DEADLINE_WINDOW || windowSeconds > MAX_DEADLINE_WINDOW) {
            revert JobInvalidDeadlineWindow(windowSeconds, MIN_DEADLINE_WINDOW, MAX_DEADLINE_WINDOW);
        }
        // Fits: the maximum (7 days) is far below 2^32 seconds.
        _hot.deadlineWindow = uint32(windowSeconds);
        emit DeadlineWindowChanged(windowSeconds);
    }

    function _setOperator(address newOperator) private {
        if (newOperator == address(0)) revert JobInvalidOperator(newOperator);
        OperatorAccount memory previous = _operator;
        // What the previous operator accrued stays its own, withdrawable from the mapping.
        if (previous.accruedWei != 0) _withdrawableOf[previous.account] += previous.accruedWei;
        _operator = OperatorAccount({account: newOperator, accruedWei: 0});
        emit OperatorChanged(newOperator);
    }
}
