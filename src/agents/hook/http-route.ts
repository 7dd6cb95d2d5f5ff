import type { FastifyInstance } from 'fastify';
import type { ApiKey } from '../../model/api-key';
import { bindApi } from '../../sdk/api.gen';
import { httpAgentIdentity } from '../http-binding';
import { injectCaller } from '../inject-caller';
import { projectScope } from '../project';
import { AGENTS, type AgentKind } from './agents';
import { handleHookEvent, errorText, type HookOutput } from './handler';
import { createHookLog } from './log';
import { parseHookEvent } from './payload';
import { HookStateStore } from './state';

/** The path an agent's HTTP hooks post their hook JSON to (and `lore hook --forward`). */
export const hookRoute = (agent: AgentKind) => `/v1/hooks/${agent}`;
export const HOOK_ROUTE = hookRoute('claude-code');
const BUDGET_MS = 900;

export interface HookRouteOptions {
  apiKeys: readonly ApiKey[];
  dataDir: string;
  /** LORE_HOOK_CONTEXT_CHARS. */
  contextChars: number;
}

/**
 * The same hook handler as `lore hook`, for agents that post their hook JSON over HTTP (Claude
 * Code's `"type": "http"` hooks, and `lore hook --forward`), one path per agent. It fails open
 * the same way: 200 within the budget, with added context or `{}`, whatever happens behind it
 * (the work goes on after the answer). Only a request Lore must refuse (no or a wrong API key, a
 * scope it cannot use) gets an error status, which the agent reports without stopping. The
 * tenant comes from the key, the scope from `?scope=`, X-Lore-Scope, or the name of the project
 * the event's cwd belongs to.
 */
export function registerHookRoute(app: FastifyInstance, opts: HookRouteOptions): void {
  const store = new HookStateStore(opts.dataDir);
  const log = createHookLog(opts.dataDir);
  // Its own body parser: malformed hook JSON is logged and answered 200, not refused.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    // Host, Origin and content type (JSON only) are checked for every route by src/http/request-guard.ts.
    for (const agent of AGENTS) registerOne(scope, agent);
  });

  function registerOne(scope: FastifyInstance, agent: AgentKind): void {
    scope.post(hookRoute(agent), async (req, reply) => {
      const text = typeof req.body === 'string' ? req.body : '';
      const parsed = parseHookEvent(text);
      const cwd = parsed.ok ? parsed.event.cwd : null;
      const who = httpAgentIdentity(req, opts.apiKeys, () => projectScope(cwd ?? '/'));
      if (!parsed.ok) {
        log.problem(null, `malformed hook input: ${parsed.problem}; nothing recorded`, { bytes: text.length, via: 'http' });
        return reply.code(200).send({});
      }
      // An HTTP hook's header whose variable is unset arrives empty: no scope named.
      const named = (v: unknown) => typeof v === 'string' && v.trim() !== '';
      const explicitScope = named((req.query as Record<string, unknown>)?.scope) || named(req.headers['x-lore-scope']);
      const work = handleHookEvent(parsed.event, {
        agent,
        contextChars: opts.contextChars,
        tenant: who.tenant_id,
        scope: explicitScope || !cwd ? who.scope : null,
        store,
        log,
        // The agent's machine is not this one: an event without cwd has no project here.
        cwd: '/',
        api: (binding) => bindApi(injectCaller(app, { apiKey: who.apiKey, timeoutMs: 30_000, defaults: { ...binding } })),
      }).catch((err): HookOutput | null => {
        log.problem(parsed.event.event, errorText(err), { session_id: parsed.event.session_id, via: 'http' });
        return null;
      });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => {
          log.problem(parsed.event.event, `no answer within ${BUDGET_MS} ms; answered without it`, { session_id: parsed.event.session_id, via: 'http' });
          resolve(null);
        }, BUDGET_MS);
      });
      const out = await Promise.race([work, late]);
      clearTimeout(timer);
      return reply.code(200).send(out ?? {});
    });
  }
}
