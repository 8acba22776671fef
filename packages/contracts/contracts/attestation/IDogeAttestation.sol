// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAdminTimelock} from "../governance/IAdminTimelock.sol";

/// @title IPlugCreatorRegistry
/// @notice What DogeAttestation asks a plugs marketplace: who created a listed plug. A registry
/// returns `address(0)` for a plug id it does not know or that is not listed (then the whole fee
/// of a request goes to the operator, as it does when the creator is the requester itself). Plug id 0 is reserved for "no plug": DogeAttestation never
/// asks about it, so a registry must not hand it out.
interface IPlugCreatorRegistry {
    /// @notice The creator of `plugId` while it is listed, `address(0)` otherwise.
    /// @param plugId The plug's id (never 0).
    /// @return creator The address credited with the creator's share of a request fee.
    function creatorOf(uint256 plugId) external view returns (address creator);
}

/// @title IDogeAttestation
/// @notice Facts about the Dogecoin chain (the base chain, L1) signed by at least 2 of 3
/// attesters with EIP-712 and stored on the L2, paid requests for fresh facts, and quorum checks
/// of job receipts for the inscriber and anchor contracts.
///
/// Signatures. A fact or receipt counts only when it carries at least `MIN_SIGNATURES` (2)
/// signatures over its EIP-712 digest (domain: name "DogeAttestation", version "1", this chain's
/// id, this contract), every one of them valid (OpenZeppelin ECDSA `tryRecover`: 65 bytes, low s,
/// v 27 or 28), from an attester of the current set, with the recovered addresses strictly
/// increasing (which makes them distinct), and signed for the current `attesterSetId`. The floor
/// of 2 is a constant: no admin path lowers it.
///
/// Facts. One `Fact` struct serves every fact type; a fact is stored per
/// `(factType, subject, qualifier)` and replaced only by a fact at a greater or equal `l1Height`
/// with a later `attestedAt`, so a stale fact never overwrites a newer one. Keys are
/// `keccak256(utf8(text))` of canonical strings (see `addressKey`, `tickKey`, `slugKey`,
/// `inscriptionKey`, `txKey`); fact type keys are `keccak256(utf8(name))` of DOGE_BALANCE,
/// DRC20_BALANCE, DRC20_TRANSFER_VALID, COLLECTION_COUNT, INSCRIPTION_OWNER, INSCRIPTION_VALID,
/// INSCRIPTION_ACTION, TX_INCLUDED and L1_TIP. What each type puts in its fields:
///
/// | factType             | subject            | qualifier   | value                          | data                   |
/// |----------------------|--------------------|-------------|--------------------------------|------------------------|
/// | DOGE_BALANCE         | addressKey         | 0           | confirmed balance in koinu     | 0                      |
/// | DRC20_BALANCE        | addressKey         | tickKey     | available + transferable       | 0                      |
/// | COLLECTION_COUNT     | addressKey         | slugKey     | member tokens held             | 0                      |
/// | INSCRIPTION_OWNER    | inscriptionKey     | 0           | 0                              | owner's addressKey     |
/// | INSCRIPTION_VALID    | inscriptionKey     | 0           | 1 valid, 0 not                 | envelopeHash           |
/// | INSCRIPTION_ACTION   | inscriptionKey     | 0           | 1 registered ACTION, 0 none    | actionKey or 0         |
/// | DRC20_TRANSFER_VALID | txKey (reveal txid)| 0           | amount if valid, 0 if not      | tickKey                |
/// | TX_INCLUDED          | txKey              | 0           | inclusion height, 0 if none    | block hash or 0        |
/// | L1_TIP               | 0                  | 0           | tip height                     | tip block hash         |
///
/// Every fact is computed at its explicit `l1Height`, counting outputs only when 6 deep. `l1Tip()`
/// is the greatest `l1Height` of any accepted fact (an L1_TIP fact is how attesters move it alone).
///
/// Requests. `requestFact` escrows exactly `requestFee(factType)`; `fulfill` with a matching
/// signed fact attested no earlier than the request credits 20% to the plug's creator (when a plug
/// id was given, the marketplace names its creator, and that creator is not the requester) and the
/// rest to the treasury, as balances withdrawn later with `withdraw`; after the deadline the
/// requester takes the whole fee back with `refund`. A request is fulfilled or refunded at most once.
/// Listing a plug is permissionless, so a requester naming a plug of its own would otherwise take
/// back a fifth of its own fee: the creator's share goes only to someone other than the requester.
///
/// Administration (`IAdminTimelock`, shared with the job services). Changes to the attester set,
/// fees, the deadline window, the treasury, the plugs marketplace, the guardian and the admin are
/// calls that the admin `schedule`s and `execute`s after `timelockDelay()`, within
/// `EXECUTION_WINDOW()` (14 days) after they became executable, at most once: the timelocked
/// setters are `setAttesters`, `setRequestFee`, `setRequestDeadlineWindow`, `setTreasury`,
/// `setPlugsMarketplace`, `setGuardian` and `setAdmin`. The guardian pauses at once; the admin
/// unpauses. While paused, fact submission, requests, fulfilment and signature checks
/// (`verifyFact`, `verifyReceipt`) stop; reads, refunds, withdrawals and the timelock keep working.
/// No admin path moves escrowed fees or balances.
interface IDogeAttestation is IAdminTimelock {
    // ---------------------------------------------------------------- types

