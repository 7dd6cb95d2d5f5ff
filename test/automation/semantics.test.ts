/**
 * The pure rules the workflow runs by (no servers): references, condition semantics, readiness of
 * a node from its incoming edges, cycle detection and topological order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateCondition } from '../../src/domain/automation/condition';
import { cyclesOf, topologicalOrder } from '../../src/domain/automation/graph-order';
import type { GraphEdge, NodeState } from '../../src/model/automation/graph';
import { readiness } from '../../src/domain/automation/readiness';
import { parseRef, resolveValue } from '../../src/domain/automation/references';
import { validateGraph } from '../../src/domain/automation/validate-graph';

const outputs = { build: { summary: { status: 'green', count: 3 }, items: [{ name: 'a' }, { name: 'b' }], empty: '', zero: 0, nothing: null } };

describe('references', () => {
  it('parse node id and dotted path; malformed ones are null', () => {
    assert.deepEqual(parseRef('$nodes.build.summary.status'), { raw: '$nodes.build.summary.status', node_id: 'build', path: ['summary', 'status'] });
    assert.deepEqual(parseRef('$nodes.build'), { raw: '$nodes.build', node_id: 'build', path: [] });
    for (const bad of ['$nodes.', '$nodes', '$nodes..x', '$nodes.build.', '$nodes.bu ild.x', '$nodes.-x.y']) assert.equal(parseRef(bad), null, bad);
  });

  it('resolve to any JSON value, deep inside objects and arrays; missing ones are listed', () => {
    const missing: string[] = [];
    const v = resolveValue(
      {
        s: '$nodes.build.summary.status',
        n: '$nodes.build.summary.count',
        second: '$nodes.build.items.1.name',
        whole: ['$nodes.build.summary'],
        lit: 'plain $nodes text',
        gone: '$nodes.build.nope',
        other: '$nodes.x.y',
      },
      outputs,
      missing,
    );
    assert.deepEqual(v, { s: 'green', n: 3, second: 'b', whole: [{ status: 'green', count: 3 }], lit: 'plain $nodes text', gone: null, other: null });
    assert.deepEqual(missing, ['$nodes.build.nope', '$nodes.x.y']);
  });
});

describe('conditions', () => {
  const cond = (left: unknown, op: 'eq' | 'ne' | 'gt' | 'lt' | 'exists' | 'truthy', right?: unknown) => evaluateCondition({ left, op, right }, outputs).result;
  it('eq/ne compare JSON structurally, without coercion; absent is equal to nothing', () => {
    assert.equal(cond('$nodes.build.summary.status', 'eq', 'green'), true);
    assert.equal(cond('$nodes.build.summary', 'eq', { count: 3, status: 'green' }), true);
    assert.equal(cond('$nodes.build.summary.count', 'eq', '3'), false);
    assert.equal(cond('$nodes.build.nope', 'eq', null), false);
    assert.equal(cond('$nodes.build.nope', 'ne', 'x'), true);
    assert.equal(cond('$nodes.build.nothing', 'eq', null), true);
  });
  it('gt/lt compare numbers with numbers and strings with strings; anything else is false', () => {
    assert.equal(cond('$nodes.build.summary.count', 'gt', 2), true);
    assert.equal(cond('$nodes.build.summary.count', 'lt', 2), false);
    assert.equal(cond('b', 'gt', 'a'), true);
    assert.equal(cond('$nodes.build.summary.count', 'gt', '2'), false);
    assert.equal(cond('$nodes.build.nope', 'lt', 5), false);
  });
  it('exists: present and not null; truthy: JavaScript truthiness of the value', () => {
    assert.equal(cond('$nodes.build.summary', 'exists'), true);
    assert.equal(cond('$nodes.build.nothing', 'exists'), false);
    assert.equal(cond('$nodes.build.nope', 'exists'), false);
    assert.equal(cond('$nodes.build.empty', 'exists'), true);
    assert.equal(cond('$nodes.build.empty', 'truthy'), false);
    assert.equal(cond('$nodes.build.zero', 'truthy'), false);
    assert.equal(cond('$nodes.build.items', 'truthy'), true);
    assert.equal(cond('$nodes.build.nope', 'truthy'), false);
  });
});

describe('readiness', () => {
  const facts = (m: Record<string, { kind?: 'condition' | 'playbook'; state: NodeState; result?: boolean }>) => (id: string) =>
    m[id] ? { kind: m[id]!.kind ?? 'playbook', state: m[id]!.state, ...(m[id]!.result !== undefined ? { result: m[id]!.result } : {}) } : undefined;
  const e = (from: string, type: GraphEdge['type'] = 'on_success'): GraphEdge => ({ from, to: 'n', type });
  it('runs when every incoming edge holds; waits while one is open; a root runs at once', () => {
    assert.deepEqual(readiness([], facts({})), { decision: 'run' });
    assert.deepEqual(readiness([e('a'), e('b')], facts({ a: { state: 'succeeded' }, b: { state: 'running' } })), { decision: 'wait' });
    assert.deepEqual(readiness([e('a'), e('b')], facts({ a: { state: 'succeeded' }, b: { state: 'succeeded' } })), { decision: 'run' });
  });
  it('skips at once when one edge can no longer hold, without waiting for the others', () => {
    const r = readiness([e('a'), e('b')], facts({ a: { state: 'failed' }, b: { state: 'paused' } }));
    assert.equal(r.decision, 'skip');
    assert.match((r as { reason: string }).reason, /'a' failed/);
    assert.equal(readiness([e('c')], facts({ c: { kind: 'condition', state: 'succeeded', result: false } })).decision, 'skip');
    assert.equal(readiness([e('c', 'on_false')], facts({ c: { kind: 'condition', state: 'succeeded', result: false } })).decision, 'run');
    assert.equal(readiness([e('c', 'on_false')], facts({ c: { kind: 'condition', state: 'succeeded', result: true } })).decision, 'skip');
    assert.equal(readiness([e('s')], facts({ s: { state: 'skipped' } })).decision, 'skip');
    assert.equal(readiness([e('s')], facts({ s: { state: 'cancelled' } })).decision, 'skip');
  });
});

describe('graph order', () => {
  const g = (edges: [string, string][], nodes = ['a', 'b', 'c', 'd']) => ({
    nodes: nodes.map((node_id) => ({ node_id, kind: 'approval' as const, inputs: {} })),
    edges: edges.map(([from, to]) => ({ from, to, type: 'on_success' as const })),
  });
  it('finds every cycle, self-edges included', () => {
    assert.deepEqual(
      cyclesOf(
        g([
          ['a', 'b'],
          ['b', 'c'],
        ]),
      ),
      [],
    );
    const cycles = cyclesOf(
      g([
        ['a', 'b'],
        ['b', 'a'],
        ['c', 'c'],
        ['c', 'd'],
      ]),
    );
    assert.equal(cycles.length, 2);
    assert.deepEqual(cycles.map((c) => [...c].sort().join()).sort(), ['a,b', 'c']);
  });
  it('orders topologically, ties by position in the graph', () => {
    assert.deepEqual(
      topologicalOrder(
        g([
          ['d', 'a'],
          ['c', 'a'],
        ]),
      ),
      ['b', 'c', 'd', 'a'],
    );
  });
  it('a 200-node chain validates (no recursion limits)', () => {
    const nodes = Array.from({ length: 200 }, (_, i) => ({ node_id: `n${i}`, kind: 'approval', approval_key: 'k', inputs: i > 0 ? { prev: `$nodes.n${i - 1}.reason` } : {} }));
    const edges = nodes.slice(1).map((n, i) => ({ from: `n${i}`, to: n.node_id }));
    const r = validateGraph({ nodes, edges });
    assert.deepEqual(r.issues, []);
    assert.equal(r.order?.length, 200);
  });
});
