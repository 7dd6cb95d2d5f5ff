import { z } from 'zod';
import { BoundedText, CallerId, TOO_LARGE, Timestamp, identityFields, pageInputFields, pageOutputFields, waitInputFields, waitOutputFields } from '../common';
import { route } from '../route';
import {
  AUTOMATION_EDGE_TYPES,
  AUTOMATION_NODE_KINDS,
  AUTOMATION_RUN_STATUSES,
  CONDITION_OPS,
  NODE_STATES,
  ON_TIMEOUT_ACTIONS,
  PLAYBOOK_NODE_MODES,
} from '../../model/automation/graph';
import { APPROVAL_DECISIONS, DEFINITION_CREATE_STATUSES, DEFINITION_SET_STATUSES, DEFINITION_STATUSES, EXECUTION_MODES } from '../../model/automation/records';

/**
 * Automation routes (interface spec "Automation", contract.md §7). The graph format, reference
 * syntax, condition semantics, states and restart behaviour are documented in docs/automation.md.
 *
 * The graph is parsed leniently here (an object with arrays of nodes and edges) and checked by
 * the graph validator (src/domain/automation/validate-graph.ts), so that every problem inside it
 * is reported at once: validate answers 200 {valid, issues}; create and run answer 422
 * validation_failed with the same issues.
 */

/** contract.md §1: ≤ 200 graph nodes. Edges: a dense-enough DAG of 200 nodes. */
export const MAX_GRAPH_NODES = 200;
export const MAX_GRAPH_EDGES = 2000;

const capped = (max: number, what: string) =>
  z.array(z.unknown()).superRefine((items, ctx) => {
    if (items.length > max) {
      ctx.addIssue({ code: 'custom', message: `has ${items.length} ${what}; the limit is ${max}`, params: { lore: TOO_LARGE } });
    }
  });

/**
 * What a request may send: checked item by item by the graph validator, which also reports every
 * key it does not know (a graph is closed; docs/automation.md), so the object is loose here.
 */
export const GraphInput = z.looseObject({
  nodes: capped(MAX_GRAPH_NODES, 'nodes').describe(
    'graph nodes: {node_id, kind, name?, playbook_id?, version?, mode?, approval_key?, inputs?, condition? (or expression), artifacts?}',
  ),
  edges: capped(MAX_GRAPH_EDGES, 'edges').default([]).describe('graph edges: {from, to, type: on_success (default) | on_false}'),
});

const Issue = z.object({ path: z.string(), message: z.string() });

/** A node as stored: only the fields Lore understands (unknown fields are accepted and dropped). */
export const GraphNode = z.object({
  node_id: z.string(),
  kind: z.enum(AUTOMATION_NODE_KINDS),
  name: z.string().optional(),
  playbook_id: z.string().optional(),
  version: z.number().int().optional(),
  mode: z.enum(PLAYBOOK_NODE_MODES).optional().describe('playbook nodes: guided waits for the host at host steps (absent: strict)'),
  approval_key: z.string().optional(),
  timeout: z.union([z.string(), z.number()]).optional().describe('approval nodes: the deadline for a decision, as given (ISO-8601 duration or seconds)'),
  timeout_ms: z.number().int().optional().describe('the timeout in milliseconds'),
  on_timeout: z.enum(ON_TIMEOUT_ACTIONS).optional().describe('what the deadline does: reject (a rejection by lore) or fail (the node fails approval_timeout)'),
  inputs: z.record(z.string(), z.unknown()),
  condition: z.object({ left: z.unknown(), op: z.enum(CONDITION_OPS), right: z.unknown().optional() }).optional(),
  artifacts: z.array(z.object({ path: z.string(), from_node: z.string().optional() })).optional(),
});
export const GraphEdge = z.object({ from: z.string(), to: z.string(), type: z.enum(AUTOMATION_EDGE_TYPES) });
export const Graph = z.object({ nodes: z.array(GraphNode), edges: z.array(GraphEdge) });

