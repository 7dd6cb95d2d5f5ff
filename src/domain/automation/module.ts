import type { FamilyDeps, FamilyModule } from '../family-module';
import type { automationRoutes } from '../../contract/families/automation';
import { RunWaiter } from '../runs/wait';
import type { ReplayServices } from '../replay/module';
import type { SandboxServices } from '../sandbox/module';
import type { AutomationCtx } from './context';
import { createAutomationHandlers } from './handlers';
import { playbookCatalogFrom } from './replay-link';

/** What the automation family offers other families (nothing yet). */
export type AutomationServices = Record<string, never>;

/**
 * The automation family: definitions (validate, create, get, list, status) and runs (one Temporal
 * workflow each; runs/get and runs/list answer from the store the workflow mirrors into).
 * Sandbox work reaches it through playbook nodes (child workflows), not through SandboxServices.
 */
export function createAutomationModule(
  deps: FamilyDeps,
  upstream: { replay: ReplayServices; sandbox: SandboxServices },
): FamilyModule<typeof automationRoutes, AutomationServices> {
  const c: AutomationCtx = {
    db: deps.db,
    engine: deps.engine,
    clock: deps.clock,
    log: deps.log.child('automation'),
    playbooks: playbookCatalogFrom(upstream.replay),
    waiter: new RunWaiter(deps.log.child('automation')),
    uiLink: deps.uiLink,
  };
  return { services: {}, handlers: createAutomationHandlers(c) };
}
