/**
 * `$nodes.<node_id>.<dotted path>` references (docs/automation.md, "References"). A string value
 * that starts with `$nodes` is always a reference; it is replaced by the value found at the path in
 * that node's output (any JSON type, not a string interpolation). Numeric segments index arrays.
 * Pure code with no imports: the workflow bundle resolves references with it.
 */

export interface NodeRef {
  raw: string;
  node_id: string;
  path: string[];
}

const REF = /^\$nodes\.([A-Za-z0-9][A-Za-z0-9_-]{0,99})((?:\.[^.]+)*)$/;

export const isReferenceString = (v: unknown): v is string => typeof v === 'string' && (v === '$nodes' || v.startsWith('$nodes.'));

/** The parsed reference, or null when the string looks like one but is malformed. */
export function parseRef(raw: string): NodeRef | null {
  const m = REF.exec(raw);
  if (!m) return null;
  const rest = m[2] ?? '';
  return { raw, node_id: m[1]!, path: rest === '' ? [] : rest.slice(1).split('.') };
}

/** Every reference string inside a JSON value, with the dotted path of where it sits. */
export function collectRefs(value: unknown, at: string, out: { at: string; raw: string; ref: NodeRef | null }[] = []) {
  if (isReferenceString(value)) out.push({ at, raw: value, ref: parseRef(value) });
  else if (Array.isArray(value)) value.forEach((v, i) => collectRefs(v, `${at}[${i}]`, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) collectRefs(v, `${at}.${k}`, out);
  }
  return out;
}

/** Walks a path into a JSON value; `found` is false when a segment is absent. */
export function lookup(root: unknown, path: readonly string[]): { found: boolean; value: unknown } {
  let cur: unknown = root;
  for (const seg of path) {
    if (Array.isArray(cur) && /^\d+$/.test(seg)) {
      const i = Number(seg);
      if (i >= cur.length) return { found: false, value: undefined };
      cur = cur[i];
    } else if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: cur !== undefined, value: cur };
}

/** Resolves one reference against the outputs of finished nodes. */
export function resolveRef(raw: string, outputs: Readonly<Record<string, unknown>>): { found: boolean; value: unknown } {
  const ref = parseRef(raw);
  if (!ref || !Object.hasOwn(outputs, ref.node_id)) return { found: false, value: undefined };
  return lookup(outputs[ref.node_id], ref.path);
}

/**
 * A deep copy of `value` with every reference replaced by what it points to. References that do
 * not resolve are listed in `missing` (and left as null in the copy).
 */
export function resolveValue(value: unknown, outputs: Readonly<Record<string, unknown>>, missing: string[] = []): unknown {
  if (isReferenceString(value)) {
    const r = resolveRef(value, outputs);
    if (!r.found) {
      missing.push(value);
      return null;
    }
    return r.value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, outputs, missing));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = resolveValue(v, outputs, missing);
    return out;
  }
  return value;
}
