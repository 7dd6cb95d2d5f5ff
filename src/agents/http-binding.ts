import type { FastifyRequest } from 'fastify';
import { LoreError } from '../contract/errors';
import { authenticate, authorizeTenant } from '../http/auth';
import type { ApiKey } from '../model/api-key';
import { AGENT_SCOPE_PATTERN, AGENT_TENANT_PATTERN } from './config';

/**
 * Who an agent talking to the API over HTTP (/mcp, the hook route) acts for. The API key decides
 * the tenant: a key bound to a tenant acts for it alone (asking for another through X-Lore-Tenant
 * is forbidden); an unbound key, or no key on a server without LORE_API_KEYS, acts for
 * X-Lore-Tenant or `default`. The scope is `?scope=`, else X-Lore-Scope, else `fallbackScope`.
 * The model on the other side never chooses either.
 */
export interface HttpAgentIdentity {
  tenant_id: string;
  scope: string;
  /** The bearer key presented, passed on to the routes the agent's calls reach. */
  apiKey: string | null;
}

const header = (req: FastifyRequest, name: string): string | null => {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : null;
};

export function httpAgentIdentity(req: FastifyRequest, apiKeys: readonly ApiKey[], fallbackScope: () => string): HttpAgentIdentity {
  const key = authenticate(apiKeys, req.headers.authorization);
  const asked = header(req, 'x-lore-tenant');
  const tenant = key?.tenant ?? asked ?? 'default';
  if (!AGENT_TENANT_PATTERN.test(tenant)) throw new LoreError('invalid_request', 'X-Lore-Tenant must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', { tenant_id: tenant });
  if (asked) authorizeTenant(key, asked);
  const query = (req.query ?? {}) as Record<string, unknown>;
  const fromQuery = typeof query.scope === 'string' && query.scope.trim() !== '' ? query.scope : null;
  const scope = fromQuery ?? header(req, 'x-lore-scope') ?? fallbackScope();
  if (!AGENT_SCOPE_PATTERN.test(scope)) throw new LoreError('invalid_request', 'scope (?scope= or X-Lore-Scope) must be 1-256 printable characters', { scope });
  return { tenant_id: tenant, scope, apiKey: key?.key ?? null };
}
