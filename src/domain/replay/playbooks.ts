import type { ScopeRef } from '../../store/scope';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import { loadVersion, replayStores, type ReplayCtx } from './context';
import { setVersionStatus, type StatusChangeResult } from './status';
import type { PromoteTarget } from '../../model/replay/types';
import { effectiveStatus, playbookView } from './views';

/** playbooks/get and playbooks/promote. */

export async function getPlaybook(c: ReplayCtx, ref: ScopeRef, input: { playbook_id: string; version?: number | undefined }) {
  const { playbooks, active } = replayStores(c.db, ref);
  const doc = await loadVersion(playbooks, input.playbook_id, input.version);
  const pointer = await active.get(doc.playbook_id);
  const versions = await playbooks.versions(doc.playbook_id);
  return {
    playbook: playbookView(doc, pointer),
    active_version: pointer,
    latest_version: versions[0]?.version ?? doc.version,
    versions: versions.map((v) => ({ version: v.version, status: effectiveStatus(v, pointer), repair_of: v.repair_of, created_at: v.created_at })),
  };
}

/** playbooks/list: the latest version of each playbook, a page at a time. */
export async function listPlaybooks(c: ReplayCtx, ref: ScopeRef, input: { limit: number; cursor?: string | undefined }) {
  const { playbooks, active } = replayStores(c.db, ref);
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'replay.playbooks.list') : null;
  const docs = await playbooks.latestOfEach(after, input.limit + 1);
  const shown = docs.slice(0, input.limit);
  const pointers = await Promise.all(shown.map((d) => active.get(d.playbook_id)));
  return {
    playbooks: shown.map((d, i) => ({
      playbook_id: d.playbook_id,
      name: d.name,
      latest_version: d.version,
      status: effectiveStatus(d, pointers[i] ?? null),
      active_version: pointers[i] ?? null,
      created_at: d.created_at,
      updated_at: d.updated_at,
    })),
    next_cursor: docs.length > input.limit ? encodeCursor('replay.playbooks.list', shown[shown.length - 1]!.playbook_id) : null,
  };
}

/**
 * Tells learning that a version became active: the workflows learned from its runs (and from its
 * source run) become stable (contract.md §3). Learning failing never undoes the promotion.
 */
export async function announceActive(c: ReplayCtx, ref: ScopeRef, r: StatusChangeResult): Promise<{ workflows_updated: string[] } | null> {
  if (!r.changed || r.status !== 'active') return null;
  try {
    return await c.learning.playbookStatusChanged(ref, { playbook_id: r.doc.playbook_id, status: 'active', source_run_id: r.doc.source_run_id });
  } catch (err) {
    c.log.warn(`learning was not told that playbook '${r.doc.playbook_id}' version ${r.doc.version} is active: ${(err as Error).message}`);
    return null;
  }
}

export function statusAnswer(r: StatusChangeResult, learning: { workflows_updated: string[] } | null) {
  return {
    playbook_id: r.doc.playbook_id,
    version: r.doc.version,
    previous_status: r.previous_status,
    status: r.status,
    changed: r.changed,
    demoted: r.demoted,
    active_version: r.active_version,
    learning,
    playbook: playbookView(r.doc, r.active_version),
  };
}

export async function promotePlaybook(
  c: ReplayCtx,
  ref: ScopeRef,
  input: { playbook_id: string; version?: number | undefined; target_status: PromoteTarget; note?: string | undefined },
  actor: string,
) {
  const r = await setVersionStatus(c, ref, input.playbook_id, input.version, input.target_status, { actor, note: input.note ?? null, via: 'promote' });
  return statusAnswer(r, await announceActive(c, ref, r));
}
