import type { PlaybookDoc, PlaybookStatus } from '../../model/replay/types';
import { type Database, defineCollection } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const playbooksCollection = defineCollection({
  name: 'replay_playbooks',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, playbook_id: 1, version: 1 },
      unique: true,
      name: 'scope_playbook_version',
      why: 'one document per version: two writers allocating the same next version cannot both insert it',
    },
    {
      key: { tenant_id: 1, scope: 1, playbook_id: 1, version: -1 },
      name: 'scope_playbook_versions_desc',
      why: 'get lists a playbook’s versions newest first; latest is the first (a unique index serves exact matches only)',
    },
    {
      key: { tenant_id: 1, scope: 1, playbook_id: 1, status: 1 },
      name: 'scope_playbook_status',
      why: 'promote finds versions still marked active to reconcile them with the active pointer',
    },
  ],
});

export type PlaybookPatch = Partial<Omit<PlaybookDoc, '_id' | 'playbook_id' | 'version' | 'created_at'>>;

/** Playbook versions of one tenant+scope. Status changes are conditional on the status read. */
export class ReplayPlaybooks {
  private readonly coll: ScopedCollection<PlaybookDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<PlaybookDoc>(playbooksCollection, ref);
  }

  async get(playbookId: string, version: number): Promise<PlaybookDoc | null> {
    return this.coll.findOne({ playbook_id: playbookId, version });
  }

  async latest(playbookId: string): Promise<PlaybookDoc | null> {
    const [doc] = await this.coll.find({ playbook_id: playbookId }, { sort: { version: -1 }, limit: 1 });
    return doc ?? null;
  }

  /** Every version, newest first (summaries only). */
  async versions(playbookId: string): Promise<Pick<PlaybookDoc, 'version' | 'status' | 'repair_of' | 'created_at'>[]> {
    return this.coll.find({ playbook_id: playbookId }, { sort: { version: -1 }, projection: { version: 1, status: 1, repair_of: 1, created_at: 1 } }) as never;
  }

  /**
   * The latest version of each of the first `limit` playbooks after `after` (a playbook_id), in
   * playbook_id order: one lookup per playbook on the (playbook_id, version desc) index, each
   * skipping past the previous playbook's versions.
   */
  async latestOfEach(after: string | null, limit: number): Promise<PlaybookDoc[]> {
    const out: PlaybookDoc[] = [];
    let last = after;
    while (out.length < limit) {
      const [doc] = await this.coll.find(last === null ? {} : { playbook_id: { $gt: last } }, { sort: { playbook_id: 1, version: -1 }, limit: 1 });
      if (!doc) break;
      out.push(doc);
      last = doc.playbook_id;
    }
    return out;
  }

  async withStatus(playbookId: string, status: PlaybookStatus): Promise<PlaybookDoc[]> {
    return this.coll.find({ playbook_id: playbookId, status });
  }

  /** Inserts a version; null when that version exists already (a racing writer took it). */
  async insert(doc: PlaybookDoc): Promise<PlaybookDoc | null> {
    return this.coll.insertNew(doc);
  }

  /**
   * Compare-and-set of a version's status: applies only while the status is still `expected`.
   * Null when it was not (a concurrent change won); the caller reports a conflict or retries.
   */
  async setStatus(
    playbookId: string,
    version: number,
    expected: PlaybookStatus,
    patch: PlaybookPatch & { status: PlaybookStatus },
    push?: PlaybookDoc['status_history'][number],
  ): Promise<PlaybookDoc | null> {
    const update: Record<string, unknown> = { $set: patch };
    if (push) update.$push = { status_history: push };
    return this.coll.findOneAndUpdate({ playbook_id: playbookId, version, status: expected }, update);
  }

  /** Versions of every playbook of the scope, by (playbook_id, version), a page after `after` (packs export them). */
  async page(after: { playbook_id: string; version: number } | null, limit: number): Promise<PlaybookDoc[]> {
    const filter = after ? { $or: [{ playbook_id: { $gt: after.playbook_id } }, { playbook_id: after.playbook_id, version: { $gt: after.version } }] } : {};
    return this.coll.find(filter as never, { sort: { playbook_id: 1, version: 1 }, limit });
  }

  async update(playbookId: string, version: number, patch: PlaybookPatch): Promise<PlaybookDoc | null> {
    return this.coll.findOneAndUpdate({ playbook_id: playbookId, version }, { $set: patch });
  }
}
