/**
 * Wallet sign-in (DESIGN.md section 6): the launchpad issues a challenge text for an address, the
 * wallet signs it with Dogecoin message signing (4.1), and a good signature over exactly that
 * issued, unexpired, unused challenge buys a random Bearer token. Only the token's SHA-256 is
 * stored; a challenge is used once.
 *
 * Challenges are stateless (issue 17): the text carries an HMAC of its address, nonce and times
 * under a secret of this process, so issuing one stores nothing. Only a challenge exchanged for a
 * session is written down (its nonce, until it expires), which takes a valid signature.
 */
import crypto from "node:crypto";
import { DogeNetwork, decodeAddress } from "../../doge";
import { verifyMessageNative } from "../../doge/message-native";
import type { Sqlite } from "../../db/sqlite";
import { Refusal, badRequest } from "../../errors";

export interface LaunchpadSession {
  address: string;
  /** Unix seconds. */
  expiresAt: number;
}

export interface IssuedChallenge {
  address: string;
  nonce: string;
  challenge: string;
  /** Unix seconds. */
  expiresAt: number;
}

export interface SessionSettings {
  network: DogeNetwork;
  /** Unix seconds. */
  clock: () => number;
  challengeSeconds: number;
  sessionSeconds: number;
  /** The HMAC key of challenges (default: 32 random bytes, so a restart voids outstanding challenges). */
  challengeSecret?: Uint8Array;
}

const CHALLENGE_TITLE = "Sign in to the DogeOS launchpad";
const CHALLENGE_PATTERN = new RegExp(
  `^${CHALLENGE_TITLE}\naddress: ([1-9A-HJ-NP-Za-km-z]{25,40})\nnonce: ([0-9a-f]{32})\nissued at: (\\S+)\nexpires at: (\\S+)\ncheck: ([0-9a-f]{64})$`,
);

const BEARER_REALM = 'Bearer realm="launchpad"';

/** A refusal for want of a session, naming the credentials to present (HTTP: WWW-Authenticate). */
export const unauthorized = (code: string, message: string, details?: Record<string, unknown>, invalidToken = false) =>
  new Refusal("unauthorized", code, message, details, {
    challenge: invalidToken ? `${BEARER_REALM}, error="invalid_token"` : BEARER_REALM,
  });

export const sha256Hex = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

/** A P2PKH address of the network (only keys sign messages); 400 otherwise. */
export function signingAddress(value: unknown, network: DogeNetwork, field = "address"): string {
  if (typeof value !== "string") throw badRequest("INVALID_ADDRESS", `${field} must be a string`, { field });
  let type: string;
  try {
    type = decodeAddress(value, network).type;
  } catch (error) {
    throw badRequest("INVALID_ADDRESS", `${field} is not a ${network.name} address: ${(error as Error).message}`, {
      field,
    });
  }
  if (type !== "pubkeyhash")
    throw badRequest("ADDRESS_NOT_PUBKEYHASH", `${field} must be a P2PKH address: only a key can sign the challenge`, {
      field,
    });
  return value;
}

export class SessionStore {
  private readonly s;
  private readonly secret: Uint8Array;

  constructor(
    private readonly db: Sqlite,
    private readonly settings: SessionSettings,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.secret = settings.challengeSecret ?? crypto.randomBytes(32);
    this.s = {
      used: p("SELECT 1 FROM used_challenges WHERE nonce = ?"),
      useChallenge: p(
        "INSERT INTO used_challenges (nonce, address, expires_at) VALUES (?, ?, ?) ON CONFLICT (nonce) DO NOTHING",
      ),
      insertSession: p("INSERT INTO sessions (token_sha256, address, created_at, expires_at) VALUES (?, ?, ?, ?)"),
      sessionByHash: p("SELECT address, expires_at FROM sessions WHERE token_sha256 = ?"),
      pruneChallenges: p("DELETE FROM used_challenges WHERE expires_at < ?"),
      pruneSessions: p("DELETE FROM sessions WHERE expires_at < ?"),
    };
  }

  /** The challenge text of these fields, its last line the HMAC over the lines before it. */
  private challengeText(address: string, nonce: string, issuedAt: number, expiresAt: number): string {
    const lines = [
      CHALLENGE_TITLE,
      `address: ${address}`,
      `nonce: ${nonce}`,
      `issued at: ${new Date(issuedAt * 1000).toISOString()}`,
      `expires at: ${new Date(expiresAt * 1000).toISOString()}`,
    ];
    const check = crypto.createHmac("sha256", this.secret).update(lines.join("\n"), "utf8").digest("hex");
    return [...lines, `check: ${check}`].join("\n");
  }

