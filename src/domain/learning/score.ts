/**
 * How the similarity signals combine into one relevance score, and the thresholds that decide
 * what a surface may say (docs/learning.md, "Similarity" and "Thresholds"). Kept in one place so
 * planning, kickoff, tool selection and distillation cannot disagree about what "the same task"
 * means.
 */

import type { TaskKindMatch } from '../../model/learning/vocabulary';

export type KindSignal = TaskKindMatch;

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
  /** How `dense` and `dense_baseline` were computed and are judged (the embedder's calibration; default USE_DENSE). */
  dense_profile?: DenseProfile;
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
  /** A single recalled execution founds a workflow with a new one (distillation). */
  recall: 0.65,
  /** The best similar past task (past-tasks.ts similarity) is close enough for task start to act on. */
  task: 0.3,
} as const;

/**
 * What an equal task_kind adds. Agents send a handful of shared kinds (bugfix, feature, …), so a
 * kind narrows the field but does not name the task: with 0.45 (the bonus when every benchmark
 * family had a kind of its own) half of the unseen tasks asked with a shared kind got a first move;
 * with 0.15, 0.15 of them, for 0.50 instead of 0.56 file@1 on paraphrases (bench/learning/task-start.ts,
 * docs/benchmarks.md "Learning: task start").
 */
const KIND_BONUS = 0.15;
/**
 * The text score at which a task_kind match counts in full; below it the bonus shrinks in
 * proportion, so the kind strengthens what the words (or the encoder) found but never makes a
 * family actionable on its own (issue 28; docs/learning.md, "Task identity and similarity").
 */
const KIND_FULL_AT = 0.25;

/** What an equal task_kind adds to a family whose text score is `text` (full when it shares the request's file). */
export function kindBonus(text: number, files = false): number {
  return files ? KIND_BONUS : KIND_BONUS * Math.min(1, Math.max(0, text) / KIND_FULL_AT);
}
const KIND_PENALTY = 0.2;
const FILE_BONUS = 0.15;
const FILE_MISMATCH_PENALTY = 0.1;
const MIN_MERGE_TEXT = 0.25;

/**
 * The dense rule (docs/learning.md, "Dense vectors"). A family's dense signal needs both an
 * absolute score and a lead over the runner-up (the best family with a different first move):
 *
 *   dense = clamp((s − cosFloor) / cosSpan) · clamp((s − runner_up − leadFloor) / leadSpan)
 *
 * so only a family that clearly stands out gets dense credit, and a query that sits between two
 * families (or near everything, as vague or unseen tasks do) gets none. `s` and the constants
 * depend on the encoder (a DenseProfile, chosen by the embedder: vectors.ts, denseProfileFor):
 *
 * - USE_DENSE (the local Universal Sentence Encoder, and remote endpoints): `s` is the best
 *   cosine over the family's phrasings. Calibrated on bench/learning/families.ts amid ~300 noise
 *   workflows (bench/learning/dense-calibrate.ts): unseen tasks' best cosine is 0.44-0.75 but
 *   their lead is rarely above 0.03.
 * - MINILM_DENSE (LORE_EMBEDDINGS=onnx with all-MiniLM-L6-v2): `s` is hub-corrected (family-index.ts,
 *   `hub` scoring): the mean of the best phrasing cosine and the cosine to the phrasings'
 *   centroid, minus the family's mean cosine to every other embedded family. Families that
 *   resemble everything (workflows merged from many unrelated phrasings) otherwise win most
 *   queries. Calibrated the same way (the git history of docs/benchmarks.md, "Learning").
 *
 * Without a runner-up (a scope with one family), the lead is measured against the profile's
 * defaultBaseline.
 */
export interface DenseProfile {
  readonly name: string;
  /** max: best phrasing cosine; hub: hub-corrected mix of best phrasing and centroid cosine. */
  readonly scoring: 'max' | 'hub';
  readonly cosFloor: number;
  readonly cosSpan: number;
  readonly leadFloor: number;
  readonly leadSpan: number;
  readonly defaultBaseline: number;
}

