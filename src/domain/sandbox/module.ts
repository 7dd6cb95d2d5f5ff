import type { AppDeps } from '../app-deps';
import type { FamilyModule } from '../family-module';
import type { RouteInput } from '../../contract';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import { scopeRef, type ScopeRef } from '../../store/scope';
import { RunWaiter } from '../runs/wait';
import { temporalUiLink } from '../temporal-ui';
import { runArtifact } from './artifact';
import { cancelRun } from './cancel';
import { requireEnabled, type SandboxCtx } from './context';
import { execute } from './execute';
import { getSandboxRun, listRuns, runLogs } from './runs';
import { createSession, getSession } from './sessions';
import { sessionDiff } from './workspace-diff';

type Routes = typeof sandboxRoutes;

/** What the sandbox family offers other families (replay shadow validation, automation). */
export interface SandboxServices {
  createSession(ref: ScopeRef, input: RouteInput<Routes['sandbox.createSession']>, actor: string): ReturnType<typeof createSession>;
  execute(ref: ScopeRef, input: RouteInput<Routes['sandbox.execute']>, actor: string): ReturnType<typeof execute>;
  getRun(ref: ScopeRef, input: Parameters<typeof getSandboxRun>[2], signal?: AbortSignal): ReturnType<typeof getSandboxRun>;
  cancelRun(ref: ScopeRef, runId: string, reason?: string): ReturnType<typeof cancelRun>;
}

export function createSandboxModule(deps: AppDeps, _upstream: Record<string, never>): FamilyModule<Routes, SandboxServices> {
  const log = deps.log.child('sandbox');
  const c: SandboxCtx = {
    config: deps.config,
    db: deps.db,
    engine: deps.engine,
    clock: deps.clock,
    log,
    waiter: new RunWaiter(log),
    uiLink: temporalUiLink(deps.runtime.temporal),
  };
  // Every route, and every service call, checks SANDBOX_ENABLED first.
  const gate =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      requireEnabled(c.config);
      return fn(...args);
    };
  const services: SandboxServices = {
    createSession: gate((ref, input, actor) => createSession(c, ref, input, actor)),
    execute: gate((ref, input, actor) => execute(c, ref, input, actor)),
    getRun: gate((ref, input, signal) => getSandboxRun(c, ref, input, signal)),
    cancelRun: gate((ref, runId, reason) => cancelRun(c, ref, runId, reason)),
  };
  const refOf = (ctx: { tenant_id: string; scope: string }) => scopeRef(ctx.tenant_id, ctx.scope);
  return {
    services,
    handlers: {
      'sandbox.createSession': (input, ctx) => services.createSession(refOf(ctx), input, ctx.actor),
      'sandbox.getSession': gate(async (input, ctx) => getSession(c, refOf(ctx), input.session_id)),
      'sandbox.sessionDiff': gate(async (input, ctx) => sessionDiff(c, refOf(ctx), input)),
      'sandbox.execute': (input, ctx) => services.execute(refOf(ctx), input, ctx.actor),
      'sandbox.getRun': (input, ctx) => services.getRun(refOf(ctx), input, ctx.signal),
      'sandbox.runs.list': gate(async (input, ctx) => listRuns(c, refOf(ctx), input)),
      'sandbox.runLogs': gate(async (input, ctx) => runLogs(c, refOf(ctx), input)),
      'sandbox.runArtifact': gate(async (input, ctx) => runArtifact(c, refOf(ctx), input)),
      'sandbox.cancelRun': (input, ctx) => services.cancelRun(refOf(ctx), input.run_id, input.reason),
    },
  };
}
