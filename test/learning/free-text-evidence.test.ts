import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';
import { ok, writeExecution, type Scope } from './helpers';

/**
 * Issue 28, learning from what agents really send: free-text evidence (`input_text` only) and
 * recorded replay runs (run/start → step/before / step/after → run/end) teach task start, and
 * merge into one workflow; an unseen task in a busy scope stays null (docs/learning.md, "What is
 * learned from").
 */

const FILE = 'src/payments/ledger_sync.ts';
const CANDIDATES = ['read', 'edit', 'apply_patch', 'run_tests', 'bash', 'grep'];

const TEXTS = [
  `Fix the ledger sync double counting refunds: edited ${FILE} with apply_patch; run_tests gave 9 passed.`,
  `Ledger sync counted refunds twice, fixed it: edited ${FILE} with apply_patch; run_tests gave 12 passed.`,
  `Refunds double counted by the ledger sync job. Patched ${FILE} using apply_patch, then run_tests: 9 passed.`,
];

async function writeText(api: TestApi, id: Scope, text: string) {
  return ok(api, '/v1/memory/write', { ...id, input_text: text });
}

async function recordRun(api: TestApi, id: Scope, runId: string, goal: string) {
  await ok(api, '/v1/memory/replay/run/start', { ...id, run_id: runId, goal, metadata: { task_kind: 'bugfix' } });
  const steps = [
    { tool_name: 'apply_patch', tool_input: { file_path: FILE, patch: '--- a\n+++ b' } },
    { tool_name: 'run_tests', tool_input: { command: 'npm test -- ledger' } },
  ];
  for (const [i, s] of steps.entries()) {
    await ok(api, '/v1/memory/replay/step/before', { ...id, run_id: runId, step_index: i, ...s });
    await ok(api, '/v1/memory/replay/step/after', { ...id, run_id: runId, step_index: i, status: 'success' });
  }
  return ok(api, '/v1/memory/replay/run/end', { ...id, run_id: runId, status: 'success' });
}

/** Other bugfix work in the same scope, with the same tools, in both evidence forms. */
async function busyWork(api: TestApi, id: Scope) {
  const others = [
    ['the CSV export drops the header row', 'src/reports/csv_export.ts'],
    ['login redirect loops after the session cookie expires', 'src/auth/session.ts'],
    ['webhook signatures are rejected for large payloads', 'src/webhooks/verify.ts'],
    ['search pagination skips the last page', 'src/search/paginate.ts'],
  ] as const;
  for (const [k, [task, file]] of others.entries()) {
    for (let i = 0; i < 2; i += 1) {
      await writeExecution(api, id, {
        goal: task,
        task_kind: 'bugfix',
        run_id: `busy-${k}-${i}`,
        steps: [{ tool: 'read', file_path: file }, { tool: 'apply_patch', file_path: file }, { tool: 'run_tests' }],
      });
      await writeText(api, id, `${task}: read ${file}, then edited it with apply_patch; run_tests gave ${5 + i} passed.`);
    }
  }
}

async function kickoff(api: TestApi, id: Scope, query: string, taskKind: string | null) {
  return ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: query, ...(taskKind ? { context: { task_kind: taskKind } } : {}), candidates: CANDIDATES });
}

