/**
 * One contract per HTTP surface (issue 18): every route is declared with zod schemas for its path
 * parameters, query and body and for its answers. The same declaration
 *   - validates the request before the handler runs (a failure is a 400 AppError whose code the
 *     field's schema names, see `coded`), so the handler gets typed, normalised input;
 *   - registers the operation in the surface's OpenAPI 3.1 document (zod-to-openapi), served at
 *     GET /openapi.json with a reference page at GET /docs (swagger-ui-dist, served from this
 *     host: no CDN).
 * Every answer of a declared route carries `Link: </openapi.json>; rel="service-desc"`.
 * Answers are not validated here (that costs time on the hot path): the tests validate every
 * response body they receive against the served document (test/helpers/openapi.ts), and
 * `undocumentedRoutes(app)` lists any route an app serves that its document lacks.
 */
import path from "node:path";
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import type express from "express";
import type { Request, RequestHandler, Response, Router } from "express";
import { z } from "zod";
import { SERVICE_DESC_LINK, route } from "./app";
import { AppError, badRequest, notFound } from "./errors";

extendZodWithOpenApi(z);
export { z };

// ---------------------------------------------------------------------------------------------
// Coded fields: a schema that names the error code (and message) its failures answer with.

interface Coded {
  code: string;
  message: (field: string) => string;
  details?: (field: string) => Record<string, unknown>;
}
const CODES = new WeakMap<z.ZodType, Coded>();

/** `schema`, whose validation failures answer 400 `code` with `message(field)` (DESIGN.md section 6). */
export function coded<T extends z.ZodType>(
  schema: T,
  code: string,
  message: (field: string) => string,
  details?: (field: string) => Record<string, unknown>,
): T {
  CODES.set(schema, { code, message, details });
  return schema;
}

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The innermost coded schema on `path` under `schema` (wrappers such as optional, default and pipe are looked through). */
function codedAt(schema: z.ZodType, at: readonly PropertyKey[]): Coded | undefined {
  let current: z.ZodType | undefined = schema;
  let found: Coded | undefined;
  let i = 0;
  while (current) {
    found = CODES.get(current) ?? found;
    const def = defOf(current);
    if (
      def.type === "optional" ||
      def.type === "nullable" ||
      def.type === "default" ||
      def.type === "prefault" ||
      def.type === "readonly" ||
      def.type === "nonoptional"
    ) {
      current = def.innerType;
      continue;
    }
    if (def.type === "pipe") {
      current = def.in;
      continue;
    }
    if (i >= at.length) break;
    const key = at[i++];
    if (def.type === "object") current = def.shape?.[String(key)];
    else if (def.type === "array") current = def.element;
    else if (def.type === "record") current = def.valueType;
    else break;
  }
  return found;
}

const fieldName = (where: string, at: readonly PropertyKey[]): string =>
  at.length === 0
    ? where
    : at.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("");

/** The 400 for the first thing wrong in `value` under `schema`; `where` names the part (body, query, path). */
function refusal(schema: z.ZodType, error: z.ZodError, where: string): AppError {
  const issue = error.issues[0];
  if (issue.code === "unrecognized_keys") {
    const field = fieldName(where, issue.path);
    return badRequest("UNKNOWN_FIELDS", `${field} has unknown fields: ${issue.keys.join(", ")}`, {
      field,
      unknown: issue.keys,
    });
  }
  if (issue.path.length === 0 && issue.code === "invalid_type" && where === "body")
    return badRequest("INVALID_BODY", "body must be a JSON object", { field: "body" });
  const field = fieldName(where, issue.path);
  const known = codedAt(schema, issue.path);
  if (known) return badRequest(known.code, known.message(field), known.details ? known.details(field) : { field });
  if (issue.code === "invalid_type" && issue.input === undefined)
    return badRequest("MISSING_FIELD", `${field} is required`, { field });
  return badRequest("INVALID_FIELD", `${field}: ${issue.message}`, { field });
}

