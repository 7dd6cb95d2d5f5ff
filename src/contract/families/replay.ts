import { z } from 'zod';
import { BoundedText, CallerId, TOO_LARGE, Timestamp, fieldsOf, identityFields, pageInputFields, pageOutputFields, waitInputFields, waitOutputFields } from '../common';
import { route } from '../route';
import { SANDBOX_PROFILES } from '../../model/sandbox/records';
import {
  HOST_REPORT_STATUS_INPUTS,
  LEARNING_STATES,
  LEGACY_OUTPUT_MATCH_MODES,
  PLAYBOOK_RUN_MODES,
  PLAYBOOK_STATUSES,
  PROMOTE_TARGETS,
  READINESS_TARGETS,
  REPLAY_RUN_STATUSES,
  REVIEW_ACTIONS,
  RUN_ANSWER_STATUSES,
  RUN_END_STATUS_INPUTS,
  RUN_PURPOSES,
  RUN_REQUEST_MODES,
  RUN_SOURCES,
  RUN_STATES,
  SHADOW_MODE_INPUTS,
  SHADOW_MODES,
  SHADOW_STATUSES,
  STATUS_CHANGE_VIAS,
  STEP_AFTER_STATUS_INPUTS,
  STEP_KINDS,
  STEP_STATUSES,
} from '../../model/replay/types';
import { WorkspaceInput } from './sandbox';

/**
 * Replay and playbooks (interface spec "Replay and playbooks", contract.md §6). The data model,
 * statuses, transitions, parameters and matching rules are documented in docs/replay.md; the
 * request fields below follow the spec and what existing clients send (e.g. `failed` as a run
 * status, `from_version`, `params`, `shadow_validation_mode: "execute"`).
 */

const MAX_JSON_BYTES = 64 * 1024;
const MAX_SIGNATURE_BYTES = 16 * 1024;

/** A JSON object of at most maxBytes (serialised); more is payload_too_large. */
const JsonObject = (maxBytes = MAX_JSON_BYTES) =>
  z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
    const bytes = Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');
    if (bytes > maxBytes) ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes of JSON; the limit is ${maxBytes}`, params: { lore: TOO_LARGE } });
  });

const signatureSize = (v: unknown, ctx: z.RefinementCtx) => {
  const bytes = Buffer.byteLength(JSON.stringify(v), 'utf8');
  if (bytes > MAX_SIGNATURE_BYTES) ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes of JSON; the limit is ${MAX_SIGNATURE_BYTES}`, params: { lore: TOO_LARGE } });
};

/**
 * An output signature (docs/replay.md, "Signatures"): the fields Lore checks are typed, anything
 * else is kept as given. `summary` (or `stdout`) is prose: compile keeps it as the description.
 */
const OutputSignatureIn = z
  .looseObject({
    kind: z.string().max(200).optional(),
    summary: z.string().optional().describe('prose; kept as the description, never compared'),
    description: z.string().optional().describe('prose; never compared'),
    stdout: z.string().optional(),
    stderr: z.string().optional(),
    exit_code: z.number().int().nullable().optional().describe('the exit status'),
    output_match: z.enum(LEGACY_OUTPUT_MATCH_MODES).optional().describe('read by earlier versions; ignored'),
    error_signature: z.string().max(4096).optional().describe('text the error output must contain (a step that fails a known way)'),
    markers: z.array(z.string().min(1).max(4096)).max(100).optional().describe('strings that must each appear in the output'),
    json: z
      .array(z.object({ path: z.string().min(1).max(1000).describe('e.g. "$.result.count" or "result.items.0"'), equals: z.unknown() }))
      .max(50)
      .optional()
      .describe('values the JSON output must hold'),
    artifacts: z
      .array(
        z.object({
          path: z.string().min(1).max(1024).describe('relative to the working directory'),
          sha256: z
            .string()
            .regex(/^[0-9a-fA-F]{64}$/, 'sha256 is 64 hex digits')
            .optional(),
        }),
      )
      .max(100)
      .optional()
      .describe('files that must exist afterwards (with this content when sha256 is given)'),
  })
  .superRefine(signatureSize);

