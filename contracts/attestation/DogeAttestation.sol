// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IDogeAttestation, IPlugCreatorRegistry} from "./IDogeAttestation.sol";
import {AdminTimelock} from "../governance/AdminTimelock.sol";
import {AttesterQuorum} from "../libraries/AttesterQuorum.sol";
import {FactKeys} from "../libraries/FactKeys.sol";
import {FactTypedData} from "../libraries/FactTypedData.sol";

/// @title DogeAttestation
/// @notice Base-chain facts signed by 2 of 3 attesters, paid fresh facts, and receipt checks for
/// the inscriber and anchor contracts. The specification is `IDogeAttestation`.
contract DogeAttestation is IDogeAttestation, EIP712, ReentrancyGuard, AdminTimelock {
    /// @inheritdoc IDogeAttestation
    uint256 public constant MIN_SIGNATURES = AttesterQuorum.MIN_SIGNATURES;
    /// @inheritdoc IDogeAttestation
    uint256 public constant ATTESTER_COUNT = AttesterQuorum.ATTESTER_COUNT;
    /// @inheritdoc IDogeAttestation
    uint64 public constant MAX_ATTESTED_AT_SKEW = 15 minutes;
    /// @inheritdoc IDogeAttestation
    uint256 public constant CREATOR_SHARE_PERCENT = 20;
    /// @inheritdoc IDogeAttestation
    bytes32 public constant FACT_TYPEHASH = FactTypedData.FACT_TYPEHASH;
    /// @inheritdoc IDogeAttestation
    bytes32 public constant RECEIPT_TYPEHASH = FactTypedData.RECEIPT_TYPEHASH;

    /// @notice The fee of every fact type at deployment: 0.05 DOGE.
    uint256 public constant DEFAULT_REQUEST_FEE = 0.05 ether;
    /// @notice How long a request stays open at deployment.
    uint64 public constant DEFAULT_REQUEST_DEADLINE_WINDOW = 1 hours;
    /// @notice Bounds of the deadline window.
    uint64 public constant MIN_REQUEST_DEADLINE_WINDOW = 5 minutes;
    uint64 public constant MAX_REQUEST_DEADLINE_WINDOW = 7 days;

    /// @dev What every fact submission and request reads, packed in one slot.
    struct HotState {
        uint64 attesterSetId;
        uint64 l1Tip;
        uint64 requestCount;
        uint32 requestDeadlineWindow;
        bool paused;
    }

    /// @dev A stored fact: value, heights and a has-data flag in one slot (written with one SSTORE,
    /// see _storeFact), data in a second slot touched only when the old or new fact has data.
    /// attestedAt 0 means never attested; 40 bits hold it (_verifyFact refuses times beyond now + 15 minutes).
    struct StoredFact {
        uint128 value;
        uint64 l1Height;
        uint40 attestedAt;
        bool hasData;
        bytes32 data;
    }

    /// @dev The treasury and the operator's share credited to it since it last withdrew, in one slot
    /// that every fulfilment reads anyway: a mapping entry would cost a fresh slot (20,000 gas)
    /// after each withdrawal. The treasury's withdrawable balance is `accruedWei` plus its mapping entry.
    struct TreasuryAccount {
        address account;
        uint96 accruedWei;
    }

    HotState private _hot;
    address[3] private _attesters;
    mapping(address attester => uint64 attesterSetId) private _attesterSetIdOf;
    mapping(bytes32 factKey => StoredFact) private _facts;
    mapping(bytes32 requestId => Request) private _requests;
    mapping(bytes32 factType => uint256 feeWei) private _requestFeeOf;
    mapping(address account => uint256 amountWei) private _withdrawableOf;
    TreasuryAccount private _treasury;
    address private _plugsMarketplace;

    /// @param initialAdmin Schedules and executes changes, unpauses.
    /// @param initialGuardian Pauses.
    /// @param initialTreasury Receives the operator's share of request fees.
    /// @param initialAttesters The first attester set (id 1): 3 distinct non-zero addresses.
    /// @param timelockDelaySeconds Delay between scheduling and execution, at least `MIN_TIMELOCK_DELAY`.
    /// @param initialPlugsMarketplace The plugs marketplace, or `address(0)`.
    constructor(
        address initialAdmin,
        address initialGuardian,
        address initialTreasury,
        address[3] memory initialAttesters,
        uint64 timelockDelaySeconds,
        address initialPlugsMarketplace
    ) AdminTimelock(initialAdmin, initialGuardian, timelockDelaySeconds) EIP712("DogeAttestation", "1") {
        _setTreasury(initialTreasury);
        _setPlugsMarketplace(initialPlugsMarketplace);
        _setAttesters(initialAttesters);
        _setRequestDeadlineWindow(DEFAULT_REQUEST_DEADLINE_WINDOW);
        bytes32[9] memory factTypes = [
            FactKeys.DOGE_BALANCE,
            FactKeys.DRC20_BALANCE,
            FactKeys.DRC20_TRANSFER_VALID,
            FactKeys.COLLECTION_COUNT,
            FactKeys.INSCRIPTION_OWNER,
            FactKeys.INSCRIPTION_VALID,
            FactKeys.INSCRIPTION_ACTION,
            FactKeys.TX_INCLUDED,
            FactKeys.L1_TIP
        ];
        for (uint256 i = 0; i < factTypes.length; ++i) {
            _setRequestFee(factTypes[i], DEFAULT_REQUEST_FEE);
        }
    }

    // ---------------------------------------------------------------- facts

    /// @inheritdoc IDogeAttestation
    function submitFact(Fact calldata fact, bytes[] calldata signatures) external {
        HotState memory hot = _hot;
        if (hot.paused) revert AttestationPaused();
        _verifyFact(fact, signatures, hot.attesterSetId);
        _storeFact(fact, hot.l1Tip, true);
    }

    /// @inheritdoc IDogeAttestation
    function factOf(bytes32 factType, bytes32 subject, bytes32 qualifier) external view returns (FactRecord memory) {
        StoredFact storage stored = _facts[FactKeys.factKey(factType, subject, qualifier)];
        return
            FactRecord({
                exists: stored.attestedAt != 0,
                value: stored.value,
                data: stored.data,
                l1Height: stored.l1Height,
                attestedAt: stored.attestedAt
            });
    }

    /// @inheritdoc IDogeAttestation
    function dogeBalance(
        string calldata dogeAddress
    ) external view returns (uint256 koinu, uint64 l1Height, uint64 attestedAt) {
        StoredFact storage stored = _fact(FactKeys.DOGE_BALANCE, FactKeys.addressKey(dogeAddress), bytes32(0));
        return (stored.value, stored.l1Height, stored.attestedAt);
    }

    /// @inheritdoc IDogeAttestation
    function drc20Balance(
        string calldata dogeAddress,
        string calldata tick
    ) external view returns (uint256 amount, uint64 l1Height, uint64 attestedAt) {
        StoredFact storage stored = _fact(
            FactKeys.DRC20_BALANCE,
            FactKeys.addressKey(dogeAddress),
            FactKeys.tickKey(tick)
        );
        return (stored.value, stored.l1Height, stored.attestedAt);
    }

    /// @inheritdoc IDogeAttestation
    function collectionCount(
        string calldata dogeAddress,
        string calldata slug
    ) external view returns (uint256 count, uint64 l1Height, uint64 attestedAt) {
        StoredFact storage stored = _fact(
            FactKeys.COLLECTION_COUNT,
            FactKeys.addressKey(dogeAddress),
            FactKeys.slugKey(slug)
        );
        return (stored.value, stored.l1Height, stored.attestedAt);
    }

    /// @inheritdoc IDogeAttestation
    function isInscriptionOwner(
        string calldata inscriptionId,
        string calldata dogeAddress
    ) external view returns (bool) {
        StoredFact storage stored = _fact(
            FactKeys.INSCRIPTION_OWNER,
            FactKeys.inscriptionKey(inscriptionId),
            bytes32(0)
        );
        return stored.attestedAt != 0 && stored.data == FactKeys.addressKey(dogeAddress);
    }

    /// @inheritdoc IDogeAttestation
    function inscriptionValid(
        string calldata inscriptionId
    ) external view returns (bool ok, bytes32 contentHash, uint64 l1Height) {
        StoredFact storage stored = _fact(
            FactKeys.INSCRIPTION_VALID,
            FactKeys.inscriptionKey(inscriptionId),
            bytes32(0)
        );
        return (stored.value != 0, stored.data, stored.l1Height);
    }

    /// @inheritdoc IDogeAttestation
    function inscriptionMatches(string calldata inscriptionId, bytes32 envelopeHash) external view returns (bool) {
        StoredFact storage stored = _fact(
            FactKeys.INSCRIPTION_VALID,
            FactKeys.inscriptionKey(inscriptionId),
            bytes32(0)
        );
        return stored.value != 0 && stored.data == envelopeHash;
    }

    /// @inheritdoc IDogeAttestation
    function drc20TransferValid(string calldata txid) external view returns (bool) {
        return _fact(FactKeys.DRC20_TRANSFER_VALID, FactKeys.txKey(txid), bytes32(0)).value != 0;
    }

    /// @inheritdoc IDogeAttestation
    function txConfirmed(string calldata txid, uint256 minConfirmations) external view returns (bool) {
        uint256 inclusionHeight = _fact(FactKeys.TX_INCLUDED, FactKeys.txKey(txid), bytes32(0)).value;
        uint256 tip = _hot.l1Tip;
        if (inclusionHeight == 0 || inclusionHeight > tip) return false;
        return tip - inclusionHeight + 1 >= minConfirmations;
    }

    /// @inheritdoc IDogeAttestation
    function l1Tip() external view returns (uint64) {
        return _hot.l1Tip;
    }

    /// @inheritdoc IDogeAttestation
    function addressKey(string calldata dogeAddress) external pure returns (bytes32) {
        return FactKeys.addressKey(dogeAddress);
    }

    /// @inheritdoc IDogeAttestation
    function tickKey(string calldata tick) external pure returns (bytes32) {
        return FactKeys.tickKey(tick);
    }

    /// @inheritdoc IDogeAttestation
    function slugKey(string calldata slug) external pure returns (bytes32) {
        return FactKeys.slugKey(slug);
    }

    /// @inheritdoc IDogeAttestation
    function inscriptionKey(string calldata inscriptionId) external pure returns (bytes32) {
        return FactKeys.inscriptionKey(inscriptionId);
    }

    /// @inheritdoc IDogeAttestation
    function txKey(string calldata txid) external pure returns (bytes32) {
        return FactKeys.txKey(txid);
    }

    // ---------------------------------------------------------------- signatures

    /// @inheritdoc IDogeAttestation
    function factDigest(Fact calldata fact) external view returns (bytes32) {
        return _hashTypedDataV4(FactTypedData.hashFact(fact));
    }

    /// @inheritdoc IDogeAttestation
    function receiptDigest(Receipt calldata receipt) external view returns (bytes32) {
        return _hashTypedDataV4(FactTypedData.hashReceipt(receipt));
    }

    /// @inheritdoc IDogeAttestation
    function verifyFact(Fact calldata fact, bytes[] calldata signatures) external view returns (bytes32 digest) {
        HotState memory hot = _hot;
        if (hot.paused) revert AttestationPaused();
        return _verifyFact(fact, signatures, hot.attesterSetId);
    }

    /// @inheritdoc IDogeAttestation
    function verifyReceipt(
        Receipt calldata receipt,
        bytes[] calldata signatures
    ) external view returns (bytes32 digest) {
        HotState memory hot = _hot;
        if (hot.paused) revert AttestationPaused();
        _checkAttesterSet(receipt.attesterSetId, hot.attesterSetId);
        digest = _hashTypedDataV4(FactTypedData.hashReceipt(receipt));
        AttesterQuorum.verify(digest, signatures, _attesterSetIdOf, hot.attesterSetId);
    }

    /// @inheritdoc IDogeAttestation
    function attesters() external view returns (address[3] memory currentAttesters, uint64 currentAttesterSetId) {
        return (_attesters, _hot.attesterSetId);
    }

    /// @inheritdoc IDogeAttestation
    function attesterSetId() external view returns (uint64) {
        return _hot.attesterSetId;
    }

    /// @inheritdoc IDogeAttestation
    function isAttester(address account) external view returns (bool) {
        return _attesterSetIdOf[account] == _hot.attesterSetId;
    }

    // ---------------------------------------------------------------- paid requests

    /// @inheritdoc IDogeAttestation
    function requestFact(
        bytes32 factTypeKey,
        bytes32 subjectKey,
        bytes32 qualifierKey,
        uint256 plugId
    ) external payable returns (bytes32 requestId) {
        HotState memory hot = _hot;
        if (hot.paused) revert AttestationPaused();
        uint256 feeWei = _requestFeeOf[factTypeKey];
        if (feeWei == 0) revert AttestationFactTypeNotRequestable(factTypeKey);
        if (msg.value != feeWei) revert AttestationWrongFee(msg.value, feeWei);
        if (plugId > type(uint96).max) revert AttestationPlugIdTooLarge(plugId, type(uint96).max);

        uint64 sequence = hot.requestCount + 1;
        _hot.requestCount = sequence;
        requestId = FactKeys.requestId(factTypeKey, subjectKey, qualifierKey, sequence);
        uint40 deadline = uint40(block.timestamp + hot.requestDeadlineWindow);
        // Two SSTOREs laid out as Request declares its members (low-order bits first), instead of a
        // read-modify-write per member. feeWei fits 96 bits: fees are capped when set.
        uint256 requesterAndFee = uint256(uint160(msg.sender)) | (feeWei << 160);
        uint256 terms =
            plugId |
                (uint256(sequence) << 96) |
                (uint256(uint40(block.timestamp)) << 160) |
                (uint256(deadline) << 200) |
                (uint256(uint8(RequestStatus.Open)) << 240);
        Request storage request = _requests[requestId];
        assembly ("memory-safe") {
            sstore(request.slot, requesterAndFee)
            sstore(add(request.slot, 1), terms)
        }
        emit FactRequested(requestId, msg.sender, factTypeKey, subjectKey, qualifierKey, plugId, feeWei, deadline);
    }

    /// @inheritdoc IDogeAttestation
    function fulfill(bytes32 requestId, Fact calldata fact, bytes[] calldata signatures) external {
        HotState memory hot = _hot;
        if (hot.paused) revert AttestationPaused();
        Request storage request = _requests[requestId];
        Request memory asked = request;
        if (asked.status != RequestStatus.Open) revert AttestationRequestNotOpen(requestId, asked.status);
        if (block.timestamp > asked.deadline)
            revert AttestationRequestExpired(requestId, asked.deadline, block.timestamp);
        if (FactKeys.requestId(fact.factType, fact.subject, fact.qualifier, asked.sequence) != requestId) {
            revert AttestationFactDoesNotAnswerRequest(requestId, fact.factType, fact.subject, fact.qualifier);
        }
        if (fact.attestedAt < asked.requestedAt) {
            revert AttestationFactOlderThanRequest(requestId, fact.attestedAt, asked.requestedAt);
        }
        _verifyFact(fact, signatures, hot.attesterSetId);

        request.status = RequestStatus.Fulfilled;
        // A newer fact stored meanwhile (e.g. the same answer relayed through submitFact) does not
        // block payment: the attesters did answer the request.
        _storeFact(fact, hot.l1Tip, false);

        address creator = address(0);
        address marketplace = _plugsMarketplace;
        if (asked.plugId != 0 && marketplace != address(0)) {
            // A view call (STATICCALL): the marketplace cannot change state here.
            creator = IPlugCreatorRegistry(marketplace).creatorOf(asked.plugId);
            // Listing is permissionless: a requester naming its own plug would take back a share
            // of its own fee, so the whole fee goes to the treasury.
            if (creator == asked.requester) creator = address(0);
        }
        uint256 creatorShareWei = creator == address(0) ? 0 : (uint256(asked.feeWei) * CREATOR_SHARE_PERCENT) / 100;
        uint256 operatorShareWei = asked.feeWei - creatorShareWei;
        TreasuryAccount memory treasuryAccount = _treasury;
        if (creatorShareWei != 0) _withdrawableOf[creator] += creatorShareWei;
        // Checked: reverts only if over 79 billion DOGE of fees went unwithdrawn.
        _treasury.accruedWei = treasuryAccount.accruedWei + uint96(operatorShareWei);
        emit RequestFulfilled(requestId, creator, treasuryAccount.account, creatorShareWei, operatorShareWei);
    }

    /// @inheritdoc IDogeAttestation
    function refund(bytes32 requestId) external nonReentrant {
        Request storage request = _requests[requestId];
        Request memory asked = request;
        if (asked.status != RequestStatus.Open) revert AttestationRequestNotOpen(requestId, asked.status);
        if (msg.sender != asked.requester) revert AttestationNotRequester(requestId, msg.sender, asked.requester);
        if (block.timestamp <= asked.deadline) {
            revert AttestationRequestNotExpired(requestId, asked.deadline, block.timestamp);
        }
        request.status = RequestStatus.Refunded;
        emit RequestRefunded(requestId, asked.requester, asked.feeWei);
        _send(asked.requester, asked.feeWei);
    }

    /// @inheritdoc IDogeAttestation
    function withdraw() external nonReentrant {
        uint256 creditedWei = _withdrawableOf[msg.sender];
        TreasuryAccount memory treasuryAccount = _treasury;
        uint256 accruedWei = msg.sender == treasuryAccount.account ? treasuryAccount.accruedWei : 0;
        uint256 amountWei = creditedWei + accruedWei;
        if (amountWei == 0) revert AttestationNothingToWithdraw(msg.sender);
        if (creditedWei != 0) _withdrawableOf[msg.sender] = 0;
        if (accruedWei != 0) _treasury.accruedWei = 0;
        emit PayoutWithdrawn(msg.sender, amountWei);
        _send(msg.sender, amountWei);
    }

    /// @inheritdoc IDogeAttestation
    function requestOf(bytes32 requestId) external view returns (Request memory) {
        return _requests[requestId];
    }

    /// @inheritdoc IDogeAttestation
    function requestFee(bytes32 factTypeKey) external view returns (uint256 feeWei) {
        return _requestFeeOf[factTypeKey];
    }

    /// @inheritdoc IDogeAttestation
    function requestDeadlineWindow() external view returns (uint64 windowSeconds) {
        return _hot.requestDeadlineWindow;
    }

    /// @inheritdoc IDogeAttestation
    function withdrawableOf(address account) external view returns (uint256 amountWei) {
        TreasuryAccount memory treasuryAccount = _treasury;
        amountWei = _withdrawableOf[account];
        if (account == treasuryAccount.account) amountWei += treasuryAccount.accruedWei;
    }

    /// @inheritdoc IDogeAttestation
    function treasury() external view returns (address) {
        return _treasury.account;
    }

    /// @inheritdoc IDogeAttestation
    function plugsMarketplace() external view returns (address) {
        return _plugsMarketplace;
    }

    // ---------------------------------------------------------------- timelocked setters
    // schedule / execute / cancel, the roles and the pause are AdminTimelock's.

    /// @inheritdoc IDogeAttestation
    function setAttesters(address[3] calldata newAttesters) external onlyTimelock {
        _setAttesters(newAttesters);
    }

    /// @inheritdoc IDogeAttestation
    function setRequestFee(bytes32 factType, uint256 feeWei) external onlyTimelock {
        _setRequestFee(factType, feeWei);
    }

    /// @inheritdoc IDogeAttestation
    function setRequestDeadlineWindow(uint64 windowSeconds) external onlyTimelock {
        _setRequestDeadlineWindow(windowSeconds);
    }

    /// @inheritdoc IDogeAttestation
    function setTreasury(address newTreasury) external onlyTimelock {
        _setTreasury(newTreasury);
    }

    /// @inheritdoc IDogeAttestation
    function setPlugsMarketplace(address marketplace) external onlyTimelock {
        _setPlugsMarketplace(marketplace);
    }

    // ---------------------------------------------------------------- internals

    function _fact(bytes32 factType, bytes32 subject, bytes32 qualifier) private view returns (StoredFact storage) {
        return _facts[FactKeys.factKey(factType, subject, qualifier)];
    }

    /// @dev Checks the set id, the clock and the quorum; returns the verified digest.
    function _verifyFact(
        Fact calldata fact,
        bytes[] calldata signatures,
        uint64 currentSetId
    ) private view returns (bytes32 digest) {
        _checkAttesterSet(fact.attesterSetId, currentSetId);
        uint256 latestAllowed = block.timestamp + MAX_ATTESTED_AT_SKEW;
        if (fact.attestedAt > latestAllowed) revert AttestationAttestedInFuture(fact.attestedAt, latestAllowed);
        if (fact.value > type(uint128).max) revert AttestationValueTooLarge(fact.value, type(uint128).max);
        digest = _hashTypedDataV4(FactTypedData.hashFact(fact));
        AttesterQuorum.verify(digest, signatures, _attesterSetIdOf, currentSetId);
    }

    /// @dev Stores `fact` when it is newer than the stored one (see AttestationStaleFact); a stale
    /// fact reverts when `revertIfStale`, else is skipped. Returns whether it was stored.
    function _storeFact(Fact calldata fact, uint64 tip, bool revertIfStale) private returns (bool stored) {
        StoredFact storage entry = _facts[FactKeys.factKey(fact.factType, fact.subject, fact.qualifier)];
        uint64 storedL1Height = entry.l1Height;
        uint64 storedAttestedAt = entry.attestedAt;
        bool storedHasData = entry.hasData;
        if (fact.attestedAt <= storedAttestedAt || fact.l1Height < storedL1Height) {
            if (revertIfStale) {
                revert AttestationStaleFact(fact.l1Height, fact.attestedAt, storedL1Height, storedAttestedAt);
            }
            return false;
        }
        bool hasData = fact.data != bytes32(0);
        // One SSTORE laid out as StoredFact declares its members (low-order bits first). value fits
        // 128 bits and attestedAt 40 bits: _verifyFact refused anything larger.
        uint256 packed =
            uint256(fact.value) |
                (uint256(fact.l1Height) << 128) |
                (uint256(fact.attestedAt) << 192) |
                (hasData ? uint256(1) << 232 : 0);
        assembly ("memory-safe") {
            sstore(entry.slot, packed)
        }
        // The data slot is zero unless the flag says otherwise: skip it when both facts have none.
        if (hasData || storedHasData) entry.data = fact.data;
        if (fact.l1Height > tip) _hot.l1Tip = fact.l1Height;
        _emitFactStored(fact);
        return true;
    }

    /// @dev Its own frame: inside _storeFact the eight event arguments run out of stack.
    function _emitFactStored(Fact calldata fact) private {
        emit FactStored(
            fact.factType,
            fact.subject,
            fact.qualifier,
            fact.value,
            fact.data,
            fact.l1Height,
            fact.attestedAt
        );
    }

    function _checkAttesterSet(uint64 given, uint64 current) private pure {
        if (given != current) revert AttestationWrongAttesterSet(given, current);
    }

    function _send(address to, uint256 amountWei) private {
        (bool success, ) = to.call{value: amountWei}("");
        if (!success) revert AttestationPayoutFailed(to, amountWei);
    }

    function _isTimelockedSetter(bytes4 selector) internal pure override returns (bool) {
        return
            selector == this.setAttesters.selector ||
            selector == this.setRequestFee.selector ||
            selector == this.setRequestDeadlineWindow.selector ||
            selector == this.setTreasury.selector ||
            selector == this.setPlugsMarketplace.selector ||
            super._isTimelockedSetter(selector);
    }

    /// @dev The flag stays in `_hot`: every hot path reads it with the rest of that slot.
    function _paused() internal view override returns (bool) {
        return _hot.paused;
    }

    function _setPaused(bool newPaused) internal override {
        _hot.paused = newPaused;
    }

    function _setAttesters(address[3] memory newAttesters) private {
        for (uint256 i = 0; i < ATTESTER_COUNT; ++i) {
            if (newAttesters[i] == address(0)) revert AttestationZeroAttester(i);
            for (uint256 j = 0; j < i; ++j) {
                if (newAttesters[i] == newAttesters[j]) revert AttestationDuplicateAttester(newAttesters[i]);
            }
        }
        // Set ids start at 1: 0 is what the membership mapping holds for every non-attester.
        uint64 newSetId = _hot.attesterSetId + 1;
        _hot.attesterSetId = newSetId;
        _attesters = newAttesters;
        for (uint256 i = 0; i < ATTESTER_COUNT; ++i) {
            _attesterSetIdOf[newAttesters[i]] = newSetId;
        }
        emit AttesterSetChanged(newSetId, newAttesters);
    }

    function _setRequestFee(bytes32 factType, uint256 feeWei) private {
        if (feeWei > type(uint96).max) revert AttestationFeeTooLarge(feeWei, type(uint96).max);
        _requestFeeOf[factType] = feeWei;
        emit RequestFeeChanged(factType, feeWei);
    }

    function _setRequestDeadlineWindow(uint64 windowSeconds) private {
        if (windowSeconds < MIN_REQUEST_DEADLINE_WINDOW || windowSeconds > MAX_REQUEST_DEADLINE_WINDOW) {
            revert AttestationInvalidDeadlineWindow(
                windowSeconds,
                MIN_REQUEST_DEADLINE_WINDOW,
                MAX_REQUEST_DEADLINE_WINDOW
            );
        }
        // Fits: the maximum (7 days) is far below 2^32 seconds.
        _hot.requestDeadlineWindow = uint32(windowSeconds);
        emit RequestDeadlineWindowChanged(windowSeconds);
    }

    function _setTreasury(address newTreasury) private {
        if (newTreasury == address(0)) revert AttestationInvalidTreasury(newTreasury);
        TreasuryAccount memory previous = _treasury;
        // What the previous treasury accrued stays its own, withdrawable from the mapping.
        if (previous.accruedWei != 0) _withdrawableOf[previous.account] += previous.accruedWei;
        _treasury = TreasuryAccount({account: newTreasury, accruedWei: 0});
        emit TreasuryChanged(newTreasury);
    }

    function _setPlugsMarketplace(address marketplace) private {
        _plugsMarketplace = marketplace;
        emit PlugsMarketplaceChanged(marketplace);
    }
}
