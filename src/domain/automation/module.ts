import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { automationRoutes } from '../../contract/families/automation';
import type { ReplayServices } from '../replay/module';
import type { SandboxServices } from '../sandbox/module';

/** What the automation family offers other families. */
export type AutomationServices = Record<string, never>;

export function createAutomationModule(_deps: AppDeps, _upstream: { replay: ReplayServices; sandbox: SandboxServices }): FamilyModule<typeof automationRoutes, AutomationServices> {
  return { handlers: {}, services: {} };
}
