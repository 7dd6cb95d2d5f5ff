import type { Engine } from '../../engine/engine';
import type { Log } from '../../log';
import { DEFAULT_MAX_NODES_PER_RUN } from './policy';
import { SWEEP_WORKFLOW, sweepScheduleId, type SweepInput } from './run-types';

/**
 * The lifecycle operator's Temporal Schedule (LORE_LIFECYCLE_INTERVAL): every interval it starts
 * lifecycleSweepWorkflow, which runs the operator over every registered scope. Ensured by every
 * API process at start (idempotent); `off` pauses an existing schedule with a note, so the
 * Temporal UI says why it stopped.
 */
export async function ensureLifecycleSchedule(
  engine: Engine,
  config: { readonly lifecycleIntervalMs: number; readonly temporal: { readonly taskQueue: string } },
  log: Log,
): Promise<string> {
  const scheduleId = sweepScheduleId(config.temporal.taskQueue);
  if (config.lifecycleIntervalMs <= 0) {
    await engine.pauseSchedule(scheduleId, 'LORE_LIFECYCLE_INTERVAL=off');
    log.info(`lifecycle schedule ${scheduleId}: off`);
    return scheduleId;
  }
  const input: SweepInput = { max_nodes_per_scope: DEFAULT_MAX_NODES_PER_RUN };
  await engine.ensureSchedule({
    scheduleId,
    workflowType: SWEEP_WORKFLOW,
    workflowId: `lifecycle-sweep/${config.temporal.taskQueue}`,
    args: [input],
    intervalMs: config.lifecycleIntervalMs,
    labels: { tenant_id: '*', scope: '*', kind: 'lifecycle' },
    summary: 'lifecycle operator sweep over every scope',
  });
  log.info(`lifecycle schedule ${scheduleId}: every ${Math.round(config.lifecycleIntervalMs / 1000)} s`);
  return scheduleId;
}