    /// @notice A signed statement about the base chain. The EIP-712 type string (the same text as
    /// `FACT_TYPE_STRING` in src/facts/eip712.ts):
    /// `Fact(bytes32 factType,bytes32 subject,bytes32 qualifier,uint256 value,bytes32 data,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)`
    /// @param factType keccak256 of the fact type's name, e.g. keccak256("DOGE_BALANCE").
    /// @param subject What the fact is about (an address, inscription or transaction key).
    /// @param qualifier A second key (a tick or slug key), or 0.
    /// @param value Amounts, counts, booleans (1/0) and inclusion heights; stored values must fit
    /// in 128 bits.
    /// @param data Content hashes, owner keys, action keys and block hashes, or 0.
    /// @param l1Height The base-chain height the fact was computed at.
    /// @param attestedAt Unix time (seconds) the attesters signed at; a replacement needs a later one.
    /// @param attesterSetId The attester set the signatures are for; must be the current one.
    struct Fact {
        bytes32 factType;
        bytes32 subject;
        bytes32 qualifier;
        uint256 value;
        bytes32 data;
        uint64 l1Height;
        uint64 attestedAt;
        uint64 attesterSetId;
    }

    /// @notice A signed settlement of a base-chain job (inscription or OP_RETURN anchor). The
    /// EIP-712 type string (the same text as `RECEIPT_TYPE_STRING` in src/facts/eip712.ts):
    /// `Receipt(bytes32 jobId,address jobContract,bytes32 l1Txid,bytes32 resultHash,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)`
    /// @param jobId The job's id in `jobContract`.
    /// @param jobContract The contract that holds the job (DogeInscriber or DogeAnchor); binds the
    /// receipt to one contract so a receipt for one service's job never settles another's.
    /// @param l1Txid The base-chain txid in display byte order (bytes32(0x<txid hex>)).
    /// @param resultHash envelopeHash of the inscription, or SHA-256 of the OP_RETURN payload.
    /// @param l1Height The height of the block that includes the transaction (at least 6 deep).
    /// @param attestedAt Unix time (seconds) the attesters signed at.
    /// @param attesterSetId The attester set the signatures are for; must be the current one.
    struct Receipt {
        bytes32 jobId;
        address jobContract;
        bytes32 l1Txid;
        bytes32 resultHash;
        uint64 l1Height;
        uint64 attestedAt;
        uint64 attesterSetId;
    }

    /// @notice A stored fact as read back; `exists` is false (and every field 0) for a fact never
    /// attested, which tells it apart from an attested zero.
    struct FactRecord {
        bool exists;
        uint256 value;
        bytes32 data;
        uint64 l1Height;
        uint64 attestedAt;
    }

