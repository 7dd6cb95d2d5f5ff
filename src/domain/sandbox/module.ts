import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { sandboxRoutes } from '../../contract/families/sandbox';

/** What the sandbox family offers other families. */
export type SandboxServices = Record<string, never>;

export function createSandboxModule(_deps: AppDeps, _upstream: Record<string, never>): FamilyModule<typeof sandboxRoutes, SandboxServices> {
  return { handlers: {}, services: {} };
}
