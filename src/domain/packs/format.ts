import { createHash } from 'node:crypto';
import type { StoredNode } from '../../store/memory/nodes';
import type { DefinitionDoc } from '../../model/automation/records';
import { RELOCATION_SLOT } from '../lifecycle/slots';
import type { MemoryEdge, MemoryNode, NodeRevision } from '../../model/memory/node';
import { orderedDerivedUuid } from '../memory/derived-id';
import type { PlaybookDoc } from '../../model/replay/types';

/**
 * The pack format (docs/memory.md, "Packs"): one tenant+scope's nodes (with every bookkeeping
 * field but the process-local write sequence), their earlier revisions and the edges, and what
 * continuing the work elsewhere needs: the archived payloads of those nodes from the cold store,
 * the playbooks with every version and status (and which is active), and the automation
 * definitions. A content hash over all of it lets two packs be compared without diffing them.
 *
 *   { format: "lore.pack", version: 2, exported_at, source: {tenant_id, scope},
 *     counts: {nodes, revisions, edges, cold_payloads, playbook_versions, automations}, content_hash,
 *     nodes, revisions, edges, cold_payloads, playbooks, automations }
 *
 * Version 1 packs (nodes, revisions and edges only) still import.
 */

export const PACK_FORMAT = 'lore.pack';
export const PACK_VERSION = 2;

export type PackNode = Omit<MemoryNode, 'seq'>;

/** An archived payload (a cold-store document) with its exact text; sha256 is over its UTF-8 bytes. */
export interface PackColdPayload {
  node_id: string;
  revision: number;
  client_id: string | null;
  content_hash: string;
  sha256: string;
  payload_bytes: number;
  relocated_at: string;
  run_id: string;
  text: string;
}

export type PackPlaybookVersion = Omit<PlaybookDoc, '_id'>;
export interface PackPlaybook {
  playbook_id: string;
  active_version: number | null;
  versions: PackPlaybookVersion[];
}
export type PackAutomation = Omit<DefinitionDoc, '_id'>;

export interface PackExtras {
  cold_payloads: PackColdPayload[];
  playbooks: PackPlaybook[];
  automations: PackAutomation[];
}

export interface Pack extends PackExtras {
  format: typeof PACK_FORMAT;
  version: 1 | 2;
  exported_at: string;
  source: { tenant_id: string; scope: string };
  counts: { nodes: number; revisions: number; edges: number; cold_payloads: number; playbook_versions: number; automations: number };
  content_hash: string;
  nodes: PackNode[];
  revisions: NodeRevision[];
  edges: MemoryEdge[];
}

export const noExtras = (): PackExtras => ({ cold_payloads: [], playbooks: [], automations: [] });

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

/**
 * sha256 over the canonical JSON of every part, each in a fixed order. The extra sections are
 * hashed only when a pack has any, so a pack of nodes alone hashes as it did in version 1.
 */
export function contentHash(nodes: PackNode[], revisions: NodeRevision[], edges: MemoryEdge[], extras: PackExtras = noExtras()): string {
  const h = createHash('sha256');
  const byId =
    <T>(key: (x: T) => string) =>
    (a: T, b: T) =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  for (const n of [...nodes].sort(byId((x) => x.id))) h.update(canonical(n)).update('\n');
  h.update('--revisions\n');
  for (const r of [...revisions].sort(byId((x) => `${x.node_id}:${String(x.revision).padStart(10, '0')}`))) h.update(canonical(r)).update('\n');
  h.update('--edges\n');
  for (const e of [...edges].sort(byId((x) => x.id))) h.update(canonical(e)).update('\n');
  if (extras.cold_payloads.length + extras.playbooks.length + extras.automations.length > 0) {
    h.update('--cold_payloads\n');
    for (const c of [...extras.cold_payloads].sort(byId((x) => `${x.node_id}:${String(x.revision).padStart(10, '0')}`))) h.update(canonical(c)).update('\n');
    h.update('--playbooks\n');
    for (const p of [...extras.playbooks].sort(byId((x) => x.playbook_id))) h.update(canonical(p)).update('\n');
    h.update('--automations\n');
    for (const a of [...extras.automations].sort(byId((x) => x.automation_id))) h.update(canonical(a)).update('\n');
  }
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

/** A cold-store key (`<node id>:<revision>`) under mapped node ids. */
export function mapColdKey(key: string, map: (id: string) => string): string {
  const i = key.lastIndexOf(':');
  return i <= 0 ? key : `${map(key.slice(0, i))}${key.slice(i)}`;
}

/** A node under mapped ids; an archived node's pointer to its cold-store payload follows its id. */
export function mapNode(n: PackNode, map: (id: string) => string): PackNode {
  const rel = n.slots?.[RELOCATION_SLOT] as { cold_key?: unknown } | undefined;
  if (rel && typeof rel.cold_key === 'string') {
    const cold_key = mapColdKey(rel.cold_key, map);
    if (cold_key !== rel.cold_key) return { ...n, id: map(n.id), slots: { ...n.slots, [RELOCATION_SLOT]: { ...rel, cold_key } } };
  }
  return { ...n, id: map(n.id) };
}

export function mapRevision(r: NodeRevision, map: (id: string) => string): NodeRevision {
  return { ...r, node_id: map(r.node_id) };
}

export function mapEdge(e: MemoryEdge, map: (id: string) => string): MemoryEdge {
  return { ...e, id: map(e.id), src: map(e.src), dst: map(e.dst) };
}
