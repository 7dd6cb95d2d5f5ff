import { coldKey, type ColdReceipt, type ColdStore } from '../../store/lifecycle/cold-store';
import type { NodeStore, StoredNode } from '../../store/memory/nodes';
import { refOf } from '../../store/scope';
import { decide, type Decision } from './decide';
import { codePoints } from './payload-text';
import { MAX_NODES_PER_NODES_RUN, NOISE, POLICY_VERSION, SCORE_EPSILON } from './policy';
import type { ScopeStates } from '../../store/lifecycle/scope-state';
import type { DecisionView, NodesInput, NodesResult, PageInput, PageResult, RunCounts } from './run-types';
import { addRunCounts, emptyRunCounts } from './run-types';
import { RELOCATION_SLOT, SEMANTIC_SLOT, basisOf, decisionHistory, noRelocation, payloadRelocated, readRelocation, readSemantic } from './slots';
import type { ArchiveRelocationV1, SemanticForgettingV1 } from '../../model/lifecycle/slots';

/**
 * One page of a lifecycle run (the body of the operator's activity): read up to `limit` nodes of
 * the scope in id order after the cursor, decide each, and act — unless dry_run. Safe to repeat:
 * a node already carrying this run's decision is not written again, the cold store keeps the
 * first copy of a payload, and every node write is conditional on the revision that was read,
 * so a node rewritten meanwhile is left for the next run instead of being overwritten; so is one
 * given feedback meanwhile (its counters are part of the condition).
 */

export interface OperatorDeps {
  nodes: NodeStore;
  cold: ColdStore;
  /** The scope registry (its noise cursor); without it a page looks for no hook noise first. */
  states?: ScopeStates;
  /** Called as work progresses (the activity heartbeats). */
  progress?: () => void;
}

/** Node writes in flight per page: the local server group-commits concurrent writes. */
const CONCURRENCY = 32;

type Outcome = DecisionView['outcome'];

/** The decision input every node of a batch shares: the run, its clock, and whether to act. */
type BatchInput = Pick<PageInput, 'tenant_id' | 'scope' | 'run_id' | 'decided_at' | 'dry_run' | 'sample'>;

/** The decision slot the operator writes for a decision (also used by bench/memory/hook-fill.ts). */
export function semanticSlot(d: Decision, input: BatchInput, node: StoredNode): SemanticForgettingV1 {
  return {
    action: d.action,
    current_tier: d.current_tier,
    target_tier: d.target_tier,
    lifecycle_state: d.lifecycle_state,
    retention_score: d.retention_score,
    rationale: d.rationale,
    decided_at: input.decided_at,
    run_id: input.run_id,
    tier_changed_at: d.tier_changed_at,
    policy: POLICY_VERSION,
    basis: basisOf(node, d.target_tier),
    history: decisionHistory(readSemantic(node.slots)),
    ...(d.feedback_from_tier ? { feedback_from_tier: d.feedback_from_tier } : {}),
  };
}

/** The relocation slot a decision asks for, or undefined when the current one stays. */
function relocationSlot(d: Decision, prev: ArchiveRelocationV1 | null): ArchiveRelocationV1 | undefined {
  if (d.relocation === 'candidate') {
    if (prev?.relocation_state === 'candidate') return undefined;
    return { ...noRelocation(), relocation_state: 'candidate', relocation_target: 'local_cold_store', payload_scope: d.payload_scope, rehydrated_at: prev?.rehydrated_at ?? null };
  }
  if (d.relocation === 'none') {
    // No slot means "local" already; only a stale candidate plan needs clearing.
    if (!prev || prev.relocation_state === 'none') return undefined;
    return { ...noRelocation(), rehydrated_at: prev.rehydrated_at ?? null };
  }
  return undefined; // cold_archive: written by the relocation itself
}

