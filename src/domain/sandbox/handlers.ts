import type { sandboxRoutes } from '../../contract/families/sandbox';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import { runArtifact } from './artifact';
import type { SandboxCtx } from './context';
import { listRuns, runLogs } from './runs';
import { enabledOnly, type SandboxServices } from './services';
import { getSession } from './sessions';
import { sessionDiff } from './workspace-diff';

/** One handler per sandbox route; each is a thin call into the operation's module, after the SANDBOX_ENABLED check. */
export function createSandboxHandlers(c: SandboxCtx, services: SandboxServices): Handlers<typeof sandboxRoutes> {
  return {
    'sandbox.createSession': (input, ctx) => services.createSession(refOf(ctx), input, ctx.actor),
    'sandbox.getSession': enabledOnly(c, async (input, ctx) => getSession(c, refOf(ctx), input.session_id)),
    'sandbox.sessionDiff': enabledOnly(c, async (input, ctx) => sessionDiff(c, refOf(ctx), input)),
    'sandbox.execute': (input, ctx) => services.execute(refOf(ctx), input, ctx.actor),
    'sandbox.getRun': (input, ctx) => services.getRun(refOf(ctx), input, ctx.signal),
    'sandbox.runs.list': enabledOnly(c, async (input, ctx) => listRuns(c, refOf(ctx), input)),
    'sandbox.runLogs': enabledOnly(c, async (input, ctx) => runLogs(c, refOf(ctx), input)),
    'sandbox.runArtifact': enabledOnly(c, async (input, ctx) => runArtifact(c, refOf(ctx), input)),
    'sandbox.cancelRun': (input, ctx) => services.cancelRun(refOf(ctx), input.run_id, input.reason),
  };
}
