import { invalidState } from '../../contract/errors';
import type { FeedbackOutcome } from '../../model/memory/vocabulary';
import type { GovernanceAction, PolicySource, PolicyState } from '../../model/learning/vocabulary';
import type { PolicySlot } from '../../model/learning/slots';

/**
 * The policy memory state machine (contract.md §3; docs/learning.md, "Policy memory"). Pure;
 * persisted as slots.policy_memory_v1 of a node of kind `policy_memory`, one per (task family,
 * tool) (PolicySlot, src/model/learning/slots.ts).
 *
 *   (none) --positive feedback, tool backed by a trusted pattern or stable workflow--> active
 *   active    --negative feedback-->                       contested
 *   contested --≥ 2 fresh positive runs-->                  active     (revalidated)
 *   active | contested --governance retire-->              retired    (not applied)
 *   retired   --governance reactivate-->                   active
 *
 * Feedback never moves a retired policy: it is counted (counts.after_retire) and nothing else,
 * so an operator's retire cannot be undone by later traffic. Every transition is appended to
 * history with actor, reason and trigger. Anything else is invalid_state.
 */

export const POLICY_SLOT = 'policy_memory_v1';
export const REVALIDATE_RUNS = 2;

export type { ActivationMode, GovernanceAction, PolicySource, PolicyState } from '../../model/learning/vocabulary';
export type { PolicySlot } from '../../model/learning/slots';

/** What backs a tool in a family when feedback arrives (computed by the caller). */
export interface Backing {
  trusted_pattern_id: string | null;
  stable_workflow_ids: string[];
  file_path: string | null;
  target_files: string[];
  avoid_tools: string[];
  confidence: number;
}

export interface PolicyFeedback {
  outcome: FeedbackOutcome;
  run_key: string;
  actor: string;
  at: string;
  reason: string | null;
}

export function policySource(b: Backing): PolicySource {
  if (b.trusted_pattern_id && b.stable_workflow_ids.length > 0) return 'blended';
  return b.trusted_pattern_id ? 'trusted_pattern' : 'stable_workflow';
}

export const isBacked = (b: Backing) => b.trusted_pattern_id !== null || b.stable_workflow_ids.length > 0;

function explain(tool: string, b: Backing): string {
  const parts: string[] = [];
  if (b.trusted_pattern_id) parts.push(`trusted pattern ${b.trusted_pattern_id}`);
  if (b.stable_workflow_ids.length > 0) parts.push(`stable workflow ${b.stable_workflow_ids.join(', ')}`);
  return `positive feedback on ${tool}, backed by ${parts.join(' and ')}`;
}

function refresh(p: PolicySlot, b: Backing): PolicySlot {
  return {
    ...p,
    // A trusted pattern makes it the default; a stable workflow alone only hints.
    activation_mode: b.trusted_pattern_id ? 'default' : 'hint',
    source: policySource(b),
    avoid_tools: b.avoid_tools.filter((t) => t !== p.tool),
    file_path: b.file_path ?? p.file_path,
    target_files: b.target_files.length > 0 ? b.target_files : p.target_files,
    supporting_anchor_ids: [...new Set([...(b.trusted_pattern_id ? [b.trusted_pattern_id] : []), ...b.stable_workflow_ids])],
    confidence: b.confidence,
  };
}

export function materialisePolicy(
  init: Pick<PolicySlot, 'family_id' | 'family_label' | 'task_kind' | 'term_counts' | 'samples' | 'tool'>,
  b: Backing,
  ev: PolicyFeedback,
): PolicySlot {
  const base: PolicySlot = {
    version: 1,
    ...init,
    state: 'active',
    activation_mode: 'hint',
    source: policySource(b),
    avoid_tools: [],
    file_path: null,
    target_files: [],
    supporting_anchor_ids: [],
    reason: explain(init.tool, b),
    confidence: b.confidence,
    counts: { positive: 1, negative: 0, after_retire: 0 },
    positive_runs: [ev.run_key],
    fresh_positive_runs: [],
    history: [{ at: ev.at, actor: ev.actor, action: 'materialize', from: 'none', to: 'active', reason: explain(init.tool, b), trigger: 'feedback', run_key: ev.run_key }],
  };
  return refresh(base, b);
}

