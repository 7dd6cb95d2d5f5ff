/**
 * How the similarity signals combine into one relevance score, and the thresholds that decide
 * what a surface may say (docs/learning.md, "Similarity" and "Thresholds"). Kept in one place so
 * planning, kickoff, tool selection and distillation cannot disagree about what "the same task"
 * means.
 */

export type KindSignal = 'match' | 'mismatch' | 'none';

export interface Signals {
  /** IDF-weighted cosine of canonical terms, 0..1. */
  lexical: number;
  /**
   * Best cosine between the query's embedding and the family's phrasings (each goal it was seen
   * with, and their concatenation), when an embedder is configured and both sides have vectors.
   */
  dense: number | null;
  /**
   * The runner-up: the best such cosine among families with a different first move. Sentence
   * encoders score unrelated texts far above 0, so a family counts by how far it leads (score.ts,
   * denseSimilarity).
   */
  dense_baseline?: number | null;
  /** task_kind: both given and equal, both given and different, or not comparable. */
  kind: KindSignal;
  /** The request's file (or the observation's files) is one of the family's files. */
  files: boolean;
  /** Both sides name files and none is shared: evidence of a different task. */
  files_disjoint?: boolean;
}

export const THRESHOLDS = {
  /** Listed in planning sections and tool ranking. */
  relevant: 0.3,
  /** Enough to drive first_action and a selected tool. */
  action: 0.4,
  /** An observation joins an existing family (distillation; feedback family resolution). */
  merge: 0.55,
  /** A single recalled execution (not a learned workflow) may still suggest a first move. */
  recall: 0.65,
  /**
   * Two workflows with different first steps closer than this are a tie: acting on either would
   * be a guess, so task start says so instead (first_action null, both listed as alternatives).
   */
  ambiguity: 0.05,
} as const;

const KIND_BONUS = 0.45;
const KIND_PENALTY = 0.2;
const FILE_BONUS = 0.15;
const FILE_MISMATCH_PENALTY = 0.1;
const MIN_MERGE_TEXT = 0.25;

/**
 * The dense rule (docs/learning.md, "Dense vectors"). A family's dense signal needs both an
 * absolute cosine and a lead over the runner-up (the best family with a different first move):
 *
 *   dense = clamp((cos − 0.40) / 0.25) · clamp((cos − runner_up − 0.02) / 0.04)
 *
 * so only a family that clearly stands out gets dense credit, and a query that sits between two
 * families (or near everything, as vague or unseen tasks do) gets none. Calibrated with the local
 * sentence encoder on bench/learning/families.ts amid ~300 noise workflows
 * (bench/learning/dense-calibrate.ts): unseen tasks' best cosine is 0.44-0.75 but their lead is
 * rarely above 0.03, while a paraphrase of a learned task that leads by ≥ 0.06 at ≥ 0.55 is
 * right far more often than not. Without a runner-up (a scope with one family), the lead is
 * measured against DEFAULT_DENSE_BASELINE.
 */
const DENSE_COS_FLOOR = 0.4;
const DENSE_COS_SPAN = 0.25;
const DENSE_LEAD_FLOOR = 0.02;
const DENSE_LEAD_SPAN = 0.04;
export const DEFAULT_DENSE_BASELINE = 0.3;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

export function denseSimilarity(cos: number, runnerUp: number | null | undefined): number {
  const lead = cos - (runnerUp ?? DEFAULT_DENSE_BASELINE);
  return clamp01((cos - DENSE_COS_FLOOR) / DENSE_COS_SPAN) * clamp01((lead - DENSE_LEAD_FLOOR) / DENSE_LEAD_SPAN);
}

/**
 * The text part: the better of lexical alone and a dense-led blend. Fused, not gated: a family
 * with no shared words can still be found by the dense part, and a dense signal never lowers what
 * the words already say.
 */
export function textScore(s: Pick<Signals, 'lexical' | 'dense' | 'dense_baseline'>): number {
  if (s.dense === null) return s.lexical;
  return Math.max(s.lexical, 0.3 * s.lexical + 0.7 * denseSimilarity(s.dense, s.dense_baseline));
}

/** Relevance of a learned family to a request (planning, kickoff, selection). */
export function relevance(s: Signals): number {
  let r = textScore(s);
  if (s.kind === 'match') r += KIND_BONUS;
  if (s.kind === 'mismatch') r -= KIND_PENALTY;
  if (s.files) r += FILE_BONUS;
  if (s.files_disjoint) r -= FILE_MISMATCH_PENALTY;
  return Math.max(0, Math.min(1, r));
}

/**
 * Whether an observation belongs to an existing family. Stricter than relevance: a different
 * task_kind never merges, and neither do task_kind and files without shared wording, so families
 * do not swallow every task of a broad kind.
 */
export function mergeScore(s: Signals): number {
  if (s.kind === 'mismatch') return 0;
  const text = textScore(s);
  // Some shared wording is required: the same kind of task in the same file is not yet the same
  // task (a bugfix kind touching one module covers many problems), and families that merged on
  // kind and file alone snowball into one family per kind.
  if (text < MIN_MERGE_TEXT) return 0;
  let r = text;
  if (s.kind === 'match') r += 0.25;
  if (s.files) r += 0.3;
  // Executions of one task touch its files: two that name only different files rarely are one task.
  if (s.files_disjoint) r -= 0.3;
  return Math.max(0, Math.min(1, r));
}

export function kindSignal(a: string | null | undefined, b: string | null | undefined): KindSignal {
  if (!a || !b) return 'none';
  return a === b ? 'match' : 'mismatch';
}