  /** Issues a challenge for `address` (already validated as a P2PKH address of the network); stores nothing. */
  issueChallenge(address: string): IssuedChallenge {
    const now = this.settings.clock();
    const nonce = crypto.randomBytes(16).toString("hex");
    const expiresAt = now + this.settings.challengeSeconds;
    return { address, nonce, challenge: this.challengeText(address, nonce, now, expiresAt), expiresAt };
  }

  /**
   * Exchanges a signed challenge for a session. The challenge must be one this service issued to
   * `address` (its HMAC checks), unexpired and unused; the signature must be `address`'s key over
   * exactly its text. The challenge is marked used in the same transaction that stores the session.
   */
  openSession(address: string, challenge: string, signature: string): { token: string; session: LaunchpadSession } {
    const now = this.settings.clock();
    const unknown = () =>
      unauthorized(
        "UNKNOWN_CHALLENGE",
        "the challenge was not issued by this service (ask GET /api/session/challenge for one)",
      );
    const match = CHALLENGE_PATTERN.exec(challenge);
    if (!match) throw unknown();
    const [, challengeAddress, nonce, issuedText, expiresText] = match;
    const issuedAt = Date.parse(issuedText) / 1000;
    const expiresAt = Date.parse(expiresText) / 1000;
    if (!Number.isSafeInteger(issuedAt) || !Number.isSafeInteger(expiresAt)) throw unknown();
    const expected = this.challengeText(challengeAddress, nonce, issuedAt, expiresAt);
    if (expected.length !== challenge.length || !crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(challenge)))
      throw unknown();
    if (challengeAddress !== address)
      throw unauthorized("CHALLENGE_ADDRESS_MISMATCH", "the challenge was issued to another address", {
        challenge_address: challengeAddress,
        address,
      });
    if (this.s.used.get(nonce))
      throw unauthorized("CHALLENGE_USED", "the challenge was already used; ask for a new one");
    if (expiresAt <= now)
      throw unauthorized("CHALLENGE_EXPIRED", "the challenge expired; ask for a new one", {
        expires_at: expiresAt,
        now,
      });
    if (!verifyMessageNative(address, signature, challenge, this.settings.network)) {
      throw unauthorized("INVALID_SIGNATURE", "the signature is not the address's key over the challenge text");
    }
    const token = crypto.randomBytes(32).toString("base64url");
    const sessionExpiresAt = now + this.settings.sessionSeconds;
    this.db
      .transaction(() => {
        // Two requests racing with the same signed challenge: only one marks it used.
        if (this.s.useChallenge.run(nonce, address, expiresAt).changes !== 1)
          throw unauthorized("CHALLENGE_USED", "the challenge was already used; ask for a new one");
        this.s.insertSession.run(sha256Hex(token), address, now, sessionExpiresAt);
        // A used challenge past its expiry is refused as expired anyway; a session past its own is dead.
        this.s.pruneChallenges.run(now);
        this.s.pruneSessions.run(now);
      })
      .immediate();
    return { token, session: { address, expiresAt: sessionExpiresAt } };
  }

  /** The live session of a Bearer token, or null. */
  session(token: string): LaunchpadSession | null {
    const row = this.s.sessionByHash.get(sha256Hex(token)) as { address: string; expires_at: number } | undefined;
    if (!row || row.expires_at <= this.settings.clock()) return null;
    return { address: row.address, expiresAt: row.expires_at };
  }

  /**
   * The live session of an `Authorization` value `Bearer <token>`; refuses (unauthorized, with the
   * Bearer challenge) a missing value as SESSION_REQUIRED, another form or an unknown or expired
   * token as INVALID_TOKEN.
   */
  authenticate(authorization: string | undefined): LaunchpadSession {
    if (!authorization) throw sessionRequired();
    const match = /^Bearer ([A-Za-z0-9_-]{1,128})$/.exec(authorization);
    if (!match) throw unauthorized("INVALID_TOKEN", "Authorization must be Bearer <token>", undefined, true);
    const session = this.session(match[1]);
    if (!session)
      throw unauthorized(
        "INVALID_TOKEN",
        "the token is unknown or its session expired; sign in again",
        undefined,
        true,
      );
    return session;
  }
}

/** The refusal of a request that needs a session and carries none. */
export const sessionRequired = () =>
  unauthorized("SESSION_REQUIRED", "this route needs Authorization: Bearer <token> from POST /api/session");
