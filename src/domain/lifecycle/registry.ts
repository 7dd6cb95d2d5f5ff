import type { Log } from '../../log';
import type { ScopeStates } from '../../store/lifecycle/scope-state';
import { scopeKey, type ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { decodeCursor, encodeCursor } from '../memory/cursor';

/**
 * scopes/list and tenants/list: the scope registry (store/lifecycle/scope-state.ts), which holds
 * every tenant+scope a Lore process has seen a node of. Pages in the registry's id order
 * (`<tenant>/<scope>`); the cursor carries the last name of the previous page.
 */

/**
 * Registers the scopes this process sees into the registry the scheduled sweep walks: each once per
 * process (an insert-once; a failure is logged and retried at the next sighting).
 */
export function scopeRegistrar(states: ScopeStates, clock: Clock, log: Log): (ref: ScopeRef) => Promise<void> {
  const registered = new Set<string>();
  return async (ref) => {
    const key = scopeKey(ref);
    if (registered.has(key)) return;
    registered.add(key);
    try {
      await states.ensure(ref, clock.now().toISOString());
    } catch (err) {
      registered.delete(key);
      log.warn(`could not register scope ${ref.tenant_id}/${ref.scope}: ${(err as Error).message}`);
    }
  };
}

export async function listScopes(states: ScopeStates, tenantId: string, input: { limit: number; cursor?: string | undefined }) {
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'memory.scopes.list') : null;
  const docs = await states.scopesOf(tenantId, after, input.limit + 1);
  const more = docs.length > input.limit;
  const page = docs.slice(0, input.limit).map((d) => ({
    scope: d._id.slice(tenantId.length + 1),
    first_seen_at: d.first_seen_at,
    last_run: d.last_run ? { run_id: d.last_run.run_id, decided_at: d.last_run.decided_at } : null,
  }));
  return { scopes: page, next_cursor: more ? encodeCursor('memory.scopes.list', page[page.length - 1]!.scope) : null };
}

/** A key bound to a tenant sees that tenant only (whether it holds memory yet or not). */
export async function listTenants(states: ScopeStates, boundTenant: string | null, input: { limit: number; cursor?: string | undefined }) {
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'memory.tenants.list') : null;
  if (boundTenant !== null) {
    return { tenants: after === null || boundTenant > after ? [boundTenant] : [], next_cursor: null, bound_tenant: boundTenant };
  }
  const found = await states.tenants(after, input.limit + 1);
  const more = found.length > input.limit;
  const page = found.slice(0, input.limit);
  return { tenants: page, next_cursor: more ? encodeCursor('memory.tenants.list', page[page.length - 1]!) : null, bound_tenant: null };
}
