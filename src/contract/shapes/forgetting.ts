import { z } from 'zod';
import { countsOf } from '../common';
import { LIFECYCLE_ACTIONS, LIFECYCLE_STATES, PAYLOAD_SCOPES, REHYDRATION_MODES, RELOCATION_STATES, RELOCATION_TARGETS } from '../../model/lifecycle/vocabulary';
import { TIERS } from '../../model/memory/node';

const count = z.number().int();

/**
 * planning_summary.forgetting_summary and execution_summary.forgetting_summary (contract.md §4):
 * what the lifecycle operator decided and did in one scope, and what to do next. Counts are of
 * the scope's nodes as they are now (docs/forgetting.md, "Counts"): a node no operator run has
 * decided yet counts as what is happening to it now (retain; archive in the archive tier; review
 * when its feedback is contested), with the lifecycle state its feedback gives it, and under
 * undecided_count.
 */
export const ForgettingSummary = z.object({
  /** Nodes by their latest decision (undecided nodes provisionally, see undecided_count). */
  semantic_action_counts: countsOf(LIFECYCLE_ACTIONS),
  lifecycle_state_counts: countsOf(LIFECYCLE_STATES),
  archive_relocation_state_counts: countsOf(RELOCATION_STATES),
  archive_relocation_target_counts: countsOf(RELOCATION_TARGETS),
  archive_payload_scope_counts: countsOf(PAYLOAD_SCOPES),
  /** Payload rehydrations served, by mode (archive/rehydrate counts as full). */
  rehydration_mode_counts: countsOf(REHYDRATION_MODES),
  /** Archived anchored workflow memory (workflow, handoff, playbook_learning) that differential rehydration can serve. */
  differential_rehydration_candidate_count: count,
  tier_counts: countsOf(TIERS),
  node_count: count,
  /** Nodes that carry a lifecycle decision an operator run wrote. */
  evaluated_count: count,
  /** Nodes no operator run has decided yet, counted provisionally (node_count = evaluated_count + undecided_count). */
  undecided_count: count,
  /** Nodes whose latest decision moved them colder (demote + archive): memory recall now ranks lower or leaves out. */
  stale_signal_count: count,
  /** The operator's last completed (non-dry) run in this scope. */
  last_run: z.object({ run_id: z.string(), decided_at: z.string(), examined: count, complete: z.boolean() }).nullable(),
  recommended_action: z.string(),
});
export type ForgettingSummary = z.infer<typeof ForgettingSummary>;
