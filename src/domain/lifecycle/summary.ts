import type { ForgettingSummary } from '../../contract/shapes/forgetting';
import type { ScopeStateDoc } from '../../store/lifecycle/scope-state';
import type { ScopeTally } from './forgetting-view';

/**
 * The forgetting summary of one scope (contract.md §4) from the in-process tallies and the
 * scope's event counters, plus one recommended action chosen from that state.
 */

export function buildSummary(t: ScopeTally | null, state: ScopeStateDoc | null): ForgettingSummary {
  const counts = {
    semantic_action_counts: { retain: t?.actions.retain ?? 0, demote: t?.actions.demote ?? 0, archive: t?.actions.archive ?? 0, review: t?.actions.review ?? 0 },
    lifecycle_state_counts: { active: t?.states.active ?? 0, contested: t?.states.contested ?? 0, retired: t?.states.retired ?? 0, archived: t?.states.archived ?? 0 },
    archive_relocation_state_counts: {
      none: t?.relocationStates.none ?? 0,
      candidate: t?.relocationStates.candidate ?? 0,
      cold_archive: t?.relocationStates.cold_archive ?? 0,
    },
    archive_relocation_target_counts: {
      none: t?.relocationTargets.none ?? 0,
      local_cold_store: t?.relocationTargets.local_cold_store ?? 0,
      external_object_store: t?.relocationTargets.external_object_store ?? 0,
    },
    archive_payload_scope_counts: { none: t?.payloadScopes.none ?? 0, node: t?.payloadScopes.node ?? 0, anchor_payload: t?.payloadScopes.anchor_payload ?? 0 },
    rehydration_mode_counts: {
      summary: state?.rehydration_mode_counts?.summary ?? 0,
      partial: state?.rehydration_mode_counts?.partial ?? 0,
      full: state?.rehydration_mode_counts?.full ?? 0,
      differential: state?.rehydration_mode_counts?.differential ?? 0,
    },
    differential_rehydration_candidate_count: t?.differentialCandidates ?? 0,
    tier_counts: { hot: t?.tiers.hot ?? 0, warm: t?.tiers.warm ?? 0, cold: t?.tiers.cold ?? 0, archive: t?.tiers.archive ?? 0 },
    node_count: t?.nodes ?? 0,
    evaluated_count: t ? t.actions.retain + t.actions.demote + t.actions.archive + t.actions.review - t.undecided : 0,
    // Memory whose latest decision moved it colder: recall ranks it lower or leaves it out.
    stale_signal_count: (t?.actions.demote ?? 0) + (t?.actions.archive ?? 0),
    undecided_count: t?.undecided ?? 0,
    last_run: state?.last_run
      ? { run_id: state.last_run.run_id, decided_at: state.last_run.decided_at, examined: state.last_run.examined, complete: state.last_run.complete }
      : null,
  };
  return { ...counts, recommended_action: recommendedAction(counts) };
}

/**
 * The summary while the forgetting view's start-up build still runs (docs/forgetting.md,
 * "Counts"): no counts yet (zero), what the scope's state document holds, and a recommended
 * action that says so, instead of holding the request for the build.
 */
export function buildingSummary(state: ScopeStateDoc | null, progress: string): ForgettingSummary {
  const s = buildSummary(null, state);
  return {
    ...s,
    recommended_action: `Forgetting counts are still being built after a start (${progress}; GET /health indexes.forgetting): the counts here are not yet known (0), ask again once it is ready.`,
  };
}

type Counts = Omit<ForgettingSummary, 'recommended_action'>;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One sentence for the runtime, from the most pressing condition first. */
export function recommendedAction(c: Counts): string {
  const archived = c.tier_counts.archive;
  const review = c.semantic_action_counts.review;
  const candidates = c.archive_relocation_state_counts.candidate;
  if (c.node_count === 0) return 'No memory in this scope yet: write execution evidence before relying on recall or forgetting.';
  if (review > 0)
    return `Review ${plural(review, 'node', 'nodes')} flagged by the lifecycle operator (contested feedback or important but stale) in the evolution review pack before deciding to keep or archive them.`;
  if (c.differential_rehydration_candidate_count > 0) {
    return `Archived workflow memory stays out of task starts: widen recall to it (include_archived) or rehydrate it with mode differential only when a task needs its detail (${plural(c.differential_rehydration_candidate_count, 'candidate', 'candidates')}), instead of restoring full payloads.`;
  }
  if (archived * 2 > c.node_count)
    return 'Most of this scope’s memory is archived: widen recall to the archive on demand, rehydrate what the current task needs (archive/rehydrate) and pin what must stay hot.';
  if (c.lifecycle_state_counts.retired > 0)
    return `${plural(c.lifecycle_state_counts.retired, 'node is', 'nodes are')} retired by feedback (it says they are wrong): recall leaves them out; widen recall (include_retired) only to audit them, and a positive outcome restores one.`;
  if (candidates > 0) return `${plural(candidates, 'node is', 'nodes are')} cooling toward the archive: activate (nodes/activate) the ones still in use to keep them.`;
  if (archived > 0)
    return 'Archived memory stays out of task starts and is searchable by summary: widen recall to it (include_archived) or offer it as rehydration candidates when a task needs it, rather than injecting it into prompts.';
  if (c.evaluated_count === 0)
    return 'No lifecycle operator run has scored this scope’s memory yet: it is retained as written until the sweep (or POST /v1/memory/lifecycle/run) scores and tiers it.';
  return 'Memory is healthy: keep activating nodes that helped so they stay hot.';
}
