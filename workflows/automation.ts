/**
 * Workflows of the automation family (deterministic code only).
 *
 * One workflow per automation run (docs/automation.md). It schedules the graph's nodes as their
 * inputs become ready (independent branches run concurrently), resolves `$nodes.<id>.<path>`
 * references from upstream outputs, waits at approval nodes for the resume signal, evaluates
 * conditions itself, checks artifact gates and runs playbook nodes as child workflows through
 * activities and children. Every transition is mirrored into MongoDB by one serial,
 * non-cancellable writer (activity automationMirror), so the API answers from the store.
 * Restarts: Temporal replays this code from history; completed activities and children are not
 * repeated. Behaviour changes for running histories go behind patched().
 */
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  condition,
  defineQuery,
  defineSignal,
  executeChild,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  uuid4,
} from '@temporalio/workflow';
import type { AutomationActivities } from '../activities/automation';
import { evaluateCondition } from '../src/domain/automation/condition';
import { ancestorsOf, type GraphNode, type NodeState } from '../src/model/automation/graph';
import { PLAYBOOK_RUN_WORKFLOW, playbookChildWorkflowId, playbookNodeOutcome, playbookRunInput } from '../src/domain/automation/playbook-node';
import type { PlaybookRunInput, PlaybookRunResult } from '../src/domain/replay/workflow-types';
import type { ApprovalInfo, ResumeRecord } from '../src/model/automation/records';
import { readiness } from '../src/domain/automation/readiness';
import { resolveValue } from '../src/domain/automation/references';
import { replayRunIdFor, replayStatusOf, replayStepOf } from '../src/domain/automation/replay-record';
import { RunState } from '../src/domain/automation/run-state';
import { RESUME_SIGNAL, STATE_QUERY, type AutomationRunInput, type AutomationRunResult, type ResumeSignal } from '../src/domain/automation/run-types';
import { PATCHES } from './patches';
import * as replayWorkflows from './replay';
import { SA } from '../src/model/search-attributes';

/**
 * Whether this worker runs the replay family's playbook-run workflow (workflows/index.ts exports
 * both families, so an export of ./replay is registered). Without it a child would never be picked
 * up; the node fails at once instead, saying why.
 */
const PLAYBOOK_WORKFLOW_REGISTERED = typeof (replayWorkflows as Record<string, unknown>)[PLAYBOOK_RUN_WORKFLOW] === 'function';

export const automationResumeSignal = defineSignal<[ResumeSignal]>(RESUME_SIGNAL);
export const automationStateQuery = defineQuery<{ status: string; nodes: { node_id: string; state: NodeState }[]; waiting: string[] }>(STATE_QUERY);

// Mirror writes are idempotent (seq-guarded): retry through MongoDB outages for as long as it takes.
const mirror = proxyActivities<AutomationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});
// Recording a replay run: idempotent writes; a few attempts, then the run says recording failed.
const recorder = proxyActivities<AutomationActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
});
// An artifact check only reads; a few attempts ride out a hiccup, then the gate fails with the cause.
const checks = proxyActivities<AutomationActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/** The actor recorded when an approval's timeout decides instead of a person. */
const TIMEOUT_ACTOR = 'lore';

/** A node failure with the code and message the run record shows. */
class NodeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly output?: unknown,
    /** An approval node's decision (a rejection, a timeout), recorded with the failure. */
    readonly approval?: ApprovalInfo,
  ) {
    super(message);
  }
}

interface Waiting {
  approval_key: string;
  since: string;
  expires_at: string | null;
  on_timeout: string | null;
}

/** The innermost message of a Temporal failure chain (the cause a person wants to read). */
function causeOf(err: unknown): { code: string; message: string } {
  if (err instanceof NodeFailure) return { code: err.code, message: err.message };
  let cur: unknown = err;
  let last: { code: string; message: string } = { code: 'failed', message: String((err as Error)?.message ?? err) };
  for (let i = 0; cur && i < 10; i++) {
    if (cur instanceof ApplicationFailure) last = { code: cur.type ?? 'failed', message: cur.message };
    cur = (cur as { cause?: unknown }).cause;
  }
  return last;
}

