import { addTerms, capTerms } from './similarity';
import { CONTINUITY_ORIGINS, emptyOriginCounts, type Attempt, type Observation } from './types';
import type { PromotionState } from '../../model/learning/vocabulary';
import type { WorkflowHead, WorkflowSlot, WorkflowStep } from '../../model/learning/slots';

/**
 * The workflow state machine (contract.md §3; docs/learning.md, "Workflows"). Pure: the
 * persisted form is slots.workflow_v1 of a node of kind `workflow` (WorkflowSlot,
 * src/model/learning/slots.ts).
 *
 *   (one successful execution: nothing is stored; it is found again through recall)
 *   ≥ 2 successful observations                        → candidate
 *   ≥ 3 successes, one first step in ≥ 75 % of them,
 *     and no failure after the last success            → stable (stable_reason observations)
 *     (2 successes when every observation came from a continuity carrier: a handoff, session
 *     or session event records the state an agent handed on, its files and next action stated,
 *     not inferred; requiredObservations)
 *   a playbook learned from it promoted `active`       → stable (stable_reason playbook_active)
 *
 * A failure (or partial) after the last success is an unresolved failure: a stable workflow
 * reached by observations drops back to candidate until a later success resolves it. A playbook
 * promotion is an operator decision and holds. distillation_origin is the origin of the
 * execution that founded the family and never changes, through promotion or later observations
 * from other carriers (origin_counts records those).
 */

export const WORKFLOW_SLOT = 'workflow_v1';
export const CANDIDATE_MIN = 2;
export const STABLE_MIN = 3;
/** Consistent successes a workflow learned only from continuity carriers needs to be stable. */
export const CARRIER_STABLE_MIN = 2;
export const CONSISTENT_SHARE = 0.75;
const MAX_PROVENANCE = 200;
const MAX_RECENT = 50;
const MAX_GOALS = 8;
const MAX_SEQUENCES = 8;
const MAX_STEPS = 12;

export type { PromotionState } from '../../model/learning/vocabulary';
export type { WorkflowHead, WorkflowSlot } from '../../model/learning/slots';

export function headOf(s: WorkflowSlot): WorkflowHead {
  const { recent: _recent, sequences: _sequences, ...head } = s;
  return head;
}

export const stepKey = (s: WorkflowStep) => `${s.tool ?? ''}|${s.file_path ?? ''}`;
const sequenceKey = (steps: WorkflowStep[]) => steps.map(stepKey).join('>');

function topKey(counts: Record<string, number>): [string, number] | null {
  let best: [string, number] | null = null;
  for (const [k, c] of Object.entries(counts)) if (!best || c > best[1]) best = [k, c];
  return best;
}

function bump(counts: Record<string, number>, key: string): Record<string, number> {
  return { ...counts, [key]: (counts[key] ?? 0) + 1 };
}

function pushCapped<T>(list: T[], item: T, max: number): T[] {
  const out = [...list, item];
  return out.length > max ? out.slice(out.length - max) : out;
}

/**
 * A replay run and an execution write that carry the same run_id are one attempt seen twice (the
 * coding-agent hooks record both): it is counted once.
 */
export function sameAttempt(slot: Pick<WorkflowSlot, 'recent'>, obs: Pick<Observation, 'run_id' | 'origin'>): boolean {
  if (!obs.run_id) return false;
  const replay = obs.origin === 'replay_learning_episode';
  return slot.recent.some((r) => r.run_id === obs.run_id && r.origin !== obs.origin && (replay || r.origin === 'replay_learning_episode'));
}

/** Adds one observation; returns the same object when the observation was already counted. */
export function observeWorkflow(slot: WorkflowSlot, obs: Attempt): WorkflowSlot {
  if (slot.provenance_ids.includes(obs.source_id) || slot.recent.some((r) => r.source_id === obs.source_id)) return slot;
  if (sameAttempt(slot, obs)) return slot;
  const s: WorkflowSlot = {
    ...slot,
    counts: { ...slot.counts, observations: slot.counts.observations + 1 },
    origin_counts: { ...slot.origin_counts, [obs.origin]: slot.origin_counts[obs.origin] + 1 },
    provenance_ids: pushCapped(slot.provenance_ids, obs.source_id, MAX_PROVENANCE),
    recent: pushCapped(slot.recent, { source_id: obs.source_id, origin: obs.origin, outcome: obs.outcome, run_id: obs.run_id, at: obs.at }, MAX_RECENT),
    last_seen_at: obs.at > slot.last_seen_at ? obs.at : slot.last_seen_at,
    playbook_ids: obs.playbook_id && !slot.playbook_ids.includes(obs.playbook_id) ? [...slot.playbook_ids, obs.playbook_id] : slot.playbook_ids,
  };
  if (obs.outcome === 'success') {
    const steps = obs.steps.slice(0, MAX_STEPS);
    s.counts.successes += 1;
    s.term_counts = capTerms(addTerms(slot.term_counts, obs.terms));
    s.samples = slot.samples + 1;
    if (obs.goal && !s.goals.includes(obs.goal)) s.goals = pushCapped(s.goals, obs.goal, MAX_GOALS);
    if (steps.length > 0) {
      s.first_steps = bump(slot.first_steps, stepKey(steps[0]!));
      const key = sequenceKey(steps);
      const existing = slot.sequences.find((q) => q.key === key);
      const sequences = existing
        ? slot.sequences.map((q) => (q.key === key ? { ...q, count: q.count + 1, last_at: obs.at } : q))
        : [...slot.sequences, { key, steps, count: 1, last_at: obs.at }];
      s.sequences = sequences.sort((a, b) => b.count - a.count || (a.last_at < b.last_at ? 1 : -1)).slice(0, MAX_SEQUENCES);
    }
    let files = slot.file_counts;
    for (const f of new Set([...obs.target_files, ...steps.map((x) => x.file_path).filter((x): x is string => !!x)])) files = bump(files, f);
    s.file_counts = files;
    s.open_failure_ids = [];
    s.counts.unresolved_failures = 0;
    s.last_success_at = obs.at;
  } else {
    if (obs.outcome === 'failure') s.counts.failures += 1;
    else s.counts.partials += 1;
    s.open_failure_ids = pushCapped(slot.open_failure_ids, obs.source_id, 20);
    s.counts.unresolved_failures = slot.counts.unresolved_failures + 1;
  }
  return settle(s, obs.at, obs.outcome === 'success' ? `observation ${obs.source_id}` : `unresolved ${obs.outcome} ${obs.source_id}`);
}

