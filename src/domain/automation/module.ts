import type { AppDeps } from '../app-deps';
import type { FamilyModule } from '../family-module';
import type { automationRoutes } from '../../contract/families/automation';
import { scopeRef } from '../../store/scope';
import { RunWaiter } from '../runs/wait';
import { temporalUiLink } from '../temporal-ui';
import type { ReplayServices } from '../replay/module';
import type { SandboxServices } from '../sandbox/module';
import type { AutomationCtx } from './context';
import { create, get, list, setStatus, validate } from './definitions';
import { playbookCatalogFrom } from './replay-link';
import { cancelRun, resumeRun } from './run-control';
import { getAutomationRun, listRuns } from './run-reads';
import { startAutomationRun } from './start-run';

/** What the automation family offers other families (nothing yet). */
export type AutomationServices = Record<string, never>;

/**
 * The automation family: definitions (validate, create, get, list, status) and runs (one Temporal
 * workflow each; runs/get and runs/list answer from the store the workflow mirrors into).
 * Sandbox work reaches it through playbook nodes (child workflows), not through SandboxServices.
 */
export function createAutomationModule(deps: AppDeps, upstream: { replay: ReplayServices; sandbox: SandboxServices }): FamilyModule<typeof automationRoutes, AutomationServices> {
  const c: AutomationCtx = {
    db: deps.db,
    engine: deps.engine,
    clock: deps.clock,
    log: deps.log.child('automation'),
    playbooks: playbookCatalogFrom(upstream.replay),
    waiter: new RunWaiter(deps.log.child('automation')),
    uiLink: temporalUiLink(deps.runtime.temporal),
  };
  const refOf = (ctx: { tenant_id: string; scope: string }) => scopeRef(ctx.tenant_id, ctx.scope);
  return {
    services: {},
    handlers: {
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
    },
  };
}
