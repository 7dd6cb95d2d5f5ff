/**
 * Lets the replies that have already arrived for other requests (a recall's loaded hits, a
 * planning request's store reads) run before the caller's next stretch of CPU work: resolves in
 * the event loop's check phase, after the I/O callbacks of the current poll phase. Writes call it
 * before their heavy steps (extraction, learning), so a read whose reply is in does not wait
 * behind every write that is in flight (docs/design.md, "Reads keep answering while writes stream in").
 */
export const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The value of `p` if it settles within `ms` (a rejection is thrown), else null and `p` goes on:
 * how a request waits a bounded time for a start-up build (LORE_BUILD_WAIT) before answering
 * without it. `ms` ≤ 0 never waits.
 */
export async function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | null> {
  if (ms <= 0) {
    // Nobody waits for it here: a later failure must not become an unhandled rejection.
    p.catch(() => {});
    return null;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([p.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
