import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { ok, writeExecution } from './helpers';

/**
 * Proof 4: provenance. Workflows learned from handoffs, from session events and from writes keep
 * their distillation_origin through promotion (by observations, and by a playbook promoted
 * active), and planning_summary counts them.
 */
describe('workflow provenance survives promotion', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const plan = (id: object, text: string) => ok(api, '/v1/memory/planning/context', { ...id, query_text: text });

  it('handoff, session-event and write origins are kept and counted', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('prov') };

    // 1. Handoffs: two handoff states of the same task (two anchors) found a workflow.
    for (const anchor of ['retry-fix-a', 'retry-fix-b']) {
      await ok(api, '/v1/memory/handoff/store', {
        ...id,
        anchor,
        summary: 'stabilise the retry loop of the job worker',
        handoff_text: 'Retry loop in the job worker needs a bounded backoff.',
        target_files: ['src/jobs/worker.ts'],
        next_action: 'read src/jobs/worker.ts around the retry loop',
        acceptance_checks: ['npm test -- worker'],
      });
    }
    // 2. Session events: two sessions about the same task, each with a successful step event.
    for (const s of ['sess-1', 'sess-2']) {
      await ok(api, '/v1/memory/sessions/create', { ...id, session_id: s, title: 'speed up the invoice CSV export' });
      await ok(api, '/v1/memory/sessions/events/append', {
        ...id,
        session_id: s,
        event_type: 'step',
        input_text: 'profiled the exporter',
        execution: {
          steps: [
            { tool: 'grep', file_path: 'src/reports/export.ts' },
            { tool: 'edit', file_path: 'src/reports/export.ts' },
          ],
          outcome: 'success',
        },
      });
    }
    // 3. Writes: two executions.
    for (const g of ['add a dark mode toggle to settings', 'dark mode switch for the settings page']) {
      await writeExecution(api, id, { goal: g, steps: [{ tool: 'edit', file_path: 'web/settings/Theme.tsx' }, { tool: 'test' }] });
    }

    const intro = await ok(api, '/v1/memory/execution/introspect', id);
    const byOrigin = (o: string) => intro.demo_surface.sections.workflows.filter((w: any) => w.distillation_origin === o);
    assert.equal(byOrigin('handoff_continuity_carrier').length, 1, JSON.stringify(intro.demo_surface.sections.workflows.map((w: any) => [w.goal, w.distillation_origin])));
    assert.equal(byOrigin('session_event_continuity_carrier').length, 1);
    assert.equal(byOrigin('execution_write_projection').length, 1);
    assert.deepEqual(intro.execution_native_v1.distillation.origin_counts, {
      handoff_continuity_carrier: 1,
      session_event_continuity_carrier: 1,
      session_continuity_carrier: 0,
      execution_write_projection: 1,
      replay_learning_episode: 0,
    });
    const handoffWf = byOrigin('handoff_continuity_carrier')[0];
    // Two consistent carrier states are stable evidence (docs/learning.md, "Workflows").
    assert.equal(handoffWf.promotion_state, 'stable');
    assert.equal(handoffWf.stable_reason, 'observations');
    assert.equal(handoffWf.required_observations, 2);
    assert.equal(handoffWf.observed_count, 2);
    assert.equal(handoffWf.steps[0].file_path, 'src/jobs/worker.ts');
    // An execution write learned from inferred evidence still needs three.
    assert.equal(byOrigin('execution_write_projection')[0].promotion_state, 'candidate');
    assert.equal(byOrigin('execution_write_projection')[0].required_observations, 3);

    // Promotion by observations from other carriers keeps the founding origin.
    await writeExecution(api, id, { goal: 'dark theme toggle in settings', steps: [{ tool: 'edit', file_path: 'web/settings/Theme.tsx' }, { tool: 'test' }] });
    await ok(api, '/v1/memory/sessions/create', { ...id, session_id: 'sess-3', title: 'invoice CSV export is too slow' });
    await ok(api, '/v1/memory/sessions/events/append', {
      ...id,
      session_id: 'sess-3',
      event_type: 'step',
      input_text: 'sped it up',
      execution: { steps: [{ tool: 'grep', file_path: 'src/reports/export.ts' }], outcome: 'success' },
    });
    await writeExecution(api, id, { goal: 'speed up the invoice CSV export', steps: [{ tool: 'grep', file_path: 'src/reports/export.ts' }] });

    // Promotion by a playbook: a replay episode of the handoff task, then its playbook goes active.
    const learning = api.modules.learning.services;
    const ref = { tenant_id: id.tenant_id, scope: id.scope };
    const ep = await learning.recordReplayEpisode(
      ref,
      {
        run_id: 'rr-1',
        playbook_id: 'pb-retry',
        goal: 'stabilise the retry loop of the job worker',
        status: 'success',
        steps: [{ tool_name: 'read', tool_input: { path: 'src/jobs/worker.ts' } }],
        at: new Date().toISOString(),
      },
      'replayer',
    );
    assert.deepEqual(ep.workflows_updated, [handoffWf.workflow_id]);
    const promoted = await learning.playbookStatusChanged(ref, { playbook_id: 'pb-retry', status: 'active', source_run_id: 'rr-1' });
    assert.deepEqual(promoted.workflows_updated, [handoffWf.workflow_id]);

    const after = await ok(api, '/v1/memory/execution/introspect', id);
    const wf = (o: string) => after.demo_surface.sections.workflows.find((w: any) => w.distillation_origin === o);
    assert.equal(wf('handoff_continuity_carrier').promotion_state, 'stable');
    assert.equal(wf('handoff_continuity_carrier').stable_reason, 'playbook_active');
    assert.equal(wf('handoff_continuity_carrier').origin_counts.replay_learning_episode, 1);
    assert.equal(wf('session_event_continuity_carrier').promotion_state, 'stable');
    assert.equal(wf('session_event_continuity_carrier').origin_counts.execution_write_projection, 1);
    assert.equal(wf('execution_write_projection').promotion_state, 'stable');

    // planning_summary counts the carriers behind the workflows each answer rests on.
    const p1 = await plan(id, 'the job worker retry loop keeps failing');
    assert.equal(p1.planning_summary.continuity_carrier_summary.handoff_count, 1);
    assert.equal(p1.planning_summary.continuity_carrier_summary.total_count, 1);
    assert.equal(p1.planning_summary.distillation_signal_summary.origin_counts.handoff_continuity_carrier, 1);
    assert.ok(p1.planner_packet.sections.recommended_workflows.some((w: any) => w.distillation_origin === 'handoff_continuity_carrier'));
    const p2 = await plan(id, 'the invoice CSV export takes too long');
    assert.equal(p2.planning_summary.continuity_carrier_summary.session_event_count, 1);
    const p3 = await plan(id, 'settings page needs a dark theme');
    assert.equal(p3.planning_summary.continuity_carrier_summary.total_count, 0);
    assert.equal(p3.planning_summary.distillation_signal_summary.origin_counts.execution_write_projection, 1);
    for (const p of [p1, p2, p3]) {
      assert.deepEqual(p.planning_summary.distillation_signal_summary.scope_origin_counts, after.execution_native_v1.distillation.origin_counts);
      assert.equal(p.planning_summary.continuity_carrier_summary.scope_carrier_counts.handoffs, 2);
      assert.equal(p.planning_summary.continuity_carrier_summary.scope_carrier_counts.sessions, 3);
      assert.equal(p.planning_summary.continuity_carrier_summary.scope_carrier_counts.session_events, 3);
    }
    // Workflows carry their origin in the planner packet too (two consistent handoffs: stable at once).
    const id2 = { tenant_id: 'acme', scope: uniqueName('prov') };
    for (const anchor of ['x1', 'x2']) {
      await ok(api, '/v1/memory/handoff/store', {
        ...id2,
        anchor,
        summary: 'rotate the signing keys of the webhook sender',
        target_files: ['src/webhooks/signer.ts'],
        next_action: 'open src/webhooks/signer.ts',
      });
    }
    const p4 = await plan(id2, 'rotate webhook signing keys');
    assert.equal(p4.planner_packet.sections.recommended_workflows[0]?.distillation_origin, 'handoff_continuity_carrier');
    assert.equal(p4.planner_packet.sections.recommended_workflows[0]?.required_observations, 2);
  });
});
