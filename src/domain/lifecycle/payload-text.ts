/**
 * Text helpers for payload rehydration modes (docs/forgetting.md, "Rehydration modes"). Lengths
 * and cuts are in Unicode code points, so a partial payload never splits a surrogate pair.
 */

export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i += 1;
    }
    n += 1;
  }
  return n;
}

/** The first `max` code points of `text`. */
export function headCodePoints(text: string, max: number): string {
  let n = 0;
  let i = 0;
  while (i < text.length && n < max) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff;
    i += pair ? 2 : 1;
    n += 1;
  }
  return text.slice(0, i);
}

const lines = (text: string) => text.split(/\r?\n/);

export interface LineDiff {
  added_lines: string[];
  removed_lines: string[];
  unchanged_line_count: number;
}

/**
 * Multiset line difference from `base` to `current`: lines of current not matched by an equal
 * line of base (added), lines of base not matched in current (removed). Order-insensitive and
 * linear, which is what a planner needs ("what is new"), not a patch.
 */
export function lineDiff(base: string, current: string): LineDiff {
  const pool = new Map<string, number>();
  for (const l of lines(base)) pool.set(l, (pool.get(l) ?? 0) + 1);
  const added: string[] = [];
  let unchanged = 0;
  for (const l of lines(current)) {
    const left = pool.get(l) ?? 0;
    if (left > 0) {
      pool.set(l, left - 1);
      unchanged += 1;
    } else {
      added.push(l);
    }
  }
  const removed: string[] = [];
  for (const l of lines(base)) {
    const left = pool.get(l) ?? 0;
    if (left > 0) {
      removed.push(l);
      pool.set(l, left - 1);
    }
  }
  return { added_lines: added, removed_lines: removed, unchanged_line_count: unchanged };
}

/**
 * What the payload adds to the summary: its non-blank lines whose text the summary does not
 * already contain (compared trimmed, with a summary's trailing ellipsis ignored).
 */
export function beyondSummary(summary: string, payload: string): LineDiff {
  const s = (summary.endsWith('…') ? summary.slice(0, -1) : summary).trim();
  const added: string[] = [];
  let unchanged = 0;
  for (const l of lines(payload)) {
    const t = l.trim();
    if (t === '') continue;
    if (s.includes(t)) unchanged += 1;
    else added.push(l);
  }
  return { added_lines: added, removed_lines: [], unchanged_line_count: unchanged };
}
