import type { FastifyInstance } from 'fastify';
import { createCaller, type Caller } from '../sdk/transport';

/**
 * The SDK transport for agents served inside the API process (/mcp, the HTTP hook route): the
 * same routes, reached through Fastify's inject() instead of a socket. Every call still passes
 * the route's authentication, validation and metrics, with the key the agent presented.
 */
export function injectCaller(app: FastifyInstance, opts: { apiKey: string | null; timeoutMs: number; defaults?: Record<string, unknown> }): Caller {
  const fetchThroughApp: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const res = await app.inject({
      method: (init?.method ?? 'GET') as 'GET' | 'POST',
      url: `${url.pathname}${url.search}`,
      headers,
      payload: typeof init?.body === 'string' ? init.body : undefined,
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const x of v) out.append(k, String(x));
      else if (v !== undefined) out.set(k, String(v));
    }
    return new Response(res.rawPayload.length > 0 ? new Uint8Array(res.rawPayload) : null, { status: res.statusCode, headers: out });
  };
  return createCaller({ baseUrl: 'http://lore.internal', apiKey: opts.apiKey ?? undefined, timeoutMs: opts.timeoutMs, defaults: opts.defaults ?? {}, fetch: fetchThroughApp });
}
