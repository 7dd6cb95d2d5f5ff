import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { routes } from '../../src/contract';
import { acceptedKeysAt, fieldType, hasClosedObject, topLevelKeys, unknownKeyIssues } from '../../src/contract/keys';

/** What the transport reads from a route's schema: accepted keys, closed objects, field types. */
describe('contract keys', () => {
  const S = z
    .object({
      n: z.number().int().default(1),
      flag: z.boolean().optional(),
      list: z.array(z.string()).optional(),
      patch: z.strictObject({ a: z.string().optional(), steps: z.array(z.strictObject({ op: z.string() })).optional() }).optional(),
      either: z.union([z.strictObject({ x: z.number() }), z.strictObject({ y: z.number() })]).optional(),
      meta: z.record(z.string(), z.unknown()).optional(),
    })
    .superRefine(() => {})
    .transform((v) => v);

  it('reads accepted keys through refinements, transforms, arrays and unions; own keys only', () => {
    assert.deepEqual(acceptedKeysAt(S, []), ['n', 'flag', 'list', 'patch', 'either', 'meta']);
    assert.deepEqual(acceptedKeysAt(S, ['patch']), ['a', 'steps']);
    assert.deepEqual(acceptedKeysAt(S, ['patch', 'steps', 0]), ['op']);
    assert.deepEqual(acceptedKeysAt(S, ['either']), ['x', 'y']);
    assert.equal(acceptedKeysAt(S, ['constructor']), null);
    assert.equal(acceptedKeysAt(S, ['meta']), null);
    assert.deepEqual([...topLevelKeys(S)!], ['n', 'flag', 'list', 'patch', 'either', 'meta']);
    assert.equal(topLevelKeys(z.strictObject({ a: z.string() })), null, 'a closed top level refuses unknown keys itself');
    assert.deepEqual([fieldType(S, 'n'), fieldType(S, 'flag'), fieldType(S, 'list'), fieldType(S, 'toString')], ['number', 'boolean', 'array', null]);
  });

  it('turns unrecognized keys into one issue per key naming the accepted ones', () => {
    const r = S.safeParse({ patch: { a: 'x', b: 1, steps: [{ op: 'o', extra: 2 }] } });
    assert.ok(!r.success);
    assert.deepEqual(
      unknownKeyIssues(r.error, S).sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: 'patch.b', message: "unknown key 'b' in patch; accepted: a, steps", key: 'b', accepted: ['a', 'steps'] },
        { path: 'patch.steps.0.extra', message: "unknown key 'extra' in patch.steps.0; accepted: op", key: 'extra', accepted: ['op'] },
      ],
    );
  });

  it('knows which routes have a closed object (and so can answer validation_failed)', () => {
    assert.equal(hasClosedObject(S), true);
    assert.equal(hasClosedObject(z.object({ a: z.string() })), false);
    for (const name of ['memory.find', 'replay.playbooks.repair', 'automations.run', 'sandbox.execute', 'learning.rulesState', 'delegation.find'] as const) {
      assert.equal(hasClosedObject(routes[name].input), true, name);
    }
    assert.equal(hasClosedObject(routes['memory.recallText'].input), false);
  });
});
