import type { SessionDoc } from '../../model/sandbox/records';
import { type Database, defineCollection } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const sessionsCollection = defineCollection({
  name: 'sandbox_sessions',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, session_id: 1 },
      unique: true,
      name: 'scope_session_id',
      why: 'execute and sessions/get look a session up by its caller-visible id; one id per scope',
    },
  ],
});

/** Sandbox sessions of one tenant+scope. */
export class SandboxSessions {
  private readonly coll: ScopedCollection<SessionDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<SessionDoc>(sessionsCollection, ref);
  }

  async get(sessionId: string): Promise<SessionDoc | null> {
    return this.coll.findOne({ session_id: sessionId });
  }

  async getByKey(key: string): Promise<SessionDoc | null> {
    return this.coll.findOne({ _id: key });
  }

  /** Records that a run of the session was created at `at` (what workdir retention measures idleness by). */
  async touch(key: string, at: string): Promise<void> {
    await this.coll.updateOne({ _id: key }, { $max: { last_run_at: at } });
  }

  /** Inserts a session; returns the existing one instead when the id is taken (a race or a repeat). */
  async create(doc: SessionDoc): Promise<{ session: SessionDoc; created: boolean }> {
    if (await this.coll.insertNew(doc)) return { session: doc, created: true };
    const existing = await this.get(doc.session_id);
    if (!existing) throw new Error(`store: sandbox session '${doc.session_id}' is taken but could not be read back`);
    return { session: existing, created: false };
  }
}

/**
 * Sessions by server id whatever their tenant and scope: what the worker's workdir retention
 * reads, since a workdir on its host is named by that id alone (never by caller input).
 */
export class SandboxSessionsOnHost {
  constructor(private readonly db: Database) {}

  byKey(key: string) {
    return this.db.raw<SessionDoc>(sessionsCollection).findOne({ _id: key });
  }

  /** Records that the session's workdir is being removed by retention (before its files go). */
  async markWorkdirRemoved(key: string, at: string): Promise<void> {
    await this.db.raw<SessionDoc>(sessionsCollection).updateOne({ _id: key }, { $set: { workdir_removed_at: at } });
  }
}
