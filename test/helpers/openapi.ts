/**
 * Every response a test receives from one of our HTTP surfaces is checked against that surface's
 * own OpenAPI document, by one helper: the root hooks in hardhat.config.ts install it around the
 * global fetch before the first test and fail any test after which a violation was recorded. A
 * violation is an answer whose body the document's schema for that route and status refuses, or
 * an answer from a route the document does not have.
 *
 * Our answers name their document with `Link: </openapi.json>; rel="service-desc"` (RFC 8631);
 * answers without it (the Hardhat node, JSON-RPC servers, a rate limit's 429 before any route) are
 * left alone, and nothing else is ever requested from a server that did not name a document.
 * Violations are recorded rather than thrown, so that a service that calls another in the same
 * process (the relayer calling attesters) cannot swallow them as network errors.
 */
import Ajv2020 from "ajv/dist/2020";
import type { ValidateFunction } from "ajv";

type Document = { openapi: string; paths: Record<string, Record<string, OperationObject>> };
type OperationObject = { responses: Record<string, { content?: Record<string, unknown> }> };

interface Surface {
  id: string;
  document: Document;
  routes: { method: string; template: string; pattern: RegExp; params: number }[];
  validators: Map<string, ValidateFunction>;
}

const originalFetch = globalThis.fetch;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
const surfaces = new Map<string, Promise<Surface | null>>();
const violations: string[] = [];
let counter = 0;
let checked = 0;

async function loadSurface(documentUrl: string): Promise<Surface | null> {
  let document: Document;
  try {
    const response = await originalFetch(documentUrl, { signal: AbortSignal.timeout(5000) });
    if (response.status !== 200 || !(response.headers.get("content-type") ?? "").includes("json")) return null;
    document = (await response.json()) as Document;
  } catch {
    return null;
  }
  if (typeof document?.openapi !== "string" || !document.openapi.startsWith("3.1")) return null;
  const id = `surface-${++counter}`;
  ajv.addSchema(document as object, id);
  const routes: Surface["routes"] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    const params = (template.match(/\{[^}]+\}/g) ?? []).length;
    const pattern = new RegExp(`^${template.replace(/[.+^$|()[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    for (const method of Object.keys(operations))
      routes.push({ method: method.toUpperCase(), template, pattern, params });
  }
  // The most literal route first: /api/tx/broadcast before /api/tx/{txid}.
  routes.sort((a, b) => a.params - b.params);
  return { id, document, routes, validators: new Map() };
}

function surfaceOf(documentUrl: string, fresh = false): Promise<Surface | null> {
  if (fresh || !surfaces.has(documentUrl)) surfaces.set(documentUrl, loadSurface(documentUrl));
  return surfaces.get(documentUrl)!;
}

/** The document an answer names in its Link header (rel="service-desc"), as an absolute URL. */
function describedBy(response: Response, url: URL): string | null {
  const link = response.headers.get("link");
  const match = link ? /<([^>]+)>\s*;\s*rel="?service-desc"?/.exec(link) : null;
  return match ? new URL(match[1], url).href : null;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** Why `status body` does not fit the document for `method path`, or null when it does. */
function judge(
  surface: Surface,
  method: string,
  pathname: string,
  status: number,
  contentType: string,
  text: string,
): string | null {
  const found = surface.routes.find((r) => r.method === method && r.pattern.test(pathname));
  if (!found) {
    // Unknown routes answer the error body (404 NOT_FOUND); anything else is an undocumented route.
    if (status === 404 || status === 405) return validate(surface, "#/components/schemas/Error", text, contentType);
    return `no operation ${method} ${pathname} in the document, yet it answered ${status}`;
  }
  const responses = surface.document.paths[found.template][found.method.toLowerCase()].responses;
  const key = String(status) in responses ? String(status) : "default";
  const answer = responses[key];
  if (!answer) return `${method} ${found.template} does not document status ${status}`;
  if (!answer.content)
    return text.length === 0 || status === 304
      ? null
      : `${method} ${found.template} documents no body for ${status}, yet one came`;
  const json = Object.keys(answer.content).find((type) => type.includes("json"));
  if (!json) return null; // HTML, JavaScript, an event stream: not a JSON document to check
  return validate(
    surface,
    `#/${pointer("paths", found.template, found.method.toLowerCase(), "responses", key, "content", json, "schema")}`,
    text,
    contentType,
  );
}

function validate(surface: Surface, ref: string, text: string, contentType: string): string | null {
  if (!contentType.includes("json")) return `expected a JSON body, got ${contentType || "no content type"}`;
  let validator = surface.validators.get(ref);
  if (!validator) {
    validator = ajv.compile({ $ref: `${surface.id}${ref}` });
    surface.validators.set(ref, validator);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "the body is not JSON";
  }
  if (validator(body)) return null;
  return `${ref.replace(/~1/g, "/")}: ${ajv.errorsText(validator.errors, { separator: "; " })}: ${text.slice(0, 300)}`;
}

async function check(method: string, url: URL, response: Response): Promise<void> {
  const contentType = response.headers.get("content-type") ?? "";
  if (method === "OPTIONS" || method === "HEAD" || contentType.includes("text/event-stream")) return;
  const documentUrl = describedBy(response, url);
  if (!documentUrl) return;
  let surface = await surfaceOf(documentUrl);
  if (!surface) {
    violations.push(`${method} ${url.pathname}: its answer names ${documentUrl}, which is not an OpenAPI 3.1 document`);
    return;
  }
  const text = await response.clone().text();
  let why = judge(surface, method, url.pathname, response.status, contentType, text);
  if (why) {
    // The port may now belong to another of our servers than the one whose document is cached.
    surface = await surfaceOf(documentUrl, true);
    if (!surface) return;
    why = judge(surface, method, url.pathname, response.status, contentType, text);
  }
  checked++;
  if (why) violations.push(`${method} ${url.pathname} -> ${response.status}: ${why}`);
}

/** Wraps the global fetch so that every answer from one of our surfaces is checked. */
export function installResponseValidation(): void {
  if ((globalThis.fetch as { validated?: boolean }).validated) return;
  const wrapped = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    const response = await originalFetch(input, init);
    const request = input instanceof Request ? input : null;
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const url = new URL(request ? request.url : String(input));
    if (url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "localhost")) {
      try {
        await check(method, url, response);
      } catch (error) {
        violations.push(`${method} ${url.pathname}: the check itself failed: ${(error as Error).message}`);
      }
    }
    return response;
  };
  globalThis.fetch = Object.assign(wrapped, { validated: true }) as typeof fetch;
}

/** The violations recorded since the last call (and forgets them). */
export function takeViolations(): string[] {
  return violations.splice(0, violations.length);
}

/** How many answers were checked so far. */
export function checkedCount(): number {
  return checked;
}
