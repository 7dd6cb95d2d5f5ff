import { TIERS, type MemoryNode, type NodeKind, type Tier } from '../../model/memory/node';
import { ARCHIVE_MIN_AGE_MS, ARCHIVE_MIN_IDLE_MS, DWELL_MS, NOISE, REVIEW_IMPORTANCE, TIER_BANDS } from './policy';
import { retentionScore, round, type Score } from './score';
import { feedbackState, payloadRelocated, payloadScopeOf, readSemantic, wrongRepeatedly, type Action, type LifecycleState, type PayloadScope, type RelocationState } from './slots';
import type { HoldReason } from '../../model/lifecycle/vocabulary';

export { feedbackState };

/**
 * One node → one decision (docs/forgetting.md, "Decisions"). Pure: the same node at the same
 * clock always gets the same decision, which is half of what makes a run idempotent (the dwell
 * times are the other half).
 */

export type DecidedNode = Pick<
  MemoryNode,
  'id' | 'client_id' | 'type' | 'kind' | 'tier' | 'pinned' | 'importance' | 'feedback' | 'access' | 'activation' | 'created_at' | 'updated_at' | 'slots' | 'revision' | 'text'
>;

export interface Decision {
  id: string;
  client_id: string | null;
  kind: NodeKind | null;
  action: Action;
  current_tier: Tier;
  target_tier: Tier;
  lifecycle_state: LifecycleState;
  retention_score: number;
  rationale: string[];
  /** What slots.archive_relocation_v1 should say once the decision is acted on. */
  relocation: RelocationState;
  payload_scope: Exclude<PayloadScope, 'none'>;
  /** Why the tier the score asked for was not applied: pinned, inside the dwell time, or not idle long enough. */
  held: HoldReason | null;
  /** The dwell clock after acting: when the node entered target_tier. */
  tier_changed_at: string;
  /** While feedback keeps the node colder: the tier it had before (semantic slot feedback_from_tier). */
  feedback_from_tier: Tier | null;
  /** Feedback no longer says it is wrong: the node goes back to feedback_from's tier (its payload restored when archived). */
  restore: boolean;
}

const DAY = 86_400_000;
const days = (ms: number) => `${Math.floor(ms / DAY)} d`;
const colder = (t: Tier): Tier => TIERS[Math.min(TIERS.indexOf(t) + 1, TIERS.length - 1)]!;
const rank = (t: Tier) => TIERS.indexOf(t);

/** The tier a score earns (TIER_BANDS). */
export function bandOf(score: number): Tier {
  if (score >= TIER_BANDS.hot) return 'hot';
  if (score >= TIER_BANDS.warm) return 'warm';
  if (score >= TIER_BANDS.cold) return 'cold';
  return 'archive';
}

function describe(s: Score): string {
  const p = s.parts;
  const f = (x: number) => round(x, 2).toFixed(2);
  return `score ${s.score.toFixed(3)} (type ${f(p.type)}, importance ${f(p.importance)}, feedback ${f(p.feedback)}, recency ${f(p.recency)}, usage ${f(p.usage)}, age ${f(p.age)})`;
}

/** When the node entered its current tier (the dwell clock). */
export function tierSince(n: DecidedNode): string {
  const sem = readSemantic(n.slots);
  if (!sem) return n.created_at;
  // Someone else moved the tier since our last decision: assume it happened at the last update.
  return sem.target_tier === n.tier ? sem.tier_changed_at : n.updated_at;
}

