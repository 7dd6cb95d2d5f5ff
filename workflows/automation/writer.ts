import { CancellationScope, condition, log } from '@temporalio/workflow';
import { mirror } from './activities';
import type { AutomationRun } from './run';

export interface MirrorWriter {
  /** Writes what is left, then resolves. */
  close(): Promise<void>;
}

/**
 * The one writer of the run's record in the store: serial, so writes land in order;
 * non-cancellable, so a cancelled run is recorded.
 */
export function startMirrorWriter(run: AutomationRun): MirrorWriter {
  const { input, st } = run;
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
  return {
    close: () => {
      closing = true;
      return writer;
    },
  };
}
