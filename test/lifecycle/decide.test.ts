import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bandOf, decide, feedbackState, type DecidedNode } from '../../src/domain/lifecycle/decide';
import { beyondSummary, codePoints, headCodePoints, lineDiff } from '../../src/domain/lifecycle/payload-text';
import { TIER_BANDS } from '../../src/domain/lifecycle/policy';
import { retentionScore } from '../../src/domain/lifecycle/score';
import { classify } from '../../src/domain/lifecycle/slots';
import { buildSummary, recommendedAction } from '../../src/domain/lifecycle/summary';
import { ScopeTally } from '../../src/domain/lifecycle/forgetting-view';

/** The forgetting policy without servers: scores, decisions, payload modes, the summary sentence. */

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (days: number) => new Date(T0 + days * DAY);

function node(over: Partial<DecidedNode> = {}): DecidedNode {
  return {
    id: '0190d8a0-0000-7000-8000-000000000001',
    client_id: 'c',
    type: 'event',
    kind: null,
    tier: 'hot',
    pinned: false,
    importance: 0.5,
    feedback: { positive: 0, negative: 0, quality: 0, last_outcome: null, last_at: null },
    access: { count: 0, last_at: null },
    activation: { count: 0, last_activated_at: null },
    created_at: at(0).toISOString(),
    updated_at: at(0).toISOString(),
    slots: {},
    revision: 1,
    text: 'payload',
    ...over,
  };
}

describe('retention score', () => {
  it('falls with idleness and age, rises with use and good feedback', () => {
    const fresh = retentionScore(node(), at(0)).score;
    const idle30 = retentionScore(node(), at(30)).score;
    const idle120 = retentionScore(node(), at(120)).score;
    assert.ok(fresh > idle30 && idle30 > idle120);
    assert.equal(bandOf(fresh), 'hot');
    assert.equal(bandOf(idle120), 'archive');
    const used = retentionScore(
      node({
        activation: { count: 3, last_activated_at: at(120).toISOString() },
        feedback: { positive: 3, negative: 0, quality: 1, last_outcome: 'positive', last_at: at(120).toISOString() },
      }),
      at(120),
    ).score;
    assert.equal(bandOf(used), 'hot');
    const bad = retentionScore(node({ feedback: { positive: 0, negative: 4, quality: -1, last_outcome: 'negative', last_at: at(0).toISOString() } }), at(5)).score;
    assert.ok(bad < retentionScore(node(), at(5)).score);
    assert.ok(fresh <= 1 && idle120 >= 0);
  });

  it('ignores the operator’s own slot writes as use, but counts a rehydration', () => {
    const decided = node({
      updated_at: at(10).toISOString(),
      slots: {
        semantic_forgetting_v1: { action: 'retain', lifecycle_state: 'active', decided_at: at(10).toISOString(), target_tier: 'hot', tier_changed_at: at(0).toISOString() },
      },
    });
    assert.equal(retentionScore(decided, at(40)).idleMs, 40 * DAY);
    const rewritten = node({ ...decided, updated_at: at(20).toISOString() });
    assert.equal(retentionScore(rewritten, at(40)).idleMs, 20 * DAY, 'a later update by someone else is a use');
    const rehydrated = node({ slots: { archive_relocation_v1: { relocation_state: 'none', rehydrated_at: at(35).toISOString() } } });
    assert.equal(retentionScore(rehydrated, at(40)).idleMs, 5 * DAY);
  });
});

