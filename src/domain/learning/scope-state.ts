import type { StoredNode } from '../../store/memory/nodes';
import type { Tier } from '../../model/memory/node';
import { FamilyIndex } from './family-index';
import { PATTERN_SLOT, type PatternSlot } from './pattern-model';
import { POLICY_SLOT, type PolicySlot } from './policy-model';
import { RULE_SLOT } from './rule-model';
import type { OriginCounts, RuleSlot } from '../../model/learning/slots';
import { TermStats } from './similarity';
import { emptyOriginCounts, type DistillationOrigin, type FamilySignature, type Observation } from './types';
import { headOf, WORKFLOW_SLOT, type WorkflowHead, type WorkflowSlot } from './workflow-model';

const RECENT_OBSERVATIONS = 5000;
const MAX_TOOL_NAMES = 500;
/**
 * Whole workflow slots kept besides the heads (most recently changed or read first; ~9 KB each);
 * changes not yet stored are always kept. A change of a workflow not kept reads it back (one read
 * by id): a scope's busy families stay here.
 */
const FULL_WORKFLOWS = 1024;

/** A set that forgets its oldest member beyond `max`. */
export class BoundedSet {
  private readonly members = new Set<string>();
  constructor(private readonly max: number) {}
  has(x: string): boolean {
    return this.members.has(x);
  }
  add(x: string): void {
    if (this.members.has(x)) return;
    if (this.members.size >= this.max) this.members.delete(this.members.values().next().value as string);
    this.members.add(x);
  }
  delete(x: string): void {
    this.members.delete(x);
  }
}

/**
 * Everything learning knows about one tenant+scope, in memory: workflows and patterns in a
 * family index, policy memories and rules by id, and light metadata of continuity carriers.
 * Built from the store when the scope is first touched (indexed kind queries), then kept current
 * by this process's writes and by catch-up of other processes' writes. MongoDB stays the source
 * of truth.
 */

export interface NodeMeta {
  id: string;
  client_id: string | null;
  tier: Tier;
  seq: number;
  title: string | null;
  summary: string;
  created_at: string;
  updated_at: string;
}

export interface Learned<S> {
  node: NodeMeta;
  slot: S;
}

export interface CarrierMeta extends NodeMeta {
  kind: 'handoff' | 'session' | 'session_event';
  anchor: string | null;
}

export const metaOf = (n: StoredNode): NodeMeta => ({
  id: n.id,
  client_id: n.client_id,
  tier: n.tier,
  seq: n.seq,
  title: n.title,
  summary: n.summary,
  created_at: n.created_at,
  updated_at: n.updated_at,
});

/** A workflow's class in the family index (planner ranking): `live|archive` : promotion state. */
export const workflowClass = (w: Learned<WorkflowHead>) => `${w.node.tier === 'archive' ? 'archive' : 'live'}:${w.slot.promotion_state}`;

export const familyKey = (familyId: string, tool: string) => `${familyId}\u0000${tool}`;

export const workflowSignature = (w: WorkflowHead): FamilySignature => ({
  task_kind: w.task_kind,
  term_counts: w.term_counts,
  samples: w.samples,
  files: w.target_files,
});

export const patternSignature = (p: Pick<PatternSlot, 'task_kind' | 'term_counts' | 'samples' | 'files'>): FamilySignature => ({
  task_kind: p.task_kind,
  term_counts: p.term_counts,
  samples: p.samples,
  files: p.files,
});

const slotOf = <S>(n: Pick<StoredNode, 'slots'>, name: string): S | null => {
  const s = n.slots[name];
  return s && typeof s === 'object' ? (s as S) : null;
};

/** A carrier's anchor: a slot field named anchor (handoff_v1, execution_packet_v1.resume_anchor) or the client_id. */
export function anchorOf(n: StoredNode): string | null {
  for (const v of Object.values(n.slots)) {
    if (!v || typeof v !== 'object') continue;
    const o = v as Record<string, unknown>;
    if (typeof o.anchor === 'string') return o.anchor;
    const ra = o.resume_anchor as Record<string, unknown> | undefined;
    if (ra && typeof ra.anchor === 'string') return ra.anchor;
  }
  return n.client_id;
}