export function decide(n: DecidedNode, now: Date): Decision {
  const s = retentionScore(n, now);
  const nowIso = now.toISOString();
  const since = tierSince(n);
  const base = {
    id: n.id,
    client_id: n.client_id,
    kind: n.kind,
    current_tier: n.tier,
    retention_score: s.score,
    payload_scope: payloadScopeOf(n.kind),
  };
  const rationale = [describe(s), `idle ${days(s.idleMs)}, age ${days(s.ageMs)}`, ...(s.noise ? ['hook noise: a recorded event no task reused (shorter clocks)'] : [])];
  const state = feedbackState(n.feedback);
  // The tier feedback moved the node from, while feedback still holds it there.
  const heldFrom = readSemantic(n.slots)?.feedback_from_tier ?? null;
  const keptFrom = state === 'retired' ? heldFrom : null;
  const keep = (action: Action, state: LifecycleState, relocation: RelocationState, held: Decision['held'], ...why: string[]): Decision => ({
    ...base,
    action,
    target_tier: n.tier,
    lifecycle_state: state,
    relocation,
    held,
    rationale: [...rationale, ...why],
    tier_changed_at: since,
    feedback_from_tier: keptFrom,
    restore: false,
  });
  const move = (action: Action, to: Tier, state: LifecycleState, relocation: RelocationState, ...why: string[]): Decision => ({
    ...base,
    action,
    target_tier: to,
    lifecycle_state: state,
    relocation,
    held: null,
    rationale: [...rationale, ...why],
    tier_changed_at: nowIso,
    feedback_from_tier: keptFrom,
    restore: false,
  });
  const fb = `feedback +${n.feedback?.positive ?? 0}/-${n.feedback?.negative ?? 0}${n.feedback?.last_reason ? ` ("${n.feedback.last_reason.slice(0, 120)}")` : ''}`;

  // Feedback moved this node colder and no longer says it is wrong: it goes back (payload restored).
  if (heldFrom && state !== 'retired' && rank(heldFrom) < rank(n.tier)) {
    const to = heldFrom;
    const restored: Decision = {
      ...move(state === 'contested' ? 'review' : 'retain', to, state, 'none', `${fb}: feedback no longer says this memory is wrong; restored ${n.tier} → ${to}`),
      restore: true,
    };
    return state === 'contested' ? { ...restored, rationale: [...restored.rationale, 'contested: sent to review'] } : restored;
  }

  if (n.tier === 'archive') {
    if (payloadRelocated(n)) return keep('archive', 'archived', 'cold_archive', null, 'already archived; the payload is in the cold store');
    // In the archive tier but still holding its payload (written there, or rewritten while archived).
    return keep('archive', 'archived', 'cold_archive', null, 'in the archive tier with its payload still local: relocating it to the cold store');
  }

  if (state === 'contested') return keep('review', 'contested', 'none', null, `${fb} disagrees with itself: contested, sent to review`);
  const retired = state === 'retired' ? [`${fb}: feedback says this memory is wrong (retired)`] : [];
  // Feedback given since the node entered its tier acts at once, whatever the score and dwell say
  // (docs/forgetting.md, "Feedback acts when it is given"); a rehydration after it is respected.
  const fresh = !!n.feedback?.last_at && n.feedback.last_at >= since;
  if (state === 'retired' && fresh) {
    if (n.pinned || n.importance >= REVIEW_IMPORTANCE) {
      return keep(
        'review',
        'retired',
        'none',
        n.pinned ? 'pinned' : null,
        ...retired,
        `${n.pinned ? 'pinned' : `importance ${n.importance}`}: a person decides whether it goes; sent to review`,
      );
    }
    const from = heldFrom ?? n.tier;
    if (wrongRepeatedly(n.feedback)) {
      return {
        ...move('archive', 'archive', 'archived', 'cold_archive', ...retired, `repeatedly wrong: archived ${n.tier} → archive at once, payload relocated to the cold store`),
        feedback_from_tier: from,
      };
    }
    if (rank(n.tier) < rank('cold')) {
      return { ...move('demote', 'cold', 'retired', 'none', ...retired, `demoted ${n.tier} → cold at once`), feedback_from_tier: from };
    }
  }

  const band = bandOf(s.score);
  if (rank(band) <= rank(n.tier)) {
    return keep('retain', state, 'none', null, ...retired, `earns ${band}; stays ${n.tier}`);
  }
  if (n.pinned) return keep('retain', state, 'none', 'pinned', ...retired, `earns ${band} but is pinned: never demoted`);

  const inTier = now.getTime() - Date.parse(since);
  const dwell = DWELL_MS[n.tier as Exclude<Tier, 'archive'>];
  const dwellOk = inTier >= dwell;
  if (band === 'archive') {
    if (n.importance >= REVIEW_IMPORTANCE) {
      return keep('review', state, 'candidate', null, ...retired, `earns archive but importance ${n.importance} >= ${REVIEW_IMPORTANCE}: review before archiving`);
    }
    if (!dwellOk) return keep('retain', state, 'candidate', 'dwell', ...retired, `earns archive; in ${n.tier} for ${days(inTier)} < dwell ${days(dwell)}`);
    const minIdle = s.noise ? NOISE.archiveMinIdleMs : ARCHIVE_MIN_IDLE_MS;
    const minAge = s.noise ? NOISE.archiveMinAgeMs : ARCHIVE_MIN_AGE_MS;
    if (s.idleMs >= minIdle && s.ageMs >= minAge) {
      return move('archive', 'archive', 'archived', 'cold_archive', ...retired, `archived: ${n.tier} → archive, payload relocated to the cold store`);
    }
    if (n.tier !== 'cold') {
      return move('demote', colder(n.tier), state, 'candidate', ...retired, `earns archive but idle/age below ${days(minIdle)}: demoted ${n.tier} → ${colder(n.tier)}`);
    }
    return keep('retain', state, 'candidate', 'idle', ...retired, `earns archive; waits until idle and age reach ${days(minIdle)}`);
  }
  if (!dwellOk) return keep('retain', state, 'none', 'dwell', ...retired, `earns ${band}; in ${n.tier} for ${days(inTier)} < dwell ${days(dwell)}`);
  return move('demote', colder(n.tier), state, 'none', ...retired, `demoted ${n.tier} → ${colder(n.tier)} (earns ${band})`);
}
