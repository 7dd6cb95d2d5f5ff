/**
 * Lets the replies that have already arrived for other requests (a recall's loaded hits, a
 * planning request's store reads) run before the caller's next stretch of CPU work: resolves in
 * the event loop's check phase, after the I/O callbacks of the current poll phase. Writes call it
 * before their heavy steps (extraction, learning), so a read whose reply is in does not wait
 * behind every write that is in flight (docs/design.md, "Reads keep answering while writes stream in").
 */
export const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
