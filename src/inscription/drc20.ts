/**
 * DRC-20 (DESIGN.md 4.4): the classic JSON bodies and the balance rules, following
 * wonky-ord-dogecoin where the public indexers disagree:
 *
 * - content type `text/plain`, `application/json` or anything starting with `text/plain;`
 *   (case-sensitive, as wonky compares it); the body must be UTF-8 JSON of at least 40 bytes;
 * - `p` exactly `"drc-20"`, `op` exactly `deploy` | `mint` | `transfer`; every field a JSON string
 *   (`lim` and `dec` may be absent or null); unknown fields are ignored; a repeated key keeps its
 *   last value (serde_json and JSON.parse agree);
 * - `tick` exactly 4 UTF-8 bytes, compared case-insensitively through its lower-case form (`tickKey`);
 * - numbers are plain decimals (no sign, exponent, leading or trailing dot, at most 18 fraction
 *   digits) that must be whole: "10.00" is 10, "10.5" is refused; `dec` is ignored;
 * - `max` in 1..2^64-1, `lim` in 1..2^64-1 and defaulting to `max`; mint and transfer `amt` > 0.
 *
 * Amounts are bigint here and decimal strings in JSON and in the database.
 *
 * The rules engine `applyDrc20` is pure: it reads state through `Drc20View` (implemented by the
 * indexer over its database) and returns effects as plain data for the indexer to apply before it
 * evaluates the next event. Every ignored event comes back with a stable reason code.
 */

/** Largest `max` (and `lim`): 2^64 - 1, as wonky's MAXIMUM_SUPPLY. */
export const DRC20_MAX_SUPPLY = 2n ** 64n - 1n;
export const DRC20_TICK_BYTES = 4;
/** wonky ignores bodies shorter than this before parsing them. */
export const DRC20_MIN_BODY_BYTES = 40;
/** wonky's MAX_DECIMAL_WIDTH: a number may have at most this many fraction digits. */
export const DRC20_MAX_FRACTION_DIGITS = 18;
export const DRC20_PROTOCOL = "drc-20";

export type Drc20Operation =
  | { kind: "deploy"; tick: string; tickKey: string; maxSupply: bigint; mintLimit: bigint }
  | { kind: "mint"; tick: string; tickKey: string; amount: bigint }
  | { kind: "transfer"; tick: string; tickKey: string; amount: bigint };

export type Drc20ParseReason =
  | "UNSUPPORTED_CONTENT_TYPE"
  | "BODY_NOT_UTF8"
  | "BODY_TOO_SHORT"
  | "INVALID_JSON"
  | "NOT_DRC20"
  | "INVALID_OP"
  | "MISSING_FIELD"
  | "FIELD_NOT_STRING"
  | "INVALID_TICK_LENGTH"
  | "INVALID_NUMBER"
  | "NOT_INTEGER"
  | "INVALID_MAX"
  | "INVALID_LIM"
  | "ZERO_AMOUNT";

export type Drc20ParseResult =
  { ok: true; op: Drc20Operation } | { ok: false; reason: Drc20ParseReason; field?: string };

const strictUtf8Decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** wonky's content-type gate for DRC-20 bodies. */
export function isDrc20ContentType(contentType: string): boolean {
  return contentType === "text/plain" || contentType === "application/json" || contentType.startsWith("text/plain;");
}

/** The case-insensitive key of a tick (its lower-case form). */
export function drc20TickKey(tick: string): string {
  return tick.toLowerCase();
}

/** Parses a DRC-20 number as wonky's Num does, keeping only whole values. */
export function parseDrc20Number(
  text: string,
): { ok: true; value: bigint } | { ok: false; reason: "INVALID_NUMBER" | "NOT_INTEGER" } {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (!match) return { ok: false, reason: "INVALID_NUMBER" };
  const fraction = match[2] ?? "";
  if (fraction.length > DRC20_MAX_FRACTION_DIGITS) return { ok: false, reason: "INVALID_NUMBER" };
  if (/[^0]/.test(fraction)) return { ok: false, reason: "NOT_INTEGER" };
  return { ok: true, value: BigInt(match[1]) };
}

type Fields = Record<string, unknown>;
type FieldRead = { ok: true; value: string | null } | { ok: false; reason: Drc20ParseReason; field: string };

function stringField(fields: Fields, name: string, required: boolean): FieldRead {
  const value = fields[name];
  if (value === undefined || value === null) {
    // serde: a required String rejects a missing field and null alike; Option<String> takes both.
    return required
      ? { ok: false, reason: value === null ? "FIELD_NOT_STRING" : "MISSING_FIELD", field: name }
      : { ok: true, value: null };
  }
  if (typeof value !== "string") return { ok: false, reason: "FIELD_NOT_STRING", field: name };
  return { ok: true, value };
}

