import { createHash } from 'node:crypto';
import type { ScopeRef } from '../../store/scope';
import { familyQuery, resolveFamily, type ResolvedFamily } from './family';
import { applyPatternFeedback, newPattern, patternClass, patternConfidence, PATTERN_SLOT, type FeedbackOutcome, type PatternSlot } from './pattern-model';
import type { Persist } from './persist';
import { applyPolicyFeedback, isBacked, materialisePolicy, POLICY_SLOT, type Backing, type PolicySlot } from './policy-model';
import { renderPattern, renderPolicy } from './render';
import type { TaskRequest } from './request';
import { THRESHOLDS } from './score';
import type { Learned, ScopeLearning } from './scope-state';
import { addTerms, capTerms } from './similarity';
import { workflowConfidence, type WorkflowHead } from './workflow-model';

/**
 * tools/feedback (contract.md §3): one feedback event lands on the pattern of its (task family,
 * tool), then on that pair's policy memory: positive feedback on a tool backed by a trusted
 * pattern or a stable workflow materialises one; later feedback contests or revalidates it, and
 * never revives a retired one (policy-model.ts).
 */

export interface FeedbackInput {
  outcome: FeedbackOutcome;
  tool: string;
  request: TaskRequest;
  run_id: string | null;
  decision: { id: string; family_id: string | null; label: string | null } | null;
  reason: string | null;
  actor: string;
  at: string;
}

export interface FeedbackResult {
  family: ResolvedFamily;
  run_key: string;
  pattern: Learned<PatternSlot>;
  policy: Learned<PolicySlot> | null;
  /** True when this feedback created the policy memory. */
  materialized: boolean;
  backing: Backing;
}

/** The run a feedback event belongs to: run_id, else decision_id, else its task text (docs). */
export function runKeyOf(i: Pick<FeedbackInput, 'run_id' | 'decision' | 'request' | 'actor'>): string {
  if (i.run_id) return `run:${i.run_id}`;
  if (i.decision) return `decision:${i.decision.id}`;
  const r = i.request;
  const h = createHash('sha256')
    .update([i.actor, r.text ?? '', r.goal ?? '', r.file_path ?? ''].join('\u0000'))
    .digest('hex')
    .slice(0, 16);
  return `text:${h}`;
}

/** Stable workflows of the family (or matching the request as strongly as a family member) that use `tool`. */
function stableWorkflowsFor(state: ScopeLearning, familyId: string, tool: string, r: TaskRequest): Learned<WorkflowHead>[] {
  const out = new Map<string, Learned<WorkflowHead>>();
  const own = state.workflowOfFamily(familyId);
  if (own) out.set(own.node.id, own);
  for (const h of state.workflows.search(familyQuery(r), { minScore: THRESHOLDS.merge, merge: true, limit: 3 })) out.set(h.id, h.doc);
  return [...out.values()].filter((w) => w.node.tier !== 'archive' && w.slot.promotion_state === 'stable' && w.slot.steps.some((s) => s.tool === tool));
}

export function backingOf(state: ScopeLearning, familyId: string, tool: string, r: TaskRequest): Backing {
  const pattern = state.patternOf(familyId, tool);
  const trusted = pattern && patternClass(pattern.slot) === 'trusted' ? pattern : null;
  const workflows = stableWorkflowsFor(state, familyId, tool, r);
  const step = workflows.flatMap((w) => w.slot.steps).find((s) => s.tool === tool && s.file_path);
  const avoid = state
    .patternsOfFamily(familyId)
    .filter((p) => p.slot.tool !== tool && patternClass(p.slot) === 'contested')
    .map((p) => p.slot.tool);
  const confidence = Math.max(trusted ? patternConfidence(trusted.slot) : 0, ...workflows.map((w) => workflowConfidence(w.slot)), 0);
  return {
    trusted_pattern_id: trusted ? trusted.node.id : null,
    stable_workflow_ids: workflows.map((w) => w.node.id),
    file_path: step?.file_path ?? r.file_path ?? pattern?.slot.files[0] ?? null,
    target_files: workflows[0]?.slot.target_files ?? pattern?.slot.files ?? [],
    avoid_tools: avoid,
    confidence: Math.round(confidence * 1000) / 1000,
  };
}

