import type { FastifyInstance } from 'fastify';
import { registerAgentRoutes } from '../agents/routes';
import { routes } from '../contract';
import { buildOpenApi } from '../contract/openapi';
import { buildApp } from '../http/app';
import { registerInspector } from '../inspector/serve';
import type { Metrics } from '../http/metrics';
import type { AppDeps } from '../domain/app-deps';
import { createHandlers } from './handlers';
import { createModules, type Modules } from './modules';

export interface AssembledApi {
  app: FastifyInstance;
  modules: Modules;
  /** Closes the app, then stops modules in reverse order. */
  stop(): Promise<void>;
}

/** Modules → their start() (index loads etc.) → the Fastify app. Used by main.ts and by tests. */
export async function assembleApi(deps: AppDeps, metrics: Metrics): Promise<AssembledApi> {
  const modules = createModules(deps);
  const started: { stop?(): Promise<void> }[] = [];
  for (const m of Object.values(modules)) {
    await m.start?.();
    started.push(m);
  }
  const openapi = buildOpenApi(routes, deps.config.version);
  const app = buildApp({
    routes,
    handlers: createHandlers(deps, modules) as never,
    bodyLimit: deps.config.bodyLimit,
    apiKeys: deps.config.apiKeys,
    validateResponses: deps.config.validateResponses,
    metrics,
    openapi: () => openapi,
    log: deps.log,
    tracing: deps.telemetry?.http ?? null,
  });
  registerInspector(app);
  registerAgentRoutes(app, deps.config, deps.log);
  return {
    app,
    modules,
    async stop() {
      await app.close();
      for (const m of started.reverse()) await m.stop?.();
    },
  };
}
