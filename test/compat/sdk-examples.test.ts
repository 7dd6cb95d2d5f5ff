import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';

/**
 * "The existing SDK's examples run to the end" (issue 41): the wire requests examples 07–14 of the
 * existing implementation's `examples/full-sdk` send — their paths, their bodies as that SDK sends
 * them, unknown fields included — against a real Lore with a worker, checking every field the
 * example reads or asserts on, and what it should mean in Lore. The examples themselves are not
 * part of this repository; docs/compatibility.md says which ran unchanged and how.
 */

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => {
  await api?.close();
});

/** The SDK's POST: JSON body, throws on non-2xx (here: asserts 200). */
async function post(path: string, body: Record<string, unknown>): Promise<any> {
  const res = await api.post(path, body);
  assert.equal(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 800)}`);
  return res.body;
}

/** The SDK's taskStart: kickoff/recommendation, with first_action rebuilt client-side as that SDK does. */
async function taskStart(body: Record<string, unknown>) {
  const r = await post('/v1/memory/kickoff/recommendation', body);
  const k = r.kickoff_recommendation;
  const u = r.action_retrieval_uncertainty;
  const escalates =
    !k?.selected_tool ||
    u.level === 'high' ||
    ['widen_recall', 'rehydrate_payload', 'request_operator_review'].some((a) => u.recommended_actions.includes(a)) ||
    (u.recommended_actions.includes('inspect_context') && !k.file_path && k.source_kind === 'experience_intelligence');
  return {
    ...r,
    first_action: k?.selected_tool && !escalates ? { selected_tool: k.selected_tool, file_path: k.file_path, next_action: k.next_action, source_kind: k.source_kind } : null,
  };
}

/** An execution packet as the examples' write helper sends it: nodes[].slots.execution_packet_v1. */
function packetWrite(scope: string, title: string, inputText: string, taskBrief: string, filePath: string) {
  return {
    tenant_id: 'default',
    scope,
    actor: 'sdk-example',
    input_text: inputText,
    auto_embed: true,
    memory_lane: 'private',
    nodes: [
      {
        client_id: `sdk-example-event:${randomUUID()}`,
        type: 'event',
        title,
        text_summary: taskBrief,
        slots: {
          summary_kind: 'handoff',
          execution_packet_v1: {
            version: 1,
            state_id: `state:${randomUUID()}`,
            current_stage: 'patch',
            active_role: 'patch',
            task_brief: taskBrief,
            target_files: [filePath],
            next_action: `Patch ${filePath} and rerun validation`,
            hard_constraints: [],
            accepted_facts: [],
            rejected_paths: [],
            pending_validations: ['npm run -s test:lite'],
            unresolved_blockers: [],
            rollback_notes: [],
            review_contract: null,
            resume_anchor: { anchor: `resume:${filePath}`, file_path: filePath, symbol: null, repo_root: '/repo' },
            artifact_refs: [],
            evidence_refs: [],
          },
        },
      },
    ],
    edges: [],
  };
}

/** execution_state_v1 + execution_packet_v1 as examples 11 and 12 spread them into handoff, session and event requests. */
function continuityState(taskBrief: string, filePath: string) {
  const stateId = `state:${randomUUID()}`;
  const anchor = { anchor: `resume:${filePath}`, file_path: filePath, symbol: null, repo_root: '/repo' };
  return {
    execution_state_v1: {
      version: 1,
      state_id: stateId,
      scope: `aionis://execution/${stateId}`,
      task_brief: taskBrief,
      current_stage: 'patch',
      active_role: 'patch',
      owned_files: [],
      modified_files: [filePath],
      pending_validations: ['npm run -s test:lite -- export'],
      completed_validations: [],
      unresolved_blockers: [],
      rollback_notes: [],
      resume_anchor: anchor,
      updated_at: '2026-03-21T12:00:00.000Z',
    },
    execution_packet_v1: {
      version: 1,
      state_id: stateId,
      current_stage: 'patch',
      active_role: 'patch',
      task_brief: taskBrief,
      target_files: [filePath],
      next_action: `Patch ${filePath} and rerun export tests`,
      pending_validations: ['npm run -s test:lite -- export'],
      unresolved_blockers: [],
      rollback_notes: [],
      review_contract: null,
      resume_anchor: anchor,
      artifact_refs: [],
      evidence_refs: [],
    },
  };
}

