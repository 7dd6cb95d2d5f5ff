import { createHash } from 'node:crypto';
import { LoreError, invalidState } from '../../contract/errors';
import type { delegationRoutes } from '../../contract/families/delegation';
import type { DELEGATION_STATUSES } from '../../model/delegation/vocabulary';
import type { RouteInput } from '../../contract/route';
import type { DelegationRecord, DelegationStore } from '../../store/delegation/records';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { uuidv7 } from '../../model/ids';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import { canonical } from '../packs/format';
import { normaliseDelegation } from './records-v1';

type In<K extends keyof typeof delegationRoutes> = RouteInput<(typeof delegationRoutes)[K]>;

const FINAL = new Set(['completed', 'failed', 'cancelled']);

/** The record as the API shows it (the store's internal id and content hash stay inside). */
const view = (r: DelegationRecord) => {
  const { id: _id, content_hash: _h, ...rest } = r;
  return { ...rest, status: r.status as (typeof DELEGATION_STATUSES)[number] };
};

/** Creates or revises a delegation record; an unchanged write is deduplicated, a final status cannot change. */
export async function writeRecord(store: DelegationStore, clock: Clock, ref: ScopeRef, input: In<'delegation.write'>, actor: string) {
  const now = clock.now();
  const at = now.toISOString();
  const recordId = input.record_id ?? uuidv7(now.getTime());
  const n = normaliseDelegation(input);
  const content = {
    from_agent: input.from_agent ?? actor,
    to_agent: n.to_agent,
    task: n.task,
    status: n.status,
    result: n.result,
    run_id: input.run_id ?? null,
    session_id: input.session_id ?? null,
    parent_record_id: input.parent_record_id ?? null,
    target_files: n.target_files,
    metadata: n.metadata,
    tags: input.tags ?? [],
  };
  const hash = createHash('sha256').update(canonical(content)).digest('hex');
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const existing = await store.get(ref, recordId);
    if (!existing) {
      const fresh: DelegationRecord = {
        id: uuidv7(now.getTime()),
        record_id: recordId,
        ...content,
        content_hash: hash,
        revision: 1,
        history: [{ revision: 1, status: content.status, actor: actor, at }],
        actor: actor,
        created_at: at,
        updated_at: at,
      };
      if ((await store.insert(ref, fresh)) === 'created') return { record: view(fresh), outcome: 'created' as const };
      continue; // created concurrently: treat as an update
    }
    if (existing.content_hash === hash) return { record: view(existing), outcome: 'deduplicated' as const };
    if (FINAL.has(existing.status) && existing.status !== content.status) {
      throw invalidState(`delegation record '${recordId}' is ${existing.status}; its status cannot change to ${content.status}`, existing.status, { record_id: recordId });
    }
    const updated = await store.update(
      ref,
      existing.id,
      existing.revision,
      { ...content, content_hash: hash, actor: actor, updated_at: at },
      {
        revision: existing.revision + 1,
        status: content.status,
        actor: actor,
        at,
      },
    );
    if (updated) return { record: view(updated), outcome: 'updated' as const };
  }
  throw new LoreError('conflict', `delegation record '${recordId}' is being changed concurrently; retry`, { record_id: recordId }, true);
}

export async function findRecords(store: DelegationStore, ref: ScopeRef, input: In<'delegation.find'>) {
  const ids = [...(input.record_id ? [input.record_id] : []), ...(input.record_ids ?? [])];
  const statuses = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'delegation.find') : undefined;
  const page = await store.find(
    ref,
    {
      record_ids: ids.length > 0 ? ids : undefined,
      from_agent: input.from_agent,
      to_agent: input.to_agent ?? input.route_role,
      statuses,
      run_id: input.run_id,
      session_id: input.session_id,
    },
    { limit: input.limit + 1, after },
  );
  const more = page.length > input.limit;
  const shown = more ? page.slice(0, input.limit) : page;
  return { records: shown.map(view), next_cursor: more ? encodeCursor('delegation.find', shown[shown.length - 1]!.id) : null };
}
