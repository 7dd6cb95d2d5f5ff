import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { fakeEmbedder, type FakeEmbedder } from '../helpers/fake-embeddings';
import { pollFor } from '../helpers/wait';

/**
 * Learning's goal vectors go to memory's vector cache (learning/vectors.ts): a process starting on
 * a store with learned workflows reads them back instead of running the encoder over every goal
 * again (minutes of CPU at a few thousand workflows with the default encoder).
 */

const goal = 'rebuild the search shard after the nightly reindex fails';
const execution = (runId: string) => ({
  goal,
  task_kind: 'ops',
  run_id: runId,
  steps: [
    { tool: 'read', file_path: 'ops/reindex.sh' },
    { tool: 'bash', command: 'ops/reindex.sh --shard 3' },
  ],
  target_files: ['ops/reindex.sh'],
  outcome: 'success',
});

type GoalStats = { computed: number; cache_hits: number; pending: number };
const goalStats = (api: TestApi) => api.modules.learning.services.stats().goal_vectors as GoalStats;

describe('learning: goal vectors persist in the vector cache', () => {
  let emb: FakeEmbedder;
  let a: TestApi | undefined;
  let b: TestApi | undefined;
  const env = () => ({ LORE_EMBEDDINGS: 'openai', LORE_EMBEDDINGS_URL: emb.url, LORE_EMBEDDINGS_MODEL: 'fake' });
  before(async () => {
    emb = await fakeEmbedder();
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await emb?.close();
  });

  it('a process starting on learned workflows reads their goal vectors back', async () => {
    a = await startTestApi({ env: env() });
    const id = { tenant_id: 'default', scope: uniqueName('goal-vectors') };
    for (const run of ['r-1', 'r-2']) assert.equal((await a.post('/v1/memory/write', { ...id, execution: execution(run) })).status, 200);
    await a.modules.learning.services.idle();
    assert.ok(goalStats(a).computed >= 1, `the first process embedded the goal (${JSON.stringify(goalStats(a))})`);
    const askedBefore = emb.inputs().length;

    b = await startTestApi({ env: { ...env(), MONGODB_DB: a.config.mongo.database } });
    await pollFor('the new process to load learned scopes', async () => (await b!.get('/health')).body.indexes.learning.status === 'ready', 60_000, 100);
    await pollFor('its goal vectors', async () => goalStats(b!).pending === 0 && goalStats(b!).cache_hits >= 1, 60_000, 100);
    await b.modules.learning.services.idle();
    assert.equal(goalStats(b).computed, 0, `nothing recomputed: ${JSON.stringify(goalStats(b))}`);
    const goalRuns = emb
      .inputs()
      .slice(askedBefore)
      .flat()
      .filter((t) => t === goal).length;
    assert.equal(goalRuns, 0, 'the encoder was not asked for the goal again');

    // Task start in the new process still finds the workflow.
    const plan = await b.post('/v1/memory/kickoff/recommendation', { ...id, query_text: goal, context: { task_kind: 'ops' } });
    assert.equal(plan.status, 200);
    assert.equal(plan.body.first_action?.file_path, 'ops/reindex.sh');
  });
});
