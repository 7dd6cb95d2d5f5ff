import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { allocatePorts, post, startLore, type LoreProcess } from './lore-process';

/**
 * The recall index's snapshot and change log across kill -9 (docs/memory.md, "Snapshots"): a
 * clean stop leaves a snapshot; the next start loads it and catches up from the store's change
 * feed. Writes made after the snapshot, and rewrites of nodes that are in it, survive a kill -9 of
 * the whole process tree and are recallable by their new words only. A damaged snapshot is not
 * used: the index is rebuilt from the store, and again nothing is missing.
 */
describe('recall index: snapshot + change log across kill -9', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-e2e-snapshot-'));
  let lore: LoreProcess | null = null;
  after(async () => {
    await lore?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const scope = { tenant_id: 'e2e', scope: 'snapshot' };
  const marker = (i: number, gen: string) => `zq${gen}${i.toString(36)}x`;

  async function write(from: number, to: number, gen: string): Promise<Map<number, string>> {
    const acked = new Map<number, string>();
    let next = from;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < to; i = next++) {
          const res = await post(lore!.url, '/v1/memory/write', {
            ...scope,
            client_id: `snap-${i}`,
            input_text: `snapshot record ${i}: the marker is ${marker(i, gen)} and it must survive`,
          });
          if (res.status === 200) acked.set(i, res.body.nodes[0].id);
        }
      }),
    );
    return acked;
  }

  async function recallDetail(): Promise<string> {
    for (;;) {
      const h: { body: any } = await fetch(`${lore!.url}/health`).then(async (r) => ({ body: await r.json() }));
      const recall = h.body.indexes?.recall;
      if (recall?.status === 'ready') return String(recall.detail);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function assertRecallable(ids: Map<number, string>, gen: (i: number) => string, sample: number[]) {
    for (const i of sample) {
      const rec: { status: number; body: any } = await post(lore!.url, '/v1/memory/recall_text', { ...scope, query_text: marker(i, gen(i)) });
      assert.equal(rec.status, 200);
      assert.equal(rec.body.results[0]?.id, ids.get(i), `record ${i} is recalled by ${marker(i, gen(i))}`);
    }
  }

  it('keeps every acknowledged write recallable: snapshot, later writes and rewrites, kill -9, damaged snapshot', { timeout: 900_000 }, async () => {
    const ports = await allocatePorts();
    lore = await startLore({ dataDir, ports });
    const first = await write(0, 400, 'a');
    assert.equal(first.size, 400);
    await lore.stop(); // a clean stop writes the snapshot
    assert.ok(
      readdirSync(join(dataDir, 'index', 'recall', 'lore')).some((f) => f.includes('.state.')),
      'a snapshot was written at stop',
    );

    lore = await startLore({ dataDir, ports });
    assert.match(await recallDetail(), /a snapshot, then 0 seqs caught up/, 'loaded from the snapshot, nothing to catch up after a clean stop');
    // After the snapshot: new records, and new content for records the snapshot holds.
    const later = await write(400, 700, 'b');
    const rewritten = await write(0, 100, 'c');
    assert.equal(later.size + rewritten.size, 400);
    for (const [i, id] of rewritten) assert.equal(id, first.get(i), 'a rewrite supersedes the same node');
    await lore.killHard();

    lore = await startLore({ dataDir, ports });
    const detail = await recallDetail();
    const caught = Number(/then (\d+) seqs caught up/.exec(detail)?.[1]);
    assert.ok(caught >= 400, `the writes after the snapshot came from the store's change feed (${detail})`);
    const ids = new Map([...first, ...later]);
    const gen = (i: number) => (i < 100 ? 'c' : i < 400 ? 'a' : 'b');
    await assertRecallable(ids, gen, [0, 1, 57, 99, 100, 250, 399, 400, 401, 555, 699]);
    // A rewritten record is no longer recalled by its old words.
    for (const i of [0, 57, 99]) {
      const old: { body: any } = await post(lore.url, '/v1/memory/recall_text', { ...scope, query_text: marker(i, 'a') });
      assert.ok(!old.body.results.some((r: { id: string }) => r.id === ids.get(i)), `record ${i} is not recalled by its old marker`);
    }
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await post(lore.url, '/v1/memory/find', { ...scope, limit: 100, include_text: false, ...(cursor ? { cursor } : {}) });
      assert.equal(page.status, 200);
      for (const n of page.body.nodes) seen.add(n.id);
      cursor = page.body.next_cursor;
    } while (cursor);
    assert.equal(seen.size, 700);

    // A damaged snapshot: one flipped byte in its largest column (the postings, mid-file). The index is rebuilt from the store.
    await lore.stop();
    const dir = join(dataDir, 'index', 'recall', 'lore');
    const state = readdirSync(dir).find((f) => f.includes('.state.'))!;
    const bytes = readFileSync(join(dir, state));
    const mid = Math.floor(bytes.length / 2);
    bytes[mid] = (bytes[mid] as number) ^ 0x5a;
    writeFileSync(join(dir, state), bytes);
    lore = await startLore({ dataDir, ports });
    assert.match(await recallDetail(), /built from the store/);
    assert.match(lore.output(), /recall index snapshot not used: .*checksum/);
    await assertRecallable(ids, gen, [0, 99, 100, 399, 400, 699]);
  });
});
