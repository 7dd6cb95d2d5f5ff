import assert from 'node:assert/strict';
import { scopeRef } from '../../src/store/scope';
import { describe, it } from 'node:test';
import { firstActionOf } from '../../src/domain/learning/first-action';
import { actionableWorkflows, denseLed, settledFirstMove } from '../../src/domain/learning/workflow-moves';
import { voteFiles } from '../../src/domain/learning/file-vote';
import type { WorkflowMatch } from '../../src/domain/learning/matches';
import { taskRequest } from '../../src/domain/learning/request';
import { relevance, type Signals } from '../../src/domain/learning/score';
import { ScopeLearning } from '../../src/domain/learning/scope-state';
import { GoalVectors } from '../../src/domain/learning/vectors';
import type { WorkflowSlot } from '../../src/domain/learning/workflow-model';
import { createEmbedder, type Embedder } from '../../src/retrieval';
import { fakeOnnxModel, TINY_WORDPIECE } from '../helpers/fake-onnx';

/**
 * A first move proposed on the dense part alone (a paraphrase guess) must come from a workflow
 * whose learned first move is settled (first-action.ts, docs/learning.md "Thresholds"); matches
 * the words, task_kind or files already make actionable are unaffected.
 */

const slot = (file: string, over: Partial<WorkflowSlot> = {}): WorkflowSlot =>
  ({
    goal: `task on ${file}`,
    goals: [`task on ${file}`],
    task_kind: null,
    target_files: [file],
    steps: [{ tool: 'read', file_path: file }],
    first_steps: { [`read|${file}`]: 2 },
    promotion_state: 'candidate',
    promotion_ready: false,
    counts: { observations: 2, successes: 2, failures: 0, partials: 0, unresolved_failures: 0 },
    active_playbook_ids: [],
    provenance_ids: [],
    ...over,
  }) as unknown as WorkflowSlot;

const match = (id: string, s: WorkflowSlot, signals: Signals): WorkflowMatch =>
  ({ entry: { node: { id, tier: 'hot' }, slot: s }, score: relevance(signals), signals }) as unknown as WorkflowMatch;

const denseOnly: Signals = { lexical: 0, dense: 0.7, dense_baseline: 0.5, kind: 'none', files: false };
const wordsToo: Signals = { lexical: 0.5, dense: 0.7, dense_baseline: 0.5, kind: 'none', files: false };
const noRules = { matched: [], prefer: [], deny: [], shadow_prefer: [], shadow_deny: [] };
/** Task start with no similar past task: the workflows alone vote (file-vote.ts). */
const ask = (workflows: WorkflowMatch[]) =>
  firstActionOf({
    request: taskRequest({ query_text: 'some paraphrase' }),
    vote: voteFiles({ tasks: [], workflows, allowed: () => true, nameMatch: () => 0 }),
    patterns: [],
    policies: [],
    rules: noRules,
  });

describe('learning: first action from a dense-only match', () => {
  it('a settled first move: stable, or a candidate whose runs agree (promotion_ready)', () => {
    assert.equal(settledFirstMove(slot('a.ts', { promotion_state: 'stable' })), true);
    assert.equal(settledFirstMove(slot('a.ts', { promotion_ready: true })), true);
    assert.equal(settledFirstMove(slot('a.ts')), false);
  });

  it('dense-led: actionable only through the dense part', () => {
    const s = slot('a.ts');
    assert.equal(denseLed(match('w', s, denseOnly)), true);
    assert.equal(denseLed(match('w', s, wordsToo)), false, 'the words alone act');
    // A shared task_kind strengthens words or meaning; alone it does not act (issue 28).
    assert.equal(denseLed(match('w', s, { ...denseOnly, kind: 'match' })), true, 'task_kind alone does not act');
    assert.equal(denseLed(match('w', s, { ...denseOnly, kind: 'match', lexical: 0.3 })), false, 'words with the kind act');
    assert.equal(denseLed(match('w', s, { ...denseOnly, dense: null })), false, 'no dense part');
  });

  it('a dense-only match on a candidate whose runs disagree on the first move answers null', () => {
    assert.ok(match('w', slot('a.ts'), denseOnly).score >= 0.4, 'the match itself is actionable');
    assert.equal(ask([match('w', slot('a.ts'), denseOnly)]), null);
    assert.equal(actionableWorkflows([match('w', slot('a.ts'), denseOnly)], () => true).length, 0);
  });

  it('the same match on a settled workflow acts', () => {
    for (const s of [slot('a.ts', { promotion_ready: true }), slot('a.ts', { promotion_state: 'stable' })]) {
      const fa = ask([match('w', s, denseOnly)]);
      assert.equal(fa?.file_path, 'a.ts');
    }
  });

  it('an unsettled workflow the words make actionable still acts (the lexical behaviour is unchanged)', () => {
    assert.equal(ask([match('w', slot('a.ts'), wordsToo)])?.file_path, 'a.ts');
  });

  it('a filtered dense guess neither acts nor makes a tie with the settled workflow behind it', () => {
    const unsettled = match('u', slot('u.ts'), denseOnly);
    const settled = match('s', slot('s.ts', { promotion_ready: true }), { ...denseOnly, dense: 0.69 });
    assert.ok(Math.abs(unsettled.score - settled.score) < 0.05, 'without the rule the two would be a tie (null)');
    assert.equal(ask([unsettled, settled])?.file_path, 's.ts');
  });
});

describe('learning: goal vectors of an in-process onnx encoder are embedded one text per call', () => {
  const log = { debug() {}, info() {}, warn() {}, error() {}, child: () => log };
  const fake = (provider: 'openai') => {
    const calls: number[] = [];
    const embedder = {
      id: `${provider}:fake`,
      provider,
      dimensions: 2,
      embed: async (texts: string[]) => {
        calls.push(texts.length);
        return texts.map((_, i) => Float32Array.from([1, i]));
      },
    } as unknown as Embedder;
    return { calls, vectors: new GoalVectors(embedder, log as never) };
  };
  const learned = (id: string, goals: string[]) => ({ node: { id } as never, slot: slot(`${id}.ts`, { goal: goals[0]!, goals }) });

  it('onnx: every phrasing alone (a quantized model output depends on its batch)', async () => {
    // The onnx embedder itself runs one text per model run (onnx.ts); here through GoalVectors.
    const model = fakeOnnxModel(TINY_WORDPIECE);
    const embedder = (await createEmbedder({ provider: 'onnx', model: model.model, moduleDir: model.moduleDir }))!;
    const vectors = new GoalVectors(embedder, log as never);
    const state = new ScopeLearning();
    for (const id of ['a', 'b']) {
      const w = learned(id, [`first ${id}`, `second ${id}`]);
      state.workflows.put(id, { task_kind: null, term_counts: { [id]: 1 }, samples: 2, files: [`${id}.ts`] }, w);
      vectors.enqueue(scopeRef('t', 's'), state, w);
    }
    await vectors.idle();
    const calls = model.runs();
    assert.ok(calls.length >= 6 && calls.every((n) => n === 1), `calls ${JSON.stringify(calls)}`);
    assert.ok(state.workflows.hasVector('a') && state.workflows.hasVector('b'));
  });

  it('remote endpoints keep batching', async () => {
    const { calls, vectors } = fake('openai');
    const state = new ScopeLearning();
    const w = learned('a', ['first a', 'second a']);
    state.workflows.put('a', { task_kind: null, term_counts: { a: 1 }, samples: 2, files: ['a.ts'] }, w);
    vectors.enqueue(scopeRef('t', 's'), state, w);
    await vectors.idle();
    assert.deepEqual(calls, [3]);
  });
});
