import { join } from 'node:path';
import type { Log } from '../../log';
import type { NodeStore } from '../../store/memory/nodes';
import { pruneDir, readColumnFile, readJsonFile, ensureDir, writeColumnFileNow, writeJsonFile } from '../../store/column-file';
import { storeIdentity } from '../../store/memory/store-identity';
import { child, col, nest, type Frozen } from '../../retrieval/frozen';
import { nodeStatesAt, nodeStatesSince, scanNodeStates, type NodeState } from '../../store/lifecycle/node-states';
import type { Database } from '../../store/database';
import { refOf, scopeKey, type ScopeRef } from '../../store/scope';
import { CatchUp } from '../memory/catch-up';
import { growInt32, growUint16, growUint32, IdTable } from '../../retrieval/arena';
import { TIERS, type NodeKind, type Tier } from '../../model/memory/node';
import {
  ACTIONS,
  LIFECYCLE_STATES,
  PAYLOAD_SCOPES,
  RELOCATION_STATES,
  RELOCATION_TARGETS,
  classify,
  type Action,
  type LifecycleState,
  type NodeClass,
  type PayloadScope,
  type RelocationState,
  type RelocationTarget,
} from './slots';
import type { IndexStatus } from '../../model/system/vocabulary';

/**
 * The forgetting view (docs/forgetting.md, "Counts"): per tenant+scope tallies of tiers,
 * decisions, lifecycle states and relocations, kept in this process and updated node by node.
 * Loaded at start from its snapshot in the data dir (or, without one, built from a projected scan
 * of every node), then caught up from the memory change feed (every node mutation takes a new
 * seq), so a forgetting summary costs one indexed catch-up query and no scan, and its counts are
 * exactly the store's, whichever process changed a node. The snapshot is written like the recall
 * index's (docs/memory.md, "Snapshots"): when enough changed, and at a clean stop.
 */

const zero = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export class ScopeTally {
  nodes = 0;
  readonly tiers = zero<Tier>(TIERS);
  readonly actions = zero<Action>(ACTIONS);
  readonly states = zero<LifecycleState>(LIFECYCLE_STATES);
  readonly relocationStates = zero<RelocationState>(RELOCATION_STATES);
  readonly relocationTargets = zero<RelocationTarget>(RELOCATION_TARGETS);
  readonly payloadScopes = zero<PayloadScope>(PAYLOAD_SCOPES);
  /** Archived anchored workflow memory: the candidates for differential rehydration. */
  differentialCandidates = 0;
  /** Nodes no operator run has decided yet (counted provisionally, see classify). */
  undecided = 0;
  /** Nodes (by number in the view's id table) whose latest decision is review (for the evolution review pack). */
  readonly review = new Set<number>();
  /**
   * The scope's nodes by number in the order they were archived (rehydration candidates without a
   * query are the most recently archived). Entries are not removed when a node leaves the archive:
   * readers skip a number that is no longer archived or appears again later; compacted when it
   * holds twice the archived nodes.
   */
  archiveOrder: Int32Array = new Int32Array(16);
  archiveOrderLength = 0;
  /** Changed since the history recorder last took it (domain/lifecycle/history.ts). */
  changed = false;

  constructor(readonly ref: ScopeRef) {}

  add(num: number, c: NodeClass, sign: 1 | -1): void {
    this.changed = true;
    this.nodes += sign;
    this.tiers[c.tier] += sign;
    if (c.action) this.actions[c.action] += sign;
    if (!c.decided) this.undecided += sign;
    this.states[c.state] += sign;
    this.relocationStates[c.relocationState] += sign;
    this.relocationTargets[c.relocationTarget] += sign;
    this.payloadScopes[c.payloadScope] += sign;
    const differential = c.tier === 'archive' && c.relocationState === 'cold_archive' && c.payloadScope === 'anchor_payload';
    if (differential) this.differentialCandidates += sign;
    // Review candidates are listed with their decision's rationale: decided nodes only.
    if (c.action === 'review' && c.decided) sign > 0 ? this.review.add(num) : this.review.delete(num);
    if (c.tier === 'archive' && sign > 0) {
      if (this.archiveOrderLength === this.archiveOrder.length) this.archiveOrder = growInt32(this.archiveOrder, this.archiveOrderLength + 1);
      this.archiveOrder[this.archiveOrderLength] = num;
      this.archiveOrderLength += 1;
    }
  }
}

