import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { Logger } from '../http/app';
import { registerHookRoute } from './hook/http-route';
import { registerMcpRoute } from './mcp/http-route';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * The API's agent routes: MCP over streamable HTTP at /mcp and the HTTP hook route. Both are
 * clients of the contract routes (through inject), behind the same API keys.
 */
export function registerAgentRoutes(app: FastifyInstance, config: Config, log: Logger): void {
  const loopback = LOOPBACK.has(config.host);
  registerMcpRoute(app, { apiKeys: config.apiKeys, sandboxEnabled: config.sandbox.enabled, version: config.version, loopback, log });
  registerHookRoute(app, { apiKeys: config.apiKeys, dataDir: config.dataDir, loopback, contextChars: config.hookContextChars });
}