/** The session_id a sessions-family slot carries (session_v1, session_event_v1). */
function sessionIdOf(n: StoredNode): string | null {
  for (const v of Object.values(n.slots)) {
    if (v && typeof v === 'object' && typeof (v as Record<string, unknown>).session_id === 'string') return (v as Record<string, string>).session_id!;
  }
  return null;
}

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(id);
}

export class ScopeLearning {
  readonly stats = new TermStats();
  /** Keyed by first move (tool and file): two workflows that would start the same way are not each other's dense runner-up. */
  readonly workflows = new FamilyIndex<Learned<WorkflowHead>>(
    this.stats,
    (w) => `${w.slot.steps[0]?.tool ?? ''}|${w.slot.steps[0]?.file_path ?? w.slot.target_files[0] ?? ''}`,
    workflowClass,
  );
  readonly patterns = new FamilyIndex<Learned<PatternSlot>>(this.stats);
  readonly policies = new Map<string, Learned<PolicySlot>>();
  readonly rules = new Map<string, Learned<RuleSlot>>();
  readonly carriers = new Map<string, CarrierMeta>();
  /** (family, tool) → pattern / policy node id. */
  readonly patternByKey = new Map<string, string>();
  readonly policyByKey = new Map<string, string>();
  /** family id → workflow node id (a family has at most one workflow). */
  readonly workflowByFamily = new Map<string, string>();
  /**
   * Whole slots of some workflows (bounded, least recently used out), and the ids whose whole slot
   * here is newer than the store's (a change the writer has not stored yet: never dropped).
   */
  private readonly fullSlots = new Map<string, WorkflowSlot>();
  private readonly unstored = new Set<string>();
  /** execution (source node) id → the workflow that counted it. */
  private readonly sourceToWorkflow = new Map<string, string>();
  /** family id → pattern / policy node ids. */
  private readonly familyPatterns = new Map<string, Set<string>>();
  private readonly familyPolicies = new Map<string, Set<string>>();
  sessionEventCount = 0;
  /** The store's write sequence when the scope was loaded (see session event counting). */
  loadedSeq = 0;
  private readonly laterEvents = new Set<string>();
  /** session_id (as the sessions family names it in slots) → session node id. */
  private readonly sessionIds = new Map<string, string>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly originCounts = emptyOriginCounts();
  private readonly workflowOrigins = new Map<string, DistillationOrigin>();
  private readonly carrierCounts: Record<CarrierMeta['kind'], number> = { handoff: 0, session: 0, session_event: 0 };
  private readonly handoffsByAnchor = new Map<string, Set<string>>();
  /**
   * Recently seen executions by node id (bounded): pairing a new execution with an earlier one
   * usually finds a recent write, which then needs no store read.
   */
  readonly recentObservations = new Map<string, Observation>();
  /** Nodes read as possible past tasks that carry no observation (bounded like recentObservations). */
  readonly notObservations = new BoundedSet(RECENT_OBSERVATIONS);
  /**
   * Tool names this scope has seen (kickoff candidates, replay runs, feedback, learned patterns and
   * policies, explicit steps): free-text evidence is read for them too (text-evidence.ts). In
   * memory, bounded; candidates seen before a restart are known again once they are sent again.
   */
  readonly toolNames = new Set<string>();

  noteTools(names: Iterable<string | null | undefined>): void {
    for (const raw of names) {
      const t = raw?.trim().toLowerCase();
      if (!t || t.length > 40 || this.toolNames.has(t) || this.toolNames.size >= MAX_TOOL_NAMES) continue;
      this.toolNames.add(t);
    }
  }

