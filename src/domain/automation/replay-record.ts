import type { GraphNode, NodeState, RunStatus } from '../../model/automation/graph';

/**
 * record_run: an automation run recorded as a replay run (docs/automation.md, "Recording a run").
 * Each node that started becomes one step, in the order the nodes started; the run ends with the
 * automation's outcome. Pure: the workflow builds these; activities write them through the
 * replay family's recorded-run operations (run/start, step/before, step/after, run/end), which
 * are idempotent, so a retried activity changes nothing.
 */

export interface ReplayStepRecord {
  step_index: number;
  tool_name: string;
  tool_input: Record<string, unknown>;
  status: 'success' | 'failed' | 'skipped';
  output_signature: { kind: string; summary: string };
  error: string | null;
}

export interface ReplayRecordStart {
  tenant_id: string;
  scope: string;
  actor: string;
  replay_run_id: string;
  goal: string;
  metadata: Record<string, unknown>;
}

export interface ReplayRecordFinish {
  tenant_id: string;
  scope: string;
  actor: string;
  replay_run_id: string;
  steps: ReplayStepRecord[];
  status: 'success' | 'failure' | 'cancelled';
  summary: string;
}

const SUMMARY_CHARS = 2000;

export function replayRunIdFor(runId: string, runKey: string): string {
  const readable = `automation-${runId}`;
  return readable.length <= 200 ? readable : `automation-${runKey}`;
}

export function replayStepOf(index: number, node: GraphNode, state: NodeState, inputs: unknown, output: unknown, error: string | null): ReplayStepRecord {
  const spec: Record<string, unknown> = { node_id: node.node_id, kind: node.kind, inputs: inputs ?? {} };
  if (node.playbook_id) Object.assign(spec, { playbook_id: node.playbook_id, version: node.version });
  if (node.approval_key) spec.approval_key = node.approval_key;
  if (node.condition) spec.condition = node.condition;
  if (node.artifacts) spec.artifacts = node.artifacts;
  const text = output === undefined ? (error ?? state) : JSON.stringify(output);
  return {
    step_index: index,
    tool_name: `automation.${node.kind}`,
    tool_input: spec,
    status: state === 'succeeded' ? 'success' : state === 'failed' ? 'failed' : 'skipped',
    output_signature: { kind: `automation_${node.kind}`, summary: text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text },
    error: state === 'succeeded' ? null : (error ?? state),
  };
}

export const replayStatusOf = (s: RunStatus): ReplayRecordFinish['status'] => (s === 'succeeded' ? 'success' : s === 'cancelled' ? 'cancelled' : 'failure');
