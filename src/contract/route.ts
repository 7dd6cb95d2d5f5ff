import { z } from 'zod';
import { Warnings } from './common';
import type { ErrorCode } from './errors';

/**
 * Another spelling of a route that existing clients use (contract.md): the same handler, the same
 * input schema. A GET alias takes the request fields as query parameters; `:name` segments of its
 * path are request fields too (`/v1/memory/sessions/:session_id/events`).
 */
export interface RouteAlias {
  readonly method: 'POST' | 'GET';
  readonly path: string;
}

/**
 * One route of the public API. The table of these is the single source of truth: Fastify
 * registers from it, /openapi.json and the SDK are generated from it, and the handler map
 * type (handlers.ts) makes a route without a handler a compile error.
 */
export interface RouteDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType, S extends boolean = boolean> {
  /** Dotted SDK name: 'memory.recallText' becomes lore.memory.recallText(). */
  readonly name: string;
  readonly method: 'POST' | 'GET';
  /** Canonical path (the interface spec's spelling). */
  readonly path: string;
  /** Other spellings existing clients use (contract.md); served identically. A string is the route's own method. */
  readonly aliases: readonly (string | RouteAlias)[];
  readonly summary: string;
  readonly input: I;
  readonly output: O;
  /** Error codes this route can return beyond invalid_request, payload_too_large and internal. */
  readonly errors: readonly ErrorCode[];
  /** The route works inside one tenant+scope; success responses echo both. */
  readonly scoped: S;
}

type WarningsShape = { warnings: z.ZodOptional<typeof Warnings> };

/**
 * Every success response may carry `warnings` (e.g. the top-level request fields the route does
 * not know, which are accepted and ignored): added here once, so no route can forget it.
 */
export type WithWarnings<O extends z.ZodType> =
  O extends z.ZodObject<infer Shape, infer Config> ? ('warnings' extends keyof Shape ? O : z.ZodObject<Shape & WarningsShape, Config>) : O;

type RouteSpec<I extends z.ZodType, O extends z.ZodType, S extends boolean> = {
  name: string;
  path: string;
  summary: string;
  input: I;
  output: O;
  method?: 'POST' | 'GET';
  aliases?: readonly (string | RouteAlias)[];
  errors?: readonly ErrorCode[];
  scoped?: S;
};

function withWarnings<O extends z.ZodType>(output: O): WithWarnings<O> {
  if (output instanceof z.ZodObject && !('warnings' in output.shape)) {
    return output.extend({
      warnings: Warnings.optional().describe('present when something in the request was accepted but ignored (e.g. an unknown top-level field)'),
    }) as unknown as WithWarnings<O>;
  }
  return output as WithWarnings<O>;
}

export function route<I extends z.ZodType, O extends z.ZodType, S extends boolean = true>(spec: RouteSpec<I, O, S>): RouteDef<I, WithWarnings<O>, S> {
  return {
    method: 'POST',
    aliases: [],
    errors: [],
    ...spec,
    output: withWarnings(spec.output),
    scoped: (spec.scoped ?? true) as S,
  };
}

/** Every path a route is served at, with its method (the canonical path first). */
export function pathsOf(def: RouteDef): RouteAlias[] {
  return [{ method: def.method, path: def.path }, ...def.aliases.map((a) => (typeof a === 'string' ? { method: def.method, path: a } : a))];
}

/** What a handler receives (defaults applied). */
export type RouteInput<R extends RouteDef> = z.output<R['input']>;
/** What a caller sends (defaults not yet applied): the SDK's parameter type. */
export type RouteRequest<R extends RouteDef> = z.input<R['input']>;
/** What the caller receives. */
export type RouteResponse<R extends RouteDef> = z.output<R['output']>;
