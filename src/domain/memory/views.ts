import type { StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import type { MemoryEdge, NodeRevision } from '../../model/memory/node';
import { nodeUri } from './uri';
import type { WriteResult, WrittenNode } from './write';

/** How nodes, edges and revisions look on the wire (contract memory-schemas.ts). */

export function nodeView(n: StoredNode, ref: ScopeRef, opts: { includeText?: boolean } = {}) {
  return {
    id: n.id,
    uri: nodeUri(ref, n.id),
    client_id: n.client_id,
    type: n.type,
    kind: n.kind,
    tier: n.tier,
    archived: n.tier === 'archive',
    title: n.title,
    text: opts.includeText === false ? '' : n.text,
    summary: n.summary,
    tags: n.tags,
    slots: n.slots,
    salience: n.salience,
    importance: n.importance,
    confidence: n.confidence,
    feedback: n.feedback,
    access: n.access,
    activation: n.activation,
    pinned: n.pinned,
    revision: n.revision,
    commit_id: n.commit_id ?? null,
    actor: n.actor,
    created_at: n.created_at,
    updated_at: n.updated_at,
  };
}

export const edgeView = (e: MemoryEdge) => ({ id: e.id, src: e.src, dst: e.dst, type: e.type, actor: e.actor, created_at: e.created_at });

export const revisionView = (r: NodeRevision) => ({
  node_id: r.node_id,
  revision: r.revision,
  title: r.title,
  text: r.text,
  summary: r.summary,
  tags: r.tags,
  slots: r.slots,
  content_hash: r.content_hash,
  actor: r.actor,
  created_at: r.created_at,
  superseded_at: r.superseded_at,
});

export const writtenView = (w: WrittenNode, ref: ScopeRef) => ({
  id: w.node.id,
  client_id: w.node.client_id,
  type: w.node.type,
  kind: w.node.kind,
  tier: w.node.tier,
  revision: w.node.revision,
  outcome: w.outcome,
  deduplicated: w.outcome === 'deduplicated',
  uri: nodeUri(ref, w.node.id),
});

/** The write-result fields shared by memory.write, sessions and handoff responses. */
export function writeResultView(r: WriteResult, ref: ScopeRef) {
  // The workflows behind this write, with the uri that resolves each: the learned ones it created
  // or joined, and the workflow anchors the caller declared in it.
  const workflow_anchors = [
    ...r.learning.workflows_updated.map((id) => ({ workflow_id: id, uri: nodeUri(ref, id), source: 'learned' as const })),
    ...r.nodes.filter((w) => w.node.kind === 'workflow_anchor').map((w) => ({ workflow_id: w.node.id, uri: nodeUri(ref, w.node.id), source: 'declared' as const })),
  ];
  return {
    commit_id: r.commit_id,
    nodes: r.nodes.map((w) => writtenView(w, ref)),
    edges: r.edges.map(edgeView),
    extracted: r.extracted,
    learning: { ...r.learning, workflow_anchors },
    warnings: r.warnings,
  };
}
