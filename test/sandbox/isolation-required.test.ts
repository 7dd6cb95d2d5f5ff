/**
 * The sandbox is isolated or refuses (issue 27). Isolation is made unavailable the way an operator
 * would meet it on a machine without bubblewrap: LORE_SANDBOX_BWRAP points at a binary that does
 * not exist, so the worker's real probe fails. With the default LORE_SANDBOX_ISOLATION=auto every
 * way to run a command is refused with the documented error naming both fixes, /health and the
 * worker's log say so once, `lore doctor` fails its check; with the explicit opt-out
 * LORE_SANDBOX_ISOLATION=none the same machine runs commands, unisolated and saying so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDoctor } from '../../src/cli/doctor';
import { loadConfig } from '../../src/config';
import { uuidv7 } from '../../src/model/ids';
import { createRunRecord } from '../../src/domain/sandbox/execute';
import { SANDBOX_WORKFLOW, sandboxStores } from '../../src/domain/sandbox/context';
import type { SessionDoc } from '../../src/model/sandbox/records';
import { LIMIT_DEFAULTS } from '../../src/model/sandbox/limits';
import { createLog, type Log } from '../../src/log';
import { scopeRef } from '../../src/store/scope';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';

const MISSING_BWRAP = '/nonexistent/lore-test/bwrap';

function capturingLog(): { log: Log; lines: string[] } {
  const lines: string[] = [];
  return { log: createLog('warn', 'test', (l) => lines.push(l)), lines };
}

async function sandboxReport(api: TestApi) {
  return pollFor(
    'the worker to report sandbox isolation',
    async () => {
      const h = await api.get('/health');
      return h.body.sandbox.isolation !== 'unknown' ? h.body : null;
    },
    120_000,
    200,
  );
}

function assertRefusal(res: { status: number; body: any }) {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'sandbox_disabled');
  assert.equal(res.body.error.details.setting, 'LORE_SANDBOX_ISOLATION');
  assert.match(res.body.error.message, /bubblewrap not found at \/nonexistent\/lore-test\/bwrap/);
  assert.match(res.body.error.message, /install bubblewrap/);
  assert.match(res.body.error.message, /LORE_SANDBOX_ISOLATION=none/);
}

describe('LORE_SANDBOX_ISOLATION=auto without working bubblewrap: refused', () => {
  let api: TestApi;
  const captured = capturingLog();
  const who = { tenant_id: 'acme', scope: uniqueName('iso') };
  before(async () => {
    api = await startTestApi({ worker: true, env: { LORE_SANDBOX_BWRAP: MISSING_BWRAP }, log: captured.log });
  });
  after(async () => api?.close());

  it('/health says the sandbox is unavailable and why; the worker logged it as one warning line', async () => {
    const health = await sandboxReport(api);
    assert.equal(health.sandbox.enabled, true);
    assert.equal(health.sandbox.available, false);
    assert.equal(health.sandbox.isolation, 'unavailable');
    assert.match(health.sandbox.detail, /bubblewrap not found at .*LORE_SANDBOX_ISOLATION=none/);
    assert.equal(health.status, 'degraded');
    assert.equal(health.ok, true, 'the API itself still serves');
    const warnings = captured.lines.filter((l) => l.includes(' warn ') && l.includes('sandbox isolation is unavailable'));
    assert.equal(warnings.length, 1, captured.lines.join(''));
    assert.equal(warnings[0]!.trim().split('\n').length, 1);
  });

  it('creating a session is refused with the documented error naming the fix', async () => {
    assertRefusal(await api.post('/v1/memory/sandbox/sessions', { ...who, profile: 'default' }));
  });

  it('execute on a session made earlier (e.g. under LORE_SANDBOX_ISOLATION=none) is refused too', async () => {
    const ref = scopeRef(who.tenant_id, who.scope);
    const id = uuidv7();
    const doc: SessionDoc = {
      _id: id,
      session_id: 'made-before',
      profile: 'default',
      isolation: { kind: 'none', version: null, network: 'host', filesystem: 'host', uid_isolation: true, memory_limit: 'rlimit_data', weaker: 'no namespaces' },
      limits: { ...LIMIT_DEFAULTS },
      workdir_name: `s-${id}`,
      actor: 'test',
      created_at: new Date().toISOString(),
    };
    await sandboxStores(api.db, ref).sessions.create(doc);
    assertRefusal(await api.post('/v1/memory/sandbox/execute', { ...who, session_id: 'made-before', action: { kind: 'command', argv: ['echo', 'must not run'] } }));
    // The worker refuses as well: a run that reaches it (queued before, or started by a playbook step) ends failed, unrun.
    const c = { db: api.db, clock: api.clock };
    const { run } = await createRunRecord(
      c,
      ref,
      { session_id: 'made-before', mode: 'async', action: { kind: 'command', argv: ['echo', 'must not run'] }, run_id: undefined, limits: undefined, timeout_ms: undefined },
      'test',
    );
    await api.engine.start({
      workflowType: SANDBOX_WORKFLOW,
      workflowId: run.workflow_id,
      args: [{ tenant_id: who.tenant_id, scope: who.scope, run_id: run.run_id, wall_ms: run.limits.wall_ms }],
      labels: { tenant_id: who.tenant_id, scope: who.scope, kind: 'sandbox' },
    });
    const ended = await pollFor(
      'the worker to end the run',
      async () => {
        const r = await api.post('/v1/memory/sandbox/runs/get', { ...who, run_id: run.run_id });
        return r.body.run.status !== 'queued' && r.body.run.status !== 'running' ? r.body.run : null;
      },
      120_000,
      200,
    );
    assert.equal(ended.status, 'failed');
    assert.match(ended.reason, /refused: sandbox isolation is unavailable/);
    assert.equal(ended.started_at, null, 'the command never started');
  });

  it('lore doctor fails its sandbox check and names both fixes', async () => {
    const out: string[] = [];
    const ready = await runDoctor({ ...process.env, LORE_DATA_DIR: api.config.dataDir, LORE_SANDBOX_BWRAP: MISSING_BWRAP, LORE_SANDBOX_ISOLATION: 'auto' }, (t) => out.push(t));
    assert.equal(ready, false);
    const text = out.join('');
    assert.match(text, /✗ Sandbox isolation\s+bubblewrap not found at \/nonexistent\/lore-test\/bwrap \(LORE_SANDBOX_BWRAP\): the sandbox refuses to run commands/);
    assert.match(text, /fix: install bubblewrap .*LORE_SANDBOX_ISOLATION=none/);
  });
});

describe('LORE_SANDBOX_ISOLATION=none on the same machine: the explicit opt-out runs, unisolated, and says so', () => {
  let api: TestApi;
  const who = { tenant_id: 'acme', scope: uniqueName('optout') };
  before(async () => {
    api = await startTestApi({ worker: true, env: { LORE_SANDBOX_BWRAP: MISSING_BWRAP, LORE_SANDBOX_ISOLATION: 'none' } });
  });
  after(async () => api?.close());

  it('a session says isolation none, and a command runs', async () => {
    const health = await sandboxReport(api);
    assert.equal(health.sandbox.available, true);
    assert.equal(health.sandbox.isolation, 'none');
    const s = await api.post('/v1/memory/sandbox/sessions', { ...who, profile: 'default' });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.equal(s.body.session.isolation.kind, 'none');
    assert.equal(s.body.session.isolation.network, 'host');
    assert.match(s.body.session.isolation.weaker, /host filesystem, network/);
    const res = await api.post('/v1/memory/sandbox/execute', {
      ...who,
      session_id: s.body.session_id,
      mode: 'sync',
      action: { kind: 'command', argv: ['echo', 'ran without isolation'] },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.run.status, 'succeeded');
    assert.match(res.body.run.stdout_tail, /ran without isolation/);
  });

  it('the setting is validated: LORE_SANDBOX_BWRAP must be an absolute path', () => {
    assert.throws(() => loadConfig({ HOME: '/tmp', LORE_SANDBOX_BWRAP: 'bwrap' }), /LORE_SANDBOX_BWRAP must be an absolute path/);
  });
});