const StatusChange = z.object({ from: z.enum(DEFINITION_STATUSES).nullable(), to: z.enum(DEFINITION_STATUSES), actor: z.string(), reason: z.string().nullable(), at: Timestamp });

export const Definition = z.object({
  automation_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(DEFINITION_STATUSES),
  graph: Graph.optional().describe('omitted by list unless include_graph is true'),
  node_count: z.number().int(),
  edge_count: z.number().int(),
  content_hash: z.string().describe('sha256 of the normalised name, description and graph: same id with another hash is a conflict'),
  status_history: z.array(StatusChange),
  actor: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** Run options are closed: an unknown option is validation_failed, never silently ignored. */
const RunOptions = z.strictObject({
  execution_mode: z.enum(EXECUTION_MODES, { error: "execution_mode must be 'default'" }).default('default'),
  record_run: z.boolean().default(false).describe('also record the execution as a replay run (docs/automation.md)'),
  stop_on_failure: z.boolean().default(true).describe('true: the first failed node stops the run; false: independent branches go on'),
});

const NodeError = z.object({ code: z.string(), message: z.string() });

const HostWait = z.object({
  node_id: z.string(),
  replay_run_id: z.string().describe('the playbook run: replay/runs/get shows its pending_step; report it with replay/playbooks/runs/steps/complete'),
  step_index: z.number().int(),
  tool_name: z.string(),
  waiting_since: Timestamp,
  reported: z.boolean(),
});

export const RunNode = z.object({
  node_id: z.string(),
  kind: z.enum(AUTOMATION_NODE_KINDS),
  state: z.enum(NODE_STATES),
  inputs: z.record(z.string(), z.unknown()).nullable().describe('inputs with references resolved, once the node started'),
  output: z.unknown().describe('what the node produced (null until it succeeded); read by $nodes.<node_id>.<path>'),
  output_truncated: z.boolean(),
  error: NodeError.nullable(),
  skip_reason: z.string().nullable(),
  approval: z
    .object({
      approval_key: z.string(),
      requested_at: Timestamp.nullable(),
      expires_at: Timestamp.nullable().describe('when the timeout ends the wait (null: no timeout)'),
      decision: z.enum(APPROVAL_DECISIONS).nullable().describe('null while waiting, or when the timeout failed the node (on_timeout: fail)'),
      decided_by: z.string().nullable().describe('the actor of the runs/resume that decided, or "lore" when the timeout rejected'),
      decided_at: Timestamp.nullable(),
      timed_out: z.boolean().describe('the deadline passed without a decision'),
      resumed_at: Timestamp.nullable().describe('when a runs/resume decided it (approve or reject)'),
      resumed_by: z.string().nullable(),
      reason: z.string().nullable(),
    })
    .nullable(),
  child_workflow_id: z.string().nullable().describe('the playbook run workflow of a playbook node'),
  host_step: HostWait.nullable().optional().describe('a guided playbook node: the host step its run waits for'),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  updated_at: Timestamp,
});

export const RunRecord = z.object({
  run_id: z.string(),
  automation_id: z.string(),
  automation_name: z.string(),
  automation_hash: z.string(),
  status: z.enum(AUTOMATION_RUN_STATUSES),
  options: z.object({ execution_mode: z.enum(EXECUTION_MODES), record_run: z.boolean(), stop_on_failure: z.boolean() }),
  reason: z.string().nullable().describe('how the run ended, in words'),
  error: z.object({ node_id: z.string().nullable(), code: z.string(), message: z.string() }).nullable(),
  paused_nodes: z.array(z.string()).describe('approval nodes waiting for runs/resume'),
  node_counts: z.record(z.enum(NODE_STATES), z.number().int()),
  resumes: z
    .array(
      z.object({
        resume_id: z.string(),
        node_ids: z.array(z.string()),
        decision: z.enum(APPROVAL_DECISIONS),
        reason: z.string().nullable(),
        actor: z.string(),
        at: Timestamp,
        timed_out: z.boolean().describe('a rejection made by the approval timeout (actor "lore"), not by a runs/resume'),
      }),
    )
    .describe('every approval decision, in the order the run took them'),
  cancel_requested: z.boolean(),
  cancel_reason: z.string().nullable(),
  replay_run_id: z.string().nullable().describe('the replay run recording this execution (record_run)'),
  workflow_id: z.string().describe('the Temporal workflow of this run (search LoreRunKind = "automation")'),
  temporal_ui_url: z.string().nullable().describe("the workflow's page in the Temporal UI (null when Lore does not know the UI's address: LORE_TEMPORAL_UI_URL)"),
  actor: z.string(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  updated_at: Timestamp,
  waiting_for_host: z.array(HostWait).optional().describe('runs/get: guided playbook nodes whose run waits for the host at a host step'),
  nodes: z.array(RunNode).optional().describe('per-node details, in graph order (include_nodes)'),
});
export type RunRecordWire = z.infer<typeof RunRecord>;
export type RunNodeWire = z.infer<typeof RunNode>;
export type DefinitionWire = z.infer<typeof Definition>;

const validateRoute = (name: string, path: string, summary: string) =>
  route({
    name,
    path,
    summary,
    input: z.object({ ...identityFields, graph: GraphInput }),
    output: z.object({
      valid: z.boolean(),
      issues: z.array(Issue).describe('every problem found, each with the path of the offending field'),
      node_count: z.number().int(),
      edge_count: z.number().int(),
      order: z.array(z.string()).nullable().describe('a topological order of the nodes (null when the graph has a cycle)'),
    }),
  });

const runRef = { ...identityFields, run_id: CallerId };

export const automationRoutes = {
  'automations.validate': validateRoute(
    'automations.validate',
    '/v1/automations/validate',
    'Check a graph without storing it: every problem (cycles, unknown kinds, edges to unknown nodes, duplicate ids, missing fields, references to nodes that are not upstream) is listed. Answers 200 with valid and issues.',
  ),
  'automations.validateGraph': validateRoute('automations.validateGraph', '/v1/automations/graph/validate', 'Same as /v1/automations/validate (alternate entry).'),
  'automations.create': route({
    name: 'automations.create',
    path: '/v1/automations/create',
    summary:
      'Store an automation definition (status draft). The same automation_id with the same content returns the stored one; with other content it is a conflict. An invalid graph is validation_failed with every issue.',
    input: z.object({
      ...identityFields,
      automation_id: CallerId,
      name: z.string().min(1).max(200).optional().describe('defaults to automation_id'),
      description: BoundedText(8192).optional(),
      status: z.enum(DEFINITION_CREATE_STATUSES, { error: "automations are created as 'draft'; activate with /v1/automations/status" }).default('draft'),
      graph: GraphInput,
    }),
    output: z.object({ automation_id: z.string(), created: z.boolean(), automation: Definition }),
    errors: ['conflict', 'validation_failed'],
  }),
  'automations.get': route({
    name: 'automations.get',
    path: '/v1/automations/get',
    summary: 'One automation definition with its graph.',
    input: z.object({ ...identityFields, automation_id: CallerId }),
    output: z.object({ automation: Definition }),
    errors: ['not_found'],
  }),
  'automations.list': route({
    name: 'automations.list',
    path: '/v1/automations/list',
    summary: 'Automation definitions of the scope in creation order, optionally by status, with cursor pagination.',
    input: z.object({
      ...identityFields,
      ...pageInputFields,
      status: z.enum(DEFINITION_STATUSES).optional(),
      include_graph: z.boolean().default(false),
    }),
    output: z.object({ automations: z.array(Definition), ...pageOutputFields }),
  }),
  'automations.setStatus': route({
    name: 'automations.setStatus',
    path: '/v1/automations/status',
    summary: 'Move a definition draft → active | disabled, active ↔ disabled. The same status again is a no-op; back to draft is invalid_state.',
    input: z.object({
      ...identityFields,
      automation_id: CallerId,
      status: z.enum(DEFINITION_SET_STATUSES, { error: "status must be 'active' or 'disabled'" }),
      reason: BoundedText(4096).optional(),
    }),
    output: z.object({ automation: Definition, changed: z.boolean() }),
    errors: ['not_found', 'invalid_state'],
  }),
  'automations.run': route({
    name: 'automations.run',
    path: '/v1/automations/run',
    summary: 'Start a run of a draft or active automation as one Temporal workflow and return at once with its run_id (status queued). A disabled automation is invalid_state.',
    input: z.object({
      ...identityFields,
      automation_id: CallerId,
      run_id: CallerId.optional().describe('chosen by the caller; the same id with the same automation and options returns the existing run'),
      options: RunOptions.default({ execution_mode: 'default', record_run: false, stop_on_failure: true }),
    }),
    output: z.object({ run_id: z.string(), created: z.boolean(), run: RunRecord }),
    errors: ['not_found', 'conflict', 'invalid_state', 'validation_failed'],
  }),
  'automations.runs.get': route({
    name: 'automations.runs.get',
    path: '/v1/automations/runs/get',
    summary:
      'One run from the store: status, timestamps, error, paused approvals and, with include_nodes, every node with its state, inputs, output and error. With wait_ms (at most 30 s), answers as soon as `until` holds (not_queued, paused_or_done, done, or a change since a version), or with the current state at the deadline.',
    input: z.object({ ...runRef, include_nodes: z.boolean().default(false), ...waitInputFields }),
    output: z.object({ run: RunRecord, ...waitOutputFields }),
    errors: ['not_found'],
  }),
  'automations.runs.list': route({
    name: 'automations.runs.list',
    path: '/v1/automations/runs/list',
    summary: 'Runs of the scope, newest first, optionally by automation_id (an automation that does not exist is not_found) and status, with cursor pagination.',
    input: z.object({
      ...identityFields,
      ...pageInputFields,
      automation_id: CallerId.optional(),
      status: z.union([z.enum(AUTOMATION_RUN_STATUSES), z.array(z.enum(AUTOMATION_RUN_STATUSES)).min(1).max(AUTOMATION_RUN_STATUSES.length)]).optional(),
    }),
    output: z.object({ runs: z.array(RunRecord), ...pageOutputFields }),
    errors: ['not_found'],
  }),
  'automations.runs.cancel': route({
    name: 'automations.runs.cancel',
    path: '/v1/automations/runs/cancel',
    summary: 'Cancel a queued, running or paused run: its workflow is cancelled, in-flight playbook and sandbox work with it. A finished run is invalid_state.',
    input: z.object({ ...runRef, reason: BoundedText(4096).optional() }),
    output: z.object({ run: RunRecord, message: z.string().optional() }),
    errors: ['not_found', 'invalid_state'],
  }),
  'automations.runs.resume': route({
    name: 'automations.runs.resume',
    path: '/v1/automations/runs/resume',
    summary:
      'Decide the approval nodes a paused run waits at (all of them, or the one named by node_id or approval_key): approve (default) or reject, with an optional reason; who, when and why are recorded. A rejection fails the node (approval_rejected) and follows stop_on_failure. A run that is not paused is invalid_state.',
    input: z.object({
      ...runRef,
      decision: z.enum(APPROVAL_DECISIONS, { error: "decision must be 'approve' or 'reject'" }).default('approve'),
      reason: BoundedText(4096)
        .refine((s) => s.trim().length > 0, 'reason must not be empty when given')
        .optional(),
      node_id: z.string().min(1).max(100).optional(),
      approval_key: CallerId.optional(),
    }),
    output: z.object({ run: RunRecord, resumed_node_ids: z.array(z.string()), decision: z.enum(APPROVAL_DECISIONS), message: z.string().optional() }),
    errors: ['not_found', 'invalid_state'],
  }),
} as const;
