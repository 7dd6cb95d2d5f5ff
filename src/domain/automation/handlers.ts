import type { automationRoutes } from '../../contract/families/automation';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import type { AutomationCtx } from './context';
import { create, get, list, setStatus, validate } from './definitions';
import { cancelRun, resumeRun } from './run-control';
import { getAutomationRun, listRuns } from './run-reads';
import { startAutomationRun } from './start-run';

/** One handler per automation route; each is a thin call into the operation's module. */
export function createAutomationHandlers(c: AutomationCtx): Handlers<typeof automationRoutes> {
  return {
    'automations.validate': (input, ctx) => validate(c, refOf(ctx), input),
    'automations.validateGraph': (input, ctx) => validate(c, refOf(ctx), input),
    'automations.create': (input, ctx) => create(c, refOf(ctx), input, ctx.actor),
    'automations.get': (input, ctx) => get(c, refOf(ctx), input.automation_id),
    'automations.list': (input, ctx) => list(c, refOf(ctx), input),
    'automations.setStatus': (input, ctx) => setStatus(c, refOf(ctx), input, ctx.actor),
    'automations.run': (input, ctx) => startAutomationRun(c, refOf(ctx), input, ctx.actor),
    'automations.runs.get': (input, ctx) => getAutomationRun(c, refOf(ctx), input, ctx.signal),
    'automations.runs.list': (input, ctx) => listRuns(c, refOf(ctx), input),
    'automations.runs.cancel': (input, ctx) => cancelRun(c, refOf(ctx), input),
    'automations.runs.resume': (input, ctx) => resumeRun(c, refOf(ctx), input, ctx.actor),
  };
}
