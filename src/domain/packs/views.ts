import type { PackConflictKind } from '../../model/packs/vocabulary';
import { emptyCounts, type ImportRecord } from '../../store/packs/imports';

/** An import record as packs/import and packs/import/status show it. */
export const toImportWire = (r: ImportRecord) => ({
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
