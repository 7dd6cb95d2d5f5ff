/**
 * Stored shapes of the replay family (docs/replay.md). The store keeps these documents; the wire
 * records (contract/families/replay.ts) are derived from them in views.ts.
 */

import type { Profile } from '../sandbox/records';

/** A run is `open` until it ends with one of the four ending statuses (contract.md §6). */
export const RUN_STATES = ['open', 'ended'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const RUN_END_STATUSES = ['success', 'failure', 'partial', 'cancelled'] as const;
export type RunEndStatus = (typeof RUN_END_STATUSES)[number];
/** What run/end accepts: the ending statuses, and `failed` (as steps spell it) for failure. */
export const RUN_END_STATUS_INPUTS = ['success', 'failure', 'failed', 'partial', 'cancelled'] as const satisfies readonly (RunEndStatus | 'failed')[];
export const REPLAY_RUN_STATUSES = ['open', ...RUN_END_STATUSES] as const;
export type RunStatus = (typeof REPLAY_RUN_STATUSES)[number];

/**
 * Step statuses. Recorded steps: `started` (step/before only) then what step/after says.
 * Playbook steps: `queued` (not reached yet), `running`, then `success | failed`, `skipped`
 * (never reached: an earlier step stopped the run, or max_steps) or `pending` (guided mode: the
 * host has to do it).
 */
export const STEP_STATUSES = ['started', 'queued', 'running', 'success', 'failed', 'skipped', 'partial', 'pending'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export const STEP_AFTER_STATUSES = ['success', 'failed', 'skipped', 'partial'] as const;
export type StepAfterStatus = (typeof STEP_AFTER_STATUSES)[number];
/** What step/after accepts: the statuses, and `failure` (as run/end spells it) for failed. */
export const STEP_AFTER_STATUS_INPUTS = ['success', 'failed', 'failure', 'skipped', 'partial'] as const satisfies readonly (StepAfterStatus | 'failure')[];

export const PLAYBOOK_STATUSES = ['draft', 'shadow', 'active', 'disabled', 'rejected'] as const;
export type PlaybookStatus = (typeof PLAYBOOK_STATUSES)[number];
/** What promote may set; `rejected` is only reached through repair/review. */
export const PROMOTE_TARGETS = ['draft', 'shadow', 'active', 'disabled'] as const;
export type PromoteTarget = (typeof PROMOTE_TARGETS)[number];
/** The statuses a playbook's readiness checks are required for (playbooks/readiness). */
export const READINESS_TARGETS = ['shadow', 'active', 'unattended'] as const;
export type ReadinessTarget = (typeof READINESS_TARGETS)[number];

export const RUN_SOURCES = ['recorded', 'playbook', 'shadow_validation'] as const;
export type RunSource = (typeof RUN_SOURCES)[number];
/** How a playbook run treats host steps: strict runs command steps only; guided waits for the host. */
export const PLAYBOOK_RUN_MODES = ['strict', 'guided'] as const;
export type RunMode = (typeof PLAYBOOK_RUN_MODES)[number];
/** What playbooks/run may ask for: a run in one of the modes, or a simulation (the plan, nothing run). */
export const RUN_REQUEST_MODES = ['simulate', ...PLAYBOOK_RUN_MODES] as const;
export type RunRequestMode = (typeof RUN_REQUEST_MODES)[number];
/** A playbooks/run answer's status: the run's, or `simulated`. */
export const RUN_ANSWER_STATUSES = [...REPLAY_RUN_STATUSES, 'simulated'] as const;
export const RUN_PURPOSES = ['run', 'dispatch', 'automation', 'shadow_validation'] as const;
export type RunPurpose = (typeof RUN_PURPOSES)[number];
export const STEP_KINDS = ['command', 'host'] as const;
export type StepKind = (typeof STEP_KINDS)[number];
export type SandboxProfile = Profile;
/** What the host may report for a host step… */
export const HOST_REPORT_STATUSES = ['success', 'failed'] as const;
export type HostReportStatus = (typeof HOST_REPORT_STATUSES)[number];
/** …and what the route accepts (`failure`, as run/end spells it, means failed). */
export const HOST_REPORT_STATUS_INPUTS = [...HOST_REPORT_STATUSES, 'failure'] as const;
/** Read by earlier versions of output signatures; ignored. */
export const LEGACY_OUTPUT_MATCH_MODES = ['contains', 'exact', 'none'] as const;

export type Json = Record<string, unknown>;

export interface PlaybookRunInfo {
  playbook_id: string;
  /** null until the run has resolved it (a run of "the active version" started by automation). */
  version: number | null;
  mode: RunMode;
  purpose: RunPurpose;
  workflow_id: string;
  params: Json;
  /** The version was the active one when the run began (only such runs feed learning). */
  active_at_start: boolean;
  /** The sandbox session the run's command steps share (one fresh workdir per run). */
  session_id: string | null;
  max_steps: number | null;
  /** The host directory the run's command steps see copy-on-write (absent in older records: none). */
  workspace?: { path: string } | null;
}

export const LEARNING_STATES = ['pending', 'fed', 'failed', 'not_eligible'] as const;
export type LearningState = (typeof LEARNING_STATES)[number];

export interface RunLearning {
  state: LearningState;
  workflows_updated: string[];
  reason: string | null;
  at: string;
}

export interface RunDoc {
  /** Server key (uuid v7): names the run's workflow and keys its steps. */
  _id: string;
  run_id: string;
  goal: string;
  state: RunState;
  status: RunStatus;
  summary: string | null;
  source: RunSource;
  playbook: PlaybookRunInfo | null;
  metadata: Json | null;
  actor: string;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  learning: RunLearning | null;
  /** false: recorded for review only, never fed to learning (run/start `learn: false`); absent means true. */
  learn?: false;
  /** Real time (ms) of creation: the grace before a read asks the engine about an open playbook run. */
  created_wall_ms: number;
}

export interface MatchCheck {
  check: 'completed' | 'exit_code' | 'status' | 'error_signature' | 'marker' | 'json' | 'artifact';
  passed: boolean;
  enforced: boolean;
  detail: string;
}

export interface StepMatch {
  matched: boolean;
  mode: RunMode;
  checks: MatchCheck[];
}

export interface SandboxAttempt {
  attempt: number;
  sandbox_run_id: string;
  status: string;
  exit_code: number | null;
  reason: string | null;
}

/** What the host reported for a host step (the route stores it, then signals the workflow). */
export interface HostReportDoc {
  status: HostReportStatus;
  output_signature: Json | null;
  error: string | null;
  actor: string;
  at: string;
  report_id: string;
  /** Real time (ms) the workflow was last signalled with it: a report whose signal was lost is sent again. */
  signalled_wall_ms?: number;
}

export interface StepDoc {
  /** `<run key>:<step_index, zero-padded>`: (run, step_index) is unique. */
  _id: string;
  run_key: string;
  run_id: string;
  step_index: number;
  tool_name: string;
  tool_input: Json;
  expected_output_signature: Json | null;
  status: StepStatus;
  output_signature: Json | null;
  error: string | null;
  kind: StepKind | null;
  sandbox_run_id: string | null;
  attempts: SandboxAttempt[];
  match: StepMatch | null;
  metadata: Json | null;
  actor: string;
  started_at: string | null;
  ended_at: string | null;
  updated_at: string;
  /** Guided host steps: when the run began to wait for the host (absent: never waited). */
  waiting_since?: string | null;
  /** Guided host steps: the host's report, set once (a second report is invalid_state). */
  host_report?: HostReportDoc | null;
}

export interface PlaybookStep {
  step_index: number;
  tool_name: string;
  tool_input: Json;
  expected_output_signature: Json | null;
  /** Command attempts a run may make before the step counts as failed (1 = never retried). */
  max_attempts: number;
  /** Milliseconds to wait before each retry of a command step (absent or 0: retry at once). */
  backoff_ms?: number;
  /** The recorded step it was compiled from (null for steps a repair inserted). */
  source_step_index: number | null;
}

export interface PlaybookParameter {
  name: string;
  /** null: the caller must give a value at run time. */
  default: unknown;
}

export interface ShadowStepResult {
  step_index: number;
  status: string;
  matched: boolean | null;
  reasons: string[];
}

export const SHADOW_MODES = ['dry_run', 'execute_sandbox'] as const;
export type ShadowMode = (typeof SHADOW_MODES)[number];
/** What playbooks/review accepts as shadow_validation_mode: the modes, with aliases execute (execute_sandbox) and readiness (dry_run). */
export const SHADOW_MODE_INPUTS = ['execute_sandbox', 'execute', 'dry_run', 'readiness'] as const satisfies readonly (ShadowMode | 'execute' | 'readiness')[];
export const SHADOW_STATUSES = ['running', 'passed', 'failed', 'partial'] as const;
export type ShadowStatus = (typeof SHADOW_STATUSES)[number];

export interface ShadowValidation {
  mode: ShadowMode;
  status: ShadowStatus;
  run_id: string | null;
  workflow_id: string | null;
  started_at: string;
  finished_at: string | null;
  steps: ShadowStepResult[];
  issues: string[];
  summary: string;
}

/** How a playbook version's status changed. */
export const STATUS_CHANGE_VIAS = ['compile', 'repair', 'promote', 'review', 'demotion'] as const;
export type StatusChangeVia = (typeof STATUS_CHANGE_VIAS)[number];

export interface StatusChange {
  from: PlaybookStatus | null;
  to: PlaybookStatus;
  via: StatusChangeVia;
  actor: string;
  note: string | null;
  at: string;
}

export const REVIEW_ACTIONS = ['approve', 'reject'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];

export interface ReviewRecord {
  action: ReviewAction;
  actor: string;
  note: string | null;
  at: string;
}

export interface PlaybookDoc {
  _id: string;
  playbook_id: string;
  version: number;
  name: string;
  /** Stored status; `active` is mirrored from the active pointer, which is the truth (status.ts). */
  status: PlaybookStatus;
  steps: PlaybookStep[];
  parameters: PlaybookParameter[];
  sandbox_profile: SandboxProfile;
  source_run_id: string | null;
  repair_of: number | null;
  note: string | null;
  shadow_validation: ShadowValidation | null;
  review: ReviewRecord | null;
  status_history: StatusChange[];
  actor: string;
  created_at: string;
  updated_at: string;
}

/** Which version of a playbook is active: one document per playbook, swapped atomically. */
export interface ActivePointerDoc {
  _id: string;
  playbook_id: string;
  version: number | null;
  updated_at: string;
}

/** Caps (contract.md §1: documented caps on arrays). */
export const MAX_PLAYBOOK_STEPS = 500;
export const MAX_PARAMETERS = 100;
export const MAX_ATTEMPTS = 5;
/** The longest wait between attempts of a step (a repair's retry_policy.backoff_ms). */
export const MAX_BACKOFF_MS = 60_000;
export const MAX_STEP_INDEX = 100_000;
