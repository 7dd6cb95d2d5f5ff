/**
 * The pattern state machine (contract.md §3; docs/learning.md, "Patterns"). One pattern per
 * (task family, tool), fed by tools/feedback. Pure; persisted as slots.pattern_v1 of a node of
 * kind `pattern` (PatternSlot, src/model/learning/slots.ts).
 *
 *   observed  --(≥ 3 distinct positive runs, no open counter evidence)-->  trusted
 *   trusted   --(a negative run)-->                                         contested
 *   contested --(≥ 2 fresh positive runs since the contest)-->              trusted
 *
 * Counters accumulate and are never reset: `counts` holds every feedback event, the run lists
 * hold distinct runs. A run is identified by run_id, else decision_id, else a hash of the task
 * text (docs), so the same run reporting twice counts once. A negative before trust is open
 * counter evidence until two fresh positive runs follow it.
 *
 * `suppressed` is an operator overlay (patterns/suppress): the pattern's class is `suppressed`
 * and it is not applied, whatever feedback arrives, until patterns/unsuppress; feedback still
 * accumulates underneath and decides the class it returns to.
 */

import type { FeedbackOutcome } from '../../model/memory/vocabulary';
import type { PatternClass } from '../../model/learning/vocabulary';
import type { PatternSlot } from '../../model/learning/slots';

export const PATTERN_SLOT = 'pattern_v1';
export const TRUST_MIN_RUNS = 3;
export const REVALIDATE_RUNS = 2;
const MAX_RUNS = 500;
const MAX_RECENT = 50;

export type { PatternClass, PatternState } from '../../model/learning/vocabulary';
export type { PatternSlot } from '../../model/learning/slots';

export type { FeedbackOutcome } from '../../model/memory/vocabulary';

export interface FeedbackEvent {
  outcome: FeedbackOutcome;
  run_key: string;
  decision_id: string | null;
  actor: string;
  at: string;
  reason: string | null;
}

export function newPattern(init: Pick<PatternSlot, 'family_id' | 'label' | 'tool' | 'task_kind' | 'term_counts' | 'samples' | 'files'>): PatternSlot {
  return {
    version: 1,
    ...init,
    state: 'observed',
    suppressed: null,
    counts: { positive: 0, negative: 0, neutral: 0 },
    positive_runs: [],
    negative_runs: [],
    open_counter_runs: [],
    fresh_positive_runs: [],
    trusted_at: null,
    contested_at: null,
    recent: [],
    history: [],
  };
}

export const patternClass = (p: Pick<PatternSlot, 'state' | 'suppressed'>): PatternClass => (p.suppressed ? 'suppressed' : p.state);

const capped = (list: string[], item: string) => (list.includes(item) ? list : [...list, item].slice(-MAX_RUNS));

/** Applies one feedback event. Counters only grow; state follows the rules in the header. */
export function applyPatternFeedback(p: PatternSlot, ev: FeedbackEvent): PatternSlot {
  const s: PatternSlot = {
    ...p,
    counts: { ...p.counts, [ev.outcome]: p.counts[ev.outcome] + 1 },
    recent: [...p.recent, { run_key: ev.run_key, outcome: ev.outcome, at: ev.at, decision_id: ev.decision_id, actor: ev.actor }].slice(-MAX_RECENT),
  };
  let reason: string | null = null;
  if (ev.outcome === 'positive') {
    const isNewRun = !p.positive_runs.includes(ev.run_key);
    s.positive_runs = capped(p.positive_runs, ev.run_key);
    // Fresh: a run not already counted positive and not the run that raised the counter evidence.
    if (isNewRun && !p.open_counter_runs.includes(ev.run_key)) s.fresh_positive_runs = capped(p.fresh_positive_runs, ev.run_key);
    if (s.open_counter_runs.length > 0 && s.fresh_positive_runs.length >= REVALIDATE_RUNS) s.open_counter_runs = [];
    if (p.state === 'contested' && s.open_counter_runs.length === 0) {
      s.state = 'trusted';
      s.trusted_at = ev.at;
      reason = `${s.fresh_positive_runs.length} fresh positive runs since the contest`;
    } else if (p.state === 'observed' && s.positive_runs.length >= TRUST_MIN_RUNS && s.open_counter_runs.length === 0) {
      s.state = 'trusted';
      s.trusted_at = ev.at;
      reason = `${s.positive_runs.length} distinct positive runs and no open counter evidence`;
    }
  } else if (ev.outcome === 'negative') {
    s.negative_runs = capped(p.negative_runs, ev.run_key);
    s.open_counter_runs = capped(p.open_counter_runs, ev.run_key);
    s.fresh_positive_runs = [];
    if (p.state === 'trusted') {
      s.state = 'contested';
      s.contested_at = ev.at;
      reason = `negative run ${ev.run_key} after trust${ev.reason ? `: ${ev.reason}` : ''}`;
    }
  }
  if (s.state !== p.state) {
    // Under suppression the visible class stays `suppressed`; history records the state underneath.
    s.history = [...p.history, { at: ev.at, from: p.state, to: s.state, actor: ev.actor, reason: reason ?? 'feedback', trigger: 'feedback' as const, run_key: ev.run_key }].slice(
      -100,
    );
  }
  return s;
}

export function suppressPattern(p: PatternSlot, actor: string, reason: string, at: string): PatternSlot {
  if (p.suppressed) return p;
  return {
    ...p,
    suppressed: { actor, reason, at },
    history: [...p.history, { at, from: p.state, to: 'suppressed' as const, actor, reason, trigger: 'operator' as const }].slice(-100),
  };
}

export function unsuppressPattern(p: PatternSlot, actor: string, reason: string, at: string): PatternSlot {
  if (!p.suppressed) return p;
  return {
    ...p,
    suppressed: null,
    history: [...p.history, { at, from: 'suppressed' as const, to: p.state, actor, reason, trigger: 'operator' as const }].slice(-100),
  };
}

/** Confidence in a tool for its family from distinct runs: a Laplace-smoothed success share. */
export function patternConfidence(p: PatternSlot): number {
  const pos = p.positive_runs.length;
  const neg = p.negative_runs.length;
  return (pos + 1) / (pos + neg + 2);
}
