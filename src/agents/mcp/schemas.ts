import { z } from 'zod';
import { routes } from '../../contract';
import type { Binding, ToolDef } from './tool-def';

/**
 * A tool's input and output schemas, derived from its contract route: the same zod schema the
 * HTTP route validates with, minus the fields a connection binds. Both are Standard Schemas with
 * their JSON Schema attached, which is what the MCP SDK lists in tools/list and validates
 * tools/call against.
 */

/** Bound by the connection (key, ?scope=, LORE_MCP_*), never offered to a model. */
export const BOUND_FIELDS = ['tenant_id', 'scope', 'actor'] as const;

type Json = Record<string, unknown>;
type Issue = { message: string; path?: PropertyKey[] };
type Target = 'draft-2020-12' | 'draft-7' | 'openapi-3.0';

/** The Standard Schema (with JSON Schema) shape @modelcontextprotocol/server accepts. */
export interface ToolSchema<T = Record<string, unknown>> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: 'lore';
    readonly validate: (value: unknown) => { value: T; issues?: undefined } | { issues: Issue[] };
    readonly jsonSchema: { readonly input: (o?: { target?: string }) => Json; readonly output: (o?: { target?: string }) => Json };
  };
}

const zodTarget = (target: string | undefined): Target => (target === 'draft-07' || target === 'draft-7' ? 'draft-7' : target === 'openapi-3.0' ? 'openapi-3.0' : 'draft-2020-12');

const isBound = (k: string) => (BOUND_FIELDS as readonly string[]).includes(k);