describe('decisions', () => {
  it('bands, one tier at a time, archive gates and dwell', () => {
    assert.equal(bandOf(TIER_BANDS.hot), 'hot');
    assert.equal(bandOf(TIER_BANDS.cold - 0.001), 'archive');
    // 25 days idle: earns cold, moves one tier.
    const d25 = decide(node(), at(25));
    assert.equal(d25.action, 'demote');
    assert.equal(d25.target_tier, 'warm');
    // Just demoted to warm at day 25: a decision at day 26 is held by the dwell.
    const demoted = node({
      tier: 'warm',
      updated_at: at(25).toISOString(),
      slots: {
        semantic_forgetting_v1: { action: 'demote', lifecycle_state: 'active', decided_at: at(25).toISOString(), target_tier: 'warm', tier_changed_at: at(25).toISOString() },
      },
    });
    const held = decide(demoted, at(26));
    assert.equal(held.action, 'retain');
    assert.equal(held.held, 'dwell');
    // 100 days idle: straight to the archive, payload to the cold store.
    const d100 = decide(node(), at(100));
    assert.equal(d100.action, 'archive');
    assert.equal(d100.target_tier, 'archive');
    assert.equal(d100.lifecycle_state, 'archived');
    assert.equal(d100.relocation, 'cold_archive');
    assert.equal(d100.payload_scope, 'node');
    assert.equal(decide(node({ kind: 'workflow' }), at(500)).payload_scope, 'anchor_payload');
  });

  it('pinned nodes are never demoted; important ones go to review instead of the archive', () => {
    const pinned = decide(node({ pinned: true }), at(300));
    assert.equal(pinned.action, 'retain');
    assert.equal(pinned.target_tier, 'hot');
    assert.equal(pinned.held, 'pinned');
    const important = decide(node({ importance: 0.95, type: 'event' }), at(3000));
    assert.equal(important.action, 'review');
    assert.equal(important.target_tier, 'hot');
    assert.equal(important.relocation, 'candidate');
  });

  it('contested feedback goes to review; feedback that says it is wrong retires it', () => {
    const fb = (positive: number, negative: number) => ({
      positive,
      negative,
      quality: (positive - negative) / (positive + negative),
      last_outcome: null,
      last_at: at(0).toISOString(),
    });
    assert.equal(feedbackState(fb(2, 2)), 'contested');
    assert.equal(feedbackState(fb(0, 3)), 'retired');
    assert.equal(feedbackState(fb(5, 1)), 'active');
    const contested = decide(node({ feedback: fb(2, 2) }), at(1));
    assert.equal(contested.action, 'review');
    assert.equal(contested.lifecycle_state, 'contested');
    // Retired, fresh feedback: demoted to cold at once, whatever the score and the dwell say.
    const retired = decide(node({ feedback: fb(0, 2) }), at(1));
    assert.equal(retired.lifecycle_state, 'retired');
    assert.equal(retired.action, 'demote');
    assert.equal(retired.target_tier, 'cold');
    assert.equal(retired.feedback_from_tier, 'hot');
    assert.match(retired.rationale.join(' '), /feedback says this memory is wrong/);
    // Repeatedly wrong: archived at once, the payload relocated.
    const wrong = decide(node({ feedback: fb(0, 3) }), at(1));
    assert.equal(wrong.action, 'archive');
    assert.equal(wrong.target_tier, 'archive');
    assert.equal(wrong.relocation, 'cold_archive');
    assert.equal(wrong.lifecycle_state, 'archived');
    assert.equal(wrong.feedback_from_tier, 'hot');
    // Pinned or important: a person decides.
    for (const n of [node({ feedback: fb(0, 4), pinned: true }), node({ feedback: fb(0, 4), importance: 0.9 })]) {
      const d = decide(n, at(1));
      assert.equal(d.action, 'review');
      assert.equal(d.target_tier, 'hot');
      assert.equal(d.lifecycle_state, 'retired');
    }
    // A rehydration after the feedback is respected: no feedback move until new feedback arrives.
    const rehydrated = node({
      feedback: fb(0, 4),
      slots: {
        semantic_forgetting_v1: {
          action: 'retain',
          lifecycle_state: 'retired',
          current_tier: 'archive',
          target_tier: 'hot',
          tier_changed_at: at(2).toISOString(),
          decided_at: at(2).toISOString(),
          run_id: 'rehydrate:x',
          rationale: [],
          retention_score: 0.5,
          policy: 2,
          basis: '',
        },
      },
    });
    const held = decide(rehydrated, at(3));
    assert.notEqual(held.action, 'archive');
    assert.equal(held.target_tier, 'hot');
  });

  it('an outcome that lifts the verdict restores what feedback moved, payload included', () => {
    const fb = (positive: number, negative: number) => ({
      positive,
      negative,
      quality: (positive - negative) / (positive + negative),
      last_outcome: null,
      last_at: at(5).toISOString(),
    });
    const archivedSem = {
      action: 'archive',
      lifecycle_state: 'archived',
      current_tier: 'hot',
      target_tier: 'archive',
      tier_changed_at: at(1).toISOString(),
      decided_at: at(1).toISOString(),
      run_id: 'feedback:x',
      rationale: [],
      retention_score: 0.3,
      policy: 2,
      basis: '',
      feedback_from_tier: 'hot',
    };
    const relocation = { relocation_state: 'cold_archive', cold_key: 'k:1', revision: 1 };
    // Still wrong: stays archived, remembering where it came from.
    const still = decide(node({ tier: 'archive', text: '', feedback: fb(1, 4), slots: { semantic_forgetting_v1: archivedSem, archive_relocation_v1: relocation } }), at(6));
    assert.equal(still.action, 'archive');
    assert.equal(still.feedback_from_tier, 'hot');
    // Positives lift it: restored to hot (the operator reads the payload back from the cold store).
    const back = decide(node({ tier: 'archive', text: '', feedback: fb(8, 4), slots: { semantic_forgetting_v1: archivedSem, archive_relocation_v1: relocation } }), at(6));
    assert.equal(back.restore, true);
    assert.equal(back.target_tier, 'hot');
    assert.equal(back.action, 'review', 'positive and negative feedback both: contested, sent to review');
    assert.equal(back.feedback_from_tier, null);
    const active = decide(
      node({ tier: 'cold', feedback: fb(12, 2), slots: { semantic_forgetting_v1: { ...archivedSem, action: 'demote', target_tier: 'cold', feedback_from_tier: 'warm' } } }),
      at(6),
    );
    assert.equal(active.restore, true);
    assert.equal(active.action, 'retain');
    assert.equal(active.target_tier, 'warm');
  });

  it('a node in the archive tier with its payload still local is relocated; a relocated one is left alone', () => {
    const local = decide(node({ tier: 'archive' }), at(1));
    assert.equal(local.action, 'archive');
    assert.equal(local.relocation, 'cold_archive');
    const relocated = decide(node({ tier: 'archive', text: '', slots: { archive_relocation_v1: { relocation_state: 'cold_archive', cold_key: 'k:1', revision: 1 } } }), at(1));
    assert.equal(relocated.action, 'archive');
    assert.ok(relocated.rationale.some((r) => r.includes('already archived')));
    // Rewritten while archived (revision 2 carries a new payload): relocated again.
    const rewritten = decide(
      node({ tier: 'archive', revision: 2, text: 'new', slots: { archive_relocation_v1: { relocation_state: 'cold_archive', cold_key: 'k:1', revision: 1 } } }),
      at(1),
    );
    assert.ok(rewritten.rationale.some((r) => r.includes('relocating')));
  });

  it('is deterministic: the same node at the same clock gets the same decision', () => {
    assert.deepEqual(decide(node(), at(42)), decide(node(), at(42)));
  });
});

