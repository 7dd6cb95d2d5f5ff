import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Binary } from 'mongodb';
import { decide } from '../../src/domain/lifecycle/decide';
import { relocatedSlot, semanticSlot } from '../../src/domain/lifecycle/operator';
import { RELOCATION_SLOT, SEMANTIC_SLOT } from '../../src/domain/lifecycle/slots';
import { edgeId } from '../../src/domain/memory/derived-id';
import { EXECUTION_SLOT, extractExecution, type ExecutionInput } from '../../src/domain/memory/extract';
import { deriveSummary } from '../../src/domain/memory/text';
import { renderExecution } from '../../src/domain/memory/write-request';
import { emptyFeedback } from '../../src/model/memory/node';
import { uuidv7 } from '../../src/model/ids';
import type { Database } from '../../src/store/database';
import { coldStoreCollection } from '../../src/store/lifecycle/cold-store';
import { contentHash, edgesCollection, nodesCollection, NodeStore, type NodeDoc, type StoredNode } from '../../src/store/memory/nodes';
import { hookSession } from './hook-records';

/**
 * Fills one scope with hook-shaped memory (hook-records.ts) straight through the store, fast: a
 * direct fill, not the write path (no listeners, no learning), ~110 nodes per session written as
 * sessions/events/append and the hooks' execution writes would store them (extraction included,
 * `part_of` edges included). Time runs backwards: session s started s × 8.6 min before `now`, so
 * a store of N nodes holds the last N ÷ 3 000 days of a developer's traffic (3 000 nodes a day),
 * and filling further adds older sessions.
 *
 * `aged`: every node older than 6 h is left as the forgetting operator would have left it at
 * `now` (decide(), the operator's own slot builders; an archived node's payload gzip'd into the
 * cold store and its text emptied, so archive/rehydrate restores it). Without it every node is a
 * hot, undecided node. Resumable: where a fill stopped is kept in `bench_fill_state`.
 */

export const NODES_PER_DAY = 3000;
const SESSION_GAP_MS = Math.round((86_400_000 * 110) / NODES_PER_DAY);
const DECIDED_AFTER_MS = 6 * 3_600_000;
const stateCollection = 'bench_fill_state';

export interface FillOptions {
  db: Database;
  tenant: string;
  scope: string;
  /** Fill until the scope holds at least this many nodes (whole sessions). */
  target: number;
  seed: number;
  /** The clock the fill is relative to (ms). */
  now: number;
  aged: boolean;
  log?: (line: string) => void;
}

export interface FillResult {
  nodes: number;
  added: number;
  archived: number;
  seconds: number;
}

interface State {
  _id: string;
  sessions: number;
  nodes: number;
  archived: number;
  now: number;
  aged: boolean;
}

