// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Vm
/// @notice The Forge cheatcodes our suites use, declared by hand (forge-std is not on the npm
/// registry and we take no git submodules). Forge answers calls to `VM_ADDRESS`; the signatures
/// are Forge 1.7's (foundry-rs/foundry crates/cheatcodes/spec/src/vm.rs), add a declaration here
/// when a test needs another cheatcode.
interface Vm {
    // ---------------------------------------------------------------- environment
    function prank(address msgSender) external;
    function startPrank(address msgSender) external;
    function stopPrank() external;
    function deal(address account, uint256 newBalance) external;
    function warp(uint256 newTimestamp) external;
    function roll(uint256 newHeight) external;
    function chainId(uint256 newChainId) external;
    function label(address account, string calldata newLabel) external;
    function assume(bool condition) external pure;
    function etch(address target, bytes calldata newRuntimeBytecode) external;
    function load(address target, bytes32 slot) external view returns (bytes32 data);
    function store(address target, bytes32 slot, bytes32 value) external;

    // ---------------------------------------------------------------- keys and signatures
    function addr(uint256 privateKey) external pure returns (address keyAddr);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);

    // ---------------------------------------------------------------- expectations
    function expectRevert() external;
    function expectRevert(bytes4 revertData) external;
    function expectRevert(bytes calldata revertData) external;
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData) external;

    // ---------------------------------------------------------------- files (fs_permissions in foundry.toml)
    function readFile(string calldata path) external view returns (string memory data);
    function projectRoot() external view returns (string memory path);

    // ---------------------------------------------------------------- JSON
    function parseJsonUint(string calldata json, string calldata key) external pure returns (uint256);
    function parseJsonBytes(string calldata json, string calldata key) external pure returns (bytes memory);
    function parseJsonBytes32(string calldata json, string calldata key) external pure returns (bytes32);
    function parseJsonString(string calldata json, string calldata key) external pure returns (string memory);
    function parseJsonBool(string calldata json, string calldata key) external pure returns (bool);
    function keyExistsJson(string calldata json, string calldata key) external view returns (bool);
    /// @dev ABI-encoded `typeDescription[]` (e.g. "Vector(bytes body,string name)": fields in the
    /// JSON objects' key order, which Forge sorts alphabetically).
    function parseJsonTypeArray(
        string calldata json,
        string calldata key,
        string calldata typeDescription
    ) external pure returns (bytes memory);

    // ---------------------------------------------------------------- strings
    function toString(uint256 value) external pure returns (string memory stringifiedValue);
    function toString(address value) external pure returns (string memory stringifiedValue);
    function toString(bytes32 value) external pure returns (string memory stringifiedValue);

    // ---------------------------------------------------------------- assertions (revert with a readable message)
    function assertTrue(bool condition, string calldata error) external pure;
    function assertFalse(bool condition, string calldata error) external pure;
    function assertEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertEq(int256 left, int256 right, string calldata error) external pure;
    function assertEq(address left, address right, string calldata error) external pure;
    function assertEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertEq(bool left, bool right, string calldata error) external pure;
    function assertEq(bytes calldata left, bytes calldata right, string calldata error) external pure;
    function assertEq(string calldata left, string calldata right, string calldata error) external pure;
    function assertNotEq(address left, address right, string calldata error) external pure;
    function assertGe(uint256 left, uint256 right, string calldata error) external pure;
    function assertLe(uint256 left, uint256 right, string calldata error) external pure;
    function assertGt(uint256 left, uint256 right, string calldata error) external pure;
    function assertLt(uint256 left, uint256 right, string calldata error) external pure;
}

/// @title ForgeTest
/// @notice The one base of our Forge suites: the cheatcode handle, assertions, `bound`, actor
/// helpers, and the invariant target hooks Forge reads from a test contract after `setUp`
/// (`targetContracts`, `targetSenders`, `targetSelectors`, `excludeContracts`, `excludeSenders`;
/// the names and return types are what Forge 1.7 calls, crates/evm/evm/src/executors/invariant).
abstract contract ForgeTest {
    /// @dev address(uint160(uint256(keccak256("hevm cheat code")))), where Forge answers cheatcodes.
    address internal constant VM_ADDRESS = 0x7109709ECfa91a80626fF3989D68f67F5b1DD12D;
    Vm internal constant vm = Vm(VM_ADDRESS);

    /// @notice A contract and the selectors of it that an invariant run may call.
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    address[] private _targetedContracts;
    address[] private _targetedSenders;
    address[] private _excludedContracts;
    address[] private _excludedSenders;
    FuzzSelector[] private _targetedSelectors;

    // ---------------------------------------------------------------- invariant target hooks

    function targetContracts() public view returns (address[] memory) {
        return _targetedContracts;
    }

    function targetSenders() public view returns (address[] memory) {
        return _targetedSenders;
    }

    function excludeContracts() public view returns (address[] memory) {
        return _excludedContracts;
    }

    function excludeSenders() public view returns (address[] memory) {
        return _excludedSenders;
    }

    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return _targetedSelectors;
    }

    function targetContract(address target) internal {
        _targetedContracts.push(target);
    }

    function targetSender(address sender) internal {
        _targetedSenders.push(sender);
    }

    function excludeContract(address target) internal {
        _excludedContracts.push(target);
    }

    function excludeSender(address sender) internal {
        _excludedSenders.push(sender);
    }

    function targetSelector(address target, bytes4[] memory selectors) internal {
        _targetedSelectors.push(FuzzSelector({addr: target, selectors: selectors}));
    }

    // ---------------------------------------------------------------- helpers

    /// @notice `value` mapped into [min, max] (uniformly enough for fuzzing: min + value mod size,
    /// keeping small inputs small so that Forge's edge values land on the bounds).
    function bound(uint256 value, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (value >= min && value <= max) return value;
        uint256 size = max - min;
        if (size == type(uint256).max) return value;
        return min + (value % (size + 1));
    }

    /// @notice A labelled address with a private key derived from `name` (keccak256 of the name).
    function makeKeyedAddr(string memory name) internal returns (address account, uint256 privateKey) {
        privateKey = uint256(keccak256(bytes(name)));
        account = vm.addr(privateKey);
        vm.label(account, name);
    }

    /// @notice A labelled address derived from `name`.
    function makeAddr(string memory name) internal returns (address account) {
        (account, ) = makeKeyedAddr(name);
    }

    /// @notice A 65-byte `r || s || v` signature of `digest`, the layout OpenZeppelin's ECDSA reads.
    function signDigest(uint256 privateKey, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(privateKey, digest);
        return abi.encodePacked(r, s, v);
    }
}
