import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type AuthInfo, type McpServerFactory } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '../../model/api-key';
import { httpAgentIdentity } from '../http-binding';
import { injectCaller } from '../inject-caller';
import { createLoreMcpServer } from './server';
import type { Binding, SandboxState } from './tool-def';

/** Who /mcp calls act as (recorded on what they write). */
export const MCP_ACTOR = 'mcp';

/** Sandbox commands wait up to their wall limit + 15 s; MCP clients keep their own timeouts. */
const CALL_TIMEOUT_MS = 11 * 60_000;

export interface McpRouteOptions {
  apiKeys: readonly ApiKey[];
  /** The sandbox as /health reports it: execute_command is listed, and described, from it. */
  sandboxStatus: () => Promise<SandboxState>;
  version: string;
  log: { warn(obj: unknown, msg?: string): void };
}

/** How long a read of the sandbox's state serves /mcp requests (it is a store read; workers report rarely). */
const SANDBOX_STATE_TTL_MS = 2000;

interface McpAuthExtra extends Record<string, unknown> {
  binding: Binding;
  apiKey: string | null;
}

/**
 * Streamable HTTP MCP at /mcp, stateless: every POST is answered by a fresh server instance, so
 * any API process can serve any request. The route authenticates like every other
 * (LORE_API_KEYS); the tenant and scope bound here are the only ones its tools can reach.
 *
 * Two eras of the protocol: 2026-07-28 requests (per-request envelope) go to the SDK's handler;
 * 2025-era requests (the current stable clients, the v1 SDK's Client among them) are served here
 * by a stateless transport answering plain JSON. The SDK's own stateless fallback answers those
 * over an SSE stream, slower per call (docs/benchmarks.md, "Agents").
 */
export function registerMcpRoute(app: FastifyInstance, opts: McpRouteOptions): void {
  let sandbox: { at: number; state: Promise<SandboxState> } | null = null;
  const sandboxState = (): Promise<SandboxState> => {
    // Wall time: how stale the sandbox's state may be.
    if (!sandbox || Date.now() - sandbox.at > SANDBOX_STATE_TTL_MS) {
      const state = opts.sandboxStatus().catch((err): SandboxState => {
        opts.log.warn({ err }, '/mcp: the sandbox state could not be read; execute_command is not listed');
        return { enabled: false, available: false, isolation: 'unknown' };
      });
      sandbox = { at: Date.now(), state };
    }
    return sandbox.state;
  };
  const factory: McpServerFactory = async (ctx) => {
    const extra = ctx.authInfo?.extra as McpAuthExtra | undefined;
    if (!extra) throw new Error('/mcp: no binding on the request');
    return createLoreMcpServer({
      binding: extra.binding,
      caller: injectCaller(app, { apiKey: extra.apiKey, timeoutMs: CALL_TIMEOUT_MS }),
      env: { sandbox: await sandboxState() },
      version: opts.version,
    });
  };
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror: (err) => opts.log.warn({ err }, 'mcp request failed') });

  /** One 2025-era POST: a fresh server and transport, a JSON answer, both closed after. */
  const legacy = async (request: Request, authInfo: AuthInfo, body: unknown, reply: FastifyReply) => {
    const server = await factory({ era: 'legacy', authInfo, requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const res = await transport.handleRequest(request, { authInfo, parsedBody: body });
      // The whole answer is read before the transport that made it closes.
      const text = res.body === null ? '' : await res.text();
      res.headers.forEach((v, k) => void reply.header(k, v));
      return reply.code(res.status).send(text);
    } finally {
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    }
  };

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const who = httpAgentIdentity(req, opts.apiKeys, () => 'default');
    // Stateless: no session stream to open (GET) or end (DELETE); clients expect 405 for both.
    if (req.method !== 'POST') {
      return reply
        .code(405)
        .header('allow', 'POST')
        .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
    const binding: Binding = { tenant_id: who.tenant_id, scope: who.scope, actor: MCP_ACTOR };
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string') headers.set(k, v);
      else if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    }
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, { method: 'POST', headers, body: JSON.stringify(req.body ?? null) });
    const authInfo: AuthInfo = { token: who.apiKey ?? '', clientId: 'lore-mcp', scopes: [], extra: { binding, apiKey: who.apiKey } satisfies McpAuthExtra };
    if (await isLegacyRequest(request, req.body)) return legacy(request, authInfo, req.body, reply);
    return reply.send(await modern.fetch(request, { authInfo, parsedBody: req.body }));
  };

  // Host, Origin and content type are checked for every route by the HTTP layer (src/http/request-guard.ts).
  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: serve });
}