export async function fillHookStore(o: FillOptions): Promise<FillResult> {
  const t0 = Date.now();
  const states = o.db.db.collection<State>(stateCollection);
  const key = `${o.tenant}/${o.scope}`;
  const state: State = (await states.findOne({ _id: key })) ?? { _id: key, sessions: 0, nodes: 0, archived: 0, now: o.now, aged: o.aged };
  if (state.aged !== o.aged) throw new Error(`scope ${key} was filled with aged=${state.aged}; fill it with the same setting`);
  const now = state.now; // the first fill's clock: every later fill continues the same timeline
  const store = new NodeStore(o.db);
  const nodes = o.db.raw<NodeDoc>(nodesCollection);
  const edges = o.db.raw<{ _id: string }>(edgesCollection);
  const cold = o.db.raw<{ _id: string }>(coldStoreCollection);
  const start = state.nodes;
  let batch: (NodeDoc & { tenant_id: string; scope: string })[] = [];
  let edgeBatch: Record<string, unknown>[] = [];
  let coldBatch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const first = await store.nextSeq(batch.length);
    batch.forEach((d, i) => (d.seq = first + i));
    await Promise.all([
      nodes.insertMany(batch as never[], { ordered: false }),
      edgeBatch.length > 0 ? edges.insertMany(edgeBatch as never[], { ordered: false }) : null,
      coldBatch.length > 0 ? cold.insertMany(coldBatch as never[], { ordered: false }) : null,
    ]);
    batch = [];
    edgeBatch = [];
    coldBatch = [];
    await states.replaceOne({ _id: key }, state, { upsert: true });
  };
  while (state.nodes < o.target) {
    const s = state.sessions;
    const session = hookSession(o.seed, s, now - (s + 1) * SESSION_GAP_MS);
    let sessionId = '';
    for (const h of session.nodes) {
      const atMs = session.startMs + h.atMs;
      const at = new Date(atMs).toISOString();
      const id = uuidv7(atMs);
      const execution = h.execution as ExecutionInput | null;
      const text = execution ? renderExecution(execution) : h.text;
      const summary = deriveSummary(text || h.title || '');
      const slots: Record<string, unknown> = { ...h.slots };
      slots[EXECUTION_SLOT] = extractExecution({ title: h.title, text, summary, slots, execution });
      const type = 'event' as const;
      const kind = h.kind === 'execution' ? null : h.kind;
      const used = h.kind === 'execution' && hashByte(id) < 40; // ~15 % of executions were recalled later
      const doc: NodeDoc & { tenant_id: string; scope: string } = {
        _id: id,
        tenant_id: o.tenant,
        scope: o.scope,
        client_key: h.clientId,
        client_id: h.clientId,
        type,
        kind,
        tier: 'hot',
        title: h.title,
        text,
        summary,
        tags: h.tags,
        slots,
        salience: 0.5,
        importance: 0.5,
        confidence: 0.5,
        feedback: emptyFeedback(),
        access: used ? { count: 1 + (hashByte(id.slice(9)) % 5), last_at: new Date(atMs + 3 * 86_400_000).toISOString() } : { count: 0, last_at: null },
        activation: { count: 0, last_activated_at: null },
        pinned: false,
        revision: 1,
        content_hash: contentHash({ type, title: h.title, text, tags: h.tags, slots }),
        seq: 0,
        actor: 'claude-code',
        commit_id: null,
        created_at: at,
        updated_at: at,
      };
      if (h.kind === 'session') sessionId = id;
      if (h.partOf)
        edgeBatch.push({
          _id: edgeId(o.tenant, o.scope, id, sessionId, 'part_of'),
          tenant_id: o.tenant,
          scope: o.scope,
          src: id,
          dst: sessionId,
          type: 'part_of',
          actor: 'claude-code',
          created_at: at,
        });
      if (o.aged && now - atMs > DECIDED_AFTER_MS) {
        if (age(doc, now, coldBatch)) state.archived += 1;
      }
      batch.push(doc);
      state.nodes += 1;
    }
    state.sessions += 1;
    if (batch.length >= 2000) {
      await flush();
      if (Math.floor(state.nodes / 50_000) !== Math.floor((state.nodes - 2000) / 50_000))
        o.log?.(`filled ${state.nodes} nodes (${state.archived} archived), ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
  await flush();
  return { nodes: state.nodes, added: state.nodes - start, archived: state.archived, seconds: (Date.now() - t0) / 1000 };
}

const hashByte = (s: string) => createHash('sha1').update(s).digest()[0]!;

/** Applies the operator's decision at `now` to a new node document; true when it was archived. */
function age(doc: NodeDoc & { tenant_id: string; scope: string }, now: number, coldBatch: Record<string, unknown>[]): boolean {
  const node = { ...doc, id: doc._id } as unknown as StoredNode;
  const at = new Date(now);
  const decidedAt = at.toISOString();
  const runId = 'bench-fill';
  const input = { tenant_id: doc.tenant_id, scope: doc.scope, run_id: runId, decided_at: decidedAt, dry_run: false, sample: 0 };
  const d = decide(node, at);
  doc.slots[SEMANTIC_SLOT] = semanticSlot(d, input, node);
  doc.tier = d.target_tier;
  if (d.action !== 'archive') return false;
  const raw = Buffer.from(doc.text, 'utf8');
  const stored = gzipSync(raw, { level: 6 });
  const sha = createHash('sha256').update(raw).digest('hex');
  const key = `${doc._id}:${doc.revision}`;
  coldBatch.push({
    _id: key,
    tenant_id: doc.tenant_id,
    scope: doc.scope,
    node_id: doc._id,
    revision: doc.revision,
    client_id: doc.client_id,
    codec: 'gzip',
    payload: new Binary(stored),
    payload_bytes: raw.length,
    stored_bytes: stored.length,
    sha256: sha,
    content_hash: doc.content_hash,
    relocated_at: decidedAt,
    run_id: runId,
  });
  doc.slots[RELOCATION_SLOT] = relocatedSlot(node, d, input, { cold_key: key, payload_bytes: raw.length, stored_bytes: stored.length, sha256: sha });
  doc.text = '';
  return true;
}