function unchanged(d: Decision, prev: SemanticForgettingV1 | null, relocation: ArchiveRelocationV1 | undefined): boolean {
  if (!prev || relocation !== undefined) return false;
  return (
    prev.action === d.action &&
    prev.current_tier === d.current_tier &&
    prev.target_tier === d.target_tier &&
    prev.lifecycle_state === d.lifecycle_state &&
    Math.abs(prev.retention_score - d.retention_score) < SCORE_EPSILON
  );
}

type Move = 'demoted' | 'archived' | null;

/**
 * What one node needs: nothing, a dry-run note, or a write (after its payload is stored, if
 * archived; after its payload is read back from the cold store, if restored).
 */
type Plan = { kind: 'done'; outcome: Outcome; move: Move } | { kind: 'write'; move: Move; set: Record<string, unknown>; relocate: boolean; restore: boolean };

function plan(node: StoredNode, d: Decision, input: BatchInput): Plan {
  const prevSem = readSemantic(node.slots);
  const prevRel = readRelocation(node.slots);
  const same: Plan = { kind: 'done', outcome: 'unchanged', move: null };
  const needsRelocation = d.action === 'archive' && !payloadRelocated(node);
  // Archived and relocated: nothing left to do (its score only drifts; rewriting it would be noise).
  if (!needsRelocation && !d.restore && node.tier === 'archive' && prevSem?.action === 'archive') return same;
  const relocation = relocationSlot(d, prevRel);
  if (!needsRelocation && d.target_tier === node.tier && unchanged(d, prevSem, relocation) && (prevSem?.feedback_from_tier ?? null) === d.feedback_from_tier) return same;
  // A restore moves hotter (feedback lifted its verdict): not counted as a colder move.
  const move: Move = needsRelocation ? 'archived' : d.target_tier !== node.tier && !d.restore ? 'demoted' : null;
  if (input.dry_run) return { kind: 'done', outcome: 'planned', move };
  const set: Record<string, unknown> = { [`slots.${SEMANTIC_SLOT}`]: semanticSlot(d, input, node) };
  if (d.target_tier !== node.tier) set.tier = d.target_tier;
  if (relocation) set[`slots.${RELOCATION_SLOT}`] = relocation;
  return { kind: 'write', move, set, relocate: needsRelocation, restore: d.restore && payloadRelocated(node) };
}

/** The relocation slot of an archived node, from its cold-store receipt. */
export function relocatedSlot(node: StoredNode, d: Decision, input: BatchInput, receipt: ColdReceipt): ArchiveRelocationV1 {
  return {
    relocation_state: 'cold_archive',
    relocation_target: 'local_cold_store',
    payload_scope: d.payload_scope,
    relocated_at: input.decided_at,
    cold_key: receipt.cold_key,
    payload_bytes: receipt.payload_bytes,
    stored_bytes: receipt.stored_bytes,
    payload_chars: codePoints(node.text),
    payload_sha256: receipt.sha256,
    revision: node.revision,
    rehydrated_at: readRelocation(node.slots)?.rehydrated_at ?? null,
  };
}

/**
 * The node's standing decision holds when this run made it already (a retried page), or when it
 * was made at this same clock instant from the same inputs (a second run at one clock). This,
 * with the dwell times, is what makes runs idempotent.
 */
function standing(n: StoredNode, input: BatchInput): DecisionView | null {
  const prev = readSemantic(n.slots);
  if (!prev) return null;
  const holds = prev.run_id === input.run_id || (prev.decided_at === input.decided_at && prev.basis === basisOf(n, n.tier));
  if (!holds) return null;
  return {
    id: n.id,
    client_id: n.client_id,
    kind: n.kind,
    action: prev.action,
    current_tier: prev.current_tier,
    target_tier: prev.target_tier,
    lifecycle_state: prev.lifecycle_state,
    retention_score: prev.retention_score,
    rationale: prev.rationale,
    held: null,
    outcome: 'unchanged',
  };
}

function view(d: Decision, outcome: Outcome): DecisionView {
  return {
    id: d.id,
    client_id: d.client_id,
    kind: d.kind,
    action: d.action,
    current_tier: d.current_tier,
    target_tier: d.target_tier,
    lifecycle_state: d.lifecycle_state,
    retention_score: d.retention_score,
    rationale: d.rationale,
    held: d.held,
    outcome,
  };
}

