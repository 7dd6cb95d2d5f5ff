import { createHash } from 'node:crypto';
import type { RouteInput } from '../../contract';
import { LoreError, invalidState, type Issue } from '../../contract/errors';
import type { automationRoutes } from '../../contract/families/automation';
import type { ScopeRef } from '../../store/scope';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import { uuidv7 } from '../../model/ids';
import { loadDefinition, automationStores, type AutomationCtx } from './context';
import type { Graph } from '../../model/automation/graph';
import { checkPlaybooks } from './playbooks';
import type { DefinitionDoc, DefinitionStatus } from '../../model/automation/records';
import { toDefinitionWire } from './views';
import { validateGraph, type GraphCheck } from './validate-graph';

type Routes = typeof automationRoutes;

/** JSON with object keys sorted at every level: equal content gives an equal hash. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The graph checks plus playbook existence (when the replay family can tell). */
export async function checkGraph(c: AutomationCtx, ref: ScopeRef, raw: { nodes: unknown[]; edges: unknown[] }): Promise<GraphCheck> {
  const check = validateGraph(raw);
  check.issues.push(...(await checkPlaybooks(c.playbooks, ref, check.graph, check.paths)));
  return check;
}

export function validationFailed(issues: Issue[]): LoreError {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new LoreError('validation_failed', `the automation graph is invalid: ${first ? `${first.path}: ${first.message}` : 'unknown problem'}${more}`, { issues });
}

export async function validate(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.validate']>) {
  const check = await checkGraph(c, ref, input.graph);
  return {
    valid: check.issues.length === 0,
    issues: check.issues,
    node_count: input.graph.nodes.length,
    edge_count: input.graph.edges.length,
    order: check.issues.length === 0 ? check.order : null,
  };
}

export async function create(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.create']>, actor: string) {
  const check = await checkGraph(c, ref, input.graph);
  if (check.issues.length > 0) throw validationFailed(check.issues);
  const { definitions } = automationStores(c.db, ref);
  const name = input.name ?? input.automation_id;
  const description = input.description ?? null;
  const graph: Graph = check.graph;
  const hash = createHash('sha256').update(canonicalJson({ name, description, graph })).digest('hex');
  const now = c.clock.now();
  const at = now.toISOString();
  const doc: DefinitionDoc = {
    _id: uuidv7(now.getTime()),
    automation_id: input.automation_id,
    name,
    description,
    status: 'draft',
    graph,
    node_count: graph.nodes.length,
    edge_count: graph.edges.length,
    content_hash: hash,
    status_history: [{ from: null, to: 'draft', actor, reason: null, at }],
    actor,
    created_at: at,
    updated_at: at,
  };
  const stored = await definitions.insert(doc);
  if (stored) return { automation_id: doc.automation_id, created: true, automation: toDefinitionWire(doc) };
  const existing = await loadDefinition(definitions, input.automation_id);
  if (existing.content_hash !== hash) {
    throw new LoreError('conflict', `automation '${input.automation_id}' exists with different content`, {
      automation_id: input.automation_id,
      content_hash: existing.content_hash,
    });
  }
  return { automation_id: existing.automation_id, created: false, automation: toDefinitionWire(existing) };
}

export async function get(c: AutomationCtx, ref: ScopeRef, automationId: string) {
  return { automation: toDefinitionWire(await loadDefinition(automationStores(c.db, ref).definitions, automationId)) };
}

export async function list(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.list']>) {
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'automations.list') : undefined;
  const docs = await automationStores(c.db, ref).definitions.list({ ...(input.status ? { status: input.status } : {}), ...(after ? { after } : {}), limit: input.limit + 1 });
  const shown = docs.slice(0, input.limit);
  return {
    automations: shown.map((d) => toDefinitionWire(d, input.include_graph)),
    next_cursor: docs.length > input.limit ? encodeCursor('automations.list', shown[shown.length - 1]!._id) : null,
  };
}

/** draft → active | disabled; active ↔ disabled. Never back to draft. */
const ALLOWED: Record<DefinitionStatus, readonly DefinitionStatus[]> = { draft: ['active', 'disabled'], active: ['disabled'], disabled: ['active'] };

export async function setStatus(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.setStatus']>, actor: string) {
  const { definitions } = automationStores(c.db, ref);
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await loadDefinition(definitions, input.automation_id);
    if (current.status === input.status) return { automation: toDefinitionWire(current), changed: false };
    if (!ALLOWED[current.status].includes(input.status)) {
      throw invalidState(`automation '${input.automation_id}' is ${current.status}; it cannot become ${input.status}`, current.status, { automation_id: input.automation_id });
    }
    const at = c.clock.now().toISOString();
    const updated = await definitions.setStatus(input.automation_id, current.status, { from: current.status, to: input.status, actor, reason: input.reason ?? null, at });
    if (updated) return { automation: toDefinitionWire(updated), changed: true };
    // Someone changed it meanwhile: decide again on what is stored now.
  }
  throw new LoreError('conflict', `automation '${input.automation_id}' changed status concurrently; try again`, { automation_id: input.automation_id });
}
