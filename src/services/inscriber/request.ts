/**
 * What an inscription request says, validated once for both paths (platform `POST /inscribe` and
 * user-signed `POST /prepare`): content type, ACTION against the registry, content in UTF-8 or
 * base64, the payload limit, the recipient address and the form.
 */
import { DogeNetwork } from "../../doge";
import { DoginalsEncodeError, EnvelopeEncodeError, checkActionContentType } from "../../inscription";
import { badRequest } from "../http/errors";
import * as v from "../http/validation";
import { InscriptionContent, InscriptionForm, chooseForm } from "./plan";

/** RFC 6838 type/subtype with optional parameters; at most 255 bytes. */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"]*"))*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const MAX_CONTENT_TYPE_BYTES = 255;

export interface InscriptionInput {
  content: InscriptionContent;
  form: InscriptionForm;
  recipient: string;
}

export function parseContentType(value: unknown): string {
  if (typeof value !== "string" || Buffer.byteLength(value) > MAX_CONTENT_TYPE_BYTES || !MEDIA_TYPE.test(value)) {
    throw badRequest("INVALID_CONTENT_TYPE", `content_type must be a media type such as "image/png" or "text/plain;charset=utf-8", at most ${MAX_CONTENT_TYPE_BYTES} bytes`, { field: "content_type" });
  }
  return value;
}

export function parseContent(value: unknown, encoding: unknown, maxBytes: number): Uint8Array {
  const enc = encoding === undefined ? "utf8" : encoding;
  if (enc !== "utf8" && enc !== "base64") throw badRequest("INVALID_ENCODING", "encoding must be \"utf8\" or \"base64\"", { field: "encoding" });
  if (typeof value !== "string") throw badRequest("INVALID_CONTENT", "content must be a string", { field: "content" });
  if (enc === "base64" && !BASE64.test(value)) throw badRequest("INVALID_CONTENT", "content is not canonical base64", { field: "content" });
  const bytes = enc === "base64" ? Uint8Array.from(Buffer.from(value, "base64")) : new TextEncoder().encode(value);
  if (bytes.length === 0) throw badRequest("EMPTY_CONTENT", "content must not be empty", { field: "content" });
  if (bytes.length > maxBytes) throw badRequest("PAYLOAD_TOO_LARGE", `the payload is ${bytes.length} bytes; this inscriber takes at most ${maxBytes}`, { field: "content", size: bytes.length, max: maxBytes });
  return bytes;
}

export function parseAction(value: unknown, contentType: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length === 0) throw badRequest("INVALID_ACTION", "action must be a non-empty string when given", { field: "action" });
  const check = checkActionContentType(value, contentType);
  if (!check.ok && check.reason === "UNKNOWN_ACTION") throw badRequest("UNKNOWN_ACTION", `action ${value} is not in the registry (GET /standard)`, { field: "action", action: value });
  if (!check.ok && check.reason === "CONTENT_TYPE_NOT_ALLOWED") {
    throw badRequest("CONTENT_TYPE_MISMATCH", `action ${value} takes content types ${check.allowed.join(", ")}, not ${contentType}`, { field: "content_type", action: value, content_type: contentType, allowed: check.allowed });
  }
  return value;
}

export function parseForm(value: unknown, action: string | null): InscriptionForm | null {
  if (value === undefined || value === null) return null;
  if (value !== "v1" && value !== "doginals") throw badRequest("INVALID_FORM", "form must be \"v1\" or \"doginals\"", { field: "form" });
  if (value === "doginals" && action !== null) throw badRequest("FORM_HAS_NO_ACTION", "the Doginals form has no ACTION field: use the v1 envelope for an action", { field: "form" });
  return value;
}

/** Validates the inscription fields of a request body (other fields are the caller's). */
export function parseInscriptionInput(body: Record<string, unknown>, network: DogeNetwork, maxPayloadBytes: number, recipientField = "recipient"): InscriptionInput {
  const contentType = parseContentType(body.content_type);
  const action = parseAction(body.action, contentType);
  const form = parseForm(body.form, action);
  const bytes = parseContent(body.content, body.encoding, maxPayloadBytes);
  const recipient = v.address(body[recipientField], network, recipientField);
  const content: InscriptionContent = { contentType, action, body: bytes };
  return { content, form: chooseForm(content, form), recipient };
}

/** Maps the codecs' refusals (a header that cannot fit, and the like) to 400s. */
export function planningError(error: unknown): Error {
  if (error instanceof EnvelopeEncodeError || error instanceof DoginalsEncodeError) {
    return badRequest("CANNOT_ENCODE", `this content cannot be inscribed: ${error.message}`, { reason: error.code });
  }
  return error as Error;
}
