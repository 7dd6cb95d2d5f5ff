/**
 * What the lifecycle workflows and activities pass each other. Pure types and arithmetic only:
 * the workflow bundle imports this file, so it must stay deterministic and free of Node modules.
 */

import type { DecisionOutcome, HoldReason, LifecycleAction, LifecycleState } from '../../model/lifecycle/vocabulary';
import type { Tier } from '../../model/memory/node';

export type ActionName = LifecycleAction;
export type TierName = Tier;

export interface DecisionView {
  id: string;
  client_id: string | null;
  kind: string | null;
  action: ActionName;
  current_tier: TierName;
  target_tier: TierName;
  lifecycle_state: LifecycleState;
  retention_score: number;
  rationale: string[];
  held: HoldReason | null;
  outcome: DecisionOutcome;
}

export interface RunCounts {
  actions: Record<ActionName, number>;
  outcomes: Record<DecisionView['outcome'], number>;
  /** Tier moves done (or, in a dry run, that would be done). */
  moves: { demoted: number; archived: number };
  /** Nodes whose score asked for a colder tier that was not applied, by reason. */
  held: { pinned: number; dwell: number; idle: number };
}

export const emptyRunCounts = (): RunCounts => ({
  actions: { retain: 0, demote: 0, archive: 0, review: 0 },
  outcomes: { applied: 0, unchanged: 0, planned: 0, conflict: 0 },
  moves: { demoted: 0, archived: 0 },
  held: { pinned: 0, dwell: 0, idle: 0 },
});

export function addRunCounts(into: RunCounts, c: RunCounts): RunCounts {
  for (const group of ['actions', 'outcomes', 'moves', 'held'] as const) {
    const target = into[group] as Record<string, number>;
    for (const [k, v] of Object.entries(c[group] as Record<string, number>)) target[k] = (target[k] ?? 0) + v;
  }
  return into;
}

/** One scope's run, as the API or the sweep starts it. */
export interface ScopeRunInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  dry_run: boolean;
  max_nodes: number;
  /** 'request' (POST /v1/memory/lifecycle/run) or 'schedule' (the sweep). */
  trigger: 'request' | 'schedule';
  /** Decisions to list in the result (default DECISIONS_IN_RESULT; the sweep asks for none). */
  sample?: number;
}

export interface BeginResult {
  /** The run's clock: every decision of the run is made at this instant. */
  decided_at: string;
  /** Where the run starts (the cursor the last run left), null for the beginning. */
  start_after: string | null;
}

export interface PageInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  decided_at: string;
  dry_run: boolean;
  after: string | null;
  /** Stop before this id (the second, wrapped-around leg of a run that started mid-scope). */
  before: string | null;
  limit: number;
  /** How many decisions to return (the run's list is capped; counts are not). */
  sample: number;
}

export interface PageResult {
  examined: number;
  last_id: string | null;
  /** The page reached the end of the scope (or the `before` bound). */
  exhausted: boolean;
  counts: RunCounts;
  decisions: DecisionView[];
}

export interface ScopeRunResult {
  run_id: string;
  tenant_id: string;
  scope: string;
  dry_run: boolean;
  trigger: 'request' | 'schedule';
  decided_at: string;
  examined: number;
  /** Every node of the scope was examined in this run. */
  complete: boolean;
  /** Where the next run resumes (null: from the beginning). */
  cursor: string | null;
  counts: RunCounts;
  decisions: DecisionView[];
  decisions_truncated: boolean;
}

/**
 * An on-demand run over named nodes: what nodes/activate feedback starts so the nodes it touched
 * are re-decided within seconds instead of at the next sweep (docs/forgetting.md, "Feedback").
 */
export interface NodesRunInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  node_ids: string[];
  trigger: 'feedback';
}

/** The activity's input: the run, its node ids and how many decisions to return. */
export interface NodesInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  decided_at: string;
  node_ids: string[];
  sample: number;
}

export interface NodesResult {
  examined: number;
  /** Ids that named no node of the scope (deleted meanwhile, or of another scope). */
  missing: number;
  counts: RunCounts;
  decisions: DecisionView[];
}

export interface NodesRunResult extends NodesResult {
  run_id: string;
  tenant_id: string;
  scope: string;
  trigger: 'feedback';
  decided_at: string;
}

export interface SweepInput {
  max_nodes_per_scope?: number;
  /** Continue-as-new state: the last scope done, and totals so far. */
  after_scope?: string | null;
  totals?: SweepResult;
}

export interface SweepResult {
  scopes: number;
  /** Scopes skipped because a run of theirs was already in progress. */
  busy: number;
  failed: number;
  examined: number;
  counts: RunCounts;
}

/**
 * The workflow id of a scope's run. One id per scope, for API-started and scheduled runs alike,
 * so Temporal itself guarantees at most one run per scope at a time. (A tenant id has no '/'.)
 */
export const scopeWorkflowId = (tenant_id: string, scope: string) => `lifecycle/${tenant_id}/${scope}`;

/** The schedule (one per task queue, so deployments sharing a namespace do not collide). */
export const sweepScheduleId = (taskQueue: string) => `lore-lifecycle-sweep/${taskQueue}`;
/**
 * The workflow id of a scope's on-demand runs over named nodes: one at a time per scope (bursts
 * of feedback coalesce into the next run), and distinct from the scope run's id, so feedback never
 * waits for a sweep of a large scope and a sweep never skips a scope because feedback is running.
 */
export const nodesWorkflowId = (tenant_id: string, scope: string) => `lifecycle-nodes/${tenant_id}/${scope}`;

export const SCOPE_WORKFLOW = 'lifecycleScopeWorkflow';
export const NODES_WORKFLOW = 'lifecycleNodesWorkflow';
export const SWEEP_WORKFLOW = 'lifecycleSweepWorkflow';
