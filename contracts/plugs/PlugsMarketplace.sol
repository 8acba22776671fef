// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IPlugsMarketplace} from "./IPlugsMarketplace.sol";

/// @title PlugsMarketplace
/// @notice See {IPlugsMarketplace}. No owner, no fees, no admin path: nothing but a creator's own
/// withdrawal moves a creator's balance.
contract PlugsMarketplace is IPlugsMarketplace, ReentrancyGuard {
    /// @inheritdoc IPlugsMarketplace
    uint256 public constant MAX_METADATA_URI_BYTES = 2048;
    /// @inheritdoc IPlugsMarketplace
    uint64 public constant MAX_LICENSE_DURATION_SECONDS = 100 * 365 days;

    uint256 private _plugCount;
    mapping(uint256 plugId => Plug) private _plugs;
    mapping(uint256 plugId => mapping(address buyer => License)) private _licenses;
    mapping(address creator => uint256 amountWei) private _payouts;

    modifier onlyListedPlugCreator(uint256 plugId) {
        _checkListedPlugCreator(plugId);
        _;
    }

    /// @inheritdoc IPlugsMarketplace
    function listPlug(
        uint256 priceWei,
        uint64 licenseDurationSeconds,
        string calldata metadataURI
    ) external returns (uint256 plugId) {
        uint256 uriLength = bytes(metadataURI).length;
        if (uriLength == 0 || uriLength > MAX_METADATA_URI_BYTES) {
            revert PlugsMetadataURILengthInvalid(uriLength, 1, MAX_METADATA_URI_BYTES);
        }
        if (licenseDurationSeconds > MAX_LICENSE_DURATION_SECONDS) {
            revert PlugsLicenseDurationTooLong(licenseDurationSeconds, MAX_LICENSE_DURATION_SECONDS);
        }
        plugId = ++_plugCount; // ids start at 1: 0 means "no plug" to DogeAttestation
        _plugs[plugId] = Plug({
            creator: msg.sender,
            licenseDurationSeconds: licenseDurationSeconds,
            listed: true,
            priceWei: priceWei,
            metadataURI: metadataURI
        });
        emit PlugListed(plugId, msg.sender, priceWei, licenseDurationSeconds, metadataURI);
    }

    /// @inheritdoc IPlugsMarketplace
    function setPrice(uint256 plugId, uint256 newPriceWei) external onlyListedPlugCreator(plugId) {
        Plug storage plug = _plugs[plugId];
        uint256 oldPriceWei = plug.priceWei;
        plug.priceWei = newPriceWei;
        emit PlugPriceChanged(plugId, oldPriceWei, newPriceWei);
    }

    /// @inheritdoc IPlugsMarketplace
    function delistPlug(uint256 plugId) external onlyListedPlugCreator(plugId) {
        _plugs[plugId].listed = false;
        emit PlugDelisted(plugId, msg.sender);
    }

    /// @inheritdoc IPlugsMarketplace
    function buyLicense(uint256 plugId) external payable returns (uint64 expiresAt) {
        Plug storage plug = _plugs[plugId];
        if (!plug.listed) revert PlugsNotListed(plugId);
        uint256 priceWei = plug.priceWei;
        if (msg.value != priceWei) revert PlugsIncorrectPayment(plugId, msg.value, priceWei);

        License storage license = _licenses[plugId][msg.sender];
        uint64 durationSeconds = plug.licenseDurationSeconds;
        uint64 nowSeconds = uint64(block.timestamp);
        if (durationSeconds != 0) {
            // Renewing a license that is still valid extends it from its current expiry.
            uint64 currentExpiresAt = license.expiresAt;
            expiresAt = (currentExpiresAt > nowSeconds ? currentExpiresAt : nowSeconds) + durationSeconds;
        } else if (license.purchasedAt != 0) {
            // The duration is fixed at listing, so a license of this plug bought earlier is perpetual too.
            revert PlugsLicenseAlreadyPerpetual(plugId, msg.sender);
        }
        license.purchasedAt = nowSeconds;
        license.expiresAt = expiresAt;

        address creator = plug.creator;
        _payouts[creator] += priceWei;
        emit LicensePurchased(plugId, msg.sender, creator, priceWei, expiresAt);
    }

    /// @inheritdoc IPlugsMarketplace
    function withdrawPayout() external nonReentrant returns (uint256 amountWei) {
        amountWei = _payouts[msg.sender];
        if (amountWei == 0) revert PlugsNothingToWithdraw(msg.sender);
        // Checks-effects-interactions on top of the guard: the balance is gone before the call.
        _payouts[msg.sender] = 0;
        (bool sent, ) = payable(msg.sender).call{value: amountWei}("");
        if (!sent) revert PlugsPayoutFailed(msg.sender, amountWei);
        emit PayoutWithdrawn(msg.sender, amountWei);
    }

    /// @inheritdoc IPlugsMarketplace
    function creatorOf(uint256 plugId) external view returns (address creator) {
        Plug storage plug = _plugs[plugId];
        if (plug.listed) creator = plug.creator;
    }

    /// @inheritdoc IPlugsMarketplace
    function getPlug(uint256 plugId) external view returns (Plug memory plug) {
        return _plugs[plugId];
    }

    /// @inheritdoc IPlugsMarketplace
    function plugCount() external view returns (uint256 count) {
        return _plugCount;
    }

    /// @inheritdoc IPlugsMarketplace
    function licenseOf(uint256 plugId, address buyer) external view returns (License memory license) {
        return _licenses[plugId][buyer];
    }

    /// @inheritdoc IPlugsMarketplace
    function hasLicense(uint256 plugId, address buyer) external view returns (bool) {
        License storage license = _licenses[plugId][buyer];
        if (license.purchasedAt == 0) return false;
        uint64 expiresAt = license.expiresAt;
        return expiresAt == 0 || block.timestamp < expiresAt;
    }

    /// @inheritdoc IPlugsMarketplace
    function payoutOf(address creator) external view returns (uint256 amountWei) {
        return _payouts[creator];
    }

    function _checkListedPlugCreator(uint256 plugId) private view {
        Plug storage plug = _plugs[plugId];
        if (!plug.listed) revert PlugsNotListed(plugId);
        if (plug.creator != msg.sender) revert PlugsNotCreator(plugId, msg.sender, plug.creator);
    }
}
