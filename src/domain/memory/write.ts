import { LoreError } from '../../contract/errors';
import { yieldToIo } from '../turn';
import type { Log } from '../../log';
import type { NodeContent, NodeStore, StoredNode, WriteOutcome } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import { uuidv7, UUID_PATTERN } from '../../model/ids';
import { edgeId } from './derived-id';
import { EXECUTION_SLOT, extractExecution, summariseExtractions, type ExecutionInput, type ExecutionNative, type ExtractedSummary } from './extract';
import type { EdgeType, MemoryEdge, NodeKind, NodeType, Tier } from '../../model/memory/node';
import type { RecallIndex } from './recall-index';
import { deriveSummary } from './text';

/**
 * The one write path for nodes (memory.write, sessions, handoffs, and later learning): derive
 * summaries, extract execution signals, write through the store (client_id idempotency and
 * supersede-with-revision), index before acknowledging, add edges, tell write listeners.
 */

/** Slots the runtime owns; a caller's supersede keeps them (lifecycle state survives rewrites). */
export const RUNTIME_SLOTS = ['semantic_forgetting_v1', 'archive_relocation_v1'];

export interface WriteItem {
  /** A caller-chosen id (a UUID) for the node; a second write of the same id supersedes it. */
  id?: string | null;
  client_id?: string | null;
  type: NodeType;
  kind?: NodeKind | null;
  tier?: Tier;
  title?: string | null;
  text: string;
  /** Derived from the text when absent. */
  summary?: string | null;
  tags?: string[];
  slots?: Record<string, unknown>;
  importance?: number;
  salience?: number;
  confidence?: number;
  pinned?: boolean;
  /** Feedback counters a new node starts with (existing clients write them as slots; write-request.ts). */
  feedback?: { positive: number; negative: number } | null;
  execution?: ExecutionInput | null;
  /** Deterministic extraction into slots.execution_native_v1 (default true). */
  extract?: boolean;
  /** Further slots a supersede carries over from the stored node (e.g. a session's counters). */
  keepSlots?: string[];
}

/** An edge by node id or client_id; a client_id of a node in the same write is resolved first. */
export interface WriteEdge {
  src: string;
  dst: string;
  type: EdgeType;
}

export interface WrittenNode {
  node: StoredNode;
  outcome: WriteOutcome;
  extraction: ExecutionNative | null;
}

export interface Learning {
  workflows_updated: string[];
  patterns_updated: string[];
}

export interface Warning {
  code: string;
  message: string;
}

export interface WriteResult {
  commit_id: string;
  nodes: WrittenNode[];
  edges: MemoryEdge[];
  extracted: ExtractedSummary;
  learning: Learning;
  warnings: Warning[];
}

/** What write listeners (the learning family) see after every acknowledged-to-be write. */
export interface WriteEvent {
  ref: ScopeRef;
  actor: string;
  commit_id: string;
  /** Which surface wrote: 'memory.write', 'sessions', 'handoff', … */
  source: string;
  nodes: WrittenNode[];
  edges: MemoryEdge[];
}

/** What a listener learned from a write, and what the writer should be told (learning_deferred). */
export type ListenerResult = Partial<Learning> & { warnings?: Warning[] };

// biome-ignore lint/suspicious/noConfusingVoidType: a listener that returns nothing is the common case
export type WriteListener = (event: WriteEvent) => Promise<ListenerResult | void> | ListenerResult | void;

export interface WriteDeps {
  store: NodeStore;
  index: RecallIndex;
  /** Indexes a node this process just wrote (and tells catch-up its seq is already applied). */
  applyLocal: (node: StoredNode) => void;
  now: () => Date;
  listeners: readonly WriteListener[];
  log: Log;
}

