// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IDogeAttestation} from "../attestation/IDogeAttestation.sol";
import {IAdminTimelock} from "../governance/IAdminTimelock.sol";

/// @title IJobService
/// @notice What DogeInscriber and DogeAnchor share: paid base-chain jobs, settled by a receipt that
/// 2 of 3 attesters signed, refundable after their deadline.
///
/// Lifecycle. A request (`requestInscription` / `requestAnchor`, in the service's own interface)
/// escrows exactly `fee()`, records the attested base-chain tip (`attestation.l1Tip()`, a view
/// call) as the job's `l1TipAtRequest`, and opens a job with id
/// `jobIdOf(sequence, resultHash) = keccak256(abi.encode(address(this), block.chainid, sequence, resultHash))`,
/// where `sequence` counts this contract's jobs from 1 and `resultHash` is what the finished job
/// must produce on the base chain (the inscription's envelopeHash, or SHA-256 of the OP_RETURN
/// payload). The id commits to the result hash, so the contract does not store it: `settle`
/// recomputes the id from the stored sequence and the receipt's result hash. The request's event
/// carries everything a relayer needs (the payload is only in the event, never in storage).
///
/// Settlement. Anyone may relay `settle(jobId, receipt, signatures)`. It is accepted when the
/// service is not paused, `receipt.jobContract` is this contract, `receipt.jobId` is `jobId`, the
/// job is Open, `receipt.resultHash` is the job's result hash, the base-chain transaction was mined
/// after the job was requested (`receipt.l1Height > job.l1TipAtRequest`, see below), no job of this
/// contract was settled with the same txid before, the transaction is `CONFIRMATIONS` (6) deep by
/// the attested tip (`attestation.l1Tip() >= receipt.l1Height + 5`), and
/// `attestation.verifyReceipt(receipt, signatures)` accepts the signatures (2 of 3 attesters of the
/// current set; it reverts while the attestation contract is paused). The fee is then credited to
/// the operator's withdrawable balance, the txid and height are stored, and the txid is recorded as
/// spent (`settledJobOf`). A job past its deadline can still be settled while nobody has refunded
/// it: the base-chain work is done.
///
/// One job per transaction, and only a transaction made for the job. The result hash alone does not
/// tie a transaction to one job: two requests of the same payload (or the same inscription) have the
/// same result hash, and a payload may already be on the base chain before anyone asks for it. So
/// a base-chain txid settles at most one job of this contract (`JobL1TxidAlreadySettled` names the
/// job it settled), and a request records `attestation.l1Tip()` as `l1TipAtRequest`: the settling
/// transaction must be in a block above it (`JobL1TxNotAfterRequest`). The bound is only as tight as
/// the attested tip is fresh: a block mined after the last attested tip but before the request is
/// above `l1TipAtRequest` too (the relayer keeps the tip moving with L1_TIP facts). The txid book is
/// per contract: an inscription reveal that also carries an OP_RETURN could settle one inscriber job
/// and one anchor job, each of which it does complete.
///
/// Refunds. After the deadline, the requester (only) takes the whole fee back with `refund`, as
/// long as the job is still Open; refunds work while paused. A job is settled or refunded at most
/// once, whichever comes first.
///
/// Money. Nothing is sent during `settle`; the operator (and a former operator) withdraws with
/// `withdraw`. The contract's balance equals the fees of Open jobs plus the unpaid balances (ether
/// forced in by SELFDESTRUCT aside: there is no receive function). No admin path moves escrowed
/// fees or balances.
///
/// Administration (`IAdminTimelock`, shared with DogeAttestation). The fee, the deadline window,
/// the operator, the guardian and the admin are changed by calls that the admin `schedule`s and
/// `execute`s after `timelockDelay()`, within `EXECUTION_WINDOW()` (14 days) after they became
/// executable, at most once: the timelocked setters are `setFee`, `setDeadlineWindow`,
/// `setOperator`, `setGuardian` and `setAdmin`. The guardian pauses at once; the admin unpauses.
/// While paused, requests and `settle` are refused; refunds, withdrawals, reads and the timelock
/// keep working.
interface IJobService is IAdminTimelock {
    // ---------------------------------------------------------------- types

    /// @notice Where a job stands. `None` means no such job.
    enum JobStatus {
        None,
        Open,
        Settled,
        Refunded
    }

