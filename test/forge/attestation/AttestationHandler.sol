// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DogeAttestation} from "../../../contracts/attestation/DogeAttestation.sol";
import {IDogeAttestation} from "../../../contracts/attestation/IDogeAttestation.sol";
import {IAdminTimelock} from "../../../contracts/governance/IAdminTimelock.sol";
import {PlugsMarketplace} from "../../../contracts/plugs/PlugsMarketplace.sol";
import {AttesterSigning} from "../base/AttesterSigning.sol";

/// @title AttestationHandler
/// @notice What an invariant run calls on DogeAttestation: an attacker with many addresses (and the
/// admin, the guardian and the attesters) calling everything in any order, with signatures that are
/// right or wrong in every way the contract must tell apart (too few, one signer twice, unsorted, an
/// outsider or a former attester, another chain's or contract's domain, a stale attester set, a
/// high-s twin). Each action predicts its outcome from a model kept here, makes the call, and
/// records a violation when the contract disagrees (an accepted call the model refuses, or a refused
/// call the model accepts); money moved is checked against the model on every call. Handler reverts
/// are ignored by Forge (fail_on_revert = false), so violations are stored and the invariants read them.
contract AttestationHandler is AttesterSigning {
    DogeAttestation public immutable attestation;
    PlugsMarketplace public immutable marketplace;

    uint256 internal constant ACTOR_COUNT = 8;
    uint64 internal constant MAX_SKEW = 15 minutes;
    uint64 internal constant MIN_WINDOW = 5 minutes;
    uint64 internal constant MAX_WINDOW = 7 days;

    // ---------------------------------------------------------------- the model

    struct ModelRequest {
        bytes32 id;
        address requester;
        uint256 feeWei;
        uint256 plugId;
        bytes32 factType;
        bytes32 subject;
        bytes32 qualifier;
        uint64 requestedAt;
        uint64 deadline;
        IDogeAttestation.RequestStatus status;
    }

    struct ModelFact {
        bool exists;
        uint256 value;
        bytes32 data;
        uint64 l1Height;
        uint64 attestedAt;
    }

    struct ModelOperation {
        bytes call;
        bytes32 salt;
        uint64 readyAt;
        uint64 expiresAt;
        bool executed;
        bool cancelled;
    }

    address[] public actors;
    /// @notice Every account that may hold a balance here: actors, treasuries, plug creators.
    address[] public payees;
    mapping(address => bool) internal _isPayee;
    mapping(address => uint256) public owedTo;
    uint256 public openFeesWei;
    uint256 public paidInWei;
    uint256 public paidOutWei;

    ModelRequest[] internal _requests;
    /// @notice (factType, subject, qualifier) of every fact key ever stored.
    bytes32[3][] internal _factIds;
    mapping(bytes32 => ModelFact) internal _facts;
    mapping(bytes32 => bool) internal _factKeySeen;
    uint64 public modelTip;

    ModelOperation[] internal _operations;
    uint256[3] public setKeyIndexes;
    uint64 public modelSetId = 1;
    mapping(bytes32 => uint256) public modelFee;
    uint64 public modelWindow = 1 hours;
    address public modelTreasury;
    address public modelMarketplace;
    address public modelAdmin;
    address public modelGuardian;
    bool public modelPaused;

    string[] public violations;
    mapping(string => uint256) public calls;
    /// @notice Calls the contract accepted, per action (a test checks that every action can succeed).
    mapping(string => uint256) public accepted;

    bytes32[3] internal _factTypes;
    bytes32[3] internal _subjects;

    constructor(
        DogeAttestation attestation_,
        PlugsMarketplace marketplace_,
        address admin_,
        address guardian_,
        address treasury_
    ) {
        attestation = attestation_;
        marketplace = marketplace_;
        modelAdmin = admin_;
        modelGuardian = guardian_;
        modelTreasury = treasury_;
        modelMarketplace = address(marketplace_);
        setKeyIndexes = [uint256(0), 1, 2];
        for (uint256 i = 0; i < ACTOR_COUNT; ++i) {
            actors.push(makeAddr(string.concat("actor ", vm.toString(i))));
            _addPayee(actors[i]);
        }
        _addPayee(treasury_);
        _factTypes = [keccak256("DOGE_BALANCE"), keccak256("DRC20_BALANCE"), keccak256("L1_TIP")];
        _subjects = [
            keccak256("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"),
            keccak256("DTnt7VZqR5ofHhAxZuDy4m3PhSjKFXpw3e"),
            bytes32(0)
        ];
        bytes32[9] memory allTypes = [
            keccak256("DOGE_BALANCE"),
            keccak256("DRC20_BALANCE"),
            keccak256("DRC20_TRANSFER_VALID"),
            keccak256("COLLECTION_COUNT"),
            keccak256("INSCRIPTION_OWNER"),
            keccak256("INSCRIPTION_VALID"),
            keccak256("INSCRIPTION_ACTION"),
            keccak256("TX_INCLUDED"),
            keccak256("L1_TIP")
        ];
        for (uint256 i = 0; i < allTypes.length; ++i) modelFee[allTypes[i]] = 0.05 ether;
    }

    // ---------------------------------------------------------------- reads for the invariants

    function requestCount() external view returns (uint256) {
        return _requests.length;
    }

    function requestAt(uint256 index) external view returns (ModelRequest memory) {
        return _requests[index];
    }

    function factCount() external view returns (uint256) {
        return _factIds.length;
    }

    /// @notice The model's fact number `index`: its (factType, subject, qualifier) and what is stored.
    function factAt(uint256 index) external view returns (bytes32[3] memory id, ModelFact memory fact) {
        id = _factIds[index];
        fact = _facts[keccak256(abi.encode(id[0], id[1], id[2]))];
    }

    function payeeCount() external view returns (uint256) {
        return payees.length;
    }

    function operationCount() external view returns (uint256) {
        return _operations.length;
    }

    function operationAt(uint256 index) external view returns (ModelOperation memory) {
        return _operations[index];
    }

    function violationCount() external view returns (uint256) {
        return violations.length;
    }

    function modelSet() external view returns (address[3] memory set) {
        for (uint256 i = 0; i < 3; ++i) set[i] = attesterAddress(setKeyIndexes[i]);
    }

    // ---------------------------------------------------------------- actions: facts

    /// @notice submitFact with a fact over a small key space (so that replacements collide) and
    /// signatures of the kind `signatureSeed` draws (see `_signatures`).
    function submitFact(uint256 actorSeed, uint256 keySeed, uint256 factSeed, uint256 signatureSeed) external {
        ++calls["submitFact"];
        IDogeAttestation.Fact memory fact = _fact(keySeed, factSeed);
        (bytes[] memory signatures, bool signaturesValid) = _signatures(fact, signatureSeed);
        bool expected = !modelPaused && signaturesValid && _factAcceptable(fact) && _newer(fact);
        vm.prank(_actor(actorSeed));
        try attestation.submitFact(fact, signatures) {
            if (!expected) return _violation("submitFact accepted a fact the model refuses");
            ++accepted["submitFact"];
            _store(fact);
        } catch {
            if (expected) _violation("submitFact refused a fact the model accepts");
        }
    }

    // ---------------------------------------------------------------- actions: paid requests

    function requestFact(uint256 actorSeed, uint256 keySeed, uint256 plugSeed, bool wrongFee) external {
        ++calls["requestFact"];
        address requester = _actor(actorSeed);
        bytes32 factType = _factTypes[keySeed % 3];
        bytes32 subject = _subjects[(keySeed / 3) % 3];
        bytes32 qualifier = factType == _factTypes[1] ? keccak256("doge") : bytes32(0);
        uint256 plugId = _plugId(plugSeed);
        uint256 fee = modelFee[factType];
        uint256 sent = wrongFee ? fee + 1 : fee;
        bool expected = !modelPaused && fee != 0 && !wrongFee && plugId <= type(uint96).max;
        vm.deal(requester, requester.balance + sent);
        uint256 balanceBefore = address(attestation).balance;
        vm.prank(requester);
        try attestation.requestFact{value: sent}(factType, subject, qualifier, plugId) returns (bytes32 id) {
            if (!expected) return _violation("requestFact accepted a request the model refuses");
            ++accepted["requestFact"];
            if (address(attestation).balance != balanceBefore + fee) _violation("requestFact escrowed another amount");
            _requests.push(
                ModelRequest({
                    id: id,
                    requester: requester,
                    feeWei: fee,
                    plugId: plugId,
                    factType: factType,
                    subject: subject,
                    qualifier: qualifier,
                    requestedAt: uint64(block.timestamp),
                    deadline: uint64(block.timestamp) + modelWindow,
                    status: IDogeAttestation.RequestStatus.Open
                })
            );
            openFeesWei += fee;
            paidInWei += fee;
        } catch {
            if (expected) _violation("requestFact refused a request the model accepts");
        }
    }

    /// @notice fulfill of a known request (or of an unknown id), answered by a matching fact or
    /// not, by any caller, with signatures of any kind.
    function fulfill(
        uint256 actorSeed,
        uint256 requestSeed,
        uint256 factSeed,
        uint256 signatureSeed,
        bool answerAnotherSubject
    ) external {
        ++calls["fulfill"];
        if (_requests.length == 0) return;
        ModelRequest storage request = _requests[requestSeed % _requests.length];
        IDogeAttestation.Fact memory fact = _fact(0, factSeed);
        fact.factType = request.factType;
        fact.subject = answerAnotherSubject ? keccak256(abi.encode(request.subject)) : request.subject;
        fact.qualifier = request.qualifier;
        (bytes[] memory signatures, bool signaturesValid) = _signatures(fact, signatureSeed);
        bool expected = !answerAnotherSubject && signaturesValid && _fulfilmentAcceptable(request, fact);
        address creator = _creatorFor(request);
        uint256 balanceBefore = address(attestation).balance;
        vm.prank(_actor(actorSeed));
        try attestation.fulfill(request.id, fact, signatures) {
            if (!expected) return _violation("fulfill accepted an answer the model refuses");
            ++accepted["fulfill"];
            if (address(attestation).balance != balanceBefore) _violation("fulfill moved ether");
            _credit(request, creator);
            if (_newer(fact)) _store(fact);
        } catch {
            if (expected) _violation("fulfill refused an answer the model accepts");
        }
    }

    function refund(uint256 actorSeed, uint256 requestSeed, bool byRequester) external {
        ++calls["refund"];
        if (_requests.length == 0) return;
        ModelRequest storage request = _requests[requestSeed % _requests.length];
        address caller = byRequester ? request.requester : _actor(actorSeed);
        bool expected =
            request.status == IDogeAttestation.RequestStatus.Open &&
                caller == request.requester &&
                block.timestamp > request.deadline;
        uint256 callerBefore = caller.balance;
        vm.prank(caller);
        try attestation.refund(request.id) {
            if (!expected) return _violation("refund accepted a call the model refuses");
            ++accepted["refund"];
            if (caller.balance != callerBefore + request.feeWei) _violation("refund paid another amount");
            request.status = IDogeAttestation.RequestStatus.Refunded;
            openFeesWei -= request.feeWei;
            paidOutWei += request.feeWei;
        } catch {
            if (expected) _violation("refund refused a call the model accepts");
        }
    }

    function withdraw(uint256 payeeSeed) external {
        ++calls["withdraw"];
        address payee = payees[payeeSeed % payees.length];
        uint256 owed = owedTo[payee];
        if (attestation.withdrawableOf(payee) != owed) _violation("withdrawableOf differs from the model");
        uint256 before = payee.balance;
        vm.prank(payee);
        try attestation.withdraw() {
            if (owed == 0) return _violation("withdraw paid an account the model owes nothing");
            ++accepted["withdraw"];
            if (payee.balance != before + owed) _violation("withdraw paid another amount than owed");
            owedTo[payee] = 0;
            paidOutWei += owed;
        } catch {
            if (owed != 0) _violation("withdraw refused an account the model owes");
        }
    }

    // ---------------------------------------------------------------- actions: plugs (who is a creator)

    function listPlug(uint256 actorSeed, bool delistAnother, uint256 plugSeed) external {
        ++calls["listPlug"];
        address actor = _actor(actorSeed);
        if (delistAnother && marketplace.plugCount() != 0) {
            uint256 plugId = 1 + (plugSeed % marketplace.plugCount());
            PlugsMarketplace.Plug memory plug = marketplace.getPlug(plugId);
            if (!plug.listed) return;
            vm.prank(plug.creator);
            marketplace.delistPlug(plugId);
            return;
        }
        vm.prank(actor);
        marketplace.listPlug(0, 0, "ipfs://plug");
    }

    // ---------------------------------------------------------------- actions: roles, pause, timelock, time

    function pause(uint256 actorSeed, bool byGuardian) external {
        ++calls["pause"];
        address caller = byGuardian ? modelGuardian : _actor(actorSeed);
        bool expected = caller == modelGuardian && !modelPaused;
        vm.prank(caller);
        try attestation.pause() {
            if (!expected) return _violation("pause accepted a call the model refuses");
            ++accepted["pause"];
            modelPaused = true;
        } catch {
            if (expected) _violation("pause refused the guardian");
        }
    }

    function unpause(uint256 actorSeed, bool byAdmin) external {
        ++calls["unpause"];
        address caller = byAdmin ? modelAdmin : _actor(actorSeed);
        bool expected = caller == modelAdmin && modelPaused;
        vm.prank(caller);
        try attestation.unpause() {
            if (!expected) return _violation("unpause accepted a call the model refuses");
            ++accepted["unpause"];
            modelPaused = false;
        } catch {
            if (expected) _violation("unpause refused the admin");
        }
    }

    /// @notice schedule of one of the setters (valid or invalid arguments), or of a function that
    /// is not a timelocked setter, by the admin or anyone.
    function schedule(uint256 actorSeed, bool byAdmin, uint256 callSeed, uint256 saltSeed) external {
        ++calls["schedule"];
        address caller = byAdmin ? modelAdmin : _actor(actorSeed);
        (bytes memory call, bool allowed) = _timelockCall(callSeed);
        bytes32 salt = bytes32(saltSeed % 3);
        uint256 existing = _findOperation(call, salt);
        bool pending = existing != type(uint256).max && !_operations[existing].cancelled;
        bool expected = caller == modelAdmin && allowed && !pending;
        vm.prank(caller);
        try attestation.schedule(call, salt) returns (bytes32 operationId) {
            if (!expected) return _violation("schedule accepted a call the model refuses");
            ++accepted["schedule"];
            if (operationId != keccak256(abi.encode(call, salt))) _violation("schedule returned another operation id");
            uint64 readyAt = uint64(block.timestamp) + 1 hours;
            _operations.push(
                ModelOperation({
                    call: call,
                    salt: salt,
                    readyAt: readyAt,
                    expiresAt: readyAt + 14 days,
                    executed: false,
                    cancelled: false
                })
            );
        } catch {
            if (expected) _violation("schedule refused a call the model accepts");
        }
    }

    function execute(uint256 actorSeed, bool byAdmin, uint256 operationSeed) external {
        ++calls["execute"];
        if (_operations.length == 0) return;
        uint256 index = _liveOperation(operationSeed);
        ModelOperation storage operation = _operations[index];
        address caller = byAdmin ? modelAdmin : _actor(actorSeed);
        bool inWindow = block.timestamp >= operation.readyAt && block.timestamp <= operation.expiresAt;
        bool expected =
            caller == modelAdmin &&
                !operation.cancelled &&
                !operation.executed &&
                inWindow &&
                _setterAccepts(operation.call);
        vm.prank(caller);
        try attestation.execute(operation.call, operation.salt) {
            if (!expected) return _violation("execute accepted a call the model refuses");
            ++accepted["execute"];
            operation.executed = true;
            _applySetter(operation.call);
        } catch {
            if (expected) _violation("execute refused a call the model accepts");
        }
    }

    function cancel(uint256 actorSeed, bool byAdmin, uint256 operationSeed) external {
        ++calls["cancel"];
        if (_operations.length == 0) return;
        uint256 index = _liveOperation(operationSeed);
        ModelOperation storage operation = _operations[index];
        address caller = byAdmin ? modelAdmin : _actor(actorSeed);
        bool expected = caller == modelAdmin && !operation.cancelled && !operation.executed;
        vm.prank(caller);
        try attestation.cancel(keccak256(abi.encode(operation.call, operation.salt))) {
            if (!expected) return _violation("cancel accepted a call the model refuses");
            ++accepted["cancel"];
            operation.cancelled = true;
        } catch {
            if (expected) _violation("cancel refused a call the model accepts");
        }
    }

    /// @notice Time passes: mostly minutes (requests expire within the hour), sometimes days (the
    /// timelock's delay and its 14-day window).
    function warp(uint256 secondsSeed, bool long) external {
        ++calls["warp"];
        uint256 step = long ? bound(secondsSeed, 1 days, 10 days) : bound(secondsSeed, 1, 2 hours);
        vm.warp(block.timestamp + step);
    }

    // ---------------------------------------------------------------- the model's rules

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

    function _plugId(uint256 seed) internal view returns (uint256) {
        uint256 kind = seed % 8;
        if (kind < 3) return 0;
        if (kind == 3) return uint256(type(uint96).max) + 1 + ((seed >> 8) % 1000); // too large: refused
        if (kind == 4) return 1000 + ((seed >> 8) % 1000); // never listed
        uint256 count = marketplace.plugCount();
        return count == 0 ? 0 : 1 + ((seed >> 8) % count);
    }

    function _fulfilmentAcceptable(
        ModelRequest storage request,
        IDogeAttestation.Fact memory fact
    ) internal view returns (bool) {
        return
            !modelPaused &&
            request.status == IDogeAttestation.RequestStatus.Open &&
            block.timestamp <= request.deadline &&
            fact.attestedAt >= request.requestedAt &&
            _factAcceptable(fact);
    }

    /// @notice A fulfilled request's fee: 20% to a creator other than the requester, the rest to the treasury.
    function _credit(ModelRequest storage request, address creator) internal {
        request.status = IDogeAttestation.RequestStatus.Fulfilled;
        openFeesWei -= request.feeWei;
        uint256 creatorShare = creator == address(0) ? 0 : (request.feeWei * 20) / 100;
        if (creatorShare != 0) {
            _addPayee(creator);
            owedTo[creator] += creatorShare;
        }
        owedTo[modelTreasury] += request.feeWei - creatorShare;
    }

    /// @notice Who the model credits 20% of `request`'s fee to on fulfilment now.
    function _creatorFor(ModelRequest storage request) internal view returns (address creator) {
        if (request.plugId == 0 || modelMarketplace == address(0)) return address(0);
        creator = marketplace.creatorOf(request.plugId);
        if (creator == request.requester) creator = address(0);
    }

    /// @notice A fact drawn from `factSeed`: value, data, l1Height and attestedAt.
    function _fact(uint256 keySeed, uint256 factSeed) internal view returns (IDogeAttestation.Fact memory fact) {
        uint256 value = uint256(keccak256(abi.encode(factSeed, "value")));
        fact.factType = _factTypes[keySeed % 3];
        fact.subject = fact.factType == _factTypes[2] ? bytes32(0) : _subjects[(keySeed / 3) % 2];
        fact.qualifier = fact.factType == _factTypes[1] ? keccak256("doge") : bytes32(0);
        // Mostly in range; 1 in 16 at or beyond the 128 bits a stored value has.
        fact.value = (value % 16 == 0) ? type(uint128).max + ((value >> 4) % 3) : (value >> 8) % 1e18;
        fact.data = (value >> 128) % 3 == 0 ? bytes32(0) : keccak256(abi.encode(value));
        fact.l1Height = uint64(bound(factSeed, 0, 600));
        // attestedAt from 2 hours before now to 20 minutes ahead (beyond the 15-minute skew at the end).
        uint256 earliest = block.timestamp > 2 hours ? block.timestamp - 2 hours : 0;
        fact.attestedAt = uint64(
            bound(uint256(keccak256(abi.encode(factSeed, "age"))), earliest, block.timestamp + 20 minutes)
        );
        fact.attesterSetId = modelSetId;
    }

    /// @notice Signatures over `fact` of one of these kinds (`signatureSeed % 16`), and whether the contract
    /// must accept them: 0-5 two current attesters sorted, 6-7 all three sorted; 8 one only;
    /// 9 one attester twice; 10 two unsorted; 11 a current attester with an outsider or a former
    /// attester; 12 another chain's domain; 13 another contract's domain; 14 signed for another
    /// attester set id; 15 a high-s twin of a valid signature.
    function _signatures(
        IDogeAttestation.Fact memory fact,
        uint256 signatureSeed
    ) internal view returns (bytes[] memory signatures, bool valid) {
        uint256 kind = signatureSeed % 16;
        uint256 signerSeed = signatureSeed >> 4;
        uint256 a = setKeyIndexes[signerSeed % 3];
        uint256 b = setKeyIndexes[((signerSeed % 3) + 1 + ((signerSeed >> 8) % 2)) % 3];
        uint256 chainId = block.chainid;
        address verifyingContract = address(attestation);
        uint256[] memory keys = sortedBySigner(pair(a, b));
        valid = kind < 8;
        if (kind >= 6 && kind < 8) {
            keys = new uint256[](3);
            for (uint256 i = 0; i < 3; ++i) keys[i] = setKeyIndexes[i];
            keys = sortedBySigner(keys);
        } else if (kind == 8) {
            keys = new uint256[](1);
            keys[0] = a;
        } else if (kind == 9) {
            keys = pair(a, a);
        } else if (kind == 10) {
            (keys[0], keys[1]) = (keys[1], keys[0]);
        } else if (kind == 11) {
            keys = sortedBySigner(pair(a, _notInSet(signerSeed >> 16)));
        } else if (kind == 12) {
            chainId += 1 + ((signerSeed >> 16) % 1000);
        } else if (kind == 13) {
            verifyingContract = address(marketplace);
        } else if (kind == 14) {
            fact.attesterSetId = modelSetId + 1 + uint64((signerSeed >> 16) % 3);
        }
        signatures = signAll(factDigestFor(fact, chainId, verifyingContract), keys);
        if (kind == 15) signatures[(signerSeed >> 16) % 2] = malleated(signatures[(signerSeed >> 16) % 2]);
    }

    /// @notice A pool key outside the current set: the outsider or a spare/former attester.
    function _notInSet(uint256 seed) internal view returns (uint256) {
        for (uint256 offset = 0; offset < ATTESTER_KEY_COUNT; ++offset) {
            uint256 candidate = (seed + offset) % ATTESTER_KEY_COUNT;
            if (candidate != setKeyIndexes[0] && candidate != setKeyIndexes[1] && candidate != setKeyIndexes[2]) {
                return candidate;
            }
        }
        return OUTSIDER_KEY_INDEX;
    }

    /// @notice Clock and size checks of _verifyFact (the signature checks are the kind's).
    function _factAcceptable(IDogeAttestation.Fact memory fact) internal view returns (bool) {
        return fact.attestedAt <= block.timestamp + MAX_SKEW && fact.value <= type(uint128).max;
    }

    function _factKey(IDogeAttestation.Fact memory fact) internal pure returns (bytes32) {
        return keccak256(abi.encode(fact.factType, fact.subject, fact.qualifier));
    }

    /// @notice The rule a replacement must meet: l1Height not lower, attestedAt strictly later.
    function _newer(IDogeAttestation.Fact memory fact) internal view returns (bool) {
        ModelFact storage stored = _facts[_factKey(fact)];
        return fact.attestedAt > stored.attestedAt && fact.l1Height >= stored.l1Height;
    }

    function _store(IDogeAttestation.Fact memory fact) internal {
        bytes32 key = _factKey(fact);
        ModelFact storage stored = _facts[key];
        if (fact.l1Height < stored.l1Height) _violation("a stored fact went back in l1Height");
        if (!_factKeySeen[key]) {
            _factKeySeen[key] = true;
            _factIds.push([fact.factType, fact.subject, fact.qualifier]);
        }
        _facts[key] = ModelFact({
            exists: true,
            value: fact.value,
            data: fact.data,
            l1Height: fact.l1Height,
            attestedAt: fact.attestedAt
        });
        if (fact.l1Height > modelTip) modelTip = fact.l1Height;
    }

    // ---------------------------------------------------------------- timelock calls

    /// @notice One of the setters with valid or invalid arguments, or a call schedule must refuse.
    function _timelockCall(uint256 seed) internal view returns (bytes memory call, bool allowed) {
        uint256 kind = seed % 9;
        uint256 argument = seed >> 8;
        allowed = true;
        if (kind == 0) {
            // Rotation to three of the five pool keys, or an invalid set (a duplicate or the zero address).
            address[3] memory set;
            uint256 first = argument % 5;
            set[0] = attesterAddress(first);
            set[1] = attesterAddress((first + 1 + ((argument >> 8) % 4)) % 5);
            set[2] = attesterAddress((first + 1 + ((((argument >> 8) % 4) + 1 + ((argument >> 16) % 3)) % 4)) % 5);
            if ((argument >> 24) % 8 == 0) set[2] = set[0];
            if ((argument >> 24) % 8 == 1) set[1] = address(0);
            call = abi.encodeCall(IDogeAttestation.setAttesters, (set));
        } else if (kind == 1) {
            uint256 fee =
                argument % 4 == 0
                    ? 0
                    : argument % 4 == 1
                        ? uint256(type(uint96).max) + 1
                        : (argument >> 8) % 1 ether;
            call = abi.encodeCall(IDogeAttestation.setRequestFee, (_factTypes[(argument >> 128) % 3], fee));
        } else if (kind == 2) {
            call = abi.encodeCall(
                IDogeAttestation.setRequestDeadlineWindow,
                (uint64(bound(argument, 1 minutes, 8 days)))
            );
        } else if (kind == 3) {
            address treasury = argument % 5 == 0 ? address(0) : actors[argument % actors.length];
            call = abi.encodeCall(IDogeAttestation.setTreasury, (treasury));
        } else if (kind == 4) {
            call = abi.encodeCall(
                IDogeAttestation.setPlugsMarketplace,
                (argument % 2 == 0 ? address(0) : address(marketplace))
            );
        } else if (kind == 5) {
            address guardian = argument % 5 == 0 ? address(0) : actors[argument % actors.length];
            call = abi.encodeCall(IAdminTimelock.setGuardian, (guardian));
        } else if (kind == 6) {
            address newAdmin = argument % 5 == 0 ? address(0) : actors[argument % actors.length];
            call = abi.encodeCall(IAdminTimelock.setAdmin, (newAdmin));
        } else if (kind == 7) {
            // Money paths are never schedulable.
            call = abi.encodeCall(IDogeAttestation.withdraw, ());
            allowed = false;
        } else {
            call = abi.encodeCall(IDogeAttestation.refund, (bytes32(argument)));
            allowed = false;
        }
    }

    /// @notice Whether the setter inside `call` accepts its arguments.
    function _setterAccepts(bytes memory call) internal pure returns (bool) {
        bytes4 selector = bytes4(call);
        bytes memory arguments = _arguments(call);
        if (selector == IDogeAttestation.setAttesters.selector) {
            address[3] memory set = abi.decode(arguments, (address[3]));
            return
                set[0] != address(0) &&
                set[1] != address(0) &&
                set[2] != address(0) &&
                set[0] != set[1] &&
                set[0] != set[2] &&
                set[1] != set[2];
        }
        if (selector == IDogeAttestation.setRequestFee.selector) {
            (, uint256 fee) = abi.decode(arguments, (bytes32, uint256));
            return fee <= type(uint96).max;
        }
        if (selector == IDogeAttestation.setRequestDeadlineWindow.selector) {
            uint64 window = abi.decode(arguments, (uint64));
            return window >= MIN_WINDOW && window <= MAX_WINDOW;
        }
        if (selector == IDogeAttestation.setTreasury.selector) return abi.decode(arguments, (address)) != address(0);
        if (selector == IDogeAttestation.setPlugsMarketplace.selector) return true;
        if (selector == IAdminTimelock.setGuardian.selector) return abi.decode(arguments, (address)) != address(0);
        if (selector == IAdminTimelock.setAdmin.selector) return abi.decode(arguments, (address)) != address(0);
        return false;
    }

    function _applySetter(bytes memory call) internal {
        bytes4 selector = bytes4(call);
        bytes memory arguments = _arguments(call);
        if (selector == IDogeAttestation.setAttesters.selector) {
            address[3] memory set = abi.decode(arguments, (address[3]));
            for (uint256 i = 0; i < 3; ++i) setKeyIndexes[i] = _keyIndexOf(set[i]);
            ++modelSetId;
        } else if (selector == IDogeAttestation.setRequestFee.selector) {
            (bytes32 factType, uint256 fee) = abi.decode(arguments, (bytes32, uint256));
            modelFee[factType] = fee;
        } else if (selector == IDogeAttestation.setRequestDeadlineWindow.selector) {
            modelWindow = abi.decode(arguments, (uint64));
        } else if (selector == IDogeAttestation.setTreasury.selector) {
            modelTreasury = abi.decode(arguments, (address));
            _addPayee(modelTreasury);
        } else if (selector == IDogeAttestation.setPlugsMarketplace.selector) {
            modelMarketplace = abi.decode(arguments, (address));
        } else if (selector == IAdminTimelock.setGuardian.selector) {
            modelGuardian = abi.decode(arguments, (address));
        } else if (selector == IAdminTimelock.setAdmin.selector) {
            modelAdmin = abi.decode(arguments, (address));
        }
    }

    function _keyIndexOf(address attester) internal pure returns (uint256) {
        for (uint256 i = 0; i < ATTESTER_KEY_COUNT; ++i) if (attesterAddress(i) == attester) return i;
        revert("not a pool key");
    }

    function _arguments(bytes memory call) internal pure returns (bytes memory arguments) {
        arguments = new bytes(call.length - 4);
        for (uint256 i = 0; i < arguments.length; ++i) arguments[i] = call[i + 4];
    }

    /// @notice The latest scheduling of (call, salt), or type(uint256).max if never scheduled.
    function _findOperation(bytes memory call, bytes32 salt) internal view returns (uint256) {
        for (uint256 i = _operations.length; i > 0; --i) {
            ModelOperation storage operation = _operations[i - 1];
            if (operation.salt == salt && keccak256(operation.call) == keccak256(call)) return i - 1;
        }
        return type(uint256).max;
    }

    /// @notice An operation entry picked by `seed`, taken as its latest scheduling (a cancelled
    /// operation may be scheduled again under the same id).
    function _liveOperation(uint256 seed) internal view returns (uint256) {
        ModelOperation storage picked = _operations[seed % _operations.length];
        return _findOperation(picked.call, picked.salt);
    }
}
