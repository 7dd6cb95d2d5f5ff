import type { Log } from '../../log';
import type { NodeStore } from '../../store/memory/nodes';
import { nodeStatesAt, nodeStatesSince, scanNodeStates, type NodeState } from '../../store/lifecycle/node-states';
import type { Database } from '../../store/database';
import { scopeKey, scopeRef, type ScopeRef } from '../../store/scope';
import { CatchUp } from '../memory/catch-up';
import { growUint16, growUint32, IdTable } from '../../retrieval/arena';
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

/**
 * The forgetting view (docs/forgetting.md, "Counts"): per tenant+scope tallies of tiers,
 * decisions, lifecycle states and relocations, kept in this process and updated node by node.
 * Built once at start from a projected scan, then caught up from the memory change feed (every
 * node mutation takes a new seq), so a forgetting summary costs one indexed catch-up query and
 * no scan, and its counts are exactly the store's, whichever process changed a node.
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
  /** Nodes whose latest decision is review (for the evolution review pack). */
  readonly review = new Set<string>();
  /** Archived nodes and their kinds (rehydration candidates without a query). */
  readonly archived = new Map<string, NodeKind | null>();
  /** Changed since the history recorder last took it (domain/lifecycle/history.ts). */
  changed = false;

  constructor(readonly ref: ScopeRef) {}

  add(id: string, kind: NodeKind | null, c: NodeClass, sign: 1 | -1): void {
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
    if (c.action === 'review' && c.decided) sign > 0 ? this.review.add(id) : this.review.delete(id);
    if (c.tier === 'archive') sign > 0 ? this.archived.set(id, kind) : this.archived.delete(id);
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

export class ForgettingView {
  /*
   * Per node, columns indexed by the node's number in `ids` (no object, no id string per node: at
   * 180k nodes ~6 MB instead of ~32 MB): its scope's number + 1 (0: not seen), kind and class.
   */
  private readonly ids = new IdTable();
  private nodeScope: Uint32Array = new Uint32Array(1024);
  private nodeKind: Uint16Array = new Uint16Array(1024);
  private nodeClass: Uint16Array = new Uint16Array(1024);
  private readonly kinds: (NodeKind | null)[] = [null];
  private readonly kindNumbers = new Map<NodeKind | null, number>([[null, 0]]);
  private readonly tallies: ScopeTally[] = [];
  private readonly scopes = new Map<string, number>();
  private readonly catchUp: CatchUp<NodeState>;
  private ready: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Where the start-up build is (GET /health `indexes.forgetting`). */
  private buildState: { status: 'building' | 'ready' | 'failed'; detail: string } = { status: 'building', detail: 'not started' };
  private buildStartedAt: number | null = null;

  constructor(
    private readonly deps: {
      store: NodeStore;
      db: Database;
      log: Log;
      /** Called once per scope this process sees for the first time (the scope registry). */
      onNewScope: (ref: ScopeRef) => void;
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
      // Keeps the registry and tallies fresh between summaries (new scopes reach the sweep).
      this.sync().catch((err) => this.deps.log.warn(`forgetting view catch-up failed: ${(err as Error).message}`));
    }, BACKGROUND_SYNC_MS);
    this.timer.unref();
  }

  /** Stops the background catch-up and waits for a build in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ready?.catch(() => {});
  }

  private async build(): Promise<void> {
    // Wall time, not the injected clock: how long loading really took (for the log).
    const t0 = Date.now();
    await this.catchUp.initFromScan(await this.deps.store.currentSeq(), scanNodeStates(this.deps.db), (n) => this.apply(n));
    // The history records changes from here on: counts as found at start were recorded by the
    // process that saw them change (a restart must not rewrite every scope's sample at once).
    for (const t of this.tallies) t.changed = false;
    this.deps.log.info(`forgetting view: ${this.ids.size} nodes in ${this.scopes.size} scopes loaded in ${Date.now() - t0} ms`);
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
  readiness(): { status: 'building' | 'ready' | 'failed'; detail: string } {
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

  private apply(n: NodeState): void {
    const key = scopeKey(n);
    let s = this.scopes.get(key);
    if (s === undefined) {
      s = this.tallies.length;
      const t = new ScopeTally(scopeRef(n.tenant_id, n.scope));
      this.tallies.push(t);
      this.scopes.set(key, s);
      this.deps.onNewScope(t.ref);
    }
    const num = this.ids.add(n.id);
    if (num >= this.nodeScope.length) {
      this.nodeScope = growUint32(this.nodeScope, num + 1);
      this.nodeKind = growUint16(this.nodeKind, this.nodeScope.length);
      this.nodeClass = growUint16(this.nodeClass, this.nodeScope.length);
    }
    const prev = this.nodeScope[num] as number;
    if (prev !== 0) {
      this.tallies[prev - 1]!.add(n.id, this.kinds[this.nodeKind[num] as number] ?? null, classes[this.nodeClass[num] as number]!, -1);
    }
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
    this.tallies[s]!.add(n.id, kind, classes[c]!, 1);
  }
}
