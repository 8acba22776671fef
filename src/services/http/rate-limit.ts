/**
 * Rate limits on public HTTP writes (DESIGN.md sections 6 and 8): past its limit a client gets 429
 * RATE_LIMITED with `Retry-After` (seconds until its window resets) and the error body of every
 * other refusal. Counting is express-rate-limit's fixed window in memory, per client IP by default
 * (IPv6 clients by their /56, so that one host cannot rotate addresses inside its own prefix) or per
 * any key a route gives (a session, an address). Memory is bounded by the clients seen in one
 * window: the store drops every key when its window ends.
 *
 * Behind a reverse proxy every client has the proxy's address: set Express's "trust proxy" on the
 * app (docs/operations.md) so that `req.ip` is the client's.
 */
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit } from "express-rate-limit";
import type { OptionSpec } from "../../config/load";
import { errorBody } from "./errors";

export interface RateLimitOptions {
  /** What the limit guards, named in the 429 body (`details.limit_name`). */
  name: string;
  /** Requests allowed per window and key. 0 turns the limit off. */
  limit: number;
  /** Window length in milliseconds (default one minute). */
  windowMs?: number;
  /** The key a request counts against (default: the client IP). */
  key?: (req: Request) => string;
}

/** The IP key express-rate-limit would use for a request (IPv6 grouped by /56). */
export function clientIpKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? "unknown");
}

/** A middleware that answers 429 RATE_LIMITED with Retry-After once a key passes `limit` in a window. */
export function rateLimited(options: RateLimitOptions): RequestHandler {
  if (options.limit <= 0) return (_req, _res, next) => next();
  const windowMs = options.windowMs ?? 60_000;
  return rateLimit({
    windowMs,
    limit: options.limit,
    // Retry-After (and the draft RateLimit headers) on every answer; no X-RateLimit-* legacy set.
    standardHeaders: "draft-8",
    legacyHeaders: false,
    identifier: options.name,
    keyGenerator: options.key ?? clientIpKey,
    // The key generator above already groups IPv6; the library's startup checks would warn about
    // custom generators and proxies on every app construction.
    validate: false,
    handler: (_req, res) => {
      res.status(429).json(
        errorBody("RATE_LIMITED", `too many requests for ${options.name}; retry after the time in Retry-After`, {
          limit_name: options.name,
          limit: options.limit,
          window_ms: windowMs,
        }),
      );
    },
  });
}

/**
 * The daemon option that sets a surface's public write limit (`--rate-limit`, per client IP and
 * minute; 0 turns it off), with the daemon's own environment variable.
 */
export function rateLimitOption(env: string, defaultPerMinute: number): OptionSpec & { kind: "integer" } {
  return {
    kind: "integer",
    env,
    default: defaultPerMinute,
    min: 0,
    max: 1_000_000,
    description: "public writes allowed per client IP and minute (429 with Retry-After past it; 0 = no limit)",
  };
}

/**
 * The daemon option naming the reverse proxies whose `X-Forwarded-For` names the client (Express's
 * "trust proxy": `loopback`, or addresses and CIDRs, comma separated; empty: none), with the
 * daemon's own environment variable. Apply it with `trustProxies(app, value)`.
 */
export function trustProxyOption(env: string): OptionSpec & { kind: "string" } {
  return {
    kind: "string",
    env,
    default: "",
    description:
      "reverse proxies whose X-Forwarded-For names the client (Express trust proxy: loopback, or addresses/CIDRs, comma separated); empty: none",
  };
}

/** Sets Express's "trust proxy" to a trustProxyOption value (nothing for an empty one). */
export function trustProxies(app: { set(setting: string, value: unknown): unknown }, value: string | undefined): void {
  if (value) app.set("trust proxy", value);
}
