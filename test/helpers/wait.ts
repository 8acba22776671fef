/** Polling for tests: waits for a condition, never for a fixed time. */

/**
 * Calls `probe` every `everyMs` (25 ms) until it returns something truthy (returned) or `limitMs`
 * passes (then throws, naming `what`). Timing is not asserted, only bounded.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  limitMs = 60_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
