import { MAX_BODY_DEPTH } from '../contract/common';
import { LoreError } from '../contract/errors';

/**
 * Checks every request body before validation, whatever the route:
 *
 *  - nesting deeper than MAX_BODY_DEPTH is refused (MongoDB stores documents 100 levels deep and
 *    Lore keeps a caller's objects a few levels inside its own; a 10,000-deep `metadata` used to
 *    reach the store and fail there as a 500);
 *  - a `__proto__` key anywhere is refused: assigned into a plain object it would replace the
 *    object's prototype instead of adding a field (JSON.parse makes it an own key, but any later
 *    copy by assignment would not);
 *  - text that is not well-formed Unicode (a lone surrogate, which JSON can spell as \ud800) is
 *    refused: it cannot be stored as UTF-8 without changing it, nor used in an index key;
 *  - a key containing NUL is refused: MongoDB keys are C strings.
 *
 * Iterative, so a hostile body cannot overflow the stack.
 */
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkBody(body: unknown): LoreError | null {
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: body, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return badText(path, 'is not well-formed Unicode (a lone surrogate)');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      return new LoreError('invalid_request', `the request nests deeper than ${MAX_BODY_DEPTH} levels (at ${path || '(body)'})`, {
        limit_depth: MAX_BODY_DEPTH,
        issues: [{ path: path || '(body)', message: `nests deeper than ${MAX_BODY_DEPTH} levels` }],
      });
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], depth: depth + 1, path: path ? `${path}.${i}` : String(i) });
      continue;
    }
    for (const key of Object.keys(v)) {
      const at = path ? `${path}.${key}` : key;
      if (LONE_SURROGATE.test(key)) return badText(at, 'key is not well-formed Unicode (a lone surrogate)');
      if (key.includes('\u0000')) return badText(at, 'key contains NUL');
      if (key === '__proto__') {
        return new LoreError('invalid_request', `'__proto__' is not allowed as a key (at ${at})`, { issues: [{ path: at, message: "'__proto__' is not allowed as a key" }] });
      }
      stack.push({ v: (v as Record<string, unknown>)[key], depth: depth + 1, path: at });
    }
  }
  return null;
}

function badText(path: string, message: string): LoreError {
  const at = path || '(body)';
  return new LoreError('invalid_request', `${at}: ${message}`, { issues: [{ path: at, message }] });
}
