import type { z } from 'zod';
import type { ErrorCode } from './errors';

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
  /** Other spellings existing clients use (contract.md); served identically. */
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly input: I;
  readonly output: O;
  /** Error codes this route can return beyond invalid_request, payload_too_large and internal. */
  readonly errors: readonly ErrorCode[];
  /** The route works inside one tenant+scope; success responses echo both. */
  readonly scoped: S;
}

type RouteSpec<I extends z.ZodType, O extends z.ZodType, S extends boolean> = {
  name: string;
  path: string;
  summary: string;
  input: I;
  output: O;
  method?: 'POST' | 'GET';
  aliases?: readonly string[];
  errors?: readonly ErrorCode[];
  scoped?: S;
};

export function route<I extends z.ZodType, O extends z.ZodType, S extends boolean = true>(
  spec: RouteSpec<I, O, S>,
): RouteDef<I, O, S> {
  return {
    method: 'POST',
    aliases: [],
    errors: [],
    ...spec,
    scoped: (spec.scoped ?? true) as S,
  };
}

/** What a handler receives (defaults applied). */
export type RouteInput<R extends RouteDef> = z.output<R['input']>;
/** What a caller sends (defaults not yet applied): the SDK's parameter type. */
export type RouteRequest<R extends RouteDef> = z.input<R['input']>;
/** What the caller receives. */
export type RouteResponse<R extends RouteDef> = z.output<R['output']>;