    /// @notice Where a request stands. `None` means no such request.
    enum RequestStatus {
        None,
        Open,
        Fulfilled,
        Refunded
    }

    /// @notice A paid request for a fresh fact, as stored (two storage slots).
    /// @param requester Who paid, and who may take the fee back after the deadline.
    /// @param feeWei The escrowed fee.
    /// @param plugId The plug whose creator gets 20% on fulfilment (unless the creator is the
    /// requester), 0 for none.
    /// @param sequence The request's number; the request id is
    /// keccak256(abi.encode(factType, subject, qualifier, sequence)).
    /// @param requestedAt Block time of the request; the answering fact's attestedAt must not be earlier.
    /// @param deadline Last block time at which `fulfill` is accepted; `refund` works after it.
    /// @param status Open, Fulfilled or Refunded.
    struct Request {
        address requester;
        uint96 feeWei;
        uint96 plugId;
        uint64 sequence;
        uint40 requestedAt;
        uint40 deadline;
        RequestStatus status;
    }

    // ---------------------------------------------------------------- events

    /// @notice A fact was stored (new, or replacing an older one).
    event FactStored(
        bytes32 indexed factType,
        bytes32 indexed subject,
        bytes32 indexed qualifier,
        uint256 value,
        bytes32 data,
        uint64 l1Height,
        uint64 attestedAt
    );

    /// @notice A fresh fact was requested and its fee escrowed; attesters answer with `fulfill`.
    event FactRequested(
        bytes32 indexed requestId,
        address indexed requester,
        bytes32 indexed factType,
        bytes32 subject,
        bytes32 qualifier,
        uint256 plugId,
        uint256 feeWei,
        uint64 deadline
    );

    /// @notice A request was answered; its fee was credited to the creator (`address(0)` and 0 when
    /// none, or when the plug's creator is the requester) and the treasury.
    event RequestFulfilled(
        bytes32 indexed requestId,
        address indexed creator,
        address indexed treasury,
        uint256 creatorShareWei,
        uint256 operatorShareWei
    );

    /// @notice An expired request's fee went back to its requester.
    event RequestRefunded(bytes32 indexed requestId, address indexed requester, uint256 feeWei);

    /// @notice An account withdrew its credited balance.
    event PayoutWithdrawn(address indexed account, uint256 amountWei);

    /// @notice The attester set was replaced; signatures now count only for `attesterSetId`.
    event AttesterSetChanged(uint64 indexed attesterSetId, address[3] attesters);

    /// @notice The fee for requests of `factType` changed (0 disables requests of that type).
    event RequestFeeChanged(bytes32 indexed factType, uint256 feeWei);

    /// @notice The time a request stays open for fulfilment changed (applies to new requests).
    event RequestDeadlineWindowChanged(uint64 windowSeconds);

    /// @notice The treasury that receives the operator's share changed (for later fulfilments).
    event TreasuryChanged(address indexed treasury);

    /// @notice The plugs marketplace asked for creators changed (`address(0)`: none).
    event PlugsMarketplaceChanged(address indexed marketplace);

    // ---------------------------------------------------------------- errors

    /// @notice Fewer than the required number of signatures (all of them valid) were given.
    error AttestationQuorumNotMet(uint256 valid, uint256 required);

    /// @notice Signature `index` does not recover: `reason` is OpenZeppelin's ECDSA.RecoverError
    /// (1 InvalidSignature, 2 InvalidSignatureLength with the length in `detail`, 3 InvalidSignatureS
    /// with the high s in `detail`).
    error AttestationInvalidSignature(uint256 index, uint8 reason, bytes32 detail);

    /// @notice Signature `index` recovers to `signer`, not above the previous signer (duplicate or unsorted).
    error AttestationSignersNotAscending(uint256 index, address signer, address previous);

    /// @notice Signature `index` recovers to `signer`, who is not an attester of the current set.
    error AttestationSignerNotAttester(uint256 index, address signer);

