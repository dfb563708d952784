// Waiting in tests for something that happens asynchronously. Every wait has a bound, so a
// regression fails with what was awaited instead of hanging the run; the bound is generous and
// is not a timing assertion.

/** How long a wait may take before it fails, unless the caller says otherwise. */
export const WAIT_LIMIT_MS = 20_000;

/**
 * Polls `cond` until it holds. Rejects with "timed out waiting for `what`" after `limitMs`;
 * `intervalMs` 0 polls once per event-loop turn (setImmediate).
 */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, limitMs = WAIT_LIMIT_MS, intervalMs = 10): Promise<void> {
  await pollFor(async () => ((await cond()) ? true : undefined), what, limitMs, intervalMs);
}

/** Polls `probe` until it gives a value other than undefined, and resolves to that value (same bound). */
export async function pollFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, limitMs = WAIT_LIMIT_MS, intervalMs = 10): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${limitMs} ms)`);
    await (intervalMs > 0 ? new Promise((r) => setTimeout(r, intervalMs)) : new Promise((r) => setImmediate(r)));
  }
}

/** Resolves `promise`, or rejects with "timed out waiting for `what`" after `limitMs`. */
export async function within<T>(promise: Promise<T>, what: string, limitMs = WAIT_LIMIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what} (${limitMs} ms)`)), limitMs);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