export const USE_DENSE: DenseProfile = { name: 'use', scoring: 'max', cosFloor: 0.4, cosSpan: 0.25, leadFloor: 0.02, leadSpan: 0.04, defaultBaseline: 0.3 };
export const MINILM_DENSE: DenseProfile = { name: 'minilm-hub', scoring: 'hub', cosFloor: 0.14, cosSpan: 0.25, leadFloor: 0.04, leadSpan: 0.04, defaultBaseline: 0.1 };

/** MiniLM's rule on another encoder whose hub-corrected scores spread `by` times as wide. */
const scaled = (name: string, by: number): DenseProfile => ({
  name,
  scoring: 'hub',
  cosFloor: MINILM_DENSE.cosFloor * by,
  cosSpan: MINILM_DENSE.cosSpan * by,
  leadFloor: MINILM_DENSE.leadFloor * by,
  leadSpan: MINILM_DENSE.leadSpan * by,
  defaultBaseline: MINILM_DENSE.defaultBaseline * by,
});
/**
 * The catalog's other encoders (LORE_EMBEDDINGS_MODEL=bge-small-en-v1.5[-q] | e5-small-v2[-q]):
 * their hub-corrected scores sit closer together than MiniLM's, so MiniLM's constants are scaled
 * by the factor that answered the most held-out phrasings with no more unseen tasks
 * (bench/learning/simulate.ts --scale, fitted on the int8 models; docs/learning.md, "The default
 * encoder"). Both stay behind MiniLM on the learning benchmark.
 */
export const BGE_DENSE = scaled('bge-hub', 0.4);
export const E5_DENSE = scaled('e5-hub', 0.08);
export const DEFAULT_DENSE_BASELINE = USE_DENSE.defaultBaseline;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

export function denseSimilarity(cos: number, runnerUp: number | null | undefined, p: DenseProfile = USE_DENSE): number {
  const lead = cos - (runnerUp ?? p.defaultBaseline);
  return clamp01((cos - p.cosFloor) / p.cosSpan) * clamp01((lead - p.leadFloor) / p.leadSpan);
}

/**
 * The text part: the better of lexical alone and a dense-led blend. Fused, not gated: a family
 * with no shared words can still be found by the dense part, and a dense signal never lowers what
 * the words already say.
 */
export function textScore(s: Pick<Signals, 'lexical' | 'dense' | 'dense_baseline' | 'dense_profile'>): number {
  if (s.dense === null) return s.lexical;
  return Math.max(s.lexical, 0.3 * s.lexical + 0.7 * denseSimilarity(s.dense, s.dense_baseline, s.dense_profile));
}

/** Relevance of a learned family to a request (planning, kickoff, selection). */
export function relevance(s: Signals): number {
  // A family of a different task_kind than the caller named is found by its words only: the
  // dense signal alone (a paraphrase guess) does not outweigh what the caller said the task is.
  let r = s.kind === 'mismatch' ? s.lexical : textScore(s);
  if (s.kind === 'match') r += kindBonus(r, s.files);
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

/**
 * The most relevance (or merge score) a family can reach whose lexical cosine is at most
 * `lexicalMax`, that shares no file with the request and gets no dense credit: what the family
 * index's search (family-search.ts) may skip a family under. Kept beside the rules it bounds.
 */
export function relevanceCeiling(lexicalMax: number, kind: KindSignal): number {
  return Math.max(0, Math.min(1, lexicalMax + (kind === 'match' ? kindBonus(lexicalMax) : kind === 'mismatch' ? -KIND_PENALTY : 0)));
}

export function mergeCeiling(lexicalMax: number, kind: KindSignal): number {
  if (kind === 'mismatch' || lexicalMax < MIN_MERGE_TEXT) return 0;
  return Math.max(0, Math.min(1, lexicalMax + (kind === 'match' ? 0.25 : 0)));
}

/** Relevance of a same-kind family that shares no term or file and gets no dense credit (0: the kind alone is no evidence). */
export function kindOnlyRelevance(bothNameFiles: boolean): number {
  return relevance({ lexical: 0, dense: null, kind: 'match', files: false, files_disjoint: bothNameFiles });
}

export function kindSignal(a: string | null | undefined, b: string | null | undefined): KindSignal {
  if (!a || !b) return 'none';
  return a === b ? 'match' : 'mismatch';
}