    /// @notice The fact or receipt was signed for another attester set than the current one.
    error AttestationWrongAttesterSet(uint64 attesterSetId, uint64 currentAttesterSetId);

    /// @notice The fact is not newer than the stored one: it needs `l1Height >= storedL1Height`
    /// and `attestedAt > storedAttestedAt` (a fact never stored counts as (0, 0), so attestedAt 0 is refused).
    error AttestationStaleFact(uint64 l1Height, uint64 attestedAt, uint64 storedL1Height, uint64 storedAttestedAt);

    /// @notice The fact claims to be attested more than `MAX_ATTESTED_AT_SKEW` after this block's time.
    error AttestationAttestedInFuture(uint64 attestedAt, uint256 latestAllowed);

    /// @notice The fact's value does not fit the 128 bits it is stored in.
    error AttestationValueTooLarge(uint256 value, uint256 max);

    /// @notice The contract is paused.
    error AttestationPaused();

    /// @notice Requests of this fact type are disabled (fee 0).
    error AttestationFactTypeNotRequestable(bytes32 factType);

    /// @notice `requestFact` must send exactly the fee.
    error AttestationWrongFee(uint256 sentWei, uint256 requiredWei);

    /// @notice Plug ids are stored in 96 bits.
    error AttestationPlugIdTooLarge(uint256 plugId, uint256 max);

    /// @notice The request is not open (`status`: 0 unknown, 2 fulfilled, 3 refunded).
    error AttestationRequestNotOpen(bytes32 requestId, RequestStatus status);

    /// @notice `fulfill` came after the request's deadline.
    error AttestationRequestExpired(bytes32 requestId, uint64 deadline, uint256 timestamp);

    /// @notice `refund` came before the request's deadline had passed.
    error AttestationRequestNotExpired(bytes32 requestId, uint64 deadline, uint256 timestamp);

    /// @notice The fact's (factType, subject, qualifier) is not what the request asked for.
    error AttestationFactDoesNotAnswerRequest(bytes32 requestId, bytes32 factType, bytes32 subject, bytes32 qualifier);

    /// @notice The fact was attested before the request was made, so it is not a fresh answer.
    error AttestationFactOlderThanRequest(bytes32 requestId, uint64 attestedAt, uint64 requestedAt);

    /// @notice Only the requester may take the fee back.
    error AttestationNotRequester(bytes32 requestId, address caller, address requester);

    /// @notice The account has no balance to withdraw.
    error AttestationNothingToWithdraw(address account);

    /// @notice Sending `amountWei` to `to` failed (the receiver reverted).
    error AttestationPayoutFailed(address to, uint256 amountWei);

    /// @notice Attester `index` of a new set is the zero address.
    error AttestationZeroAttester(uint256 index);

    /// @notice `attester` appears twice in a new set.
    error AttestationDuplicateAttester(address attester);

    /// @notice The treasury cannot be the zero address.
    error AttestationInvalidTreasury(address treasury);

    /// @notice Fees are stored in 96 bits.
    error AttestationFeeTooLarge(uint256 feeWei, uint256 max);

    /// @notice The deadline window must lie within [min, max] seconds.
    error AttestationInvalidDeadlineWindow(uint64 windowSeconds, uint64 min, uint64 max);

    // ---------------------------------------------------------------- constants

    /// @notice Signatures required from distinct attesters of the current set (2; not configurable).
    function MIN_SIGNATURES() external view returns (uint256);

    /// @notice Size of every attester set (3).
    function ATTESTER_COUNT() external view returns (uint256);

    /// @notice How far (seconds) a fact's `attestedAt` may lie ahead of the block's time (15 minutes).
    function MAX_ATTESTED_AT_SKEW() external view returns (uint64);

    /// @notice The plug creator's share of a fulfilled request's fee, in percent (20); never paid
    /// to the requester itself.
    function CREATOR_SHARE_PERCENT() external view returns (uint256);

    /// @notice keccak256 of the Fact type string (see `Fact`).
    function FACT_TYPEHASH() external view returns (bytes32);

