import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { voteFiles } from '../../src/domain/learning/file-vote';
import type { WorkflowMatch } from '../../src/domain/learning/matches';
import type { PastTask } from '../../src/domain/learning/past-tasks';
import { relevance, type Signals } from '../../src/domain/learning/score';
import type { ExecOutcome } from '../../src/domain/learning/types';
import type { WorkflowSlot } from '../../src/domain/learning/workflow-model';

/**
 * Task start's vote (file-vote.ts; docs/learning.md, "Task start"): similar past tasks vote for
 * the files they worked on by similarity and outcome, matching workflows add their first move, a
 * file the task names by its own name gets a share, and confidence is the file's share of the
 * evidence with one vote's worth of doubt.
 */

let n = 0;
const task = (sim: number, files: string[], o: { outcome?: ExecOutcome | null; tools?: string[] } = {}): PastTask => ({
  node_id: `t${String((n += 1)).padStart(3, '0')}`,
  sim,
  lexical: sim,
  dense: null,
  obs: {
    source_id: `t${n}`,
    origin: 'execution_write_projection',
    task_kind: null,
    goal: null,
    terms: [],
    steps: files.map((f, i) => ({ tool: o.tools?.[i] ?? 'edit', file_path: f, next_action: null })),
    target_files: files,
    outcome: o.outcome === undefined ? 'success' : o.outcome,
    run_id: null,
    playbook_id: null,
    error_signature: null,
    at: '2026-12-01T00:00:00.000Z',
  },
});

const vote = (tasks: PastTask[], o: { workflows?: WorkflowMatch[]; allowed?: (t: string | null) => boolean; names?: Record<string, number> } = {}) =>
  voteFiles({ tasks, workflows: o.workflows ?? [], allowed: o.allowed ?? (() => true), nameMatch: (f) => o.names?.[f] ?? 0 });

const slot = (file: string, over: Partial<WorkflowSlot> = {}): WorkflowSlot =>
  ({
    goal: `task on ${file}`,
    goals: [`task on ${file}`],
    task_kind: null,
    target_files: [file],
    steps: [{ tool: 'read', file_path: file, next_action: null }],
    first_steps: { [`read|${file}`]: 3 },
    promotion_state: 'stable',
    promotion_ready: false,
    counts: { observations: 3, successes: 3, failures: 0, partials: 0, unresolved_failures: 0 },
    active_playbook_ids: [],
    provenance_ids: [],
    ...over,
  }) as unknown as WorkflowSlot;
const words: Signals = { lexical: 0.7, dense: null, dense_baseline: null, kind: 'none', files: false };
const workflow = (id: string, file: string, signals: Signals = words): WorkflowMatch =>
  ({ entry: { node: { id, tier: 'hot' }, slot: slot(file) }, score: relevance(signals), signals }) as unknown as WorkflowMatch;

describe('learning: the file vote of task start', () => {
  it('the files most similar past tasks worked on come first, with the tasks behind them', () => {
    const a = [task(0.9, ['a.ts']), task(0.85, ['a.ts', 'b.ts']), task(0.8, ['a.ts'])];
    const v = vote([...a, task(0.5, ['c.ts'])]);
    assert.deepEqual(
      v.files.map((f) => f.file),
      ['a.ts', 'b.ts', 'c.ts'],
    );
    assert.deepEqual(
      v.files[0]!.evidence,
      a.map((t) => t.node_id),
    );
    assert.equal(v.best, 0.9);
  });

  it('one very close task outweighs several barely similar ones', () => {
    const v = vote([task(0.95, ['near.ts']), task(0.2, ['far.ts']), task(0.2, ['far.ts']), task(0.2, ['far.ts'])]);
    assert.equal(v.files[0]!.file, 'near.ts');
  });

  it('a stated success counts more than no stated outcome, which counts more than a failure', () => {
    const v = vote([task(0.8, ['fail.ts'], { outcome: 'failure' }), task(0.8, ['unknown.ts'], { outcome: null }), task(0.8, ['ok.ts'])]);
    assert.deepEqual(
      v.files.map((f) => f.file),
      ['ok.ts', 'unknown.ts', 'fail.ts'],
    );
  });

  it('confidence grows with agreement and stays low for one task seen once', () => {
    const once = vote([task(1, ['a.ts'])]).files[0]!;
    assert.ok(once.confidence <= 0.4, `seen once: ${once.confidence}`);
    const thrice = vote([task(1, ['a.ts']), task(1, ['a.ts']), task(1, ['a.ts'])]).files[0]!;
    assert.ok(thrice.confidence >= 0.6, `three agreeing repeats: ${thrice.confidence}`);
    const split = vote([task(1, ['a.ts']), task(1, ['b.ts']), task(1, ['c.ts'])]).files[0]!;
    assert.ok(split.confidence < once.confidence, `three tasks that disagree: ${split.confidence}`);
  });

  it('a matching workflow votes for its first move, also without any past task', () => {
    const v = vote([], { workflows: [workflow('w1', 'lib/x.ts')] });
    assert.equal(v.files[0]!.file, 'lib/x.ts');
    assert.equal(v.files[0]!.workflow?.entry.node.id, 'w1');
    assert.equal(v.files[0]!.tool, 'read');
    assert.ok(v.best >= 0.4);
  });

  it('a workflow that matches too weakly to act does not vote', () => {
    const weak = workflow('w1', 'lib/x.ts', { ...words, lexical: 0.2 });
    assert.equal(vote([], { workflows: [weak] }).files.length, 0);
  });

  it('a file the task names gets a share that breaks a tie', () => {
    const tasks = [task(0.6, ['lib/reply.js', 'lib/request.js']), task(0.6, ['lib/request.js', 'lib/reply.js'])];
    assert.equal(vote(tasks, { names: { 'lib/reply.js': 1 } }).files[0]!.file, 'lib/reply.js');
    assert.equal(vote(tasks, { names: { 'lib/request.js': 1 } }).files[0]!.file, 'lib/request.js');
  });

  it('the tool is the one the evidence used first on the file, among those the caller can use', () => {
    const tasks = [task(0.9, ['a.ts', 'a.ts'], { tools: ['read', 'edit'] }), task(0.8, ['a.ts'], { tools: ['read'] })];
    assert.equal(vote(tasks).files[0]!.tool, 'read');
    assert.equal(vote(tasks, { allowed: (t) => t !== 'read' }).files[0]!.tool, 'edit');
  });

  it("a failed attempt's tool is not recommended", () => {
    const tasks = [task(0.9, ['a.ts'], { outcome: 'failure', tools: ['bash'] }), task(0.6, ['a.ts'], { tools: ['edit'] })];
    assert.equal(vote(tasks).files[0]!.tool, 'edit');
  });

  it('files a past task only read along the way count half', () => {
    const t = task(0.9, ['main.ts']);
    t.obs.steps.unshift({ tool: 'read', file_path: 'helper.ts', next_action: null });
    const v = vote([t]);
    assert.deepEqual(
      v.files.map((f) => f.file),
      ['main.ts', 'helper.ts'],
    );
    assert.ok(v.files[0]!.score > v.files[1]!.score * 1.5);
  });

  it('nothing similar: no files', () => {
    const v = vote([]);
    assert.deepEqual(v.files, []);
    assert.equal(v.best, 0);
  });
});
