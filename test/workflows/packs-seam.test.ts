/**
 * The proven seam (issue 3): one real workflow end to end, Fastify → engine → Temporal → activity
 * → MongoDB, against a local Temporal dev server that `@temporalio/testing` starts from the
 * installed binary (LORE_BIN_DIR/temporal, never a download), with the worker a separate
 * `lore start --role worker` process that is killed with SIGKILL in the middle of a large pack
 * import. A new worker finishes it: the import record ends completed, every node is there exactly
 * once, and the progress is visible throughout (import record, packs/import/status, and the
 * workflow's `progress` query, i.e. Temporal UI → Queries).
 *
 * No timing assertions: every wait is "until this state, or give up after minutes".
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodePendingActivityState } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { createPacksActivities } from '../../activities/packs';
import { contentHash, idMapper, mapEdge, mapNode, mapRevision, type Pack } from '../../src/domain/packs/format';
import { PackImportStore, emptyCounts } from '../../src/store/packs/imports';
import { scopeRef } from '../../src/store/scope';
import { SA } from '../../src/model/search-attributes';
import type { PackImportProgress } from '../../workflows/packs';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { LoreProcesses } from '../helpers/lore-processes';
import { pollFor, sleep } from '../helpers/wait';

const TEMPORAL_BIN = join(process.env.LORE_BIN_DIR || join(homedir(), '.cache', 'lore', 'bin'), 'temporal');
/** The pack: NODES nodes of ~TEXT_BYTES each (≈14 MB, ≈15 chunks of ~1 MB), a chain of edges, one revision. */
const NODES = 600;
const TEXT_BYTES = 24_000;
/** The worker is killed once this many chunks are done (and before the last one). */
const KILL_AFTER_CHUNKS = 3;

const waitFor = <T>(what: string, fn: () => Promise<T | null | false | undefined>, timeoutMs: number, everyMs = 200) => pollFor(what, fn, timeoutMs, everyMs);

let testEnv: TestWorkflowEnvironment;
let api: TestApi;
let scratch = '';
let procs: LoreProcesses;

before(async () => {
  assert.ok(existsSync(TEMPORAL_BIN), `the Temporal CLI is not installed at ${TEMPORAL_BIN} (npm start or npm test installs it)`);
  // A dev server of this file's own, from the installed binary, with Lore's search attributes.
  testEnv = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: TEMPORAL_BIN }, ip: '127.0.0.1', searchAttributes: Object.values(SA) },
  });
  // Fastify + engine in this process (the shared MongoDB-compatible server, a fresh database, a
  // fresh task queue), pointed at that dev server; no worker here: the worker is a real process.
  api = await startTestApi({ worker: false, env: { TEMPORAL_ADDRESS: testEnv.address, LORE_BODY_LIMIT: '64mb' } });
  scratch = mkdtempSync(join(tmpdir(), 'lore-packs-seam-'));
  // The worker runs no sandbox commands; a uid block of its own all the same (530000–539999 is this
  // file's, docs/sandbox.md), so it never reaps another test's sandbox processes.
  procs = new LoreProcesses({ api, dataDir: scratch, ids: { min: 530000, max: 539999 }, env: { SANDBOX_ENABLED: 'false' } });
});