/** Feedback on an existing policy. `b` is the tool's current backing in its family. */
export function applyPolicyFeedback(p: PolicySlot, ev: PolicyFeedback, b: Backing): PolicySlot {
  if (p.state === 'retired') {
    // Counted, never applied: the fresh positive runs only inform a review (reactivation proposal).
    const fresh =
      ev.outcome === 'positive' && !p.fresh_positive_runs.includes(ev.run_key)
        ? [...p.fresh_positive_runs, ev.run_key].slice(-50)
        : ev.outcome === 'negative'
          ? []
          : p.fresh_positive_runs;
    return { ...p, counts: { ...p.counts, after_retire: p.counts.after_retire + 1 }, fresh_positive_runs: fresh };
  }
  const s: PolicySlot = { ...refresh(p, b), counts: { ...p.counts } };
  if (ev.outcome === 'positive') {
    s.counts.positive += 1;
    const isNew = !p.positive_runs.includes(ev.run_key);
    s.positive_runs = isNew ? [...p.positive_runs, ev.run_key].slice(-500) : p.positive_runs;
    if (p.state === 'contested') {
      s.fresh_positive_runs = isNew && !p.fresh_positive_runs.includes(ev.run_key) ? [...p.fresh_positive_runs, ev.run_key] : p.fresh_positive_runs;
      if (s.fresh_positive_runs.length >= REVALIDATE_RUNS) {
        s.state = 'active';
        s.fresh_positive_runs = [];
        s.history = [
          ...p.history,
          {
            at: ev.at,
            actor: ev.actor,
            action: 'revalidate',
            from: 'contested',
            to: 'active',
            reason: `${REVALIDATE_RUNS} fresh positive runs since the contest`,
            trigger: 'feedback',
            run_key: ev.run_key,
          },
        ];
      }
    }
  } else if (ev.outcome === 'negative') {
    s.counts.negative += 1;
    s.fresh_positive_runs = [];
    if (p.state === 'active') {
      s.state = 'contested';
      s.history = [
        ...p.history,
        {
          at: ev.at,
          actor: ev.actor,
          action: 'contest',
          from: 'active',
          to: 'contested',
          reason: `negative feedback${ev.reason ? `: ${ev.reason}` : ''}`,
          trigger: 'feedback',
          run_key: ev.run_key,
        },
      ];
    }
  }
  return s;
}

export const GOVERNANCE_TRANSITIONS: Record<GovernanceAction, { from: PolicyState[]; to: PolicyState }> = {
  retire: { from: ['active', 'contested'], to: 'retired' },
  reactivate: { from: ['retired'], to: 'active' },
};

/** Whether `action` is allowed from `state` (review packs propose only allowed payloads). */
export const canGovern = (state: PolicyState, action: GovernanceAction) => GOVERNANCE_TRANSITIONS[action].from.includes(state);

/** An operator decision; an action not allowed from the current state is invalid_state. */
export function governPolicy(p: PolicySlot, action: GovernanceAction, actor: string, reason: string, at: string, id: string): PolicySlot {
  const t = GOVERNANCE_TRANSITIONS[action];
  if (!t.from.includes(p.state)) {
    throw invalidState(`policy memory '${id}' is ${p.state}; ${action} applies only to ${t.from.join(' or ')} policies`, p.state, {
      policy_memory_id: id,
      action,
      allowed_from: t.from,
    });
  }
  return {
    ...p,
    state: t.to,
    fresh_positive_runs: [],
    history: [...p.history, { at, actor, action, from: p.state, to: t.to, reason, trigger: 'governance' }],
  };
}
