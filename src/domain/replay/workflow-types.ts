/**
 * The contract between replay's workflows (workflows/replay.ts), their activities
 * (activities/replay.ts) and the families that start them: the API (playbooks/run, dispatch,
 * repair/review) and automation, whose workflow runs a playbook node as a child workflow:
 *
 *   const runKey = uuid4();                       // from @temporalio/workflow
 *   const result = await executeChild(playbookRunWorkflow, {
 *     workflowId: playbookRunWorkflowId(runKey),
 *     args: [{ tenant_id, scope, actor, run_key: runKey, run_id: `${automationRunId}:${nodeId}`,
 *              playbook_id, version, mode: 'strict', params, purpose: 'automation' }],
 *     typedSearchAttributes: [...],               // LoreTenant, LoreScope, LoreRunKind 'playbook_run', LorePlaybookId
 *   });
 *
 * Pure types and string helpers only: workflow code imports this file, so it must stay free of
 * Node modules and I/O. See docs/replay.md ("Running a playbook from another workflow").
 */

import type { HostReportStatus, RunEndStatus, RunMode, RunPurpose, StepKind } from '../../model/replay/types';

export const PLAYBOOK_RUN_WORKFLOW = 'playbookRunWorkflow';
export const SHADOW_VALIDATION_WORKFLOW = 'playbookShadowValidationWorkflow';

/** Workflow id of a playbook run, from the replay run's server key (so it is unique per namespace). */
export const playbookRunWorkflowId = (runKey: string) => `playbook-run-${runKey}`;
export const shadowValidationWorkflowId = (runKey: string) => `playbook-shadow-${runKey}`;
/** Sandbox run id of one attempt of one command step: stable, so a retried activity finds its run again. */
export const stepSandboxRunId = (runKey: string, stepIndex: number, attempt: number) => `pb-${runKey}-s${stepIndex}-a${attempt}`;
/** The sandbox session shared by a run's command steps (one fresh workdir per playbook run). */
export const runSessionId = (runKey: string) => `pb-${runKey}`;

/**
 * The signal a guided run waits for at a host step: the host's result, sent by
 * /v1/memory/replay/playbooks/runs/steps/complete (docs/replay.md, "Host steps").
 */
export const HOST_STEP_SIGNAL = 'playbook.hostStep';
/** A run begun before the worker said its timeout (an older history) waits this long at a host step. */
export const DEFAULT_HOST_STEP_TIMEOUT_MS = 24 * 3_600_000;

export interface HostStepReport {
  step_index: number;
  status: HostReportStatus;
  output_signature: Record<string, unknown> | null;
  error: string | null;
  actor: string;
  at: string;
  /** Unique per report (the workflow keeps the first report of a step). */
  report_id: string;
}

export interface PlaybookRunInput {
  tenant_id: string;
  scope: string;
  actor: string;
  /** Server key of the replay run (a uuid): the run's steps and sandbox runs are keyed by it. */
  run_key: string;
  /** Caller-visible replay run id: `POST /v1/memory/replay/runs/get {run_id}` shows the run. */
  run_id: string;
  playbook_id: string;
  /** null: the version that is active when the run begins (not_found / invalid_state when none). */
  version: number | null;
  mode: RunMode;
  /** Parameter values by name; declared defaults fill the rest. */
  params: Record<string, unknown>;
  /** Run only the first max_steps steps (the rest are skipped and the run ends partial). */
  max_steps?: number | null;
  purpose: RunPurpose;
  /** Goal of the replay run (default: the playbook's source run goal, else its name). */
  goal?: string | null;
  metadata?: Record<string, unknown> | null;
  /** A host directory the run's command steps see copy-on-write (docs/sandbox.md, "Workspaces"). */
  workspace?: { path: string } | null;
  /** How long the run waits for the host at each host step (guided); null: LORE_PLAYBOOK_HOST_STEP_TIMEOUT; 0: no limit. */
  host_step_timeout_ms?: number | null;
}

/** Per-step outcome, as the workflow returns it (the run record holds the full detail). */
export interface PlaybookStepResult {
  step_index: number;
  tool_name: string;
  kind: StepKind;
  status: string;
  matched: boolean | null;
  attempts: number;
  sandbox_run_id: string | null;
  exit_code: number | null;
  /** The command's stdout, normalised, first 4 KiB (null for host steps and steps not run). */
  stdout: string | null;
  /** Why a step did not match, failed, or is pending. */
  reasons: string[];
  /** guided: the resolved input the host should act on. */
  tool_input?: Record<string, unknown>;
}

export interface PlaybookRunResult {
  run_id: string;
  run_key: string;
  playbook_id: string;
  version: number;
  mode: RunMode;
  status: RunEndStatus;
  summary: string;
  steps: PlaybookStepResult[];
  /** Counts, for automation references such as `$nodes.<id>.summary.steps_succeeded`. */
  totals: { steps: number; succeeded: number; failed: number; skipped: number; pending: number };
  /** stdout (normalised, first 4 KiB) of each command step that ran, by step_index. */
  outputs: Record<string, string>;
}

/** What the workflow needs to know about each step; everything else stays in the store. */
export interface PlanStepRef {
  step_index: number;
  kind: StepKind;
  max_attempts: number;
  /** Wait before each retry (absent in plans begun by older workers, and for steps without one). */
  backoff_ms?: number;
  /** Short label for the Temporal UI (e.g. the argv). */
  label: string;
}

export interface BeginResult {
  run_key: string;
  version: number;
  mode: RunMode;
  session_id: string | null;
  steps: PlanStepRef[];
  max_steps: number | null;
  /** Set when the run had already ended (a repeated start): the workflow returns it as is. */
  ended: PlaybookRunResult | null;
  /** How long to wait for the host at each host step; 0: no limit (absent in runs begun by older workers). */
  host_step_timeout_ms?: number;
}

export interface PrepareStepResult {
  /** The command could not be handed to the sandbox (e.g. not allowed by the profile). */
  refused: string | null;
  sandbox_run_id: string;
  workflow_id: string;
  wall_ms: number;
}

export interface CompleteStepResult {
  matched: boolean;
  status: string;
  reasons: string[];
}

export interface FinishInput {
  tenant_id: string;
  scope: string;
  run_key: string;
  status: RunEndStatus;
  /** guided: the first step the host must do; it and every later step are `pending`. */
  pending_from: number | null;
  reason: string | null;
}