/** A playbook learned from this workflow was promoted active: stable, origin unchanged. */
export function promoteByPlaybook(slot: WorkflowSlot, playbookId: string, at: string): WorkflowSlot {
  if (slot.active_playbook_ids.includes(playbookId)) return slot;
  const s: WorkflowSlot = {
    ...slot,
    playbook_ids: slot.playbook_ids.includes(playbookId) ? slot.playbook_ids : [...slot.playbook_ids, playbookId],
    active_playbook_ids: [...slot.active_playbook_ids, playbookId],
  };
  return settle(s, at, `playbook ${playbookId} promoted active`);
}

/**
 * Consistent successes the workflow needs to be stable: CARRIER_STABLE_MIN when every observation
 * so far came from a continuity carrier, else STABLE_MIN.
 */
export function requiredObservations(s: Pick<WorkflowSlot, 'origin_counts' | 'counts'>): number {
  const carriers = CONTINUITY_ORIGINS.reduce((n, o) => n + s.origin_counts[o], 0);
  return s.counts.observations > 0 && carriers === s.counts.observations ? CARRIER_STABLE_MIN : STABLE_MIN;
}

/** Recomputes steps, files and promotion from the counters; records a transition in history. */
function settle(s: WorkflowSlot, at: string, reason: string): WorkflowSlot {
  const first = topKey(s.first_steps);
  const successes = s.counts.successes;
  const required = requiredObservations(s);
  s.consistent_first_step = !!first && first[1] >= required && first[1] / Math.max(1, successes) >= CONSISTENT_SHARE;
  if (first) {
    const seq = s.sequences.find((q) => stepKey(q.steps[0]!) === first[0]) ?? s.sequences[0];
    if (seq) s.steps = seq.steps;
  }
  s.target_files = Object.entries(s.file_counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 20)
    .map(([f]) => f);
  const byObservations = successes >= required && s.consistent_first_step && s.counts.unresolved_failures === 0;
  const byPlaybook = s.active_playbook_ids.length > 0;
  const next: PromotionState = byPlaybook || byObservations ? 'stable' : 'candidate';
  s.stable_reason = byPlaybook ? 'playbook_active' : byObservations ? 'observations' : null;
  // Ready: one more consistent success (or a playbook promotion) makes it stable.
  const firstShare = first ? first[1] / Math.max(1, successes) : 0;
  s.promotion_ready = next === 'candidate' && successes >= CANDIDATE_MIN && firstShare >= CONSISTENT_SHARE && s.counts.unresolved_failures === 0;
  if (next !== s.promotion_state) s.history = pushCapped(s.history, { at, from: s.promotion_state, to: next, reason }, 50);
  s.promotion_state = next;
  return s;
}

/** A new family from two successful observations (the founding one first). */
export function foundWorkflow(familyId: string, founder: Attempt, second: Attempt): WorkflowSlot {
  const base: WorkflowSlot = {
    version: 1,
    family_id: familyId,
    task_kind: founder.task_kind ?? second.task_kind,
    goal: founder.goal ?? second.goal ?? founder.terms.join(' '),
    goals: [],
    term_counts: {},
    samples: 0,
    steps: [],
    target_files: [],
    file_counts: {},
    first_steps: {},
    sequences: [],
    counts: { observations: 0, successes: 0, failures: 0, partials: 0, unresolved_failures: 0 },
    origin_counts: emptyOriginCounts(),
    distillation_origin: founder.origin,
    promotion_state: 'candidate',
    promotion_ready: false,
    stable_reason: null,
    consistent_first_step: false,
    playbook_ids: [],
    active_playbook_ids: [],
    provenance_ids: [],
    recent: [],
    open_failure_ids: [],
    first_seen_at: founder.at < second.at ? founder.at : second.at,
    last_seen_at: founder.at,
    last_success_at: null,
    history: [{ at: second.at, from: null, to: 'candidate', reason: `learned from ${founder.source_id} and ${second.source_id}` }],
  };
  return observeWorkflow(observeWorkflow(base, founder), second);
}

/** How sure a workflow's first step is, before relevance: grows with consistent successes. */
export function workflowConfidence(slot: WorkflowHead): number {
  const first = topKey(slot.first_steps);
  const share = first ? first[1] / Math.max(1, slot.counts.successes) : 0;
  const base = slot.promotion_state === 'stable' ? 0.75 + 0.03 * Math.min(5, slot.counts.successes - STABLE_MIN) : 0.5 + 0.05 * Math.min(2, slot.counts.successes - CANDIDATE_MIN);
  const penalty = slot.counts.unresolved_failures > 0 ? 0.15 : 0;
  return Math.max(0.05, Math.min(0.95, base * (0.6 + 0.4 * share) - penalty));
}
