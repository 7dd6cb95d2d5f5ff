/** JSON helpers for comparing request content (idempotent repeats vs conflicts). */

/** JSON with object keys sorted, so two equal values always give the same text. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

export const sameJson = (a: unknown, b: unknown) => stableJson(a ?? null) === stableJson(b ?? null);
