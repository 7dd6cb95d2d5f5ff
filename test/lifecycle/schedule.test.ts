import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/model/clock';
import { ensureLifecycleSchedule } from '../../src/domain/lifecycle/schedule';
import { silentLog } from '../../src/log';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { DAY, allNodes, writeNodes } from './helpers';
import { pollFor } from '../helpers/wait';

/**
 * The Temporal Schedule (LORE_LIFECYCLE_INTERVAL): it exists after ensureLifecycleSchedule, is
 * idempotent, triggers the sweep, and the sweep runs the operator over every registered scope.
 * A short interval stands in for the 6 h default.
 */
describe('lifecycle schedule', () => {
  let api: TestApi;
  let scheduleId = '';
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  before(async () => {
    api = await startTestApi({ worker: true, clock });
  });
  after(async () => {
    if (scheduleId)
      await api?.engine.client.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => {});
    await api?.close();
  });

  it('exists, is idempotent, and its sweep runs the operator over every scope', async () => {
    const a = { tenant_id: 'acme', scope: uniqueName('sa') };
    const b = { tenant_id: uniqueName('other'), scope: uniqueName('sb') };
    await writeNodes(api, a, 20, 'a');
    await writeNodes(api, b, 15, 'b');
    clock.advance(100 * DAY);

    const config = { lifecycleIntervalMs: 2000, temporal: api.config.temporal };
    scheduleId = await ensureLifecycleSchedule(api.engine, config, silentLog);
    await ensureLifecycleSchedule(api.engine, config, silentLog); // every start calls it: no error, no second schedule
    const d = await api.engine.describeSchedule(scheduleId);
    assert.ok(d, 'the schedule exists');
    assert.equal(d.workflowType, 'lifecycleSweepWorkflow');
    assert.equal(d.intervalMs, 2000);
    assert.equal(d.paused, false);

    // The sweep archives both scopes' stale nodes without any request naming them.
    await pollFor(
      'the scheduled sweep to archive both scopes',
      async () => {
        const [na, nb] = await Promise.all([allNodes(api, a), allNodes(api, b)]);
        return na.length === 20 && nb.length === 15 && [...na, ...nb].every((n) => n.tier === 'archive');
      },
      90_000,
      500,
    );
    const nodes = await allNodes(api, a);
    assert.ok(
      nodes.every((n) => n.slots.semantic_forgetting_v1.decided_at === clock.now().toISOString()),
      'the scheduled run used the injected clock',
    );
    const s = await api.post('/v1/memory/lifecycle/summary', a);
    assert.equal(s.body.forgetting_summary.last_run.complete, true);
    assert.ok((await api.engine.describeSchedule(scheduleId))!.actions >= 1);

    // off: the schedule is paused with a note saying why.
    await ensureLifecycleSchedule(api.engine, { ...config, lifecycleIntervalMs: 0 }, silentLog);
    const paused = await api.engine.describeSchedule(scheduleId);
    assert.equal(paused!.paused, true);
    assert.match(paused!.note ?? '', /LORE_LIFECYCLE_INTERVAL=off/);
    // On again: unpaused, new interval.
    await ensureLifecycleSchedule(api.engine, { ...config, lifecycleIntervalMs: 3_600_000 }, silentLog);
    const back = await api.engine.describeSchedule(scheduleId);
    assert.equal(back!.paused, false);
    assert.equal(back!.intervalMs, 3_600_000);
  });
});
