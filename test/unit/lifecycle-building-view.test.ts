import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LifecycleCtx } from '../../src/domain/lifecycle/context';
import { createLifecycleServices } from '../../src/domain/lifecycle/services';
import { ScopeTally } from '../../src/domain/lifecycle/forgetting-view';
import { scopeRef } from '../../src/store/scope';
import type { StoredNode } from '../../src/store/memory/nodes';

/**
 * The forgetting view's start-up build scans every node's state (seconds at 100 000 nodes). A
 * forgetting summary or a rehydration lookup asked for meanwhile (planning/context asks for both)
 * waits LORE_BUILD_WAIT at most and then answers without the view (services.ts). The view here
 * never finishes building until the test says so.
 */

const ref = scopeRef('t', 's');

const archived = {
  id: 'n1',
  client_id: 'old-workflow',
  type: 'procedure',
  kind: 'workflow',
  tier: 'archive',
  title: 'rotate the signing keys',
  summary: 'rotate the signing keys',
  slots: {},
} as unknown as StoredNode;

function services(buildWaitMs: number) {
  let built = false;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  const tally = new ScopeTally(ref);
  tally.nodes = 7;
  tally.tiers.hot = 7;
  const view = {
    readiness: () => (built ? { status: 'ready', detail: '7 nodes in 1 scopes' } : { status: 'building', detail: '3 nodes read so far' }),
    sync: () => done,
    tally: () => tally,
    // The whole wait each time here (the view gives what is left of it since its build began).
    buildWaitLeft: (ms: number) => ms,
  };
  const recalls: string[] = [];
  const ctx = {
    view,
    states: { get: async () => null },
    memory: {
      recall: async (_r: unknown, q: { text: string }) => {
        recalls.push(q.text);
        return { hits: [{ node: archived, score: 0.9 }] };
      },
      nodes: () => ({ getMany: async () => [archived] }),
    },
    buildWaitMs,
  } as unknown as LifecycleCtx;
  const ready = () => {
    built = true;
    finish();
  };
  return { svc: createLifecycleServices(ctx), ready, recalls };
}

describe('lifecycle: a request while the forgetting view is still building', () => {
  it('the summary answers after the wait, says the counts are being built, and counts once built', async () => {
    const { svc, ready } = services(30);
    const s = await svc.forgettingSummary(ref);
    assert.equal(s.node_count, 0, 'not known yet');
    assert.match(s.recommended_action, /still being built after a start \(3 nodes read so far/);
    ready();
    const after = await svc.forgettingSummary(ref);
    assert.equal(after.node_count, 7);
    assert.equal(after.tier_counts.hot, 7);
    assert.doesNotMatch(after.recommended_action, /being built/);
  });

  it('waits for a build that ends within the wait', async () => {
    const { svc, ready } = services(60_000);
    setTimeout(ready, 20);
    assert.equal((await svc.forgettingSummary(ref)).node_count, 7);
  });

  it('rehydration candidates for a query come from recall while building; none without a query', async () => {
    const { svc, recalls } = services(0);
    const found = await svc.rehydrationCandidates(ref, 'signing keys', { kinds: ['workflow'] });
    assert.deepEqual(
      found.map((c) => c.id),
      ['n1'],
    );
    assert.deepEqual(recalls, ['signing keys']);
    assert.deepEqual(await svc.rehydrationCandidates(ref, ''), []);
  });
});
