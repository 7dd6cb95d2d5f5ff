import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateCondition } from '../../src/domain/automation/condition';
import { parseExpression } from '../../src/domain/automation/expression';
import { validateGraph } from '../../src/domain/automation/validate-graph';

/** Condition nodes written `{kind: "condition", expression}` (docs/automation.md, "Conditions"). */
describe('condition expressions', () => {
  const ok = (e: unknown) => {
    const r = parseExpression(e);
    assert.ok('condition' in r, JSON.stringify(r));
    return r.condition;
  };

  it('reads booleans, references and comparisons into {left, op, right}', () => {
    assert.deepEqual(ok(true), { left: true, op: 'truthy' });
    assert.deepEqual(ok('false'), { left: false, op: 'truthy' });
    assert.deepEqual(ok('$nodes.check.summary.ok'), { left: '$nodes.check.summary.ok', op: 'truthy' });
    assert.deepEqual(ok('$nodes.build.status == "ok"'), { left: '$nodes.build.status', op: 'eq', right: 'ok' });
    assert.deepEqual(ok("$nodes.build.status === 'ok'"), { left: '$nodes.build.status', op: 'eq', right: 'ok' });
    assert.deepEqual(ok('$nodes.a.n != null'), { left: '$nodes.a.n', op: 'ne', right: null });
    assert.deepEqual(ok('$nodes.a.count > 3'), { left: '$nodes.a.count', op: 'gt', right: 3 });
    assert.deepEqual(ok('2 < $nodes.a.count'), { left: 2, op: 'lt', right: '$nodes.a.count' });
  });

  it('refuses what it does not understand, saying what it does', () => {
    for (const e of ['$nodes.a.n >= 3', '$nodes.a && $nodes.b', 'len($nodes.a) == 1', '', 'a b c', 42, null, { op: 'eq' }, '$nodes.a b == 1']) {
      const r = parseExpression(e);
      assert.ok('error' in r, `${JSON.stringify(e)} → ${JSON.stringify(r)}`);
      assert.match(r.error, /reference|boolean|string|characters/);
    }
  });

  it('a parsed expression evaluates like the condition it stands for', () => {
    const outputs = { build: { status: 'ok', count: 5 } };
    assert.equal(evaluateCondition(ok('$nodes.build.status == "ok"'), outputs).result, true);
    assert.equal(evaluateCondition(ok('$nodes.build.count > 9'), outputs).result, false);
    assert.equal(evaluateCondition(ok(true), outputs).result, true);
    assert.equal(evaluateCondition(ok(false), outputs).result, false);
  });

  it('the graph validator stores the condition, and reports bad expressions and unknown keys by path', () => {
    const good = validateGraph({ nodes: [{ node_id: 'c', kind: 'condition', name: 'Check', expression: true }], edges: [] });
    assert.deepEqual(good.issues, []);
    assert.deepEqual(good.graph.nodes[0]!.condition, { left: true, op: 'truthy' });
    const bad = validateGraph({
      nodes: [
        { node_id: 'c', kind: 'condition', expression: '$nodes.x >= 1' },
        { node_id: 'd', kind: 'condition', expression: true, condition: { left: true, op: 'truthy' } },
        { node_id: 'e', kind: 'approval', approval_key: 'k', ui: { x: 1 } },
      ],
      edges: [{ from: 'c', to: 'e', weight: 2 }],
      layout: 'dag',
    } as never);
    const byPath = Object.fromEntries(bad.issues.map((i) => [i.path, i]));
    assert.match(byPath['graph.nodes[0].expression']!.message, />= ' is not supported|'>=' is not supported/);
    assert.match(byPath['graph.nodes[1].expression']!.message, /not both/);
    assert.deepEqual((byPath['graph.nodes[2].ui'] as { key?: string }).key, 'ui');
    assert.deepEqual((byPath['graph.edges[0].weight'] as { accepted?: string[] }).accepted, ['from', 'to', 'type']);
    assert.ok(byPath['graph.layout'], JSON.stringify(bad.issues));
  });
});