export async function automationRunWorkflow(input: AutomationRunInput): Promise<AutomationRunResult> {
  const st = new RunState(input.graph);
  const root = CancellationScope.current();
  const byId = new Map(input.graph.nodes.map((n) => [n.node_id, n]));
  const scopes = new Map<string, CancellationScope>();
  const tasks = new Map<string, Promise<void>>();
  const waiting = new Set<string>();
  // What each waiting approval waits for: the run's current details and memo show it in the Temporal UI.
  const waitingFor = new Map<string, Waiting>();
  const approvals = new Map<string, ResumeSignal>();
  const seenResumes = new Set<string>();
  const sandboxRuns = new Map<string, string[]>();
  let stoppedBy: string | null = null;
  // For record_run: the nodes in the order they started, with their resolved inputs and errors.
  const started: string[] = [];
  const nodeInputs = new Map<string, Record<string, unknown>>();
  const nodeErrors = new Map<string, { message: string; output?: unknown }>();
  let recordProblem: string | null = null;

  setHandler(automationResumeSignal, (s) => {
    if (seenResumes.has(s.resume_id)) return;
    seenResumes.add(s.resume_id);
    const hit = s.node_ids.filter((id) => waiting.has(id) && !approvals.has(id));
    if (hit.length === 0) return;
    for (const id of hit) approvals.set(id, s);
    st.resumes.push({ resume_id: s.resume_id, node_ids: hit, decision: s.decision ?? 'approve', reason: s.reason, actor: s.actor, at: s.at });
    st.touch();
  });

  /**
   * What the Temporal UI shows about the run beyond its static summary: the current details (a
   * query, no history event) and the memo (a history event, so behind a patch: runs that reached
   * this point with older code did not write it). Both say which approval waits for what, and who
   * decided what.
   */
  const memo = (fields: Record<string, unknown>) => {
    if (patched(PATCHES.runMemo)) upsertMemo(fields);
  };
  const showWaiting = () => {
    const list = [...waitingFor.entries()].map(([node_id, w]) => ({ node_id, ...w }));
    const lines = list.map(
      (w) =>
        `- approval node \`${w.node_id}\` (approval_key \`${w.approval_key}\`) waits for a decision since ${w.since}` +
        (w.expires_at ? `; at ${w.expires_at} it will ${w.on_timeout === 'fail' ? 'fail' : 'be rejected'}` : '; no deadline'),
    );
    setCurrentDetails(
      list.length > 0
        ? `**Paused**: automation \`${input.automation_id}\`, run \`${input.run_id}\`\n\n${lines.join('\n')}\n\nDecide with POST /v1/automations/runs/resume {"run_id": "${input.run_id}", "decision": "approve" | "reject", "reason": "…"}`
        : `**Running**: automation \`${input.automation_id}\`, run \`${input.run_id}\``,
    );
    memo({ lore_status: list.length > 0 ? 'paused' : 'running', lore_waiting: list });
  };
  const showDecision = () => memo({ lore_decisions: st.resumes.map(decisionMemo) });
  setHandler(automationStateQuery, () => ({
    status: st.liveStatus(),
    nodes: [...st.slots.values()].map((s) => ({ node_id: s.node.node_id, state: s.state })),
    waiting: [...waiting],
  }));

  // The one writer: serial, so writes land in order; non-cancellable, so a cancelled run is recorded.
  let closing = false;
  let seq = 0;
  const writer = CancellationScope.nonCancellable(async () => {
    for (;;) {
      await condition(() => st.hasChanges() || closing);
      if (!st.hasChanges()) return;
      const batch = st.take();
      seq += 1;
      try {
        await mirror.automationMirror({ tenant_id: input.tenant_id, scope: input.scope, run_key: input.run_key, seq, ...batch });
      } catch (err) {
        log.error('automation: a mirror write failed for good; the store may lag this run', { run_id: input.run_id, error: String(err) });
      }
    }
  });

  const runPlaybook = async (node: GraphNode, inputs: Record<string, unknown>) => {
    if (!PLAYBOOK_WORKFLOW_REGISTERED) {
      throw new NodeFailure('playbook_unavailable', `playbook nodes need the replay family's ${PLAYBOOK_RUN_WORKFLOW}, which this worker does not have`);
    }
    const ctx = { tenant_id: input.tenant_id, scope: input.scope, actor: input.actor, automation_id: input.automation_id, automation_run_id: input.run_id, run_key: uuid4() };
    const childId = playbookChildWorkflowId(ctx);
    st.set(node.node_id, 'running', { child_workflow_id: childId });
    const result = await executeChild<(i: PlaybookRunInput) => Promise<PlaybookRunResult>>(PLAYBOOK_RUN_WORKFLOW, {
      workflowId: childId,
      args: [playbookRunInput(ctx, node, inputs)],
      // Cancelling the run waits until the playbook (and its sandbox processes) has stopped.
      cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      typedSearchAttributes: [
        { key: SA.tenant, value: input.tenant_id },
        { key: SA.scope, value: input.scope },
        { key: SA.runKind, value: 'playbook_run' },
        { key: SA.automationId, value: input.automation_id },
        { key: SA.playbookId, value: node.playbook_id ?? '' },
      ],
      staticSummary: `automation ${input.automation_id} run ${input.run_id}: node ${node.node_id} (playbook ${node.playbook_id} v${node.version})`,
    });
    const outcome = playbookNodeOutcome(result);
    sandboxRuns.set(node.node_id, outcome.sandbox_run_ids);
    if (!outcome.ok) throw new NodeFailure(outcome.error?.code ?? 'playbook_failed', outcome.error?.message ?? 'the playbook run failed', outcome.output);
    st.set(node.node_id, 'succeeded', { output: outcome.output });
  };

  const checkGate = async (node: GraphNode) => {
    const upstream = ancestorsOf(node.node_id, st.incoming);
    const producers = [...upstream].filter((id) => byId.get(id)?.kind === 'playbook' && st.stateOf(id) === 'succeeded');
    const r = await checks.automationCheckArtifacts({
      tenant_id: input.tenant_id,
      scope: input.scope,
      checks: (node.artifacts ?? []).map((a) => ({
        path: a.path,
        from_node: a.from_node ?? null,
        sources: (a.from_node ? [a.from_node] : producers).map((id) => ({ node_id: id, sandbox_run_ids: sandboxRuns.get(id) ?? [] })),
      })),
    });
    if (r.missing.length > 0) {
      const list = r.missing.map((m) => `${m.path}${m.from_node ? ` (from ${m.from_node})` : ''}`).join(', ');
      throw new NodeFailure('artifact_missing', `missing artifact${r.missing.length > 1 ? 's' : ''}: ${list}`, { found: r.found, missing: r.missing });
    }
    st.set(node.node_id, 'succeeded', { output: { artifacts: r.found } });
  };

  const awaitApproval = async (node: GraphNode, inputs: Record<string, unknown>) => {
    const id = node.node_id;
    const key = node.approval_key!;
    // A timer only where the node asks for one, and only in runs that reach this wait with this code.
    const timeoutMs = node.timeout_ms !== undefined && patched(PATCHES.approvalTimeout) ? node.timeout_ms : null;
    const expiresAt = timeoutMs === null ? null : new Date(Date.now() + timeoutMs).toISOString();
    st.set(id, 'paused', { approval_requested: true, ...(expiresAt ? { approval_expires_at: expiresAt } : {}) });
    waiting.add(id);
    waitingFor.set(id, { approval_key: key, since: new Date().toISOString(), expires_at: expiresAt, on_timeout: timeoutMs === null ? null : (node.on_timeout ?? 'reject') });
    showWaiting();
    let decided = true;
    try {
      if (timeoutMs === null) await condition(() => approvals.has(id));
      else decided = await condition(() => approvals.has(id), timeoutMs, { summary: `deadline of approval ${key} (node ${id})` });
    } finally {
      waiting.delete(id);
      waitingFor.delete(id);
      showWaiting();
    }
    if (!decided) return approvalExpired(node, inputs, expiresAt!);
    const a = approvals.get(id)!;
    // Only signals sent by a runs/resume that knew about decisions can reject.
    const decision = a.decision === 'reject' && patched(PATCHES.approvalDecisions) ? 'reject' : 'approve';
    const approval: ApprovalInfo = { approval_key: key, requested_at: null, resumed_at: a.at, resumed_by: a.actor, reason: a.reason, decision, decided_by: a.actor, decided_at: a.at, timed_out: false };
    const output = { approved: decision === 'approve', decision, approval_key: key, reason: a.reason, actor: a.actor, resumed_at: a.at, inputs };
    showDecision();
    if (decision === 'reject') throw new NodeFailure('approval_rejected', `approval '${key}' was rejected by ${a.actor}${a.reason ? `: ${a.reason}` : ''}`, output, approval);
    st.set(id, 'succeeded', { output, approval });
  };

  /** The deadline passed with no decision: a rejection by Lore (on_timeout reject, the default) or a failure. */
  const approvalExpired = (node: GraphNode, inputs: Record<string, unknown>, expiresAt: string): never => {
    const id = node.node_id;
    const key = node.approval_key!;
    const at = new Date().toISOString();
    const reason = `no decision within ${node.timeout} (the approval expired at ${expiresAt})`;
    if ((node.on_timeout ?? 'reject') === 'fail') {
      const approval: ApprovalInfo = { approval_key: key, requested_at: null, resumed_at: null, resumed_by: null, reason, decision: null, decided_by: null, decided_at: null, timed_out: true };
      throw new NodeFailure('approval_timeout', `approval '${key}' timed out: ${reason}`, undefined, approval);
    }
    st.resumes.push({ resume_id: `timeout:${id}`, node_ids: [id], decision: 'reject', reason, actor: TIMEOUT_ACTOR, at, timed_out: true });
    st.touch();
    showDecision();
    const approval: ApprovalInfo = { approval_key: key, requested_at: null, resumed_at: null, resumed_by: null, reason, decision: 'reject', decided_by: TIMEOUT_ACTOR, decided_at: at, timed_out: true };
    const output = { approved: false, decision: 'reject', approval_key: key, reason, actor: TIMEOUT_ACTOR, timed_out: true, inputs };
    throw new NodeFailure('approval_rejected', `approval '${key}' was rejected: ${reason}`, output, approval);
  };

  const executeNode = async (node: GraphNode) => {
    const missing: string[] = [];
    const inputs = resolveValue(node.inputs, st.outputs, missing) as Record<string, unknown>;
    started.push(node.node_id);
    nodeInputs.set(node.node_id, inputs);
    st.set(node.node_id, 'running', { started: true, inputs });
    if (missing.length > 0) throw new NodeFailure('reference_unresolved', `references did not resolve: ${missing.join(', ')}`);
    switch (node.kind) {
      case 'condition': {
        const outcome = evaluateCondition(node.condition!, st.outputs);
        st.set(node.node_id, 'succeeded', { output: outcome }, outcome.result);
        return;
      }
      case 'approval':
        return awaitApproval(node, inputs);
      case 'artifact_gate':
        return checkGate(node);
      case 'playbook':
        return runPlaybook(node, inputs);
    }
  };

  const settle = (node: GraphNode, err: unknown) => {
    const id = node.node_id;
    if (isCancellation(err) && (root.consideredCancelled || stoppedBy !== null)) {
      const message = root.consideredCancelled ? 'the run was cancelled' : `the run stopped: node '${stoppedBy}' failed`;
      st.set(id, 'cancelled', { error: { code: 'cancelled', message } });
      nodeErrors.set(id, { message });
      return;
    }
    const cause = causeOf(err);
    st.set(id, 'failed', {
      error: cause,
      ...(err instanceof NodeFailure && err.output !== undefined ? { output: err.output } : {}),
      ...(err instanceof NodeFailure && err.approval ? { approval: err.approval } : {}),
    });
    st.error ??= { node_id: id, ...cause };
    nodeErrors.set(id, { message: cause.message, ...(err instanceof NodeFailure && err.output !== undefined ? { output: err.output } : {}) });
    if (input.options.stop_on_failure && stoppedBy === null) {
      stoppedBy = id;
      for (const s of scopes.values()) s.cancel();
    }
  };

  const launch = (node: GraphNode) => {
    const scope = new CancellationScope();
    scopes.set(node.node_id, scope);
    const task = scope
      .run(() => executeNode(node))
      .catch((err) => settle(node, err))
      .finally(() => {
        tasks.delete(node.node_id);
        scopes.delete(node.node_id);
        st.touch();
      });
    tasks.set(node.node_id, task);
  };

  /** One pass in topological order: a skip or an instant node (condition) settles what follows it in the same pass. */
  const schedule = () => {
    for (const id of input.order) {
      if (st.stateOf(id) !== 'pending') continue;
      if (root.consideredCancelled) st.set(id, 'skipped', { skip_reason: 'the run was cancelled' });
      else if (stoppedBy !== null) st.set(id, 'skipped', { skip_reason: `the run stopped: node '${stoppedBy}' failed` });
      else {
        const d = readiness(st.incoming.get(id) ?? [], st.facts);
        if (d.decision === 'skip') st.set(id, 'skipped', { skip_reason: d.reason });
        else if (d.decision === 'run') launch(byId.get(id)!);
      }
    }
  };

  let cancellation: unknown = null;
  try {
    st.touch(); // the first write marks the run running
    if (input.options.record_run) {
      const replayRunId = replayRunIdFor(input.run_id, input.run_key);
      try {
        st.replayRunId = await recorder.automationRecordStart({
          tenant_id: input.tenant_id,
          scope: input.scope,
          actor: input.actor,
          replay_run_id: replayRunId,
          goal: `automation ${input.automation_id}`,
          metadata: { automation_id: input.automation_id, automation_run_id: input.run_id },
        });
        st.touch();
      } catch (err) {
        if (isCancellation(err)) throw err;
        recordProblem = `record_run: the replay run could not be opened: ${causeOf(err).message}`;
      }
    }
    for (;;) {
      schedule();
      if (tasks.size === 0) break;
      const seen = st.version;
      await condition(() => st.version !== seen);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    cancellation = err;
  }
  // A cancel that arrived with the start (the run was cancelled while queued) skips every node in
  // the first pass without an await that would throw: the run still ends cancelled.
  if (cancellation === null && root.consideredCancelled) cancellation = new CancelledFailure('the run was cancelled before it started');

  return CancellationScope.nonCancellable(async () => {
    // In-flight nodes settle first (a cancelled playbook only once its sandbox work has stopped).
    while (tasks.size > 0) await Promise.all([...tasks.values()]);
    schedule();
    const counts = st.counts();
    // Set on the state only once everything else is written: the store shows the end last.
    const final = cancellation ? 'cancelled' : counts.failed > 0 || st.error ? 'failed' : 'succeeded';
    if (st.replayRunId) {
      try {
        await recorder.automationRecordFinish({
          tenant_id: input.tenant_id,
          scope: input.scope,
          actor: input.actor,
          replay_run_id: st.replayRunId,
          steps: started.map((id, i) => {
            const e = nodeErrors.get(id);
            return replayStepOf(i, byId.get(id)!, st.stateOf(id), nodeInputs.get(id), st.stateOf(id) === 'succeeded' ? st.outputs[id] : e?.output, e?.message ?? null);
          }),
          status: replayStatusOf(final),
          summary: `automation ${input.automation_id} run ${input.run_id} ${final}: ${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.cancelled} cancelled`,
        });
      } catch (err) {
        recordProblem = `record_run: the replay run could not be completed: ${causeOf(err).message}`;
      }
    }
    st.status = final;
    st.reason = cancellation
      ? 'cancelled'
      : st.error
        ? `node '${st.error.node_id}' failed: ${st.error.message}${stoppedBy ? ' (stop_on_failure: the rest of the run was stopped)' : ''}`
        : `all nodes settled: ${counts.succeeded} succeeded, ${counts.skipped} skipped`;
    if (recordProblem) st.reason = `${st.reason} (${recordProblem})`;
    setCurrentDetails(`**${final}**: automation \`${input.automation_id}\`, run \`${input.run_id}\`: ${st.reason}`);
    memo({ lore_status: final, lore_waiting: [], lore_summary: st.reason });
    st.touch();
    closing = true;
    await writer;
    if (cancellation) throw cancellation;
    return { run_id: input.run_id, status: st.status, node_counts: st.counts(), error: st.error };
  });
}

/** A decision as the memo shows it (small: the memo travels with every describe of the workflow). */
function decisionMemo(r: ResumeRecord) {
  const reason = r.reason !== null && r.reason.length > 300 ? `${r.reason.slice(0, 300)}…` : r.reason;
  return { node_ids: r.node_ids, decision: r.decision ?? 'approve', actor: r.actor, at: r.at, reason, ...(r.timed_out ? { timed_out: true } : {}) };
}
