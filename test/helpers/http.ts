/** JSON over HTTP for tests. */

export interface JsonAnswer {
  status: number;
  headers: Headers;
  /** The parsed body, or null when it was empty. */
  body: any;
}

/** `method url` with an optional Bearer token and JSON body; the status, headers and parsed body. */
export async function jsonRequest(
  url: string,
  method = "GET",
  options: { token?: string; body?: unknown } = {},
): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.body !== undefined ? { "Content-Type": "application/json" } : {}),
      ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}
