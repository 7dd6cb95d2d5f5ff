import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoreError } from '../../src/contract/errors';
import {
  applyPatternFeedback,
  newPattern,
  patternClass,
  suppressPattern,
  unsuppressPattern,
  type FeedbackOutcome,
  type PatternSlot,
} from '../../src/domain/learning/pattern-model';
import { applyPolicyFeedback, canGovern, governPolicy, materialisePolicy, type Backing } from '../../src/domain/learning/policy-model';
import { evaluateRules, newRule, transitionRule } from '../../src/domain/learning/rule-model';
import { requestTerms } from '../../src/domain/learning/similarity';
import type { Attempt } from '../../src/domain/learning/types';
import { foundWorkflow, observeWorkflow, promoteByPlaybook, requiredObservations } from '../../src/domain/learning/workflow-model';

let clock = 0;
const at = () => new Date(Date.UTC(2026, 0, 1) + (clock += 1000)).toISOString();

const obs = (id: string, o: Partial<Attempt> = {}): Attempt => ({
  source_id: id,
  origin: 'execution_write_projection',
  task_kind: 'bugfix',
  goal: 'fix flaky retry',
  terms: requestTerms('fix flaky retry'),
  steps: [{ tool: 'read', file_path: 'src/worker.ts', next_action: null }],
  target_files: ['src/worker.ts'],
  outcome: 'success',
  run_id: null,
  playbook_id: null,
  error_signature: null,
  at: at(),
  ...o,
});

describe('workflow state machine', () => {
  it('candidate at two successes, stable at three consistent ones, origin kept', () => {
    let w = foundWorkflow('f1', obs('a', { origin: 'handoff_continuity_carrier' }), obs('b'));
    assert.equal(w.promotion_state, 'candidate');
    assert.equal(w.promotion_ready, true);
    assert.equal(w.distillation_origin, 'handoff_continuity_carrier');
    w = observeWorkflow(w, obs('c', { origin: 'session_event_continuity_carrier' }));
    assert.equal(w.promotion_state, 'stable');
    assert.equal(w.stable_reason, 'observations');
    assert.equal(w.distillation_origin, 'handoff_continuity_carrier');
    assert.equal(w.origin_counts.session_event_continuity_carrier, 1);
    assert.deepEqual(
      w.history.map((h) => h.to),
      ['candidate', 'stable'],
    );
  });

  it('a workflow learned only from continuity carriers is stable at two consistent successes', () => {
    const carrier = (id: string) => obs(id, { origin: 'handoff_continuity_carrier' });
    const w = foundWorkflow('f2', carrier('h1'), obs('s1', { origin: 'session_continuity_carrier' }));
    assert.equal(w.promotion_state, 'stable');
    assert.equal(w.stable_reason, 'observations');
    assert.equal(requiredObservations(w), 2);
    // Evidence of another kind joins: three consistent successes are needed again, and it has them.
    const mixed = observeWorkflow(w, obs('e1'));
    assert.equal(requiredObservations(mixed), 3);
    assert.equal(mixed.promotion_state, 'stable');
    // Carriers that disagree on the first step are not stable evidence.
    const split = foundWorkflow('f3', carrier('h2'), obs('h3', { origin: 'handoff_continuity_carrier', steps: [{ tool: 'edit', file_path: 'src/other.ts', next_action: null }] }));
    assert.equal(split.promotion_state, 'candidate');
    // An unresolved failure after them holds it back.
    const failed = observeWorkflow(w, obs('h4', { origin: 'handoff_continuity_carrier', outcome: 'failure' }));
    assert.equal(failed.promotion_state, 'candidate');
  });

  it('counting the same execution twice changes nothing', () => {
    const w = foundWorkflow('f1', obs('a'), obs('b'));
    assert.equal(observeWorkflow(w, obs('a')), w);
  });

  it('an unresolved failure drops an observed-stable workflow to candidate until a later success', () => {
    let w = foundWorkflow('f1', obs('a'), obs('b'));
    w = observeWorkflow(w, obs('c'));
    w = observeWorkflow(w, obs('d', { outcome: 'failure' }));
    assert.equal(w.promotion_state, 'candidate');
    assert.equal(w.counts.unresolved_failures, 1);
    w = observeWorkflow(w, obs('e'));
    assert.equal(w.promotion_state, 'stable');
    assert.equal(w.counts.failures, 1);
  });

  it('inconsistent first steps keep it a candidate; an active playbook makes it stable', () => {
    let w = foundWorkflow('f1', obs('a'), obs('b', { steps: [{ tool: 'grep', file_path: null, next_action: null }] }));
    w = observeWorkflow(w, obs('c', { steps: [{ tool: 'bash', file_path: null, next_action: null }] }));
    assert.equal(w.promotion_state, 'candidate');
    w = promoteByPlaybook(w, 'pb-1', at());
    assert.equal(w.promotion_state, 'stable');
    assert.equal(w.stable_reason, 'playbook_active');
    assert.equal(w.distillation_origin, 'execution_write_projection');
  });
});