async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/**
 * Decides every node of a batch and acts on the decisions (the body shared by a page of a scope
 * run and by a run over named nodes): decide each (pure), store the payloads to relocate in one
 * batch, then write each node conditionally on the revision and feedback counters read.
 */
async function decideBatch(deps: OperatorDeps, input: BatchInput, batch: StoredNode[]): Promise<{ counts: RunCounts; decisions: DecisionView[] }> {
  const ref = refOf(input);
  const now = new Date(input.decided_at);
  const at = new Date(input.decided_at);
  const results: DecisionView[] = new Array(batch.length);
  const moves: Move[] = new Array(batch.length).fill(null);
  const writes: { i: number; node: StoredNode; d: Decision; p: Extract<Plan, { kind: 'write' }> }[] = [];
  batch.forEach((n, i) => {
    const kept = standing(n, input);
    if (kept) {
      results[i] = kept;
      return;
    }
    const d = decide(n, now);
    const p = plan(n, d, input);
    if (p.kind === 'done') {
      results[i] = view(d, p.outcome);
      moves[i] = p.move;
    } else {
      results[i] = view(d, 'applied');
      writes.push({ i, node: n, d, p });
    }
  });

  // Payload first, node second: a node is emptied only once its payload is stored and checked.
  const relocations = writes.filter((w) => w.p.relocate);
  const receipts = await deps.cold.putMany(
    ref,
    relocations.map((w) => ({
      node_id: w.node.id,
      revision: w.node.revision,
      client_id: w.node.client_id,
      content_hash: w.node.content_hash,
      text: w.node.text,
      relocated_at: input.decided_at,
      run_id: input.run_id,
    })),
  );
  deps.progress?.();
  await pool(writes, CONCURRENCY, async (w) => {
    const set = { ...w.p.set };
    if (w.p.restore) {
      // The payload comes back byte for byte (the cold store checks its sha256); the cold copy stays.
      const rel = readRelocation(w.node.slots)!;
      const text = await deps.cold.getText(ref, rel.cold_key!);
      if (text === null) {
        results[w.i] = { ...results[w.i]!, outcome: 'conflict', rationale: [...results[w.i]!.rationale, `the payload (${rel.cold_key}) is not in the cold store: left archived`] };
        return;
      }
      set.text = text;
      set[`slots.${RELOCATION_SLOT}`] = { ...noRelocation(), rehydrated_at: input.decided_at };
    }
    if (w.p.relocate) {
      set.tier = 'archive';
      set.text = '';
      set[`slots.${RELOCATION_SLOT}`] = relocatedSlot(w.node, w.d, input, receipts.get(coldKey(w.node.id, w.node.revision))!);
    }
    // Conditional on what the decision was made from: the revision, and the feedback counters (a
    // node given feedback meanwhile is re-decided by the run that feedback starts, not overwritten).
    const f = w.node.feedback;
    const expectFields = f && typeof f.positive === 'number' && typeof f.negative === 'number' ? { 'feedback.positive': f.positive, 'feedback.negative': f.negative } : undefined;
    const updated = await deps.nodes.in(ref).update(w.node.id, { set }, at, { expectRevision: w.node.revision, expectFields });
    if (updated) moves[w.i] = w.p.move;
    else results[w.i] = { ...results[w.i]!, outcome: 'conflict' };
    deps.progress?.();
  });

  const counts: RunCounts = emptyRunCounts();
  results.forEach((r, i) => {
    counts.actions[r.action] += 1;
    counts.outcomes[r.outcome] += 1;
    if (r.held) counts.held[r.held] += 1;
    const m = moves[i];
    if (m) counts.moves[m] += 1;
  });
  // The sample a run returns: what changed (or would change) first, then the rest.
  const changing = results.filter((r) => r.outcome === 'applied' || r.outcome === 'planned' || r.action !== 'retain');
  const changed = new Set(changing);
  const rest = results.filter((r) => !changed.has(r));
  const decisions = [...changing, ...rest].slice(0, Math.max(0, input.sample));
  return { counts, decisions };
}

