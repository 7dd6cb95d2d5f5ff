import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { allocatePorts, post, startLore, type LoreProcess } from './lore-process';

/**
 * Durability with real processes: 1,000 acknowledged writes at concurrency 8 to a real Lore,
 * kill -9 of Lore and all its children (MongoDB-compatible server, Temporal, worker), restart on
 * the same data dir: every write must be there (find/resolve) and recallable (recall_text).
 */
describe('durability: kill -9 after 1,000 acknowledged writes', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-e2e-durability-'));
  let lore: LoreProcess | null = null;
  after(async () => {
    await lore?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write across a hard kill of the whole process tree', { timeout: 900_000 }, async () => {
    const ports = await allocatePorts();
    lore = await startLore({ dataDir, ports });
    const scope = { tenant_id: 'e2e', scope: 'durability' };
    const N = 1000;
    const acked = new Map<number, string>(); // i -> node id
    let next = 0;
    const worker = async () => {
      for (;;) {
        const i = next;
        next += 1;
        if (i >= N) return;
        const res = await post(lore!.url, '/v1/memory/write', {
          ...scope,
          client_id: `dur-${i}`,
          input_text: `durability record ${i}: the marker is zq${i.toString(36)}x and it must survive a kill`,
        });
        if (res.status === 200) acked.set(i, res.body.nodes[0].id);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assert.equal(acked.size, N, 'every write was acknowledged');

    const killed = await lore.killHard();
    assert.ok(killed.length >= 4, `Lore and its children were killed (${killed.length} processes)`);
    lore = await startLore({ dataDir, ports });

    // find: page through the scope; every acknowledged id is there, nothing else.
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { nodes: { id: string }[]; next_cursor: string | null } } = await post(lore.url, '/v1/memory/find', {
        ...scope,
        limit: 100,
        include_text: false,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(page.status, 200);
      for (const n of page.body.nodes) seen.add(n.id);
      cursor = page.body.next_cursor;
    } while (cursor);
    assert.equal(seen.size, N);
    for (const id of acked.values()) assert.ok(seen.has(id), `node ${id} lost`);

    // resolve and recall a sample by client_id and by content.
    for (const i of [0, 1, 137, 499, 500, 998, 999]) {
      const r: { status: number; body: any } = await post(lore.url, '/v1/memory/resolve', { ...scope, client_id: `dur-${i}` });
      assert.equal(r.status, 200);
      assert.equal(r.body.node.id, acked.get(i));
      const rec: { status: number; body: any } = await post(lore.url, '/v1/memory/recall_text', { ...scope, query_text: `zq${i.toString(36)}x` });
      assert.equal(rec.body.results[0]?.id, acked.get(i), `record ${i} is recallable after the restart`);
    }
  });
});