describe('payload modes', () => {
  it('counts and cuts in code points, never splitting a surrogate pair', () => {
    const s = 'a🚀b👩🏽‍💻c';
    assert.equal(codePoints(s), [...s].length);
    assert.equal(headCodePoints(s, 2), 'a🚀');
    assert.equal(headCodePoints(s, 100), s);
    assert.equal(headCodePoints('', 3), '');
  });

  it('line differences and what a payload adds to its summary', () => {
    assert.deepEqual(lineDiff('a\nb\nc\nc', 'a\nc\nd'), { added_lines: ['d'], removed_lines: ['b', 'c'], unchanged_line_count: 2 });
    assert.deepEqual(lineDiff('x', 'x'), { added_lines: [], removed_lines: [], unchanged_line_count: 1 });
    assert.deepEqual(beyondSummary('first line. second…', 'first line.\nsecond\nthird one\n\n'), { added_lines: ['third one'], removed_lines: [], unchanged_line_count: 2 });
  });
});

describe('forgetting summary', () => {
  it('is all zeros with a sentence for an empty scope, and picks the most pressing sentence', () => {
    const empty = buildSummary(null, null);
    assert.equal(empty.node_count, 0);
    assert.deepEqual(empty.semantic_action_counts, { retain: 0, demote: 0, archive: 0, review: 0 });
    assert.deepEqual(empty.rehydration_mode_counts, { summary: 0, partial: 0, full: 0, differential: 0 });
    assert.equal(empty.last_run, null);
    assert.match(empty.recommended_action, /No memory/);
    const base = { ...empty, node_count: 10, evaluated_count: 10, tier_counts: { hot: 10, warm: 0, cold: 0, archive: 0 } };
    assert.match(recommendedAction({ ...base, evaluated_count: 0 }), /lifecycle\/run/);
    assert.match(recommendedAction({ ...base, semantic_action_counts: { retain: 8, demote: 0, archive: 0, review: 2 } }), /Review 2 nodes/);
    assert.match(recommendedAction({ ...base, differential_rehydration_candidate_count: 1 }), /differential/);
    assert.match(recommendedAction({ ...base, differential_rehydration_candidate_count: 1 }), /widen recall/);
    assert.match(recommendedAction({ ...base, tier_counts: { hot: 9, warm: 0, cold: 0, archive: 1 } }), /widen recall/);
    assert.match(recommendedAction({ ...base, lifecycle_state_counts: { active: 8, contested: 0, retired: 2, archived: 0 } }), /2 nodes are retired by feedback/);
    assert.equal(empty.stale_signal_count, 0);
    assert.match(recommendedAction({ ...base, archive_relocation_state_counts: { none: 7, candidate: 3, cold_archive: 0 } }), /3 nodes are cooling/);
    assert.match(recommendedAction(base), /healthy/);
    for (const s of [recommendedAction(base), empty.recommended_action]) assert.equal(s.split(/(?<=[.!?])\s/).length, 1, 'one sentence');
  });
});

