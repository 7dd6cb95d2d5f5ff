import type { NodeStore } from '../../store/memory/nodes';
import { ScopedNodeImport, type ImportableNode } from '../../store/memory/pack-io';
import type { ImportChunk, ImportCounts, ImportRecord } from '../../store/packs/imports';
import type { ScopeRef } from '../../store/scope';
import type { MemoryEdge, NodeRevision } from '../memory/node';
import { canonical, idMapper, mapEdge, mapNode, mapRevision, type PackNode } from './format';

/**
 * Applies one chunk of an uploaded pack to the target scope (run by the pack-import activity):
 * idempotent upserts keyed by node id (ids re-derived when the import record says so).
 */

const normalise = (n: ImportableNode) => canonical({ ...n, commit_id: n.commit_id ?? null });

export async function applyChunk(
  store: NodeStore,
  ref: ScopeRef,
  chunk: ImportChunk,
  remap: boolean,
  /** Told as each part of the chunk is done (the import activity heartbeats with it). */
  progress: (done: 'nodes' | 'revisions') => void = () => {},
): Promise<{ counts: ImportCounts; conflicts: ImportRecord['conflicts'] }> {
  const map = idMapper(remap, ref.tenant_id, ref.scope);
  const io = new ScopedNodeImport(store, ref, (a, b) => normalise(a) === normalise(b));
  const nodes = await io.putNodes((chunk.nodes as PackNode[]).map((n) => mapNode(n, map)));
  progress('nodes');
  const revisions = await io.putRevisions((chunk.revisions as NodeRevision[]).map((r) => mapRevision(r, map)));
  progress('revisions');
  const edges = await io.putEdges((chunk.edges as MemoryEdge[]).map((e) => mapEdge(e, map)));
  return {
    counts: {
      nodes_created: nodes.created,
      nodes_updated: nodes.updated,
      nodes_unchanged: nodes.unchanged,
      revisions_written: revisions,
      edges_written: edges,
      conflicts: nodes.conflicts.length,
    },
    conflicts: nodes.conflicts,
  };
}

/** Splits a pack into chunks of at most ~maxBytes of JSON each (nodes, then revisions, then edges). */
export function chunkPack(p: { nodes: unknown[]; revisions: unknown[]; edges: unknown[] }, maxBytes = 1_000_000): ImportChunk[] {
  const chunks: ImportChunk[] = [];
  let cur: ImportChunk = { index: 0, nodes: [], revisions: [], edges: [] };
  let size = 0;
  const push = (kind: 'nodes' | 'revisions' | 'edges', item: unknown) => {
    const bytes = JSON.stringify(item).length;
    if (size > 0 && size + bytes > maxBytes) {
      chunks.push(cur);
      cur = { index: chunks.length, nodes: [], revisions: [], edges: [] };
      size = 0;
    }
    cur[kind].push(item);
    size += bytes;
  };
  for (const n of p.nodes) push('nodes', n);
  for (const r of p.revisions) push('revisions', r);
  for (const e of p.edges) push('edges', e);
  if (size > 0 || chunks.length === 0) chunks.push(cur);
  return chunks;
}
