import type { RouteInput } from '../../contract';
import { LoreError, notFound } from '../../contract/errors';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import type { SessionRecordWire } from '../../contract/families/sandbox';
import { SANDBOX_WORKDIR } from '../../sandbox/isolation/index';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { sandboxStores, type SandboxCtx } from './context';
import { limitCaps, resolveLimits } from './limits';
import { profileInfo } from './profiles';
import type { SessionDoc } from '../../model/sandbox/records';
import { toSessionWire } from './views';
import { awaitHostReport, isolationFromReport, workspaceFromReport } from './status';
import { optionalWorkspace, type Workspace } from './workspace';

type CreateInput = RouteInput<(typeof sandboxRoutes)['sandbox.createSession']>;

export function sessionWire(s: SessionDoc): SessionRecordWire {
  return toSessionWire(s, { limit_caps: limitCaps(), ...profileInfo(s.profile), workdir: SANDBOX_WORKDIR });
}

/**
 * Creates a session record. The workdir itself is made by the worker on the first run (it lives
 * on the worker's host); its name comes from the server id, never from the caller's session_id.
 */
export async function createSession(c: Pick<SandboxCtx, 'config' | 'db' | 'clock'>, ref: ScopeRef, input: CreateInput, actor: string) {
  const { sessions } = sandboxStores(c.db, ref);
  const workspace = optionalWorkspace(c.config, input.workspace);
  if (input.session_id) {
    const existing = await sessions.get(input.session_id);
    if (existing) return repeat(existing, input, workspace);
  }
  const report = await awaitHostReport(c.config, c.db);
  const id = uuidv7(c.clock.now().getTime());
  const isolation = isolationFromReport(report);
  const doc: SessionDoc = {
    _id: id,
    session_id: input.session_id ?? id,
    profile: input.profile,
    isolation,
    limits: resolveLimits(input.limits),
    workdir_name: `s-${id}`,
    workspace: workspace ? workspaceFromReport(report, isolation.kind, workspace.path) : null,
    actor,
    created_at: c.clock.now().toISOString(),
  };
  const { session, created } = await sessions.create(doc);
  if (!created) return repeat(session, input, workspace);
  return { session_id: session.session_id, created: true, session: sessionWire(session) };
}

/** The same session_id again: the same session when the profile, limits and workspace agree, else conflict. */
function repeat(existing: SessionDoc, input: CreateInput, workspace: Workspace | null) {
  const sameLimits = JSON.stringify(existing.limits) === JSON.stringify(resolveLimits(input.limits));
  const sameWorkspace = (existing.workspace?.path ?? null) === (workspace?.path ?? null);
  if (existing.profile !== input.profile || (input.limits !== undefined && !sameLimits) || !sameWorkspace) {
    throw new LoreError('conflict', `sandbox session '${existing.session_id}' exists with a different profile, limits or workspace`, {
      session_id: existing.session_id,
      profile: existing.profile,
    });
  }
  return { session_id: existing.session_id, created: false, session: sessionWire(existing) };
}

export async function getSession(c: SandboxCtx, ref: ScopeRef, sessionId: string) {
  const s = await sandboxStores(c.db, ref).sessions.get(sessionId);
  if (!s) throw notFound('sandbox session', sessionId, ref.scope, { session_id: sessionId });
  return { session: sessionWire(s) };
}
