import { createHash } from 'node:crypto';
import type { StoredNode } from '../../store/memory/nodes';
import type { MemoryEdge, MemoryNode, NodeRevision } from '../memory/node';
import { orderedDerivedUuid } from '../memory/derived-id';

/**
 * The pack format (docs/memory.md, "Packs"): one tenant+scope's nodes (with every bookkeeping
 * field but the process-local write sequence), their earlier revisions and the edges, plus a
 * content hash over all three so two packs can be compared without diffing them.
 *
 *   { format: "lore.pack", version: 1, exported_at, source: {tenant_id, scope},
 *     counts: {nodes, revisions, edges}, content_hash, nodes: [...], revisions: [...], edges: [...] }
 */

export const PACK_FORMAT = 'lore.pack';
export const PACK_VERSION = 1;

export type PackNode = Omit<MemoryNode, 'seq'>;

export interface Pack {
  format: typeof PACK_FORMAT;
  version: typeof PACK_VERSION;
  exported_at: string;
  source: { tenant_id: string; scope: string };
  counts: { nodes: number; revisions: number; edges: number };
  content_hash: string;
  nodes: PackNode[];
  revisions: NodeRevision[];
  edges: MemoryEdge[];
}

/** JSON with object keys sorted at every level: equal values give equal strings. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A stored node as a pack carries it (no seq, no tenant/scope: the pack says whose it is). */
export function toPackNode(n: StoredNode): PackNode {
  const { seq: _seq, tenant_id: _t, scope: _s, ...rest } = n;
  return { ...rest, commit_id: rest.commit_id ?? null };
}

export function contentHash(nodes: PackNode[], revisions: NodeRevision[], edges: MemoryEdge[]): string {
  const h = createHash('sha256');
  const byId = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  for (const n of [...nodes].sort(byId((x) => x.id))) h.update(canonical(n)).update('\n');
  h.update('--revisions\n');
  for (const r of [...revisions].sort(byId((x) => `${x.node_id}:${String(x.revision).padStart(10, '0')}`))) h.update(canonical(r)).update('\n');
  h.update('--edges\n');
  for (const e of [...edges].sort(byId((x) => x.id))) h.update(canonical(e)).update('\n');
  return h.digest('hex');
}

/**
 * Ids on import. Node ids are kept, so a pack restored into its own scope (or into another Lore)
 * is byte-for-byte the same; but MongoDB ids are unique across the database, so when the pack's
 * ids already belong to another scope of this database (a copy of a scope beside its original)
 * every id is re-derived from (target tenant, target scope, original id). Re-derived ids keep the
 * creation order of the originals and are deterministic, so a second import of the same pack is
 * still a no-op.
 */
export function idMapper(remap: boolean, tenant: string, scope: string): (id: string) => string {
  if (!remap) return (id) => id;
  return (id) => orderedDerivedUuid(id, 'pack-import', tenant, scope, id);
}

export function mapNode(n: PackNode, map: (id: string) => string): PackNode {
  return { ...n, id: map(n.id) };
}

export function mapRevision(r: NodeRevision, map: (id: string) => string): NodeRevision {
  return { ...r, node_id: map(r.node_id) };
}

export function mapEdge(e: MemoryEdge, map: (id: string) => string): MemoryEdge {
  return { ...e, id: map(e.id), src: map(e.src), dst: map(e.dst) };
}