/** `value` parsed by `schema`, or the 400 a route would answer for it (`where` names it: a field, body, query). */
export function parseAs<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw refusal(schema, result.error, where);
  return result.data;
}

// ---------------------------------------------------------------------------------------------
// The common schemas.

/** DESIGN.md section 6: every error answers `{error: {code, message, details?}}`. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z
        .string()
        .regex(/^[A-Z][A-Z0-9_]*$/)
        .openapi({ description: "stable SNAKE_CASE code", example: "INVALID_TXID" }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi("Error");

/**
 * `schema` or null. Use it instead of `.nullable()` on a schema registered as a component
 * (`.openapi("Name")`): zod-to-openapi 9 writes a nullable reference as the bare `$ref` (its known
 * issue 141), which refuses the null; a union writes `anyOf: [$ref, {type: "null"}]`.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}

/**
 * An amount in koinu as a JSON integer of every digit, whatever its size (the explorer writes
 * bigints with lossless-json; read it with a parser that keeps them, such as lossless-json).
 */
export const Koinu = z.bigint().openapi({
  type: "integer",
  format: "int64",
  description: "koinu (1 DOGE = 100,000,000 koinu), an exact JSON integer",
});
/**
 * An integer query parameter from `min` to `max` (digits only: no sign, exponent or spaces),
 * refused with `code` (INVALID_LIMIT for page sizes).
 */
export function queryInteger(min: number, max: number, code = "INVALID_LIMIT") {
  const schema = z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .openapi({ type: "integer", minimum: min, maximum: max });
  return coded(
    schema,
    code,
    (field) => `${field} must be an integer from ${min} to ${max}`,
    (field) => ({ field, min, max }),
  );
}

/** A base-unit amount (DRC-20, AMM reserves) as a decimal string: every digit, no exponent. */
export const DecimalString = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .openapi({ description: "an unsigned integer in base units, as a decimal string", example: "1000000" });

// ---------------------------------------------------------------------------------------------
// A surface: its document and the routes bound to it.

type Method = "get" | "post" | "put" | "delete";

/** An answer: a JSON schema, or the description of a non-JSON body. */
export type Answer =
  z.ZodType | { description: string; schema?: z.ZodType; contentType?: string; headers?: Record<string, string> };

export interface Operation<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  summary: string;
  description?: string;
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** A request body that is not JSON (documented, not parsed here: `before` reads it). */
  rawBody?: { contentType: string; description: string };
  /** Express handlers run before the input is parsed (a rate limit, a body reader, authentication). */
  before?: RequestHandler[];
  /** A security scheme of the surface (by name) that this operation requires. */
  security?: string;
  /** Answers by status (200, 201, 202, ...); every operation also documents the error body as `default`. */
  responses: Record<number, Answer>;
}

export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type Handler<P, Q, B> = (input: Input<Out<P>, Out<Q>, Out<B>>, req: Request, res: Response) => unknown;

export interface SurfaceInfo {
  title: string;
  version?: string;
  description: string;
  /** Security schemes by name (OpenAPI components.securitySchemes). */
  securitySchemes?: Record<
    string,
    | { type: "http"; scheme: "bearer"; description: string }
    | { type: "apiKey"; in: "header" | "cookie"; name: string; description: string }
  >;
}

