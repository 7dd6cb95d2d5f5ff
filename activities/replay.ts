import { awaitHostStep, beginRun, completeHostStep, completeStep, finishRun, prepareStep, recordShadowValidation, skipStep } from '../src/domain/replay/runner';
import type { ActivityDeps } from './deps';

/**
 * Activities of the replay family: the bookkeeping of playbook runs and shadow validations
 * (src/domain/replay/runner.ts). The commands themselves run in the sandbox family's child
 * workflows. Each activity is idempotent (keyed by run key + step index + attempt); retry
 * policies are set where they are proxied (workflows/replay.ts).
 */
export function createReplayActivities(deps: ActivityDeps) {
  const c = { config: deps.config, db: deps.db, clock: deps.clock, log: deps.log.child('replay') };
  return {
    replayBeginRun: (input: Parameters<typeof beginRun>[1]) => beginRun(c, input),
    replaySkipStep: (input: Parameters<typeof skipStep>[1]) => skipStep(c, input),
    replayPrepareStep: (input: Parameters<typeof prepareStep>[1]) => prepareStep(c, input),
    replayCompleteStep: (input: Parameters<typeof completeStep>[1]) => completeStep(c, input),
    replayAwaitHostStep: (input: Parameters<typeof awaitHostStep>[1]) => awaitHostStep(c, input),
    replayCompleteHostStep: (input: Parameters<typeof completeHostStep>[1]) => completeHostStep(c, input),
    replayFinishRun: (input: Parameters<typeof finishRun>[1]) => finishRun(c, input),
    replayRecordShadowValidation: (input: Parameters<typeof recordShadowValidation>[1]) => recordShadowValidation(c, input),
  };
}

export type ReplayActivities = ReturnType<typeof createReplayActivities>;
