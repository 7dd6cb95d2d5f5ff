import type { z } from 'zod';
import type { Issue } from './errors';

/**
 * What a request schema accepts, read from the zod schema itself, so the transport can say which
 * keys a request may use without any route listing them by hand:
 *
 *  - unknown keys inside a closed object (a patch, a filter, options, a graph part: written with
 *    z.strictObject) are `validation_failed`, each issue naming the key and the accepted ones;
 *  - unknown keys at the top level of a request are accepted and reported as `warnings`.
 */

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** Unwraps optional, default, nullable, refinements and the input side of pipes and transforms. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 32; i++) {
    const d = defOf(s);
    switch (d.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'nonoptional':
      case 'readonly':
      case 'catch':
        s = d.innerType as z.ZodType;
        continue;
      case 'pipe':
        s = d.in as z.ZodType;
        continue;
      case 'lazy':
        s = (d.getter as () => z.ZodType)();
        continue;
      default:
        return s;
    }
  }
  return s;
}

/** The object schemas a value at this schema may be (one, or several for a union). */
function objectsOf(schema: z.ZodType): z.ZodType[] {
  const s = unwrap(schema);
  const d = defOf(s);
  if (d.type === 'object') return [s];
  if (d.type === 'union') return (d.options as z.ZodType[]).flatMap(objectsOf);
  if (d.type === 'intersection') return [...objectsOf(d.left as z.ZodType), ...objectsOf(d.right as z.ZodType)];
  return [];
}

const shapeOf = (objectSchema: z.ZodType) => defOf(objectSchema).shape as Record<string, z.ZodType>;
/** A field of an object schema by name: own keys only ("constructor" is not a field). */
const fieldOf = (objectSchema: z.ZodType, key: string): z.ZodType | undefined => {
  const shape = shapeOf(objectSchema);
  return Object.hasOwn(shape, key) ? shape[key] : undefined;
};

/** The schema of the value at path (array indexes and record keys step into elements and values). */
export function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | null {
  let cur: z.ZodType | null = root;
  for (const seg of path) {
    if (!cur) return null;
    const s = unwrap(cur);
    const d = defOf(s);
    if (d.type === 'array') {
      cur = d.element as z.ZodType;
    } else if (d.type === 'record') {
      cur = d.valueType as z.ZodType;
    } else {
      const candidates = objectsOf(s)
        .map((o) => fieldOf(o, String(seg)))
        .filter((x): x is z.ZodType => !!x);
      cur = candidates[0] ?? null;
    }
  }
  return cur;
}

/** The keys an object schema at path accepts (every member of a union, merged), or null. */
export function acceptedKeysAt(root: z.ZodType, path: readonly PropertyKey[]): string[] | null {
  const at = schemaAt(root, path);
  if (!at) return null;
  const objects = objectsOf(at);
  if (objects.length === 0) return null;
  return [...new Set(objects.flatMap((o) => Object.keys(shapeOf(o))))];
}

/**
 * The top-level keys a request schema knows, or null when its top level takes any key (a record,
 * a loose or strict object: strict ones reject unknown keys themselves).
 */
export function topLevelKeys(root: z.ZodType): Set<string> | null {
  const objects = objectsOf(root);
  if (objects.length === 0) return null;
  if (objects.some((o) => defOf(o).catchall !== undefined)) return null;
  return new Set(objects.flatMap((o) => Object.keys(shapeOf(o))));
}

/** The type a top-level field expects, unwrapped ('number', 'boolean', 'array', …), for query strings. */
export function fieldType(root: z.ZodType, key: string): string | null {
  const at = schemaAt(root, [key]);
  if (!at) return null;
  const d = defOf(unwrap(at));
  if (d.type === 'union') {
    const kinds = new Set((d.options as z.ZodType[]).map((o) => defOf(unwrap(o)).type));
    return kinds.has('array') ? 'array' : ([...kinds][0] ?? null);
  }
  return d.type;
}

export interface UnknownKeyIssue extends Issue {
  key: string;
  accepted: string[];
}

/** The dotted path the envelope uses everywhere (`nodes.0.text`). */
const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.');

export function unknownKeyIssue(path: string, key: string, accepted: readonly string[]): UnknownKeyIssue {
  const where = path ? ` in ${path}` : '';
  return {
    path: path ? `${path}.${key}` : key,
    message: `unknown key '${key}'${where}; accepted: ${accepted.length > 0 ? accepted.join(', ') : '(none)'}`,
    key,
    accepted: [...accepted],
  };
}

/**
 * zod's `unrecognized_keys` issues as one issue per key, each naming the accepted keys (read from
 * the schema the issue came from). prefix is prepended to paths (e.g. 'patch.steps.0').
 */
export function unknownKeyIssues(error: z.ZodError, schema: z.ZodType, prefix = ''): UnknownKeyIssue[] {
  const out: UnknownKeyIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const accepted = acceptedKeysAt(schema, issue.path) ?? [];
    const rel = dotted(issue.path);
    const path = prefix && rel ? `${prefix}.${rel}` : prefix || rel;
    for (const key of issue.keys) out.push(unknownKeyIssue(path, key, accepted));
  }
  return out;
}

/** Every other zod issue as {path, message}, with the same prefix. */
export function otherIssues(error: z.ZodError, prefix = ''): Issue[] {
  return error.issues
    .filter((i) => i.code !== 'unrecognized_keys')
    .map((i) => {
      const rel = dotted(i.path);
      return { path: (prefix && rel ? `${prefix}.${rel}` : prefix || rel) || '(body)', message: i.message };
    });
}

/** True when the schema has a closed (strict) object anywhere: such a route can answer validation_failed. */
export function hasClosedObject(root: z.ZodType): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const s = stack.pop();
    if (!s || seen.has(s)) continue;
    seen.add(s);
    const d = defOf(s);
    if (d.type === 'object') {
      const catchall = d.catchall as z.ZodType | undefined;
      if (catchall && defOf(catchall).type === 'never') return true;
      stack.push(...Object.values(d.shape as Record<string, unknown>));
      if (catchall) stack.push(catchall);
      continue;
    }
    for (const k of ['innerType', 'in', 'out', 'element', 'valueType', 'left', 'right'] as const) if (d[k]) stack.push(d[k]);
    if (Array.isArray(d.options)) stack.push(...(d.options as unknown[]));
  }
  return false;
}
