import type { ForgettingSummary } from '../../../contract/shapes/forgetting';
import type { ScopeRef } from '../../../store/scope';
import type { RehydrationCandidate } from '../../lifecycle/module';
import type { RecallOutcome } from '../../memory/recall';
import type { Plan } from '../planner';
import { taskText } from '../request';
import type { LearningCtx } from '../context';
import { patternView, policyLine, policyMemoryView, workflowView } from '../views';

/**
 * The planner packet (contract.md §2): sections of objects, each with a one-line `line` for
 * prompts, and merged_text joining them. Supporting knowledge is the memory family's recall for
 * the task (evidence the learned objects do not already say) plus the persisted policy memories
 * that apply; rehydration candidates are archived workflows, never injected as if live.
 */

const SUPPORT_LIMIT = 5;
const LEARNED_KINDS = new Set(['workflow', 'pattern', 'policy_memory']);

export type Entry = { id: string; kind: string; line: string; relevance: number | null } & Record<string, unknown>;

export interface Packet {
  sections: {
    recommended_workflows: Entry[];
    candidate_workflows: Entry[];
    trusted_patterns: Entry[];
    contested_patterns: Entry[];
    rehydration_candidates: Entry[];
    supporting_knowledge: Entry[];
  };
  merged_text: string;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The store and index reads a planner packet and planning summary need that depend only on the
 * task's text, not on the plan: the memory recall behind supporting knowledge, the lifecycle
 * family's archived matches and the forgetting summary. Planning surfaces start them before
 * computing the plan, so their store round trips overlap the plan instead of following it.
 */
export interface PacketReads {
  recall: Promise<RecallOutcome | null>;
  rehydration: Promise<RehydrationCandidate[]>;
  forgetting: Promise<ForgettingSummary>;
}

/** Supporting knowledge takes this many recalled nodes before dropping learned objects (≥ SUPPORT_LIMIT). */
const SUPPORT_RECALL = SUPPORT_LIMIT + 3;

export function startPacketReads(ctx: LearningCtx, ref: ScopeRef, text: string, opts: { supporting?: boolean } = {}): PacketReads {
  const quiet = <T>(p: Promise<T>) => {
    p.catch(() => {}); // awaited by the surface; never an unhandled rejection meanwhile
    return p;
  };
  return {
    recall: quiet(text === '' || opts.supporting === false ? Promise.resolve(null) : ctx.memory.recall(ref, { text, limit: SUPPORT_RECALL, expand: false })),
    rehydration: quiet(
      text === '' ? Promise.resolve([]) : ctx.lifecycle.rehydrationCandidates(ref, text, { kinds: ['workflow', 'workflow_anchor', 'handoff', 'playbook_learning'], limit: 5 }),
    ),
    forgetting: quiet(ctx.lifecycle.forgettingSummary(ref)),
  };
}

export async function supportingKnowledge(ctx: LearningCtx, ref: ScopeRef, p: Plan, reads?: PacketReads): Promise<Entry[]> {
  const out: Entry[] = p.policies.map((m) => ({
    id: m.entry.node.id,
    kind: 'policy_memory',
    line: policyLine(m.entry),
    relevance: r3(m.score),
    policy_memory: policyMemoryView(m.entry),
  }));
  const text = taskText(p.request);
  if (text === '') return out;
  const r = reads ? await reads.recall : await ctx.memory.recall(ref, { text, limit: SUPPORT_RECALL, expand: false });
  if (!r) return out;
  for (const h of r.hits) {
    if (h.node.kind && LEARNED_KINDS.has(h.node.kind)) continue;
    if (out.length >= SUPPORT_LIMIT + p.policies.length) break;
    out.push({
      id: h.node.id,
      kind: h.node.kind ?? h.node.type,
      line: `[${h.node.kind ?? h.node.type}] ${h.node.title ? `${h.node.title}: ` : ''}${h.node.summary}`,
      relevance: r3(h.score),
      client_id: h.node.client_id,
      tier: h.node.tier,
      created_at: h.node.created_at,
    });
  }
  return out;
}

export async function rehydrationCandidates(ctx: LearningCtx, ref: ScopeRef, p: Plan, reads?: PacketReads): Promise<Entry[]> {
  const out: Entry[] = p.archived.map((m) => ({
    ...workflowView(m.entry, m.score),
    id: m.entry.node.id,
    kind: 'workflow',
    relevance: r3(m.score),
    rehydrate: { route: '/v1/memory/archive/rehydrate', ids: [m.entry.node.id], target_tier: 'warm' },
  }));
  const text = taskText(p.request);
  if (text === '') return out;
  const more: RehydrationCandidate[] = reads
    ? await reads.rehydration
    : await ctx.lifecycle.rehydrationCandidates(ref, text, { kinds: ['workflow', 'workflow_anchor', 'handoff', 'playbook_learning'], limit: 5 });
  for (const c of more) {
    if (out.some((e) => e.id === c.id)) continue;
    out.push({ id: c.id, kind: c.kind ?? c.type, line: c.line, relevance: r3(c.score), rehydrate: c.rehydrate, differential_available: c.differential_available });
  }
  return out;
}

export async function plannerPacket(ctx: LearningCtx, ref: ScopeRef, p: Plan, reads?: PacketReads): Promise<Packet> {
  const wf = (m: Plan['workflows'][number]): Entry => ({ ...workflowView(m.entry, m.score), id: m.entry.node.id, kind: 'workflow', relevance: r3(m.score) });
  const pt = (m: Plan['patterns'][number]): Entry => ({ ...patternView(m.entry, m.score), id: m.entry.node.id, kind: 'pattern', relevance: r3(m.score) });
  const [supporting, rehydration] = await Promise.all([supportingKnowledge(ctx, ref, p, reads), rehydrationCandidates(ctx, ref, p, reads)]);
  const sections = {
    recommended_workflows: p.workflows.filter((m) => m.entry.slot.promotion_state === 'stable').map(wf),
    candidate_workflows: p.workflows.filter((m) => m.entry.slot.promotion_state === 'candidate').map(wf),
    // A trusted pattern behind a retired policy memory is not offered as guidance.
    trusted_patterns: p.patterns.filter((m) => m.cls === 'trusted' && !m.retired_policy_id).map(pt),
    contested_patterns: p.patterns.filter((m) => m.cls === 'contested').map(pt),
    rehydration_candidates: rehydration,
    supporting_knowledge: supporting,
  };
  return { sections, merged_text: mergedText(p, sections) };
}

const HEADINGS: Record<keyof Packet['sections'], string> = {
  recommended_workflows: 'Recommended workflows',
  candidate_workflows: 'Candidate workflows',
  trusted_patterns: 'Trusted tool patterns',
  contested_patterns: 'Contested tool patterns (do not rely on)',
  rehydration_candidates: 'Archived, rehydrate before use',
  supporting_knowledge: 'Supporting knowledge',
};

export function mergedText(p: Plan, sections: Packet['sections']): string {
  const parts: string[] = [];
  const fa = p.first_action;
  parts.push(fa ? `First action: ${fa.next_action} (${fa.source_kind}, confidence ${fa.confidence})` : 'First action: none learned for this task.');
  for (const key of Object.keys(HEADINGS) as (keyof Packet['sections'])[]) {
    const list = sections[key];
    if (list.length === 0) continue;
    parts.push(`${HEADINGS[key]}:\n${list.map((e) => `- ${e.line}`).join('\n')}`);
  }
  return parts.join('\n\n');
}
