import { z } from 'zod';
import { pathsOf, type RouteAlias, type RouteDef } from '../../src/contract/route';

/**
 * Bad-input cases derived from a route's own input schema (its JSON Schema), so that every route
 * of the contract is covered, including routes added later, without anyone listing them.
 */

type Json = Record<string, any>;

export interface Case {
  route: string;
  family: string;
  method: 'GET' | 'POST';
  url: string;
  /** Raw request text (POST); absent for GET. */
  payload?: string;
  contentType?: string;
}

/** Words that name Object.prototype members: as ids, names and query words they must be plain strings. */
export const PROTOTYPE_WORDS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
const TRAVERSAL = '../../../../etc/passwd';
/** Unicode edge cases, as JSON text (a lone surrogate cannot be a JS string that JSON.stringify keeps). */
const UNICODE_JSON = ['"\\ud800"', '"\\u0000"', '"a\\u202eb"', '"e\\u0301"', `"${'🙂'.repeat(500)}"`, '"\\ufeff\\u200b"'];

export const inputSchema = (def: RouteDef): Json => z.toJSONSchema(def.input, { io: 'input', unrepresentable: 'any', reused: 'inline' }) as Json;

/** The type of a JSON Schema node, looking through anyOf (nullable, unions). */
function typeOf(s: Json | undefined): string | undefined {
  if (!s) return undefined;
  if (s.type) return Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  const opts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  return opts?.map(typeOf).find((t) => t && t !== 'null');
}

function enumOf(s: Json | undefined): unknown[] | undefined {
  if (!s) return undefined;
  if (Array.isArray(s.enum)) return s.enum;
  if (s.const !== undefined) return [s.const];
  const opts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  return opts?.map(enumOf).find((e) => e);
}

/** A value the schema accepts where that is easy to tell (required fields only for objects). */
export function sample(s: Json | undefined, depth = 0): unknown {
  if (!s || depth > 6) return 'x';
  const e = enumOf(s);
  if (e) return e[0];
  switch (typeOf(s)) {
    case 'string': {
      const branch = (s.anyOf ?? s.oneOf ?? [s]).find((o: Json) => typeOf(o) === 'string') ?? s;
      if (branch.format === 'date-time') return '2026-01-01T00:00:00Z';
      return 'sample'.padEnd(Math.max(6, branch.minLength ?? 0), 'x').slice(0, Math.max(branch.maxLength ?? 64, 1));
    }
    case 'integer':
    case 'number': {
      const branch = (s.anyOf ?? [s]).find((o: Json) => ['integer', 'number'].includes(typeOf(o) ?? '')) ?? s;
      return Math.max(branch.minimum ?? 1, Math.min(1, branch.maximum ?? 1));
    }
    case 'boolean':
      return true;
    case 'array': {
      const branch = (s.anyOf ?? [s]).find((o: Json) => typeOf(o) === 'array') ?? s;
      return Array.from({ length: branch.minItems ?? 0 }, () => sample(branch.items, depth + 1));
    }
    case 'object': {
      const branch = (s.anyOf ?? [s]).find((o: Json) => typeOf(o) === 'object') ?? s;
      const out: Json = {};
      for (const k of branch.required ?? []) out[k] = sample(branch.properties?.[k], depth + 1);
      return out;
    }
    default:
      return 'x';
  }
}

/** A value of another JSON type than the field takes. */
function wrongType(s: Json): unknown {
  switch (typeOf(s)) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not-a-number';
    case 'boolean':
      return 'yes';
    case 'array':
      return { not: 'an array' };
    case 'object':
      return 'not an object';
    default:
      return undefined;
  }
}

