// What the launchpad's pages share: calls to /api with clear errors, the wallet sign-in (a
// challenge signed through window.wallet.connect), the session kept in this browser, and amounts.
// Pages use only window.wallet.connect() and window.wallet.signPSBT() (DESIGN.md 7).

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details ?? {};
  }
}

/** Calls the launchpad API; answers the parsed body, or throws ApiError with the service's code. */
export async function api(method, path, { token, body, base = "/api" } = {}) {
  let response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(
      0,
      "NETWORK_ERROR",
      `${base === "/api" ? "the launchpad" : base} did not answer; check your connection and retry`,
    );
  }
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw new ApiError(response.status, "BAD_RESPONSE", `unexpected answer (HTTP ${response.status})`);
  }
  if (!response.ok) {
    const error =
      parsed && parsed.error ? parsed.error : { code: `HTTP_${response.status}`, message: `HTTP ${response.status}` };
    throw new ApiError(response.status, error.code, error.message, error.details);
  }
  return parsed;
}

/** One line for a person: the service's message and code, or the wallet's. */
export function describeError(error) {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  if (error && typeof error === "object" && "message" in error)
    return `${error.message}${error.code ? ` (${error.code})` : ""}`;
  return String(error);
}

const KOINU_PER_DOGE = 100000000n;

/** Koinu (a decimal string) as DOGE with up to 8 decimals. */
export function formatDoge(koinu) {
  const value = BigInt(koinu);
  const whole = value / KOINU_PER_DOGE;
  const fraction = (value % KOINU_PER_DOGE).toString().padStart(8, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

const SESSION_KEY = "launchpad.session";

/** The session kept in this browser, when it has not expired. */
export function currentSession() {
  try {
    const session = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null");
    if (session && session.token && session.expires_at > Date.now() / 1000) return session;
  } catch {
    // An unreadable entry is no session.
  }
  localStorage.removeItem(SESSION_KEY);
  return null;
}

export function forgetSession() {
  localStorage.removeItem(SESSION_KEY);
}

/** window.wallet, or a clear error when the browser has none. */
export function wallet() {
  if (!window.wallet || typeof window.wallet.connect !== "function" || typeof window.wallet.signPSBT !== "function") {
    throw new ApiError(0, "NO_WALLET", "the wallet provider did not load: reload the page");
  }
  return window.wallet;
}

/**
 * Signs in: the wallet's address, the launchpad's challenge for it, the wallet's signature of the
 * challenge (connect with a message), and the Bearer token POST /session answers.
 */
/**
 * A wallet step that failed, as the page says it: "the wallet did not <what>: <why> (WALLET_REFUSED)",
 * or the provider's own WALLET_ABANDONED when the person stopped waiting (its message says what next).
 */
export function walletFailure(error, what) {
  if (error && typeof error === "object" && error.code === "WALLET_ABANDONED") return error;
  return new ApiError(0, "WALLET_REFUSED", `the wallet did not ${what}: ${describeError(error)}`);
}

export async function signIn() {
  const w = wallet();
  let account;
  try {
    account = await w.connect();
  } catch (error) {
    throw walletFailure(error, "connect");
  }
  const { challenge } = await api("GET", `/session/challenge?address=${encodeURIComponent(account.address)}`);
  let signed;
  try {
    signed = await w.connect({ message: challenge });
  } catch (error) {
    throw walletFailure(error, "sign the sign-in message");
  }
  if (signed.address !== account.address || typeof signed.signature !== "string") {
    throw new ApiError(0, "WALLET_REFUSED", "the wallet answered without a signature of the sign-in message");
  }
  const session = await api("POST", "/session", {
    body: { address: account.address, challenge, signature: signed.signature },
  });
  const kept = {
    token: session.token,
    address: session.address,
    // A wallet that does not tell its key shows it in its signature (the provider recovers it).
    public_key: signed.publicKey ?? account.publicKey ?? null,
    expires_at: session.expires_at,
  };
  localStorage.setItem(SESSION_KEY, JSON.stringify(kept));
  return kept;
}

/** Shows the signed-in address in `element` (or nothing). */
export function showWalletAddress(element) {
  const session = currentSession();
  element.textContent = session ? `signed in as ${session.address}` : "";
}

/** The page's query parameter `name`, or null. */
export function param(name) {
  return new URLSearchParams(location.search).get(name);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
