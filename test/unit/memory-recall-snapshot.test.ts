import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RecallIndex, type IndexableNode } from '../../src/domain/memory/recall-index';
import { RECALL_SNAPSHOT_FORMAT, RecallSnapshots } from '../../src/domain/memory/recall-snapshot';
import type { Log } from '../../src/log';
import { silentLog } from '../../src/log';
import { uuidv7 } from '../../src/model/ids';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'lore-recall-snapshot-'));
  dirs.push(d);
  return d;
};

const WORDS = ['retry', 'backoff', 'worker', 'cursor', 'token', 'refresh', 'cache', 'invalidate', 'flaky', 'test', 'payments', 'checkout', 'export', 'csv', 'encoding', 'timeout'];
let seq = 0;
function node(i: number, over: Partial<IndexableNode> = {}): IndexableNode {
  seq += 1;
  const w = (k: number) => WORDS[(i * 7 + k * 3) % WORDS.length]!;
  return {
    id: uuidv7(1_700_000_000_000 + i),
    client_id: i % 3 === 0 ? `client-${i}` : null,
    tenant_id: 't',
    scope: i % 5 === 0 ? 'other' : 's',
    type: 'event',
    kind: i % 4 === 0 ? 'session_event' : null,
    tier: i % 6 === 0 ? 'archive' : i % 6 === 1 ? 'warm' : 'hot',
    title: i % 2 === 0 ? `${w(1)} ${w(2)}` : null,
    text: i % 6 === 0 ? '' : `${w(0)} ${w(1)} ${w(3)} note ${i} about ${w(4)} in src/${w(5)}/${w(6)}.ts`,
    summary: `${w(0)} ${w(3)} summary`,
    tags: i % 7 === 0 ? ['claude-code'] : i % 11 === 0 ? ['a', 'b'] : [],
    importance: 0.5 + (i % 3) / 10,
    seq,
    slots: i % 13 === 0 ? { semantic_forgetting_v1: { lifecycle_state: 'retired' } } : {},
    ...over,
  };
}

const vec = (i: number) => Float32Array.from({ length: 8 }, (_, d) => Math.sin(i * 0.37 + d));

function build(n: number): { index: RecallIndex; nodes: IndexableNode[] } {
  const index = new RecallIndex();
  const keys = new Map<string, number>();
  index.onTextChanged = (id, _text, key) => keys.set(id, key);
  const nodes = Array.from({ length: n }, (_, i) => node(i));
  for (const x of nodes) index.applyLocal(x);
  nodes.forEach((x, i) => {
    const key = keys.get(x.id);
    if (key !== undefined && i % 2 === 0) index.setVector(x.id, key, vec(i));
  });
  index.onTextChanged = null;
  return { index, nodes };
}

const QUERIES: { text: string; filter: Record<string, unknown>; vector?: Float32Array; plain?: boolean }[] = [
  { text: 'retry backoff worker', filter: {} },
  { text: 'flaky test payments', filter: {}, plain: true },
  { text: 'cursor token refresh', filter: { includeArchived: true } },
  { text: 'cache invalidate', filter: { tiers: ['archive'] } },
  { text: 'csv encoding export', filter: { kinds: ['session_event'] } },
  { text: 'timeout note', filter: { tags: ['claude-code'] } },
  { text: 'worker summary', filter: { includeRetired: true } },
  { text: 'checkout payments', filter: {}, vector: vec(4) },
];

function results(index: RecallIndex) {
  return ['s', 'other'].flatMap((scope) =>
    QUERIES.map((q) =>
      index
        .search('t', scope, { text: q.text, vector: q.vector ?? null, limit: 10, filter: q.filter, plain: q.plain })
        .map((h) => [h.docId, Math.round(h.score * 1e9), h.tier, h.retired]),
    ),
  );
}

const warnings = () => {
  const seen: string[] = [];
  const log: Log = { ...silentLog, warn: (m: string) => seen.push(m), child: () => log };
  return { log, seen };
};

function snapshots(dir: string, index: RecallIndex, opts: { store?: string; encoder?: string | null; watermark?: number; log?: Log } = {}) {
  return new RecallSnapshots({
    dir,
    index,
    position: () => ({ watermark: opts.watermark ?? 1000, holes: [998, 999] }),
    store: { id: opts.store ?? 'store-1', database: 'lore' },
    encoder: opts.encoder === undefined ? 'fake-encoder' : opts.encoder,
    log: opts.log ?? silentLog,
  });
}

