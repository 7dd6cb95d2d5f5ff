import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';

/**
 * Learning keeps up with other processes' writes in the background and loads learned scopes at
 * start (docs/learning.md, "What is learned from" and "Learning index"): a read never waits for a
 * backlog or a scope load that could have been done before it, and GET /health says when the
 * start-up work is done.
 */

const execution = (goal: string, runId: string, file: string) => ({
  goal,
  task_kind: 'bugfix',
  run_id: runId,
  steps: [{ tool: 'read', file_path: file }, { tool: 'edit', file_path: file }, { tool: 'test' }],
  target_files: [file],
  outcome: 'success',
});

describe('learning: other processes, and a start with learned scopes', () => {
  let a: TestApi;
  let b: TestApi;
  before(async () => {
    a = await startTestApi();
    b = await startTestApi({ env: { MONGODB_DB: a.config.mongo.database } });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('learns what another process wrote without a read asking, and never reloads its own writes', async () => {
    const scope = uniqueName('follow');
    const id = { tenant_id: 'default', scope };
    // A burst of this process's own writes, eight at a time (the sequence allocator reserves ahead and gives numbers up).
    const goals = Array.from({ length: 48 }, (_, i) => `tune cache eviction batch ${i % 6} in shard worker${i}`);
    for (let at = 0; at < goals.length; at += 8) {
      const res = await Promise.all(goals.slice(at, at + 8).map((g, k) => a.post('/v1/memory/write', { ...id, execution: execution(g, `a-${at + k}`, `src/shard${at + k}.ts`) })));
      for (const r of res) assert.equal(r.status, 200);
    }
    const loadedBefore = a.modules.learning.services.stats().follower!.loaded;
    // Another process learns a workflow from two executions of one task.
    for (const run of ['b-1', 'b-2']) {
      const r = await b.post('/v1/memory/write', { ...id, execution: execution('fix the flaky retry backoff in the payments worker', run, 'src/payments/worker.ts') });
      assert.equal(r.status, 200);
    }
    const workflows = (await b.post('/v1/memory/find', { ...id, kinds: ['workflow'] })).body.nodes as { title: string | null; summary: string }[];
    assert.equal(workflows.filter((w) => /retry backoff/i.test(`${w.title} ${w.summary}`)).length, 1, 'the other process learned the workflow');
    // This process picks it up in the background: no request to it in between.
    await pollFor('the follower to load the other process’s nodes', async () => a.modules.learning.services.stats().follower!.loaded >= loadedBefore + 3, 60_000, 100);
    const loaded = a.modules.learning.services.stats().follower!.loaded - loadedBefore;
    assert.ok(loaded <= 6, `only the other process's nodes were loaded (${loaded}: two executions and the workflow's versions), none of this process's ${goals.length}`);
    const plan = await a.post('/v1/memory/kickoff/recommendation', {
      ...id,
      query_text: 'repair the intermittent retry backoff in the payments worker',
      context: { task_kind: 'bugfix' },
      candidates: ['read', 'edit', 'test'],
    });
    assert.equal(plan.status, 200);
    assert.equal(plan.body.first_action?.file_path, 'src/payments/worker.ts');
  });

  it('a process starting on a store with learned scopes loads them in the background; /health says when it is done', async () => {
    const learned = uniqueName('warm');
    const plain = uniqueName('plain');
    for (const run of ['w-1', 'w-2'])
      await a.post('/v1/memory/write', {
        tenant_id: 'default',
        scope: learned,
        execution: execution('fix the stale cache entries after billing updates', run, 'src/billing/cache.ts'),
      });
    await a.post('/v1/memory/write', { tenant_id: 'default', scope: plain, input_text: 'Notes from the planning meeting.' });
    const c = await startTestApi({ env: { MONGODB_DB: a.config.mongo.database } });
    try {
      await pollFor('GET /health to say the indexes are ready', async () => (await c.get('/health')).body.indexes.status === 'ready', 60_000, 100);
      const h = (await c.get('/health')).body;
      assert.equal(h.indexes.recall.status, 'ready');
      assert.equal(h.indexes.forgetting.status, 'ready');
      assert.equal(h.indexes.learning.status, 'ready');
      assert.match(h.indexes.learning.detail, /^\d+ of \d+ scopes had learned state/);
      // Loaded before any request to it: every scope with learned state of this database (the one above and the first test's).
      assert.equal(c.modules.learning.services.stats().scopes_loaded, 2, 'the learned scopes, not the plain one');
      const plan = await c.post('/v1/memory/kickoff/recommendation', {
        tenant_id: 'default',
        scope: learned,
        query_text: 'stale billing cache after an update',
        context: { task_kind: 'bugfix' },
        candidates: ['read', 'edit', 'test'],
      });
      assert.equal(plan.body.first_action?.file_path, 'src/billing/cache.ts');
      assert.equal(c.modules.learning.services.stats().scopes_loaded, 2, 'served from the warmed state');
    } finally {
      await c.close();
    }
  });
});

describe('learning: a scope whose learned state is still loading holds no request', () => {
  // LORE_BUILD_WAIT=0: no request waits for a scope's load at all, so every first use of a
  // scope below meets it still loading (a large scope after a restart, without the seconds).
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ env: { LORE_BUILD_WAIT: '0' } });
  });
  after(async () => {
    await api?.close();
  });

  it('a write is answered at once and learned from once the scope has loaded, none lost', async () => {
    const id = { tenant_id: 'default', scope: uniqueName('loading-writes') };
    const goal = 'fix the stale session token refresh in the auth gateway';
    const first = await api.post('/v1/memory/write', { ...id, execution: execution(goal, 'r-0', 'src/auth/gateway.ts') });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.learning.workflows_updated, []);
    assert.deepEqual(
      first.body.warnings.map((w: { code: string }) => w.code),
      ['learning_deferred'],
      'the write says its learning goes on in the background',
    );
    assert.match(first.body.warnings[0].message, /still loading/);
    // Five more of the same task at once, while the first may still be queued.
    const more = await Promise.all([1, 2, 3, 4, 5].map((k) => api.post('/v1/memory/write', { ...id, execution: execution(goal, `r-${k}`, 'src/auth/gateway.ts') })));
    for (const r of more) assert.equal(r.status, 200);
    const workflows = async () => (await api.post('/v1/memory/workflows/list', { ...id, limit: 10 })).body.workflows as { counts: { observations: number } }[];
    await pollFor('every write to be learned from', async () => (await workflows())[0]?.counts.observations === 6, 60_000, 100);
    assert.equal((await workflows()).length, 1, 'one workflow: the writes joined one family, none founded a second');
  });

  it('a task start answers from what has loaded and says the rest was not considered', async () => {
    const id = { tenant_id: 'default', scope: uniqueName('loading-reads') };
    const r = await api.post('/v1/memory/kickoff/recommendation', { ...id, query_text: 'stale token refresh in the auth gateway', context: { task_kind: 'bugfix' } });
    assert.equal(r.status, 200);
    assert.notEqual(r.body.uncertainty.level, 'low');
    assert.ok(
      r.body.uncertainty.reasons.some((x: string) => /learned state is still loading/.test(x)),
      `the uncertainty says the scope was loading: ${JSON.stringify(r.body.uncertainty.reasons)}`,
    );
    // Once loaded, the same request is whole again.
    await pollFor(
      'the scope to load',
      async () => {
        const again = await api.post('/v1/memory/kickoff/recommendation', { ...id, query_text: 'stale token refresh', context: { task_kind: 'bugfix' } });
        return !again.body.uncertainty.reasons.some((x: string) => /still loading/.test(x));
      },
      60_000,
      100,
    );
  });
});