/** Nodes share a few hundred classes at most: each node holds its class's number. */
const classes: NodeClass[] = [];
const classNumbers = new Map<string, number>();
function classNumber(c: NodeClass): number {
  const key = `${c.tier}|${c.action}|${c.state}|${c.relocationState}|${c.relocationTarget}|${c.payloadScope}|${c.decided ? 1 : 0}`;
  let n = classNumbers.get(key);
  if (n === undefined) {
    n = classes.length;
    classes.push(Object.freeze(c));
    classNumbers.set(key, n);
  }
  return n;
}

const BACKGROUND_SYNC_MS = 15_000;
/** A snapshot is written once this many node changes are not in one, or SNAPSHOT_MAX_AGE_MS after the first, and at stop. */
const SNAPSHOT_CHANGES = 20_000;
const SNAPSHOT_MAX_AGE_MS = 5 * 60_000;
/** Bump when the snapshot's columns change meaning. */
const VIEW_SNAPSHOT_FORMAT = 1;

interface ViewManifest {
  format: number;
  store: string;
  database: string;
  generation: number;
  file: string;
  watermark: number;
  holes: number[];
  nodes: number;
}

export class ForgettingView {
  /*
   * Per node, columns indexed by the node's number in `ids` (no object, no id string per node: at
   * 180k nodes ~6 MB instead of ~32 MB): its scope's number + 1 (0: not seen), kind and class.
   */
  private ids = new IdTable();
  private nodeScope: Uint32Array = new Uint32Array(1024);
  private nodeKind: Uint16Array = new Uint16Array(1024);
  private nodeClass: Uint16Array = new Uint16Array(1024);
  private kinds: (NodeKind | null)[] = [null];
  private kindNumbers = new Map<NodeKind | null, number>([[null, 0]]);
  private tallies: ScopeTally[] = [];
  private scopes = new Map<string, number>();
  private readonly catchUp: CatchUp<NodeState>;
  private ready: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Where the start-up build is (GET /health `indexes.forgetting`). */
  private buildState: { status: IndexStatus; detail: string } = { status: 'building', detail: 'not started' };
  private buildStartedAt: number | null = null;
  /** Node changes applied since the last snapshot, and when the first of them came (wall time). */
  private unsaved = 0;
  private unsavedSince = 0;
  private generation = 0;
  private saving: Promise<void> | null = null;
  private storeId: string | null = null;

  constructor(
    private readonly deps: {
      store: NodeStore;
      db: Database;
      log: Log;
      /** Called once per scope this process sees for the first time (the scope registry). */
      onNewScope: (ref: ScopeRef) => void;
      /** Where snapshots are kept (null: none; every start scans). */
      snapshotDir?: string | null;
    },
  ) {
    this.catchUp = new CatchUp<NodeState>({ after: (seq, limit) => nodeStatesSince(deps.db, seq, limit), at: (seqs) => nodeStatesAt(deps.db, seqs) }, (items) => {
      for (const n of items) this.apply(n);
    });
  }