/** Parses an inscription body as a DRC-20 operation. Never throws. */
export function parseDrc20(body: Uint8Array, contentType: string): Drc20ParseResult {
  if (!isDrc20ContentType(contentType)) return { ok: false, reason: "UNSUPPORTED_CONTENT_TYPE" };
  let text: string;
  try {
    text = strictUtf8Decoder.decode(body);
  } catch {
    return { ok: false, reason: "BODY_NOT_UTF8" };
  }
  if (body.length < DRC20_MIN_BODY_BYTES) return { ok: false, reason: "BODY_TOO_SHORT" };
  let value: unknown;
  let loneSurrogate = false;
  try {
    value = JSON.parse(text, (key, item) => {
      // serde_json refuses escaped lone surrogates that JSON.parse lets through.
      if (LONE_SURROGATE.test(key) || (typeof item === "string" && LONE_SURROGATE.test(item))) loneSurrogate = true;
      return item;
    });
  } catch {
    return { ok: false, reason: "INVALID_JSON" };
  }
  if (loneSurrogate) return { ok: false, reason: "INVALID_JSON" };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "NOT_DRC20" };
  const fields = value as Fields;
  if (fields.p !== DRC20_PROTOCOL) return { ok: false, reason: "NOT_DRC20" };
  const op = fields.op;
  if (op !== "deploy" && op !== "mint" && op !== "transfer") return { ok: false, reason: "INVALID_OP", field: "op" };

  const tickRead = stringField(fields, "tick", true);
  if (!tickRead.ok) return tickRead;
  if (op === "deploy") {
    const maxRead = stringField(fields, "max", true);
    if (!maxRead.ok) return maxRead;
    const limRead = stringField(fields, "lim", false);
    if (!limRead.ok) return limRead;
    const decRead = stringField(fields, "dec", false);
    if (!decRead.ok) return decRead;
    const tick = tickRead.value as string;
    if (utf8Encoder.encode(tick).length !== DRC20_TICK_BYTES)
      return { ok: false, reason: "INVALID_TICK_LENGTH", field: "tick" };
    const max = parseDrc20Number(maxRead.value as string);
    if (!max.ok) return { ok: false, reason: max.reason, field: "max" };
    if (max.value === 0n || max.value > DRC20_MAX_SUPPLY) return { ok: false, reason: "INVALID_MAX", field: "max" };
    let mintLimit = max.value;
    if (limRead.value !== null) {
      const lim = parseDrc20Number(limRead.value);
      if (!lim.ok) return { ok: false, reason: lim.reason, field: "lim" };
      if (lim.value === 0n || lim.value > DRC20_MAX_SUPPLY) return { ok: false, reason: "INVALID_LIM", field: "lim" };
      mintLimit = lim.value;
    }
    return { ok: true, op: { kind: "deploy", tick, tickKey: drc20TickKey(tick), maxSupply: max.value, mintLimit } };
  }
  const amountRead = stringField(fields, "amt", true);
  if (!amountRead.ok) return amountRead;
  const tick = tickRead.value as string;
  if (utf8Encoder.encode(tick).length !== DRC20_TICK_BYTES)
    return { ok: false, reason: "INVALID_TICK_LENGTH", field: "tick" };
  const amount = parseDrc20Number(amountRead.value as string);
  if (!amount.ok) return { ok: false, reason: amount.reason, field: "amt" };
  if (amount.value === 0n) return { ok: false, reason: "ZERO_AMOUNT", field: "amt" };
  return { ok: true, op: { kind: op, tick, tickKey: drc20TickKey(tick), amount: amount.value } };
}

/** A classic DRC-20 body, as wallets write it (compact JSON, keys in the usual order). */
export function encodeDrc20(op: Drc20Operation): Uint8Array {
  const fields: Record<string, string> = { p: DRC20_PROTOCOL, op: op.kind, tick: op.tick };
  if (op.kind === "deploy") {
    fields.max = op.maxSupply.toString();
    fields.lim = op.mintLimit.toString();
  } else {
    fields.amt = op.amount.toString();
  }
  return utf8Encoder.encode(JSON.stringify(fields));
}

// ---------------------------------------------------------------------------------------------
// Rules engine

export interface Drc20TickState {
  /** The tick as the winning deploy wrote it. */
  tick: string;
  maxSupply: bigint;
  mintLimit: bigint;
  minted: bigint;
}

export interface Drc20Balance {
  available: bigint;
  transferable: bigint;
}

