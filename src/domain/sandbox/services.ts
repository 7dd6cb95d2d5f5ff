import type { RouteInput } from '../../contract';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import type { ScopeRef } from '../../store/scope';
import { cancelRun } from './cancel';
import { requireEnabled, type SandboxCtx } from './context';
import { execute } from './execute';
import { getSandboxRun } from './runs';
import { createSession } from './sessions';

type Routes = typeof sandboxRoutes;

/** What the sandbox family offers other families (replay shadow validation, automation). */
export interface SandboxServices {
  createSession(ref: ScopeRef, input: RouteInput<Routes['sandbox.createSession']>, actor: string): ReturnType<typeof createSession>;
  execute(ref: ScopeRef, input: RouteInput<Routes['sandbox.execute']>, actor: string): ReturnType<typeof execute>;
  getRun(ref: ScopeRef, input: Parameters<typeof getSandboxRun>[2], signal?: AbortSignal): ReturnType<typeof getSandboxRun>;
  cancelRun(ref: ScopeRef, runId: string, reason?: string): ReturnType<typeof cancelRun>;
}

/** `fn`, refused with sandbox_disabled first when the sandbox is off: every route, and every service call, checks SANDBOX_ENABLED first. */
export const enabledOnly =
  <A extends unknown[], R>(c: Pick<SandboxCtx, 'config'>, fn: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    requireEnabled(c.config);
    return fn(...args);
  };

export function createSandboxServices(c: SandboxCtx): SandboxServices {
  return {
    createSession: enabledOnly(c, (ref, input, actor) => createSession(c, ref, input, actor)),
    execute: enabledOnly(c, (ref, input, actor) => execute(c, ref, input, actor)),
    getRun: enabledOnly(c, (ref, input, signal) => getSandboxRun(c, ref, input, signal)),
    cancelRun: enabledOnly(c, (ref, runId, reason) => cancelRun(c, ref, runId, reason)),
  };
}