  /** Starts the build in the background; sync() waits for it. */
  start(): void {
    if (!this.ready) {
      this.buildState = { status: 'building', detail: 'reading node states' };
      // Wall time, not the injected clock: how long requests have really waited for the build.
      this.buildStartedAt = Date.now();
      const ready = this.build().catch((err) => {
        this.ready = null; // the next sync() tries again
        this.buildState = { status: 'failed', detail: (err as Error).message };
        throw err;
      });
      ready.catch((err) => this.deps.log.warn(`forgetting view build failed (retried on the next summary): ${(err as Error).message}`));
      this.ready = ready;
    }
    this.timer ??= setInterval(() => {
      // Keeps the registry and tallies fresh between summaries (new scopes reach the sweep), and the snapshot recent.
      this.sync()
        .then(() => this.maybeSave())
        .catch((err) => this.deps.log.warn(`forgetting view catch-up failed: ${(err as Error).message}`));
    }, BACKGROUND_SYNC_MS);
    this.timer.unref();
  }

  /** Stops the background catch-up, waits for a build in progress and writes a last snapshot. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const built = await this.ready?.then(
      () => true,
      () => false,
    );
    if (built && this.unsaved > 0) await this.save('at stop');
    await this.saving;
  }

  private async build(): Promise<void> {
    // Wall time, not the injected clock: how long loading really took (for the log).
    const t0 = Date.now();
    const head = await this.deps.store.currentSeq();
    if (await this.load(head)) {
      await this.catchUp.sync();
      this.deps.log.info(`forgetting view: ${this.ids.size} nodes in ${this.scopes.size} scopes from its snapshot and the changes since, in ${Date.now() - t0} ms`);
    } else {
      await this.catchUp.initFromScan(head, scanNodeStates(this.deps.db), (n) => this.apply(n));
      this.deps.log.info(`forgetting view: ${this.ids.size} nodes in ${this.scopes.size} scopes loaded in ${Date.now() - t0} ms`);
      this.unsaved = Math.max(1, this.unsaved);
      if (this.deps.snapshotDir) void this.save('after a scan');
    }
    // The history records changes from here on: counts as found at start were recorded by the
    // process that saw them change (a restart must not rewrite every scope's sample at once).
    for (const t of this.tallies) t.changed = false;
    this.buildState = { status: 'ready', detail: `${this.ids.size} nodes in ${this.scopes.size} scopes` };
  }

  /**
   * How long a request may still wait for the start-up build: what is left of `waitMs` since it
   * began. The requests of the build's first `waitMs` wait for it; later ones are answered at once
   * instead of each waiting `waitMs` again.
   */
  buildWaitLeft(waitMs: number): number {
    return this.buildStartedAt === null ? waitMs : Math.max(0, this.buildStartedAt + waitMs - Date.now());
  }

  /** The start-up build's state, for GET /health. */
  readiness(): { status: IndexStatus; detail: string } {
    return this.buildState.status === 'building' ? { status: 'building', detail: `${this.ids.size} nodes read so far` } : this.buildState;
  }

  /** Resolves once every node change acknowledged before the call is counted. */
  async sync(): Promise<void> {
    if (!this.ready) this.start();
    await this.ready;
    await this.catchUp.sync();
  }

  /** The scope's tally (null when this process has seen no node of it). Call sync() first. */
  tally(ref: ScopeRef): ScopeTally | null {
    const s = this.scopes.get(scopeKey(ref));
    return s === undefined ? null : (this.tallies[s] as ScopeTally);
  }

  get size(): number {
    return this.ids.size;
  }

  /** How the view counts one node of the scope (null when unseen or of another scope). Call sync() first. */
  classOf(ref: ScopeRef, id: string): NodeClass | null {
    const s = this.scopes.get(scopeKey(ref));
    const num = this.ids.get(id);
    if (s === undefined || num === undefined || this.nodeScope[num] !== s + 1) return null;
    return classes[this.nodeClass[num] as number] ?? null;
  }

  /** Tallies changed since the last call (the history recorder's samples). Call sync() first. */
  takeChanged(): ScopeTally[] {
    const out = this.tallies.filter((t) => t.changed);
    for (const t of out) t.changed = false;
    return out;
  }

