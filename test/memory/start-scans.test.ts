import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allCollections } from '../../src/store/collections';
import { Database } from '../../src/store/database';
import { scanNodeStates } from '../../src/store/lifecycle/node-states';
import { scanForIndex } from '../../src/store/memory/change-feed';
import { NodeStore } from '../../src/store/memory/nodes';
import { prefetchedPages } from '../../src/store/pages';
import { scopeRef } from '../../src/store/scope';
import { testServices, uniqueName } from '../helpers/app';

/**
 * The start-up scans (the recall index's and the forgetting view's): every node once, in the
 * order the index needs, page after page with the next page already asked for.
 */
describe('prefetchedPages', () => {
  const items = Array.from({ length: 7 }, (_, i) => i + 1);
  const pageAfter = (calls: Array<number | null>, size: number) => async (last: number | null) => {
    calls.push(last);
    await new Promise((r) => setTimeout(r, 5));
    return items.filter((i) => i > (last ?? 0)).slice(0, size);
  };

  it('yields every page in order, asking for the next one before the caller has finished the current', async () => {
    const calls: Array<number | null> = [];
    const seen: number[][] = [];
    const callsWhenYielded: number[] = [];
    for await (const page of prefetchedPages(pageAfter(calls, 3), 3)) {
      callsWhenYielded.push(calls.length);
      seen.push(page);
    }
    assert.deepEqual(seen, [[1, 2, 3], [4, 5, 6], [7]]);
    assert.deepEqual(calls, [null, 3, 6]);
    // While page 1 is handed out, page 2 is already requested; the short last page asks for nothing more.
    assert.deepEqual(callsWhenYielded, [2, 3, 3]);
  });

  it('a full last page costs one more (empty) request; an empty scan yields one empty page', async () => {
    const calls: Array<number | null> = [];
    const seen: number[][] = [];
    for await (const page of prefetchedPages(pageAfter(calls, 7), 7)) seen.push(page);
    assert.deepEqual(seen, [items, []]);
    assert.deepEqual(calls, [null, 7]);
    const none: number[][] = [];
    for await (const page of prefetchedPages(async () => [] as number[], 3)) none.push(page);
    assert.deepEqual(none, [[]]);
  });

  it('a failing page fails the scan; a caller that stops early leaves no unhandled rejection behind', async () => {
    await assert.rejects(async () => {
      for await (const _ of prefetchedPages<number>(async (last) => (last === null ? [1, 2] : Promise.reject(new Error('page 2 lost'))), 2)) {
        /* consume */
      }
    }, /page 2 lost/);

    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      for await (const page of prefetchedPages<number>(async (last) => (last === null ? [1, 2] : Promise.reject(new Error('never awaited'))), 2)) {
        assert.deepEqual(page, [1, 2]);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    assert.deepEqual(unhandled, []);
  });
});

describe('the start-up scans over a real store', () => {
  let db: Database;
  let off: Database;
  before(async () => {
    const { mongoUri } = await testServices();
    const name = uniqueName('scan').replace(/-/g, '_');
    db = await Database.connect(mongoUri, name, { wireReads: 'auto' });
    off = await Database.connect(mongoUri, name, { wireReads: 'off' });
    await db.ensureIndexes(allCollections);
  });
  after(async () => {
    await db?.db.dropDatabase().catch(() => {});
    await db?.close();
    await off?.close();
  });

  it('scanForIndex and scanNodeStates read every node once across pages and scopes, the same with the wire reads on and off', async () => {
    const refs = [scopeRef('t1', 'scan-a'), scopeRef('t1', 'scan-b'), scopeRef('t2', 'scan-a')];
    const now = new Date('2026-01-01T00:00:00.000Z');
    const made = new Map<string, string[]>();
    // Interleaved writes, so that a scope's nodes are not contiguous in seq order.
    for (let round = 0; round < 4; round++) {
      for (const ref of refs) {
        const nodes = await new NodeStore(db).in(ref).insert(
          [0, 1].map((i) => ({ type: 'event' as const, text: `${ref.scope} round ${round} node ${i}`, summary: `r${round}`, actor: 'test' })),
          now,
        );
        made.set(`${ref.tenant_id}/${ref.scope}`, [...(made.get(`${ref.tenant_id}/${ref.scope}`) ?? []), ...nodes.map((n) => n.id)]);
      }
    }
    const fallbacksBefore = db.wireFallbacks;
    for (const [label, database] of [
      ['wire', db],
      ['driver', off],
    ] as const) {
      const scanned: Array<{ id: string; tenant_id: string; scope: string; text: string }> = [];
      for await (const n of scanForIndex(database, 3)) {
        // Projected: of the slots, only the lifecycle decision's state (recall leaves retired nodes out).
        const slots = (n as Record<string, unknown>).slots as Record<string, unknown> | undefined;
        assert.deepEqual(
          Object.keys(slots ?? {}).filter((k) => k !== 'semantic_forgetting_v1'),
          [],
          'the index scan is projected',
        );
        assert.equal((n as Record<string, unknown>).feedback, undefined, 'the index scan is projected');
        scanned.push(n);
      }
      const byScope = new Map<string, string[]>();
      for (const n of scanned) byScope.set(`${n.tenant_id}/${n.scope}`, [...(byScope.get(`${n.tenant_id}/${n.scope}`) ?? []), n.id]);
      // Each scope in creation order (ids are UUIDv7), every node exactly once.
      assert.deepEqual(byScope, made, label);
      assert.equal(scanned.find((n) => n.id === made.get('t2/scan-a')![5])?.text, 'scan-a round 2 node 1', label);

      const states: string[] = [];
      for await (const s of scanNodeStates(database, 5)) {
        assert.equal(s.tier, 'hot', label);
        states.push(s.id);
      }
      assert.deepEqual(states.sort(), [...made.values()].flat().sort(), label);
    }
    assert.equal(db.wireFallbacks, fallbacksBefore, 'the wire-read scans never fell back to the driver');
    assert.ok(db.wireReads!.requests > 0);
  });
});
