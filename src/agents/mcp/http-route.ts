import { localhostHostValidation, localhostOriginValidation } from '@modelcontextprotocol/fastify';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '../../http/auth';
import { httpAgentIdentity } from '../http-binding';
import { injectCaller } from '../inject-caller';
import { createLoreMcpServer } from './server';
import type { Binding } from './tool-def';

/** Who /mcp calls act as (recorded on what they write). */
export const MCP_ACTOR = 'mcp';

/** Sandbox commands wait up to their wall limit + 15 s; MCP clients keep their own timeouts. */
const CALL_TIMEOUT_MS = 11 * 60_000;

export interface McpRouteOptions {
  apiKeys: readonly ApiKey[];
  sandboxEnabled: boolean;
  version: string;
  /** The API binds a loopback address: refuse other Host and Origin headers (DNS rebinding). */
  loopback: boolean;
  log: { warn(obj: unknown, msg?: string): void };
}

interface McpAuthExtra extends Record<string, unknown> {
  binding: Binding;
  apiKey: string | null;
}

/**
 * Streamable HTTP MCP at /mcp, stateless: every POST is answered by a fresh server instance
 * (the SDK's legacy-stateless serving for 2025-era clients such as the v1 SDK's Client, and the
 * per-request 2026 envelope for newer ones), so any API process can serve any request. The route
 * authenticates like every other (LORE_API_KEYS); the tenant and scope bound here are the only
 * ones its tools can reach.
 */
export function registerMcpRoute(app: FastifyInstance, opts: McpRouteOptions): void {
  const handler = createMcpHandler(
    (ctx) => {
      const extra = ctx.authInfo?.extra as McpAuthExtra | undefined;
      if (!extra) throw new Error('/mcp: no binding on the request');
      return createLoreMcpServer({
        binding: extra.binding,
        caller: injectCaller(app, { apiKey: extra.apiKey, timeoutMs: CALL_TIMEOUT_MS }),
        env: { sandboxEnabled: opts.sandboxEnabled },
        version: opts.version,
      });
    },
    { onerror: (err) => opts.log.warn({ err }, 'mcp request failed') },
  );

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const who = httpAgentIdentity(req, opts.apiKeys, () => 'default');
    const binding: Binding = { tenant_id: who.tenant_id, scope: who.scope, actor: MCP_ACTOR };
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string') headers.set(k, v);
      else if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    }
    const hasBody = req.method === 'POST' && req.body !== undefined;
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? JSON.stringify(req.body) : undefined,
    });
    const authInfo: AuthInfo = { token: who.apiKey ?? '', clientId: 'lore-mcp', scopes: [], extra: { binding, apiKey: who.apiKey } satisfies McpAuthExtra };
    const res = await handler.fetch(request, { authInfo, ...(hasBody ? { parsedBody: req.body } : {}) });
    return reply.send(res);
  };

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    onRequest: opts.loopback ? [localhostHostValidation(), localhostOriginValidation()] : [],
    handler: serve,
  });
}