describe('counting nodes no operator run has decided', () => {
  it('counts them as what happens to them now, with the state their feedback gives them', () => {
    const none = { positive: 0, negative: 0 };
    assert.deepEqual(classify('hot', {}, none), {
      tier: 'hot',
      action: 'retain',
      state: 'active',
      relocationState: 'none',
      relocationTarget: 'none',
      payloadScope: 'none',
      decided: false,
    });
    assert.equal(classify('warm', {}, { positive: 0, negative: 4 }).state, 'retired');
    assert.equal(classify('warm', {}, { positive: 0, negative: 4 }).action, 'retain');
    const contested = classify('hot', {}, { positive: 2, negative: 2 });
    assert.deepEqual([contested.action, contested.state], ['review', 'contested']);
    assert.deepEqual([classify('archive', {}, none).action, classify('archive', {}, none).state], ['archive', 'archived']);
    // A decision slot wins over feedback: the operator's word is the count.
    const decided = classify('hot', { semantic_forgetting_v1: { action: 'retain', lifecycle_state: 'active' } }, { positive: 0, negative: 4 });
    assert.deepEqual([decided.action, decided.state, decided.decided], ['retain', 'active', true]);
  });

  it('the summary never reports zeros for a scope the operator has not run on', () => {
    const t = new ScopeTally({ tenant_id: 't', scope: 's' });
    t.add(0, classify('hot', {}, { positive: 0, negative: 0 }), 1);
    t.add(1, classify('hot', {}, { positive: 0, negative: 3 }), 1);
    t.add(2, classify('hot', { semantic_forgetting_v1: { action: 'review', lifecycle_state: 'contested' } }, { positive: 1, negative: 1 }), 1);
    const s = buildSummary(t, null);
    assert.deepEqual(s.semantic_action_counts, { retain: 2, demote: 0, archive: 0, review: 1 });
    assert.deepEqual(s.lifecycle_state_counts, { active: 1, contested: 1, retired: 1, archived: 0 });
    assert.equal(s.node_count, 3);
    assert.equal(s.evaluated_count, 1);
    assert.equal(s.undecided_count, 2);
    assert.deepEqual([...t.review], [2], 'only decided reviews are review candidates');
    assert.match(s.recommended_action, /Review 1 node/);
  });
});
