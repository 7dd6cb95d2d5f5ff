import type { Filter } from 'mongodb';
import { defineCollection, type Database } from '../database';
import type { ScopeRef } from '../scope';
import type { PackImportStatus } from '../../model/packs/vocabulary';

/**
 * Pack imports in progress: the import record (status, progress, counts) and the uploaded pack,
 * split into chunks so a large pack never has to fit one document, and so the workflow's
 * activities can read one chunk at a time. Chunks are deleted when the import ends.
 */

export type ImportStatus = PackImportStatus;

export interface ImportCounts {
  nodes_created: number;
  nodes_updated: number;
  nodes_unchanged: number;
  revisions_written: number;
  edges_written: number;
  /** Archived payloads stored in the cold store (or found there already). */
  cold_payloads_written: number;
  playbook_versions_created: number;
  playbook_versions_unchanged: number;
  automations_created: number;
  automations_unchanged: number;
  conflicts: number;
}

export interface ImportRecord {
  import_id: string;
  workflow_id: string;
  status: ImportStatus;
  remap_ids: boolean;
  source: { tenant_id: string; scope: string };
  content_hash: string;
  /** Absent counters (records of version-1 imports) are 0. */
  totals: { nodes: number; revisions: number; edges: number; cold_payloads?: number; playbook_versions?: number; automations?: number };
  chunks_total: number;
  chunks_done: number;
  counts: ImportCounts;
  /**
   * What was not imported (first 100): nodes whose client_id belongs to another node here, and
   * payloads, playbook versions or automations that exist here with other content (`kind`, `reason`).
   */
  conflicts: { id: string; client_id: string | null; kind?: string; reason?: string }[];
  /**
   * The counts of each chunk done, by index: an activity retried after its chunk was counted (the
   * worker died before reporting it) answers with them, so the workflow's progress and result
   * still add up to the record's counts.
   */
  chunk_counts?: Record<string, ImportCounts>;
  error: string | null;
  actor: string;
  created_at: string;
  updated_at: string;
}

export interface ImportChunk {
  index: number;
  nodes: unknown[];
  revisions: unknown[];
  edges: unknown[];
  /** Absent in chunks stored by a version-1 import. */
  cold_payloads?: unknown[];
  playbooks?: unknown[];
  automations?: unknown[];
}

type RecordDoc = Omit<ImportRecord, 'import_id'> & { _id: string };
type ChunkDoc = ImportChunk & { _id: string; import_id: string };

export const importsCollection = defineCollection({
  name: 'pack_imports',
  indexes: [{ key: { tenant_id: 1, scope: 1, _id: 1 }, name: 'scope_id', why: 'import status by id within a scope' }],
});
export const chunksCollection = defineCollection({
  name: 'pack_import_chunks',
  indexes: [{ key: { tenant_id: 1, scope: 1, import_id: 1, index: 1 }, name: 'scope_import_index', why: 'one chunk of an import; deleting an import’s chunks' }],
});

export const emptyCounts = (): ImportCounts => ({
  nodes_created: 0,
  nodes_updated: 0,
  nodes_unchanged: 0,
  revisions_written: 0,
  edges_written: 0,
  cold_payloads_written: 0,
  playbook_versions_created: 0,
  playbook_versions_unchanged: 0,
  automations_created: 0,
  automations_unchanged: 0,
  conflicts: 0,
});

const toRecord = (d: RecordDoc): ImportRecord => {
  const { _id, ...rest } = d as RecordDoc & { tenant_id?: string; scope?: string };
  const { tenant_id: _t, scope: _s, ...r } = rest;
  return { import_id: _id, ...r } as ImportRecord;
};

export class PackImportStore {
  constructor(private readonly db: Database) {}

  private records(ref: ScopeRef) {
    return this.db.scoped<RecordDoc>(importsCollection, ref);
  }

  private chunks(ref: ScopeRef) {
    return this.db.scoped<ChunkDoc>(chunksCollection, ref);
  }

  /** Stores the chunks first, then the record: a record never points at missing chunks. */
  async create(ref: ScopeRef, record: ImportRecord, chunks: ImportChunk[]): Promise<void> {
    const { import_id, ...rest } = record;
    for (let i = 0; i < chunks.length; i += 20) {
      await this.chunks(ref).insertMany(chunks.slice(i, i + 20).map((c) => ({ _id: `${import_id}:${c.index}`, import_id, ...c })));
    }
    await this.records(ref).insertOne({ _id: import_id, ...rest });
  }

  async get(ref: ScopeRef, importId: string): Promise<ImportRecord | null> {
    const d = await this.records(ref).findOne({ _id: importId } as Filter<RecordDoc>);
    return d ? toRecord(d) : null;
  }

  async chunk(ref: ScopeRef, importId: string, index: number): Promise<ImportChunk | null> {
    const d = await this.chunks(ref).findOne({ import_id: importId, index } as Filter<ChunkDoc>);
    return d
      ? {
          index: d.index,
          nodes: d.nodes,
          revisions: d.revisions,
          edges: d.edges,
          cold_payloads: d.cold_payloads ?? [],
          playbooks: d.playbooks ?? [],
          automations: d.automations ?? [],
        }
      : null;
  }

  async setStatus(ref: ScopeRef, importId: string, status: ImportStatus, at: Date, error: string | null = null): Promise<ImportRecord | null> {
    const d = await this.records(ref).findOneAndUpdate({ _id: importId } as Filter<RecordDoc>, { $set: { status, error, updated_at: at.toISOString() } });
    return d ? toRecord(d) : null;
  }

  /**
   * Counts a chunk once: the update only matches while chunks_done equals the chunk's index, so
   * an activity retried after it succeeded does not count twice.
   */
  async chunkDone(ref: ScopeRef, importId: string, index: number, counts: ImportCounts, conflicts: ImportRecord['conflicts'], at: Date): Promise<boolean> {
    const inc = Object.fromEntries(Object.entries(counts).map(([k, v]) => [`counts.${k}`, v]));
    const r = await this.records(ref).updateOne(
      { _id: importId, chunks_done: index } as Filter<RecordDoc>,
      {
        $inc: { ...inc, chunks_done: 1 },
        $set: { updated_at: at.toISOString(), status: 'running', [`chunk_counts.${index}`]: counts },
        ...(conflicts.length > 0 ? { $push: { conflicts: { $each: conflicts, $slice: 100 } } } : {}),
      } as never,
    );
    return r.matched > 0;
  }

  async dropChunks(ref: ScopeRef, importId: string): Promise<void> {
    await this.chunks(ref).deleteMany({ import_id: importId } as Filter<ChunkDoc>);
  }
}
