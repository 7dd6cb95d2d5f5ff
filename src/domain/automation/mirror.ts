import { SETTLED_NODE, isTerminalRun } from '../../model/automation/graph';
import { nodeDocId } from '../../model/automation/records';
import type { MirrorInput } from './run-types';

/** Node outputs larger than this (as JSON) are stored as a preview; the workflow still has them whole. */
export const MAX_STORED_OUTPUT_BYTES = 256 * 1024;
const PREVIEW_CHARS = 4096;

function capOutput(output: unknown): { output: unknown; output_truncated: boolean } {
  const json = JSON.stringify(output ?? null);
  if (Buffer.byteLength(json) <= MAX_STORED_OUTPUT_BYTES) return { output: output ?? null, output_truncated: false };
  return { output: { preview: json.slice(0, PREVIEW_CHARS), bytes: Buffer.byteLength(json) }, output_truncated: true };
}

/**
 * The store updates for one mirror write. Timestamps are the writer's clock at write time
 * (workflow code has no wall clock); approval fields are set one by one so that the time the
 * approval was requested survives the later write of who resumed it.
 */
export function mirrorPatches(input: MirrorInput, now: string) {
  const run: Record<string, unknown> = {
    status: input.run.status,
    paused_nodes: input.run.paused_nodes,
    node_counts: input.run.node_counts,
    resumes: input.run.resumes,
    error: input.run.error,
    reason: input.run.reason,
    replay_run_id: input.run.replay_run_id,
    updated_at: now,
  };
  if (input.seq === 1) run.started_at = now;
  if (isTerminalRun(input.run.status)) run.finished_at = now;

  const nodes = input.nodes.map((c) => {
    const patch: Record<string, unknown> = { state: c.state, updated_at: now };
    if (c.started) patch.started_at = now;
    if (SETTLED_NODE.includes(c.state)) patch.finished_at = now;
    if (c.inputs !== undefined) patch.inputs = c.inputs;
    if (c.output !== undefined) Object.assign(patch, capOutput(c.output));
    if (c.error !== undefined) patch.error = c.error;
    if (c.skip_reason !== undefined) patch.skip_reason = c.skip_reason;
    if (c.child_workflow_id !== undefined) patch.child_workflow_id = c.child_workflow_id;
    if (c.approval_requested) patch['approval.requested_at'] = now;
    if (c.approval_expires_at !== undefined) patch['approval.expires_at'] = c.approval_expires_at;
    if (c.approval) {
      patch['approval.resumed_at'] = c.approval.resumed_at;
      patch['approval.resumed_by'] = c.approval.resumed_by;
      patch['approval.reason'] = c.approval.reason;
      // Written by workflows since approvals could be rejected and time out; older ones leave them out.
      for (const k of ['decision', 'decided_by', 'decided_at', 'timed_out'] as const) {
        if (c.approval[k] !== undefined) patch[`approval.${k}`] = c.approval[k];
      }
    }
    return { _id: nodeDocId(input.run_key, c.node_id), patch };
  });
  return { run, nodes };
}