/** Express's `/a/:b` as OpenAPI's `/a/{b}`. */
export function openApiPath(expressPath: string): string {
  if (/[*?()[\]]/.test(expressPath))
    throw new Error(`route path ${expressPath} has syntax the OpenAPI document cannot say`);
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

/** Every answer of a declared route says where its document is (RFC 8631; see SERVICE_DESC_LINK). */
const describedBy: RequestHandler = (_req, res, next) => {
  res.setHeader("Link", SERVICE_DESC_LINK);
  next();
};

const SERVED = new WeakMap<object, ApiSurface>();

/** The surface whose document `app` serves (`surface.serve(app)`), if any. */
export function surfaceOf(app: express.Express): ApiSurface | undefined {
  return SERVED.get(app);
}

export class ApiSurface {
  private readonly registry = new OpenAPIRegistry();
  private readonly mounts = new Map<unknown, string>();
  private readonly operations = new Set<string>();
  private document: Record<string, unknown> | null = null;

  constructor(readonly info: SurfaceInfo) {
    for (const [name, scheme] of Object.entries(info.securitySchemes ?? {}))
      this.registry.registerComponent("securitySchemes", name, scheme);
  }

  /** Routes declared on `router`, which the app serves under `prefix` ("" for the app itself). */
  on(router: Router | express.Express, prefix = "") {
    this.mounts.set(router, prefix);
    const bind =
      (method: Method) =>
      <P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
        routePath: string,
        operation: Operation<P, Q, B>,
        handler: Handler<P, Q, B>,
      ) => {
        this.declare(method, prefix + routePath, operation);
        (router as Router)[method](
          routePath,
          describedBy,
          ...(operation.before ?? []),
          route((req, res) => handler(this.parse(operation, req) as Input<Out<P>, Out<Q>, Out<B>>, req, res)),
        );
      };
    return { get: bind("get"), post: bind("post"), put: bind("put"), delete: bind("delete") };
  }

  /** Documents a route that is served by other means (the explorer's node:http fast paths, the ops routes). */
  declare(method: Method, fullPath: string, operation: Operation): void {
    const key = `${method.toUpperCase()} ${openApiPath(fullPath)}`;
    if (this.operations.has(key)) throw new Error(`${key} is declared twice`);
    this.operations.add(key);
    this.document = null;
    const responses: Record<string, unknown> = {};
    for (const [status, answer] of Object.entries(operation.responses)) responses[status] = responseObject(answer);
    responses.default = {
      description: "an error (DESIGN.md section 6)",
      content: { "application/json": { schema: ErrorBody } },
    };
    this.registry.registerPath({
      method,
      path: openApiPath(fullPath),
      summary: operation.summary,
      description: operation.description,
      tags: operation.tags,
      security: operation.security ? [{ [operation.security]: [] }] : undefined,
      request: {
        params: operation.params as z.ZodObject | undefined,
        query: operation.query as z.ZodObject | undefined,
        body: operation.body
          ? { required: true, content: { "application/json": { schema: operation.body } } }
          : operation.rawBody
            ? {
                required: true,
                description: operation.rawBody.description,
                content: { [operation.rawBody.contentType]: { schema: z.string() } },
              }
            : undefined,
      },
      responses: responses as never,
    });
  }

  /** Whether `METHOD /openapi/{path}` is declared. */
  has(method: string, openapiPath: string): boolean {
    return this.operations.has(`${method.toUpperCase()} ${openapiPath}`);
  }

  /** The prefix a router was declared under, if any. */
  prefixOf(router: unknown): string | undefined {
    return this.mounts.get(router);
  }

  /** The OpenAPI 3.1 document (built once per set of operations). */
  openapi(): Record<string, unknown> {
    if (!this.document) {
      const generator = new OpenApiGeneratorV31(this.registry.definitions, { sortComponents: "alphabetically" });
      this.document = generator.generateDocument({
        openapi: "3.1.0",
        info: { title: this.info.title, version: this.info.version ?? "1", description: this.info.description },
      }) as unknown as Record<string, unknown>;
    }
    return this.document;
  }

  /**
   * GET /openapi.json and the reference page GET /docs (with its assets under /docs/assets/), on
   * `app`; they are declared in the document too.
   */
  serve(app: express.Express): void {
    SERVED.set(app, this);
    const self = this.on(app);
    self.get(
      "/openapi.json",
      {
        summary: "This surface's OpenAPI 3.1 document",
        tags: ["meta"],
        responses: { 200: z.record(z.string(), z.unknown()) },
      },
      (_input, _req, res) => {
        res.setHeader("Cache-Control", "no-cache");
        res.json(this.openapi());
      },
    );
    self.get(
      "/docs",
      {
        summary: "The API reference page (Swagger UI, served from this host)",
        tags: ["meta"],
        responses: { 200: { description: "an HTML page", contentType: "text/html" } },
      },
      (_input, _req, res) => {
        res.type("html").send(referencePage(this.info.title));
      },
    );
    const file = z.string().openapi({ description: `one of the page's files: ${REFERENCE_ASSETS.join(", ")}` });
    self.get(
      "/docs/assets/:file",
      {
        summary: "A file of the reference page",
        tags: ["meta"],
        params: z.object({ file }),
        responses: { 200: { description: "JavaScript, CSS or an image", contentType: "application/octet-stream" } },
      },
      ({ params }, _req, res) => {
        if (!(REFERENCE_ASSETS as readonly string[]).includes(params.file))
          throw notFound("NOT_FOUND", `${params.file} is not a file of the reference page`);
        res.setHeader("Cache-Control", "public, max-age=86400");
        res.sendFile(path.join(swaggerUiDirectory(), params.file));
      },
    );
  }

  private parse(operation: Operation, req: Request): Input<unknown, unknown, unknown> {
    const part = (schema: z.ZodType | undefined, value: unknown, where: string): unknown =>
      schema ? parseAs(schema, value, where) : undefined;
    return {
      params: part(operation.params, req.params, "path"),
      query: part(operation.query, req.query ?? {}, "query"),
      body: part(operation.body, req.body, "body"),
    };
  }
}