function memo(fn: (target: Target) => Json): (o?: { target?: string }) => Json {
  const cache = new Map<Target, Json>();
  return (o) => {
    const t = zodTarget(o?.target);
    let v = cache.get(t);
    // Shared by every server instance (one per /mcp request): frozen, so no caller can change it for the others.
    if (!v) cache.set(t, (v = deepFreeze(fn(t))));
    return v;
  };
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** What is derived from a tool's route once per process (servers are built per HTTP request). */
interface Derived {
  offered: string[];
  inputJson: (o?: { target?: string }) => Json;
  output: z.ZodObject;
  outputSchema: ToolSchema;
}
const derivedCache = new WeakMap<ToolDef, Derived>();

function derived(def: ToolDef): Derived {
  let d = derivedCache.get(def);
  if (!d) {
    const json = z.toJSONSchema(routes[def.route].input, { io: 'input', unrepresentable: 'any' }) as { properties?: Json };
    const fixed = Object.keys(def.input?.fixed ?? {});
    const offered = Object.keys(json.properties ?? {}).filter((k) => !isBound(k) && !fixed.includes(k) && (!def.input?.pick || def.input.pick.includes(k)));
    const output = outputZod(def);
    d = { offered, inputJson: memo((t) => inputJson(def, offered, t)), output, outputSchema: outputSchema(output) };
    derivedCache.set(def, d);
  }
  return d;
}

/** The route fields a tool offers, in the route's order. */
export const offeredFields = (def: ToolDef): string[] => derived(def).offered;
/** The tool's structuredContent schema (zod) and its Standard Schema. */
export const toolOutput = (def: ToolDef): { zod: z.ZodObject; schema: ToolSchema } => ({ zod: derived(def).output, schema: derived(def).outputSchema });

function inputJson(def: ToolDef, offered: string[], target: Target): Json {
  const full = z.toJSONSchema(routes[def.route].input, { io: 'input', target, unrepresentable: 'any' }) as Json & {
    properties?: Json;
    required?: string[];
  };
  const defaults = Object.keys(def.input?.defaults ?? {});
  const properties = Object.fromEntries(offered.map((k) => [k, full.properties![k]]));
  const required = [...new Set([...(full.required ?? []).filter((k) => offered.includes(k) && !defaults.includes(k)), ...(def.input?.require ?? [])])];
  const { properties: _p, required: _r, additionalProperties: _a, ...rest } = full;
  // additionalProperties false: an argument the tool does not take is refused (unknownArguments).
  return { ...rest, type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/**
 * Arguments in, route request out: only the offered fields are accepted (a model cannot pass a
 * tenant_id or scope, nor a field the tool does not offer: either is an error naming the accepted
 * ones), defaults and fixed fields are added,
 * and the whole is checked by the route's own schema with the binding in place, so a wrong type
 * is reported with its field's name before anything is sent.
 */
export function inputSchema(def: ToolDef, ctx: { readonly binding: Binding }): ToolSchema {
  const { offered, inputJson: json } = derived(def);
  const route = routes[def.route];
  return {
    '~standard': {
      version: 1,
      vendor: 'lore',
      validate(value) {
        const given = value ?? {};
        if (typeof given !== 'object' || Array.isArray(given)) return { issues: [{ message: 'arguments must be a JSON object' }] };
        const args: Record<string, unknown> = {};
        for (const k of offered) if ((given as Json)[k] !== undefined) args[k] = (given as Json)[k];
        const issues: Issue[] = unknownArguments(def, offered, given as Json);
        for (const k of def.input?.require ?? []) {
          const v = args[k];
          if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) issues.push({ message: 'is required', path: [k] });
        }
        for (const [k, fill] of Object.entries(def.input?.defaults ?? {})) if (args[k] === undefined) args[k] = fill(ctx);
        Object.assign(args, def.input?.fixed ?? {});
        const parsed = route.input.safeParse({ ...args, ...bindingFields(ctx.binding) });
        if (!parsed.success) for (const i of parsed.error.issues) issues.push({ message: i.message, path: i.path as PropertyKey[] });
        return issues.length > 0 ? { issues } : { value: args };
      },
      jsonSchema: { input: json, output: json },
    },
  };
}

/**
 * Arguments the tool does not take: an error naming each, and the ones it accepts, rather than a
 * call that quietly does something else than the model meant (a misspelt `limt` would have
 * recalled with the default limit). The fields a connection binds and the ones the tool fixes
 * say so.
 */
function unknownArguments(def: ToolDef, offered: readonly string[], given: Json): Issue[] {
  const fixed = Object.keys(def.input?.fixed ?? {});
  const unknown = Object.keys(given).filter((k) => given[k] !== undefined && !offered.includes(k));
  return unknown.map((k) => {
    const why = isBound(k) ? ' (set by the connection, not by a tool call)' : fixed.includes(k) ? ` (always ${JSON.stringify(def.input!.fixed![k])} for this tool)` : '';
    return { message: `unknown argument '${k}'${why}; ${def.name} accepts: ${offered.join(', ')}`, path: [k] };
  });
}

export const bindingFields = (b: Binding) => ({ tenant_id: b.tenant_id, scope: b.scope, actor: b.actor });

function outputZod(def: ToolDef): z.ZodObject {
  if (def.output && 'schema' in def.output) return def.output.schema;
  const out = routes[def.route].output as unknown as z.ZodObject;
  const pick = def.output?.pick;
  const keys = Object.keys(out.shape).filter((k) => !isBound(k) && (!pick || pick.includes(k)));
  return out.pick(Object.fromEntries(keys.map((k) => [k, true])) as never) as unknown as z.ZodObject;
}

/** A route response → structuredContent: shaped or picked, bound fields left out, unknown keys dropped. */
export function toStructured(def: ToolDef, response: Record<string, unknown>): Record<string, unknown> {
  const shaped = def.output && 'shape' in def.output ? def.output.shape(response) : response;
  return derived(def).output.parse(shaped) as Record<string, unknown>;
}

function outputSchema(schema: z.ZodObject): ToolSchema {
  return {
    '~standard': {
      version: 1,
      vendor: 'lore',
      validate(value) {
        const r = schema.safeParse(value);
        return r.success ? { value: r.data as Record<string, unknown> } : { issues: r.error.issues.map((i) => ({ message: i.message, path: i.path as PropertyKey[] })) };
      },
      jsonSchema: {
        input: memo((target) => z.toJSONSchema(schema, { io: 'output', target, unrepresentable: 'any' }) as Json),
        output: memo((target) => z.toJSONSchema(schema, { io: 'output', target, unrepresentable: 'any' }) as Json),
      },
    },
  };
}