  /** Runs learning mutations of this scope one at a time, so persisted state follows memory state. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Takes a node's current state from the store (load, catch-up, or this process's own update).
   * Returns true when the node is learning state (workflow, pattern, policy, rule, carrier).
   */
  apply(n: StoredNode, opts: { keepWhole?: boolean } = {}): boolean {
    if (n.kind === 'workflow') {
      const slot = slotOf<WorkflowSlot>(n, WORKFLOW_SLOT);
      if (!slot) return false;
      this.putWorkflow(n.id, { node: metaOf(n), slot: headOf(slot) });
      // The store has this state now.
      this.unstored.delete(n.id);
      // A load keeps heads only (a change reads the whole slot back); a change seen here keeps it.
      if (opts.keepWhole === false) this.fullSlots.delete(n.id);
      else this.keepFull(n.id, slot);
      this.workflowByFamily.set(slot.family_id, n.id);
      for (const src of slot.provenance_ids) this.sourceToWorkflow.set(src, n.id);
      return true;
    }
    if (n.kind === 'pattern') {
      const slot = slotOf<PatternSlot>(n, PATTERN_SLOT);
      if (!slot) return false;
      this.patterns.put(n.id, patternSignature(slot), { node: metaOf(n), slot });
      this.patternByKey.set(familyKey(slot.family_id, slot.tool), n.id);
      this.noteTools([slot.tool]);
      addTo(this.familyPatterns, slot.family_id, n.id);
      return true;
    }
    if (n.kind === 'policy_memory') {
      const slot = slotOf<PolicySlot>(n, POLICY_SLOT);
      if (!slot) return false;
      this.policies.set(n.id, { node: metaOf(n), slot });
      this.policyByKey.set(familyKey(slot.family_id, slot.tool), n.id);
      this.noteTools([slot.tool]);
      addTo(this.familyPolicies, slot.family_id, n.id);
      return true;
    }
    if (n.type === 'rule') {
      const slot = slotOf<RuleSlot>(n, RULE_SLOT);
      if (!slot) return false;
      this.rules.set(n.id, { node: metaOf(n), slot });
      return true;
    }
    if (n.kind === 'handoff' || n.kind === 'session' || n.kind === 'session_event') {
      if (n.kind === 'session_event') {
        // Events are counted, not kept (a long session holds thousands): the load counted those
        // up to loadedSeq; later ones are counted once each.
        if (n.seq > this.loadedSeq && !this.laterEvents.has(n.id)) {
          this.laterEvents.add(n.id);
          this.sessionEventCount += 1;
        }
        return true;
      }
      this.setCarrier({ ...metaOf(n), kind: n.kind, anchor: anchorOf(n) });
      const sid = sessionIdOf(n);
      if (n.kind === 'session' && sid) this.sessionIds.set(sid, n.id);
      return true;
    }
    return false;
  }

  /** The session a session event belongs to, by the session_id in its slots. */
  sessionOf(event: StoredNode): CarrierMeta | undefined {
    const sid = sessionIdOf(event);
    const id = sid ? this.sessionIds.get(sid) : undefined;
    return id ? this.carriers.get(id) : undefined;
  }

  rememberObservation(nodeId: string, o: Observation): void {
    if (this.recentObservations.size >= RECENT_OBSERVATIONS) this.recentObservations.delete(this.recentObservations.keys().next().value as string);
    this.recentObservations.set(nodeId, o);
    this.notObservations.delete(nodeId);
  }

  /** A workflow's new state before it reaches the store (workflow-writer.ts coalescing). */
  setWorkflowSlot(id: string, slot: WorkflowSlot): void {
    const w = this.workflows.get(id);
    if (!w) return;
    this.putWorkflow(id, { node: w.node, slot: headOf(slot) });
    this.unstored.add(id);
    this.keepFull(id, slot);
    for (const src of slot.provenance_ids) this.sourceToWorkflow.set(src, id);
  }

  /** A workflow's whole slot if it is kept here (always when a change of it is not stored yet). */
  fullWorkflow(id: string): WorkflowSlot | undefined {
    const s = this.fullSlots.get(id);
    if (s) this.keepFull(id, s);
    return s;
  }