/** tools/select then positive tools/feedback for one run, as the examples' feedback helper does. */
async function positiveToolFeedback(scope: string, runId: string, goal = 'repair export failure in node tests') {
  const context = { task_kind: 'repair_export', goal, error: { signature: 'node-export-mismatch' } };
  const candidates = ['bash', 'edit', 'test'];
  const selection = await post('/v1/memory/tools/select', {
    tenant_id: 'default',
    scope,
    run_id: runId,
    context,
    candidates,
    include_shadow: false,
    rules_limit: 20,
    strict: true,
    reorder_candidates: false,
  });
  assert.equal(typeof selection.decision.decision_id, 'string', 'tools.select did not return decision.decision_id');
  const feedback = await post('/v1/memory/tools/feedback', {
    tenant_id: 'default',
    scope,
    actor: 'sdk-example',
    run_id: runId,
    decision_id: selection.decision.decision_id,
    outcome: 'positive',
    context,
    candidates,
    selected_tool: selection.decision.selected_tool ?? 'edit',
    target: 'tool',
    note: 'SDK example positive grouped evidence',
    input_text: goal,
  });
  return { selection, feedback };
}

const EXPORT_QUERY = 'fix export failure in node tests';
const EXPORT_FILE = 'src/routes/export.ts';
const planningBody = (scope: string) => ({ tenant_id: 'default', scope, query_text: EXPORT_QUERY, context: { goal: EXPORT_QUERY }, tool_candidates: ['bash', 'edit', 'test'] });

