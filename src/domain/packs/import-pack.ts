import { notFound } from '../../contract/errors';
import type { packsRoutes } from '../../contract/families/packs';
import type { RouteInput } from '../../contract/route';
import { WaitTimeout, type Engine } from '../../engine/engine';
import type { Log } from '../../log';
import { idsHeldElsewhere } from '../../store/memory/pack-io';
import { type PackImportStore, emptyCounts, type ImportRecord } from '../../store/packs/imports';
import type { PackConflictKind } from '../../model/packs/vocabulary';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { uuidv7 } from '../../model/ids';
import type { MemoryServices } from '../memory/services';
import { chunkPack } from './apply';

/**
 * packs/import stores the uploaded pack in chunks, starts the pack_import workflow and waits up
 * to wait_ms for it; packs/import/status reads the import record the workflow's activities keep
 * current.
 */

export interface PackImportDeps {
  memory: MemoryServices;
  engine: Engine;
  clock: Clock;
  imports: PackImportStore;
  log: Log;
}

const view = (r: ImportRecord) => ({
  import_id: r.import_id,
  workflow_id: r.workflow_id,
  status: r.status,
  remap_ids: r.remap_ids,
  source: r.source,
  content_hash: r.content_hash,
  // Records of imports made before packs carried payloads, playbooks and automations lack these counters.
  totals: { cold_payloads: 0, playbook_versions: 0, automations: 0, ...r.totals },
  progress: { chunks_total: r.chunks_total, chunks_done: r.chunks_done },
  counts: { ...emptyCounts(), ...r.counts },
  conflicts: r.conflicts.map((c) => ({
    id: c.id,
    client_id: c.client_id,
    kind: (c.kind ?? 'node') as PackConflictKind,
    reason: c.reason ?? null,
  })),
  error: r.error,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

async function mustGet(imports: PackImportStore, ref: ScopeRef, importId: string): Promise<ImportRecord> {
  const r = await imports.get(ref, importId);
  if (!r) throw notFound('pack import', importId, ref.scope, { import_id: importId });
  return r;
}

/** Whether the pack's node ids belong to another scope of this database (then they are re-derived). */
async function needsRemap(memory: MemoryServices, ref: ScopeRef, ids: string[]): Promise<boolean> {
  for (let i = 0; i < ids.length; i += 1000) {
    if ((await idsHeldElsewhere(memory.store, ref, ids.slice(i, i + 1000))).length > 0) return true;
  }
  return false;
}

export async function startImport(deps: PackImportDeps, ref: ScopeRef, input: RouteInput<(typeof packsRoutes)['packs.import']>, actor: string) {
  const { memory, engine, clock, imports, log } = deps;
  const pack = input.pack;
  const now = clock.now();
  const importId = uuidv7(now.getTime());
  const workflowId = `pack-import-${importId}`;
  const chunks = chunkPack(pack);
  const record: ImportRecord = {
    import_id: importId,
    workflow_id: workflowId,
    status: 'queued',
    remap_ids: await needsRemap(
      memory,
      ref,
      pack.nodes.map((n) => n.id),
    ),
    source: pack.source,
    content_hash: pack.content_hash,
    totals: {
      nodes: pack.nodes.length,
      revisions: pack.revisions.length,
      edges: pack.edges.length,
      cold_payloads: pack.cold_payloads.length,
      playbook_versions: pack.playbooks.reduce((n, p) => n + p.versions.length, 0),
      automations: pack.automations.length,
    },
    chunks_total: chunks.length,
    chunks_done: 0,
    counts: emptyCounts(),
    conflicts: [],
    error: null,
    actor: actor,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await imports.create(ref, record, chunks);
  const req = {
    workflowType: 'packImportWorkflow',
    workflowId,
    args: [{ import_id: importId, tenant_id: ref.tenant_id, scope: ref.scope, chunks: chunks.length }],
    labels: { tenant_id: ref.tenant_id, scope: ref.scope, kind: 'pack_import' as const },
    summary: `import ${pack.nodes.length} nodes from ${pack.source.tenant_id}/${pack.source.scope} into ${ref.tenant_id}/${ref.scope}`,
    rejectDuplicate: true,
  };
  if (input.wait_ms === 0) {
    await engine.start(req);
  } else {
    try {
      await engine.execute(req, input.wait_ms);
    } catch (err) {
      if (!(err instanceof WaitTimeout)) {
        // A failed run has marked its record failed; anything else is a real error.
        const r = await imports.get(ref, importId);
        if (r?.status !== 'failed') throw err;
        log.warn(`pack import ${importId} failed: ${r.error}`);
      }
    }
  }
  return view(await mustGet(imports, ref, importId));
}

export async function getImportStatus(imports: PackImportStore, ref: ScopeRef, input: RouteInput<(typeof packsRoutes)['packs.importStatus']>) {
  return view(await mustGet(imports, ref, input.import_id));
}