const fb = (p: PatternSlot, outcome: FeedbackOutcome, run: string) => applyPatternFeedback(p, { outcome, run_key: run, decision_id: null, actor: 't', at: at(), reason: null });

describe('pattern state machine', () => {
  const fresh = () => newPattern({ family_id: 'f', label: 'fix', tool: 'edit', task_kind: null, term_counts: {}, samples: 0, files: [] });

  it('trusted at three distinct positive runs; repeats of one run count once', () => {
    let p = fresh();
    for (let i = 0; i < 5; i += 1) p = fb(p, 'positive', 'r1');
    assert.equal(p.state, 'observed');
    assert.equal(p.counts.positive, 5);
    p = fb(fb(p, 'positive', 'r2'), 'positive', 'r3');
    assert.equal(p.state, 'trusted');
  });

  it('a negative after trust contests it; two fresh positive runs revalidate; counters never reset', () => {
    let p = fresh();
    for (const r of ['r1', 'r2', 'r3']) p = fb(p, 'positive', r);
    p = fb(p, 'negative', 'r4');
    assert.equal(p.state, 'contested');
    p = fb(p, 'positive', 'r1'); // not fresh: counted positive before the contest
    assert.equal(p.state, 'contested');
    p = fb(p, 'positive', 'r5');
    assert.equal(p.state, 'contested');
    p = fb(p, 'positive', 'r6');
    assert.equal(p.state, 'trusted');
    assert.equal(p.counts.positive, 6);
    assert.equal(p.counts.negative, 1);
  });

  it('a negative before trust is open counter evidence', () => {
    let p = fresh();
    p = fb(fb(p, 'positive', 'r1'), 'negative', 'r2');
    p = fb(p, 'positive', 'r3');
    assert.equal(p.state, 'observed', 'three positives but the negative is still open');
    p = fb(p, 'positive', 'r4');
    assert.equal(p.state, 'trusted');
  });

  it('suppression is an overlay that feedback does not lift', () => {
    let p = fresh();
    for (const r of ['r1', 'r2', 'r3']) p = fb(p, 'positive', r);
    p = suppressPattern(p, 'op', 'noisy', at());
    for (const r of ['r7', 'r8', 'r9']) p = fb(p, 'positive', r);
    assert.equal(patternClass(p), 'suppressed');
    p = unsuppressPattern(p, 'op', 'ok', at());
    assert.equal(patternClass(p), 'trusted');
  });
});

