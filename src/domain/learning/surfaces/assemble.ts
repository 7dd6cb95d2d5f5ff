import type { ScopeRef } from '../../../store/scope';
import { taskRequest, taskText, type RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import { planFor } from './common';
import { operatorProjection } from './gate';
import { plannerPacket, startPacketReads, type Entry } from './packet';
import { planningSummary } from './summary';
import type { BudgetUnit } from '../../../model/learning/vocabulary';

/**
 * context/assemble (contract.md §2): prompt-ready context within a budget. Layers are filled in
 * priority order (first action, workflows, policies and patterns, rules, supporting knowledge,
 * rehydration hints), entry by entry; an entry that does not fit is dropped whole and listed with
 * its reason, never cut mid-line. token_budget counts a token as 4 characters (documented; no
 * tokenizer dependency).
 */

const DEFAULT_CHARS = 6000;
const CHARS_PER_TOKEN = 4;

interface Layer {
  name: string;
  heading: string;
  items: { id: string | null; line: string }[];
}

export async function assembleContext(
  ctx: LearningCtx,
  ref: ScopeRef,
  raw: RawTaskRequest & { char_budget?: number; token_budget?: number; include_supporting_knowledge?: boolean },
) {
  const request = taskRequest(raw);
  // Reads that need only the task's text start now and overlap the plan.
  const reads = startPacketReads(ctx, ref, taskText(request), { supporting: raw.include_supporting_knowledge !== false });
  const { state, plan } = await planFor(ctx, ref, raw, request);
  const [packet, summary] = await Promise.all([plannerPacket(ctx, ref, plan, reads), planningSummary(ctx, ref, state, plan, reads)]);
  const unit = raw.char_budget === undefined && raw.token_budget !== undefined ? 'tokens' : 'chars';
  const limit = unit === 'tokens' ? raw.token_budget! : (raw.char_budget ?? DEFAULT_CHARS);
  const charLimit = unit === 'tokens' ? limit * CHARS_PER_TOKEN : limit;
  const s = packet.sections;
  const lines = (entries: Entry[]) => entries.map((e) => ({ id: e.id, line: e.line }));
  const fa = plan.first_action;
  const layers: Layer[] = [
    {
      name: 'first_action',
      heading: 'First action',
      items: [
        {
          id: fa?.workflow_id ?? fa?.policy_memory_id ?? fa?.pattern_id ?? null,
          line: fa
            ? `${fa.next_action} (${fa.source_kind}, confidence ${fa.confidence}; evidence ${fa.evidence_ids.slice(0, 3).join(', ')})`
            : 'none learned for this task: inspect the context before acting',
        },
      ],
    },
    { name: 'workflows', heading: 'Workflows', items: lines([...s.recommended_workflows, ...s.candidate_workflows]) },
    {
      name: 'patterns',
      heading: 'Tool patterns and policies',
      items: [...lines([...s.trusted_patterns, ...s.contested_patterns]), ...lines(s.supporting_knowledge.filter((e) => e.kind === 'policy_memory'))],
    },
    {
      name: 'rules',
      heading: 'Rules',
      items: plan.rules.matched.map((m) => ({
        id: m.rule_node_id,
        line: `${m.applied ? 'active' : 'shadow (not applied)'} rule ${m.rule_id}: ${m.effects.map((e) => `${e.effect} ${e.tool}`).join(', ')}`,
      })),
    },
    {
      name: 'supporting_knowledge',
      heading: 'Supporting knowledge',
      items: raw.include_supporting_knowledge === false ? [] : lines(s.supporting_knowledge.filter((e) => e.kind !== 'policy_memory')),
    },
    { name: 'rehydration', heading: 'Archived (rehydrate before use)', items: lines(s.rehydration_candidates) },
  ];
  let used = 0;
  const out: string[] = [];
  const layerOut: Record<string, { text: string; chars: number; ids: string[] }> = {};
  const dropped: { layer: string; id: string | null; reason: string }[] = [];
  const sources: string[] = [];
  for (const layer of layers) {
    if (layer.items.length === 0) continue;
    const head = `## ${layer.heading}\n`;
    const kept: string[] = [];
    const ids: string[] = [];
    for (const item of layer.items) {
      const piece = `- ${item.line}\n`;
      const cost = piece.length + (kept.length === 0 ? head.length + (out.length > 0 ? 1 : 0) : 0);
      if (used + cost > charLimit) {
        dropped.push({ layer: layer.name, id: item.id, reason: `over the ${unit === 'tokens' ? `${limit}-token` : `${limit}-character`} budget` });
        continue;
      }
      used += cost;
      kept.push(piece);
      if (item.id) {
        ids.push(item.id);
        if (!sources.includes(item.id)) sources.push(item.id);
      }
    }
    if (kept.length === 0) continue;
    const text = `${head}${kept.join('')}`;
    out.push(text);
    layerOut[layer.name] = { text, chars: text.length, ids };
  }
  const contextText = out.join('\n').trimEnd();
  return {
    context_text: contextText,
    layers: layerOut,
    sources,
    budget: { used: unit === 'tokens' ? Math.ceil(contextText.length / CHARS_PER_TOKEN) : contextText.length, limit, unit: unit as BudgetUnit },
    dropped,
    planning_summary: summary,
    operator_projection: operatorProjection(plan),
  };
}