after(async () => {
  procs?.killAll();
  await api?.close();
  await testEnv?.teardown();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('proven seam: packs/import through Fastify → engine → Temporal → activity → MongoDB', () => {
  it('a large import survives kill -9 of its worker mid-import and finishes on a new worker, every node exactly once', { timeout: 900_000 }, async () => {
    // The source scope, written through the API: NODES nodes with distinct text, a chain of edges
    // (n_i → n_{i-1}) and one superseded node (a revision).
    const src = { tenant_id: 'acme', scope: uniqueName('seam-src') };
    const filler = 'the ledger entry carries a long body of notes '.repeat(Math.ceil(TEXT_BYTES / 47)).slice(0, TEXT_BYTES);
    for (let b = 0; b < NODES; b += 50) {
      const ids = Array.from({ length: Math.min(50, NODES - b) }, (_, k) => b + k);
      const res = await api.post('/v1/memory/write', {
        ...src,
        nodes: ids.map((i) => ({ client_id: `n${i}`, text: `node ${i} marker-${i}-${i * 7919} ${filler}` })),
        edges: ids.filter((i) => i > 0).map((i) => ({ src: `n${i}`, dst: `n${i - 1}`, type: 'related_to' })),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
    }
    assert.equal((await api.post('/v1/memory/write', { ...src, client_id: 'n0', input_text: 'node 0, second version' })).status, 200);
    const exp = await api.post('/v1/memory/packs/export', { ...src });
    assert.equal(exp.status, 200, JSON.stringify(exp.body).slice(0, 500));
    const pack = exp.body.pack as Pack;
    assert.deepEqual(pack.counts, { nodes: NODES, revisions: 1, edges: NODES - 1, cold_payloads: 0, playbook_versions: 0, automations: 0 });

    // Import into another scope of the same database (ids re-derived), started without waiting:
    // the workflow is queued on the task queue until a worker polls it.
    const dst = { tenant_id: 'acme', scope: uniqueName('seam-dst') };
    const started = await api.post('/v1/memory/packs/import', { ...dst, pack, wait_ms: 0 });
    assert.equal(started.status, 200, JSON.stringify(started.body).slice(0, 500));
    const importId: string = started.body.import_id;
    const workflowId: string = started.body.workflow_id;
    const chunksTotal: number = started.body.progress.chunks_total;
    assert.equal(started.body.status, 'queued', 'no worker is up yet');
    assert.equal(started.body.remap_ids, true);
    assert.ok(chunksTotal >= KILL_AFTER_CHUNKS + 5, `a large pack is imported in many chunks (got ${chunksTotal})`);
    const wf = await testEnv.client.workflow.getHandle(workflowId).describe();
    assert.equal(wf.status.name, 'RUNNING', 'the import is a Temporal workflow on the test dev server');
    assert.equal(wf.typedSearchAttributes.get(SA.runKind), 'pack_import');
    assert.equal(wf.typedSearchAttributes.get(SA.scope), dst.scope);

    const status = async () => {
      const r = await api.post('/v1/memory/packs/import/status', { ...dst, import_id: importId });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as { status: string; progress: { chunks_total: number; chunks_done: number }; counts: Record<string, number>; error: string | null };
    };

    // Worker A imports a few chunks; progress shows in the record and in the workflow query.
    const workerA = await procs.start('worker');
    const mid = await waitFor(
      'a few chunks to be imported',
      async () => {
        const s = await status();
        assert.notEqual(s.status, 'failed', JSON.stringify(s));
        return s.progress.chunks_done >= KILL_AFTER_CHUNKS ? s : null;
      },
      300_000,
      50,
    );
    assert.equal(mid.status, 'running');
    const live = await api.engine.query<PackImportProgress>(workflowId, 'progress');
    assert.equal(live.import_id, importId);
    assert.equal(live.chunks_total, chunksTotal);
    assert.ok(live.chunks_done >= 1 && live.chunks_done < chunksTotal, `live progress mid-import: ${live.chunks_done}/${chunksTotal}`);

    // kill -9 of worker A in the middle of the import, while a chunk activity is running on it:
    // freeze the worker (SIGSTOP), look at the workflow's pending activity, and kill it if one is
    // started there; else let it run on a moment and look again.
    const handle = testEnv.client.workflow.getHandle(workflowId);
    const runningChunk = async () =>
      ((await handle.describe()).raw.pendingActivities ?? []).find((a) => a.activityType?.name === 'packImportChunk' && decodePendingActivityState(a.state) === 'STARTED');
    let lost: { attempt: number; details: unknown } | null = null;
    for (let look = 0; look < 200 && !lost; look += 1) {
      procs.signal(workerA, 'SIGSTOP');
      const started = await runningChunk();
      // Still started a moment later: not a completion the worker had already sent.
      if (started && (await sleep(300), (await runningChunk())?.activityId === started.activityId)) {
        const payload = started.heartbeatDetails?.payloads?.[0];
        lost = { attempt: started.attempt ?? 1, details: payload ? defaultPayloadConverter.fromPayload(payload) : null };
        break;
      }
      procs.signal(workerA, 'SIGCONT');
      if ((await status()).progress.chunks_done >= chunksTotal - 1) break;
      await sleep(20);
    }
    assert.ok(lost, 'caught a chunk activity running on worker A');
    assert.equal(await procs.kill9(workerA, { tree: true }), 'SIGKILL');
    console.log(`# worker A killed -9 while running a chunk activity (attempt ${lost.attempt}, last heartbeat ${JSON.stringify(lost.details)})`);
    await sleep(1000); // a write the dead worker had already sent lands (or not) before we look
    const afterKill = await status();
    assert.equal(afterKill.status, 'running', 'the worker died mid-import');
    assert.ok(afterKill.progress.chunks_done >= KILL_AFTER_CHUNKS && afterKill.progress.chunks_done < chunksTotal, `killed at ${afterKill.progress.chunks_done}/${chunksTotal}`);
    const nodesAtKill = await api.db.db.collection('memory_nodes').countDocuments({ tenant_id: dst.tenant_id, scope: dst.scope });
    assert.ok(nodesAtKill > 0 && nodesAtKill < NODES, `part of the pack is in: ${nodesAtKill} of ${NODES} nodes`);
    // With no worker up nothing moves.
    await sleep(2000);
    assert.deepEqual((await status()).progress, afterKill.progress);
    assert.equal((await handle.describe()).status.name, 'RUNNING');

    // Worker B (a new process) takes over: Temporal retries the lost chunk activity once its
    // heartbeat times out, the workflow replays, and the import finishes.
    const t0 = Date.now();
    await procs.start('worker');
    const done = await waitFor(
      'the import to end after the restart',
      async () => {
        const s = await status();
        return s.status === 'completed' || s.status === 'failed' ? s : null;
      },
      600_000,
      500,
    );
    console.log(`# killed at chunk ${afterKill.progress.chunks_done}/${chunksTotal}; completed ${Date.now() - t0} ms after the new worker started`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.error, null);
    assert.deepEqual(done.progress, { chunks_total: chunksTotal, chunks_done: chunksTotal });
    // Each node counted once: created by the first attempt or (a chunk re-applied after the
    // crash) found unchanged by the retry; never updated, never a conflict.
    assert.equal(done.counts.nodes_created! + done.counts.nodes_unchanged!, NODES, JSON.stringify(done.counts));
    assert.equal(done.counts.nodes_updated, 0);
    assert.equal(done.counts.conflicts, 0);
    assert.equal(done.counts.revisions_written, 1);
    assert.equal(done.counts.edges_written, NODES - 1);

    // The workflow completed, its result and its progress query agree with the record.
    const result = (await handle.result()) as PackImportProgress;
    assert.equal(result.chunks_done, chunksTotal);
    const final = await api.engine.query<PackImportProgress>(workflowId, 'progress');
    assert.deepEqual(final, result);
    // The workflow's progress keeps the node counters; the record also counts payloads, playbooks and automations.
    const tracked = Object.fromEntries(Object.keys(result.counts).map((k) => [k, (done.counts as Record<string, number>)[k]]));
    assert.deepEqual(result.counts, tracked, 'the workflow counted every chunk once, as the record did');
    assert.equal((await handle.describe()).status.name, 'COMPLETED');
    // The chunk activity lost with worker A was retried (a later attempt completed it); no chunk
    // activity failed for good, and each chunk was scheduled once.
    const history = await handle.fetchHistory();
    const scheduled = new Set<string>();
    const chunkAttempts: number[] = [];
    for (const e of history.events ?? []) {
      if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'packImportChunk') scheduled.add(String(e.eventId));
      const st = e.activityTaskStartedEventAttributes;
      if (st && scheduled.has(String(st.scheduledEventId))) chunkAttempts.push(st.attempt ?? 1);
      assert.ok(!e.activityTaskFailedEventAttributes, 'no activity failed for good');
    }
    assert.equal(scheduled.size, chunksTotal, 'one chunk activity per chunk');
    assert.equal(chunkAttempts.length, chunksTotal);
    assert.ok(
      chunkAttempts.some((n) => n >= 2),
      `the lost chunk activity was retried (attempts ${JSON.stringify(chunkAttempts)})`,
    );

    // Every node is there exactly once, under its re-derived id, with the source's content.
    const map = idMapper(true, dst.tenant_id, dst.scope);
    const nodes = api.db.db.collection<{ _id: string; client_id: string | null }>('memory_nodes');
    const stored = await nodes.find({ tenant_id: dst.tenant_id, scope: dst.scope }, { projection: { _id: 1, client_id: 1 } }).toArray();
    assert.equal(stored.length, NODES);
    assert.equal(new Set(stored.map((d) => d._id)).size, NODES);
    assert.equal(new Set(stored.map((d) => d.client_id)).size, NODES, 'no client_id twice');
    assert.deepEqual(new Set(stored.map((d) => d._id)), new Set(pack.nodes.map((n) => map(n.id))));
    const back = await api.post('/v1/memory/packs/export', { ...dst });
    assert.equal(back.status, 200);
    assert.deepEqual(back.body.pack.counts, pack.counts);
    assert.equal(
      back.body.pack.content_hash,
      contentHash(
        pack.nodes.map((n) => mapNode(n, map)),
        pack.revisions.map((r) => mapRevision(r, map)),
        pack.edges.map((e) => mapEdge(e, map)),
      ),
      'the imported scope has exactly the pack’s content',
    );
    // The uploaded chunks are gone once the import ends.
    assert.equal(await api.db.db.collection('pack_import_chunks').countDocuments({ import_id: importId }), 0);
    // The imported nodes are live for the API (recall finds a marker from the middle of the pack).
    const rec = await api.post('/v1/memory/recall_text', { ...dst, query_text: `marker-300-${300 * 7919}` });
    assert.equal(rec.status, 200);
    assert.ok(
      rec.body.results.some((r: { text?: string; node?: { text?: string } }) => (r.text ?? r.node?.text ?? '').includes(`marker-300-${300 * 7919}`)),
      JSON.stringify(rec.body).slice(0, 500),
    );
  });
});

describe('packs/import chunk activity', () => {
  it('retried after its chunk was counted (its worker died before reporting), it answers with the counts it had', async () => {
    const ref = scopeRef('acme', uniqueName('seam-retry'));
    const at = api.clock.now();
    const importId = uniqueName('imp');
    const nodes = [
      { id: '0190f0f0-0000-7000-8000-000000000001', text: 'retry alpha' },
      { id: '0190f0f0-0000-7000-8000-000000000002', text: 'retry beta' },
    ].map((n) => ({
      ...n,
      client_id: null,
      type: 'event',
      kind: null,
      tier: 'hot',
      title: null,
      summary: '',
      tags: [],
      slots: {},
      salience: 0.5,
      importance: 0.5,
      confidence: 1,
      feedback: { positive: 0, negative: 0, quality: 0, last_outcome: null, last_at: null },
      access: { count: 0, last_at: null },
      activation: { count: 0, last_activated_at: null },
      pinned: false,
      revision: 1,
      content_hash: n.text,
      actor: 'test',
      commit_id: null,
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
    }));
    await new PackImportStore(api.db).create(
      ref,
      {
        import_id: importId,
        workflow_id: `pack-import-${importId}`,
        status: 'queued',
        remap_ids: false,
        source: { tenant_id: 'acme', scope: 'elsewhere' },
        content_hash: 'x',
        totals: { nodes: 2, revisions: 0, edges: 0 },
        chunks_total: 1,
        chunks_done: 0,
        counts: emptyCounts(),
        conflicts: [],
        error: null,
        actor: 'test',
        created_at: at.toISOString(),
        updated_at: at.toISOString(),
      },
      [{ index: 0, nodes, revisions: [], edges: [] }],
    );
    const acts = createPacksActivities({ config: api.config, db: api.db, clock: api.clock, log: api.deps.log });
    const input = { import_id: importId, tenant_id: ref.tenant_id, scope: ref.scope, index: 0 };
    await acts.packImportStart(input);
    const first = await acts.packImportChunk(input);
    assert.equal(first.nodes_created, 2);
    assert.deepEqual(await acts.packImportChunk(input), first, 'the retry reports what the first attempt counted');
    const rec = await new PackImportStore(api.db).get(ref, importId);
    assert.equal(rec?.chunks_done, 1);
    assert.deepEqual(rec?.counts, first, 'and the record counted the chunk once');
  });
});