function prepare(item: WriteItem, actor: string, commitId: string): { content: NodeContent; extraction: ExecutionNative | null } {
  const summary = item.summary && item.summary.trim() !== '' ? item.summary : deriveSummary(item.text || item.title || '');
  const slots: Record<string, unknown> = { ...(item.slots ?? {}) };
  let extraction: ExecutionNative | null = null;
  if (item.extract !== false) {
    extraction = extractExecution({ title: item.title ?? null, text: item.text, summary, slots, execution: item.execution ?? null });
    slots[EXECUTION_SLOT] = extraction;
  }
  return {
    content: {
      id: item.id ?? null,
      client_id: item.client_id ?? null,
      type: item.type,
      kind: item.kind ?? null,
      tier: item.tier,
      title: item.title ?? null,
      text: item.text,
      summary,
      tags: item.tags ?? [],
      slots,
      importance: item.importance,
      salience: item.salience,
      confidence: item.confidence,
      pinned: item.pinned,
      feedback: item.feedback ?? null,
      actor,
      commit_id: commitId,
    },
    extraction,
  };
}

/** Resolves edge endpoints that are not client_ids of this write: node id first, then client_id. */
async function resolveRefs(store: NodeStore, ref: ScopeRef, refs: string[]): Promise<Map<string, string>> {
  const nodes = store.in(ref);
  const out = new Map<string, string>();
  // Only the node's existence and id are needed: no access statistics (two reads fewer per endpoint).
  const read = { access: false };
  await Promise.all(
    refs.map(async (r) => {
      const byId = UUID_PATTERN.test(r) ? await nodes.get(r, read) : null;
      const node = byId ?? (await nodes.getByClientId(r, read));
      if (!node) {
        throw new LoreError('not_found', `edge endpoint '${r}' is neither a node id nor a client_id in scope '${ref.scope}'`, { ref: r });
      }
      out.set(r, node.id);
    }),
  );
  return out;
}

/**
 * Caller-chosen node ids (existing clients send `id` with a node): an id another tenant or scope
 * already holds is refused (ids are unique store-wide), and so is a client_id that already names a
 * node with another id. Nothing is stored when one is refused.
 */
async function checkCallerIds(store: NodeStore, ref: ScopeRef, items: WriteItem[]): Promise<void> {
  const named = items.filter((i): i is WriteItem & { id: string } => !!i.id);
  if (named.length === 0) return;
  const nodes = store.in(ref);
  const taken = await nodes.idsHeldElsewhere(named.map((i) => i.id));
  if (taken.length > 0) {
    throw new LoreError('conflict', `node id '${taken[0]}' is not available; leave id out (Lore assigns one) or choose another`, {
      issues: taken.map((id) => ({ path: 'nodes', message: `id ${id} is taken` })),
    });
  }
  for (const i of named) {
    if (!i.client_id) {
      // A node written earlier with this id and a client_id is superseded through its client_id.
      const existing = await nodes.get(i.id, { access: false });
      if (existing?.client_id) i.client_id = existing.client_id;
      continue;
    }
    const existing = await nodes.getByClientId(i.client_id, { access: false });
    if (existing && existing.id !== i.id) {
      throw new LoreError('conflict', `client_id '${i.client_id}' already names node '${existing.id}', not '${i.id}'`, { client_id: i.client_id, id: existing.id });
    }
  }
}

