import type { TermCounts } from './similarity';
import type { ExecutionOutcome } from '../../model/memory/vocabulary';
import type { DistillationOrigin } from '../../model/learning/vocabulary';
import type { OriginCounts, WorkflowStep } from '../../model/learning/slots';

/** Shared vocabulary of the learning family (docs/learning.md). */

export { DISTILLATION_ORIGINS, type DistillationOrigin } from '../../model/learning/vocabulary';
export type { WorkflowStep } from '../../model/learning/slots';

export const CONTINUITY_ORIGINS: readonly DistillationOrigin[] = ['handoff_continuity_carrier', 'session_event_continuity_carrier', 'session_continuity_carrier'];

export const emptyOriginCounts = (): OriginCounts => ({
  handoff_continuity_carrier: 0,
  session_event_continuity_carrier: 0,
  session_continuity_carrier: 0,
  execution_write_projection: 0,
  replay_learning_episode: 0,
});

export type ExecOutcome = ExecutionOutcome;

/**
 * One execution seen by learning, whatever carried it: a write with execution evidence, a
 * session event, a session, a handoff, or a replay run.
 */
export interface Observation {
  /** Node id of the carrier, or `replay:<run_id>` for a replay episode. */
  source_id: string;
  origin: DistillationOrigin;
  task_kind: string | null;
  goal: string | null;
  terms: string[];
  steps: WorkflowStep[];
  target_files: string[];
  /** The carrier named its target files (an execution's `target_files`); otherwise they are the files its steps name, in order. */
  targets_named?: boolean;
  /** Null: the carrier says what was done but not how it ended (evidence of practice, weaker than a stated success). */
  outcome: ExecOutcome | null;
  run_id: string | null;
  playbook_id: string | null;
  error_signature: string | null;
  at: string;
}

/** An observation whose outcome is known: what workflows learn from. */
export type Attempt = Observation & { outcome: ExecOutcome };

/** A family's identity for matching: canonical terms with counts, kind and files. */
export interface FamilySignature {
  task_kind: string | null;
  term_counts: TermCounts;
  /** How many descriptions went into term_counts. */
  samples: number;
  files: string[];
}

export interface Actor {
  actor: string;
  at: string;
}
