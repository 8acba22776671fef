/**
 * What an inscription request says, for both paths (platform `POST /inscribe` and user-signed
 * `POST /prepare`): the fields' shapes as zod schemas (./schemas.ts declares the bodies with them,
 * so the route validates them before its handler runs), and the rules a field's schema cannot say,
 * checked once here: the ACTION against the registry and the content type, the form against the
 * ACTION, the content decoded in its encoding against the payload limit.
 */
import { DogeNetwork } from "../../doge";
import { DoginalsEncodeError, EnvelopeEncodeError, checkActionContentType } from "../../inscription";
import { badRequest } from "../http/errors";
import { coded, z } from "../http/openapi";
import { Address } from "../http/validation";
import { InscriptionContent, InscriptionForm, chooseForm } from "./plan";

/** RFC 6838 type/subtype with optional parameters; at most 255 bytes. */
const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"]*"))*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const MAX_CONTENT_TYPE_BYTES = 255;

export interface InscriptionInput {
  content: InscriptionContent;
  form: InscriptionForm;
  recipient: string;
}

// ---------------------------------------------------------------------------------------------
// The fields' shapes.

export const ContentType = coded(
  z
    .string()
    .regex(MEDIA_TYPE)
    .refine((value) => Buffer.byteLength(value) <= MAX_CONTENT_TYPE_BYTES)
    .openapi({
      description: `a media type (type/subtype with optional ;param=value), at most ${MAX_CONTENT_TYPE_BYTES} bytes`,
      example: "text/plain;charset=utf-8",
    }),
  "INVALID_CONTENT_TYPE",
  () =>
    `content_type must be a media type such as "image/png" or "text/plain;charset=utf-8", at most ${MAX_CONTENT_TYPE_BYTES} bytes`,
);

export const Action = coded(
  z.string().min(1).nullable().optional().openapi({
    description: "a registered ACTION (GET /standard) whose content types include content_type; absent or null: none",
    example: "LAUNCHPAD_MINT",
  }),
  "INVALID_ACTION",
  () => "action must be a non-empty string when given",
);

export const Content = coded(
  z.string().openapi({
    description:
      'the payload: UTF-8 text, or canonical base64 with encoding "base64"; not empty, at most the inscriber\'s payload limit (GET /standard limits.max_payload_bytes)',
  }),
  "INVALID_CONTENT",
  () => "content must be a string",
);

export const Encoding = coded(
  z.enum(["utf8", "base64"]).optional().openapi({ description: "how content is written (default utf8)" }),
  "INVALID_ENCODING",
  () => 'encoding must be "utf8" or "base64"',
);

export const Form = coded(
  z.enum(["v1", "doginals"]).nullable().optional().openapi({
    description:
      "the envelope form; default: DRC-20 plain text goes out as Doginals, everything else in the v1 envelope. Doginals takes no ACTION",
  }),
  "INVALID_FORM",
  () => 'form must be "v1" or "doginals"',
);

/** An address of `network` to inscribe onto. */
export const Recipient = (network: DogeNetwork) => Address(network);

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