describe('policy memory state machine', () => {
  const backing: Backing = { trusted_pattern_id: 'p1', stable_workflow_ids: [], file_path: 'src/worker.ts', target_files: [], avoid_tools: [], confidence: 0.8 };
  const ev = (outcome: 'positive' | 'negative', run: string) => ({ outcome, run_key: run, actor: 'a', at: at(), reason: null });
  const make = () => materialisePolicy({ family_id: 'f', family_label: 'fix', task_kind: null, term_counts: {}, samples: 1, tool: 'edit' }, backing, ev('positive', 'r0'));

  it('materialises active, default with a trusted pattern; contested by a negative; revalidated by two fresh positives', () => {
    let p = make();
    assert.equal(p.state, 'active');
    assert.equal(p.activation_mode, 'default');
    p = applyPolicyFeedback(p, ev('negative', 'r1'), backing);
    assert.equal(p.state, 'contested');
    p = applyPolicyFeedback(p, ev('positive', 'r2'), backing);
    assert.equal(p.state, 'contested');
    p = applyPolicyFeedback(p, ev('positive', 'r3'), backing);
    assert.equal(p.state, 'active');
    assert.deepEqual(
      p.history.map((h) => h.action),
      ['materialize', 'contest', 'revalidate'],
    );
  });

  it('retired stays retired whatever feedback arrives; reactivate brings it back; invalid moves are invalid_state', () => {
    let p = governPolicy(make(), 'retire', 'op', 'noisy', at(), 'pm-1');
    for (const r of ['a', 'b', 'c']) p = applyPolicyFeedback(p, ev('positive', r), backing);
    assert.equal(p.state, 'retired');
    assert.equal(p.counts.after_retire, 3);
    assert.throws(
      () => governPolicy(p, 'retire', 'op', 'again', at(), 'pm-1'),
      (e: unknown) => e instanceof LoreError && e.code === 'invalid_state',
    );
    p = governPolicy(p, 'reactivate', 'op', 'fixed', at(), 'pm-1');
    assert.equal(p.state, 'active');
    assert.throws(
      () => governPolicy(p, 'reactivate', 'op', 'x', at(), 'pm-1'),
      (e: unknown) => e instanceof LoreError && e.code === 'invalid_state',
    );
    assert.deepEqual(
      p.history.map((h) => [h.action, h.actor]),
      [
        ['materialize', 'a'],
        ['retire', 'op'],
        ['reactivate', 'op'],
      ],
    );
    assert.equal(canGovern('contested', 'retire'), true);
    assert.equal(canGovern('contested', 'reactivate'), false);
  });
});

describe('rules', () => {
  const rule = (id: string, state: 'draft' | 'shadow' | 'active', effects: { effect: 'prefer' | 'deny'; tool: string }[], conditions = {}) => ({
    id: `n-${id}`,
    slot: newRule({ rule_id: id, description: null, conditions, effects, priority: 0 }, state, 'op', 'test', at()),
  });
  const ctx = (text: string, candidates: string[] = []) => ({ task_kind: null, terms: new Set(requestTerms(text)), file_path: null, candidates });

  it('active rules apply, shadow rules are reported only, draft rules are not evaluated', () => {
    const e = evaluateRules(
      [
        rule('a', 'active', [{ effect: 'deny', tool: 'bash' }], { terms_any: ['deploy'] }),
        rule('s', 'shadow', [{ effect: 'prefer', tool: 'edit' }]),
        rule('d', 'draft', [{ effect: 'deny', tool: 'edit' }]),
      ],
      ctx('deploy the service'),
    );
    assert.deepEqual(e.deny, ['bash']);
    assert.deepEqual(e.shadow_prefer, ['edit']);
    assert.deepEqual(
      e.matched.map((m) => [m.rule_id, m.applied]),
      [
        ['a', true],
        ['s', false],
      ],
    );
    assert.equal(evaluateRules([rule('a', 'active', [{ effect: 'deny', tool: 'bash' }], { terms_any: ['deploy'] })], ctx('write docs')).deny.length, 0);
  });

  it('conditions match stemmed words', () => {
    const r = rule('a', 'active', [{ effect: 'prefer', tool: 'test' }], { terms_any: ['flaky'] });
    assert.equal(evaluateRules([r], ctx('the flakiness of the suite')).prefer[0], 'test');
    assert.deepEqual(evaluateRules([r], ctx('the intermittent failure')).prefer, [], 'no synonym list: a rule names the words it means');
  });

  it('state moves follow the table', () => {
    const r = rule('a', 'active', [{ effect: 'deny', tool: 'bash' }]).slot;
    const off = transitionRule(r, 'disabled', 'op', 'x', at(), 'n');
    assert.throws(
      () => transitionRule(off, 'active', 'op', 'x', at(), 'n'),
      (e: unknown) => e instanceof LoreError && e.code === 'invalid_state',
    );
    assert.equal(transitionRule(off, 'shadow', 'op', 'x', at(), 'n').state, 'shadow');
  });
});
