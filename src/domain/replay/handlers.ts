import type { Handlers } from '../../contract/handlers';
import type { replayRoutes } from '../../contract/families/replay';
import { refOf } from '../../store/scope';
import { evaluateCandidate } from './candidate';
import { compileFromRun } from './compile';
import type { ReplayCtx } from './context';
import { dispatchPlaybook, runPlaybook } from './execute';
import { getReplayRun } from './get-run';
import { reportHostStep } from './host-steps';
import type { LearningFeed } from './learning-feed';
import { getPlaybook, listPlaybooks, promotePlaybook } from './playbooks';
import { endRun, startRecordedRun } from './record-run';
import { stepAfter, stepBefore } from './record-step';
import { repairPlaybook } from './repair';
import { reviewRepair } from './review';

/** One handler per replay route; each is a thin call into the operation's module. */
export function createReplayHandlers(c: ReplayCtx, feed: LearningFeed): Handlers<typeof replayRoutes> {
  return {
    'replay.run.start': (input, ctx) => startRecordedRun(c, refOf(ctx), input, ctx.actor),
    'replay.step.before': (input, ctx) => stepBefore(c, refOf(ctx), input, ctx.actor),
    'replay.step.after': (input, ctx) => stepAfter(c, refOf(ctx), input, ctx.actor),
    'replay.run.end': (input, ctx) => endRun(c, refOf(ctx), input, ctx.actor, feed),
    'replay.runs.get': (input, ctx) => getReplayRun(c, feed, refOf(ctx), input, ctx.signal),
    'replay.playbooks.compileFromRun': (input, ctx) => compileFromRun(c, refOf(ctx), input, ctx.actor),
    'replay.playbooks.get': (input, ctx) => getPlaybook(c, refOf(ctx), input),
    'replay.playbooks.list': (input, ctx) => listPlaybooks(c, refOf(ctx), input),
    'replay.playbooks.candidate': (input, ctx) => evaluateCandidate(c, refOf(ctx), input),
    'replay.playbooks.promote': (input, ctx) => promotePlaybook(c, refOf(ctx), input, ctx.actor),
    'replay.playbooks.repair': (input, ctx) => repairPlaybook(c, refOf(ctx), input, ctx.actor),
    'replay.playbooks.repairReview': (input, ctx) => reviewRepair(c, refOf(ctx), input, ctx.actor),
    'replay.playbooks.run': (input, ctx) => runPlaybook(c, feed, refOf(ctx), { ...input, params: input.params ?? input.parameters ?? {} }, ctx.actor),
    'replay.playbooks.completeStep': (input, ctx) => reportHostStep(c, refOf(ctx), input, ctx.actor),
    'replay.playbooks.dispatch': (input, ctx) =>
      dispatchPlaybook(c, refOf(ctx), { ...input, mode: input.mode ?? input.fallback_mode ?? 'strict', params: input.params ?? input.parameters ?? {} }, ctx.actor),
  };
}
