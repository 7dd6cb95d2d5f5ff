import type { Log } from '../../log';
import type { NodeStore, StoredNode } from '../../store/memory/nodes';
import { scanNodeStates, type NodeState } from '../../store/lifecycle/node-states';
import type { Database } from '../../store/database';
import { scopeKey, scopeRef, type ScopeRef } from '../../store/scope';
import { CatchUp } from '../memory/catch-up';
import { TIERS, type NodeKind, type Tier } from '../memory/node';
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

interface Entry {
  key: string;
  kind: NodeKind | null;
  cls: NodeClass;
}

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
  /** Nodes whose latest decision is review (for the evolution review pack). */
  readonly review = new Set<string>();
  /** Archived nodes and their kinds (rehydration candidates without a query). */
  readonly archived = new Map<string, NodeKind | null>();

  constructor(readonly ref: ScopeRef) {}

  add(id: string, e: Entry, sign: 1 | -1): void {
    const c = e.cls;
    this.nodes += sign;
    this.tiers[c.tier] += sign;
    if (c.action) this.actions[c.action] += sign;
    this.states[c.state] += sign;
    this.relocationStates[c.relocationState] += sign;
    this.relocationTargets[c.relocationTarget] += sign;
    this.payloadScopes[c.payloadScope] += sign;
    const differential = c.tier === 'archive' && c.relocationState === 'cold_archive' && c.payloadScope === 'anchor_payload';
    if (differential) this.differentialCandidates += sign;
    if (c.action === 'review') sign > 0 ? this.review.add(id) : this.review.delete(id);
    if (c.tier === 'archive') sign > 0 ? this.archived.set(id, e.kind) : this.archived.delete(id);
  }
}

/** Nodes share a few hundred classes at most: one object per class keeps the view small. */
const classes = new Map<string, NodeClass>();
function intern(c: NodeClass): NodeClass {
  const key = `${c.tier}|${c.action}|${c.state}|${c.relocationState}|${c.relocationTarget}|${c.payloadScope}`;
  let shared = classes.get(key);
  if (!shared) {
    shared = Object.freeze(c);
    classes.set(key, shared);
  }
  return shared;
}

const BACKGROUND_SYNC_MS = 15_000;

export class ForgettingView {
  private readonly nodes = new Map<string, Entry>();
  private readonly scopes = new Map<string, ScopeTally>();
  private readonly catchUp: CatchUp<StoredNode>;
  private ready: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      store: NodeStore;
      db: Database;
      log: Log;
      /** Called once per scope this process sees for the first time (the scope registry). */
      onNewScope: (ref: ScopeRef) => void;
    },
  ) {
    this.catchUp = new CatchUp<StoredNode>(
      { after: (seq, limit) => deps.store.changesSince(seq, limit), at: (seqs) => deps.store.changesAt(seqs) },
      (items) => {
        for (const n of items) this.apply(n);
      },
    );
  }

  /** Starts the build in the background; sync() waits for it. */
  start(): void {
    if (!this.ready) {
      const ready = this.build().catch((err) => {
        this.ready = null; // the next sync() tries again
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
    const t0 = Date.now();
    await this.catchUp.initFromScan(await this.deps.store.currentSeq(), scanNodeStates(this.deps.db), (n) => this.apply(n));
    this.deps.log.info(`forgetting view: ${this.nodes.size} nodes in ${this.scopes.size} scopes loaded in ${Date.now() - t0} ms`);
  }

  /** Resolves once every node change acknowledged before the call is counted. */
  async sync(): Promise<void> {
    if (!this.ready) this.start();
    await this.ready;
    await this.catchUp.sync();
  }

  /** The scope's tally (null when this process has seen no node of it). Call sync() first. */
  tally(ref: ScopeRef): ScopeTally | null {
    return this.scopes.get(scopeKey(ref)) ?? null;
  }

  get size(): number {
    return this.nodes.size;
  }

  private apply(n: NodeState | StoredNode): void {
    const key = scopeKey(n);
    let t = this.scopes.get(key);
    if (!t) {
      t = new ScopeTally(scopeRef(n.tenant_id, n.scope));
      this.scopes.set(key, t);
      this.deps.onNewScope(t.ref);
    }
    const prev = this.nodes.get(n.id);
    if (prev) this.scopes.get(prev.key)?.add(n.id, prev, -1);
    const e: Entry = { key, kind: n.kind ?? null, cls: intern(classify(n.tier, n.slots)) };
    this.nodes.set(n.id, e);
    t.add(n.id, e, 1);
  }
}
