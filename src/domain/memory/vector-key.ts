import { createHash } from 'node:crypto';
import type { ScopeRef } from '../../store/scope';

/**
 * The key of a node vector in the vector cache (store/memory/vector-cache.ts): a sha256 of the
 * encoder's id with its weights (`model`: another model, or new weights under the same name,
 * misses), the tenant, the scope and the exact text embedded.
 *
 * The tenant and scope are part of the key on purpose: the same text written in two scopes is
 * embedded once in each. Shared keys would save those few encoder runs, but a cache hit shows:
 * a vector that follows a write at once, and /health's pending and cache counters, would tell a
 * caller of one scope that some other scope holds that exact text. Per-scope keys make the cache
 * say nothing across scopes (docs/design.md, "The vector cache").
 */
export function vectorKey(model: string, ref: ScopeRef, text: string): string {
  return createHash('sha256')
    .update(JSON.stringify(['lore-vector-v1', model, ref.tenant_id, ref.scope, text]))
    .digest('hex');
}
