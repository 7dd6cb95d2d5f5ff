export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The one polling helper for tests: polls fn until it returns a truthy value or the (generous) deadline passes.
 * No timing assertion: the deadline is only a bound for a test that would otherwise hang.
 */
export async function pollFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Like pollFor, for work made of many steps on a loaded machine (a run of sandboxed playbooks):
 * no deadline for the whole, only for a stall. It waits while `progressOf(read())` keeps changing
 * and gives up once it has not changed for `stallMs`.
 */
export async function pollWhileProgressing<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  progressOf: (v: T) => string,
  stallMs = 180_000,
  everyMs = 250,
): Promise<T> {
  let last = '';
  let since = Date.now();
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    const p = progressOf(v);
    if (p !== last) [last, since] = [p, Date.now()];
    else if (Date.now() - since > stallMs) throw new Error(`no progress for ${stallMs} ms waiting for ${what}; last seen: ${p}`);
    await sleep(everyMs);
  }
}