    /// @notice A job as stored (three slots; the third is written on settlement).
    /// @param requester Who paid, and who may take the fee back after the deadline.
    /// @param feeWei The escrowed fee (the fee at request time).
    /// @param sequence The job's number in this contract (from 1); with the result hash it gives the id.
    /// @param deadline Block time after which `refund` is accepted (while the job is Open).
    /// @param status Open, Settled or Refunded.
    /// @param l1Height The base-chain height of the settling transaction's block (0 until settled).
    /// @param l1TipAtRequest `attestation.l1Tip()` when the job was requested: the settling
    /// transaction's block must be above it.
    /// @param l1Txid The settling base-chain txid in display byte order (0 until settled).
    struct Job {
        address requester;
        uint96 feeWei;
        uint64 sequence;
        uint40 deadline;
        JobStatus status;
        uint64 l1Height;
        uint64 l1TipAtRequest;
        bytes32 l1Txid;
    }

    // ---------------------------------------------------------------- events

    /// @notice A job was settled by a signed receipt; its fee was credited to `operator`.
    event JobSettled(bytes32 indexed jobId, address indexed operator, bytes32 l1Txid, uint64 l1Height, uint256 feeWei);

    /// @notice An expired, unsettled job's fee went back to its requester.
    event JobRefunded(bytes32 indexed jobId, address indexed requester, uint256 feeWei);

    /// @notice An account withdrew its credited balance.
    event PayoutWithdrawn(address indexed account, uint256 amountWei);

    /// @notice The fee per job changed (applies to later requests).
    event FeeChanged(uint256 feeWei);

    /// @notice The time a job stays open before it becomes refundable changed (applies to later requests).
    event DeadlineWindowChanged(uint64 windowSeconds);

    /// @notice The operator credited with the fees of settled jobs changed (for later settlements).
    event OperatorChanged(address indexed operator);

    // ---------------------------------------------------------------- errors

    /// @notice Requests and settlements are paused.
    error JobPaused();

    /// @notice A request must send exactly the fee.
    error JobWrongFee(uint256 sentWei, uint256 requiredWei);

    /// @notice The job is not open (`status`: 0 unknown, 2 settled, 3 refunded).
    error JobNotOpen(bytes32 jobId, JobStatus status);

    /// @notice The receipt is for a job of another contract (`jobContract`), e.g. an inscriber
    /// receipt presented to the anchor.
    error JobReceiptForOtherContract(bytes32 jobId, address jobContract);

    /// @notice The receipt is for job `receiptJobId`, not `jobId`.
    error JobReceiptForOtherJob(bytes32 jobId, bytes32 receiptJobId);

    /// @notice The receipt's result hash is not the one the job was requested with (the job id,
    /// recomputed from the job's sequence and `resultHash`, does not match).
    error JobResultHashMismatch(bytes32 jobId, bytes32 resultHash);

    /// @notice The receipt's transaction is in a block at or below the attested tip recorded when
    /// the job was requested (`l1TipAtRequest`): it was not made for this job.
    error JobL1TxNotAfterRequest(bytes32 jobId, uint64 l1Height, uint64 l1TipAtRequest);

    /// @notice Base-chain transaction `l1Txid` already settled job `settledJobId` of this contract;
    /// a transaction settles at most one job.
    error JobL1TxidAlreadySettled(bytes32 jobId, bytes32 l1Txid, bytes32 settledJobId);

    /// @notice The base-chain transaction is not `requiredConfirmations` deep by the attested tip:
    /// it needs `l1Tip >= l1Height + requiredConfirmations - 1`.
    error JobNotConfirmed(bytes32 jobId, uint64 l1Height, uint64 l1Tip, uint256 requiredConfirmations);

    /// @notice `refund` came before the job's deadline had passed.
    error JobNotExpired(bytes32 jobId, uint64 deadline, uint256 timestamp);

    /// @notice Only the requester may take the fee back.
    error JobNotRequester(bytes32 jobId, address caller, address requester);

    /// @notice The account has no balance to withdraw.
    error JobNothingToWithdraw(address account);

    /// @notice Sending `amountWei` to `to` failed (the receiver reverted).
    error JobPayoutFailed(address to, uint256 amountWei);

    /// @notice The attestation contract must be a deployed contract.
    error JobInvalidAttestation(address attestation);

    /// @notice The operator cannot be the zero address.
    error JobInvalidOperator(address operator);

    /// @notice The fee must lie within [min, max] wei.
    error JobFeeOutOfRange(uint256 feeWei, uint256 min, uint256 max);

    /// @notice The deadline window must lie within [min, max] seconds.
    error JobInvalidDeadlineWindow(uint64 windowSeconds, uint64 min, uint64 max);

    // ---------------------------------------------------------------- constants

    /// @notice Depth the settling base-chain transaction must have by the attested tip (6).
    function CONFIRMATIONS() external view returns (uint256);

    /// @notice The smallest fee (1 wei: jobs are never free).
    function MIN_FEE() external view returns (uint256);