describe('the existing SDK examples 07–14 as wire calls', () => {
  it('07 agent memory inspect: archived write, rehydrate, activate, handoff, then agent inspect and its three packs', async () => {
    const scope = uniqueName('agent-memory');
    const anchor = `agent-memory:${scope}`;
    const who = { tenant_id: 'default', scope, actor: 'sdk-example' };
    await post('/v1/memory/write', {
      ...who,
      input_text: 'Observed repeated export mismatch failures and narrowed the repair path to src/routes/export.ts.',
      nodes: [
        {
          client_id: 'export-mismatch-repair',
          type: 'event',
          tier: 'archive',
          title: 'Export mismatch repair context',
          text_summary: 'The runtime observed repeated export mismatch failures in the export route.',
          slots: { task_kind: 'repair_export_mismatch', next_action: 'inspect src/routes/export.ts and rerun the export tests' },
        },
      ],
    });
    await post('/v1/memory/archive/rehydrate', { ...who, client_ids: ['export-mismatch-repair'], target_tier: 'warm', reason: 'bring it back', input_text: 'reuse it' });
    await post('/v1/memory/nodes/activate', {
      ...who,
      client_ids: ['export-mismatch-repair'],
      outcome: 'positive',
      activate: true,
      reason: 'it pointed to the right path',
      input_text: 'x',
    });
    await post('/v1/handoff/store', {
      ...who,
      handoff_kind: 'repair',
      anchor,
      summary: 'Pause after narrowing the export mismatch to one route file.',
      handoff_text: 'Resume in src/routes/export.ts and rerun the export route tests.',
      target_files: [EXPORT_FILE],
      next_action: 'Patch export route shape handling and rerun export tests.',
      acceptance_checks: ['npm run -s test -- export-route'],
    });
    const query = {
      tenant_id: 'default',
      scope,
      query_text: 'repair export mismatch in src/routes/export.ts',
      context: { goal: 'repair export mismatch', task_kind: 'repair_export_mismatch' },
      candidates: ['bash', 'edit', 'test'],
      anchor,
      file_path: EXPORT_FILE,
    };
    const inspect = await post('/v1/memory/agent/inspect', { ...query, include_meta: true });
    const s = inspect.agent_memory_summary;
    assert.equal(s.summary_version, 'agent_memory_inspect_summary_v1');
    assert.equal(s.has_continuity, true);
    assert.equal(s.latest_handoff_anchor, anchor);
    assert.ok(s.handoff_related_items >= 1);
    assert.equal(inspect.continuity_review_pack.review_contract.basis, 'handoff');
    assert.ok(inspect.evolution_review_pack.review_contract);
    const review = await post('/v1/memory/agent/review-pack', query);
    assert.equal(review.agent_memory_review_pack.latest_handoff_anchor, anchor);
    assert.deepEqual(review.agent_memory_review_pack.handoff_target_files, [EXPORT_FILE]);
    assert.deepEqual(review.agent_memory_review_pack.acceptance_checks, ['npm run -s test -- export-route']);
    const resume = await post('/v1/memory/agent/resume-pack', query);
    assert.equal(resume.agent_memory_resume_pack.resume_next_action, 'Patch export route shape handling and rerun export tests.');
    assert.equal(resume.agent_memory_resume_pack.recovered_handoff.anchor, anchor);
    const handoff = await post('/v1/memory/agent/handoff-pack', query);
    assert.equal(handoff.agent_memory_handoff_pack.handoff_kind, 'repair');
    assert.equal(handoff.agent_memory_handoff_pack.handoff_next_action, 'Patch export route shape handling and rerun export tests.');
  });

  it('08 self-evolving task start: two execution packets make the warm task start the packet’s target file', async () => {
    const scope = uniqueName('self-evolving-task-start');
    const tag = randomUUID().slice(0, 8);
    const taskBrief = `Repair billing retry timeout in service code [task-start-proof-${tag}]`;
    const filePath = 'src/services/billing.ts';
    const payload = { tenant_id: 'default', scope, query_text: taskBrief, context: { goal: taskBrief, host: 'self-evolving-proof' }, candidates: ['bash', 'edit', 'test'] };
    const cold = await taskStart(payload);
    assert.equal(cold.first_action, null);
    const written = await post('/v1/memory/write', packetWrite(scope, 'Billing retry repair run one', 'continue fixing billing retry timeout first run', taskBrief, filePath));
    assert.deepEqual(written.extracted.file_paths, [filePath]);
    assert.equal(written.extracted.outcome, 'success', 'a packet without blockers is progress handed on');
    const second = await post('/v1/memory/write', packetWrite(scope, 'Billing retry repair run two', 'continue fixing billing retry timeout second run', taskBrief, filePath));
    assert.equal(second.learning.workflows_updated.length, 1, 'the second packet founds a workflow with the first');
    const anchorUri = second.learning.workflow_anchors.find((a: any) => a.source === 'learned');
    assert.match(anchorUri.uri, /^lore:\/\//);
    const resolved = await post('/v1/memory/resolve', { tenant_id: 'default', scope, uri: anchorUri.uri });
    assert.equal(resolved.node.kind, 'workflow');
    const warm = await taskStart(payload);
    assert.ok(warm.first_action, JSON.stringify(warm.kickoff_recommendation));
    assert.equal(warm.first_action.file_path, filePath);
    assert.equal(warm.first_action.selected_tool, 'edit', 'the next action “Patch …” names the edit tool');
    assert.equal(warm.first_action.next_action, `Patch ${filePath} and rerun validation`);
    assert.equal(warm.first_action.source_kind, 'candidate_workflow');
  });

  it('09 policy memory materialises from three positive feedbacks; agent inspect reads the selected policy memory', async () => {
    const scope = uniqueName('policy-memory');
    const first = await positiveToolFeedback(scope, `policy-memory-run-${randomUUID()}`);
    const second = await positiveToolFeedback(scope, `policy-memory-run-${randomUUID()}`);
    const third = await positiveToolFeedback(scope, `policy-memory-run-${randomUUID()}`);
    assert.equal(first.feedback.policy_memory, null);
    assert.equal(second.feedback.policy_memory, null);
    const pm = third.feedback.policy_memory;
    assert.equal(pm.policy_contract.materialization_state, 'persisted');
    assert.equal(pm.policy_memory_state, 'active');
    const context = { goal: 'repair export failure in node tests', task_kind: 'repair_export' };
    const evolution = await post('/v1/memory/evolution/review-pack', { tenant_id: 'default', scope, query_text: context.goal, context, candidates: ['bash', 'edit', 'test'] });
    assert.equal(evolution.evolution_review_pack.evolution_inspect.policy_contract.policy_memory_id, pm.node_id);
    const inspect = await post('/v1/memory/agent/inspect', {
      tenant_id: 'default',
      scope,
      query_text: context.goal,
      context,
      candidates: ['bash', 'edit', 'test'],
      file_path: EXPORT_FILE,
    });
    const s = inspect.agent_memory_summary;
    assert.equal(s.selected_policy_memory_id, pm.node_id);
    assert.equal(s.selected_policy_memory_state, 'active');
    assert.equal(s.derived_policy_source_kind, 'trusted_pattern');
    assert.equal(s.policy_review_recommended, false);
    assert.equal(s.policy_governance_action, 'none');
    assert.equal(s.has_continuity, false, 'no anchor was given');
  });

  it('10 governance loop: retire then reactivate; agent inspect shows the state and the last governance action', async () => {
    const scope = uniqueName('policy-governance');
    let policyId: string | null = null;
    for (let i = 0; i < 4 && !policyId; i += 1) policyId = (await positiveToolFeedback(scope, `policy-governance-run-${randomUUID()}`)).feedback.policy_memory?.node_id ?? null;
    assert.ok(policyId, 'policy memory did not materialise after repeated positive feedback');
    const retired = await post('/v1/memory/policies/governance/apply', {
      tenant_id: 'default',
      scope,
      actor: 'sdk-example',
      policy_memory_id: policyId,
      action: 'retire',
      reason: 'manual review',
    });
    assert.equal(retired.previous_state, 'active');
    assert.equal(retired.next_state, 'retired');
    const context = { goal: 'repair export failure in node tests', task_kind: 'repair_export', error: { signature: 'node-export-mismatch' } };
    const mid = await post('/v1/memory/agent/inspect', { tenant_id: 'default', scope, query_text: context.goal, context, candidates: ['bash', 'edit', 'test'] });
    assert.equal(mid.agent_memory_summary.selected_policy_memory_state, 'retired');
    assert.equal(mid.agent_memory_summary.policy_governance_action, 'retire');
    const reactivated = await post('/v1/memory/policies/governance/apply', {
      tenant_id: 'default',
      scope,
      actor: 'sdk-example',
      policy_memory_id: policyId,
      action: 'reactivate',
      reason: 'fresh live evidence',
      query_text: context.goal,
      context,
      candidates: ['bash', 'edit', 'test'],
    });
    assert.equal(reactivated.previous_state, 'retired');
    assert.equal(reactivated.next_state, 'active');
    assert.equal(reactivated.live_policy_contract.selected_tool, reactivated.policy_memory.policy_contract.selected_tool);
    const inspect = await post('/v1/memory/agent/inspect', {
      tenant_id: 'default',
      scope,
      query_text: context.goal,
      context,
      candidates: ['bash', 'edit', 'test'],
      file_path: EXPORT_FILE,
    });
    assert.equal(inspect.agent_memory_summary.selected_policy_memory_state, 'active');
    assert.equal(inspect.agent_memory_summary.policy_governance_action, 'reactivate');
    assert.equal(typeof inspect.agent_memory_summary.policy_governance_applied_at, 'string');
  });

  it('11 continuity provenance: two structured handoffs, then two session events, each promote a stable workflow of their origin', async () => {
    const handoffScope = uniqueName('continuity-proof-handoff');
    for (const [i, title] of ['Export repair handoff', 'Export repair handoff second run'].entries()) {
      await post('/v1/handoff/store', {
        tenant_id: 'default',
        scope: handoffScope,
        actor: 'local-user',
        memory_lane: 'private',
        handoff_kind: 'patch_handoff',
        anchor: `handoff:${handoffScope}:${i + 1}`,
        title,
        file_path: EXPORT_FILE,
        repo_root: '/repo',
        summary: EXPORT_QUERY,
        handoff_text: `Continue ${EXPORT_QUERY}`,
        target_files: [EXPORT_FILE],
        next_action: `Patch ${EXPORT_FILE} and rerun export tests`,
        acceptance_checks: ['npm run -s test:lite -- export'],
        ...continuityState(EXPORT_QUERY, EXPORT_FILE),
      });
      const planning = await post('/v1/memory/planning/context', planningBody(handoffScope));
      const recommended = planning.planner_packet.sections.recommended_workflows;
      if (i === 0) assert.equal(recommended.length, 0, 'one carrier state is not a workflow yet');
      else {
        assert.ok(recommended.length > 0, 'No stable workflow was promoted for handoff_continuity_carrier');
        assert.equal(planning.planning_summary.distillation_signal_summary.origin_counts.handoff_continuity_carrier, 1);
        assert.equal(planning.planning_summary.continuity_carrier_summary.handoff_count, 1);
      }
    }
    const intro = await post('/v1/memory/execution/introspect', { tenant_id: 'default', scope: handoffScope, query_text: EXPORT_QUERY, context: { goal: EXPORT_QUERY }, limit: 8 });
    assert.equal(intro.recommended_workflows[0].distillation_origin, 'handoff_continuity_carrier');
    assert.equal(intro.continuity_carrier_summary.handoff_count, 1);

    const sessionScope = uniqueName('continuity-proof-session');
    const sessionId = `session-${randomUUID()}`;
    await post('/v1/memory/sessions', {
      tenant_id: 'default',
      scope: sessionScope,
      actor: 'local-user',
      session_id: sessionId,
      title: 'Export repair working session',
      input_text: 'Create a session for repeated export repair continuity proof.',
      memory_lane: 'private',
    });
    for (const [i, title] of ['Export repair session event one', 'Export repair session event two'].entries()) {
      await post('/v1/memory/events', {
        tenant_id: 'default',
        scope: sessionScope,
        actor: 'local-user',
        session_id: sessionId,
        event_id: randomUUID(),
        title,
        text_summary: EXPORT_QUERY,
        input_text: `continue ${EXPORT_QUERY}${i ? ' after the next repair pass' : ''}`,
        memory_lane: 'private',
        ...continuityState(EXPORT_QUERY, EXPORT_FILE),
      });
    }
    const planning = await post('/v1/memory/planning/context', planningBody(sessionScope));
    assert.ok(planning.planner_packet.sections.recommended_workflows.length > 0, 'No stable workflow was promoted for session_event_continuity_carrier');
    const introS = await post('/v1/memory/execution/introspect', {
      tenant_id: 'default',
      scope: sessionScope,
      query_text: EXPORT_QUERY,
      context: { goal: EXPORT_QUERY },
      limit: 8,
    });
    assert.equal(introS.continuity_carrier_summary.session_event_count, 1);
  });

  it('12 session continuity: the same session created twice promotes a stable workflow with observed_count 2 of required_observations 2', async () => {
    const scope = uniqueName('session-continuity-proof');
    const sessionId = `session-${randomUUID()}`;
    const create = (title: string, inputText: string) =>
      post('/v1/memory/sessions', {
        tenant_id: 'default',
        scope,
        actor: 'local-user',
        session_id: sessionId,
        title,
        text_summary: EXPORT_QUERY,
        input_text: inputText,
        memory_lane: 'private',
        ...continuityState(EXPORT_QUERY, EXPORT_FILE),
      });
    await create('Export repair working session', `continue ${EXPORT_QUERY}`);
    const first = await post('/v1/memory/planning/context', planningBody(scope));
    assert.equal(first.planner_packet.sections.recommended_workflows.length, 0);
    await create('Export repair working session update', `continue ${EXPORT_QUERY} after the next repair pass`);
    const second = await post('/v1/memory/planning/context', planningBody(scope));
    assert.ok(second.planner_packet.sections.recommended_workflows.length > 0, 'No stable workflow was promoted for session_continuity_carrier');
    const signal = second.workflow_signals[0];
    assert.equal(signal.observed_count, 2);
    assert.equal(signal.required_observations, 2);
    const intro = await post('/v1/memory/execution/introspect', { tenant_id: 'default', scope, query_text: EXPORT_QUERY, context: { goal: EXPORT_QUERY }, limit: 8 });
    assert.equal(intro.recommended_workflows[0].observed_count, 2);
    assert.equal(intro.distillation_signal_summary.origin_counts.session_continuity_carrier, 1);
    assert.equal(intro.continuity_carrier_summary.session_count, 1);
  });

  it('13 semantic forgetting: a cold workflow anchor written with negative feedback is archived at once; its payload cools; differential rehydration selects it; rehydrate brings it back', async () => {
    const scope = uniqueName('semantic-forgetting-proof');
    const query = 'rehydrate archived export repair workflow memory';
    const payloadId = randomUUID();
    const workflowId = randomUUID();
    const write = await post('/v1/memory/write', {
      tenant_id: 'default',
      scope,
      actor: 'sdk-example',
      input_text: query,
      auto_embed: true,
      memory_lane: 'shared',
      nodes: [
        {
          id: payloadId,
          type: 'event',
          tier: 'hot',
          title: 'Failure evidence: export retry log',
          text_summary: 'Detailed export retry log that should stay cold unless a review explicitly needs it.',
          slots: { summary_kind: 'supporting_evidence', lifecycle_state: 'active' },
        },
        {
          id: workflowId,
          type: 'procedure',
          tier: 'cold',
          title: 'Archived export repair workflow guidance',
          text_summary: query,
          slots: {
            summary_kind: 'workflow_anchor',
            compression_layer: 'L2',
            feedback_negative: 4,
            feedback_quality: -0.8,
            anchor_v1: {
              anchor_kind: 'workflow',
              summary: 'Archived workflow guidance for export repair that should only be rehydrated on demand.',
              tool_set: ['bash', 'edit', 'test'],
              selected_tool: 'edit',
              file_path: EXPORT_FILE,
              target_files: [EXPORT_FILE],
              next_action: 'Rehydrate the archived workflow guidance before patching export handling.',
              source: { source_kind: 'execution_write', node_id: payloadId, run_id: `run:${randomUUID()}` },
              payload_refs: { node_ids: [payloadId], decision_ids: [], run_ids: [], step_ids: [], commit_ids: [] },
              rehydration: { default_mode: 'differential' },
              workflow_promotion: { promotion_state: 'stable', required_observations: 2, observed_count: 2 },
              schema_version: 'anchor_v1',
            },
          },
        },
      ],
      edges: [],
    });
    const node = write.nodes.find((n: any) => n.id === workflowId);
    assert.ok(node?.uri, 'write did not return a workflow anchor uri');
    assert.equal(node.kind, 'workflow_anchor');
    assert.deepEqual(
      write.learning.workflow_anchors.filter((a: any) => a.source === 'declared').map((a: any) => a.workflow_id),
      [workflowId],
    );
    const before = (await post('/v1/memory/resolve', { tenant_id: 'default', scope, uri: node.uri, include_meta: true, include_slots: true })).node;
    assert.equal(before.slots.semantic_forgetting_v1.action, 'archive');
    assert.equal(before.slots.archive_relocation_v1.relocation_state, 'cold_archive');
    assert.equal(before.slots.archive_relocation_v1.payload_scope, 'anchor_payload');
    assert.equal(before.feedback.negative, 4);
    assert.equal(before.text, '', 'the payload is in the cold store');

    const planning = await post('/v1/memory/planning/context', {
      tenant_id: 'default',
      scope,
      query_text: query,
      context: { goal: query, task_kind: 'repair_export' },
      recall_strategy: 'global',
      limit: 12,
      ranked_limit: 64,
      return_layered_context: true,
      memory_layer_preference: { allowed_layers: ['L2', 'L3', 'L4', 'L5'] },
      tool_candidates: ['bash', 'edit', 'test'],
    });
    const pf = planning.planning_summary.forgetting_summary;
    assert.ok(pf.semantic_action_counts.demote >= 1, 'planning summary did not surface hotter-memory demotion pressure');
    assert.ok(pf.stale_signal_count >= 1, 'planning summary did not surface stale/cold-memory pressure');
    assert.match(pf.recommended_action, /widen recall/);

    const intro = await post('/v1/memory/execution/introspect', { tenant_id: 'default', scope, query_text: query, context: { goal: query, task_kind: 'repair_export' }, limit: 8 });
    const ef = intro.execution_summary.forgetting_summary;
    assert.ok(ef.semantic_action_counts.archive >= 1);
    assert.ok(ef.archive_relocation_state_counts.cold_archive >= 1);
    const wf = intro.recommended_workflows[0];
    assert.equal(wf.id, workflowId);
    assert.equal(wf.semantic_forgetting_action, 'archive');
    assert.equal(wf.archive_relocation_state, 'cold_archive');

    const differential = await post('/v1/memory/anchors/rehydrate_payload', {
      tenant_id: 'default',
      scope,
      anchor_id: workflowId,
      mode: 'differential',
      reason: 'need the log detail',
    });
    assert.deepEqual(differential.rehydrated.summary.differential_selected_node_ids, [payloadId]);
    const payload = (await post('/v1/memory/resolve', { tenant_id: 'default', scope, id: payloadId })).node;
    assert.equal(payload.tier, 'warm', 'the payload node cooled one tier with its anchor');
    assert.match(payload.slots.semantic_forgetting_v1.rationale.join(' '), new RegExp(`payload of anchor ${workflowId}`));

    const rehydrated = await post('/v1/memory/archive/rehydrate', {
      tenant_id: 'default',
      scope,
      node_ids: [workflowId],
      target_tier: 'warm',
      input_text: query,
      reason: 'review it',
    });
    assert.equal(rehydrated.rehydrated.moved_nodes, 1, 'archive.rehydrate did not move the archived workflow anchor');
    const afterNode = (await post('/v1/memory/resolve', { tenant_id: 'default', scope, uri: node.uri })).node;
    assert.equal(afterNode.tier, 'warm');
    assert.equal(afterNode.text, query, 'the payload came back byte for byte');
  });

  it('14 action retrieval and gates: a gate and an operator projection before and after two packets', async () => {
    const scope = uniqueName('action-retrieval');
    const tag = randomUUID().slice(0, 8);
    const taskBrief = `Repair billing retry timeout in service code [action-retrieval-${tag}]`;
    const filePath = 'src/services/billing.ts';
    const context = { goal: taskBrief, task_kind: 'repair_billing_retry' };
    const retrieval = { tenant_id: 'default', scope, query_text: taskBrief, context, candidates: ['bash', 'edit', 'test'] };
    const planningReq = { tenant_id: 'default', scope, query_text: taskBrief, context, tool_candidates: ['bash', 'edit', 'test'], return_layered_context: true };
    const coldR = await post('/v1/memory/action/retrieval', retrieval);
    assert.deepEqual(coldR.uncertainty.recommended_actions, ['widen_recall', 'inspect_context']);
    const coldP = await post('/v1/memory/planning/context', planningReq);
    assert.equal(coldP.planning_summary.action_retrieval_gate.gate_action, 'widen_recall');
    assert.equal(coldP.planning_summary.action_retrieval_gate.escalates_task_start, true);
    assert.deepEqual(
      coldP.operator_projection.action_hints.map((h: any) => h.action),
      ['widen_recall', 'inspect_context'],
    );
    assert.equal(coldP.operator_projection.action_hints[0].priority, 'required');
    assert.equal(coldP.operator_projection.action_hints[0].tool_route, '/v1/memory/recall_text');
    // Each hint's payload is one its route accepts as it stands.
    for (const h of coldP.operator_projection.action_hints) await post(h.tool_route, { tenant_id: 'default', scope, ...h.payload });

    await post('/v1/memory/write', packetWrite(scope, 'Billing retry repair run one', 'continue fixing billing retry timeout first run', taskBrief, filePath));
    await post('/v1/memory/write', packetWrite(scope, 'Billing retry repair run two', 'continue fixing billing retry timeout second run', taskBrief, filePath));
    const warmR = await post('/v1/memory/action/retrieval', retrieval);
    assert.ok(warmR.uncertainty);
    assert.equal(warmR.recommended_file_path, filePath);
    assert.equal(warmR.selected_tool, 'edit');
    const warmP = await post('/v1/memory/planning/context', planningReq);
    const gate = warmP.planning_summary.action_retrieval_gate;
    assert.ok(gate, 'planningContext did not return action_retrieval_gate');
    assert.equal(gate.gate_action, 'proceed');
    assert.equal(gate.escalates_task_start, false);
    assert.equal(gate.file_path, filePath);
    assert.deepEqual(warmP.planning_summary.action_retrieval_uncertainty, warmP.uncertainty);
    assert.ok(warmP.operator_projection, 'planningContext did not return operator_projection');
    assert.equal(warmP.operator_projection.action_hints[0].action, 'inspect_context');
    const assembled = await post('/v1/memory/context/assemble', planningReq);
    assert.deepEqual(assembled.operator_projection.action_retrieval_gate, gate);
  });
});

describe('the agent memory routes (extension): errors and isolation', () => {
  it('bad input is refused in the envelope; an anchor nothing names is no continuity, not an error', async () => {
    const scope = uniqueName('agent-errors');
    for (const p of ['inspect', 'review-pack', 'resume-pack', 'handoff-pack']) {
      const bad = await api.post(`/v1/memory/agent/${p}`, { scope, query_text: 'x', candidates: 'edit' });
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      assert.equal(bad.body.error.code, 'invalid_request');
    }
    const none = await post('/v1/memory/agent/inspect', { scope, query_text: 'repair the export route', anchor: 'no-such-anchor' });
    assert.equal(none.continuity_review_pack, null);
    assert.equal(none.agent_memory_summary.has_continuity, false);
    assert.equal(none.agent_memory_summary.selected_policy_memory_id, null);
  });

  it('another scope’s policy memory and handoff are not seen', async () => {
    const owner = uniqueName('agent-owner');
    let policyId: string | null = null;
    for (let i = 0; i < 4 && !policyId; i += 1) policyId = (await positiveToolFeedback(owner, `iso-${randomUUID()}`)).feedback.policy_memory?.node_id ?? null;
    assert.ok(policyId);
    await post('/v1/handoff/store', { scope: owner, anchor: 'shared-anchor', summary: 'pause', target_files: [EXPORT_FILE], next_action: 'patch it' });
    const context = { goal: 'repair export failure in node tests', task_kind: 'repair_export' };
    for (const viewer of [{ scope: uniqueName('agent-other') }, { tenant_id: 'other-tenant', scope: owner }]) {
      const r = await post('/v1/memory/agent/inspect', { ...viewer, query_text: context.goal, context, candidates: ['bash', 'edit', 'test'], anchor: 'shared-anchor' });
      assert.equal(r.agent_memory_summary.selected_policy_memory_id, null);
      assert.equal(r.agent_memory_summary.has_continuity, false);
    }
  });
});