  /** Ids of the scope's nodes whose latest decision is review, at most `limit`. Call sync() first. */
  reviewIds(ref: ScopeRef, limit: number): string[] {
    const t = this.tally(ref);
    if (!t) return [];
    const out: string[] = [];
    for (const num of t.review) {
      if (out.length >= limit) break;
      out.push(this.ids.idOf(num));
    }
    return out;
  }

  /** The scope's archived nodes, most recently archived first, of the given kinds, at most `limit`. Call sync() first. */
  archivedList(ref: ScopeRef, kinds: readonly NodeKind[] | undefined, limit: number): { id: string; kind: NodeKind | null }[] {
    const t = this.tally(ref);
    if (!t) return [];
    const scope = (this.scopes.get(scopeKey(ref)) as number) + 1;
    const out: { id: string; kind: NodeKind | null }[] = [];
    const seen = new Set<number>();
    for (let i = t.archiveOrderLength - 1; i >= 0 && out.length < limit; i -= 1) {
      const num = t.archiveOrder[i] as number;
      if (seen.has(num)) continue; // archived again later: its later entry counted
      seen.add(num);
      if (this.nodeScope[num] !== scope || classes[this.nodeClass[num] as number]!.tier !== 'archive') continue;
      const kind = this.kinds[this.nodeKind[num] as number] ?? null;
      if (kinds && (kind === null || !kinds.includes(kind))) continue;
      out.push({ id: this.ids.idOf(num), kind });
    }
    return out;
  }

  /** Whether a node of the scope is archived. Call sync() first. */
  isArchived(ref: ScopeRef, id: string): boolean {
    const num = this.ids.get(id);
    const s = this.scopes.get(scopeKey(ref));
    return num !== undefined && s !== undefined && this.nodeScope[num] === s + 1 && classes[this.nodeClass[num] as number]!.tier === 'archive';
  }

  private scopeOf(ref: ScopeRef): number {
    const key = scopeKey(ref);
    let s = this.scopes.get(key);
    if (s === undefined) {
      s = this.tallies.length;
      const t = new ScopeTally(refOf(ref));
      this.tallies.push(t);
      this.scopes.set(key, s);
      this.deps.onNewScope(t.ref);
    }
    return s;
  }

  private apply(n: NodeState): void {
    const s = this.scopeOf(n);
    const num = this.ids.add(n.id);
    if (num >= this.nodeScope.length) {
      this.nodeScope = growUint32(this.nodeScope, num + 1);
      this.nodeKind = growUint16(this.nodeKind, this.nodeScope.length);
      this.nodeClass = growUint16(this.nodeClass, this.nodeScope.length);
    }
    const prev = this.nodeScope[num] as number;
    const prevClass = classes[this.nodeClass[num] as number]!;
    if (prev !== 0) this.tallies[prev - 1]!.add(num, prevClass, -1);
    const kind = n.kind ?? null;
    let k = this.kindNumbers.get(kind);
    if (k === undefined) {
      k = this.kinds.length;
      this.kinds.push(kind);
      this.kindNumbers.set(kind, k);
    }
    const c = classNumber(classify(n.tier, n.slots, n.feedback));
    this.nodeScope[num] = s + 1;
    this.nodeKind[num] = k;
    this.nodeClass[num] = c;
    const t = this.tallies[s]!;
    const cls = classes[c]!;
    t.add(num, cls, 1);
    // Only a move into the archive is a new place in the archive order; a node archived already keeps its own.
    if (cls.tier === 'archive' && prev !== 0 && prevClass.tier === 'archive') t.archiveOrderLength -= 1;
    if (t.archiveOrderLength > 1024 && t.archiveOrderLength > 2 * t.tiers.archive) this.compactArchiveOrder(t, s + 1);
    this.unsaved += 1;
    // Wall time, not the injected clock: how long changes have not been in a snapshot.
    this.unsavedSince ||= Date.now();
  }

