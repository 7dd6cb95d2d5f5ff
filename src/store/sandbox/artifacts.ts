import type { ArtifactDoc } from '../../model/sandbox/records';
import { Database, defineCollection } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const artifactsCollection = defineCollection({
  name: 'sandbox_artifacts',
  indexes: [{ key: { tenant_id: 1, scope: 1, run_key: 1, path: 1 }, name: 'scope_run_path', why: 'runs/artifact lists a run’s files in path order' }],
});

/** Files collected from the artifacts/ directory when a run ended, per tenant+scope. */
export class SandboxArtifacts {
  private readonly coll: ScopedCollection<ArtifactDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<ArtifactDoc>(artifactsCollection, ref);
  }

  async save(docs: ArtifactDoc[]): Promise<void> {
    // A document already there was collected before (a repeated settle).
    for (const d of docs) await this.coll.insertNew(d);
  }

  async list(runKey: string, paths?: string[]): Promise<ArtifactDoc[]> {
    const filter: Record<string, unknown> = { run_key: runKey };
    if (paths) filter.path = { $in: paths };
    const docs = await this.coll.find(filter, { sort: { path: 1 } });
    // The driver hands back BSON Binary; callers want bytes.
    return docs.map((d) => ({ ...d, content: d.content ? toBytes(d.content) : null }));
  }
}

export function toBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  const b = v as { buffer?: Uint8Array; value?: () => Uint8Array };
  if (b.buffer instanceof Uint8Array) return b.buffer;
  if (typeof b.value === 'function') return b.value();
  return new Uint8Array();
}
