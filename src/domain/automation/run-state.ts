import { NODE_STATES, type Graph, type GraphEdge, type GraphNode, type NodeState, type RunStatus } from '../../model/automation/graph';
import type { ResumeRecord, RunError } from '../../model/automation/records';
import type { MirrorNodeChange, MirrorRunState } from './run-types';

interface NodeSlot {
  node: GraphNode;
  state: NodeState;
  result?: boolean;
}

/**
 * The in-workflow state of one run: node states, outputs for references, and the changes not yet
 * mirrored to the store. Pure and deterministic (the workflow owns the only instance); every
 * change bumps `version`, which the scheduling loop waits on.
 */
export class RunState {
  readonly slots = new Map<string, NodeSlot>();
  readonly incoming = new Map<string, GraphEdge[]>();
  readonly outputs: Record<string, unknown> = {};
  readonly resumes: ResumeRecord[] = [];
  version = 0;
  status: RunStatus = 'running';
  error: RunError | null = null;
  reason: string | null = null;
  replayRunId: string | null = null;
  private pending = new Map<string, MirrorNodeChange>();
  private runDirty = true;

  constructor(graph: Graph) {
    for (const n of graph.nodes) {
      this.slots.set(n.node_id, { node: n, state: 'pending' });
      this.incoming.set(n.node_id, []);
    }
    for (const e of graph.edges) this.incoming.get(e.to)?.push(e);
  }

  stateOf(id: string): NodeState {
    return this.slots.get(id)!.state;
  }

  facts = (id: string) => {
    const s = this.slots.get(id);
    return s ? { kind: s.node.kind, state: s.state, ...(s.result !== undefined ? { result: s.result } : {}) } : undefined;
  };

  /** Records a node transition and queues it for the store. */
  set(id: string, state: NodeState, change: Omit<MirrorNodeChange, 'node_id' | 'state'> = {}, result?: boolean): void {
    const slot = this.slots.get(id)!;
    slot.state = state;
    if (result !== undefined) slot.result = result;
    if (state === 'succeeded' && change.output !== undefined) this.outputs[id] = change.output;
    const prev = this.pending.get(id);
    this.pending.set(id, {
      ...(prev ?? {}),
      ...change,
      node_id: id,
      state,
      started: Boolean(prev?.started || change.started),
      approval_requested: Boolean(prev?.approval_requested || change.approval_requested),
    });
    this.touch();
  }

  /** A run-level change (status, resumes, error) to mirror. */
  touch(): void {
    this.runDirty = true;
    this.version += 1;
  }

  counts(): Record<NodeState, number> {
    const c = Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<NodeState, number>;
    for (const s of this.slots.values()) c[s.state] += 1;
    return c;
  }

  paused(): string[] {
    return [...this.slots.values()].filter((s) => s.state === 'paused').map((s) => s.node.node_id);
  }

  /** While the run goes on: paused when any approval waits (other branches may still run). */
  liveStatus(): RunStatus {
    if (this.status !== 'running' && this.status !== 'paused') return this.status;
    return this.paused().length > 0 ? 'paused' : 'running';
  }

  hasChanges(): boolean {
    return this.runDirty || this.pending.size > 0;
  }

  /** The changes since the last call, for one mirror write. */
  take(): { run: MirrorRunState; nodes: MirrorNodeChange[] } {
    const nodes = [...this.pending.values()];
    this.pending = new Map();
    this.runDirty = false;
    return {
      run: {
        status: this.liveStatus(),
        paused_nodes: this.paused(),
        node_counts: this.counts(),
        resumes: [...this.resumes],
        error: this.error,
        reason: this.reason,
        replay_run_id: this.replayRunId,
      },
      nodes,
    };
  }
}
