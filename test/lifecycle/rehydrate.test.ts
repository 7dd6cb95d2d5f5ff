import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/model/clock';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { DAY, runOperator, summary } from './helpers';

/** A payload of about `bytes` UTF-8 bytes mixing ASCII, accents, CJK, emoji and odd whitespace. */
function mixedPayload(bytes: number, seed: string): string {
  const parts = [
    `${seed} — résumé naïve façade`,
    '日本語のテキストと中文字符',
    'emoji 🚀🧪👩🏽‍💻 and ZWJ',
    'tabs\tand  double  spaces ',
    'Ω≈ç√∫˜µ≤≥÷',
    'line with CRLF\r',
    'combining e\u0301 a\u0308',
  ];
  let out = '';
  let i = 0;
  while (Buffer.byteLength(out, 'utf8') < bytes - 200) out += `${parts[i++ % parts.length]} ${i}\n`;
  return out;
}

async function write(api: TestApi, id: Identity, body: Record<string, unknown>) {
  const res = await api.post('/v1/memory/write', { ...id, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.nodes[0];
}

async function resolve(api: TestApi, id: Identity, clientId: string) {
  const res = await api.post('/v1/memory/resolve', { ...id, client_id: clientId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.node;
}

describe('archive rehydrate, node activation and payload rehydration', () => {
  let api: TestApi;
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  before(async () => {
    api = await startTestApi({ worker: true, clock });
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('rh') });

  /** Writes the payloads, ages them and archives them through the operator. */
  async function archived(id: Identity, payloads: Record<string, string>) {
    clock.set('2026-01-01T00:00:00.000Z');
    for (const [cid, text] of Object.entries(payloads))
      await write(api, id, { client_id: cid, input_text: text, title: `payload ${cid}`, slots: { custom_v1: { keep: [1, 'two', { three: 3 }] } } });
    clock.advance(100 * DAY);
    await runOperator(api, id);
    for (const cid of Object.keys(payloads)) {
      const n = await resolve(api, id, cid);
      assert.equal(n.tier, 'archive');
      assert.equal(n.text, '');
    }
  }

  it('restores archived payloads byte for byte (60 KiB, non-ASCII), lists unknown ids, and counts the restore', async () => {
    const id = scope();
    const big = mixedPayload(60 * 1024, 'big');
    assert.ok(Buffer.byteLength(big, 'utf8') > 59 * 1024 && Buffer.byteLength(big, 'utf8') <= 64 * 1024);
    const small = 'Ünïcödé ✓ — 東京 🚀\n\ttrailing spaces   \nlast line without newline';
    await archived(id, { big, small });
    const bigNode = await resolve(api, id, 'big');

    const res = await api.post('/v1/memory/archive/rehydrate', {
      ...id,
      ids: [bigNode.id, '0190d8a0-0000-7000-8000-000000000000', 'not-a-uuid'],
      client_ids: ['small', 'missing-client'],
      target_tier: 'warm',
      reason: 'needed for the migration task',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.target_tier, 'warm');
    assert.deepEqual(
      res.body.nodes.map((n: any) => [n.client_id, n.from_tier, n.to_tier, n.payload_restored]),
      [
        ['big', 'archive', 'warm', true],
        ['small', 'archive', 'warm', true],
      ],
    );
    assert.equal(res.body.nodes[0].id, bigNode.id);
    assert.equal(res.body.nodes[0].payload_bytes, Buffer.byteLength(big, 'utf8'));
    assert.deepEqual(res.body.not_found.sort(), ['0190d8a0-0000-7000-8000-000000000000', 'missing-client', 'not-a-uuid'].sort());

    for (const [cid, text] of [
      ['big', big],
      ['small', small],
    ] as const) {
      const n = await resolve(api, id, cid);
      assert.equal(n.tier, 'warm');
      assert.equal(n.text, text, `${cid}: the payload is back as written`);
      assert.equal(Buffer.compare(Buffer.from(n.text, 'utf8'), Buffer.from(text, 'utf8')), 0, `${cid}: byte for byte`);
      assert.deepEqual(n.slots.custom_v1, { keep: [1, 'two', { three: 3 }] }, 'caller slots survive the round trip');
      assert.equal(n.slots.archive_relocation_v1.relocation_state, 'none');
      assert.equal(n.slots.archive_relocation_v1.rehydrated_at, clock.now().toISOString());
      assert.equal(n.slots.semantic_forgetting_v1.target_tier, 'warm');
      assert.equal(n.slots.semantic_forgetting_v1.lifecycle_state, 'active');
    }
    const s = res.body.forgetting_summary;
    assert.equal(s.rehydration_mode_counts.full, 2, 'archive/rehydrate counts as a full rehydration');
    assert.equal(s.tier_counts.warm, 2);
    assert.equal(s.tier_counts.archive, 0);
    assert.equal(s.archive_relocation_state_counts.cold_archive, 0);

    // A second rehydrate to hot moves the tier only; nothing is ever moved colder.
    const hot = await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: ['big'], target_tier: 'hot' });
    assert.deepEqual(
      hot.body.nodes.map((n: any) => [n.from_tier, n.to_tier, n.payload_restored]),
      [['warm', 'hot', false]],
    );
    const again = await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: ['big'] });
    assert.deepEqual(
      again.body.nodes.map((n: any) => [n.from_tier, n.to_tier]),
      [['hot', 'hot']],
    );

    // Archive again and restore again: the round trip holds every time.
    clock.advance(200 * DAY);
    await runOperator(api, id);
    assert.equal((await resolve(api, id, 'big')).tier, 'archive');
    const second = await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: ['big'], target_tier: 'hot' });
    assert.equal(second.body.nodes[0].payload_restored, true);
    assert.equal((await resolve(api, id, 'big')).text, big);

    // Recall finds the restored text again (this process indexed it before answering). Last:
    // recall records access, which would count as use if the clock moved on after it.
    const recall = await api.post('/v1/memory/recall_text', { ...id, query_text: 'résumé naïve façade' });
    assert.ok(recall.body.results.some((r: any) => r.client_id === 'big' && r.tier === 'hot'));
  });

  it('activation merges feedback and activation and leaves every other field and slot unchanged', async () => {
    const id = scope();
    clock.set('2026-02-01T00:00:00.000Z');
    await write(api, id, {
      client_id: 'act',
      input_text: 'Ran `npm test -- worker` after editing src/jobs/worker.ts; the retry loop passed.',
      title: 'worker retry fix',
      tags: ['retry', 'worker'],
      importance: 0.7,
      slots: { custom_v1: { nested: { a: [1, 2, 3], b: 'x' } }, other_v2: 'plain' },
    });
    await runOperator(api, id); // gives it lifecycle slots too, which activation must not touch
    const beforeNode = await resolve(api, id, 'act');
    assert.ok(beforeNode.slots.semantic_forgetting_v1);
    assert.ok(beforeNode.slots.execution_native_v1);

    clock.advance(DAY);
    const steps: [string, boolean][] = [
      ['positive', true],
      ['positive', true],
      ['negative', true],
      ['neutral', false],
    ];
    let last: any;
    for (const [outcome, activate] of steps) {
      last = await api.post('/v1/memory/nodes/activate', { ...id, client_ids: ['act', 'ghost'], outcome, activate, reason: 'reuse check' });
      assert.equal(last.status, 200, JSON.stringify(last.body));
      assert.deepEqual(last.body.not_found, ['ghost']);
    }
    assert.equal(last.body.outcome, 'neutral');
    assert.equal(last.body.activated, false);
    const r = last.body.nodes[0];
    assert.equal(r.client_id, 'act');
    assert.deepEqual(r.feedback, { positive: 2, negative: 1, quality: 1 / 3, last_outcome: 'neutral', last_at: clock.now().toISOString(), last_reason: 'reuse check' });
    assert.deepEqual(r.activation, { count: 3, last_activated_at: clock.now().toISOString() });
    // Feedback that disagrees with itself is decided before the answer: contested, sent to review.
    assert.equal(last.body.decisions[0].id, beforeNode.id);
    assert.equal(last.body.decisions[0].action, 'review');
    assert.equal(last.body.decisions[0].lifecycle_state, 'contested');

    const afterNode = await resolve(api, id, 'act');
    const { feedback: fa, activation: aa, updated_at: ua, slots: sa, ...restAfter } = afterNode;
    const { feedback: _fb, activation: _ab, updated_at: _ub, slots: sb, ...restBefore } = beforeNode;
    assert.deepEqual(restAfter, restBefore, 'nothing but feedback, activation, the decision and updated_at changed');
    const { semantic_forgetting_v1: semAfter, ...otherAfter } = sa;
    const { semantic_forgetting_v1: _semBefore, ...otherBefore } = sb;
    assert.deepEqual(otherAfter, otherBefore, 'every slot but the forgetting decision is unchanged');
    assert.equal(semAfter.action, 'review');
    assert.deepEqual(fa, r.feedback);
    assert.deepEqual(aa, r.activation);
    assert.notEqual(ua, beforeNode.updated_at);

    // Existing clients name nodes by node_ids and may leave outcome out: only the activation counts.
    clock.advance(DAY);
    const bare = await api.post('/v1/memory/nodes/activate', { ...id, node_ids: [afterNode.id], activate: true });
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    assert.equal(bare.body.outcome, null);
    assert.deepEqual(bare.body.nodes[0].feedback, r.feedback, 'no outcome: feedback untouched');
    assert.deepEqual(bare.body.nodes[0].activation, { count: 4, last_activated_at: clock.now().toISOString() });
  });

  it('rehydrates payload detail by mode without restoring the node, and counts each mode', async () => {
    const id = scope();
    clock.set('2026-03-01T00:00:00.000Z');
    const v1 = 'step one: read src/a.ts\nstep two: edit src/a.ts\nstep three: run the tests';
    const v2 = 'step one: read src/a.ts\nstep two: edit src/b.ts\nstep three: run the tests\nstep four: update the changelog 📝';
    await write(api, id, { client_id: 'wf', input_text: v1, title: 'a workflow' });
    await write(api, id, { client_id: 'wf', input_text: v2, title: 'a workflow' }); // revision 2
    clock.advance(100 * DAY);
    await runOperator(api, id);
    const node = await resolve(api, id, 'wf');
    assert.equal(node.tier, 'archive');
    assert.equal(node.revision, 2);

    const post = (body: Record<string, unknown>) => api.post('/v1/memory/anchor/payload/rehydrate', { ...id, ...body });
    const full = await post({ client_id: 'wf', mode: 'full', reason: 'need it' });
    assert.equal(full.status, 200, JSON.stringify(full.body));
    assert.equal(full.body.payload_source, 'cold_store');
    assert.equal(full.body.payload.text, v2);
    assert.equal(full.body.payload.truncated, false);
    assert.equal(full.body.node_restored, false);
    assert.equal(full.body.node.tier, 'archive');
    assert.equal((await resolve(api, id, 'wf')).tier, 'archive', 'the node stays archived');

    const partial = await post({ node_id: node.id, mode: 'partial', max_chars: 30 });
    assert.equal(partial.body.payload.text, [...v2].slice(0, 30).join(''));
    assert.equal(partial.body.payload.chars, 30);
    assert.equal(partial.body.payload.total_chars, [...v2].length);
    assert.equal(partial.body.payload.truncated, true);

    const emoji = await post({ anchor_id: 'wf', mode: 'partial', max_chars: [...v2].length - 1 });
    assert.equal(emoji.body.payload.text, [...v2].slice(0, -1).join(''), 'code points: the emoji is not split');

    const sum = await post({ anchor_id: node.id, mode: 'summary' });
    assert.equal(sum.body.payload_source, 'summary');
    assert.equal(sum.body.payload.text, node.summary);
    assert.equal(sum.body.payload.total_chars, [...v2].length);

    const diffRev = await post({ client_id: 'wf', mode: 'differential', base_revision: 1 });
    assert.equal(diffRev.status, 200, JSON.stringify(diffRev.body));
    assert.deepEqual(diffRev.body.differential, {
      base: 'revision',
      base_revision: 1,
      revision: 2,
      added_lines: ['step two: edit src/b.ts', 'step four: update the changelog 📝'],
      removed_lines: ['step two: edit src/a.ts'],
      unchanged_line_count: 2,
    });
    assert.equal(diffRev.body.payload.text, 'step two: edit src/b.ts\nstep four: update the changelog 📝');

    // Without base_revision: what the payload adds to the summary. This payload is short, so its
    // summary already says everything.
    const diffSummary = await post({ client_id: 'wf', mode: 'differential' });
    assert.equal(diffSummary.body.differential.base, 'summary');
    assert.deepEqual(diffSummary.body.differential.added_lines, []);
    assert.equal(diffSummary.body.differential.unchanged_line_count, 4);
    // A long payload: its summary covers the first lines; the rest is the differential.
    const lines = Array.from({ length: 20 }, (_, i) => `Line ${i}: the deploy script checks region ${i} before it moves on.`);
    await write(api, id, { client_id: 'long', input_text: lines.join('\n') });
    const diffLong = await post({ client_id: 'long', mode: 'differential' });
    assert.equal(diffLong.body.payload_source, 'node');
    const added = diffLong.body.differential.added_lines;
    assert.ok(added.length > 0 && added.length < 20, JSON.stringify(diffLong.body.differential));
    assert.deepEqual(added, lines.slice(20 - added.length), 'the lines the summary does not already carry');
    assert.equal(diffLong.body.differential.unchanged_line_count, 20 - added.length);

    assertError(await post({ client_id: 'wf', mode: 'differential', base_revision: 9 }), 404, 'not_found');
    assertError(await post({ client_id: 'nope', mode: 'full' }), 404, 'not_found');
    assertError(await post({ node_id: 'not-a-uuid', mode: 'full' }), 404, 'not_found');
    assertError(await post({ anchor_id: 'nope' }), 404, 'not_found');
    assertError(await post({ client_id: 'wf', node_id: node.id }), 400, 'invalid_request');
    assertError(await post({ mode: 'full' }), 400, 'invalid_request');
    assertError(await post({ client_id: 'wf', mode: 'everything' }), 400, 'invalid_request');
    assertError(await post({ client_id: 'wf', mode: 'partial', max_chars: 0 }), 400, 'invalid_request');

    // Aliases answer the same.
    for (const path of ['/v1/memory/anchors/rehydrate_payload', '/v1/memory/tools/rehydrate_payload']) {
      const res = await api.post(path, { ...id, client_id: 'wf', mode: 'full' });
      assert.equal(res.status, 200);
      assert.equal(res.body.payload.text, v2);
    }

    const s = await summary(api, id);
    assert.deepEqual(s.rehydration_mode_counts, { summary: 1, partial: 2, full: 3, differential: 3 });
  });

  it('a node rewritten while archived keeps its new content: relocated again, restored as rewritten', async () => {
    const id = scope();
    await archived(id, { sup: 'first content, archived' });
    const rewrite = await api.post('/v1/memory/write', { ...id, client_id: 'sup', input_text: 'second content — rewritten after archiving ✓' });
    assert.equal(rewrite.status, 200, JSON.stringify(rewrite.body));
    let n = await resolve(api, id, 'sup');
    assert.equal(n.revision, 2);
    assert.equal(n.text, 'second content — rewritten after archiving ✓', 'the rewrite is on the node');
    if (n.tier === 'archive') {
      // Still in the archive tier with a local payload: the next run relocates the new revision.
      clock.advance(DAY);
      const run = await runOperator(api, id);
      assert.equal(run.counts.moves.archived, 1, JSON.stringify(run.counts));
      n = await resolve(api, id, 'sup');
      assert.equal(n.text, '');
      assert.equal(n.slots.archive_relocation_v1.revision, 2);
      const back = await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: ['sup'] });
      assert.equal(back.body.nodes[0].payload_restored, true);
    }
    assert.equal((await resolve(api, id, 'sup')).text, 'second content — rewritten after archiving ✓');
    // The first content is not lost: it stays in the cold store, and differential reads it as the base.
    const diff = await api.post('/v1/memory/anchor/payload/rehydrate', { ...id, client_id: 'sup', mode: 'differential', base_revision: 1 });
    assert.equal(diff.status, 200, JSON.stringify(diff.body));
    assert.deepEqual(diff.body.differential.removed_lines, ['first content, archived']);
    assert.deepEqual(diff.body.differential.added_lines, ['second content — rewritten after archiving ✓']);
  });

  it('rejects bad input on archive/rehydrate, nodes/activate and nodes/pin', async () => {
    const id = scope();
    assertError(await api.post('/v1/memory/archive/rehydrate', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: [] }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: ['a'], target_tier: 'cold' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: 'a' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: ['bad id with spaces'] }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: Array.from({ length: 101 }, (_, i) => `c${i}`) }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/nodes/activate', { ...id, node_ids: 'a' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/nodes/activate', { ...id, ids: ['x'], node_ids: Array.from({ length: 100 }, (_, i) => `n${i}`) }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/nodes/activate', { ...id, client_ids: ['a'], outcome: 'great' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/nodes/activate', { ...id, client_ids: ['a'], outcome: 'positive', activate: 'yes' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/nodes/pin', { ...id, pinned: true }), 400, 'invalid_request');
    // Unknown ids are not errors: they are listed.
    const unknown = await api.post('/v1/memory/nodes/activate', { ...id, client_ids: ['a'], outcome: 'positive', extra: { ignored: true } });
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.body.nodes, []);
    assert.deepEqual(unknown.body.not_found, ['a']);
    const none = await api.post('/v1/memory/archive/rehydrate', { ...id, client_ids: ['a'] });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.not_found, ['a']);
  });

  it('keeps every lifecycle route inside its tenant and scope', async () => {
    const seedArchived = async (owner: Identity) => {
      clock.set('2026-06-01T00:00:00.000Z');
      await write(api, owner, { client_id: 'secret', input_text: 'owner-only payload' });
      clock.advance(100 * DAY);
      await runOperator(api, owner);
    };
    await assertIsolated({
      what: 'archive/rehydrate',
      seed: seedArchived,
      sees: async (v) => (await api.post('/v1/memory/archive/rehydrate', { ...v, client_ids: ['secret'] })).body.nodes.length > 0,
    });
    await assertIsolated({
      what: 'anchor/payload/rehydrate',
      seed: seedArchived,
      sees: async (v) => (await api.post('/v1/memory/anchor/payload/rehydrate', { ...v, client_id: 'secret', mode: 'full' })).status === 200,
    });
    await assertIsolated({
      what: 'nodes/activate',
      seed: async (o) => void (await write(api, o, { client_id: 'secret', input_text: 'x' })),
      sees: async (v) => (await api.post('/v1/memory/nodes/activate', { ...v, client_ids: ['secret'], outcome: 'positive' })).body.nodes.length > 0,
    });
    await assertIsolated({
      what: 'nodes/pin',
      seed: async (o) => void (await write(api, o, { client_id: 'secret', input_text: 'x' })),
      sees: async (v) => (await api.post('/v1/memory/nodes/pin', { ...v, client_ids: ['secret'] })).body.nodes.length > 0,
    });
    await assertIsolated({
      what: 'lifecycle/summary',
      seed: seedArchived,
      sees: async (v) => (await summary(api, v)).node_count > 0,
    });
    // By node id too: another scope cannot reach a node it knows the id of.
    const owner = scope();
    const n = await write(api, owner, { client_id: 'known', input_text: 'y' });
    const stranger = { tenant_id: 'other-tenant', scope: owner.scope };
    const res = await api.post('/v1/memory/nodes/activate', { ...stranger, ids: [n.id], outcome: 'positive' });
    assert.deepEqual(res.body.not_found, [n.id]);
    assertError(await api.post('/v1/memory/anchor/payload/rehydrate', { ...stranger, node_id: n.id, mode: 'full' }), 404, 'not_found');
  });
});
