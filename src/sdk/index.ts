import { homedir } from 'node:os';
import { join } from 'node:path';
import { installTokenFor } from '../model/install-token';
import { bindApi, type LoreApi } from './api.gen';
import { createCaller } from './transport';

export { ApiError, TransportError } from './errors';
export type { LoreApi } from './api.gen';

export interface LoreClientOptions {
  /** Default http://127.0.0.1:3001. */
  baseUrl?: string;
  /**
   * Sent as Authorization: Bearer <apiKey> (a key of LORE_API_KEYS). Without it, a client of a Lore
   * on this machine sends that Lore's install token, read from `dataDir` (docs/security.md).
   */
  apiKey?: string;
  /** The Lore's data dir, where its install token is (default ~/.lore, as LORE_DATA_DIR's default). */
  dataDir?: string;
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
  const baseUrl = options.baseUrl ?? 'http://127.0.0.1:3001';
  return bindApi(
    createCaller({
      baseUrl,
      apiKey: options.apiKey ?? installTokenFor(baseUrl, options.dataDir ?? join(homedir(), '.lore')) ?? undefined,
      timeoutMs: options.timeoutMs ?? 60_000,
      defaults,
      fetch: options.fetch,
    }),
  );
}
