import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { fakeEmbedder, type FakeEmbedder } from '../helpers/fake-embeddings';
import { ok, writeExecution } from './helpers';

/**
 * Task start from every similar past task (docs/learning.md, "Task start"): single executions no
 * workflow has learned yet vote, free text that says what was done teaches without a stated
 * outcome, the answer comes with ranked alternatives and the past tasks behind them, a file the
 * task names by its own name counts, an unrelated task still gets null, and the words answer on
 * their own while an encoder is behind.
 */
describe('task start: the past tasks vote', () => {
  let api: TestApi;
  let emb: FakeEmbedder;
  before(async () => {
    emb = await fakeEmbedder();
    api = await startTestApi({ env: { LORE_EMBEDDINGS: 'openai', LORE_EMBEDDINGS_URL: emb.url, LORE_EMBEDDINGS_MODEL: 'fake' } });
  });
  after(async () => {
    await api?.close();
    await emb?.close();
  });
  const candidates = ['read', 'edit', 'bash'];
  const kickoff = (id: object, query_text: string) => ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text, candidates });

  it('single past executions that no workflow learned still decide the first file, with their ids as evidence', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('single') };
    const ids: string[] = [];
    for (const [goal, file] of [
      ['handle undefined headers in reply', 'lib/reply.js'],
      ['reply sends wrong content-length for streams', 'lib/reply.js'],
      ['route constraints ignore the host header', 'lib/route.js'],
    ] as const) {
      const w = await writeExecution(api, id, { goal, steps: [{ tool: 'edit', file_path: file }] });
      assert.deepEqual(w.learning.workflows_updated, [], 'each task once: no workflow');
      ids.push(w.nodes[0].id);
    }
    const body = await kickoff(id, 'reply loses undefined headers when it sends streams');
    assert.equal(body.first_action?.file_path, 'lib/reply.js', JSON.stringify(body.first_action));
    assert.equal(body.first_action.source_kind, 'recall');
    assert.equal(body.first_action.selected_tool, 'edit');
    assert.ok(
      ids.slice(0, 2).every((x) => body.first_action.evidence_ids.includes(x)),
      JSON.stringify(body.first_action.evidence_ids),
    );
    assert.ok(!body.first_action.evidence_ids.includes(ids[2]), 'the route task is not evidence for reply.js');
  });

  it('free text that says what was done teaches with no stated outcome, weaker than a stated success', async () => {
    const text = { tenant_id: 'acme', scope: uniqueName('text') };
    const stated = { tenant_id: 'acme', scope: uniqueName('stated') };
    for (const [subject, files] of [
      ['fix(reply): handle undefined headers', 'lib/reply.js, test/reply.test.js'],
      ['fix(reply): keep headers set before a redirect', 'lib/reply.js, lib/headers.js, test/reply.test.js'],
    ] as const) {
      const w = await ok(api, '/v1/memory/write', { ...text, input_text: `${subject}. Edited ${files}.` });
      assert.equal(w.extracted.outcome, null, 'no outcome stated');
      await ok(api, '/v1/memory/write', { ...stated, input_text: `${subject}. Edited ${files}. Outcome: success.` });
    }
    const q = 'fix(reply): headers lost on redirect';
    const fromText = await kickoff(text, q);
    const fromStated = await kickoff(stated, q);
    assert.equal(fromText.first_action?.file_path, 'lib/reply.js', JSON.stringify(fromText));
    assert.equal(fromStated.first_action?.file_path, 'lib/reply.js');
    assert.equal(fromText.first_action.selected_tool, 'edit', 'the tool the text names');
    // The first-named files weigh most: the test file named last is an alternative, not the start.
    const alts = fromText.kickoff_recommendation.alternatives.map((a: any) => a.file_path);
    assert.ok(alts.includes('test/reply.test.js'), JSON.stringify(alts));
  });

  it('answers with ranked alternative files, each with a confidence and the past tasks behind it', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('alts') };
    const written = new Map<string, string>();
    for (const [goal, file] of [
      ['speed up the schema compiler cache', 'lib/schemas.js'],
      ['schema compiler cache misses on nested refs', 'lib/schemas.js'],
      ['schema validation errors lose the instance path', 'lib/validation.js'],
      ['schema serializer cache grows without bound', 'lib/serializer.js'],
    ] as const) {
      const w = await writeExecution(api, id, { goal, steps: [{ tool: 'edit', file_path: file }] });
      written.set(goal, w.nodes[0].id);
    }
    const body = await kickoff(id, 'schema compiler cache is slow for nested refs');
    assert.equal(body.first_action?.file_path, 'lib/schemas.js');
    const alts = body.kickoff_recommendation.alternatives.filter((a: any) => a.source_kind === 'recall');
    assert.ok(alts.length >= 1, JSON.stringify(body.kickoff_recommendation.alternatives));
    for (const a of alts) {
      assert.notEqual(a.file_path, 'lib/schemas.js', 'the first action is not repeated');
      assert.ok(a.confidence > 0 && a.confidence < body.first_action.confidence, `${a.file_path} ${a.confidence}`);
      assert.ok(a.evidence_ids.length > 0 && a.evidence_ids.every((e: string) => [...written.values()].includes(e)));
    }
  });

  it('a file the task names by its own name is preferred over one that is not named', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('named') };
    // Two unrelated tasks (no workflow between them) that both worked on the same two files.
    for (const goal of ['deprecate the old timing api', 'add a hook for streamed responses']) {
      await writeExecution(api, id, {
        goal,
        steps: [
          { tool: 'edit', file_path: 'lib/request.js' },
          { tool: 'edit', file_path: 'lib/reply.js' },
        ],
      });
    }
    const body = await kickoff(id, 'deprecate the old timing api of Reply');
    assert.equal(body.first_action?.file_path, 'lib/reply.js', JSON.stringify(body.first_action));
  });

  it('an unrelated task still gets null, with high uncertainty', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('unseen') };
    for (const goal of ['handle undefined headers in reply', 'reply sends wrong content-length for streams']) {
      await writeExecution(api, id, { goal, steps: [{ tool: 'edit', file_path: 'lib/reply.js' }] });
    }
    const body = await kickoff(id, 'translate the onboarding video subtitles to Spanish');
    assert.equal(body.first_action, null, JSON.stringify(body.first_action));
    assert.equal(body.uncertainty.level, 'high');
  });

  it('while the encoder is behind, the words answer on their own', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('burst') };
    emb.hold();
    try {
      for (let i = 0; i < 3; i += 1) {
        await writeExecution(api, id, { goal: `rotate the webhook signing keys ${['now', 'again', 'weekly'][i]}`, steps: [{ tool: 'edit', file_path: 'src/webhooks/signer.ts' }] });
      }
      const body = await kickoff(id, 'rotate webhook signing keys');
      assert.equal(body.first_action?.file_path, 'src/webhooks/signer.ts', JSON.stringify(body));
    } finally {
      emb.release();
    }
  });
});
