import type { SessionDoc } from '../../domain/sandbox/records';
import { Database, defineCollection } from '../database';
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
  constructor(db: Database, readonly ref: ScopeRef) {
    this.coll = db.scoped<SessionDoc>(sessionsCollection, ref);
  }

  async get(sessionId: string): Promise<SessionDoc | null> {
    return this.coll.findOne({ session_id: sessionId });
  }

  async getByKey(key: string): Promise<SessionDoc | null> {
    return this.coll.findOne({ _id: key });
  }

  /** Inserts a session; returns the existing one instead when the id is taken (a race or a repeat). */
  async create(doc: SessionDoc): Promise<{ session: SessionDoc; created: boolean }> {
    if (await this.coll.insertNew(doc)) return { session: doc, created: true };
    const existing = await this.get(doc.session_id);
    if (!existing) throw new Error(`store: sandbox session '${doc.session_id}' is taken but could not be read back`);
    return { session: existing, created: false };
  }
}
