import type { ArtifactCheckInput, ArtifactCheckResult, MirrorInput } from '../src/domain/automation/run-types';
import { mirrorPatches } from '../src/domain/automation/mirror';
import { findArtifacts } from '../src/domain/automation/artifacts';
import type { ReplayRecordFinish, ReplayRecordStart } from '../src/domain/automation/replay-record';
import { recordReplayFinish, recordReplayStart } from '../src/domain/automation/replay-writer';
import { AutomationRunNodes, AutomationRuns } from '../src/store/automation/index';
import { refOf } from '../src/store/scope';
import type { ActivityDeps } from './deps';

/**
 * Activities of the automation family. All are idempotent: a mirror write carries the run's
 * sequence number and the store applies it only when newer than what it holds (a retried attempt
 * is a no-op); an artifact check only reads.
 */
export function createAutomationActivities(deps: ActivityDeps) {
  const { db, clock } = deps;
  return {
    /** Mirrors node transitions and the run's status into MongoDB (what runs/get and runs/list read). */
    async automationMirror(input: MirrorInput): Promise<void> {
      const ref = refOf(input);
      const { run, nodes } = mirrorPatches(input, clock.now().toISOString());
      // Nodes first: a reader that sees the run's new status also sees the node states behind it.
      if (nodes.length > 0) await new AutomationRunNodes(db, ref).applyMirror(input.seq, nodes);
      await new AutomationRuns(db, ref).applyMirror(input.run_key, input.seq, run);
    },

    /** record_run: opens the replay run that records this automation run (idempotent). */
    async automationRecordStart(input: ReplayRecordStart): Promise<string> {
      return recordReplayStart(deps, input);
    },

    /** record_run: writes one step per node that started, then ends the replay run (idempotent). */
    async automationRecordFinish(input: ReplayRecordFinish): Promise<void> {
      await recordReplayFinish(deps, input);
    },

    /** Looks for each expected file among the artifacts of the given sandbox runs. */
    async automationCheckArtifacts(input: ArtifactCheckInput): Promise<ArtifactCheckResult> {
      return findArtifacts(db, refOf(input), input.checks);
    },
  };
}

export type AutomationActivities = ReturnType<typeof createAutomationActivities>;
