import type { z } from 'zod';
import type { RouteDef, RouteInput } from './route';

/** What every handler knows about its call; nothing HTTP-specific. */
export interface CallContext {
  readonly tenant_id: string;
  readonly scope: string;
  readonly actor: string;
  readonly requestId: string;
  /** Aborted when the client goes away; long handlers may stop early. */
  readonly signal: AbortSignal;
  /** The tenant the caller's API key is bound to (null: an unbound key, or no keys configured). */
  readonly keyTenant?: string | null;
}

type EchoKeys = 'tenant_id' | 'scope';

/**
 * A handler returns the response body without the echo fields (tenant_id, scope): the transport
 * adds them to every success response of a scoped route, so no handler can forget them.
 */
export type HandlerResult<R extends RouteDef> = R['scoped'] extends true ? Omit<z.input<R['output']>, EchoKeys> : z.input<R['output']>;

export type Handler<R extends RouteDef> = (input: RouteInput<R>, ctx: CallContext) => Promise<HandlerResult<R>>;

/** One handler per route of a table; a route without a handler does not compile. */
export type Handlers<T extends Record<string, RouteDef>> = { [K in keyof T]: Handler<T[K]> };
