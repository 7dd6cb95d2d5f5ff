/**
 * The state of one automation run inside its workflow, as one object: every piece the scheduler,
 * the node executors, the mirror writer and the signal handler share. The workflow creates one per
 * run; nothing here is module-level, so runs on one worker never see each other.
 */
import { CancellationScope } from '@temporalio/workflow';
import type { GraphNode } from '../../src/model/automation/graph';
import { RunState } from '../../src/domain/automation/run-state';
import type { AutomationRunInput, ResumeSignal } from '../../src/domain/automation/run-types';

/** What a waiting approval waits for: the run's current details and memo show it in the Temporal UI. */
export interface Waiting {
  approval_key: string;
  since: string;
  expires_at: string | null;
  on_timeout: string | null;
}

export interface AutomationRun {
  readonly input: AutomationRunInput;
  /** Node states, outputs and the changes not yet mirrored (src/domain/automation/run-state.ts). */
  readonly st: RunState;
  /** The workflow's own scope: cancelled when the run is cancelled. */
  readonly root: CancellationScope;
  readonly byId: Map<string, GraphNode>;
  /** The in-flight nodes: each runs in a scope of its own (stop_on_failure cancels them). */
  readonly scopes: Map<string, CancellationScope>;
  readonly tasks: Map<string, Promise<void>>;
  /** Approval nodes waiting for a decision, and what each waits for. */
  readonly waiting: Set<string>;
  readonly waitingFor: Map<string, Waiting>;
  /** The decision each approval node received, and the resume ids already seen. */
  readonly approvals: Map<string, ResumeSignal>;
  readonly seenResumes: Set<string>;
  /** The sandbox runs each playbook node made (artifact gates look there). */
  readonly sandboxRuns: Map<string, string[]>;
  /** The node whose failure stopped the run (stop_on_failure). */
  stoppedBy: string | null;
  /** For record_run: the nodes in the order they started, with their resolved inputs and errors. */
  readonly started: string[];
  readonly nodeInputs: Map<string, Record<string, unknown>>;
  readonly nodeErrors: Map<string, { message: string; output?: unknown }>;
  recordProblem: string | null;
}

export function newRun(input: AutomationRunInput): AutomationRun {
  return {
    input,
    st: new RunState(input.graph),
    root: CancellationScope.current(),
    byId: new Map(input.graph.nodes.map((n) => [n.node_id, n])),
    scopes: new Map(),
    tasks: new Map(),
    waiting: new Set(),
    waitingFor: new Map(),
    approvals: new Map(),
    seenResumes: new Set(),
    sandboxRuns: new Map(),
    stoppedBy: null,
    started: [],
    nodeInputs: new Map(),
    nodeErrors: new Map(),
    recordProblem: null,
  };
}
