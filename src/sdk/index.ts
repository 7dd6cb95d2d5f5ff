import { bindApi, type LoreApi } from './api.gen';
import { createCaller } from './transport';

export { ApiError, TransportError } from './errors';
export type { LoreApi } from './api.gen';

export interface LoreClientOptions {
  /** Default http://127.0.0.1:3001. */
  baseUrl?: string;
  /** Sent as Authorization: Bearer <apiKey> when the server has LORE_API_KEYS. */
  apiKey?: string;
  /** Applied to every request that does not set its own. */
  tenantId?: string;
  scope?: string;
  actor?: string;
  /** Per request; default 60 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * The typed client: `const lore = createLore({ scope: 'my-repo' }); await lore.memory.write({ input_text })`.
 * Contract errors throw ApiError (code, status, details, retryable); network trouble throws TransportError.
 */
export function createLore(options: LoreClientOptions = {}): LoreApi {
  const defaults: Record<string, unknown> = {};
  if (options.tenantId) defaults.tenant_id = options.tenantId;
  if (options.scope) defaults.scope = options.scope;
  if (options.actor) defaults.actor = options.actor;
  return bindApi(
    createCaller({
      baseUrl: options.baseUrl ?? 'http://127.0.0.1:3001',
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs ?? 60_000,
      defaults,
      fetch: options.fetch,
    }),
  );
}
