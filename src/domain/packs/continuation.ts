import { createHash } from 'node:crypto';
import { AutomationDefinitions } from '../../store/automation/index';
import type { Database } from '../../store/database';
import { ColdStore, coldKey, sha256 } from '../../store/lifecycle/cold-store';
import { ReplayActive, ReplayPlaybooks } from '../../store/replay/index';
import type { ScopeRef } from '../../store/scope';
import { canonicalJson } from '../automation/definitions';
import type { DefinitionDoc } from '../../model/automation/records';
import { validateGraph } from '../automation/validate-graph';
import { orderedDerivedUuid } from '../memory/derived-id';
import { sameJson } from '../replay/json';
import type { PlaybookDoc } from '../../model/replay/types';
import { validateContent } from '../replay/validate';
import type { PackAutomation, PackColdPayload, PackPlaybook, PackPlaybookVersion } from './format';
import type { PackConflictKind } from '../../model/packs/vocabulary';

/**
 * What a pack carries besides memory nodes, so work can continue in another scope or another
 * Lore (docs/memory.md, "Packs"): the archived payloads of its nodes (from the cold store, so an
 * archived node can be rehydrated byte for byte), the playbooks with every version, status and
 * which version is active, and the automation definitions. Export reads them; import writes them
 * idempotently: what is there with the same content is left alone (`unchanged`), what is there
 * with other content is reported as a conflict and never overwritten.
 */

const PAGE = 500;

/** Drops the store's own fields (server id, tenant, scope): the pack says whose they are. */
function strip<T extends { _id: string }>(d: T): Omit<T, '_id'> {
  const { _id, tenant_id: _t, scope: _s, ...rest } = d as T & { tenant_id?: string; scope?: string };
  void _id;
  return rest as Omit<T, '_id'>;
}

export async function exportColdPayloads(db: Database, ref: ScopeRef, nodeIds: string[]): Promise<PackColdPayload[]> {
  const out: PackColdPayload[] = [];
  const cold = new ColdStore(db);
  for (let i = 0; i < nodeIds.length; i += PAGE) {
    for (const d of await cold.forNodes(ref, nodeIds.slice(i, i + PAGE))) {
      out.push({
        node_id: d.node_id,
        revision: d.revision,
        client_id: d.client_id,
        content_hash: d.content_hash,
        sha256: d.sha256,
        payload_bytes: d.payload_bytes,
        relocated_at: d.relocated_at,
        run_id: d.run_id,
        text: d.text,
      });
    }
  }
  return out;
}

export async function exportPlaybooks(db: Database, ref: ScopeRef): Promise<PackPlaybook[]> {
  const playbooks = new ReplayPlaybooks(db, ref);
  const pointers = new Map((await new ReplayActive(db, ref).all()).map((p) => [p.playbook_id, p.version]));
  const byId = new Map<string, PackPlaybookVersion[]>();
  let after: { playbook_id: string; version: number } | null = null;
  for (;;) {
    const page = await playbooks.page(after, PAGE);
    for (const d of page) byId.set(d.playbook_id, [...(byId.get(d.playbook_id) ?? []), strip(d)]);
    if (page.length < PAGE) break;
    const last = page[page.length - 1]!;
    after = { playbook_id: last.playbook_id, version: last.version };
  }
  return [...byId.entries()].map(([playbook_id, versions]) => ({ playbook_id, active_version: pointers.get(playbook_id) ?? null, versions }));
}

export async function exportAutomations(db: Database, ref: ScopeRef): Promise<PackAutomation[]> {
  const defs = new AutomationDefinitions(db, ref);
  const out: PackAutomation[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await defs.list({ limit: PAGE, ...(after ? { after } : {}) });
    out.push(...page.map(strip));
    if (page.length < PAGE) break;
    after = page[page.length - 1]!._id;
  }
  return out;
}

export interface ContinuationCounts {
  cold_payloads_written: number;
  playbook_versions_created: number;
  playbook_versions_unchanged: number;
  automations_created: number;
  automations_unchanged: number;
  conflicts: number;
}

export interface ContinuationConflict {
  id: string;
  client_id: string | null;
  kind: Exclude<PackConflictKind, 'node'>;
  reason: string;
}

/**
 * A server id for an imported document: the same (scope, parts) always gives the same id, so a
 * second import finds the first one's document; its head is the document's creation time, so
 * lists in creation order keep it.
 */