const deepText = (levels: number) => `${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deepArrayText = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/** The body as text with one top-level field's value replaced by raw JSON text. */
function withRaw(base: Json, key: string, rawValue: string): string {
  const rest = { ...base };
  delete rest[key];
  const inner = JSON.stringify(rest).slice(1, -1);
  return `{${inner}${inner ? ',' : ''}${JSON.stringify(key)}:${rawValue}}`;
}

/** Every case for one served path of a route. */
function casesFor(name: string, def: RouteDef, at: RouteAlias): Case[] {
  const schema = inputSchema(def);
  const props: Record<string, Json> = schema.properties ?? {};
  const params = [...at.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  const base = sample(schema) as Json;
  const out: Case[] = [];
  const pathWith = (values: Record<string, string>) => at.path.replace(/:([A-Za-z_]+)/g, (_m, p: string) => encodeURIComponent(values[p] ?? 'sample-id'));
  const post = (family: string, payload: string, contentType = 'application/json') => out.push({ route: name, family, method: 'POST', url: pathWith({}), payload, contentType });
  const get = (family: string, query: Record<string, string> | string, values: Record<string, string> = {}) => {
    const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
    out.push({ route: name, family, method: 'GET', url: `${pathWith(values)}${qs ? `?${qs}` : ''}` });
  };
  const strings = Object.keys(props).filter((k) => typeOf(props[k]) === 'string' && !enumOf(props[k]) && !params.includes(k));
  const stringArrays = Object.keys(props).filter((k) => typeOf(props[k]) === 'array' && typeOf(props[k]!.items) === 'string');
  const objects = Object.keys(props).filter((k) => ['object', undefined].includes(typeOf(props[k])) && !params.includes(k));

  if (at.method === 'GET') {
    const query = Object.fromEntries(
      Object.entries(base)
        .filter(([, v]) => typeof v !== 'object')
        .map(([k, v]) => [k, String(v)]),
    );
    get('empty query', {});
    for (const k of Object.keys(props)) {
      const t = typeOf(props[k]);
      if (t === 'integer' || t === 'number' || t === 'boolean') get('wrong type', { ...query, [k]: 'not-a-value' });
    }
    for (const k of strings) {
      get('huge string', { ...query, [k]: 'x'.repeat(70_000) });
      get('path traversal', { ...query, [k]: TRAVERSAL });
      for (const w of PROTOTYPE_WORDS) get('prototype word', { ...query, [k]: w });
    }
    get('prototype key', `${new URLSearchParams(query).toString()}&__proto__=x&constructor=y&__proto__[polluted]=1`);
    for (const p of params) {
      for (const v of [...PROTOTYPE_WORDS, TRAVERSAL, '..', '\u0000', 'x'.repeat(5000), '🙂']) get('path parameter', query, { [p]: v });
    }
    return out;
  }

  post('malformed JSON', '{"tenant_id": "a",');
  post('malformed JSON', '{"a": tru}');
  post('wrong content type', JSON.stringify(base), 'text/plain');
  post('wrong content type', 'tenant_id=a', 'application/x-www-form-urlencoded');
  post('empty body', '');
  post('null body', 'null');
  for (const v of ['[]', '"text"', '42', 'true']) post('not an object', v);
  for (const [k, s] of Object.entries(props)) {
    const w = wrongType(s);
    if (w !== undefined) post('wrong type', JSON.stringify({ ...base, [k]: w }));
    const e = enumOf(s);
    if (e) post('unknown enum', JSON.stringify({ ...base, [k]: 'not-a-known-value' }));
  }
  post('huge strings', JSON.stringify({ ...base, ...Object.fromEntries(strings.map((k) => [k, 'x'.repeat(70_000)])) }));
  post('huge strings', JSON.stringify({ ...base, unknown_field: 'x'.repeat(1_000_000) }));
  post('deep nesting', withRaw(base, 'unknown_deep', deepText(10_000)));
  post('deep nesting', withRaw(base, 'unknown_deep', deepArrayText(10_000)));
  for (const k of objects) post('deep nesting', withRaw(base, k, deepText(10_000)));
  post('prototype key', `{"__proto__": {"polluted": true}, ${JSON.stringify(base).slice(1)}`);
  post('prototype key', withRaw(base, 'constructor', '{"prototype": {"polluted": true}}'));
  for (const k of objects) {
    post('prototype key', withRaw(base, k, '{"__proto__": {"polluted": true}}'));
    post('prototype key', withRaw(base, k, '{"constructor": {"prototype": {"polluted": true}}, "toString": "x"}'));
  }
  // Keys MongoDB treats specially, inside objects the caller owns (metadata, slots, inputs).
  for (const k of objects) {
    post('odd keys', withRaw(base, k, '{"$where": "1", "a.b": {"$gt": 1}, "": "empty", "\\u0000x": 1}'));
    post('odd keys', withRaw(base, k, '{"$set": {"tenant_id": "other"}, "_id": "x", "tenant_id": "other"}'));
  }
  for (const k of [...strings, ...stringArrays]) {
    for (const w of PROTOTYPE_WORDS) post('prototype word', JSON.stringify({ ...base, [k]: stringArrays.includes(k) ? [w] : w }));
  }
  if (props.context) {
    for (const w of PROTOTYPE_WORDS) post('prototype word', JSON.stringify({ ...base, context: { goal: w, task_kind: w, file_path: w } }));
  }
  const dup = JSON.stringify(base).slice(1);
  post('duplicate keys', `{"tenant_id": "dup-a", "tenant_id": "dup-b", "scope": "a", "scope": "b"${dup ? `, ${dup}` : ''}}`);
  for (const k of strings) post('path traversal', JSON.stringify({ ...base, [k]: TRAVERSAL }));
  for (const u of UNICODE_JSON) {
    for (const k of strings.slice(0, 4)) post('unicode', withRaw(base, k, u));
  }
  return out;
}

/** Every bad-input case for every path (canonical and alias) of every route in the table. */
export function badInputCases(routes: Record<string, RouteDef>): Case[] {
  return Object.entries(routes).flatMap(([name, def]) => pathsOf(def).flatMap((at) => casesFor(name, def, at)));
}
