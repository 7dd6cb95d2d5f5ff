import { createHash } from 'node:crypto';
import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/module';
import type { FamilyQuery } from './family-index';
import type { Persist } from './persist';
import { renderWorkflow } from './render';
import { THRESHOLDS } from './score';
import type { Learned, ScopeLearning } from './scope-state';
import { findSimilarExecutions } from './similar-executions';
import type { Attempt, Observation } from './types';
import { foundWorkflow, observeWorkflow, promoteByPlaybook, workflowConfidence, WORKFLOW_SLOT, type WorkflowHead, type WorkflowSlot } from './workflow-model';
import type { WorkflowSaver } from './workflow-writer';

/**
 * Workflow distillation (contract.md §3; docs/learning.md, "Workflows"): an observation joins the
 * workflow of its task family when one matches (mergeScore ≥ THRESHOLDS.merge); otherwise a
 * successful one looks for a single earlier successful execution of the same family through
 * full-text recall and, when it finds one, founds a candidate workflow from the pair. Failures
 * with no family are not stored (there is nothing to attach them to).
 */

export const familyIdOf = (ref: ScopeRef, founder: string) => `fam-${createHash('sha256').update(`${ref.tenant_id}\u0000${ref.scope}\u0000${founder}`).digest('hex').slice(0, 20)}`;

export const workflowClientId = (familyId: string) => `lore:workflow:${familyId}`;

export function observationQuery(o: Observation): FamilyQuery & { text: string | null } {
  return {
    terms: o.terms,
    task_kind: o.task_kind,
    files: [...new Set([...o.target_files, ...o.steps.map((s) => s.file_path).filter((f): f is string => !!f)])],
    text: o.goal,
  };
}

export interface DistillDeps {
  memory: MemoryServices;
  persist: Persist;
  writer: WorkflowSaver;
  /** Called with a workflow whose family text changed (embedding refresh). */
  onWorkflowChanged?: (ref: ScopeRef, w: Learned<WorkflowHead>) => void;
}

/** A workflow's whole slot for a change (the scope keeps heads; scope-state.ts), read from the store when not kept. */
function fullSlot(deps: DistillDeps, ref: ScopeRef, state: ScopeLearning, id: string): Promise<WorkflowSlot | undefined> {
  return state.loadFullWorkflow(id, async (x) => (await deps.memory.nodes(ref).getManyFields([x], ['slots']))[0] ?? null);
}

async function saveWorkflow(deps: DistillDeps, ref: ScopeRef, state: ScopeLearning, id: string, slot: WorkflowSlot): Promise<string | null> {
  const saved = await deps.writer.save(ref, state, id, slot);
  const w = saved ? state.workflows.get(saved) : undefined;
  if (w) deps.onWorkflowChanged?.(ref, w);
  return saved;
}

/** Learns from one observation; returns the ids of workflows it created or changed. */
export async function distill(deps: DistillDeps, ref: ScopeRef, state: ScopeLearning, obs: Attempt, actor: string): Promise<string[]> {
  const q = observationQuery(obs);
  // Read-only search first (outside the scope's serial section); re-checked inside it.
  const similar =
    obs.outcome === 'success' && state.workflows.search(q, { minScore: THRESHOLDS.merge, merge: true, limit: 1 }).length === 0
      ? (await findSimilarExecutions(deps.memory, ref, state, q, { exclude: new Set([obs.source_id]), minScore: THRESHOLDS.merge, merge: true, limit: 2 }))
          // The execution write of this very run (coding-agent hooks) is not a second attempt.
          .filter((s) => !(obs.run_id && s.obs.run_id === obs.run_id && s.obs.origin !== obs.origin))
          .slice(0, 1)
      : [];
  return state.serial(async () => {
    const hit = state.workflows.search(q, { minScore: THRESHOLDS.merge, merge: true, limit: 1 })[0];
    const founder = similar[0];
    const target = hit?.doc ?? (founder ? state.workflowOfSource(founder.obs.source_id) : undefined);
    if (target) {
      const whole = await fullSlot(deps, ref, state, target.node.id);
      if (!whole) return [];
      const next = observeWorkflow(whole, obs);
      if (next === whole) return [];
      const id = await saveWorkflow(deps, ref, state, target.node.id, next);
      return id ? [id] : [];
    }
    if (!founder || obs.outcome !== 'success') return [];
    const familyId = familyIdOf(ref, founder.obs.source_id);
    const slot = foundWorkflow(familyId, founder.obs, obs);
    const node = await deps.persist.create(ref, actor, {
      client_id: workflowClientId(familyId),
      type: 'procedure',
      kind: 'workflow',
      slotName: WORKFLOW_SLOT,
      slot,
      rendered: renderWorkflow(slot),
      confidence: workflowConfidence(slot),
      tags: ['lore:learned', 'lore:workflow'],
    });
    state.apply(node);
    const w = state.workflows.get(node.id);
    if (w) deps.onWorkflowChanged?.(ref, w);
    return [node.id];
  });
}

/**
 * A playbook learned from a workflow's executions was promoted active (contract.md §3): every
 * workflow that observed a run of that playbook, or whose provenance holds the playbook's source
 * run, becomes stable. Returns the workflows changed.
 */
export async function promoteWorkflowsForPlaybook(
  deps: DistillDeps,
  ref: ScopeRef,
  state: ScopeLearning,
  p: { playbook_id: string; source_ids: string[]; at: string },
): Promise<string[]> {
  return state.serial(async () => {
    const changed: string[] = [];
    for (const w of state.workflows.values()) {
      const linked = w.slot.playbook_ids.includes(p.playbook_id) || p.source_ids.some((s) => w.slot.provenance_ids.includes(s));
      if (!linked) continue;
      const whole = await fullSlot(deps, ref, state, w.node.id);
      if (!whole) continue;
      const next = promoteByPlaybook(whole, p.playbook_id, p.at);
      if (next === whole) continue;
      const id = await saveWorkflow(deps, ref, state, w.node.id, next);
      if (id) changed.push(id);
    }
    return changed;
  });
}
