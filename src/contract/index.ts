import { systemRoutes } from './families/system';
import { memoryRoutes } from './families/memory';
import { sessionsRoutes } from './families/sessions';
import { handoffRoutes } from './families/handoff';
import { packsRoutes } from './families/packs';
import { delegationRoutes } from './families/delegation';
import { learningRoutes } from './families/learning';
import { lifecycleRoutes } from './families/lifecycle';
import { sandboxRoutes } from './families/sandbox';
import { replayRoutes } from './families/replay';
import { automationRoutes } from './families/automation';

/**
 * The route table: every public route, once. Families live in ./families; adding a route there
 * makes the server refuse to compile until its handler exists, and regenerates the SDK and
 * OpenAPI document (npm run generate; a test fails when they are stale).
 */
export const routes = {
  ...systemRoutes,
  ...memoryRoutes,
  ...sessionsRoutes,
  ...handoffRoutes,
  ...packsRoutes,
  ...delegationRoutes,
  ...learningRoutes,
  ...lifecycleRoutes,
  ...sandboxRoutes,
  ...replayRoutes,
  ...automationRoutes,
} as const;

export type Routes = typeof routes;
export type RouteName = keyof Routes;
export { route } from './route';
export type { RouteAlias, RouteDef, RouteInput, RouteRequest, RouteResponse } from './route';
export { pathsOf } from './route';
