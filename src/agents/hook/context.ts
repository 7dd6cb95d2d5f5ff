import type { LoreApi } from '../../sdk/api.gen';

type Kickoff = Awaited<ReturnType<LoreApi['learning']['kickoffRecommendation']>>;
type Handoff = Awaited<ReturnType<LoreApi['handoff']['recover']>>['handoff'];

/**
 * What the hooks put into the model's context, always within a budget and always saying where it
 * came from. Two kinds: the learned start of a task like the one a prompt begins (kickoff), and
 * the handoff of the task a compacted or resumed session was in the middle of. Each is a block of
 * lines, most important first, ending with the evidence ids it rests on; `withinBudget` keeps the
 * whole under LORE_HOOK_CONTEXT_CHARS characters (≈ 4 per token) by dropping the least important
 * lines, then cutting the last one kept, and never drops the evidence line.
 */

export interface ContextBlock {
  /** The first line (what this is); always kept. */
  head: string;
  /** Most important first. */
  lines: string[];
  evidence_ids: string[];
}

export const DEFAULT_CONTEXT_CHARS = 2000;
/** The smallest budget that still holds a head and its evidence. */
export const MIN_CONTEXT_CHARS = 200;

const ELLIPSIS = '…';

function evidenceLine(ids: string[], room: number): string {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return '';
  let shown = unique.length;
  const render = (n: number) => `Evidence ids: ${unique.slice(0, n).join(', ')}${n < unique.length ? ` (+${unique.length - n} more)` : ''}.`;
  while (shown > 1 && render(shown).length > room) shown -= 1;
  return render(shown);
}

/** One text of the blocks, at most `budget` characters; null when there is nothing to say. */
export function withinBudget(blocks: ContextBlock[], budget: number): string | null {
  const cap = Math.max(MIN_CONTEXT_CHARS, budget);
  const parts: string[] = [];
  let used = 0;
  for (const b of blocks) {
    const sep = parts.length ? 1 : 0;
    const evidence = evidenceLine(b.evidence_ids, Math.max(60, Math.floor(cap / 3)));
    const head = b.head;
    const fixed = head.length + (evidence ? evidence.length + 1 : 0) + sep;
    if (used + fixed > cap) break;
    const kept: string[] = [];
    let room = cap - used - fixed;
    for (const line of b.lines) {
      if (room <= 1) break;
      if (line.length + 1 <= room) {
        kept.push(line);
        room -= line.length + 1;
      } else if (room > 40) {
        kept.push(`${line.slice(0, room - 2)}${ELLIPSIS}`);
        room = 0;
      } else break;
    }
    const text = [head, ...kept, ...(evidence ? [evidence] : [])].join('\n');
    parts.push(text);
    used += text.length + sep;
  }
  return parts.length ? parts.join('\n') : null;
}

/** The learned start of a task like this one, or null when nothing applies (Lore does not invent history). */
export function kickoffBlock(k: Kickoff): ContextBlock | null {
  const fa = k.first_action;
  if (!fa || !fa.history_applied) return null;
  const start = [fa.selected_tool, fa.file_path].filter(Boolean).join(' on ');
  // next_action often just restates tool and file ("read src/a.ts"); said once is enough.
  const restated = fa.next_action.trim().toLowerCase() === [fa.selected_tool, fa.file_path].filter(Boolean).join(' ').toLowerCase();
  return {
    head: `Lore (execution memory of scope '${k.scope}'): similar tasks were done here before.`,
    lines: [
      start ? `Learned first step: ${start}.${restated ? '' : ` Next: ${fa.next_action}`}` : `Learned first step: ${fa.next_action}`,
      `Learned from a ${fa.source_kind.replace(/_/g, ' ')}, confidence ${fa.confidence.toFixed(2)}, uncertainty ${k.uncertainty.level}.`,
      'It is a suggestion from past runs: check that it fits this task.',
    ],
    evidence_ids: fa.evidence_ids,
  };
}

/** The kickoff as the one-block context text (the prompt hook's answer). */
export function kickoffContext(k: Kickoff, budget = DEFAULT_CONTEXT_CHARS): string | null {
  const b = kickoffBlock(k);
  return b ? withinBudget([b], budget) : null;
}

/** The handoff of the task a session was in when its context was compacted (or it was resumed). */
export function handoffBlock(
  h: Pick<Handoff, 'handoff_id' | 'summary' | 'handoff_text' | 'target_files' | 'next_action' | 'acceptance_checks' | 'run_id'>,
  why: 'compact' | 'resume',
): ContextBlock {
  const lines = [
    `Task: ${h.summary}`,
    ...(h.next_action ? [`Next step: ${h.next_action}`] : []),
    ...h.handoff_text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('Task:') && !l.startsWith('Next step:')),
    ...(h.target_files.length ? [`Files: ${h.target_files.slice(0, 20).join(', ')}`] : []),
    ...(h.acceptance_checks.length ? [`Done when: ${h.acceptance_checks.join('; ')}`] : []),
  ];
  return {
    head: `Lore (execution memory): the task this session was working on before its context was ${why === 'compact' ? 'compacted' : 'resumed'}.`,
    lines,
    evidence_ids: [h.handoff_id, ...(h.run_id ? [h.run_id] : [])],
  };
}
