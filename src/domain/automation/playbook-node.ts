import { PLAYBOOK_RUN_WORKFLOW, playbookRunWorkflowId, type PlaybookRunInput, type PlaybookRunResult } from '../replay/workflow-types';
import type { GraphNode } from '../../model/automation/graph';

/**
 * The seam between an automation's playbook nodes and the replay family's playbook-run workflow
 * (issue 8, contract in src/domain/replay/workflow-types.ts and docs/replay.md). A playbook node
 * runs that workflow as a Temporal child; this file is the only place that knows its name, its
 * input and its result. Pure: the workflow bundle imports it.
 */

export { PLAYBOOK_RUN_WORKFLOW };

export interface PlaybookNodeContext {
  tenant_id: string;
  scope: string;
  actor: string;
  automation_id: string;
  automation_run_id: string;
  /** A fresh uuid from the workflow (deterministic on replay): the replay run's server key. */
  run_key: string;
}

/** Replay run ids are caller ids (≤ 200 chars): `<automation run id>:<node id>`, or by key when that is too long. */
export function playbookReplayRunId(ctx: PlaybookNodeContext, nodeId: string): string {
  const readable = `${ctx.automation_run_id}:${nodeId}`;
  return readable.length <= 200 ? readable : `${ctx.run_key}:${nodeId}`;
}

export function playbookChildWorkflowId(ctx: PlaybookNodeContext): string {
  return playbookRunWorkflowId(ctx.run_key);
}

/** The replay run key of a playbook node's child workflow id (null for anything else). */
export function runKeyOfChild(childWorkflowId: string | null): string | null {
  const prefix = playbookRunWorkflowId('');
  return childWorkflowId && childWorkflowId.startsWith(prefix) ? childWorkflowId.slice(prefix.length) : null;
}

/** The child workflow's input for one playbook node: its mode (strict unless guided), the node's resolved inputs as parameters. */
export function playbookRunInput(ctx: PlaybookNodeContext, node: GraphNode, inputs: Record<string, unknown>): PlaybookRunInput {
  return {
    tenant_id: ctx.tenant_id,
    scope: ctx.scope,
    actor: ctx.actor,
    run_key: ctx.run_key,
    run_id: playbookReplayRunId(ctx, node.node_id),
    playbook_id: node.playbook_id!,
    version: node.version ?? null,
    mode: node.mode ?? 'strict',
    params: inputs,
    purpose: 'automation',
    metadata: { automation_id: ctx.automation_id, automation_run_id: ctx.automation_run_id, node_id: node.node_id },
  };
}

export interface PlaybookNodeOutcome {
  ok: boolean;
  /** The node's output: what `$nodes.<node_id>.<path>` reads (the playbook run result plus sandbox_run_ids). */
  output: Record<string, unknown>;
  /** Sandbox runs the playbook's command steps used, in step order (artifact gates look there). */
  sandbox_run_ids: string[];
  error: { code: string; message: string } | null;
}

export function playbookNodeOutcome(result: PlaybookRunResult): PlaybookNodeOutcome {
  const ids = (result.steps ?? []).map((s) => s.sandbox_run_id).filter((x): x is string => typeof x === 'string' && x !== '');
  const ok = result.status === 'success';
  return {
    ok,
    output: { ...result, sandbox_run_ids: ids },
    sandbox_run_ids: ids,
    error: ok ? null : { code: `playbook_${result.status}`, message: result.summary || `the playbook run ended ${result.status}` },
  };
}
