import type { ScopedNodes, StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import { feedbackQuality } from '../../model/memory/node';
import type { LifecycleCtx } from './context';
import { decideNow } from './decide-now';
import type { DecisionView } from './run-types';
import { selectNodes } from './select';
import type { FeedbackOutcome } from '../../model/memory/vocabulary';

/**
 * nodes/activate (contract.md §4): merges reuse feedback into nodes. Only `feedback.*` (with
 * the reason given) and `activation.*` change here (with the store's bookkeeping seq and
 * updated_at). Counters are atomic increments, so concurrent activations never lose a count.
 * Feedback then acts before the answer: the touched nodes are decided at once with the operator's
 * rules (decide-now.ts; the decisions are in the answer), and queued for the on-demand operator
 * run (feedback-runs.ts), which re-checks them within seconds.
 */

export type Outcome = FeedbackOutcome;

export interface ActivatedItem {
  id: string;
  client_id: string | null;
  tier: StoredNode['tier'];
  feedback: StoredNode['feedback'];
  activation: StoredNode['activation'];
}

/** quality follows the counters; a concurrent activation may race it, so set it until it agrees. */
async function settleQuality(nodes: ScopedNodes, node: StoredNode, now: Date): Promise<StoredNode> {
  let cur = node;
  for (let i = 0; i < 5; i += 1) {
    const q = feedbackQuality(cur.feedback.positive, cur.feedback.negative);
    if (cur.feedback.quality === q) return cur;
    const next = await nodes.update(cur.id, { set: { 'feedback.quality': q } }, now);
    if (!next) return cur;
    cur = next;
  }
  return cur;
}

export async function activateNodes(
  c: LifecycleCtx,
  ref: ScopeRef,
  input: { ids?: string[]; client_ids?: string[]; outcome?: Outcome | undefined; activate: boolean; reason?: string | undefined },
): Promise<{ nodes: ActivatedItem[]; not_found: string[]; decisions: DecisionView[] }> {
  const nodes = c.memory.nodes(ref);
  // Feedback and activation only: access statistics play no part (nor in what is returned).
  const { found, not_found } = await selectNodes(nodes, input, { access: false });
  const items: ActivatedItem[] = [];
  const missing: string[] = [];
  for (const n of found) {
    const now = c.clock.now();
    const at = now.toISOString();
    const inc: Record<string, number> = {};
    if (input.outcome === 'positive') inc['feedback.positive'] = 1;
    if (input.outcome === 'negative') inc['feedback.negative'] = 1;
    if (input.activate) inc['activation.count'] = 1;
    const set: Record<string, unknown> = {};
    if (input.outcome !== undefined) {
      set['feedback.last_outcome'] = input.outcome;
      set['feedback.last_at'] = at;
      set['feedback.last_reason'] = input.reason ?? null;
      // The quality the counters will have unless another activation races this one (settled below).
      set['feedback.quality'] = feedbackQuality(n.feedback.positive + (inc['feedback.positive'] ?? 0), n.feedback.negative + (inc['feedback.negative'] ?? 0));
    }
    if (input.activate) set['activation.last_activated_at'] = at;
    // Neither an outcome nor an activation: nothing to record on this node.
    const updated = Object.keys(set).length + Object.keys(inc).length === 0 ? n : await nodes.update(n.id, { set, inc }, now);
    if (!updated) {
      missing.push(n.client_id ?? n.id);
      continue;
    }
    const settled = await settleQuality(nodes, updated, now);
    items.push({ id: settled.id, client_id: settled.client_id, tier: settled.tier, feedback: settled.feedback, activation: settled.activation });
  }
  if (items.length > 0 && input.activate) await c.states.increment(ref, { activations: items.length }, c.clock.now().toISOString());
  // Feedback acts when it is given: decided now, and re-checked by the on-demand run.
  const ids = items.map((i) => i.id);
  const decisions = input.outcome === undefined ? [] : await decideNow(c, ref, ids);
  c.feedback.request(ref, ids);
  // The answer shows the nodes as the decision left them.
  const decided = new Map(decisions.filter((d) => d.outcome === 'applied' || d.outcome === 'unchanged').map((d) => [d.id, d.target_tier]));
  return { nodes: items.map((i) => ({ ...i, tier: decided.get(i.id) ?? i.tier })), not_found: [...not_found, ...missing], decisions };
}

export async function pinNodes(
  c: LifecycleCtx,
  ref: ScopeRef,
  input: { ids?: string[]; client_ids?: string[]; pinned: boolean },
): Promise<{ nodes: { id: string; client_id: string | null; tier: StoredNode['tier']; pinned: boolean }[]; not_found: string[] }> {
  const nodes = c.memory.nodes(ref);
  const { found, not_found } = await selectNodes(nodes, input, { access: false });
  const out: { id: string; client_id: string | null; tier: StoredNode['tier']; pinned: boolean }[] = [];
  for (const n of found) {
    const updated = n.pinned === input.pinned ? n : await nodes.update(n.id, { set: { pinned: input.pinned } }, c.clock.now());
    if (updated) out.push({ id: updated.id, client_id: updated.client_id, tier: updated.tier, pinned: updated.pinned });
    else not_found.push(n.client_id ?? n.id);
  }
  return { nodes: out, not_found };
}