  /** Keeps the latest entry of each node that is still archived, in order. */
  private compactArchiveOrder(t: ScopeTally, scope: number): void {
    const seen = new Set<number>();
    const kept: number[] = [];
    for (let i = t.archiveOrderLength - 1; i >= 0; i -= 1) {
      const num = t.archiveOrder[i] as number;
      if (seen.has(num)) continue;
      seen.add(num);
      if (this.nodeScope[num] === scope && classes[this.nodeClass[num] as number]!.tier === 'archive') kept.push(num);
    }
    kept.reverse();
    t.archiveOrder = Int32Array.from(kept);
    t.archiveOrderLength = kept.length;
  }

  // ---------------------------------------------------------------------------
  // snapshots
  // ---------------------------------------------------------------------------

  private async manifestPath(): Promise<{ dir: string; path: string; store: string; database: string } | null> {
    const dir = this.deps.snapshotDir;
    if (!dir) return null;
    this.storeId ??= await storeIdentity(this.deps.db);
    return { dir, path: join(dir, 'manifest.json'), store: this.storeId, database: this.deps.db.db.databaseName };
  }

  /** Loads the snapshot when there is a usable one; false (and the reason logged) otherwise. */
  private async load(head: number): Promise<boolean> {
    const at = await this.manifestPath();
    if (!at) return false;
    try {
      const m = (await readJsonFile(at.path)) as ViewManifest | null;
      if (!m) return false;
      if (m.format !== VIEW_SNAPSHOT_FORMAT || m.store !== at.store || m.database !== at.database || m.watermark > head) {
        this.deps.log.warn('forgetting view snapshot not used (another format or store, or ahead of the store); scanning the store');
        return false;
      }
      this.thaw(await readColumnFile(join(at.dir, m.file)));
      this.generation = m.generation;
      this.catchUp.init(m.watermark, m.holes);
      this.unsaved = 0;
      this.unsavedSince = 0;
      return true;
    } catch (err) {
      this.deps.log.warn(`forgetting view snapshot not used: ${(err as Error).message}; scanning the store`);
      this.ids = new IdTable();
      this.nodeScope = new Uint32Array(1024);
      this.nodeKind = new Uint16Array(1024);
      this.nodeClass = new Uint16Array(1024);
      this.kinds = [null];
      this.kindNumbers = new Map([[null, 0]]);
      this.tallies = [];
      this.scopes = new Map();
      return false;
    }
  }

  private async maybeSave(): Promise<void> {
    if (!this.deps.snapshotDir || this.buildState.status !== 'ready' || this.unsaved === 0) return;
    if (this.unsaved >= SNAPSHOT_CHANGES || Date.now() - this.unsavedSince >= SNAPSHOT_MAX_AGE_MS) await this.save(`${this.unsaved} changes`);
  }

  private save(why: string): Promise<void> {
    this.saving ??= this.saveNow(why)
      .catch((err) => this.deps.log.warn(`forgetting view snapshot failed (${why}); retried later: ${(err as Error).message}`))
      .finally(() => {
        this.saving = null;
      });
    return this.saving;
  }

  private async saveNow(why: string): Promise<void> {
    const at = await this.manifestPath();
    if (!at) return;
    // Wall time, not the injected clock: what a snapshot costs.
    const t0 = Date.now();
    await ensureDir(at.dir);
    const generation = this.generation + 1;
    const file = `view.${generation}.col`;
    // One synchronous step: the columns and the watermark describe the same instant.
    const watermark = this.catchUp.watermark;
    const holes = this.catchUp.holeSeqs();
    const saved = this.unsaved;
    const pending = writeColumnFileNow(join(at.dir, file), this.freeze());
    this.unsaved -= saved;
    if (this.unsaved === 0) this.unsavedSince = 0;
    try {
      await pending.commit();
      const m: ViewManifest = { format: VIEW_SNAPSHOT_FORMAT, store: at.store, database: at.database, generation, file, watermark, holes, nodes: this.ids.size };
      await writeJsonFile(at.path, m);
    } catch (err) {
      this.unsaved += saved;
      this.unsavedSince ||= Date.now();
      await pending.drop().catch(() => {});
      throw err;
    }
    this.generation = generation;
    await pruneDir(at.dir, new Set(['manifest.json', file]));
    this.deps.log.info(
      `forgetting view snapshot (${why}): ${this.ids.size} nodes, ${Math.round(pending.bytes / 1048576)} MB in ${Date.now() - t0} ms (event loop held ${Math.round(pending.blockedMs)} ms)`,
    );
  }

