import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newPattern, PATTERN_SLOT } from '../../src/domain/learning/pattern-model';
import { requestTerms } from '../../src/domain/learning/similarity';
import { ScopeRegistry, type LearnedStateSource } from '../../src/domain/learning/scopes';
import type { ScopeLearning } from '../../src/domain/learning/scope-state';
import type { Attempt } from '../../src/domain/learning/types';
import { foundWorkflow, WORKFLOW_SLOT } from '../../src/domain/learning/workflow-model';
import type { NodeKind } from '../../src/model/memory/node';
import { scopeRef, type ScopeRef } from '../../src/store/scope';
import type { StoredNode } from '../../src/store/memory/nodes';

/**
 * Loading a scope's learned state (scopes.ts): a read that must not wait takes the state as far
 * as it has loaded, with patterns (and policies, rules) ahead of the many workflows, and the load
 * goes on; everything that changes learned state waits for the whole of it. The source here holds
 * each page of workflows back until the test lets it go.
 */

const ref = scopeRef('t', 's');

const obs = (id: string, goal: string, file: string): Attempt => ({
  source_id: id,
  origin: 'execution_write_projection',
  task_kind: 'bugfix',
  goal,
  terms: requestTerms(goal),
  steps: [{ tool: 'read', file_path: file, next_action: null }],
  target_files: [file],
  outcome: 'success',
  run_id: null,
  playbook_id: null,
  error_signature: null,
  at: '2026-01-01T00:00:00.000Z',
});

const node = (id: string, kind: NodeKind, slots: Record<string, unknown>): StoredNode =>
  ({
    id,
    tenant_id: 't',
    scope: 's',
    client_id: null,
    kind,
    type: 'procedure',
    tier: 'hot',
    seq: 1,
    title: id,
    summary: id,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    slots,
  }) as unknown as StoredNode;

const workflow = (i: number) =>
  node(`w${String(i).padStart(4, '0')}`, 'workflow', {
    [WORKFLOW_SLOT]: foundWorkflow(`fam-${i}`, obs(`a${i}`, `fix the cache in module ${i}`, `src/m${i}.ts`), obs(`b${i}`, `fix the cache in module ${i}`, `src/m${i}.ts`)),
  });

const pattern = node('p0001', 'pattern', {
  [PATTERN_SLOT]: newPattern({ family_id: 'fam-1', label: 'fix the cache', tool: 'read', task_kind: 'bugfix', term_counts: {}, samples: 1, files: ['src/m1.ts'] }),
});

/** 1 200 workflows (three pages of 500) and one pattern; each workflow page waits for `release()`. */
function gatedSource() {
  const workflows = Array.from({ length: 1200 }, (_, i) => workflow(i));
  const reads: string[] = [];
  let open: (() => void)[] = [];
  const source: LearnedStateSource = {
    currentSeq: async () => 1,
    rules: async () => [],
    countSessionEvents: async () => 0,
    async page(_r: ScopeRef, kind: NodeKind, after: string | undefined, limit: number) {
      reads.push(kind);
      const all = kind === 'workflow' ? workflows : kind === 'pattern' ? [pattern] : [];
      const rest = all.filter((n) => after === undefined || n.id > after).slice(0, limit);
      if (kind === 'workflow') await new Promise<void>((resolve) => open.push(resolve));
      return rest;
    },
  };
  const release = () => {
    const waiting = open;
    open = [];
    for (const r of waiting) r();
    return waiting.length;
  };
  return { source, reads, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('learning: loading a scope', () => {
  it('a read gets the state as far as it has loaded, patterns first, and the load goes on', async () => {
    const { source, reads, release } = gatedSource();
    const loaded: ScopeLearning[] = [];
    const scopes = new ScopeRegistry(source, (_r, s) => loaded.push(s));

    const first = await scopes.forReading(ref, 0);
    await settle();
    assert.ok(first.loading, 'not loaded yet');
    const partial = await scopes.forReading(ref, 0);
    assert.equal(partial.loading?.reading, 'workflow');
    assert.equal(partial.loading?.applied, 1, 'the pattern, before any workflow');
    assert.equal(partial.state.patterns.size, 1);
    assert.equal(partial.state.workflows.size, 0);
    assert.equal(await scopes.within(ref, 20), null, 'held back: not whole within 20 ms');
    assert.equal(scopes.peek(ref), undefined);

    // One page of workflows: the next read sees 500 of them, still marked partial.
    assert.equal(release(), 1);
    // The page is applied in slices, with a turn of the event loop between them.
    await settle();
    assert.ok(partial.state.workflows.size > 0 && partial.state.workflows.size < 500, `a slice of the page, not all of it (${partial.state.workflows.size})`);
    for (let turns = 0; turns < 100 && partial.state.workflows.size < 500; turns += 1) await settle();
    const more = await scopes.forReading(ref, 0);
    assert.equal(more.state, partial.state, 'the same state object fills in');
    assert.equal(more.state.workflows.size, 500);
    assert.equal(more.loading?.applied, 501);

    const whole = scopes.get(ref);
    while (release() > 0 || scopes.peek(ref) === undefined) await settle();
    assert.equal((await whole).workflows.size, 1200);
    const after = await scopes.forReading(ref, 0);
    assert.equal(after.loading, null, 'whole once loaded');
    assert.equal(after.state.workflows.size, 1200);
    assert.equal(loaded.length, 1, 'the loaded callback ran once');
    assert.equal(reads.filter((k) => k === 'workflow').length, 3, 'one load shared by every caller: three pages of workflows');
    assert.deepEqual([...new Set(reads)], ['policy_memory', 'pattern', 'workflow', 'handoff', 'session'], 'policies and patterns before workflows');
  });

  it('waits for the whole state when it loads within the wait', async () => {
    const { source, release } = gatedSource();
    const scopes = new ScopeRegistry(source);
    const timer = setInterval(release, 5);
    try {
      const view = await scopes.forReading(ref, 60_000);
      assert.equal(view.loading, null);
      assert.equal(view.state.workflows.size, 1200);
    } finally {
      clearInterval(timer);
    }
  });

  it('requests wait for a load until the wait has passed since it began, not the wait each', async () => {
    const { source, release } = gatedSource();
    const scopes = new ScopeRegistry(source);
    assert.equal(scopes.waitLeft(ref, 500), 500, 'no load yet: the whole wait');
    void scopes.get(ref);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(scopes.waitLeft(ref, 20), 0, '20 ms after the load began: none left');
    assert.ok(scopes.waitLeft(ref, 60_000) > 50_000);
    // A read after the wait has passed answers from the partial state at once.
    const view = await scopes.forReading(ref, 20);
    assert.ok(view.loading, 'answered while loading');
    while (release() > 0 || scopes.peek(ref) === undefined) await settle();
  });

  it('a failed load is not kept: the next use loads again', async () => {
    let fail = true;
    const source: LearnedStateSource = {
      currentSeq: async () => 1,
      rules: async () => [],
      countSessionEvents: async () => 0,
      async page(_r, kind) {
        if (kind === 'workflow' && fail) throw new Error('store away');
        return [];
      },
    };
    const scopes = new ScopeRegistry(source);
    await assert.rejects(scopes.get(ref), /store away/);
    await assert.rejects(scopes.forReading(ref, 1000), /store away/);
    fail = false;
    assert.equal((await scopes.forReading(ref, 1000)).loading, null);
  });
});