/** A transfer inscription whose inscribing was valid. */
export interface Drc20TransferState {
  tickKey: string;
  amount: bigint;
  /** The address the transfer inscription was inscribed to (whose balance it reserved). */
  ownerAddress: string;
  /** True once its first send has been applied. */
  sent: boolean;
}

/** Read access the engine needs; the indexer implements it over its database. */
export interface Drc20View {
  getTick(tickKey: string): Drc20TickState | null;
  /** Zero balances for an address that has none. */
  getBalance(address: string, tickKey: string): Drc20Balance;
  getTransfer(inscriptionId: string): Drc20TransferState | null;
}

/**
 * What happened to an inscription: it was inscribed (revealed) with a DRC-20 body, landing on
 * `ownerAddress` (null when its first koinu went to fees); or it was sent onwards, to
 * `toAddress` (null when spent to fees).
 */
export type Drc20Action =
  | { kind: "inscribe"; operation: Drc20Operation; ownerAddress: string | null }
  | { kind: "send"; toAddress: string | null };

export interface Drc20Context {
  inscriptionId: string;
  height: number;
}

export type Drc20Effect =
  | {
      type: "createTick";
      tickKey: string;
      tick: string;
      maxSupply: bigint;
      mintLimit: bigint;
      deployerAddress: string;
      inscriptionId: string;
      height: number;
    }
  | { type: "addMinted"; tickKey: string; amount: bigint }
  | { type: "creditAvailable"; address: string; tickKey: string; amount: bigint }
  | { type: "moveAvailableToTransferable"; address: string; tickKey: string; amount: bigint }
  | { type: "createTransfer"; inscriptionId: string; ownerAddress: string; tickKey: string; amount: bigint }
  | { type: "debitTransferable"; address: string; tickKey: string; amount: bigint }
  | { type: "markTransferSent"; inscriptionId: string; receiverAddress: string; returnedToSender: boolean };

export type Drc20RuleReason =
  | "INSCRIBED_TO_FEES"
  | "TICK_ALREADY_DEPLOYED"
  | "TICK_NOT_DEPLOYED"
  | "MINT_EXCEEDS_LIMIT"
  | "TICK_FULLY_MINTED"
  | "TRANSFER_EXCEEDS_MAX_SUPPLY"
  | "INSUFFICIENT_AVAILABLE_BALANCE"
  | "NOT_A_TRANSFER_INSCRIPTION"
  | "TRANSFER_ALREADY_SENT";

export interface Drc20Outcome {
  valid: boolean;
  reason?: Drc20RuleReason;
  /** Set on valid events that did something other than the literal request. */
  note?: "MINT_CAPPED_TO_REMAINDER" | "RETURNED_TO_SENDER";
  effects: Drc20Effect[];
}

function ignored(reason: Drc20RuleReason): Drc20Outcome {
  return { valid: false, reason, effects: [] };
}

/** Applies one DRC-20 event to the state seen through `view`. Pure; never throws on valid inputs. */
export function applyDrc20(action: Drc20Action, context: Drc20Context, view: Drc20View): Drc20Outcome {
  if (action.kind === "send") return applySend(action.toAddress, context, view);
  const { operation, ownerAddress } = action;
  if (ownerAddress === null) return ignored("INSCRIBED_TO_FEES");
  const tick = view.getTick(operation.tickKey);
  switch (operation.kind) {
    case "deploy": {
      if (tick) return ignored("TICK_ALREADY_DEPLOYED");
      return {
        valid: true,
        effects: [
          {
            type: "createTick",
            tickKey: operation.tickKey,
            tick: operation.tick,
            maxSupply: operation.maxSupply,
            mintLimit: operation.mintLimit,
            deployerAddress: ownerAddress,
            inscriptionId: context.inscriptionId,
            height: context.height,
          },
        ],
      };
    }
    case "mint": {
      if (!tick) return ignored("TICK_NOT_DEPLOYED");
      if (operation.amount > tick.mintLimit) return ignored("MINT_EXCEEDS_LIMIT");
      if (tick.minted >= tick.maxSupply) return ignored("TICK_FULLY_MINTED");
      const remaining = tick.maxSupply - tick.minted;
      const amount = operation.amount > remaining ? remaining : operation.amount;
      return {
        valid: true,
        ...(amount < operation.amount ? { note: "MINT_CAPPED_TO_REMAINDER" as const } : {}),
        effects: [
          { type: "addMinted", tickKey: operation.tickKey, amount },
          { type: "creditAvailable", address: ownerAddress, tickKey: operation.tickKey, amount },
        ],
      };
    }
    case "transfer": {
      if (!tick) return ignored("TICK_NOT_DEPLOYED");
      if (operation.amount > tick.maxSupply) return ignored("TRANSFER_EXCEEDS_MAX_SUPPLY");
      if (view.getBalance(ownerAddress, operation.tickKey).available < operation.amount)
        return ignored("INSUFFICIENT_AVAILABLE_BALANCE");
      return {
        valid: true,
        effects: [
          {
            type: "moveAvailableToTransferable",
            address: ownerAddress,
            tickKey: operation.tickKey,
            amount: operation.amount,
          },
          {
            type: "createTransfer",
            inscriptionId: context.inscriptionId,
            ownerAddress,
            tickKey: operation.tickKey,
            amount: operation.amount,
          },
        ],
      };
    }
  }
}

