import { LoreError } from '../../contract/errors';
import type { packsRoutes } from '../../contract/families/packs';
import type { RouteInput } from '../../contract/route';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { MemoryEdge, NodeRevision } from '../../model/memory/node';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import type { MemoryServices } from '../memory/context';
import { exportAutomations, exportColdPayloads, exportPlaybooks } from './continuation';
import { PACK_FORMAT, PACK_VERSION, contentHash, noExtras, toPackNode, type Pack, type PackNode } from './format';

/** A whole-scope export above this many nodes must be paged (limit + cursor). */
export const MAX_WHOLE_EXPORT_NODES = 20_000;
const PAGE = 1000;

/**
 * Exports one scope as a pack. Without `limit`, the whole scope (up to MAX_WHOLE_EXPORT_NODES;
 * a larger scope is payload_too_large with the advice to page); with `limit`, one page of nodes
 * in id order with their revisions and the edges leaving them, and a cursor for the next page:
 * each page is itself a complete pack that imports on its own (a large scope moves page by page
 * within the request body limit). Either way the store is read in bounded pages.
 *
 * Each page carries the archived payloads of its nodes (cold store); the first page also carries
 * the scope's playbooks (every version, and the active one) and automation definitions.
 */
export async function exportPack(
  m: MemoryServices,
  ref: ScopeRef,
  opts: {
    includeRevisions: boolean;
    includeEdges: boolean;
    includeColdPayloads?: boolean;
    includePlaybooks?: boolean;
    includeAutomations?: boolean;
    limit?: number;
    after?: string;
  },
  now: Date,
): Promise<{ pack: Pack; last: string | null; more: boolean }> {
  const store = m.nodes(ref);
  const whole = opts.limit === undefined;
  const want = opts.limit ?? MAX_WHOLE_EXPORT_NODES;
  const nodes: PackNode[] = [];
  let revisions: NodeRevision[] = [];
  let edges: MemoryEdge[] = [];
  let after = opts.after;
  let more = false;
  while (nodes.length < want) {
    const take = Math.min(PAGE, want - nodes.length);
    const page = await store.find({}, { limit: take + 1, after });
    const shown = page.slice(0, take);
    nodes.push(...shown.map(toPackNode));
    const ids = shown.map((n) => n.id);
    if (opts.includeRevisions) revisions = revisions.concat(await store.revisionsOfMany(ids));
    if (opts.includeEdges) edges = edges.concat(await store.edgesFrom(ids));
    more = page.length > take;
    if (!more) break;
    after = shown[shown.length - 1]!.id;
  }
  if (whole && more) {
    throw new LoreError('payload_too_large', `scope '${ref.scope}' has more than ${MAX_WHOLE_EXPORT_NODES} nodes: export it page by page with limit and cursor`, {
      limit_nodes: MAX_WHOLE_EXPORT_NODES,
    });
  }
  revisions = revisions.map(({ node_id, revision, title, text, summary, slots, tags, content_hash, actor, superseded_at, created_at }) => ({
    node_id,
    revision,
    title,
    text,
    summary,
    slots,
    tags,
    content_hash,
    actor,
    superseded_at,
    created_at,
  }));
  edges = edges.map(({ id, src, dst, type, actor, created_at }) => ({ id, src, dst, type, actor, created_at }));
  const extras = noExtras();
  const db = m.store.db;
  const firstPage = opts.after === undefined;
  if (opts.includeColdPayloads ?? true)
    extras.cold_payloads = await exportColdPayloads(
      db,
      ref,
      nodes.map((n) => n.id),
    );
  if (firstPage && (opts.includePlaybooks ?? true)) extras.playbooks = await exportPlaybooks(db, ref);
  if (firstPage && (opts.includeAutomations ?? true)) extras.automations = await exportAutomations(db, ref);
  return {
    pack: {
      format: PACK_FORMAT,
      version: PACK_VERSION,
      exported_at: now.toISOString(),
      source: { tenant_id: ref.tenant_id, scope: ref.scope },
      counts: {
        nodes: nodes.length,
        revisions: revisions.length,
        edges: edges.length,
        cold_payloads: extras.cold_payloads.length,
        playbook_versions: extras.playbooks.reduce((n, p) => n + p.versions.length, 0),
        automations: extras.automations.length,
      },
      content_hash: contentHash(nodes, revisions, edges, extras),
      nodes,
      revisions,
      edges,
      ...extras,
    },
    last: nodes.length > 0 ? nodes[nodes.length - 1]!.id : null,
    more,
  };
}

/** packs.export: one pack (or one page of it) with the cursor of the next page. */
export async function exportPackPage(memory: MemoryServices, clock: Clock, ref: ScopeRef, input: RouteInput<(typeof packsRoutes)['packs.export']>) {
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'packs.export') : undefined;
  const r = await exportPack(
    memory,
    ref,
    {
      includeRevisions: input.include_revisions,
      includeEdges: input.include_edges,
      includeColdPayloads: input.include_cold_payloads,
      includePlaybooks: input.include_playbooks,
      includeAutomations: input.include_automations,
      limit: input.limit,
      after,
    },
    clock.now(),
  );
  return { pack: r.pack, next_cursor: r.more && r.last ? encodeCursor('packs.export', r.last) : null };
}
