import type { Database } from '../../store/database';
import type { NodeStore } from '../../store/memory/nodes';
import { ScopedNodeImport, type ImportableNode } from '../../store/memory/pack-io';
import type { ImportChunk, ImportCounts, ImportRecord } from '../../store/packs/imports';
import type { ScopeRef } from '../../store/scope';
import type { MemoryEdge, NodeRevision } from '../../model/memory/node';
import { importAutomations, importColdPayloads, importPlaybooks, type ContinuationConflict, type ContinuationCounts } from './continuation';
import { canonical, idMapper, mapEdge, mapNode, mapRevision, type PackAutomation, type PackColdPayload, type PackNode, type PackPlaybook } from './format';

/**
 * Applies one chunk of an uploaded pack to the target scope (run by the pack-import activity):
 * idempotent upserts keyed by node id (ids re-derived when the import record says so), then the
 * archived payloads, playbooks and automations it carries (continuation.ts).
 */

const normalise = (n: ImportableNode) => canonical({ ...n, commit_id: n.commit_id ?? null });

export async function applyChunk(
  store: NodeStore,
  ref: ScopeRef,
  chunk: ImportChunk,
  remap: boolean,
  /** Told as each part of the chunk is done (the import activity heartbeats with it). */
  progress: (done: 'nodes' | 'revisions' | 'edges') => void = () => {},
  /** The clock's time, for the active pointers an import sets. */
  at: string = new Date().toISOString(),
): Promise<{ counts: ImportCounts; conflicts: ImportRecord['conflicts'] }> {
  const map = idMapper(remap, ref.tenant_id, ref.scope);
  const io = new ScopedNodeImport(store, ref, (a, b) => normalise(a) === normalise(b));
  const nodes = await io.putNodes((chunk.nodes as PackNode[]).map((n) => mapNode(n, map)));
  progress('nodes');
  const revisions = await io.putRevisions((chunk.revisions as NodeRevision[]).map((r) => mapRevision(r, map)));
  progress('revisions');
  const edges = await io.putEdges((chunk.edges as MemoryEdge[]).map((e) => mapEdge(e, map)));
  progress('edges');
  const more: ContinuationCounts = {
    cold_payloads_written: 0,
    playbook_versions_created: 0,
    playbook_versions_unchanged: 0,
    automations_created: 0,
    automations_unchanged: 0,
    conflicts: 0,
  };
  const moreConflicts: ContinuationConflict[] = [];
  const db: Database = store.db;
  await importColdPayloads(db, ref, (chunk.cold_payloads ?? []) as PackColdPayload[], map, more, moreConflicts);
  await importPlaybooks(db, ref, (chunk.playbooks ?? []) as PackPlaybook[], at, more, moreConflicts);
  await importAutomations(db, ref, (chunk.automations ?? []) as PackAutomation[], more, moreConflicts);
  return {
    counts: {
      nodes_created: nodes.created,
      nodes_updated: nodes.updated,
      nodes_unchanged: nodes.unchanged,
      revisions_written: revisions,
      edges_written: edges,
      ...more,
      conflicts: nodes.conflicts.length + more.conflicts,
    },
    conflicts: [...nodes.conflicts, ...moreConflicts],
  };
}

/**
 * Splits a pack into chunks of at most ~maxBytes of JSON each: nodes, then revisions, edges,
 * archived payloads, playbooks (each with all its versions, so its active pointer is set with
 * them) and automations. A single item larger than maxBytes gets a chunk of its own.
 */
export function chunkPack(
  p: { nodes: unknown[]; revisions: unknown[]; edges: unknown[]; cold_payloads?: unknown[]; playbooks?: unknown[]; automations?: unknown[] },
  maxBytes = 1_000_000,
): ImportChunk[] {
  const chunks: ImportChunk[] = [];
  const fresh = (index: number): Required<ImportChunk> => ({ index, nodes: [], revisions: [], edges: [], cold_payloads: [], playbooks: [], automations: [] });
  let cur = fresh(0);
  let size = 0;
  const push = (kind: 'nodes' | 'revisions' | 'edges' | 'cold_payloads' | 'playbooks' | 'automations', item: unknown) => {
    const bytes = JSON.stringify(item).length;
    if (size > 0 && size + bytes > maxBytes) {
      chunks.push(cur);
      cur = fresh(chunks.length);
      size = 0;
    }
    cur[kind].push(item);
    size += bytes;
  };
  for (const n of p.nodes) push('nodes', n);
  for (const r of p.revisions) push('revisions', r);
  for (const e of p.edges) push('edges', e);
  for (const c of p.cold_payloads ?? []) push('cold_payloads', c);
  for (const b of p.playbooks ?? []) push('playbooks', b);
  for (const a of p.automations ?? []) push('automations', a);
  if (size > 0 || chunks.length === 0) chunks.push(cur);
  return chunks;
}