/** What the host reports for a host step: its output fields, any JSON value it produced (`json`), the files it wrote (`artifacts`). */
const HostSignatureIn = z
  .looseObject({
    exit_code: z.number().int().nullable().optional(),
    summary: z.string().optional(),
    stdout: z.string().optional(),
    stderr: z.string().optional(),
    markers: z.array(z.string().max(4096)).max(100).optional().describe('markers the host saw (each counts as present)'),
    json: z.unknown().optional().describe('a JSON value the step produced (checked against the expected json paths)'),
    artifacts: z
      .array(
        z.object({
          path: z.string().min(1).max(1024),
          sha256: z
            .string()
            .regex(/^[0-9a-fA-F]{64}$/, 'sha256 is 64 hex digits')
            .optional(),
        }),
      )
      .max(100)
      .optional()
      .describe('files the step wrote (used when the run has no workspace to look in)'),
  })
  .superRefine(signatureSize);

const StepIndex = z.number().int().min(0).max(100_000);
const Version = z.number().int().min(1);
const Note = BoundedText(4096).optional();
const Params = JsonObject(MAX_JSON_BYTES).describe('parameter values by name ({{name}} placeholders); declared defaults fill the rest');
const Obj = z.record(z.string(), z.unknown());

const RunStatus = z.enum(REPLAY_RUN_STATUSES);
const PlaybookStatus = z.enum(PLAYBOOK_STATUSES);
const PromoteTarget = z.enum(PROMOTE_TARGETS, { error: "must be 'draft', 'shadow', 'active' or 'disabled'" });
const StepStatus = z.enum(STEP_STATUSES);

const Match = z.object({
  matched: z.boolean(),
  mode: z.enum(PLAYBOOK_RUN_MODES),
  checks: z.array(z.object({ check: z.string(), passed: z.boolean(), enforced: z.boolean(), detail: z.string() })),
});

export const StepRecord = z.object({
  step_index: z.number().int(),
  tool_name: z.string(),
  tool_input: Obj,
  expected_output_signature: Obj.nullable(),
  status: StepStatus,
  output_signature: Obj.nullable(),
  error: z.string().nullable(),
  kind: z.enum(STEP_KINDS).nullable().describe('playbook runs: command (ran in the sandbox) or host (needs the caller)'),
  sandbox_run_id: z.string().nullable().describe('the sandbox run of the last attempt (sandbox/runs/get, logs, artifact)'),
  attempts: z.array(z.object({ attempt: z.number().int(), sandbox_run_id: z.string(), status: z.string(), exit_code: z.number().int().nullable(), reason: z.string().nullable() })),
  match: Match.nullable().describe('how the outcome compared with expected_output_signature (docs/replay.md, Matching)'),
  metadata: Obj.nullable(),
  started_at: Timestamp.nullable(),
  ended_at: Timestamp.nullable(),
  waiting_since: Timestamp.nullable().describe('guided host steps: when the run began to wait for the host'),
});

const PendingStep = z
  .object({
    step_index: z.number().int(),
    tool_name: z.string(),
    tool_input: Obj.describe('with the run’s parameters filled in'),
    expected_output_signature: Obj.nullable().describe('what the report is judged against (docs/replay.md, Signatures)'),
    waiting_since: Timestamp,
    reported: z.boolean().describe('the host has reported it and the run is judging the report'),
  })
  .describe('the host step an open guided run waits for: do it, then report it with playbooks/runs/steps/complete');

export const RunRecord = z.object({
  run_id: z.string(),
  goal: z.string(),
  state: z.enum(RUN_STATES),
  status: RunStatus,
  summary: z.string().nullable(),
  source: z.enum(RUN_SOURCES).describe('recorded through run/start…run/end, or an execution of a playbook'),
  playbook: z
    .object({
      playbook_id: z.string(),
      version: z.number().int().nullable(),
      mode: z.enum(PLAYBOOK_RUN_MODES),
      purpose: z.enum(RUN_PURPOSES),
      workflow_id: z.string().describe('the Temporal workflow of this run'),
      temporal_ui_url: z.string().nullable().describe("the workflow's page in the Temporal UI (null when Lore does not know the UI's address: LORE_TEMPORAL_UI_URL)"),
      params: Obj,
      active_at_start: z.boolean(),
      sandbox_session_id: z.string().nullable(),
      workspace: z.object({ path: z.string() }).nullable().describe('the host directory its command steps saw copy-on-write'),
    })
    .nullable(),
  pending_step: PendingStep.nullable(),
  metadata: Obj.nullable(),
  actor: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  ended_at: Timestamp.nullable(),
  step_count: z.number().int(),
  steps: z.array(StepRecord).optional(),
  learning: z
    .object({ state: z.enum(LEARNING_STATES), workflows_updated: z.array(z.string()), reason: z.string().nullable(), at: Timestamp })
    .nullable()
    .describe('whether this run fed workflow learning as a replay_learning_episode'),
});

