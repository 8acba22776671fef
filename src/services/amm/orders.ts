/**
 * The texts a payer signs (Dogecoin message signing) to bind its deposits and to authorize what its
 * key alone may do (docs/api.md "AMM: signed orders"). Every text starts with the deployment it is
 * for, so a signature made for one AMM (or one network) is worthless at any other:
 *
 *   dogeos-amm <action>
 *   network: <mainnet | testnet | regtest>
 *   custody: <the custody address>
 *   <field>: <value>
 *   ...
 *
 * Actions and their fields (in this order):
 * - execute-swap: swap, tick, direction, amount in, min amount out, expires, address, deposit
 * - add-liquidity: tick, address, doge deposit, token deposit, min shares
 * - bonding-confirm: reservation, symbol, side, amount in, reserved out, address, deposit
 * - refund-deposit: asset, tick, address, deposit
 * - bonding-supply: symbol, launcher, deposit (the launcher binds a supply deposit to its launch)
 * - with a nonce and an expiry (authorizationMessage): remove-liquidity (tick, shares), claim-fees,
 *   bonding-reserve (symbol, side, amount in, min amount out), bonding-launch (symbol, total supply,
 *   sellable supply, virtual doge, graduation threshold; the address is the launcher)
 * Every text has a vector in test/vectors/amm-orders.json (its message and signature).
 */
import type { DogeNetwork } from "../../doge";
import { verifyMessageNative } from "../../doge/message-native";
import { Refusal } from "../../errors";

/** The deployment a signature is for. */
export interface OrderDomain {
  network: DogeNetwork;
  custodyAddress: string;
}

/** The exact text to sign for `action` with `fields` (in their order) at `domain`. */
export function orderMessage(domain: OrderDomain, action: string, fields: Record<string, string>): string {
  return [
    `dogeos-amm ${action}`,
    `network: ${domain.network.name}`,
    `custody: ${domain.custodyAddress}`,
    ...Object.entries(fields).map(([name, value]) => `${name}: ${value}`),
  ].join("\n");
}

/** A wallet-signed authorization of an action that spends no deposit: its nonce is used once and it expires. */
export interface Authorization {
  address: string;
  nonce: string;
  expiresAt: number;
  signature: string;
}

/** The exact text a wallet signs for an authorization of `action`. */
export function authorizationMessage(
  domain: OrderDomain,
  action: string,
  fields: Record<string, string>,
  auth: Pick<Authorization, "address" | "nonce" | "expiresAt">,
): string {
  return orderMessage(domain, action, {
    address: auth.address,
    ...fields,
    nonce: auth.nonce,
    expires: String(auth.expiresAt),
  });
}

/** 401 INVALID_SIGNATURE unless `signature` is `address`'s key over `message`. */
export function requireSignature(domain: OrderDomain, address: string, signature: string, message: string): void {
  let valid = false;
  try {
    valid = verifyMessageNative(address, signature, message, domain.network);
  } catch {
    valid = false;
  }
  if (!valid)
    throw new Refusal(
      "unauthorized",
      "INVALID_SIGNATURE",
      `the signature is not ${address}'s key over the order message`,
      { address, message },
    );
}
