import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decide } from '../../src/domain/lifecycle/decide';
import { ManualClock } from '../../src/model/clock';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { DAY, allNodes, runOperator, writeNodes } from './helpers';

/**
 * Hook noise (docs/forgetting.md, "Hook noise"): recorded events no task reused cool on shorter
 * clocks and are the operator's first candidates: each page looks for them before its nodes in
 * id order. They leave the hot index when archived, and come back whole when rehydrated.
 */
describe('lifecycle: hook noise cools first', () => {
  let api: TestApi;
  const clock = new ManualClock('2026-03-01T00:00:00.000Z');
  before(async () => {
    api = await startTestApi({ worker: true, clock });
  });
  after(async () => api?.close());

  it('decides unused recorded events on the noise clocks, and any use makes them ordinary memory', () => {
    const t0 = Date.parse('2026-03-01T00:00:00.000Z');
    const base = {
      id: 'n',
      client_id: null,
      type: 'event' as const,
      kind: 'session_event' as const,
      tier: 'hot' as const,
      pinned: false,
      importance: 0.5,
      feedback: { positive: 0, negative: 0, quality: 0, last_outcome: null, last_at: null },
      access: { count: 0, last_at: null },
      activation: { count: 0, last_activated_at: null },
      created_at: new Date(t0).toISOString(),
      updated_at: new Date(t0).toISOString(),
      slots: {},
      revision: 1,
      text: 'PostToolUse Read src/a.ts: 20 lines',
    };
    const at = new Date(t0 + 10 * DAY);
    const noise = decide(base, at);
    assert.equal(noise.action, 'archive');
    assert.ok(noise.rationale.some((r) => /hook noise/.test(r)));
    const recalled = decide({ ...base, access: { count: 1, last_at: new Date(t0 + DAY).toISOString() } }, at);
    assert.notEqual(recalled.action, 'archive', 'recalled once: ordinary memory');
    assert.notEqual(decide({ ...base, activation: { count: 1, last_activated_at: base.created_at } }, at).action, 'archive', 'activated: ordinary');
    assert.notEqual(decide({ ...base, kind: null }, at).action, 'archive', 'an ordinary event of the same age stays');
    assert.notEqual(decide(base, new Date(t0 + 5 * DAY)).action, 'archive', 'not before a week');
  });

  it('a run looks at the noise first, archives it, leaves used events and other memory, and rehydration brings it back', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('noise') };
    clock.set('2026-03-01T00:00:00.000Z');
    await writeNodes(api, id, 300, 'note'); // written first: ahead of the events in id order
    const texts = new Map<string, string>(); // node id -> text
    const eventIds: string[] = [];
    const created = await api.post('/v1/memory/sessions/create', { ...id, session_id: 'sess-1' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    for (let i = 0; i < 30; i += 1) {
      const text = `PostToolUse Bash \`npm test -- tests/cart${i}.test.ts\`: exit 0, ${i + 3} passed in zx${i}q seconds`;
      const res = await api.post('/v1/memory/sessions/events/append', {
        ...id,
        session_id: 'sess-1',
        event_id: `e${i}`,
        event_type: 'tool_call',
        input_text: text,
        tags: ['claude-code'],
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      texts.set(res.body.event.node_id, text);
      eventIds.push(res.body.event.node_id);
    }
    const used = [eventIds[3]!, eventIds[17]!];
    const act = await api.post('/v1/memory/nodes/activate', { ...id, ids: used, reason: 'the task used these' });
    assert.equal(act.status, 200, JSON.stringify(act.body));

    clock.advance(10 * DAY);
    // 100 nodes: the id-order walk reaches only the first third of the notes; the events are found by the noise look.
    const run = await runOperator(api, id, { max_nodes: 100 });
    assert.equal(run.complete, false);
    const nodes = await allNodes(api, id);
    const events = nodes.filter((n) => n.kind === 'session_event');
    assert.equal(events.length, 30);
    for (const e of events) {
      if (used.includes(e.id)) assert.notEqual(e.tier, 'archive', `${e.id} was used by a task`);
      else {
        assert.equal(e.tier, 'archive', `${e.id} is unused noise`);
        assert.equal(e.text, '', 'its payload is in the cold store');
        assert.ok(e.slots.semantic_forgetting_v1.rationale.some((r: string) => /hook noise/.test(r)));
      }
    }
    for (const n of nodes.filter((x) => x.client_id?.startsWith('note-'))) assert.notEqual(n.tier, 'archive', `${n.client_id} is not noise`);

    // Out of the hot index: a default recall does not find it; asked for, it is found by its summary.
    const hot = await api.post('/v1/memory/recall_text', { ...id, query_text: 'zx5q' });
    assert.equal(hot.body.results.length, 0);
    const asked = await api.post('/v1/memory/recall_text', { ...id, query_text: 'zx5q', include_archived: true });
    const e5 = eventIds[5]!;
    assert.equal(asked.body.results[0]?.id, e5);

    // Restore still works: the payload comes back byte for byte, and the event is recalled again.
    const back = await api.post('/v1/memory/archive/rehydrate', { ...id, ids: [e5], target_tier: 'warm', reason: 'needed again' });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal(back.body.nodes[0].payload_restored, true);
    const node = await api.post('/v1/memory/resolve', { ...id, id: e5 });
    assert.equal(node.body.node.text, texts.get(e5));
    const again = await api.post('/v1/memory/recall_text', { ...id, query_text: 'zx5q' });
    assert.equal(again.body.results[0]?.id, e5);
  });
});