function applySend(toAddress: string | null, context: Drc20Context, view: Drc20View): Drc20Outcome {
  const transfer = view.getTransfer(context.inscriptionId);
  if (!transfer) return ignored("NOT_A_TRANSFER_INSCRIPTION");
  if (transfer.sent) return ignored("TRANSFER_ALREADY_SENT");
  const receiverAddress = toAddress ?? transfer.ownerAddress;
  const returnedToSender = toAddress === null;
  return {
    valid: true,
    ...(returnedToSender ? { note: "RETURNED_TO_SENDER" as const } : {}),
    effects: [
      { type: "debitTransferable", address: transfer.ownerAddress, tickKey: transfer.tickKey, amount: transfer.amount },
      { type: "creditAvailable", address: receiverAddress, tickKey: transfer.tickKey, amount: transfer.amount },
      { type: "markTransferSent", inscriptionId: context.inscriptionId, receiverAddress, returnedToSender },
    ],
  };
}

/**
 * An in-memory `Drc20View` that applies effects: the reference the indexer's database
 * implementation is tested against, and a convenience for tools.
 */
export class MemoryDrc20Ledger implements Drc20View {
  readonly ticks = new Map<
    string,
    Drc20TickState & { deployerAddress: string; inscriptionId: string; height: number }
  >();
  readonly balances = new Map<string, Drc20Balance>();
  readonly transfers = new Map<string, Drc20TransferState>();

  getTick(tickKey: string): Drc20TickState | null {
    return this.ticks.get(tickKey) ?? null;
  }

  getBalance(address: string, tickKey: string): Drc20Balance {
    const balance = this.balances.get(`${address}\u0000${tickKey}`);
    return balance ? { ...balance } : { available: 0n, transferable: 0n };
  }

  getTransfer(inscriptionId: string): Drc20TransferState | null {
    const transfer = this.transfers.get(inscriptionId);
    return transfer ? { ...transfer } : null;
  }

  /** Evaluates an event and applies its effects. */
  process(action: Drc20Action, context: Drc20Context): Drc20Outcome {
    const outcome = applyDrc20(action, context, this);
    this.apply(outcome.effects);
    return outcome;
  }

  apply(effects: readonly Drc20Effect[]): void {
    for (const effect of effects) {
      switch (effect.type) {
        case "createTick":
          this.ticks.set(effect.tickKey, {
            tick: effect.tick,
            maxSupply: effect.maxSupply,
            mintLimit: effect.mintLimit,
            minted: 0n,
            deployerAddress: effect.deployerAddress,
            inscriptionId: effect.inscriptionId,
            height: effect.height,
          });
          break;
        case "addMinted":
          this.ticks.get(effect.tickKey)!.minted += effect.amount;
          break;
        case "creditAvailable":
          this.updateBalance(effect.address, effect.tickKey, effect.amount, 0n);
          break;
        case "moveAvailableToTransferable":
          this.updateBalance(effect.address, effect.tickKey, -effect.amount, effect.amount);
          break;
        case "debitTransferable":
          this.updateBalance(effect.address, effect.tickKey, 0n, -effect.amount);
          break;
        case "createTransfer":
          this.transfers.set(effect.inscriptionId, {
            tickKey: effect.tickKey,
            amount: effect.amount,
            ownerAddress: effect.ownerAddress,
            sent: false,
          });
          break;
        case "markTransferSent":
          this.transfers.get(effect.inscriptionId)!.sent = true;
          break;
      }
    }
  }

  private updateBalance(address: string, tickKey: string, availableDelta: bigint, transferableDelta: bigint): void {
    const current = this.getBalance(address, tickKey);
    const next = {
      available: current.available + availableDelta,
      transferable: current.transferable + transferableDelta,
    };
    if (next.available < 0n || next.transferable < 0n)
      throw new RangeError(`negative DRC-20 balance for ${address} ${tickKey}`);
    this.balances.set(`${address}\u0000${tickKey}`, next);
  }
}
