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
  /** Cosine of goal embeddings when an embedder is configured and both sides have one. */
  dense: number | null;
  /**
   * The query's mean cosine to every family of the scope: sentence-encoder cosines of unrelated
   * texts are far from 0 and vary by query, so a family counts by how far it stands out.
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
 * A family's dense signal is its cosine above the query's baseline (its mean cosine to the
 * scope's families; a fixed 0.3 while the scope has too few), mapped onto 0..1: measured with
 * the local sentence encoder, paraphrases of one task stand 0.2-0.4 above the baseline, unrelated
 * tasks within about 0.1 of it (docs/learning.md).
 */
const DENSE_MARGIN_FLOOR = 0.1;
const DENSE_MARGIN_SPAN = 0.25;
export const DEFAULT_DENSE_BASELINE = 0.3;

export function denseSimilarity(cos: number, baseline: number | null | undefined): number {
  const margin = cos - (baseline ?? DEFAULT_DENSE_BASELINE);
  return Math.min(1, Math.max(0, (margin - DENSE_MARGIN_FLOOR) / DENSE_MARGIN_SPAN));
}

/** The text part: lexical alone, or the better of lexical and a dense-led blend. */
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