    /// @notice keccak256 of the Receipt type string (see `Receipt`).
    function RECEIPT_TYPEHASH() external view returns (bytes32);

    // ---------------------------------------------------------------- facts

    /// @notice Verifies `fact` (quorum, current set, not from the future, value fits) and stores it
    /// if it is newer than the stored fact of the same (factType, subject, qualifier); raises
    /// `l1Tip()` to `fact.l1Height` when higher. Emits `FactStored`.
    /// @dev Reverts with `AttestationStaleFact` when the stored fact is not older, `AttestationPaused`
    /// while paused, and the signature errors of `verifyFact`.
    /// @param fact The fact, as signed.
    /// @param signatures 65-byte signatures over `factDigest(fact)`, ordered by strictly increasing signer.
    function submitFact(Fact calldata fact, bytes[] calldata signatures) external;

    /// @notice The stored fact of (factType, subject, qualifier); `exists` false if never attested.
    function factOf(
        bytes32 factType,
        bytes32 subject,
        bytes32 qualifier
    ) external view returns (FactRecord memory record);

    /// @notice The confirmed balance of a Dogecoin address (DOGE_BALANCE).
    /// @param dogeAddress The Base58Check address as text, e.g. "D...".
    /// @return koinu The balance in koinu (1 DOGE = 100,000,000 koinu).
    /// @return l1Height The height it was computed at; 0 if never attested.
    /// @return attestedAt When it was attested; 0 if never attested (which tells it from a zero balance).
    function dogeBalance(
        string calldata dogeAddress
    ) external view returns (uint256 koinu, uint64 l1Height, uint64 attestedAt);

    /// @notice The DRC-20 balance (available + transferable) of an address for a tick (DRC20_BALANCE).
    /// @param dogeAddress The Dogecoin address as text.
    /// @param tick The tick in any ASCII case (see `tickKey`).
    /// @return amount The balance in the tick's integer units.
    /// @return l1Height The height it was computed at; 0 if never attested.
    /// @return attestedAt When it was attested; 0 if never attested.
    function drc20Balance(
        string calldata dogeAddress,
        string calldata tick
    ) external view returns (uint256 amount, uint64 l1Height, uint64 attestedAt);

    /// @notice How many member tokens of a launchpad collection an address holds (COLLECTION_COUNT).
    /// @param dogeAddress The Dogecoin address as text.
    /// @param slug The collection's slug (its id, lower case).
    /// @return count The number of member tokens.
    /// @return l1Height The height it was computed at; 0 if never attested.
    /// @return attestedAt When it was attested; 0 if never attested.
    function collectionCount(
        string calldata dogeAddress,
        string calldata slug
    ) external view returns (uint256 count, uint64 l1Height, uint64 attestedAt);

    /// @notice Whether the attested owner of an inscription is `dogeAddress` (INSCRIPTION_OWNER).
    /// False also when the owner was never attested: `factOf` tells the two apart.
    /// @param inscriptionId `<txid>i<n>` (hex in any case; see `inscriptionKey`).
    /// @param dogeAddress The Dogecoin address as text.
    function isInscriptionOwner(
        string calldata inscriptionId,
        string calldata dogeAddress
    ) external view returns (bool);

    /// @notice Whether an inscription is valid, and its envelopeHash (INSCRIPTION_VALID).
    /// @param inscriptionId `<txid>i<n>`.
    /// @return ok True when attested valid.
    /// @return contentHash The inscription's envelopeHash (SHA-256 of its canonical v1 envelope).
    /// @return l1Height The height it was computed at; 0 if never attested.
    function inscriptionValid(
        string calldata inscriptionId
    ) external view returns (bool ok, bytes32 contentHash, uint64 l1Height);

    /// @notice Whether an inscription is attested valid with exactly this envelopeHash.
    /// @param inscriptionId `<txid>i<n>`.
    /// @param envelopeHash SHA-256 of the canonical v1 envelope (EnvelopeHelper.envelopeHash).
    function inscriptionMatches(string calldata inscriptionId, bytes32 envelopeHash) external view returns (bool);