export const patternClientId = (familyId: string, tool: string) => `lore:pattern:${familyId}:${encodeURIComponent(tool).slice(0, 80)}`;
export const policyClientId = (familyId: string, tool: string) => `lore:policy:${familyId}:${encodeURIComponent(tool).slice(0, 80)}`;

export async function recordFeedback(persist: Persist, ref: ScopeRef, state: ScopeLearning, i: FeedbackInput): Promise<FeedbackResult> {
  return state.serial(async () => {
    const r = i.request;
    const family: ResolvedFamily =
      i.decision?.family_id && (state.workflowOfFamily(i.decision.family_id) || state.patternsOfFamily(i.decision.family_id).length > 0)
        ? { family_id: i.decision.family_id, label: i.decision.label ?? i.decision.family_id, known: true, score: 1 }
        : resolveFamily(ref, state, r);
    const runKey = runKeyOf(i);
    const existing = state.patternOf(family.family_id, i.tool);
    const before: PatternSlot =
      existing?.slot ?? newPattern({ family_id: family.family_id, label: family.label, tool: i.tool, task_kind: r.task_kind, term_counts: {}, samples: 0, files: [] });
    let slot = applyPatternFeedback(before, { outcome: i.outcome, run_key: runKey, decision_id: i.decision?.id ?? null, actor: i.actor, at: i.at, reason: i.reason });
    // Each new run describes the family once more (its words and file join the signature).
    const newRun = !before.positive_runs.includes(runKey) && !before.negative_runs.includes(runKey);
    if (newRun && i.outcome !== 'neutral') {
      slot = {
        ...slot,
        task_kind: slot.task_kind ?? r.task_kind,
        term_counts: capTerms(addTerms(slot.term_counts, r.terms)),
        samples: slot.samples + 1,
        files: r.file_path && !slot.files.includes(r.file_path) ? [...slot.files, r.file_path].slice(-20) : slot.files,
      };
    }
    const rendered = renderPattern(slot, slot.label);
    const patternNode = existing
      ? await persist.update(ref, existing.node.id, PATTERN_SLOT, slot, rendered, patternConfidence(slot))
      : await persist.create(ref, i.actor, {
          client_id: patternClientId(family.family_id, i.tool),
          type: 'concept',
          kind: 'pattern',
          slotName: PATTERN_SLOT,
          slot,
          rendered,
          confidence: patternConfidence(slot),
          tags: ['lore:learned', 'lore:pattern'],
        });
    if (patternNode) state.apply(patternNode);
    const pattern = state.patternOf(family.family_id, i.tool)!;

    const backing = backingOf(state, family.family_id, i.tool, r);
    const current = state.policyOf(family.family_id, i.tool);
    const ev = { outcome: i.outcome, run_key: runKey, actor: i.actor, at: i.at, reason: i.reason };
    let materialized = false;
    if (current) {
      const next = applyPolicyFeedback(current.slot, ev, backing);
      const node = await persist.update(ref, current.node.id, POLICY_SLOT, next, renderPolicy(next), next.confidence);
      if (node) state.apply(node);
    } else if (i.outcome === 'positive' && isBacked(backing)) {
      const next = materialisePolicy(
        { family_id: family.family_id, family_label: family.label, task_kind: slot.task_kind, term_counts: slot.term_counts, samples: slot.samples, tool: i.tool },
        backing,
        ev,
      );
      const node = await persist.create(ref, i.actor, {
        client_id: policyClientId(family.family_id, i.tool),
        type: 'concept',
        kind: 'policy_memory',
        slotName: POLICY_SLOT,
        slot: next,
        rendered: renderPolicy(next),
        confidence: next.confidence,
        tags: ['lore:learned', 'lore:policy_memory'],
      });
      state.apply(node);
      materialized = true;
    }
    return { family, run_key: runKey, pattern, policy: state.policyOf(family.family_id, i.tool) ?? null, materialized, backing };
  });
}
