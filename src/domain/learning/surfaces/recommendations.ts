import type { ScopeRef } from '../../../store/scope';
import type { PatternClass, PatternSlot } from '../pattern-model';
import type { GovernanceAction, PolicySlot, PolicyState } from '../policy-model';
import type { Learned } from '../scope-state';
import type { WorkflowHead } from '../workflow-model';

/** A governance change the review proposes for a policy memory (evolution.ts applies it). */
export interface Proposal {
  policy_memory_id: string;
  action: GovernanceAction;
  reason: string;
}

/**
 * The evolution review pack's learning_recommendations (docs/learning.md, "Surfaces"): each one
 * names the route that carries it out and a payload that route accepts as it stands (tenant and
 * scope included), so a reviewer or an agent can act on it without composing a request.
 * `precondition` says when sending it is right (null: whenever the reviewer agrees).
 */

export interface Recommendation {
  action: string;
  target_id: string;
  reason: string;
  route: string;
  payload: Record<string, unknown>;
  precondition: string | null;
}

type WorkflowEntry = { entry: Learned<WorkflowHead> };
type PatternEntry = { entry: Learned<PatternSlot>; cls: PatternClass };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One more consistent success promotes a candidate; a playbook learned from it can be promoted instead. */
function promote(id: ScopeRef, w: Learned<WorkflowHead>): Recommendation {
  const s = w.slot;
  const base = { action: 'observe_or_promote_workflow', target_id: w.node.id, reason: `one more consistent success (or an active playbook) makes "${s.goal}" stable` };
  const playbook = s.playbook_ids.find((p) => !s.active_playbook_ids.includes(p));
  if (playbook) {
    return {
      ...base,
      route: '/v1/memory/replay/playbooks/promote',
      payload: { ...id, playbook_id: playbook, target_status: 'active', note: `promote the playbook behind workflow ${w.node.id}` },
      precondition: 'the playbook version has run well in shadow or by hand',
    };
  }
  return {
    ...base,
    route: '/v1/memory/write',
    payload: {
      ...id,
      execution: {
        goal: s.goal,
        task_kind: s.task_kind,
        steps: s.steps.map((st) => ({ tool: st.tool ?? 'unknown', file_path: st.file_path })),
        target_files: s.target_files,
        outcome: 'success',
      },
    },
    precondition: 'send it after the next run of these steps actually succeeded (it records that run)',
  };
}

/** The evidence of an unresolved failure: the failing execution node, its replay run, or the workflow. */
function inspect(id: ScopeRef, w: Learned<WorkflowHead>): Recommendation {
  const base = { action: 'inspect_unresolved_failure', target_id: w.node.id, reason: `"${w.slot.goal}" failed after its last success`, precondition: null };
  const failure = w.slot.open_failure_ids.at(-1) ?? null;
  if (failure?.startsWith('replay:')) return { ...base, route: '/v1/memory/replay/runs/get', payload: { ...id, run_id: failure.slice('replay:'.length) } };
  return { ...base, route: '/v1/memory/resolve', payload: { ...id, id: failure && UUID.test(failure) ? failure : w.node.id } };
}

export function learningRecommendations(
  ref: ScopeRef,
  actor: string,
  i: { ready: WorkflowEntry[]; patterns: PatternEntry[]; workflows: WorkflowEntry[]; proposals: Proposal[]; archived: WorkflowEntry[] },
): Recommendation[] {
  const id = { tenant_id: ref.tenant_id, scope: ref.scope };
  const out: Recommendation[] = [];
  for (const w of i.ready) out.push(promote(id, w.entry));
  for (const m of i.patterns.filter((x) => x.cls === 'contested')) {
    const reason = `${m.entry.slot.tool} got negative feedback after it was trusted`;
    out.push({
      action: 'review_contested_pattern',
      target_id: m.entry.node.id,
      reason,
      route: '/v1/memory/patterns/suppress',
      payload: { ...id, pattern_id: m.entry.node.id, reason },
      precondition: `the negative feedback is right and ${m.entry.slot.tool} should stop being applied for this task family (otherwise two fresh positive runs restore trust)`,
    });
  }
  for (const w of i.workflows.filter((x) => x.entry.slot.counts.unresolved_failures > 0)) out.push(inspect(id, w.entry));
  for (const p of i.proposals) {
    out.push({
      action: `${p.action}_policy_memory`,
      target_id: p.policy_memory_id,
      reason: p.reason,
      route: '/v1/memory/policies/governance/apply',
      payload: { ...id, actor, policy_memory_id: p.policy_memory_id, action: p.action, reason: p.reason },
      precondition: null,
    });
  }
  for (const m of i.archived) {
    out.push({
      action: 'rehydrate_workflow',
      target_id: m.entry.node.id,
      reason: 'a matching workflow is archived',
      route: '/v1/memory/archive/rehydrate',
      payload: { ...id, ids: [m.entry.node.id], target_tier: 'warm', reason: 'a task matches this archived workflow' },
      precondition: null,
    });
  }
  return out;
}

/**
 * policy_governance_apply_result: the latest operator decision (policies/governance/apply) on the
 * policies this pack reviews, from their history, with the state the policy is in now.
 */
export function latestGovernanceResult(policies: Learned<PolicySlot>[]) {
  let best: { p: Learned<PolicySlot>; h: PolicySlot['history'][number] } | null = null;
  for (const p of policies) {
    // History is appended in order: a policy's last governance entry is its latest decision.
    const h = p.slot.history.findLast((x) => x.trigger === 'governance');
    if (h && (!best || h.at > best.h.at)) best = { p, h };
  }
  if (!best) return undefined;
  const { p, h } = best;
  return {
    policy_memory_id: p.node.id,
    action: h.action as GovernanceAction, // governance entries are retire or reactivate
    previous_state: h.from as PolicyState,
    state: h.to,
    actor: h.actor,
    reason: h.reason,
    applied_at: h.at,
    current_state: p.slot.state,
    tool: p.slot.tool,
  };
}