  private freeze(): Frozen {
    const n = this.ids.size;
    const orders = this.tallies.map((t) => t.archiveOrder.subarray(0, t.archiveOrderLength));
    const order = new Int32Array(orders.reduce((a, o) => a + o.length, 0));
    let at = 0;
    for (const o of orders) {
      order.set(o, at);
      at += o.length;
    }
    const out: Frozen = {
      meta: {
        classes: classes.map((c) => ({ ...c })),
        kinds: this.kinds,
        scopes: this.tallies.map((t) => ({ tenant_id: t.ref.tenant_id, scope: t.ref.scope, review: [...t.review], archiveOrder: t.archiveOrderLength })),
      },
      columns: {
        nodeScope: { data: this.nodeScope.subarray(0, n), grow: { fill: 0 } },
        nodeKind: { data: this.nodeKind.subarray(0, n), grow: { fill: 0 } },
        nodeClass: { data: this.nodeClass.subarray(0, n), grow: { fill: 0 } },
        archiveOrder: { data: order },
      },
    };
    nest(out, 'ids', this.ids.freeze());
    return out;
  }

  /** The view from its frozen state: the per-node columns as they were, the tallies counted again from them. */
  private thaw(f: Frozen): void {
    const ids = IdTable.thaw(child(f, 'ids'));
    const n = ids.size;
    const scopeCol = col(f, 'nodeScope', Uint32Array);
    const kindCol = col(f, 'nodeKind', Uint16Array);
    const classCol = col(f, 'nodeClass', Uint16Array);
    if (scopeCol.length < n || kindCol.length !== scopeCol.length || classCol.length !== scopeCol.length) throw new Error('forgetting view snapshot: columns out of shape');
    // Class numbers are this process's: map the snapshot's onto them.
    const classMap = (f.meta.classes as NodeClass[]).map((c) => classNumber(c));
    for (let i = 0; i < n; i += 1) classCol[i] = classMap[classCol[i] as number] as number;
    this.ids = ids;
    this.nodeScope = scopeCol;
    this.nodeKind = kindCol;
    this.nodeClass = classCol;
    this.kinds = f.meta.kinds as (NodeKind | null)[];
    this.kindNumbers = new Map(this.kinds.map((k, i) => [k, i]));
    this.tallies = [];
    this.scopes = new Map();
    const order = col(f, 'archiveOrder', Int32Array);
    let at = 0;
    for (const sc of f.meta.scopes as { tenant_id: string; scope: string; review: number[]; archiveOrder: number }[]) {
      const s = this.scopeOf(refOf(sc));
      const t = this.tallies[s]!;
      t.archiveOrder = order.slice(at, at + sc.archiveOrder);
      t.archiveOrderLength = sc.archiveOrder;
      at += sc.archiveOrder;
    }
    const archiveOrders = this.tallies.map((t) => ({ order: t.archiveOrder, length: t.archiveOrderLength }));
    for (let num = 0; num < n; num += 1) {
      const s = this.nodeScope[num] as number;
      if (s !== 0) this.tallies[s - 1]!.add(num, classes[this.nodeClass[num] as number]!, 1);
    }
    // Counting appended every archived node to its scope's order again: the snapshot's order stands.
    this.tallies.forEach((t, i) => {
      t.archiveOrder = archiveOrders[i]!.order;
      t.archiveOrderLength = archiveOrders[i]!.length;
      t.changed = false;
    });
  }
}
