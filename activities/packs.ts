import { Context } from '@temporalio/activity';
import { LoreError } from '../src/contract/errors';
import { applyChunk } from '../src/domain/packs/apply';
import { NodeStore } from '../src/store/memory/nodes';
import { PackImportStore, emptyCounts, type ImportCounts, type ImportStatus } from '../src/store/packs/imports';
import { refOf } from '../src/store/scope';
import type { ActivityDeps } from './deps';

/**
 * Activities of the pack import workflow (workflows/packs.ts). Each chunk is applied with
 * idempotent upserts and counted once (PackImportStore.chunkDone), so a retried activity or a
 * replayed workflow changes nothing twice. Progress goes to the heartbeat details (visible in the
 * Temporal UI) and to the import record (visible through packs/import/status).
 */

export interface PackImportRef {
  import_id: string;
  tenant_id: string;
  scope: string;
}

function heartbeat(details: Record<string, unknown>): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    /* not inside an activity (direct calls in tests) */
  }
}

export function createPacksActivities(deps: ActivityDeps) {
  const store = new NodeStore(deps.db);
  const imports = new PackImportStore(deps.db);

  return {
    async packImportStart(input: PackImportRef): Promise<{ chunks_total: number; chunks_done: number }> {
      const ref = refOf(input);
      const rec = await imports.setStatus(ref, input.import_id, 'running', deps.clock.now());
      if (!rec) throw new LoreError('not_found', `pack import '${input.import_id}' does not exist in scope '${input.scope}'`, { import_id: input.import_id });
      return { chunks_total: rec.chunks_total, chunks_done: rec.chunks_done };
    },

    async packImportChunk(input: PackImportRef & { index: number }): Promise<ImportCounts> {
      const ref = refOf(input);
      heartbeat({ import_id: input.import_id, chunk: input.index, phase: 'reading' });
      const rec = await imports.get(ref, input.import_id);
      if (!rec) throw new LoreError('not_found', `pack import '${input.import_id}' does not exist in scope '${input.scope}'`, { import_id: input.import_id });
      // Applied and counted by an earlier attempt (whose worker died before reporting): answer with
      // what that attempt counted, so the workflow's progress adds up to the record's counts.
      if (rec.chunks_done > input.index) return rec.chunk_counts?.[String(input.index)] ?? emptyCounts();
      const chunk = await imports.chunk(ref, input.import_id, input.index);
      if (!chunk) throw new LoreError('not_found', `chunk ${input.index} of pack import '${input.import_id}' is missing`, { import_id: input.import_id, chunk: input.index });
      heartbeat({ import_id: input.import_id, chunk: input.index, phase: 'applying', nodes: chunk.nodes.length, revisions: chunk.revisions.length, edges: chunk.edges.length });
      const r = await applyChunk(
        store,
        ref,
        chunk,
        rec.remap_ids,
        (done) => heartbeat({ import_id: input.import_id, chunk: input.index, phase: 'applying', done }),
        deps.clock.now().toISOString(),
      );
      await imports.chunkDone(ref, input.import_id, input.index, r.counts, r.conflicts, deps.clock.now());
      heartbeat({ import_id: input.import_id, chunk: input.index, phase: 'done', ...r.counts });
      return r.counts;
    },

    async packImportFinish(input: PackImportRef & { status: Extract<ImportStatus, 'completed' | 'failed'>; error?: string | null }): Promise<void> {
      const ref = refOf(input);
      await imports.setStatus(ref, input.import_id, input.status, deps.clock.now(), input.error ?? null);
      await imports.dropChunks(ref, input.import_id);
    },
  };
}
