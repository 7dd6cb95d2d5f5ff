import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScopeLearning } from '../../src/domain/learning/scope-state';
import { requestTerms } from '../../src/domain/learning/similarity';
import type { Attempt } from '../../src/domain/learning/types';
import { foundWorkflow, observeWorkflow, WORKFLOW_SLOT, type WorkflowSlot } from '../../src/domain/learning/workflow-model';
import type { StoredNode } from '../../src/store/memory/nodes';

/**
 * A scope keeps every workflow's head in memory and the whole slot of only some (scope-state.ts):
 * the lists only a change reads (`recent`, `sequences`) were ~45 % of a workflow's heap. A change
 * that is not stored yet is never dropped; anything else is read back from the store.
 */

const obs = (id: string, i: number): Attempt => ({
  source_id: id,
  origin: 'execution_write_projection',
  task_kind: 'bugfix',
  goal: `fix the cache in module ${i}`,
  terms: requestTerms(`fix the cache in module ${i}`),
  steps: [{ tool: 'read', file_path: `src/m${i}.ts`, next_action: null }],
  target_files: [`src/m${i}.ts`],
  outcome: 'success',
  run_id: `run-${id}`,
  playbook_id: null,
  error_signature: null,
  at: '2026-01-01T00:00:00.000Z',
});

const slotOf = (i: number) => foundWorkflow(`fam-${i}`, obs(`a${i}`, i), obs(`b${i}`, i));

const node = (i: number, slot: WorkflowSlot): StoredNode =>
  ({
    id: `w${String(i).padStart(4, '0')}`,
    tenant_id: 't',
    scope: 's',
    client_id: null,
    kind: 'workflow',
    type: 'procedure',
    tier: 'hot',
    seq: i + 1,
    title: 'w',
    summary: 'w',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    slots: { [WORKFLOW_SLOT]: slot },
  }) as unknown as StoredNode;

describe('learning: workflow heads and whole slots', () => {
  it('the index holds heads; a change seen here keeps the whole slot, a load does not', () => {
    const s = new ScopeLearning();
    s.apply(node(1, slotOf(1)));
    s.apply(node(2, slotOf(2)), { keepWhole: false });
    for (const id of ['w0001', 'w0002']) {
      const head = s.workflows.get(id)!.slot as Partial<WorkflowSlot>;
      assert.equal(head.recent, undefined, 'no recent list in the head');
      assert.equal(head.sequences, undefined, 'no sequences in the head');
      assert.equal(head.counts?.successes, 2);
    }
    assert.equal(s.fullWorkflow('w0001')?.recent.length, 2);
    assert.equal(s.fullWorkflow('w0002'), undefined, 'loaded: read back on a change');
  });

  it('keeps a bounded number of whole slots, but never drops a change not stored yet', () => {
    const s = new ScopeLearning();
    const n = 1400; // above the 1 024 whole slots kept
    const half = n / 2;
    const id = (i: number) => node(i, slotOf(0)).id;
    for (let i = 0; i < n; i += 1) s.apply(node(i, slotOf(i)), { keepWhole: false });
    // Changes not stored yet (the writer's window) for the first half, then stored ones for the second.
    for (let i = 0; i < half; i += 1) s.setWorkflowSlot(id(i), observeWorkflow(slotOf(i), obs(`c${i}`, i)));
    for (let i = half; i < n; i += 1) s.apply(node(i, slotOf(i)));
    for (let i = 0; i < half; i += 1) assert.equal(s.fullWorkflow(id(i))?.counts.successes, 3, `unstored change ${i} kept`);
    const kept = Array.from({ length: half }, (_, k) => s.fullWorkflow(id(half + k))).filter(Boolean).length;
    assert.ok(kept < half, `stored ones beyond the bound are dropped (${kept} of ${half} kept)`);
    // Once stored, a change is an ordinary entry again.
    s.apply(node(0, observeWorkflow(slotOf(0), obs('c0', 0))));
    for (let i = half; i < n; i += 1) s.apply(node(i, slotOf(i)));
    assert.equal(s.fullWorkflow('w0000'), undefined, 'stored, then pushed out by newer ones');
  });

  it('reads a whole slot from the store once and keeps it', async () => {
    const s = new ScopeLearning();
    const stored = observeWorkflow(slotOf(7), obs('c7', 7));
    s.apply(node(7, stored), { keepWhole: false });
    let reads = 0;
    const read = async () => {
      reads += 1;
      return node(7, stored);
    };
    const whole = await s.loadFullWorkflow('w0007', read);
    assert.equal(whole?.recent.length, 3);
    assert.deepEqual(whole?.sequences, stored.sequences);
    await s.loadFullWorkflow('w0007', read);
    assert.equal(reads, 1, 'kept after the first read');
    assert.equal(await s.loadFullWorkflow('w9999', async () => null), undefined);
  });
});
