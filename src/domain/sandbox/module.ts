import type { FamilyDeps, FamilyModule } from '../family-module';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import { RunWaiter } from '../runs/wait';
import type { SandboxCtx, SandboxSettings } from './context';
import { createSandboxHandlers } from './handlers';
import { createSandboxServices, type SandboxServices } from './services';

export type { SandboxServices } from './services';

/** The sandbox family (docs/sandbox.md): sessions, and command runs as Temporal workflows whose activity runs the command isolated. */
export function createSandboxModule(deps: FamilyDeps, _upstream: Record<string, never>, settings: SandboxSettings): FamilyModule<typeof sandboxRoutes, SandboxServices> {
  const log = deps.log.child('sandbox');
  const c: SandboxCtx = {
    config: settings,
    db: deps.db,
    engine: deps.engine,
    clock: deps.clock,
    log,
    waiter: new RunWaiter(log),
    uiLink: deps.uiLink,
  };
  const services = createSandboxServices(c);
  return { services, handlers: createSandboxHandlers(c, services) };
}
