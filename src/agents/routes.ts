import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { Logger } from '../http/app';
import type { ApiKey } from '../model/api-key';
import { registerHookRoute } from './hook/http-route';
import { registerMcpRoute } from './mcp/http-route';
import type { SandboxState } from './mcp/tool-def';

export interface AgentRoutesOptions {
  config: Config;
  /** The keys the API accepts (LORE_API_KEYS, or the install token when it is required). */
  apiKeys: readonly ApiKey[];
  /** The sandbox as /health reports it (what the worker found). */
  sandboxStatus: () => Promise<SandboxState>;
  log: Logger;
}

/**
 * The API's agent routes: MCP over streamable HTTP at /mcp and the HTTP hook route. Both are
 * clients of the contract routes (through inject), behind the same API keys, and behind the Host,
 * Origin and content-type checks every route has (src/http/request-guard.ts).
 */
export function registerAgentRoutes(app: FastifyInstance, opts: AgentRoutesOptions): void {
  registerMcpRoute(app, { apiKeys: opts.apiKeys, sandboxStatus: opts.sandboxStatus, version: opts.config.version, log: opts.log });
  registerHookRoute(app, { apiKeys: opts.apiKeys, dataDir: opts.config.dataDir, contextChars: opts.config.hookContextChars });
}