    /// @notice Whether the DRC-20 transfer inscription revealed in `txid` is attested valid
    /// (DRC20_TRANSFER_VALID with a nonzero amount). False also when never attested.
    /// @param txid The reveal transaction's id, 64 hex digits in any case.
    function drc20TransferValid(string calldata txid) external view returns (bool);

    /// @notice Whether a transaction is attested included with at least `minConfirmations`,
    /// counted against `l1Tip()`: `l1Tip() - inclusionHeight + 1 >= minConfirmations`.
    /// False when never attested or attested not included.
    /// @param txid 64 hex digits in any case.
    /// @param minConfirmations Confirmations required (1 = in a block).
    function txConfirmed(string calldata txid, uint256 minConfirmations) external view returns (bool);

    /// @notice The greatest base-chain height of any accepted fact (0 before the first).
    function l1Tip() external view returns (uint64);

    /// @notice keccak256 of the address text, as given (Dogecoin addresses are case-sensitive).
    function addressKey(string calldata dogeAddress) external pure returns (bytes32);

    /// @notice keccak256 of the tick with ASCII letters lowered (A-Z only: other bytes unchanged).
    function tickKey(string calldata tick) external pure returns (bytes32);

    /// @notice keccak256 of the collection slug, as given (slugs are lower case by rule).
    function slugKey(string calldata slug) external pure returns (bytes32);

    /// @notice keccak256 of the inscription id with ASCII letters lowered (`<txid hex>i<n>`).
    function inscriptionKey(string calldata inscriptionId) external pure returns (bytes32);

    /// @notice keccak256 of the txid with ASCII letters lowered (64 hex digits, no 0x).
    function txKey(string calldata txid) external pure returns (bytes32);

    // ---------------------------------------------------------------- signatures

    /// @notice The EIP-712 digest attesters sign for `fact`.
    function factDigest(Fact calldata fact) external view returns (bytes32);

    /// @notice The EIP-712 digest attesters sign for `receipt`.
    function receiptDigest(Receipt calldata receipt) external view returns (bytes32);

    /// @notice Checks the quorum over `fact` without storing it; reverts with the signature errors
    /// (`AttestationQuorumNotMet`, `AttestationInvalidSignature`, `AttestationSignersNotAscending`,
    /// `AttestationSignerNotAttester`, `AttestationWrongAttesterSet`) or `AttestationPaused`.
    /// @return digest The verified digest.
    function verifyFact(Fact calldata fact, bytes[] calldata signatures) external view returns (bytes32 digest);

    /// @notice Checks the quorum over a job receipt for DogeInscriber or DogeAnchor; reverts as
    /// `verifyFact` does. The caller must still check `receipt.jobContract == address(this)`, the
    /// job id, the result hash and whatever else the job requires.
    /// @return digest The verified digest.
    function verifyReceipt(
        Receipt calldata receipt,
        bytes[] calldata signatures
    ) external view returns (bytes32 digest);

    /// @notice The current attester set and its id.
    function attesters() external view returns (address[3] memory currentAttesters, uint64 currentAttesterSetId);

    /// @notice The id of the current attester set (1 for the set given at deployment, +1 per change).
    function attesterSetId() external view returns (uint64);

    /// @notice Whether `account` is an attester of the current set.
    function isAttester(address account) external view returns (bool);

    // ---------------------------------------------------------------- paid requests

    /// @notice Asks the attesters for a fresh fact, escrowing exactly `requestFee(factTypeKey)`.
    /// Emits `FactRequested`. Reverts with `AttestationFactTypeNotRequestable`, `AttestationWrongFee`,
    /// `AttestationPlugIdTooLarge` or `AttestationPaused`.
    /// @param factTypeKey The fact type wanted.
    /// @param subjectKey The fact's subject: the `addressKey` for balances and counts (an
    /// inscription or tx key for the types keyed by those).
    /// @param qualifierKey The fact's qualifier: the `tickKey` for DRC-20 balances, the `slugKey`
    /// for collection counts, 0 otherwise.
    /// @param plugId The plug the request comes through (its creator gets 20%, unless it is the
    /// caller), or 0.
    /// @return requestId keccak256(abi.encode(factTypeKey, subjectKey, qualifierKey, sequence)).
    function requestFact(
        bytes32 factTypeKey,
        bytes32 subjectKey,
        bytes32 qualifierKey,
        uint256 plugId
    ) external payable returns (bytes32 requestId);