const PlaybookStep = z.object({
  step_index: z.number().int(),
  tool_name: z.string(),
  tool_input: Obj,
  expected_output_signature: Obj.nullable(),
  max_attempts: z.number().int(),
  backoff_ms: z.number().int().optional().describe('wait before each retry (absent: retry at once)'),
  source_step_index: z.number().int().nullable(),
});

const ShadowValidation = z.object({
  mode: z.enum(SHADOW_MODES),
  status: z.enum(SHADOW_STATUSES),
  run_id: z.string().nullable().describe('execute_sandbox: the replay run of the validation'),
  workflow_id: z.string().nullable(),
  started_at: Timestamp,
  finished_at: Timestamp.nullable(),
  steps: z.array(z.object({ step_index: z.number().int(), status: z.string(), matched: z.boolean().nullable(), reasons: z.array(z.string()) })),
  issues: z.array(z.string()),
  summary: z.string(),
});

export const PlaybookRecord = z.object({
  playbook_id: z.string(),
  name: z.string(),
  version: z.number().int(),
  status: PlaybookStatus,
  repair_of: z.number().int().nullable(),
  source_run_id: z.string().nullable(),
  steps: z.array(PlaybookStep),
  parameters: z.array(z.object({ name: z.string(), default: z.unknown(), required: z.boolean() })),
  sandbox_profile: z.enum(SANDBOX_PROFILES),
  shadow_validation: ShadowValidation.nullable(),
  review: z.object({ action: z.enum(REVIEW_ACTIONS), actor: z.string(), note: z.string().nullable(), at: Timestamp }).nullable(),
  note: z.string().nullable(),
  status_history: z.array(
    z.object({
      from: PlaybookStatus.nullable(),
      to: PlaybookStatus,
      via: z.enum(STATUS_CHANGE_VIAS),
      actor: z.string(),
      note: z.string().nullable(),
      at: Timestamp,
    }),
  ),
  actor: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const StepResult = z.object({
  step_index: z.number().int(),
  tool_name: z.string(),
  kind: z.enum(STEP_KINDS),
  status: z.string(),
  matched: z.boolean().nullable(),
  attempts: z.number().int(),
  sandbox_run_id: z.string().nullable(),
  exit_code: z.number().int().nullable(),
  stdout: z.string().nullable(),
  reasons: z.array(z.string()),
  tool_input: Obj.optional().describe('pending steps: the resolved input the host should act on'),
});

const Issue = z.object({ path: z.string(), message: z.string() });
const PlanOut = z.object({
  params: Obj,
  steps: z.array(
    z.object({
      step_index: z.number().int(),
      kind: z.enum(STEP_KINDS),
      tool_name: z.string(),
      tool_input: Obj,
      expected_output_signature: Obj.nullable(),
      argv: z.array(z.string()).nullable(),
      max_attempts: z.number().int(),
      backoff_ms: z.number().int(),
      runnable: z.boolean(),
      problems: z.array(z.string()),
    }),
  ),
  issues: z.array(Issue),
});

const versionField = {
  version: Version.optional().describe('default: the latest version'),
  from_version: Version.optional().describe('alias of version'),
};
/** `from_version` is what existing clients send; version wins when both are given. */
const withVersion = <T extends { version?: number | undefined; from_version?: number | undefined }>(v: T) => ({ ...v, version: v.version ?? v.from_version });

const RunModes = z.enum(RUN_REQUEST_MODES, { error: "mode must be 'simulate', 'strict' or 'guided'" });
const runFields = {
  ...identityFields,
  playbook_id: CallerId,
  version: Version.optional().describe('default: the active version'),
  params: Params.optional(),
  parameters: Params.optional().describe('alias of params'),
  max_steps: z.number().int().min(1).max(500).optional().describe('run only the first max_steps steps (the run then ends partial)'),
  run_id: CallerId.optional().describe('chosen by the caller (default: a server uuid); the same id with the same request attaches to the existing run'),
  goal: BoundedText(4096).optional(),
  metadata: JsonObject().optional(),
  workspace: WorkspaceInput.optional(),
  host_step_timeout_ms: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400_000)
    .optional()
    .describe('guided: how long the run waits for the host at each host step (default LORE_PLAYBOOK_HOST_STEP_TIMEOUT, 24 h); 0 waits without a limit'),
};

const RunAnswer = z.object({
  run_id: z.string().nullable(),
  workflow_id: z.string().nullable(),
  playbook_id: z.string(),
  version: z.number().int(),
  mode: z.enum(RUN_REQUEST_MODES),
  status: z.enum(RUN_ANSWER_STATUSES),
  completed: z.boolean().describe('false when the wait ran out: the run goes on (poll replay/runs/get)'),
  message: z.string().optional(),
  summary: z.string(),
  steps: z.array(StepResult),
  pending_steps: z.array(StepResult).optional().describe('runs begun by earlier versions: the steps left to the host when the run stopped'),
  pending_step: PendingStep.nullable().optional().describe('guided: the host step the run waits for (the answer comes as soon as it waits)'),
  totals: z.object({ steps: z.number().int(), succeeded: z.number().int(), failed: z.number().int(), skipped: z.number().int(), pending: z.number().int() }).optional(),
  outputs: z.record(z.string(), z.string()).optional().describe('stdout of each command step that ran, by step_index'),
  plan: PlanOut.optional().describe('simulate: the resolved plan'),
  issues: z
    .object({ strict: z.array(Issue), guided: z.array(Issue) })
    .optional()
    .describe('simulate: why the plan could not run in each mode'),
  run: RunRecord.nullable(),
});

const StatusAnswer = {
  playbook_id: z.string(),
  version: z.number().int(),
  previous_status: PlaybookStatus,
  status: PlaybookStatus,
  changed: z.boolean(),
  demoted: z.object({ version: z.number().int(), status: PlaybookStatus }).nullable().describe('the previously active version, now shadow'),
  active_version: z.number().int().nullable(),
  learning: z
    .object({ workflows_updated: z.array(z.string()) })
    .nullable()
    .describe('workflows learning marked stable because this version became active'),
  playbook: PlaybookRecord,
};

const runRef = { ...identityFields, run_id: CallerId };
const runErrors = ['not_found', 'invalid_state', 'conflict'] as const;

export const replayRoutes = {
  'replay.run.start': route({
    name: 'replay.run.start',
    path: '/v1/memory/replay/run/start',
    summary: 'Open a replay run (the durable record of one execution). The same run_id with the same goal returns the existing run.',
    input: z.object({
      ...identityFields,
      run_id: CallerId.optional(),
      goal: BoundedText(),
      metadata: JsonObject().optional(),
      learn: z
        .boolean()
        .optional()
        .describe('false: a record for review and playbooks only, never fed to learning (its attempt is learned from elsewhere, e.g. an execution write with the same run_id)'),
    }),
    output: z.object({ run_id: z.string(), created: z.boolean(), run: RunRecord }),
    errors: ['conflict'],
  }),
  'replay.step.before': route({
    name: 'replay.step.before',
    path: '/v1/memory/replay/step/before',
    summary: 'Record the intended action of a step (tool_name, tool_input) on an open run; (run_id, step_index) is unique.',
    input: z.object({
      ...runRef,
      step_index: StepIndex,
      tool_name: z.string().min(1).max(200),
      tool_input: JsonObject(),
      expected_output_signature: OutputSignatureIn.optional(),
      metadata: JsonObject().optional(),
    }),
    output: z.object({ run_id: z.string(), step_index: z.number().int(), created: z.boolean(), step: StepRecord }),
    errors: runErrors,
  }),
  'replay.step.after': route({
    name: 'replay.step.after',
    path: '/v1/memory/replay/step/after',
    summary: 'Record the actual result of a step (status, output_signature); needs its step/before.',
    input: z.object({
      ...runRef,
      step_index: StepIndex,
      status: z.enum(STEP_AFTER_STATUS_INPUTS, { error: "status must be 'success', 'failed', 'skipped' or 'partial'" }).transform((s) => (s === 'failure' ? 'failed' : s)),
      output_signature: OutputSignatureIn.optional(),
      error: BoundedText(8192).optional(),
      metadata: JsonObject().optional(),
    }),
    output: z.object({ run_id: z.string(), step_index: z.number().int(), created: z.boolean(), step: StepRecord }),
    errors: runErrors,
  }),
  'replay.run.end': route({
    name: 'replay.run.end',
    path: '/v1/memory/replay/run/end',
    summary: 'End an open run with status success, failure (alias failed), partial or cancelled, and a summary.',
    input: z.object({
      ...runRef,
      status: z.enum(RUN_END_STATUS_INPUTS, { error: "status must be 'success', 'failure', 'partial' or 'cancelled'" }).transform((s) => (s === 'failed' ? 'failure' : s)),
      summary: BoundedText().optional(),
    }),
    output: z.object({ run_id: z.string(), run: RunRecord }),
    errors: runErrors,
  }),
  'replay.runs.get': route({
    name: 'replay.runs.get',
    path: '/v1/memory/replay/runs/get',
    summary:
      'A replay run with its steps in order: recorded runs and playbook executions (run, dispatch, automation, shadow validation). With wait_ms (at most 30 s), answers as soon as `until` holds (not_queued, paused_or_done, done, or a change since a version), or with the current state at the deadline.',
    input: z.object({ ...identityFields, run_id: CallerId, include_steps: z.boolean().default(true), ...waitInputFields }),
    output: z.object({ run: RunRecord, ...waitOutputFields }),
    errors: ['not_found'],
  }),
  'replay.playbooks.compileFromRun': route({
    name: 'replay.playbooks.compileFromRun',
    path: '/v1/memory/replay/playbooks/compile_from_run',
    summary: 'Compile an ended run (success, or partial with allow_partial) into version 1 of a playbook, status draft.',
    input: z.object({
      ...runRef,
      playbook_id: CallerId.optional().describe('default: a server uuid'),
      name: z.string().min(1).max(200).optional().describe('default: the run goal'),
      allow_partial: z.boolean().default(false),
      parameters: z
        .record(
          z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, 'parameter names are [A-Za-z_][A-Za-z0-9_.-]{0,63}'),
          z.union([z.string().min(1).max(4096), z.number(), z.boolean()]),
        )
        .refine((p) => Object.keys(p).length <= 100, 'at most 100 parameters')
        .optional()
        .describe('name → a literal value in the recorded inputs; every occurrence becomes {{name}} with the literal as default'),
      sandbox_profile: z.enum(SANDBOX_PROFILES).default('default').describe('the sandbox profile command steps run under'),
      max_attempts: z.number().int().min(1).max(5).default(1).describe('attempts per command step before it counts as failed'),
      note: Note,
    }),
    output: z.object({
      playbook_id: z.string(),
      version: z.number().int(),
      created: z.boolean(),
      latest_version: z.number().int(),
      playbook: PlaybookRecord,
      skipped_steps: z.array(z.object({ step_index: z.number().int(), reason: z.string() })),
    }),
    errors: ['not_found', 'invalid_state', 'conflict', 'validation_failed'],
  }),
  'replay.playbooks.get': route({
    name: 'replay.playbooks.get',
    path: '/v1/memory/replay/playbooks/get',
    summary: 'One version of a playbook (default latest) with the list of its versions and which one is active.',
    input: z.object({ ...identityFields, playbook_id: CallerId, ...versionField }).transform(withVersion),
    output: z.object({
      playbook: PlaybookRecord,
      active_version: z.number().int().nullable(),
      latest_version: z.number().int(),
      versions: z.array(z.object({ version: z.number().int(), status: PlaybookStatus, repair_of: z.number().int().nullable(), created_at: Timestamp })),
    }),
    errors: ['not_found'],
  }),
  'replay.playbooks.list': route({
    name: 'replay.playbooks.list',
    path: '/v1/memory/replay/playbooks/list',
    summary: 'Playbooks of the scope in playbook_id order: each with its latest version, that version’s status and name, and which version is active; cursor pagination.',
    input: z.object({ ...identityFields, ...pageInputFields }),
    output: z.object({
      playbooks: z.array(
        z.object({
          playbook_id: z.string(),
          name: z.string(),
          latest_version: z.number().int(),
          status: PlaybookStatus.describe('of the latest version'),
          active_version: z.number().int().nullable(),
          created_at: Timestamp.describe('of the latest version'),
          updated_at: Timestamp.describe('of the latest version'),
        }),
      ),
      ...pageOutputFields,
    }),
  }),
  'replay.playbooks.candidate': route({
    name: 'replay.playbooks.candidate',
    path: '/v1/memory/replay/playbooks/candidate',
    summary: 'Readiness of a version (default latest) for shadow and active, with every check and the reason it fails.',
    input: z.object({ ...identityFields, playbook_id: CallerId, ...versionField, params: Params.optional() }).transform(withVersion),
    output: z.object({
      playbook_id: z.string(),
      version: z.number().int(),
      status: PlaybookStatus,
      active_version: z.number().int().nullable(),
      ready: z.boolean().describe('ready for active'),
      ready_for: fieldsOf(READINESS_TARGETS, () => z.boolean()),
      recommended_status: PlaybookStatus,
      checks: z.array(z.object({ name: z.string(), passed: z.boolean(), required_for: z.array(z.enum(READINESS_TARGETS)), detail: z.string() })),
      reasons: z.array(z.string()),
    }),
    errors: ['not_found'],
  }),
  'replay.playbooks.promote': route({
    name: 'replay.playbooks.promote',
    path: '/v1/memory/replay/playbooks/promote',
    summary: 'Set the status of one version (default latest) without creating a version. At most one version is active; the previous one becomes shadow.',
    input: z.object({ ...identityFields, playbook_id: CallerId, ...versionField, target_status: PromoteTarget, note: Note }).transform(withVersion),
    output: z.object(StatusAnswer),
    errors: ['not_found', 'invalid_state', 'conflict'],
  }),
  'replay.playbooks.repair': route({
    name: 'replay.playbooks.repair',
    path: '/v1/memory/replay/playbooks/repair',
    summary:
      'Patch a version (default latest) into a new draft version with repair_of: step operations replace|insert|remove (or step_patches, or a whole steps_override) and parameter changes. An unknown key anywhere in the patch is validation_failed.',
    input: z
      .object({
        ...identityFields,
        playbook_id: CallerId,
        ...versionField,
        patch: z
          .strictObject({
            steps: z.array(z.unknown()).max(500).optional().describe('[{op: replace|insert|remove, step_index, step?}] (docs/replay.md, Repair)'),
            step_patches: z
              .array(z.unknown())
              .max(500)
              .optional()
              .describe(
                '[{step_index, set: {tool_name?, tool_input? (or tool_input_template), expected_output_signature?, max_attempts?, retry_policy? {max_retries?, backoff_ms?}, backoff_ms?}}]: a replace of each named step',
              ),
            steps_override: z
              .array(z.unknown())
              .max(500)
              .optional()
              .describe("[{tool_name, tool_input (or tool_input_template), expected_output_signature?, max_attempts? or retry_policy?}]: the new version's whole step list"),
            remove_step_indices: z.array(z.number().int().min(0)).max(500).optional().describe('steps to remove, by step_index (a remove operation each)'),
            parameters: z.unknown().optional().describe('{set: [{name, default}], remove: [name]}'),
            name: z.string().min(1).max(200).optional(),
            sandbox_profile: z.enum(SANDBOX_PROFILES).optional(),
          })
          .superRefine((v, ctx) => {
            const bytes = Buffer.byteLength(JSON.stringify(v), 'utf8');
            if (bytes > 1024 * 1024) ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes of JSON; the limit is 1 MiB`, params: { lore: TOO_LARGE } });
          }),
        note: Note,
      })
      .transform(withVersion),
    output: z.object({ playbook_id: z.string(), version: z.number().int(), repair_of: z.number().int(), playbook: PlaybookRecord }),
    errors: ['not_found', 'conflict', 'validation_failed'],
  }),
  'replay.playbooks.repairReview': route({
    name: 'replay.playbooks.repairReview',
    path: '/v1/memory/replay/playbooks/repair/review',
    summary: 'Approve (→ target_status_on_approve, default shadow; optional shadow validation) or reject (→ rejected) a repaired draft version.',
    input: z
      .object({
        ...identityFields,
        playbook_id: CallerId,
        ...versionField,
        action: z.enum(REVIEW_ACTIONS, { error: "action must be 'approve' or 'reject'" }),
        note: Note,
        auto_shadow_validate: z.boolean().default(false),
        shadow_validation_mode: z
          .enum(SHADOW_MODE_INPUTS, { error: "shadow_validation_mode must be 'execute_sandbox' or 'dry_run'" })
          .default('execute_sandbox')
          .transform((m) => (m === 'execute' ? 'execute_sandbox' : m === 'readiness' ? 'dry_run' : m))
          .describe('execute_sandbox runs the steps in the sandbox (alias execute); dry_run checks them statically (alias readiness)'),
        shadow_validation_params: Params.optional(),
        workspace: WorkspaceInput.optional().describe('execute_sandbox: the project the validation’s command steps see copy-on-write'),
        target_status_on_approve: PromoteTarget.default('shadow'),
        wait_ms: z
          .number()
          .int()
          .min(1000)
          .max(900_000)
          .default(300_000)
          .describe('how long to wait for an execute_sandbox validation; past it the result is recorded when it ends'),
      })
      .transform(withVersion),
    output: z.object({
      ...StatusAnswer,
      action: z.enum(REVIEW_ACTIONS),
      shadow_validation: ShadowValidation.nullable(),
      activation_blocked: z.string().nullable().describe('approve to active with a validation that did not pass: the version became shadow instead'),
    }),
    errors: ['not_found', 'invalid_state', 'conflict', 'sandbox_disabled'],
  }),
  'replay.playbooks.run': route({
    name: 'replay.playbooks.run',
    path: '/v1/memory/replay/playbooks/run',
    summary: 'Execute a playbook version (default the active one) now as a Temporal workflow and wait for it: simulate (nothing runs), strict or guided.',
    input: z.object({
      ...runFields,
      mode: RunModes.default('strict'),
      wait_ms: z.number().int().min(1000).max(900_000).default(300_000).describe('how long to wait; past it the run goes on and completed is false'),
    }),
    output: RunAnswer,
    errors: ['not_found', 'invalid_state', 'conflict', 'validation_failed', 'sandbox_disabled'],
  }),
  'replay.playbooks.dispatch': route({
    name: 'replay.playbooks.dispatch',
    path: '/v1/memory/replay/playbooks/dispatch',
    summary: 'Start the same playbook-run workflow and return at once with its run id (poll replay/runs/get; watch it in the Temporal UI).',
    input: z.object({
      ...runFields,
      mode: RunModes.optional(),
      fallback_mode: RunModes.optional().describe('alias of mode'),
    }),
    output: RunAnswer.omit({ completed: true, summary: true, steps: true }).extend({
      dispatched: z.boolean().describe('false for simulate, or when the run_id named an existing run'),
      completed: z.boolean().optional(),
      summary: z.string().optional(),
      steps: z.array(StepResult).optional(),
    }),
    errors: ['not_found', 'invalid_state', 'conflict', 'validation_failed', 'sandbox_disabled'],
  }),
  'replay.playbooks.completeStep': route({
    name: 'replay.playbooks.completeStep',
    path: '/v1/memory/replay/playbooks/runs/steps/complete',
    summary:
      'Report the result of the host step a guided playbook run waits for (its pending_step). Lore judges it against the expected signature and the run goes on. Waits up to wait_ms for the run to need the host again or end.',
    input: z.object({
      ...identityFields,
      run_id: CallerId,
      step_index: StepIndex,
      status: z.enum(HOST_REPORT_STATUS_INPUTS, { error: "status must be 'success' or 'failed'" }).transform((s) => (s === 'failure' ? 'failed' : s)),
      output_signature: HostSignatureIn.optional(),
      error: BoundedText(8192).optional().describe('what went wrong, when status is failed'),
      wait_ms: z
        .number()
        .int()
        .min(0)
        .max(900_000)
        .default(30_000)
        .describe('how long to wait for the run to reach its next host step or end; 0 answers once the report is accepted'),
    }),
    output: z.object({
      run_id: z.string(),
      step_index: z.number().int(),
      accepted: z.literal(true),
      step: StepRecord.describe('the step as judged (or still pending when the wait ran out)'),
      completed: z.boolean().describe('the run has ended'),
      pending_step: PendingStep.nullable().describe('the next host step the run waits for'),
      message: z.string().optional(),
      run: RunRecord,
    }),
    errors: ['not_found', 'invalid_state'],
  }),
} as const;
