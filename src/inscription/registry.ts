/**
 * The ACTION registry of the v1 envelope (DESIGN.md 4.2), served at `GET {inscriber_url}/standard`.
 * Data only, plus the lookup and the content-type check the inscriber and the indexer share.
 *
 * Two rows of the design name families rather than single actions ("BRIDGE_L1_*" and "auction
 * operations"); they are kept as prefix entries (`BRIDGE_L1_*`, `AUCTION_*`) so any
 * `BRIDGE_L1_<NAME>` / `AUCTION_<NAME>` resolves to them.
 */

export type ActionGroup = "drc20" | "marketplace" | "rwa" | "launchpad" | "bridge" | "zkp";

export interface ActionEntry {
  /** The ACTION push, or a family `PREFIX_*` matching any `PREFIX_<NAME>`. */
  name: string;
  /** Allowed content types: exact media types (with a charset when it is required) or `type/*`. */
  contentTypes: readonly string[];
  meaning: string;
  group: ActionGroup;
}

const TEXT_UTF8 = "text/plain;charset=utf8";

const REGISTRY_ROWS: ActionEntry[] = [
  { name: "TRANSFER", contentTypes: [TEXT_UTF8], meaning: "DRC-20 coin transfer", group: "drc20" },
  { name: "SWAP", contentTypes: [TEXT_UTF8], meaning: "DRC-20 coin swap", group: "drc20" },
  { name: "ADD_LP", contentTypes: [TEXT_UTF8], meaning: "DRC-20 add liquidity", group: "drc20" },
  { name: "REMOVE_LP", contentTypes: [TEXT_UTF8], meaning: "DRC-20 remove liquidity", group: "drc20" },
  { name: "CLAIM", contentTypes: [TEXT_UTF8], meaning: "DRC-20 claim of fees or rewards", group: "drc20" },
  {
    name: "LIST",
    contentTypes: ["image/*", "video/*"],
    meaning: "inscription marketplace listing",
    group: "marketplace",
  },
  {
    name: "BUY",
    contentTypes: ["image/*", "video/*"],
    meaning: "inscription marketplace purchase",
    group: "marketplace",
  },
  {
    name: "CANCEL",
    contentTypes: ["image/*", "video/*"],
    meaning: "inscription marketplace cancellation",
    group: "marketplace",
  },
  {
    name: "AUCTION_*",
    contentTypes: ["image/*", "video/*"],
    meaning: "inscription marketplace auction operation",
    group: "marketplace",
  },
  { name: "TOKENIZE", contentTypes: ["application/pdf"], meaning: "real-world asset", group: "rwa" },
  { name: "LAUNCHPAD_DEPLOY", contentTypes: ["application/json"], meaning: "collection deploy", group: "launchpad" },
  { name: "LAUNCHPAD_MINT", contentTypes: ["application/json"], meaning: "collection mint", group: "launchpad" },
  { name: "BRIDGE_L1_*", contentTypes: [TEXT_UTF8], meaning: "L1 -> L2 bridge operation", group: "bridge" },
  { name: "BRIDGE_L2_INTENT", contentTypes: [TEXT_UTF8], meaning: "L2 -> L1 bridge intent", group: "bridge" },
  {
    name: "ZKP",
    contentTypes: ["application/octet-stream"],
    meaning: "proof data committed while the opcode is inactive",
    group: "zkp",
  },
];

/** The registry, in the order of DESIGN.md 4.2 (frozen). */
export const ACTION_REGISTRY: readonly ActionEntry[] = Object.freeze(
  REGISTRY_ROWS.map((entry) => Object.freeze({ ...entry, contentTypes: Object.freeze([...entry.contentTypes]) })),
);

/** Shape of an ACTION name: upper-case ASCII words joined by underscores, at most 64 bytes. */
export const ACTION_NAME_PATTERN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
export const MAX_ACTION_NAME_LENGTH = 64;

/** The registry entry for an ACTION (exact names first, then families); null when unregistered. */
export function lookupAction(name: string): ActionEntry | null {
  if (typeof name !== "string" || name.length > MAX_ACTION_NAME_LENGTH || !ACTION_NAME_PATTERN.test(name)) return null;
  for (const entry of ACTION_REGISTRY) if (entry.name === name) return entry;
  for (const entry of ACTION_REGISTRY) {
    if (!entry.name.endsWith("_*")) continue;
    const prefix = entry.name.slice(0, -1);
    if (name.length > prefix.length && name.startsWith(prefix)) return entry;
  }
  return null;
}

interface MediaType {
  type: string;
  subtype: string;
  charset: string | null;
}

/** Parses `type/subtype; charset=...` leniently: case-insensitive, spaces around `;` and `=` ignored. */
function parseMediaType(contentType: string): MediaType | null {
  const [essence, ...params] = contentType.split(";");
  const match = /^\s*([A-Za-z0-9!#$&^_.+-]+)\/([A-Za-z0-9!#$&^_.+*-]+)\s*$/.exec(essence);
  if (!match) return null;
  let charset: string | null = null;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0) {
      if (param.trim() === "") continue;
      return null;
    }
    if (param.slice(0, eq).trim().toLowerCase() === "charset")
      charset = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase();
  }
  return { type: match[1].toLowerCase(), subtype: match[2].toLowerCase(), charset };
}

function normaliseCharset(charset: string): string {
  return charset === "utf-8" ? "utf8" : charset;
}

/**
 * True when `contentType` satisfies one registry pattern. `type/*` takes any subtype; a pattern
 * with a charset needs the same charset (utf8 and utf-8 are one), a pattern without one takes any.
 */
export function contentTypeMatches(pattern: string, contentType: string): boolean {
  const want = parseMediaType(pattern);
  const got = parseMediaType(contentType);
  if (!want || !got) return false;
  if (want.type !== got.type) return false;
  if (want.subtype !== "*" && want.subtype !== got.subtype) return false;
  if (
    want.charset !== null &&
    (got.charset === null || normaliseCharset(got.charset) !== normaliseCharset(want.charset))
  )
    return false;
  return true;
}

export type ActionCheck =
  | { ok: true; entry: ActionEntry }
  | { ok: false; reason: "UNKNOWN_ACTION"; action: string }
  | { ok: false; reason: "CONTENT_TYPE_NOT_ALLOWED"; action: string; contentType: string; allowed: readonly string[] };

/** Checks that an ACTION is registered and that the inscription's content type is one it allows. */
export function checkActionContentType(action: string, contentType: string): ActionCheck {
  const entry = lookupAction(action);
  if (!entry) return { ok: false, reason: "UNKNOWN_ACTION", action };
  if (!entry.contentTypes.some((pattern) => contentTypeMatches(pattern, contentType))) {
    return { ok: false, reason: "CONTENT_TYPE_NOT_ALLOWED", action, contentType, allowed: entry.contentTypes };
  }
  return { ok: true, entry };
}
