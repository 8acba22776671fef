// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IPlugsMarketplace
/// @notice A marketplace of "plugs" (data services built on the attested facts). A creator lists a
/// plug with a price in wei, a license duration and a metadata URI and gets a plug id (ids start
/// at 1, so 0 never names a plug). A buyer pays exactly the current price and gets a license for
/// (plug, buyer), perpetual or expiring after the plug's duration. Payments are credited to the
/// creator's payout balance and withdrawn later (pull). A creator may change the price for future
/// buyers and delist the plug; licenses already sold stay valid. `DogeAttestation` asks
/// `creatorOf(plugId)` whom to credit 20% of a paid fact request's fee (nobody when the creator is
/// the requester: listing is open to anyone, so the share never flows back to the payer).
/// @dev Invariant: the contract's ether balance equals the sum of all unpaid payout balances.
interface IPlugsMarketplace {
    /// @notice One listed (or formerly listed) plug.
    /// @param creator Address that listed the plug and is paid for its licenses.
    /// @param licenseDurationSeconds Lifetime of a license bought for this plug; 0 = perpetual. Fixed at listing.
    /// @param listed False once the creator delisted the plug; delisting is final.
    /// @param priceWei Price of one license for future buyers, in wei (0 = free).
    /// @param metadataURI Where the plug's description lives (e.g. ipfs://...).
    struct Plug {
        address creator;
        uint64 licenseDurationSeconds;
        bool listed;
        uint256 priceWei;
        string metadataURI;
    }

    /// @notice One buyer's license for one plug.
    /// @param purchasedAt Block timestamp of the latest purchase; 0 if the buyer never bought one.
    /// @param expiresAt Block timestamp from which the license is no longer valid; 0 = perpetual.
    struct License {
        uint64 purchasedAt;
        uint64 expiresAt;
    }

    /// @notice A creator listed a new plug.
    /// @param plugId The new plug's id.
    /// @param creator The plug's creator (the caller).
    /// @param priceWei Price of one license, in wei.
    /// @param licenseDurationSeconds Lifetime of a license; 0 = perpetual.
    /// @param metadataURI The plug's metadata URI.
    event PlugListed(
        uint256 indexed plugId,
        address indexed creator,
        uint256 priceWei,
        uint64 licenseDurationSeconds,
        string metadataURI
    );

    /// @notice A creator changed the price future buyers pay.
    /// @param plugId The plug.
    /// @param oldPriceWei The price before the change.
    /// @param newPriceWei The price from now on.
    event PlugPriceChanged(uint256 indexed plugId, uint256 oldPriceWei, uint256 newPriceWei);

    /// @notice A creator delisted a plug: no new licenses; `creatorOf` returns the zero address.
    /// @param plugId The plug.
    /// @param creator The plug's creator.
    event PlugDelisted(uint256 indexed plugId, address indexed creator);

    /// @notice A buyer bought (or renewed) a license.
    /// @param plugId The plug.
    /// @param buyer The licensee (the caller).
    /// @param creator The creator credited with the payment.
    /// @param priceWei The amount paid, in wei.
    /// @param expiresAt When the license stops being valid; 0 = perpetual.
    event LicensePurchased(
        uint256 indexed plugId,
        address indexed buyer,
        address indexed creator,
        uint256 priceWei,
        uint64 expiresAt
    );

    /// @notice A creator withdrew their whole payout balance.
    /// @param creator The creator (the caller), who received the ether.
    /// @param amountWei The amount sent, in wei.
    event PayoutWithdrawn(address indexed creator, uint256 amountWei);

    /// @notice The plug id was never listed, or its creator delisted it.
    /// @param plugId The plug id given.
    error PlugsNotListed(uint256 plugId);

    /// @notice Only the plug's creator may do this.
    /// @param plugId The plug.
    /// @param caller The caller.
    /// @param creator The plug's creator.
    error PlugsNotCreator(uint256 plugId, address caller, address creator);

    /// @notice The ether sent is not exactly the plug's current price (no overpaying, no refunds:
    /// sending the price you saw also guards you against a price raised before your transaction).
    /// @param plugId The plug.
    /// @param sentWei The ether sent with the call.
    /// @param priceWei The plug's current price.
    error PlugsIncorrectPayment(uint256 plugId, uint256 sentWei, uint256 priceWei);

    /// @notice The buyer already holds a perpetual license for this plug; buying again would only burn money.
    /// @param plugId The plug.
    /// @param buyer The buyer.
    error PlugsLicenseAlreadyPerpetual(uint256 plugId, address buyer);

    /// @notice The metadata URI is empty or too long.
    /// @param length Its length in bytes.
    /// @param minLength Smallest accepted length (1).
    /// @param maxLength Largest accepted length (`MAX_METADATA_URI_BYTES`).
    error PlugsMetadataURILengthInvalid(uint256 length, uint256 minLength, uint256 maxLength);