describe('recall index snapshots', () => {
  it('a loaded snapshot answers every search exactly as the index it was taken of', async () => {
    const dir = tempDir();
    const { index, nodes } = build(600);
    const before = results(index);
    const round = await snapshots(dir, index).write();
    assert.ok(round && round.partitions === 2 && round.bytes > 0);

    const loaded = await snapshots(dir, new RecallIndex()).load(1000);
    assert.ok(loaded, 'the snapshot loads');
    assert.equal(loaded.watermark, 1000);
    assert.deepEqual(loaded.holes, [998, 999]);
    const again = new RecallIndex();
    again.adopt(loaded.parts);
    assert.deepEqual(results(again), before);
    assert.deepEqual(again.stats(), index.stats());
    for (const x of nodes.slice(0, 50)) {
      assert.equal(again.seqOf(x.id, 't', x.scope), x.seq);
      if (x.client_id) assert.equal(again.mayHaveClientId('t', x.scope, x.client_id), true);
    }
    assert.equal(again.mayHaveClientId('t', 's', 'never-written'), false);
    assert.equal(again.hasVector(nodes[2]!.id), index.hasVector(nodes[2]!.id));

    // And it goes on like the original: the same writes give the same answers.
    const more = Array.from({ length: 200 }, (_, i) => node(600 + i));
    const moved = { ...nodes[8]!, tier: 'archive' as const, text: '', seq: ++seq }; // archived after the snapshot
    const restored = { ...nodes[12]!, tier: 'warm' as const, text: 'restored retry backoff text', seq: ++seq };
    for (const idx of [index, again]) {
      for (const x of more) idx.applyLocal(x);
      idx.applyLocal(moved);
      idx.applyLocal(restored);
    }
    assert.deepEqual(results(again), results(index));
    assert.deepEqual(again.stats(), index.stats());
  });

  it('is not used for another store, a store behind its watermark, another format or a damaged file', async () => {
    const dir = tempDir();
    const { index } = build(120);
    await snapshots(dir, index).write();
    const check = async (why: string, opts: Parameters<typeof snapshots>[2], head = 1000) => {
      const w = warnings();
      assert.equal(await snapshots(dir, new RecallIndex(), { ...opts, log: w.log }).load(head), null, why);
      assert.equal(w.seen.length, 1, `${why}: one warning`);
    };
    await check('another store', { store: 'store-2' });
    await check('the store is behind the snapshot (restored from an older copy)', {}, 999);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, format: RECALL_SNAPSHOT_FORMAT + 1 }));
    await check('another format', {});
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    assert.ok(await snapshots(dir, new RecallIndex()).load(1000), 'the manifest restored: usable again');
    const state = readdirSync(dir).find((f) => f.includes('.state.'))!;
    const bytes = readFileSync(join(dir, state));
    const mid = Math.floor(bytes.length / 2); // inside the largest column (the postings)
    bytes[mid] = (bytes[mid] as number) ^ 0xff;
    writeFileSync(join(dir, state), bytes);
    await check('a damaged column (its checksum)', {});
    assert.equal(await snapshots(tempDir(), new RecallIndex()).load(1000), null, 'no snapshot at all: null, no warning needed');
  });

  it('drops the vectors of another encoder and keeps the rest', async () => {
    const dir = tempDir();
    const { index, nodes } = build(60);
    await snapshots(dir, index).write();
    const loaded = await snapshots(dir, new RecallIndex(), { encoder: 'another-encoder' }).load(1000);
    assert.ok(loaded?.vectorsDropped);
    const again = new RecallIndex();
    again.adopt(loaded.parts);
    assert.equal(again.stats().vectors, 0);
    assert.equal(again.stats().docs, index.stats().docs);
    assert.equal(
      again.nodesWithoutVector().reduce((n, p) => n + p.ids.length, 0),
      nodes.filter((x) => x.tier !== 'archive').length,
    );
  });

  it('rewrites only what changed, and a round cut short leaves the previous snapshot whole', async () => {
    const dir = tempDir();
    const { index } = build(300);
    const s = snapshots(dir, index);
    await s.write();
    assert.equal(await s.write(), null, 'nothing changed: no round');
    const files = () => readdirSync(dir).sort();
    const first = files();
    index.applyLocal(node(5000, { scope: 's', tier: 'hot' })); // a live change only
    const round = await s.write();
    assert.equal(round?.partitions, 1, 'only the partition that changed');
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const part = m.partitions.find((p: { scope: string }) => p.scope === 's');
    assert.match(part.files.state, /\.state\.2\.col$/);
    assert.match(part.files.archive, /\.archive\.1\.col$/, 'the archive index had not changed: its file stays');
    assert.equal(files().length, first.length, 'the replaced state file is removed');

    // A writer killed half-way leaves a temporary file and an old manifest: loading ignores the former.
    writeFileSync(join(dir, `.${part.files.state}.12345.dead.tmp`), 'half a file');
    const loaded = await snapshots(dir, new RecallIndex()).load(1000);
    assert.ok(loaded);
    const again = new RecallIndex();
    again.adopt(loaded.parts);
    assert.deepEqual(results(again), results(index));
  });
});
