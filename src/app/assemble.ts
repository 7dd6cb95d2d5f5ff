import type { FastifyInstance } from 'fastify';
import { registerAgentRoutes } from '../agents/routes';
import type { Config } from '../config';
import { routes } from '../contract';
import { buildOpenApi } from '../contract/openapi';
import { buildApp } from '../http/app';
import { registerInspector } from '../inspector/serve';
import type { Metrics } from '../http/metrics';
import type { AppDeps } from './deps';
import type { Log } from '../log';
import type { ApiKey } from '../model/api-key';
import { ensureInstallToken, installTokenPath } from '../model/install-token';
import { createHandlers } from './handlers';
import { createModules, type Modules } from './modules';

export interface AssembledApi {
  app: FastifyInstance;
  modules: Modules;
  /** The install token when every request must present it (LORE_REQUIRE_TOKEN), else null. */
  requiredToken: string | null;
  /** Closes the app, then stops modules in reverse order. */
  stop(): Promise<void>;
}

/**
 * The keys a request may present: LORE_API_KEYS when set; otherwise the install token, written at
 * the first start (docs/security.md), which is required with LORE_REQUIRE_TOKEN and only kept
 * ready for the clients that read it without.
 */
export function requestKeys(config: Config, log: Log): { keys: readonly ApiKey[]; requiredToken: string | null } {
  if (config.apiKeys.length > 0) return { keys: config.apiKeys, requiredToken: null };
  try {
    const { token, created } = ensureInstallToken(config.dataDir);
    if (created) log.info(`install token written to ${installTokenPath(config.dataDir)} (mode 0600; docs/security.md)`);
    return config.requireToken ? { keys: [{ key: token, tenant: null }], requiredToken: token } : { keys: [], requiredToken: null };
  } catch (err) {
    const why = `the install token could not be written to ${installTokenPath(config.dataDir)}: ${(err as Error).message}`;
    if (config.requireToken) throw new Error(`LORE_REQUIRE_TOKEN is on but ${why}`);
    log.warn(`${why}; clients cannot pick it up (it is only needed with LORE_REQUIRE_TOKEN)`);
    return { keys: [], requiredToken: null };
  }
}

/** Modules → their start() (index loads etc.) → the Fastify app. Used by main.ts and by tests. */
export async function assembleApi(deps: AppDeps, metrics: Metrics): Promise<AssembledApi> {
  const { keys, requiredToken } = requestKeys(deps.config, deps.log);
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
    apiKeys: keys,
    validateResponses: deps.config.validateResponses,
    metrics,
    openapi: () => openapi,
    log: deps.log,
    tracing: deps.telemetry?.http ?? null,
    guard: { bindHost: deps.config.host, allowedHosts: deps.config.allowedHosts },
  });
  registerInspector(app);
  registerAgentRoutes(app, { config: deps.config, apiKeys: keys, sandboxStatus: deps.sandboxStatus, log: deps.log });
  return {
    app,
    modules,
    requiredToken,
    async stop() {
      await app.close();
      for (const m of started.reverse()) await m.stop?.();
    },
  };
}