    /// @notice The license duration exceeds `MAX_LICENSE_DURATION_SECONDS`.
    /// @param licenseDurationSeconds The duration given.
    /// @param maxLicenseDurationSeconds The largest accepted duration.
    error PlugsLicenseDurationTooLong(uint64 licenseDurationSeconds, uint64 maxLicenseDurationSeconds);

    /// @notice The caller has no payout balance.
    /// @param creator The caller.
    error PlugsNothingToWithdraw(address creator);

    /// @notice Sending the payout failed (the receiver reverted or ran out of gas); the balance is kept.
    /// @param creator The caller and receiver.
    /// @param amountWei The amount that could not be sent.
    error PlugsPayoutFailed(address creator, uint256 amountWei);

    /// @notice Lists a new plug owned by the caller.
    /// @param priceWei Price of one license, in wei (0 = free).
    /// @param licenseDurationSeconds Lifetime of a license, at most `MAX_LICENSE_DURATION_SECONDS`;
    /// 0 = perpetual. Cannot be changed later.
    /// @param metadataURI 1 to `MAX_METADATA_URI_BYTES` bytes.
    /// @return plugId The new plug's id (1, 2, 3, ...).
    /// @custom:emits PlugListed
    /// @custom:reverts PlugsMetadataURILengthInvalid, PlugsLicenseDurationTooLong
    function listPlug(
        uint256 priceWei,
        uint64 licenseDurationSeconds,
        string calldata metadataURI
    ) external returns (uint256 plugId);

    /// @notice Changes the price future buyers pay; licenses already sold are unaffected.
    /// @param plugId A listed plug of the caller.
    /// @param newPriceWei The new price, in wei.
    /// @custom:emits PlugPriceChanged
    /// @custom:reverts PlugsNotListed, PlugsNotCreator
    function setPrice(uint256 plugId, uint256 newPriceWei) external;

    /// @notice Delists a plug for good: no new licenses, `creatorOf` returns the zero address.
    /// Licenses already sold stay valid until they expire; payouts stay withdrawable.
    /// @param plugId A listed plug of the caller.
    /// @custom:emits PlugDelisted
    /// @custom:reverts PlugsNotListed, PlugsNotCreator
    function delistPlug(uint256 plugId) external;

    /// @notice Buys a license for the caller, paying exactly the plug's current price, credited to
    /// the creator's payout balance. For an expiring plug a buyer whose license is still valid
    /// renews it: the new expiry is counted from the old one, so no paid time is lost. A buyer who
    /// already holds a perpetual license cannot buy again.
    /// @param plugId A listed plug.
    /// @return expiresAt When the license stops being valid; 0 = perpetual.
    /// @custom:emits LicensePurchased
    /// @custom:reverts PlugsNotListed, PlugsIncorrectPayment, PlugsLicenseAlreadyPerpetual
    function buyLicense(uint256 plugId) external payable returns (uint64 expiresAt);

    /// @notice Sends the caller's whole payout balance to the caller (pull payment, non-reentrant).
    /// @return amountWei The amount sent.
    /// @custom:emits PayoutWithdrawn
    /// @custom:reverts PlugsNothingToWithdraw, PlugsPayoutFailed
    function withdrawPayout() external returns (uint256 amountWei);

    /// @notice The creator of a listed plug; the zero address for an id never listed or delisted.
    /// `DogeAttestation` pays the plug's share of a request fee to this address, unless it is the
    /// requester.
    /// @param plugId Any id.
    /// @return creator The creator, or address(0).
    function creatorOf(uint256 plugId) external view returns (address creator);

    /// @notice Everything stored about a plug, delisted or not; an all-zero struct for an unknown id.
    /// @param plugId Any id.
    /// @return plug The plug.
    function getPlug(uint256 plugId) external view returns (Plug memory plug);

    /// @notice Number of plugs ever listed; ids run from 1 to this number.
    /// @return count The number of plugs.
    function plugCount() external view returns (uint256 count);

    /// @notice The latest license of `buyer` for `plugId`, expired or not (zeros when none was bought).
    /// @param plugId The plug.
    /// @param buyer The licensee.
    /// @return license The license.
    function licenseOf(uint256 plugId, address buyer) external view returns (License memory license);

    /// @notice Whether `buyer` holds a valid license for `plugId` now: bought, and perpetual or
    /// `block.timestamp < expiresAt`. Stays true after the plug is delisted.
    /// @param plugId The plug.
    /// @param buyer The licensee.
    /// @return True when the license is valid.
    function hasLicense(uint256 plugId, address buyer) external view returns (bool);

    /// @notice Ether credited to `creator` and not yet withdrawn, in wei.
    /// @param creator Any address.
    /// @return amountWei The unpaid balance.
    function payoutOf(address creator) external view returns (uint256 amountWei);

    /// @notice Largest metadata URI accepted by `listPlug`, in bytes (2048).
    /// @return The limit.
    function MAX_METADATA_URI_BYTES() external view returns (uint256);

    /// @notice Longest license duration accepted by `listPlug`, in seconds (100 years of 365 days).
    /// @return The limit.
    function MAX_LICENSE_DURATION_SECONDS() external view returns (uint64);
}