    /// @notice The largest fee (1,000 DOGE in wei).
    function MAX_FEE() external view returns (uint256);

    /// @notice The deadline window at deployment (1 day).
    function DEFAULT_DEADLINE_WINDOW() external view returns (uint64);

    /// @notice Bounds of the deadline window (1 hour to 7 days).
    function MIN_DEADLINE_WINDOW() external view returns (uint64);

    /// @notice Upper bound of the deadline window (7 days).
    function MAX_DEADLINE_WINDOW() external view returns (uint64);

    // ---------------------------------------------------------------- jobs

    /// @notice Settles an open job with a receipt signed by 2 of 3 attesters (see the contract
    /// notice for every check), credits the fee to the operator, stores the txid and height and
    /// records the txid as spent. Emits `JobSettled`. Anyone may call it.
    /// @dev Reverts with `JobPaused`, `JobReceiptForOtherContract`, `JobReceiptForOtherJob`,
    /// `JobNotOpen`, `JobResultHashMismatch`, `JobL1TxNotAfterRequest`, `JobL1TxidAlreadySettled`,
    /// `JobNotConfirmed`, and the attestation contract's
    /// errors from `verifyReceipt` (`AttestationQuorumNotMet`, `AttestationInvalidSignature`,
    /// `AttestationSignersNotAscending`, `AttestationSignerNotAttester`,
    /// `AttestationWrongAttesterSet`, `AttestationPaused`), passed through unchanged.
    /// @param jobId The job to settle.
    /// @param receipt The receipt as the attesters signed it (EIP-712, DogeAttestation's domain).
    /// @param signatures 65-byte signatures over the receipt's digest, ordered by strictly increasing signer.
    function settle(bytes32 jobId, IDogeAttestation.Receipt calldata receipt, bytes[] calldata signatures) external;

    /// @notice Sends an expired, unsettled job's whole fee back to its requester (the caller).
    /// Works while paused. Emits `JobRefunded`.
    /// @dev Reverts with `JobNotOpen`, `JobNotRequester`, `JobNotExpired` or `JobPayoutFailed`.
    function refund(bytes32 jobId) external;

    /// @notice Sends the caller's whole `withdrawableOf` balance to the caller. Works while paused.
    /// Emits `PayoutWithdrawn`. Reverts with `JobNothingToWithdraw` or `JobPayoutFailed`.
    function withdraw() external;

    /// @notice The job as stored (status None and zeros for an unknown id).
    function jobOf(bytes32 jobId) external view returns (Job memory);

    /// @notice The job that base-chain transaction `l1Txid` (display byte order) settled, 0 if none.
    function settledJobOf(bytes32 l1Txid) external view returns (bytes32 jobId);

    /// @notice The id of job number `sequence` with result hash `resultHash` in this contract:
    /// keccak256(abi.encode(address(this), block.chainid, sequence, resultHash)).
    function jobIdOf(uint64 sequence, bytes32 resultHash) external view returns (bytes32);

    /// @notice How many jobs were requested (the last job's sequence).
    function jobCount() external view returns (uint64);

    /// @notice The fee in wei a new request must send.
    function fee() external view returns (uint256 feeWei);

    /// @notice Seconds from a request to its deadline.
    function deadlineWindow() external view returns (uint64 windowSeconds);

    /// @notice The balance `account` can withdraw: for the current operator, the fees of jobs
    /// settled since its last withdrawal; a former operator keeps what it accrued.
    function withdrawableOf(address account) external view returns (uint256 amountWei);

    /// @notice The DogeAttestation contract that checks receipts and supplies the base-chain tip.
    function attestation() external view returns (IDogeAttestation);

    /// @notice The account credited with the fees of settled jobs.
    function operator() external view returns (address);

    // ---------------------------------------------------------------- timelocked setters
    // Each accepts only a call from the contract itself (`TimelockOnlySelf` otherwise), made by
    // `execute` (IAdminTimelock); `setGuardian` and `setAdmin` are IAdminTimelock's.

    /// @notice Sets the fee per job, within [`MIN_FEE`, `MAX_FEE`] (timelock only). Emits `FeeChanged`.
    /// Open jobs keep the fee they escrowed.
    function setFee(uint256 feeWei) external;

    /// @notice Sets how long new jobs stay open before they become refundable, within
    /// [`MIN_DEADLINE_WINDOW`, `MAX_DEADLINE_WINDOW`] (timelock only). Emits `DeadlineWindowChanged`.
    function setDeadlineWindow(uint64 windowSeconds) external;

    /// @notice Sets the operator for later settlements; the former one keeps what it accrued
    /// (timelock only). Emits `OperatorChanged`.
    function setOperator(address newOperator) external;
}
