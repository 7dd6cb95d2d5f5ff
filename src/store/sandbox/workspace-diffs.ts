import type { WorkspaceBlobDoc, WorkspaceDiffDoc } from '../../model/sandbox/records';
import { Database, defineCollection } from '../database';
import { isDuplicateKey } from '../mongo-errors';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';
import { toBytes } from './artifacts';

export const workspaceDiffsCollection = defineCollection({ name: 'sandbox_workspace_diffs', indexes: [] });

export const workspaceBlobsCollection = defineCollection({
  name: 'sandbox_workspace_blobs',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, session_key: 1, sha256: 1 },
      name: 'scope_session_sha',
      why: 'a diff read stores only the contents its session lacks, and drops those no change names any more',
    },
  ],
});

/** What workspace sessions changed (one diff per session) and the changed files' contents, per tenant+scope. */
export class SandboxWorkspaceDiffs {
  private readonly diffs: ScopedCollection<WorkspaceDiffDoc>;
  private readonly blobs: ScopedCollection<WorkspaceBlobDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.diffs = db.scoped<WorkspaceDiffDoc>(workspaceDiffsCollection, ref);
    this.blobs = db.scoped<WorkspaceBlobDoc>(workspaceBlobsCollection, ref);
  }

  get(sessionKey: string): Promise<WorkspaceDiffDoc | null> {
    return this.diffs.findOne({ _id: sessionKey });
  }

  /** Stores a diff unless a later read (a higher seq) is stored already; true when stored. */
  async put(doc: WorkspaceDiffDoc): Promise<boolean> {
    const { _id, ...rest } = doc;
    try {
      const r = await this.diffs.updateOne({ _id, seq: { $lt: doc.seq } }, { $set: rest }, { upsert: true });
      return r.matched > 0 || r.upserted;
    } catch (err) {
      // The filter missed an existing document with a later seq, and the upsert hit its _id.
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Which of these contents the session has stored already. */
  async storedShas(sessionKey: string, shas: string[]): Promise<Set<string>> {
    if (shas.length === 0) return new Set();
    const docs = await this.blobs.find({ session_key: sessionKey, sha256: { $in: shas } }, { projection: { sha256: 1 } });
    return new Set(docs.map((d) => d.sha256));
  }

  async saveBlobs(docs: WorkspaceBlobDoc[]): Promise<void> {
    for (const d of docs) await this.blobs.insertNew(d);
  }

  /** Drops the session's contents that no change of its current diff names. */
  async dropBlobsExcept(sessionKey: string, keep: string[]): Promise<number> {
    return this.blobs.deleteMany({ session_key: sessionKey, sha256: { $nin: keep } });
  }

  async contents(sessionKey: string, shas: string[]): Promise<Map<string, WorkspaceBlobDoc>> {
    if (shas.length === 0) return new Map();
    const docs = await this.blobs.find({ session_key: sessionKey, sha256: { $in: shas } });
    return new Map(docs.map((d) => [d.sha256, { ...d, content: toBytes(d.content) }]));
  }
}