    /// @notice Answers an open request with a signed fact for the same (factType, subject,
    /// qualifier), attested no earlier than the request, no later than its deadline. Stores the
    /// fact if it is newer than the stored one (a newer stored fact does not block payment), then
    /// credits 20% of the fee to the plug's creator when the marketplace names one other than the
    /// requester, the rest (or, with no such creator, all of it) to the treasury. Emits
    /// `FactStored` (when stored) and `RequestFulfilled`.
    /// @dev Reverts with `AttestationRequestNotOpen`, `AttestationRequestExpired`,
    /// `AttestationFactDoesNotAnswerRequest`, `AttestationFactOlderThanRequest`,
    /// `AttestationPaused` and the signature errors.
    function fulfill(bytes32 requestId, Fact calldata fact, bytes[] calldata signatures) external;

    /// @notice Sends an expired, unfulfilled request's whole fee back to its requester (the caller).
    /// Works while paused. Emits `RequestRefunded`.
    /// @dev Reverts with `AttestationRequestNotOpen`, `AttestationNotRequester`,
    /// `AttestationRequestNotExpired` or `AttestationPayoutFailed`.
    function refund(bytes32 requestId) external;

    /// @notice Sends the caller's whole `withdrawableOf` balance to the caller. Works while paused.
    /// Emits `PayoutWithdrawn`. Reverts with `AttestationNothingToWithdraw` or `AttestationPayoutFailed`.
    function withdraw() external;

    /// @notice The request as stored (status None and zeros for an unknown id).
    function requestOf(bytes32 requestId) external view returns (Request memory);

    /// @notice The fee in wei for requesting a fact of `factTypeKey`; 0 means not requestable.
    function requestFee(bytes32 factTypeKey) external view returns (uint256 feeWei);

    /// @notice Seconds a new request stays open for fulfilment.
    function requestDeadlineWindow() external view returns (uint64 windowSeconds);

    /// @notice The balance `account` can withdraw: creator shares credited to it, plus, for the
    /// current treasury, the operator shares accrued since its last withdrawal. A treasury that is
    /// replaced keeps what it accrued.
    function withdrawableOf(address account) external view returns (uint256 amountWei);

    /// @notice The account credited with the operator's share of fulfilled requests.
    function treasury() external view returns (address);

    /// @notice The plugs marketplace asked for creators (`address(0)`: no creator shares).
    function plugsMarketplace() external view returns (address);

    // ---------------------------------------------------------------- timelocked setters
    // Each accepts only a call from the contract itself (`TimelockOnlySelf` otherwise), made by
    // `execute` (IAdminTimelock); `setGuardian` and `setAdmin` are IAdminTimelock's.

    /// @notice Replaces the attester set with 3 distinct non-zero addresses and increments the set
    /// id (timelock only). Emits `AttesterSetChanged`.
    function setAttesters(address[3] calldata newAttesters) external;

    /// @notice Sets the fee for requests of `factType`, at most 2^96 - 1 wei; 0 disables them
    /// (timelock only). Emits `RequestFeeChanged`.
    function setRequestFee(bytes32 factType, uint256 feeWei) external;

    /// @notice Sets how long new requests stay open (timelock only). Emits `RequestDeadlineWindowChanged`.
    function setRequestDeadlineWindow(uint64 windowSeconds) external;

    /// @notice Sets the treasury for later fulfilments (timelock only). Emits `TreasuryChanged`.
    function setTreasury(address newTreasury) external;

    /// @notice Sets the plugs marketplace, or `address(0)` for none (timelock only). Emits `PlugsMarketplaceChanged`.
    function setPlugsMarketplace(address marketplace) external;
}
