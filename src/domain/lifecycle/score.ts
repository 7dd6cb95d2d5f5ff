import type { MemoryNode } from '../../model/memory/node';
import { ACTIVATION_USE_WEIGHT, AGE_HALF_LIFE_MS, KIND_PRIOR, NOISE, RECENCY_HALF_LIFE_MS, TYPE_PRIOR, USAGE_HALF_LIFE_MS, USAGE_SATURATION, WEIGHTS } from './policy';
import { readRelocation, readSemantic } from './slots';

/**
 * The retention score (docs/forgetting.md, "Score"), in 0..1:
 *   0.40 × value   (mean of the type prior, importance and feedback)
 *   0.35 × recency (halves every 14 days idle)
 *   0.15 × usage   (recalls + 3 × activations, log-scaled, fading with idleness)
 *   0.10 × age     (halves every 90 days since creation)
 */

export type ScoredNode = Pick<MemoryNode, 'type' | 'kind' | 'importance' | 'feedback' | 'access' | 'activation' | 'created_at' | 'updated_at' | 'slots'> & { pinned?: boolean };

/**
 * Hook noise (policy.ts NOISE): a recorded prompt or tool call (kind session_event) no task
 * reused: never recalled, activated or given feedback, and not pinned.
 */
export function isNoise(n: ScoredNode): boolean {
  if (n.kind !== 'session_event' || n.pinned) return false;
  const f = n.feedback;
  return (n.access?.count ?? 0) === 0 && (n.activation?.count ?? 0) === 0 && (f?.positive ?? 0) + (f?.negative ?? 0) === 0;
}

export interface ScoreParts {
  type: number;
  importance: number;
  feedback: number;
  recency: number;
  usage: number;
  age: number;
}

export interface Score {
  score: number;
  parts: ScoreParts;
  /** Hook noise, scored on its shorter clocks (isNoise). */
  noise: boolean;
  /** Milliseconds since the node was last used (read, activated, given feedback, or rewritten). */
  idleMs: number;
  ageMs: number;
  lastUsedAt: string;
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);
export const round = (x: number, places = 4) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * When the node was last used (read, activated, given feedback, rehydrated). `updated_at` counts only when something other than the lifecycle
 * changed the node after its last decision (a rewrite, a learning update): the operator's own
 * slot writes must not make a node look used.
 */
export function lastUsedAt(n: ScoredNode): number {
  const sem = readSemantic(n.slots);
  const decided = ms(sem?.decided_at);
  const updated = ms(n.updated_at);
  // A rehydration is a use: someone asked for the payload back.
  const rehydrated = ms(readRelocation(n.slots)?.rehydrated_at);
  const candidates = [ms(n.created_at), ms(n.access?.last_at), ms(n.activation?.last_activated_at), ms(n.feedback?.last_at), rehydrated];
  if (!sem || !(updated <= decided)) candidates.push(updated);
  const valid = candidates.filter((t) => Number.isFinite(t));
  return valid.length > 0 ? Math.max(...valid) : 0;
}

export function retentionScore(n: ScoredNode, now: Date): Score {
  const t = now.getTime();
  const created = ms(n.created_at);
  const used = lastUsedAt(n);
  const idleMs = Math.max(0, t - used);
  const ageMs = Number.isFinite(created) ? Math.max(0, t - created) : 0;
  const pos = n.feedback?.positive ?? 0;
  const neg = n.feedback?.negative ?? 0;
  const votes = pos + neg;
  const quality = votes === 0 ? 0 : (pos - neg) / votes;
  // Feedback pulls from neutral (0.5) toward its quality, more firmly the more votes there are.
  const feedback = 0.5 + 0.5 * quality * (votes / (votes + 2));
  const uses = (n.access?.count ?? 0) + ACTIVATION_USE_WEIGHT * (n.activation?.count ?? 0);
  const noise = isNoise(n);
  const parts: ScoreParts = {
    type: clamp01(noise ? NOISE.prior : n.kind ? KIND_PRIOR[n.kind] : (TYPE_PRIOR[n.type] ?? 0.4)),
    importance: clamp01(n.importance),
    feedback: clamp01(feedback),
    recency: clamp01(0.5 ** (idleMs / (noise ? NOISE.recencyHalfLifeMs : RECENCY_HALF_LIFE_MS))),
    usage: clamp01((Math.log1p(uses) / Math.log1p(USAGE_SATURATION)) * 0.5 ** (idleMs / USAGE_HALF_LIFE_MS)),
    age: clamp01(0.5 ** (ageMs / AGE_HALF_LIFE_MS)),
  };
  const value = (parts.type + parts.importance + parts.feedback) / 3;
  const score = WEIGHTS.value * value + WEIGHTS.recency * parts.recency + WEIGHTS.usage * parts.usage + WEIGHTS.age * parts.age;
  return { score: round(score), parts, noise, idleMs, ageMs, lastUsedAt: new Date(used).toISOString() };
}
