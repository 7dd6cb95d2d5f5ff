/**
 * An approval node's `timeout`: an ISO-8601 duration (`PT30M`, `P2D`, `P1DT12H`, `P1W`) or a number
 * of seconds. Years and months are refused (their length depends on the calendar). Pure: the
 * validator normalises it to `timeout_ms`, which is all the workflow reads.
 */

export const MIN_APPROVAL_TIMEOUT_MS = 1000;
export const MAX_APPROVAL_TIMEOUT_MS = 366 * 86_400_000;

const ISO = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** Milliseconds, or a message saying what is wrong. */
export function parseApprovalTimeout(value: unknown): { ms: number } | { error: string } {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { error: 'timeout must be a finite number of seconds' };
    ms = value * 1000;
  } else if (typeof value === 'string') {
    const v = value.trim().toUpperCase();
    if (/^\d+(\.\d+)?$/.test(v)) ms = Number(v) * 1000;
    else {
      if (/^P(\d+Y|\d+M)|^P[^T]*\d+M/.test(v))
        return { error: `timeout ${JSON.stringify(value)}: years and months are not fixed lengths; use weeks, days, hours, minutes or seconds` };
      const m = ISO.exec(v);
      if (!m || v === 'P' || v.endsWith('T')) return { error: `timeout ${JSON.stringify(value)} is not an ISO-8601 duration (e.g. PT30M, P2D, P1DT12H) or a number of seconds` };
      const [w, d, h, min, s] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
      ms = (((w! * 7 + d!) * 24 + h!) * 60 + min!) * 60_000 + s! * 1000;
    }
  } else {
    return { error: 'timeout must be an ISO-8601 duration string (e.g. PT30M) or a number of seconds' };
  }
  ms = Math.round(ms);
  if (ms < MIN_APPROVAL_TIMEOUT_MS) return { error: `timeout must be at least 1 second` };
  if (ms > MAX_APPROVAL_TIMEOUT_MS) return { error: `timeout must be at most 366 days` };
  return { ms };
}
