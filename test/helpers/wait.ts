export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns a truthy value or the (generous) deadline passes. No timing assertion: only a bound. */
export async function pollFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
