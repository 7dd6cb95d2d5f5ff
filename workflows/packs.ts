/** Workflows of the packs family (deterministic code only). */
import { ApplicationFailure, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createPacksActivities } from '../activities/packs';

type PacksActivities = ReturnType<typeof createPacksActivities>;

const acts = proxyActivities<PacksActivities>({
  startToCloseTimeout: '10 minutes',
  // A chunk heartbeats as it goes (reading, then after its nodes, revisions and edges: each part
  // is at most ~1 MB of upserts); a worker that died mid-chunk is noticed within 20 seconds.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10, nonRetryableErrorTypes: ['not_found', 'invalid_request'] },
});

export interface PackImportInput {
  import_id: string;
  tenant_id: string;
  scope: string;
  chunks: number;
}

export interface PackImportCounts {
  nodes_created: number;
  nodes_updated: number;
  nodes_unchanged: number;
  revisions_written: number;
  edges_written: number;
  conflicts: number;
}

export interface PackImportProgress {
  import_id: string;
  chunks_total: number;
  chunks_done: number;
  counts: PackImportCounts;
}

/** Live progress of an import (Temporal UI → Queries → progress, or Engine.query). */
export const packImportProgressQuery = defineQuery<PackImportProgress>('progress');

/**
 * Imports an uploaded pack chunk by chunk (the chunks are in MongoDB; the workflow only carries
 * their count). Restartable: a worker restart resumes at the chunk it was on.
 */
export async function packImportWorkflow(input: PackImportInput): Promise<PackImportProgress> {
  const ref = { import_id: input.import_id, tenant_id: input.tenant_id, scope: input.scope };
  const progress: PackImportProgress = {
    import_id: input.import_id,
    chunks_total: input.chunks,
    chunks_done: 0,
    counts: { nodes_created: 0, nodes_updated: 0, nodes_unchanged: 0, revisions_written: 0, edges_written: 0, conflicts: 0 },
  };
  setHandler(packImportProgressQuery, () => progress);
  try {
    await acts.packImportStart(ref);
    for (let index = 0; index < input.chunks; index += 1) {
      const c = await acts.packImportChunk({ ...ref, index });
      for (const k of Object.keys(progress.counts) as (keyof PackImportCounts)[]) progress.counts[k] += c[k];
      progress.chunks_done = index + 1;
    }
    await acts.packImportFinish({ ...ref, status: 'completed' });
    return progress;
  } catch (err) {
    const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    await acts.packImportFinish({ ...ref, status: 'failed', error: message });
    throw ApplicationFailure.nonRetryable(`pack import ${input.import_id} failed: ${message}`, 'internal');
  }
}