describe('free-text evidence and recorded replay runs teach task start', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  it('an input_text write names its tools, file and outcome; it counts like an execution write, with its evidence id', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('text-one') };
    const first = await writeText(api, id, TEXTS[0]!);
    assert.deepEqual(first.extracted.tools, ['apply_patch', 'run_tests']);
    assert.deepEqual(first.extracted.file_paths, [FILE]);
    assert.equal(first.extracted.outcome, 'success');
    const second = await writeText(api, id, TEXTS[1]!);
    assert.equal(second.learning.workflows_updated.length, 1, JSON.stringify(second.learning));
    const wf = await ok(api, '/v1/memory/find', { ...id, kinds: ['workflow'] });
    assert.equal(wf.nodes.length, 1);
    const slot = wf.nodes[0].slots.workflow_v1;
    assert.equal(slot.distillation_origin, 'execution_write_projection');
    assert.deepEqual(
      slot.steps.map((s: { tool: string; file_path: string | null }) => [s.tool, s.file_path]),
      [
        ['apply_patch', FILE],
        ['run_tests', null],
      ],
    );
    assert.ok(slot.provenance_ids.includes(first.nodes[0].id) && slot.provenance_ids.includes(second.nodes[0].id), JSON.stringify(slot.provenance_ids));
    // The workflow's goal is the task the text describes, not its report of tools and results.
    assert.doesNotMatch(slot.goal, /apply_patch|run_tests|passed/);
  });

  it('spec path: three text writes and two recorded replay runs make one workflow; a paraphrase with task_kind gets the file and tool', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('text-replay') };
    await busyWork(api, id);
    const written: string[] = [];
    for (const t of TEXTS) written.push((await writeText(api, id, t)).nodes[0].id);
    const learnedFrom = new Set<string>();
    for (const [i, goal] of ['stop ledger sync from booking each refund twice', 'ledger sync double counts refunds again'].entries()) {
      const end = await recordRun(api, id, `ledger-run-${i}`, goal);
      assert.equal(end.run.learning.state, 'fed', JSON.stringify(end.run.learning));
      assert.equal(end.run.learning.workflows_updated.length, 1, JSON.stringify(end.run.learning));
      learnedFrom.add(end.run.learning.workflows_updated[0]);
    }
    // Text evidence and the runs of the same task are one workflow. Learning stores the workflow
    // it updated in the background (its writer batches), so the read waits for both episodes.
    const ledger = await pollFor('the ledger workflow with both replay episodes', async () => {
      const found = await ok(api, '/v1/memory/find', { ...id, kinds: ['workflow'], limit: 50 });
      const all = found.nodes.filter((n: { slots: { workflow_v1: { target_files: string[] } } }) => n.slots.workflow_v1.target_files.includes(FILE));
      return all.length !== 1 || all[0].slots.workflow_v1.origin_counts.replay_learning_episode >= 2 ? all : null;
    });
    assert.equal(ledger.length, 1, JSON.stringify(ledger.map((n: { slots: unknown }) => n.slots)));
    assert.deepEqual([...learnedFrom], [ledger[0].id]);
    const slot = ledger[0].slots.workflow_v1;
    assert.equal(slot.origin_counts.execution_write_projection, 3);
    assert.equal(slot.origin_counts.replay_learning_episode, 2);
    assert.ok(slot.provenance_ids.includes('replay:ledger-run-0'));

    const body = await kickoff(api, id, 'refund entries are counted twice when the ledger sync runs', 'bugfix');
    const fa = body.first_action;
    assert.ok(fa, `expected a first action: ${JSON.stringify(body)}`);
    assert.equal(fa.file_path, FILE);
    assert.equal(fa.selected_tool, 'apply_patch');
    assert.equal(fa.history_applied, true);
    assert.ok(
      written.some((w) => fa.evidence_ids.includes(w)),
      `evidence names the text writes: ${JSON.stringify(fa.evidence_ids)}`,
    );
  });

  it('text evidence alone is enough', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('text-only') };
    await busyWork(api, id);
    const written: string[] = [];
    for (const t of TEXTS) written.push((await writeText(api, id, t)).nodes[0].id);
    for (const kind of ['bugfix', null]) {
      const body = await kickoff(api, id, 'refund entries are counted twice when the ledger sync runs', kind);
      const fa = body.first_action;
      assert.ok(fa, `expected a first action (task_kind ${kind}): ${JSON.stringify(body)}`);
      assert.equal(fa.file_path, FILE);
      assert.equal(fa.selected_tool, 'apply_patch');
      // The workflow and the three writes it was learned from, nothing else.
      assert.deepEqual(fa.evidence_ids.filter((e: string) => e !== fa.workflow_id).sort(), [...written].sort(), JSON.stringify(fa));
    }
  });

  it('an unseen task in a busy scope gets no first action, with or without its task_kind', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('text-unseen') };
    await busyWork(api, id);
    for (const t of TEXTS) await writeText(api, id, t);
    await recordRun(api, id, 'ledger-run-u', 'ledger sync double counts refunds again');
    for (const kind of ['bugfix', null]) {
      const body = await kickoff(api, id, 'the PDF invoice renders the company logo upside down', kind);
      assert.equal(body.first_action, null, `task_kind ${kind}: ${JSON.stringify(body.first_action)}`);
      assert.equal(body.uncertainty.level, 'high');
    }
  });

  it('a shared task_kind alone is no evidence: the only bugfix family does not answer an unseen bugfix task', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('text-kind') };
    // The kind stated in the text ("[bugfix] …") is the family's kind.
    for (const t of TEXTS) await writeText(api, id, `[bugfix] ${t}`);
    const known = await kickoff(api, id, 'refund entries are counted twice when the ledger sync runs', 'bugfix');
    assert.equal(known.first_action?.file_path, FILE, JSON.stringify(known.first_action));
    const body = await kickoff(api, id, 'the PDF invoice renders the company logo upside down', 'bugfix');
    assert.equal(body.first_action, null, JSON.stringify(body.first_action));
  });

  it('a cancelled recorded run teaches nothing, and another scope sees none of it', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('text-cancel') };
    await ok(api, '/v1/memory/replay/run/start', { ...id, run_id: 'c1', goal: 'ledger sync double counts refunds' });
    await ok(api, '/v1/memory/replay/step/before', { ...id, run_id: 'c1', step_index: 0, tool_name: 'apply_patch', tool_input: { file_path: FILE } });
    const end = await ok(api, '/v1/memory/replay/run/end', { ...id, run_id: 'c1', status: 'cancelled' });
    assert.equal(end.run.learning.state, 'not_eligible');
    const other = { tenant_id: 'acme', scope: uniqueName('text-other') };
    for (const t of TEXTS) await writeText(api, id, t);
    const body = await kickoff(api, other, 'refund entries are counted twice when the ledger sync runs', 'bugfix');
    assert.equal(body.first_action, null);
  });
});
