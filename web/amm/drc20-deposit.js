// The token side of the AMM pages: a DRC-20 deposit sent through the person's wallet
// (window.wallet.sendDrc20: the wallet inscribes a transfer of the amount onto its own address, then
// sends that inscription to the custody address) and answered as its txid, which the signed order
// names next. The AMM credits it to the owner of the transfer inscription it moved (the payer,
// docs/security.md "AMM and bonding custody"), so nothing here decides who is paid. A wallet that
// cannot do the step says so by name (WALLET_UNSUPPORTED), with what to do.
import { ApiError, api, formatTokens, wallet } from "/amm.js";

/** Whole DRC-20 units typed by a person ("1000" or "1,000"), as a decimal string, or null. */
export function parseTokens(text) {
  const match = /^\s*(\d{1,3}(?:,\d{3})+|\d+)\s*$/.exec(text ?? "");
  if (!match) return null;
  return BigInt(match[1].replace(/,/g, "")).toString();
}

/**
 * Sends `amount` whole units of `tick` from the connected address to `to` through the wallet;
 * `progress(text)` is told each step. Answers the deposit's txid.
 */
export async function sendTokenDeposit({ tick, amount, to, progress }) {
  const provider = wallet();
  if (typeof provider.sendDrc20 !== "function")
    throw new ApiError(
      0,
      "WALLET_UNSUPPORTED",
      "this page's wallet provider cannot send DRC-20 tokens: reload the page",
    );
  if (!provider.address) await provider.connect();
  progress(
    `Approve in ${provider.name ?? "your wallet"}: a transfer of ${formatTokens(amount)} ${tick} inscribed to your address, then sent to the custody ${to}…`,
  );
  const { txid } = await provider.sendDrc20({ tick, amount, to });
  progress(`Token deposit sent (${txid}); waiting for it to be mined…`);
  return txid;
}

/** The address's DRC-20 balance of `tick` as the explorer's index shows it: {available, transferable}, or null. */
export async function tokenBalance(address, tick) {
  const explorerUrl = wallet().explorerUrl;
  if (!explorerUrl) return null;
  try {
    const { body } = await api("GET", `/wallet/address/${encodeURIComponent(address)}/drc20`, {
      base: `${explorerUrl}/api`,
    });
    const held = body.balances.find((b) => b.tick.toLowerCase() === tick.toLowerCase());
    return { available: held?.available ?? "0", transferable: held?.transferable ?? "0" };
  } catch {
    return null;
  }
}

/** The custody address (every pool's deposit address) as the AMM's signed texts name it. */
export async function custodyAddress(address) {
  const query = new URLSearchParams({
    action: "claim-fees",
    address,
    nonce: "custody-address-lookup",
    expiresAt: String(Math.floor(Date.now() / 1000) + 600),
  });
  const { body } = await api("GET", `/auth/message?${query}`);
  const line = body.message.split("\n").find((l) => l.startsWith("custody: "));
  if (!line) throw new ApiError(0, "BAD_RESPONSE", "the AMM's signed texts name no custody address");
  return line.slice("custody: ".length);
}
