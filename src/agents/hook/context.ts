import type { LoreApi } from '../../sdk/api.gen';

type Kickoff = Awaited<ReturnType<LoreApi['learning']['kickoffRecommendation']>>;

/**
 * The context a prompt hook hands the model when history applies: the learned first step (tool
 * and file), what to do next, and the evidence it rests on. Short on purpose: it lands in the
 * model's context on every matching prompt. Null when nothing was learned for the task: Lore does
 * not invent history.
 */
export function kickoffContext(k: Kickoff): string | null {
  const fa = k.first_action;
  if (!fa || !fa.history_applied) return null;
  const start = [fa.selected_tool, fa.file_path].filter(Boolean).join(' on ');
  // next_action often just restates tool and file ("read src/a.ts"); said once is enough.
  const restated = fa.next_action.trim().toLowerCase() === [fa.selected_tool, fa.file_path].filter(Boolean).join(' ').toLowerCase();
  const evidence = fa.evidence_ids.slice(0, 6).join(', ') + (fa.evidence_ids.length > 6 ? ` (+${fa.evidence_ids.length - 6} more)` : '');
  return [
    `Lore (execution memory of scope '${k.scope}'): similar tasks were done here before.`,
    start ? `Learned first step: ${start}.${restated ? '' : ` Next: ${fa.next_action}`}` : `Learned first step: ${fa.next_action}`,
    `Learned from a ${fa.source_kind.replace(/_/g, ' ')}, confidence ${fa.confidence.toFixed(2)}, uncertainty ${k.uncertainty.level}; evidence ids: ${evidence}.`,
    'It is a suggestion from past runs: check that it fits this task.',
  ].join('\n');
}
