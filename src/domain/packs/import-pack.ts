import { notFound } from '../../contract/errors';
import type { packsRoutes } from '../../contract/families/packs';
import type { RouteInput } from '../../contract/route';
import { WaitTimeout } from '../../engine/engine';
import { idsHeldElsewhere } from '../../store/memory/pack-io';
import { emptyCounts, type ImportRecord, type PackImportStore } from '../../store/packs/imports';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import type { MemoryServices } from '../memory/context';
import { chunkPack } from './apply';
import type { PacksCtx } from './context';
import { toImportWire } from './views';

/**
 * packs/import stores the uploaded pack in chunks, starts the pack_import workflow and waits up
 * to wait_ms for it; packs/import/status reads the import record the workflow's activities keep
 * current.
 */

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

export async function startImport(deps: PacksCtx, ref: ScopeRef, input: RouteInput<(typeof packsRoutes)['packs.import']>, actor: string) {
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
  return toImportWire(await mustGet(imports, ref, importId));
}

export async function getImportStatus(imports: PackImportStore, ref: ScopeRef, input: RouteInput<(typeof packsRoutes)['packs.importStatus']>) {
  return toImportWire(await mustGet(imports, ref, input.import_id));
}
