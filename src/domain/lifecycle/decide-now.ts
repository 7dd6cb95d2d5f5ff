import type { StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { TIERS, type Tier } from '../../model/memory/node';
import type { LifecycleCtx } from './context';
import { processNodes } from './operator';
import { MAX_NODES_PER_NODES_RUN, POLICY_VERSION } from './policy';
import type { DecisionView } from './run-types';
import { retentionScore } from './score';
import { SEMANTIC_SLOT, basisOf, decisionHistory, feedbackState, readSemantic } from './slots';
import type { SemanticForgettingV1 } from '../../model/lifecycle/slots';
import { asObject } from '../values';

/**
 * Feedback is decided before its answer (docs/forgetting.md, "Feedback acts when it is given"):
 * the nodes a nodes/activate touched, and nodes written with feedback counters, are decided here
 * with the operator's own code (processNodes: the same rules, conditional writes and cold store)
 * before the request is answered, so the next read already sees the decision. The on-demand run
 * (feedback-runs.ts) is still queued for them and re-checks them within seconds: it re-decides
 * what this pass could not write (a concurrent change), and leaves the rest unchanged.
 *
 * When feedback archives a workflow anchor (a learned workflow, or a caller's declared anchor),
 * the payload nodes the anchor names (`anchor_v1.payload_refs.node_ids`, `anchor_v1.source.node_id`)
 * are the detail behind it: they cool one tier with it, at once (coolPayloads).
 */

const colder = (t: Tier): Tier => TIERS[Math.min(TIERS.indexOf(t) + 1, TIERS.length - 2)]!; // never into the archive tier this way
const MAX_PAYLOAD_REFS = 50;

/** The payload nodes an anchor names. */
export function payloadRefs(n: Pick<StoredNode, 'slots'>): string[] {
  const a = asObject(n.slots.anchor_v1);
  const refs = asObject(a.payload_refs).node_ids;
  const source = asObject(a.source).node_id;
  const ids = [...(Array.isArray(refs) ? refs : []), source].filter((x): x is string => typeof x === 'string' && x !== '');
  return [...new Set(ids)].slice(0, MAX_PAYLOAD_REFS);
}

export async function decideNow(c: LifecycleCtx, ref: ScopeRef, ids: string[]): Promise<DecisionView[]> {
  const unique = [...new Set(ids)].slice(0, MAX_NODES_PER_NODES_RUN);
  if (unique.length === 0) return [];
  const now = c.clock.now();
  const runId = `feedback:${uuidv7(now.getTime())}`;
  const r = await processNodes(
    { nodes: c.memory.store, cold: c.cold },
    { tenant_id: ref.tenant_id, scope: ref.scope, run_id: runId, decided_at: now.toISOString(), node_ids: unique, sample: unique.length },
  );
  const archived = r.decisions.filter((d) => d.action === 'archive' && d.outcome === 'applied').map((d) => d.id);
  if (archived.length > 0) await coolPayloads(c, ref, archived, runId, now);
  return r.decisions;
}

/**
 * Moves the payload nodes of anchors just archived one tier colder (hot → warm → cold; never
 * archived this way, never pinned ones), recording the decision with the anchor it follows.
 */
async function coolPayloads(c: LifecycleCtx, ref: ScopeRef, anchorIds: string[], runId: string, now: Date): Promise<void> {
  const nodes = c.memory.nodes(ref);
  const anchors = await nodes.getMany(anchorIds, { access: false });
  const byPayload = new Map<string, string>();
  for (const a of anchors) for (const p of payloadRefs(a)) if (!anchorIds.includes(p)) byPayload.set(p, a.id);
  if (byPayload.size === 0) return;
  const at = now.toISOString();
  for (const n of await nodes.getMany([...byPayload.keys()])) {
    if (n.pinned || n.tier === 'cold' || n.tier === 'archive') continue;
    const to = colder(n.tier);
    const sem: SemanticForgettingV1 = {
      action: 'demote',
      current_tier: n.tier,
      target_tier: to,
      lifecycle_state: feedbackState(n.feedback),
      retention_score: retentionScore(n, now).score,
      rationale: [`payload of anchor ${byPayload.get(n.id)}, which feedback archived: cools ${n.tier} → ${to} with it`],
      decided_at: at,
      run_id: runId,
      tier_changed_at: at,
      policy: POLICY_VERSION,
      basis: basisOf(n, to),
      history: decisionHistory(readSemantic(n.slots)),
    };
    await nodes.update(n.id, { set: { tier: to, [`slots.${SEMANTIC_SLOT}`]: sem } }, now, { expectRevision: n.revision });
  }
}
