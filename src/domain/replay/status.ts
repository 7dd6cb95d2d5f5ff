import { LoreError, invalidState } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { loadVersion, nowIso, replayStores, type ReplayStoreCtx } from './context';
import type { PlaybookDoc, PlaybookStatus, StatusChange } from '../../model/replay/types';
import { effectiveStatus } from './views';

/**
 * Status changes of one playbook version (promote, review). A change never creates a version.
 *
 * At most one version is active: the active pointer (store/replay/active.ts) holds the active
 * version number and every activation is one atomic swap of it, so two concurrent promotes
 * cannot both leave their version active. The version documents mirror it (status `active`) and
 * are reconciled after each swap; reads derive the status from the pointer (views.ts), so a
 * mirror that lags for a moment is never shown. The version that loses the active slot becomes
 * `shadow`: still validated, one promote away from being active again (a rollback).
 */

export const DEMOTED_STATUS: PlaybookStatus = 'shadow';

export interface StatusChangeResult {
  doc: PlaybookDoc;
  previous_status: PlaybookStatus;
  status: PlaybookStatus;
  changed: boolean;
  /** The version that stopped being active because this one became active. */
  demoted: { version: number; status: PlaybookStatus } | null;
  active_version: number | null;
}

export interface StatusChangeOpts {
  actor: string;
  note: string | null;
  via: 'promote' | 'review';
  /** The change applies only to a version in this status (review: draft); invalid_state otherwise. */
  expected?: PlaybookStatus;
  /** Extra fields written with the change (e.g. the review record). */
  patch?: Partial<Pick<PlaybookDoc, 'review'>>;
}

const raced = (playbookId: string, version: number, what: string) =>
  new LoreError('conflict', `playbook '${playbookId}' version ${version} changed concurrently (${what}); read it again and retry`, { playbook_id: playbookId, version }, true);

export async function setVersionStatus(
  c: ReplayStoreCtx,
  ref: ScopeRef,
  playbookId: string,
  version: number | null | undefined,
  target: PlaybookStatus,
  opts: StatusChangeOpts,
): Promise<StatusChangeResult> {
  const { playbooks, active } = replayStores(c.db, ref);
  const doc = await loadVersion(playbooks, playbookId, version);
  const v = doc.version;
  const pointer = await active.get(playbookId);
  const current = effectiveStatus(doc, pointer);
  if (opts.expected && current !== opts.expected) {
    throw invalidState(`playbook '${playbookId}' version ${v} is ${current}; this needs a ${opts.expected} version`, current, { playbook_id: playbookId, version: v });
  }
  if (current === 'rejected') {
    throw invalidState(`playbook '${playbookId}' version ${v} was rejected; repair it into a new version instead`, current, { playbook_id: playbookId, version: v });
  }
  if (current === target) {
    return { doc, previous_status: current, status: current, changed: false, demoted: null, active_version: pointer };
  }
  const at = nowIso(c);
  const change: StatusChange = { from: current, to: target, via: opts.via, actor: opts.actor, note: opts.note, at };

  if (target !== 'active') {
    // Leaving the active slot: clear the pointer only if it still names this version.
    if (current === 'active') await active.clearIf(playbookId, v, at);
    const updated = await playbooks.setStatus(playbookId, v, doc.status, { status: target, updated_at: at, ...opts.patch }, change);
    if (!updated) throw raced(playbookId, v, `it is no longer ${doc.status}`);
    return { doc: updated, previous_status: current, status: target, changed: true, demoted: null, active_version: await active.get(playbookId) };
  }

  const previous = await active.swap(playbookId, v, at, () => uuidv7(c.clock.now().getTime()));
  let updated = await playbooks.setStatus(playbookId, v, doc.status, { status: 'active', updated_at: at, ...opts.patch }, change);
  if (!updated) {
    const now = await playbooks.get(playbookId, v);
    if (!now || now.status === 'rejected') {
      // Rejected while we were promoting it: give the slot back and say so.
      await active.restoreIf(playbookId, v, previous, at);
      throw raced(playbookId, v, 'it was rejected');
    }
    updated = await playbooks.update(playbookId, v, { status: 'active', updated_at: at, ...opts.patch });
  }

  let demoted: StatusChangeResult['demoted'] = null;
  if (previous !== null && previous !== v) {
    const d = await demote(c, ref, playbookId, previous, `replaced by version ${v}`, opts.actor);
    if (d) demoted = { version: previous, status: DEMOTED_STATUS };
  }

  // Reconcile with the pointer: whoever swapped last owns the slot.
  const winner = await reconcileActive(c, ref, playbookId, opts.actor);
  if (winner !== v) {
    throw new LoreError('conflict', `version race: playbook '${playbookId}' version ${winner ?? 'none'} became active concurrently; version ${v} is not active`, {
      playbook_id: playbookId,
      version: v,
      active_version: winner,
    });
  }
  return { doc: (await playbooks.get(playbookId, v)) ?? updated!, previous_status: current, status: 'active', changed: true, demoted, active_version: v };
}

/** Marks a version that lost the active slot as shadow (only if it is still marked active). */
async function demote(c: ReplayStoreCtx, ref: ScopeRef, playbookId: string, version: number, why: string, actor: string): Promise<PlaybookDoc | null> {
  const at = nowIso(c);
  return replayStores(c.db, ref).playbooks.setStatus(
    playbookId,
    version,
    'active',
    { status: DEMOTED_STATUS, updated_at: at },
    {
      from: 'active',
      to: DEMOTED_STATUS,
      via: 'demotion',
      actor,
      note: why,
      at,
    },
  );
}

/**
 * Brings the version documents in line with the pointer: every version still marked active that
 * the pointer does not name is demoted, and the pointer's version is marked active. The marked
 * versions are read before the pointer, so a version activated meanwhile (it is marked only after
 * its swap) is never demoted by mistake. Idempotent; returns the active version.
 */
export async function reconcileActive(c: ReplayStoreCtx, ref: ScopeRef, playbookId: string, actor: string): Promise<number | null> {
  const { playbooks, active } = replayStores(c.db, ref);
  const marked = await playbooks.withStatus(playbookId, 'active');
  const pointer = await active.get(playbookId);
  for (const stale of marked) {
    if (stale.version !== pointer) await demote(c, ref, playbookId, stale.version, pointer === null ? 'no longer active' : `version ${pointer} is active`, actor);
  }
  if (pointer !== null && !marked.some((m) => m.version === pointer)) {
    const doc = await playbooks.get(playbookId, pointer);
    if (doc && doc.status !== 'active' && doc.status !== 'rejected') await playbooks.setStatus(playbookId, pointer, doc.status, { status: 'active', updated_at: nowIso(c) });
  }
  return pointer;
}
