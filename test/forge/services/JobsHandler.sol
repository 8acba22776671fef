// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DogeAttestation} from "../../../contracts/attestation/DogeAttestation.sol";
import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {DogeAnchor} from "../../../contracts/services/DogeAnchor.sol";
import {DogeInscriber} from "../../../contracts/services/DogeInscriber.sol";
import {IJobService} from "../../../contracts/services/IJobService.sol";
import {AttesterSigning} from "../base/AttesterSigning.sol";

/// @title JobsHandler
/// @notice What an invariant run calls on DogeInscriber and DogeAnchor: many actors request jobs
/// (valid and invalid inputs, right and wrong fees), relay receipts that are right or wrong in every
/// way `settle` must tell apart (another job, another contract, another result, a tx mined before the
/// request, a txid already used, not 6 deep, too few or foreign signatures, another domain), refund,
/// withdraw, pause, rotate the operator and move the attested base-chain tip. Each action predicts
/// its outcome from a model and records a violation when the contract disagrees.
contract JobsHandler is AttesterSigning {
    DogeAttestation public immutable attestation;
    DogeInscriber public immutable inscriber;
    DogeAnchor public immutable anchor;
    address public immutable admin;
    address public immutable guardian;

    struct ModelJob {
        IJobService service;
        bytes32 id;
        address requester;
        uint256 feeWei;
        bytes32 resultHash;
        uint64 deadline;
        uint64 l1TipAtRequest;
        IJobService.JobStatus status;
        bytes32 l1Txid;
    }

    address[] public actors;
    address[] public payees;
    mapping(address => bool) internal _isPayee;
    /// @notice What each service owes each account (withdrawable), per the model.
    mapping(IJobService => mapping(address => uint256)) public owedTo;
    mapping(IJobService => uint256) public openFeesWei;
    mapping(IJobService => uint256) public paidInWei;
    mapping(IJobService => uint256) public paidOutWei;
    mapping(IJobService => address) public modelOperator;
    mapping(IJobService => uint256) public modelFee;
    mapping(IJobService => bool) public modelPaused;
    /// @notice Times each job's fee left escrow (credited on settlement, or sent back on refund).
    mapping(bytes32 => uint256) public feeReleases;
    mapping(IJobService => mapping(bytes32 => bytes32)) public settledJobOfTxid;
    bytes32[] public usedTxids;

    ModelJob[] internal _jobs;
    uint64 public modelTip;
    uint64 internal _lastTipAttestedAt;
    uint256 internal _txidNonce;

    string[] public violations;
    mapping(string => uint256) public accepted;

    constructor(
        DogeAttestation attestation_,
        DogeInscriber inscriber_,
        DogeAnchor anchor_,
        address admin_,
        address guardian_,
        address operator_
    ) {
        attestation = attestation_;
        inscriber = inscriber_;
        anchor = anchor_;
        admin = admin_;
        guardian = guardian_;
        for (uint256 i = 0; i < 6; ++i) {
            actors.push(makeAddr(string.concat("job actor ", vm.toString(i))));
            _addPayee(actors[i]);
        }
        _addPayee(operator_);
        modelOperator[inscriber_] = operator_;
        modelOperator[anchor_] = operator_;
        modelFee[inscriber_] = inscriber_.DEFAULT_FEE();
        modelFee[anchor_] = anchor_.DEFAULT_FEE();
    }

    // ---------------------------------------------------------------- reads

    function jobCount() external view returns (uint256) {
        return _jobs.length;
    }

    function jobAt(uint256 index) external view returns (ModelJob memory) {
        return _jobs[index];
    }

    function payeeCount() external view returns (uint256) {
        return payees.length;
    }

    function usedTxidCount() external view returns (uint256) {
        return usedTxids.length;
    }

    function violationCount() external view returns (uint256) {
        return violations.length;
    }

    // ---------------------------------------------------------------- requests

    /// @notice requestAnchor with a payload of 0 to 80 bytes (1..76 accepted).
    function requestAnchor(uint256 actorSeed, uint256 payloadSeed, bool wrongFee) external {
        uint256 length = payloadSeed % 81;
        bytes memory payload = _bytes(payloadSeed, length);
        bool expected = length >= 1 && length <= 76;
        _request(
            anchor,
            actorSeed,
            wrongFee,
            expected,
            sha256(payload),
            abi.encodeCall(DogeAnchor.requestAnchor, (payload))
        );
    }

    /// @notice requestInscription of plain text (no ACTION needed) or JSON (ACTION required), with a
    /// recipient of a valid or invalid length.
    function requestInscription(uint256 actorSeed, uint256 inputSeed, bool wrongFee) external {
        bool json = inputSeed % 2 == 0;
        bool withAction = (inputSeed >> 1) % 3 != 0;
        bool goodRecipient = (inputSeed >> 3) % 5 != 0;
        string memory contentType = json ? "application/json" : "text/plain;charset=utf-8";
        string memory action = withAction ? "LAUNCHPAD_MINT" : "";
        bytes memory payload = _bytes(inputSeed, (inputSeed >> 8) % 600);
        string memory recipient = goodRecipient ? "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L" : "D-short";
        bool expected = (!json || withAction) && goodRecipient;
        bytes32 resultHash = inscriber.envelopeHashOf(contentType, action, payload);
        _request(
            inscriber,
            actorSeed,
            wrongFee,
            expected,
            resultHash,
            abi.encodeCall(DogeInscriber.requestInscription, (contentType, action, payload, recipient))
        );
    }

    function _request(
        IJobService service,
        uint256 actorSeed,
        bool wrongFee,
        bool inputsValid,
        bytes32 resultHash,
        bytes memory call
    ) internal {
        address requester = _actor(actorSeed);
        uint256 fee = modelFee[service];
        uint256 sent = wrongFee ? fee - 1 : fee;
        bool expected = inputsValid && !wrongFee && !modelPaused[service];
        vm.deal(requester, requester.balance + sent);
        uint64 sequence = service.jobCount() + 1;
        vm.prank(requester);
        (bool success, bytes memory returned) = address(service).call{value: sent}(call);
        if (success != expected)
            return
                _violation(
                    success
                        ? "a request was accepted that the model refuses"
                        : "a request was refused that the model accepts"
                );
        if (!success) return;
        ++accepted["request"];
        bytes32 id = abi.decode(returned, (bytes32));
        if (id != keccak256(abi.encode(address(service), block.chainid, sequence, resultHash))) _violation("job id");
        _recordJob(service, id, requester, fee, resultHash);
    }

    function _recordJob(IJobService service, bytes32 id, address requester, uint256 fee, bytes32 resultHash) internal {
        _jobs.push(
            ModelJob({
                service: service,
                id: id,
                requester: requester,
                feeWei: fee,
                resultHash: resultHash,
                deadline: uint64(block.timestamp) + 1 days,
                l1TipAtRequest: modelTip,
                status: IJobService.JobStatus.Open,
                l1Txid: bytes32(0)
            })
        );
        openFeesWei[service] += fee;
        paidInWei[service] += fee;
    }

    // ---------------------------------------------------------------- settlement

    /// @notice settle with a receipt drawn by `receiptSeed % 12`: 0-4 right; 5 another job's id in
    /// the receipt; 6 the other service as jobContract; 7 another result hash; 8 a tx at or below the
    /// tip at request; 9 a txid that already settled a job; 10 one signature; 11 an outsider signs.
    /// Heights are drawn around the tip, so "not 6 deep" happens on its own.
    function settle(uint256 actorSeed, uint256 jobSeed, uint256 receiptSeed, uint256 heightSeed) external {
        if (_jobs.length == 0) return;
        ModelJob storage job = _jobs[jobSeed % _jobs.length];
        uint256 kind = receiptSeed % 12;
        IDogeAttestation.Receipt memory receipt = IDogeAttestation.Receipt({
            jobId: job.id,
            jobContract: address(job.service),
            l1Txid: keccak256(abi.encode("txid", ++_txidNonce)),
            resultHash: job.resultHash,
            l1Height: uint64(bound(heightSeed, uint256(job.l1TipAtRequest) + 1, uint256(modelTip) + 3)),
            attestedAt: uint64(block.timestamp),
            attesterSetId: 1
        });
        if (kind == 5) receipt.jobId = keccak256(abi.encode(job.id));
        if (kind == 6)
            receipt.jobContract = address(job.service) == address(anchor) ? address(inscriber) : address(anchor);
        if (kind == 7) receipt.resultHash = keccak256(abi.encode(job.resultHash));
        if (kind == 8) receipt.l1Height = uint64(bound(heightSeed, 0, job.l1TipAtRequest));
        if (kind == 9 && usedTxids.length != 0) receipt.l1Txid = usedTxids[(receiptSeed >> 8) % usedTxids.length];
        uint256[] memory keys = sortedBySigner(pair(0, 2));
        if (kind == 10) {
            keys = new uint256[](1);
            keys[0] = 1;
        }
        if (kind == 11) keys = sortedBySigner(pair(0, OUTSIDER_KEY_INDEX));
        bytes[] memory signatures = signAll(receiptDigestFor(receipt, block.chainid, address(attestation)), keys);

        bool expected =
            !modelPaused[job.service] &&
                !attestation.paused() &&
                receipt.jobContract == address(job.service) &&
                receipt.jobId == job.id &&
                job.status == IJobService.JobStatus.Open &&
                receipt.resultHash == job.resultHash &&
                receipt.l1Height > job.l1TipAtRequest &&
                settledJobOfTxid[job.service][receipt.l1Txid] == bytes32(0) &&
                uint256(modelTip) + 1 >= uint256(receipt.l1Height) + 6 &&
                kind != 10 &&
                kind != 11;
        uint256 balanceBefore = address(job.service).balance;
        vm.prank(_actor(actorSeed));
        try job.service.settle(job.id, receipt, signatures) {
            if (!expected) return _violation("settle accepted a receipt the model refuses");
            ++accepted["settle"];
            if (address(job.service).balance != balanceBefore) _violation("settle moved ether");
            job.status = IJobService.JobStatus.Settled;
            job.l1Txid = receipt.l1Txid;
            ++feeReleases[job.id];
            openFeesWei[job.service] -= job.feeWei;
            owedTo[job.service][modelOperator[job.service]] += job.feeWei;
            settledJobOfTxid[job.service][receipt.l1Txid] = job.id;
            usedTxids.push(receipt.l1Txid);
        } catch {
            if (expected) _violation("settle refused a receipt the model accepts");
        }
    }

    function refund(uint256 actorSeed, uint256 jobSeed, bool byRequester) external {
        if (_jobs.length == 0) return;
        ModelJob storage job = _jobs[jobSeed % _jobs.length];
        address caller = byRequester ? job.requester : _actor(actorSeed);
        bool expected =
            job.status == IJobService.JobStatus.Open && caller == job.requester && block.timestamp > job.deadline;
        uint256 before = caller.balance;
        vm.prank(caller);
        try job.service.refund(job.id) {
            if (!expected) return _violation("refund accepted a call the model refuses");
            ++accepted["refund"];
            if (caller.balance != before + job.feeWei) _violation("refund paid another amount");
            job.status = IJobService.JobStatus.Refunded;
            ++feeReleases[job.id];
            openFeesWei[job.service] -= job.feeWei;
            paidOutWei[job.service] += job.feeWei;
        } catch {
            if (expected) _violation("refund refused a call the model accepts");
        }
    }

    function withdraw(uint256 payeeSeed, bool fromAnchor) external {
        IJobService service = fromAnchor ? IJobService(address(anchor)) : IJobService(address(inscriber));
        address payee = payees[payeeSeed % payees.length];
        uint256 owed = owedTo[service][payee];
        if (service.withdrawableOf(payee) != owed) _violation("withdrawableOf differs from the model");
        uint256 before = payee.balance;
        vm.prank(payee);
        try service.withdraw() {
            if (owed == 0) return _violation("withdraw paid an account the model owes nothing");
            ++accepted["withdraw"];
            if (payee.balance != before + owed) _violation("withdraw paid another amount than owed");
            owedTo[service][payee] = 0;
            paidOutWei[service] += owed;
        } catch {
            if (owed != 0) _violation("withdraw refused an account the model owes");
        }
    }

    // ---------------------------------------------------------------- the tip, pause, operator, fee, time

    /// @notice The attesters move the base-chain tip up by 0 to 12 blocks (an L1_TIP fact).
    function moveTip(uint256 stepSeed) external {
        uint64 height = modelTip + uint64(stepSeed % 13);
        uint64 attestedAt = uint64(block.timestamp);
        if (attestedAt <= _lastTipAttestedAt) return;
        IDogeAttestation.Fact memory fact = IDogeAttestation.Fact({
            factType: keccak256("L1_TIP"),
            subject: bytes32(0),
            qualifier: bytes32(0),
            value: height,
            data: bytes32(0),
            l1Height: height,
            attestedAt: attestedAt,
            attesterSetId: 1
        });
        if (attestation.paused()) return;
        attestation.submitFact(
            fact,
            signAll(factDigestFor(fact, block.chainid, address(attestation)), sortedBySigner(pair(1, 2)))
        );
        modelTip = height;
        _lastTipAttestedAt = attestedAt;
    }

    function pause(bool anchorService, bool attestationContract) external {
        if (attestationContract) {
            if (attestation.paused()) return;
            vm.prank(guardian);
            attestation.pause();
            return;
        }
        IJobService service = anchorService ? IJobService(address(anchor)) : IJobService(address(inscriber));
        if (modelPaused[service]) return;
        vm.prank(guardian);
        service.pause();
        modelPaused[service] = true;
    }

    function unpause(bool anchorService, bool attestationContract) external {
        if (attestationContract) {
            if (!attestation.paused()) return;
            vm.prank(admin);
            attestation.unpause();
            return;
        }
        IJobService service = anchorService ? IJobService(address(anchor)) : IJobService(address(inscriber));
        if (!modelPaused[service]) return;
        vm.prank(admin);
        service.unpause();
        modelPaused[service] = false;
    }

    /// @notice The admin replaces the operator or the fee through the timelock (schedule, wait, execute).
    function administer(bool anchorService, uint256 seed) external {
        IJobService service = anchorService ? IJobService(address(anchor)) : IJobService(address(inscriber));
        bytes memory call;
        if (seed % 2 == 0) {
            call = abi.encodeCall(IJobService.setOperator, (_actor(seed >> 1)));
        } else {
            call = abi.encodeCall(IJobService.setFee, (bound(seed >> 1, 1, 2 ether)));
        }
        bytes32 salt = keccak256(abi.encode(seed, block.timestamp));
        vm.prank(admin);
        service.schedule(call, salt);
        vm.warp(block.timestamp + 1 hours);
        vm.prank(admin);
        service.execute(call, salt);
        if (seed % 2 == 0) {
            modelOperator[service] = _actor(seed >> 1);
        } else {
            modelFee[service] = bound(seed >> 1, 1, 2 ether);
        }
    }

    function warp(uint256 secondsSeed) external {
        vm.warp(block.timestamp + bound(secondsSeed, 1, 30 hours));
    }

    // ---------------------------------------------------------------- helpers

    function _actor(uint256 seed) internal view returns (address) {
        return actors[seed % actors.length];
    }

    function _addPayee(address account) internal {
        if (_isPayee[account]) return;
        _isPayee[account] = true;
        payees.push(account);
    }

    function _violation(string memory what) internal {
        violations.push(what);
    }

    function _bytes(uint256 seed, uint256 length) internal pure returns (bytes memory data) {
        data = new bytes(length);
        bytes32 word;
        for (uint256 i = 0; i < length; ++i) {
            if (i % 32 == 0) word = keccak256(abi.encode(seed, i));
            data[i] = word[i % 32];
        }
    }
}