  /** A workflow's whole slot for a change: kept here, or read from the store (`read`) and kept. */
  async loadFullWorkflow(id: string, read: (id: string) => Promise<Pick<StoredNode, 'slots'> | null>): Promise<WorkflowSlot | undefined> {
    const kept = this.fullWorkflow(id);
    if (kept) return kept;
    const n = await read(id);
    const slot = n ? slotOf<WorkflowSlot>(n, WORKFLOW_SLOT) : null;
    if (!slot) return undefined;
    // A change that arrived while reading is newer than what was read.
    const newer = this.fullSlots.get(id);
    if (newer) return newer;
    this.keepFull(id, slot);
    return slot;
  }

  private keepFull(id: string, slot: WorkflowSlot): void {
    this.fullSlots.delete(id);
    this.fullSlots.set(id, slot);
    if (this.fullSlots.size <= FULL_WORKFLOWS) return;
    for (const old of this.fullSlots.keys()) {
      if (this.fullSlots.size <= FULL_WORKFLOWS) break;
      if (!this.unstored.has(old)) this.fullSlots.delete(old);
    }
  }

  private putWorkflow(id: string, w: Learned<WorkflowHead>): void {
    const before = this.workflowOrigins.get(id);
    if (before) this.originCounts[before] -= 1;
    this.originCounts[w.slot.distillation_origin] += 1;
    this.workflowOrigins.set(id, w.slot.distillation_origin);
    this.workflows.put(id, workflowSignature(w.slot), w);
  }

  /** Workflows by distillation origin, over the whole scope (kept as workflows come and change). */
  scopeOriginCounts(): OriginCounts {
    return { ...this.originCounts };
  }

  private setCarrier(c: CarrierMeta): void {
    const before = this.carriers.get(c.id);
    if (before) {
      this.carrierCounts[before.kind] -= 1;
      if (before.kind === 'handoff' && before.anchor) this.handoffsByAnchor.get(before.anchor)?.delete(c.id);
    }
    this.carriers.set(c.id, c);
    this.carrierCounts[c.kind] += 1;
    if (c.kind === 'handoff' && c.anchor) {
      let set = this.handoffsByAnchor.get(c.anchor);
      if (!set) this.handoffsByAnchor.set(c.anchor, (set = new Set()));
      set.add(c.id);
    }
  }

  /** How many continuity carriers of a kind the scope holds (session events are counted apart: sessionEventCount). */
  carrierCount(kind: 'handoff' | 'session'): number {
    return this.carrierCounts[kind];
  }

  /** The handoff carriers of one anchor. */
  handoffsOf(anchor: string): CarrierMeta[] {
    return [...(this.handoffsByAnchor.get(anchor) ?? [])].map((id) => this.carriers.get(id)!).filter(Boolean);
  }

  workflowOfFamily(familyId: string): Learned<WorkflowHead> | undefined {
    const id = this.workflowByFamily.get(familyId);
    return id ? this.workflows.get(id) : undefined;
  }

  workflowOfSource(sourceId: string): Learned<WorkflowHead> | undefined {
    const id = this.sourceToWorkflow.get(sourceId);
    return id ? this.workflows.get(id) : undefined;
  }

  patternOf(familyId: string, tool: string): Learned<PatternSlot> | undefined {
    const id = this.patternByKey.get(familyKey(familyId, tool));
    return id ? this.patterns.get(id) : undefined;
  }

  policyOf(familyId: string, tool: string): Learned<PolicySlot> | undefined {
    const id = this.policyByKey.get(familyKey(familyId, tool));
    return id ? this.policies.get(id) : undefined;
  }

  patternsOfFamily(familyId: string): Learned<PatternSlot>[] {
    return [...(this.familyPatterns.get(familyId) ?? [])].map((id) => this.patterns.get(id)).filter((p): p is Learned<PatternSlot> => !!p);
  }

  policiesOfFamily(familyId: string): Learned<PolicySlot>[] {
    return [...(this.familyPolicies.get(familyId) ?? [])].map((id) => this.policies.get(id)).filter((p): p is Learned<PolicySlot> => !!p);
  }
}