export async function writeNodes(
  deps: WriteDeps,
  ref: ScopeRef,
  actor: string,
  items: WriteItem[],
  edges: WriteEdge[] = [],
  opts: { source?: string; warnings?: Warning[] } = {},
): Promise<WriteResult> {
  const commitId = uuidv7(deps.now().getTime());
  const warnings: Warning[] = [...(opts.warnings ?? [])];
  const seen = new Set<string>();
  const ids = new Set<string>();
  for (const item of items) {
    if (item.id) {
      if (ids.has(item.id)) {
        throw new LoreError('invalid_request', `id '${item.id}' appears twice in one write`, { issues: [{ path: 'nodes', message: `duplicate id ${item.id}` }] });
      }
      ids.add(item.id);
    }
    if (!item.client_id) continue;
    if (seen.has(item.client_id)) {
      throw new LoreError('invalid_request', `client_id '${item.client_id}' appears twice in one write`, {
        issues: [{ path: 'nodes', message: `duplicate client_id ${item.client_id}` }],
      });
    }
    seen.add(item.client_id);
  }
  await checkCallerIds(deps.store, ref, items);
  for (const e of edges) {
    if (e.src === e.dst) throw new LoreError('invalid_request', `edge from '${e.src}' to itself`, { issues: [{ path: 'edges', message: 'src equals dst' }] });
  }
  // Unknown endpoints fail the write before anything is stored.
  const external = [...new Set(edges.flatMap((e) => [e.src, e.dst]).filter((r) => !seen.has(r) && !ids.has(r)))];
  const resolved = await resolveRefs(deps.store, ref, external);

  await yieldToIo();
  const prepared = items.map((i) => prepare(i, actor, commitId));
  const nodes = deps.store.in(ref);
  const now = deps.now();
  const results: WrittenNode[] = new Array(items.length);
  const fresh: number[] = [];
  await Promise.all(
    prepared.map(async (p, i) => {
      const keep = [...RUNTIME_SLOTS, ...(items[i]!.keepSlots ?? [])];
      if (!p.content.client_id) {
        if (p.content.id) {
          const r = await nodes.writeById(p.content as NodeContent & { id: string }, now, keep);
          results[i] = { node: r.node, outcome: r.outcome, extraction: p.extraction };
        } else fresh.push(i);
        return;
      }
      const likelyNew = !deps.index.mayHaveClientId(ref.tenant_id, ref.scope, p.content.client_id);
      const r = await nodes.writeByClientId(p.content as NodeContent & { client_id: string }, now, keep, { likelyNew });
      results[i] = { node: r.node, outcome: r.outcome, extraction: p.extraction };
    }),
  );
  if (fresh.length > 0) {
    const inserted = await nodes.insert(
      fresh.map((i) => prepared[i]!.content),
      now,
    );
    fresh.forEach((i, k) => (results[i] = { node: inserted[k]!, outcome: 'created', extraction: prepared[i]!.extraction }));
  }
  // Indexed before the write is acknowledged: a recall right after sees it.
  for (const r of results) deps.applyLocal(r.node);

  const idOf = (refStr: string) => results.find((r) => r.node.client_id === refStr || r.node.id === refStr)?.node.id ?? resolved.get(refStr)!;
  const at = now.toISOString();
  const edgeDocs: MemoryEdge[] = edges.map((e) => {
    const src = idOf(e.src);
    const dst = idOf(e.dst);
    return { id: edgeId(ref.tenant_id, ref.scope, src, dst, e.type), src, dst, type: e.type, actor, created_at: at };
  });
  await nodes.putEdges(edgeDocs);

  const learning: Learning = { workflows_updated: [], patterns_updated: [] };
  if (deps.listeners.length > 0) {
    const event: WriteEvent = { ref, actor, commit_id: commitId, source: opts.source ?? 'memory.write', nodes: results, edges: edgeDocs };
    for (const listener of deps.listeners) {
      try {
        const r = await listener(event);
        if (r?.workflows_updated) learning.workflows_updated.push(...r.workflows_updated);
        if (r?.patterns_updated) learning.patterns_updated.push(...r.patterns_updated);
        if (r?.warnings) warnings.push(...r.warnings);
      } catch (err) {
        // The write is durable already; learning catches up later. Say so instead of failing it.
        deps.log.warn(`write listener failed for commit ${commitId}: ${(err as Error).message}`);
        warnings.push({ code: 'learning_failed', message: `learning did not process this write: ${(err as Error).message}` });
      }
    }
  }
  return {
    commit_id: commitId,
    nodes: results,
    edges: edgeDocs,
    extracted: summariseExtractions(results.map((r) => r.extraction).filter((e): e is ExecutionNative => e !== null)),
    learning,
    warnings,
  };
}