export function importedId(createdAt: string, ref: ScopeRef, ...parts: string[]): string {
  const ms = Number.isFinite(Date.parse(createdAt)) ? Date.parse(createdAt) : 0;
  const hex = ms.toString(16).padStart(12, '0').slice(-12);
  return orderedDerivedUuid(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`, 'pack-import', ref.tenant_id, ref.scope, ...parts);
}

/** Archived payloads: each checked against its sha256, stored under its (mapped) node id; a payload stored before keeps its first copy. */
export async function importColdPayloads(
  db: Database,
  ref: ScopeRef,
  items: PackColdPayload[],
  map: (id: string) => string,
  counts: ContinuationCounts,
  conflicts: ContinuationConflict[],
) {
  const good = [];
  for (const p of items) {
    if (sha256(Buffer.from(p.text, 'utf8')) !== p.sha256) {
      conflicts.push({ id: coldKey(map(p.node_id), p.revision), client_id: p.client_id, kind: 'cold_payload', reason: 'the payload does not match its sha256' });
      counts.conflicts += 1;
      continue;
    }
    good.push({
      node_id: map(p.node_id),
      revision: p.revision,
      client_id: p.client_id,
      content_hash: p.content_hash,
      text: p.text,
      relocated_at: p.relocated_at,
      run_id: p.run_id,
    });
  }
  if (good.length === 0) return;
  const stored = await new ColdStore(db).putMany(ref, good);
  for (const g of good) {
    const r = stored.get(coldKey(g.node_id, g.revision));
    if (r && r.sha256 !== sha256(Buffer.from(g.text, 'utf8'))) {
      conflicts.push({ id: r.cold_key, client_id: g.client_id, kind: 'cold_payload', reason: 'another payload is stored under this key' });
      counts.conflicts += 1;
    } else counts.cold_payloads_written += 1;
  }
}

/** What makes two versions the same: everything but bookkeeping that differs between stores. */
const versionContent = (v: Pick<PlaybookDoc, 'name' | 'steps' | 'parameters' | 'sandbox_profile' | 'repair_of' | 'status'>) => ({
  name: v.name,
  steps: v.steps,
  parameters: v.parameters,
  sandbox_profile: v.sandbox_profile,
  repair_of: v.repair_of,
  status: v.status,
});

/** Playbooks: every version as exported (status, history, validation), then the active one when the target has none. */
export async function importPlaybooks(db: Database, ref: ScopeRef, items: PackPlaybook[], at: string, counts: ContinuationCounts, conflicts: ContinuationConflict[]) {
  const playbooks = new ReplayPlaybooks(db, ref);
  const active = new ReplayActive(db, ref);
  for (const pb of items) {
    let activeOk = false;
    for (const v of pb.versions) {
      const id = `${pb.playbook_id}@${v.version}`;
      const problems = v.playbook_id !== pb.playbook_id ? [{ path: 'playbook_id', message: `belongs to '${v.playbook_id}'` }] : validateContent(v.steps, v.parameters);
      if (problems.length > 0) {
        conflicts.push({
          id,
          client_id: null,
          kind: 'playbook_version',
          reason: `not imported: ${problems
            .map((p) => `${p.path}: ${p.message}`)
            .join('; ')
            .slice(0, 500)}`,
        });
        counts.conflicts += 1;
        continue;
      }
      const doc: PlaybookDoc = { ...v, _id: importedId(v.created_at, ref, 'playbook', pb.playbook_id, String(v.version)) };
      if (await playbooks.insert(doc)) {
        counts.playbook_versions_created += 1;
      } else {
        const existing = await playbooks.get(pb.playbook_id, v.version);
        if (existing && sameJson(versionContent(existing), versionContent(v))) counts.playbook_versions_unchanged += 1;
        else {
          conflicts.push({ id, client_id: null, kind: 'playbook_version', reason: 'this version exists here with other content; it was left as it is' });
          counts.conflicts += 1;
          continue;
        }
      }
      if (v.version === pb.active_version) activeOk = true;
    }
    if (pb.active_version !== null && activeOk) {
      await active.setIfUnset(pb.playbook_id, pb.active_version, at, () => importedId(at, ref, 'playbook-active', pb.playbook_id));
    }
  }
}

/** Automation definitions: the graph is checked again and the content hash recomputed; the same id with another hash is a conflict. */
export async function importAutomations(db: Database, ref: ScopeRef, items: PackAutomation[], counts: ContinuationCounts, conflicts: ContinuationConflict[]) {
  const defs = new AutomationDefinitions(db, ref);
  for (const a of items) {
    const check = validateGraph(a.graph as never);
    if (check.issues.length > 0) {
      conflicts.push({
        id: a.automation_id,
        client_id: null,
        kind: 'automation',
        reason: `not imported: ${check.issues
          .map((i) => `${i.path}: ${i.message}`)
          .join('; ')
          .slice(0, 500)}`,
      });
      counts.conflicts += 1;
      continue;
    }
    const hash = createHash('sha256')
      .update(canonicalJson({ name: a.name, description: a.description, graph: check.graph }))
      .digest('hex');
    const doc: DefinitionDoc = { ...a, graph: check.graph, content_hash: hash, _id: importedId(a.created_at, ref, 'automation', a.automation_id) };
    if (await defs.insert(doc)) {
      counts.automations_created += 1;
      continue;
    }
    const existing = await defs.get(a.automation_id);
    if (existing?.content_hash === hash) counts.automations_unchanged += 1;
    else {
      conflicts.push({ id: a.automation_id, client_id: null, kind: 'automation', reason: 'this automation exists here with other content; it was left as it is' });
      counts.conflicts += 1;
    }
  }
}