/** Hook noise examined at the start of every page, before the page's nodes in id order. */
export const NOISE_PER_PAGE = 100;
/** Where hook noise is looked for: events written between this long ago and NOISE.archiveMinAgeMs ago (older ones the id-order walk meets). */
export const NOISE_WINDOW_MS = 14 * 86_400_000;

/** The smallest UUIDv7-shaped id of a millisecond: every id created at or after it sorts after it. */
export function idFloor(ms: number): string {
  const h = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}

/**
 * The page's hook noise (docs/forgetting.md, "Hook noise"): recorded events not archived yet,
 * written between NOISE_WINDOW_MS and NOISE.archiveMinAgeMs before the run's clock, from where the
 * last page stopped; a page that finds fewer than NOISE_PER_PAGE wraps the cursor for the next.
 * The operator's first candidates: a year of hooks is mostly such events, and they are the ones
 * that reach the archive soonest (policy.ts NOISE).
 */
async function noiseCandidates(deps: OperatorDeps, input: PageInput): Promise<StoredNode[]> {
  if (!deps.states) return [];
  const ref = refOf(input);
  const now = Date.parse(input.decided_at);
  const from = idFloor(now - NOISE_WINDOW_MS);
  const to = idFloor(now - NOISE.archiveMinAgeMs);
  const cursor = (await deps.states.get(ref))?.noise_cursor ?? null;
  const after = cursor !== null && cursor > from && cursor < to ? cursor : from;
  const found = await deps.nodes.in(ref).eventsBetween(after, to, NOISE_PER_PAGE);
  if (!input.dry_run) await deps.states.setNoiseCursor(ref, found.length < NOISE_PER_PAGE ? null : found[found.length - 1]!.id);
  return found;
}

export async function processPage(deps: OperatorDeps, input: PageInput): Promise<PageResult> {
  const ref = refOf(input);
  // Access counts still in the log are folded first, so the page's reads find them in one place.
  await deps.nodes.in(ref).foldAccess({ progress: deps.progress });
  // Hook noise first, then the page in id order (a node in both is decided once: the second time it carries this run's decision).
  const noise = await noiseCandidates(deps, input);
  const first = noise.length > 0 ? await decideBatch(deps, input, noise) : null;
  // One node past the page tells whether the scope ends here.
  const read = await deps.nodes.in(ref).find({}, { limit: input.limit + 1, after: input.after ?? undefined });
  const bounded = input.before === null ? read : read.filter((n) => n.id < input.before!);
  const page = bounded.slice(0, input.limit);
  const exhausted = bounded.length <= input.limit;
  const { counts, decisions } = await decideBatch(deps, { ...input, sample: Math.max(0, input.sample - (first?.decisions.length ?? 0)) }, page);
  if (first) addRunCounts(counts, first.counts);
  return {
    examined: page.length + noise.length,
    last_id: page.length > 0 ? page[page.length - 1]!.id : input.after,
    exhausted,
    counts,
    decisions: [...(first?.decisions ?? []), ...decisions],
  };
}

/**
 * A run over named nodes (the on-demand run that feedback starts, docs/forgetting.md): the same
 * decisions and writes as a scope run, for these nodes only. Ids of other scopes and unknown ids
 * are skipped (counted in `missing`). Safe to repeat, like a page.
 */
export async function processNodes(deps: OperatorDeps, input: NodesInput): Promise<NodesResult> {
  const ids = [...new Set(input.node_ids)].slice(0, MAX_NODES_PER_NODES_RUN);
  const found = await deps.nodes.in(refOf(input)).getMany(ids);
  const { counts, decisions } = await decideBatch(deps, { ...input, dry_run: false }, found);
  return { examined: found.length, missing: ids.length - found.length, counts, decisions };
}
