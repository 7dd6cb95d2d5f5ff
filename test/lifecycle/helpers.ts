import assert from 'node:assert/strict';
import type { TestApi } from '../helpers/app';
import type { Identity } from '../helpers/isolation';

export const DAY = 86_400_000;

/** Every node of a scope through /v1/memory/find (paged), in id order. */
export async function allNodes(api: TestApi, id: Identity): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await api.post('/v1/memory/find', { ...id, limit: 100, ...(cursor ? { cursor } : {}) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    out.push(...res.body.nodes);
    if (!res.body.next_cursor) return out;
    cursor = res.body.next_cursor;
  }
}

/** Writes `count` event nodes with client_ids `${prefix}-<i>` in batches of 200. */
export async function writeNodes(api: TestApi, id: Identity, count: number, prefix = 'n', extra: (i: number) => Record<string, unknown> = () => ({})): Promise<void> {
  for (let start = 0; start < count; start += 200) {
    const nodes = [];
    for (let i = start; i < Math.min(count, start + 200); i += 1) {
      nodes.push({
        client_id: `${prefix}-${i}`,
        type: 'event',
        title: `note ${i}`,
        text: `Deployment note ${i}: the release train ran step ${i % 7} of the rollout.`,
        ...extra(i),
      });
    }
    const res = await api.post('/v1/memory/write', { ...id, nodes });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
}

export async function runOperator(api: TestApi, id: Identity, body: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/v1/memory/lifecycle/run', { ...id, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'completed');
  return res.body;
}

export async function summary(api: TestApi, id: Identity): Promise<any> {
  const res = await api.post('/v1/memory/lifecycle/summary', id);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.forgetting_summary;
}

const inc = (o: Record<string, number>, k: string) => (o[k] = (o[k] ?? 0) + 1);

/** The lifecycle state feedback gives a node (the documented rule: retired, contested or active). */
function feedbackState(f: { positive?: number; negative?: number } | undefined): string {
  const pos = f?.positive ?? 0;
  const neg = f?.negative ?? 0;
  if (pos + neg === 0) return 'active';
  const q = (pos - neg) / (pos + neg);
  if (neg >= 2 && q <= -0.5) return 'retired';
  if (pos >= 1 && neg >= 1 && Math.abs(q) < 0.5) return 'contested';
  return 'active';
}

/**
 * The forgetting summary's counts, computed here from the nodes themselves (the documented
 * rules: a node without a decision counts as what is happening to it now — archive in the
 * archive tier, review when its feedback is contested, else retain — with the lifecycle state its
 * feedback gives it and its payload local).
 */
export function countIndependently(nodes: any[]) {
  const c = {
    semantic_action_counts: { retain: 0, demote: 0, archive: 0, review: 0 } as Record<string, number>,
    lifecycle_state_counts: { active: 0, contested: 0, retired: 0, archived: 0 } as Record<string, number>,
    archive_relocation_state_counts: { none: 0, candidate: 0, cold_archive: 0 } as Record<string, number>,
    archive_relocation_target_counts: { none: 0, local_cold_store: 0, external_object_store: 0 } as Record<string, number>,
    archive_payload_scope_counts: { none: 0, node: 0, anchor_payload: 0 } as Record<string, number>,
    tier_counts: { hot: 0, warm: 0, cold: 0, archive: 0 } as Record<string, number>,
    node_count: nodes.length,
    evaluated_count: 0,
    undecided_count: 0,
    differential_rehydration_candidate_count: 0,
  };
  for (const n of nodes) {
    const sem = n.slots.semantic_forgetting_v1;
    const rel = n.slots.archive_relocation_v1;
    inc(c.tier_counts, n.tier);
    if (sem) {
      c.evaluated_count += 1;
      inc(c.semantic_action_counts, sem.action);
      inc(c.lifecycle_state_counts, n.tier === 'archive' ? 'archived' : sem.lifecycle_state !== 'archived' ? sem.lifecycle_state : 'active');
    } else {
      c.undecided_count += 1;
      const state = n.tier === 'archive' ? 'archived' : feedbackState(n.feedback);
      inc(c.semantic_action_counts, n.tier === 'archive' ? 'archive' : state === 'contested' ? 'review' : 'retain');
      inc(c.lifecycle_state_counts, state);
    }
    inc(c.archive_relocation_state_counts, rel?.relocation_state ?? 'none');
    inc(c.archive_relocation_target_counts, rel?.relocation_target ?? 'none');
    inc(c.archive_payload_scope_counts, rel?.payload_scope ?? 'none');
    if (n.tier === 'archive' && rel?.relocation_state === 'cold_archive' && rel?.payload_scope === 'anchor_payload') c.differential_rehydration_candidate_count += 1;
  }
  return c;
}