function responseObject(answer: Answer): Record<string, unknown> {
  if (answer instanceof z.ZodType) return { description: "OK", content: { "application/json": { schema: answer } } };
  const headers = answer.headers
    ? Object.fromEntries(
        Object.entries(answer.headers).map(([name, description]) => [
          name,
          { description, schema: { type: "string" } },
        ]),
      )
    : undefined;
  if (!answer.schema && !answer.contentType) return { description: answer.description, headers };
  return {
    description: answer.description,
    headers,
    content: { [answer.contentType ?? "application/json"]: { schema: answer.schema ?? z.string() } },
  };
}

// ---------------------------------------------------------------------------------------------
// Listing an app's routes.

interface RouteLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: RouteLayer[] };
}

/**
 * Every `METHOD path` the Express `app` routes that none of `surfaces` declares. Routers mounted
 * with `use` are followed when a surface knows their prefix (`on(router, prefix)`); a mounted
 * router no surface knows is reported as `USE <unknown router>`.
 */
export function undocumentedRoutes(
  app: express.Express,
  surfaces: ApiSurface[] = [SERVED.get(app)].filter((s): s is ApiSurface => s !== undefined),
): string[] {
  const missing: string[] = [];
  const prefixOf = (router: unknown) => surfaces.map((s) => s.prefixOf(router)).find((p) => p !== undefined);
  const walk = (stack: RouteLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const p of paths) {
          for (const method of Object.keys(layer.route.methods)) {
            if (method === "_all") continue;
            const openapi = openApiPath(prefix + p);
            if (!surfaces.some((s) => s.has(method, openapi))) missing.push(`${method.toUpperCase()} ${openapi}`);
          }
        }
      } else if (layer.handle?.stack) {
        const nested = prefixOf(layer.handle);
        if (nested === undefined) missing.push("USE <a router no surface declares>");
        else walk(layer.handle.stack, nested);
      }
    }
  };
  const root = (app as unknown as { router: { stack: RouteLayer[] } }).router;
  walk(root.stack, "");
  return [...new Set(missing)];
}

// ---------------------------------------------------------------------------------------------
// The reference page.

const REFERENCE_ASSETS = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"] as const;

function swaggerUiDirectory(): string {
  return path.dirname(require.resolve("swagger-ui-dist/package.json"));
}

function referencePage(title: string): string {
  const escaped = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escaped}: API reference</title>
<link rel="icon" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: new URL("openapi.json", document.baseURI).href, dom_id: "#reference", deepLinking: true });
</script>
</body>
</html>
`;
}
