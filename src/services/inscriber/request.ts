/**
 * What an inscription request says, for both paths (platform `POST /inscribe` and user-signed
 * `POST /prepare`): the rules a field's schema cannot say, checked once here: the ACTION against
 * the registry and the content type, the form against the ACTION, the content decoded in its
 * encoding against the payload limit. The fields' shapes are zod schemas in the HTTP layer
 * (./schemas.ts), so a route validates them before its handler runs and calls inscriptionInput.
 */
import { DoginalsEncodeError, EnvelopeEncodeError, checkActionContentType } from "../../inscription";
import { badRequest } from "../../errors";
import { InscriptionContent, InscriptionForm, chooseForm } from "./plan";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const MAX_CONTENT_TYPE_BYTES = 255;

export interface InscriptionInput {
  content: InscriptionContent;
  form: InscriptionForm;
  recipient: string;
}

/** The inscription fields of a request body, after their schemas. */
export interface InscriptionFields {
  content_type: string;
  action?: string | null;
  content: string;
  encoding?: "utf8" | "base64";
  recipient: string;
  form?: "v1" | "doginals" | null;
}

// ---------------------------------------------------------------------------------------------
// The rules the schemas cannot say.

export function parseContent(value: string, encoding: "utf8" | "base64" | undefined, maxBytes: number): Uint8Array {
  if (encoding === "base64" && !BASE64.test(value))
    throw badRequest("INVALID_CONTENT", "content is not canonical base64", { field: "content" });
  const bytes = encoding === "base64" ? Uint8Array.from(Buffer.from(value, "base64")) : new TextEncoder().encode(value);
  if (bytes.length === 0) throw badRequest("EMPTY_CONTENT", "content must not be empty", { field: "content" });
  if (bytes.length > maxBytes)
    throw badRequest(
      "PAYLOAD_TOO_LARGE",
      `the payload is ${bytes.length} bytes; this inscriber takes at most ${maxBytes}`,
      { field: "content", size: bytes.length, max: maxBytes },
    );
  return bytes;
}

export function parseAction(value: string | null | undefined, contentType: string): string | null {
  if (value === undefined || value === null) return null;
  const check = checkActionContentType(value, contentType);
  if (!check.ok && check.reason === "UNKNOWN_ACTION")
    throw badRequest("UNKNOWN_ACTION", `action ${value} is not in the registry (GET /standard)`, {
      field: "action",
      action: value,
    });
  if (!check.ok && check.reason === "CONTENT_TYPE_NOT_ALLOWED") {
    throw badRequest(
      "CONTENT_TYPE_MISMATCH",
      `action ${value} takes content types ${check.allowed.join(", ")}, not ${contentType}`,
      { field: "content_type", action: value, content_type: contentType, allowed: check.allowed },
    );
  }
  return value;
}

export function parseForm(value: InscriptionForm | null | undefined, action: string | null): InscriptionForm | null {
  if (value === undefined || value === null) return null;
  if (value === "doginals" && action !== null)
    throw badRequest("FORM_HAS_NO_ACTION", "the Doginals form has no ACTION field: use the v1 envelope for an action", {
      field: "form",
    });
  return value;
}

/** The inscription a request's fields (validated by their schemas) describe, or the 400 of the first rule it breaks. */
export function inscriptionInput(fields: InscriptionFields, maxPayloadBytes: number): InscriptionInput {
  const action = parseAction(fields.action, fields.content_type);
  const form = parseForm(fields.form, action);
  const bytes = parseContent(fields.content, fields.encoding, maxPayloadBytes);
  const content: InscriptionContent = { contentType: fields.content_type, action, body: bytes };
  return { content, form: chooseForm(content, form), recipient: fields.recipient };
}

/** Maps the codecs' refusals (a header that cannot fit, and the like) to 400s. */
export function planningError(error: unknown): Error {
  if (error instanceof EnvelopeEncodeError || error instanceof DoginalsEncodeError) {
    return badRequest("CANNOT_ENCODE", `this content cannot be inscribed: ${error.message}`, { reason: error.code });
  }
  return error as Error;
}
