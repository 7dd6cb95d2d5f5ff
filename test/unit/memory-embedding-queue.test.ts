import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmbeddingQueue, type VectorCache } from '../../src/domain/memory/embedding-queue';
import { withBacklog } from '../../src/domain/memory/runtime';
import { vectorKey } from '../../src/domain/memory/vector-key';
import { silentLog } from '../../src/log';
import type { Embedder } from '../../src/retrieval';

const ref = { tenant_id: 't', scope: 's' };
const vec = (text: string) => Float32Array.from([text.length, 1]);

/** An embedder that records each call's texts; `gate` (when set) holds calls until opened. */
function recordingEmbedder() {
  const calls: string[][] = [];
  let gate: Promise<void> | null = null;
  let open: () => void = () => {};
  const embedder: Embedder = {
    id: 'fake:model',
    provider: 'openai',
    dim: 2,
    async embed(texts) {
      calls.push([...texts]);
      if (gate) await gate;
      return texts.map(vec);
    },
  };
  return {
    embedder,
    calls,
    hold: () => (gate = new Promise((r) => (open = r))),
    release: () => {
      gate = null;
      open();
    },
  };
}

function memoryCache(failReads = false) {
  const entries = new Map<string, Float32Array>();
  const cache: VectorCache = {
    async get(keys) {
      if (failReads) throw new Error('store down');
      return new Map(keys.filter((k) => entries.has(k)).map((k) => [k, entries.get(k)!]));
    },
    async put(list) {
      for (const e of list) entries.set(e.key, e.vector);
    },
  };
  return { cache, entries };
}

function target() {
  const got = new Map<string, Float32Array>();
  return { got, setVector: (id: string, _key: number, v: Float32Array) => (got.set(id, v), true) };
}

describe('EmbeddingQueue', () => {
  it('reads cached vectors back without the encoder, computes only the rest, and stores what it computed', async () => {
    const enc = recordingEmbedder();
    const { cache, entries } = memoryCache();
    entries.set(vectorKey('fake:model@w1', ref, 'cached text'), Float32Array.from([9, 9]));
    // The same text under other weights of the model is not served.
    entries.set(vectorKey('fake:model@w0', ref, 'new text'), Float32Array.from([7, 7]));
    const t = target();
    const q = new EmbeddingQueue(enc.embedder, t, silentLog, { store: cache, model: 'fake:model@w1' });
    q.enqueue('a', 'cached text', 1, ref, 'backlog');
    q.enqueue('b', 'new text', 2, ref, 'backlog');
    await q.drained();
    assert.deepEqual(enc.calls, [['new text']]);
    assert.deepEqual([...t.got.get('a')!], [9, 9]);
    assert.deepEqual([...t.got.get('b')!], [...vec('new text')]);
    const s = q.stats();
    assert.deepEqual({ hits: s.cache_hits, computed: s.computed, embedded: s.embedded, pending: s.pending }, { hits: 1, computed: 1, embedded: 2, pending: 0 });
    await new Promise((r) => setImmediate(r)); // the store write is not awaited by the queue
    assert.ok(entries.has(vectorKey('fake:model@w1', ref, 'new text')));
    // The same text in another scope is another key: computed again.
    q.enqueue('c', 'new text', 3, { tenant_id: 't', scope: 'other' }, 'fresh');
    await q.drained();
    assert.deepEqual(enc.calls.at(-1), ['new text']);
    await q.stop();
  });

  it('when the cache cannot be read, computes the vectors', async () => {
    const enc = recordingEmbedder();
    const t = target();
    const q = new EmbeddingQueue(enc.embedder, t, silentLog, { store: memoryCache(true).cache, model: 'fake:model' });
    q.enqueue('a', 'some text', 1, ref);
    await q.drained();
    assert.equal(t.got.size, 1);
    assert.equal(q.stats().cache_errors, 1);
    await q.stop();
  });

  it('embeds writes while running before the start-up backlog, the newest first', async () => {
    const enc = recordingEmbedder();
    const t = target();
    const q = new EmbeddingQueue(enc.embedder, t, silentLog, null, 2);
    enc.hold();
    q.enqueue('first', 'first', 1, ref, 'fresh');
    await new Promise((r) => setTimeout(r, 10)); // the first batch is in flight
    for (const id of ['b1', 'b2', 'b3']) q.enqueue(id, id, 1, ref, 'backlog');
    for (const id of ['f1', 'f2', 'f3']) q.enqueue(id, id, 1, ref, 'fresh');
    assert.equal(q.pending, 7);
    enc.release();
    await q.drained();
    assert.deepEqual(enc.calls, [['first'], ['f3', 'f2'], ['f1', 'b1'], ['b2', 'b3']]);
    await q.stop();
  });

  it('a node re-queued while it waits is embedded once, with its latest text, and keeps its first wait', async () => {
    const enc = recordingEmbedder();
    const t = target();
    const q = new EmbeddingQueue(enc.embedder, t, silentLog);
    enc.hold();
    q.enqueue('x', 'x0', 1, ref);
    await new Promise((r) => setTimeout(r, 10));
    q.enqueue('y', 'old', 1, ref);
    await new Promise((r) => setTimeout(r, 20));
    const lag = q.lagMs();
    q.enqueue('y', 'new', 2, ref);
    assert.ok(q.lagMs() >= lag);
    enc.release();
    await q.drained();
    assert.deepEqual(enc.calls, [['x0'], ['new']]);
    await q.stop();
  });
});

describe('/health embeddings when vectors lag', () => {
  const on = { provider: 'onnx', status: 'on' as const, model: 'm' };
  it('says the encoder is behind past 30 s, and nothing before', () => {
    assert.equal(withBacklog(on, 5, 1_000).detail, undefined);
    const behind = withBacklog(on, 1200, 95_000);
    assert.equal(behind.pending, 1200);
    assert.match(behind.detail!, /behind: 1200 nodes wait for their vector, the oldest for 95 s/);
  });
});
