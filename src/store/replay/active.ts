import type { ActivePointerDoc } from '../../model/replay/types';
import { type Database, defineCollection, isDuplicateKey } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const activeCollection = defineCollection({
  name: 'replay_playbook_active',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, playbook_id: 1 },
      unique: true,
      name: 'scope_playbook',
      why: 'one pointer per playbook: at most one active version, swapped with one atomic update (no transactions needed)',
    },
  ],
});

/**
 * The active version of each playbook. A single field per playbook is what makes "at most one
 * active version" hold under concurrent promotes: every change is one atomic findOneAndUpdate.
 */
export class ReplayActive {
  private readonly coll: ScopedCollection<ActivePointerDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<ActivePointerDoc>(activeCollection, ref);
  }

  async get(playbookId: string): Promise<number | null> {
    return (await this.coll.findOne({ playbook_id: playbookId }))?.version ?? null;
  }

  /** Makes `version` the active one; returns the version that was active before (null: none). */
  async swap(playbookId: string, version: number, at: string, newId: () => string): Promise<number | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        const before = await this.coll.findOneAndUpdate(
          { playbook_id: playbookId },
          { $set: { version, updated_at: at }, $setOnInsert: { _id: newId() } },
          { upsert: true, returnDocument: 'before' },
        );
        return before?.version ?? null;
      } catch (err) {
        // Two first-ever promotes raced on the upsert: the loser retries as an update.
        if (!isDuplicateKey(err) || attempt >= 3) throw err;
      }
    }
  }

  /**
   * Makes `version` the active one only when the playbook has none (a pack import: what the
   * target scope already activated stays). Returns the pointer as it is afterwards.
   */
  async setIfUnset(playbookId: string, version: number, at: string, newId: () => string): Promise<number | null> {
    const inserted = await this.coll.insertNew({ _id: newId(), playbook_id: playbookId, version, updated_at: at });
    if (!inserted) await this.coll.updateOne({ playbook_id: playbookId, version: null }, { $set: { version, updated_at: at } });
    return this.get(playbookId);
  }

  /** Every pointer of the scope (packs export which version is active). */
  async all(): Promise<{ playbook_id: string; version: number | null }[]> {
    return (await this.coll.find({})).map((d) => ({ playbook_id: d.playbook_id, version: d.version }));
  }

  /** Clears the pointer if it still names `version` (demoting the active version). True when it did. */
  async clearIf(playbookId: string, version: number, at: string): Promise<boolean> {
    const r = await this.coll.updateOne({ playbook_id: playbookId, version }, { $set: { version: null, updated_at: at } });
    return r.modified > 0;
  }

  /** Puts `previous` back if the pointer still names `version` (undoing a swap that lost a race). */
  async restoreIf(playbookId: string, version: number, previous: number | null, at: string): Promise<boolean> {
    const r = await this.coll.updateOne({ playbook_id: playbookId, version }, { $set: { version: previous, updated_at: at } });
    return r.modified > 0;
  }
}
