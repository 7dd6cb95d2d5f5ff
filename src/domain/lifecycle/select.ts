import type { ReadOpts, ScopedNodes, StoredNode } from '../../store/memory/nodes';
import { UUID_PATTERN } from '../../model/ids';

/**
 * The nodes a request names by id and/or client_id, within the caller's scope: each node once
 * (in request order), and every name that matched nothing under not_found. A node of another
 * tenant or scope is simply not found. `read` as for the store's reads: callers whose result does
 * not depend on access statistics pass `{ access: false }` and save that lookup.
 */
export async function selectNodes(nodes: ScopedNodes, sel: { ids?: string[]; client_ids?: string[] }, read?: ReadOpts): Promise<{ found: StoredNode[]; not_found: string[] }> {
  const ids = [...new Set(sel.ids ?? [])];
  const clientIds = [...new Set(sel.client_ids ?? [])];
  // Node ids are UUIDs: anything else cannot match and costs no lookup.
  const [byId, byClient] = await Promise.all([
    nodes.getMany(
      ids.filter((i) => UUID_PATTERN.test(i)),
      read,
    ),
    nodes.getManyByClientId(clientIds, read),
  ]);
  const found = new Map<string, StoredNode>();
  const seenIds = new Set(byId.map((n) => n.id));
  const seenClients = new Set(byClient.map((n) => n.client_id));
  for (const n of [...byId, ...byClient]) if (!found.has(n.id)) found.set(n.id, n);
  const not_found = [...ids.filter((i) => !seenIds.has(i)), ...clientIds.filter((c) => !seenClients.has(c))];
  return { found: [...found.values()], not_found };
}
