import { createHash } from 'node:crypto';
import { analyze } from '../../retrieval';

/**
 * Task identity (contract.md §3): a normalised signature of what a task is about, so paraphrases
 * and re-runs of the same task meet. Built from goal/query text plus task_kind:
 *
 *   text → the retrieval analyzer (lowercase, accent folding, stop words, Porter2 stems, compound
 *   joins) → volatile tokens dropped (numbers, ids, hashes, versions) → sorted unique terms,
 *   plus a stable hash of task_kind and the terms.
 *
 * Using the recall analyzer means a signature term is exactly a term of the recall index, so
 * learning can look workflows up by signature terms in the same vocabulary.
 */

export const TASK_SIGNATURE_VERSION = 1;

export interface TaskSignature {
  version: typeof TASK_SIGNATURE_VERSION;
  /** Normalised task_kind (lowercase, spaces and dashes as underscores), or null. */
  task_kind: string | null;
  /** Sorted, unique, stemmed terms. */
  terms: string[];
  /** 16 hex chars of sha256("v1|<task_kind>|<terms joined by space>"): equal for equal signatures. */
  hash: string;
}

/** At most this many terms are kept (the rarest are not known here, so the first in sort order). */
const MAX_TERMS = 64;

const HEX_ID = /^[0-9a-f]{6,}$/;
const HAS_DIGIT = /\d/;
const ALL_DIGITS = /^\d+$/;

/**
 * A token that names one instance rather than the task: pure numbers ("42", "2024"), hex ids and
 * hashes ("9f86d081"), run/ticket ids mixing letters and digits ("r1a2b3c4", "pr1234",
 * "build4412"), single characters. Names with a few digits stay ("utf8", "s3", "e2e", "http2",
 * "sha256"): they name things, not instances.
 */
export function isVolatileToken(token: string): boolean {
  if (token.length <= 1) return true;
  if (ALL_DIGITS.test(token)) return true;
  if (!HAS_DIGIT.test(token)) return false;
  if (HEX_ID.test(token)) return true;
  const digits = token.replace(/\D/g, '').length;
  const alternations = (token.match(/[a-z]\d|\d[a-z]/g) ?? []).length;
  return digits >= 4 || alternations >= 3 || (digits >= 2 && token.length >= 7);
}

export function normaliseTaskKind(kind: string | null | undefined): string | null {
  if (!kind) return null;
  const k = kind
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return k === '' ? null : k;
}

/** The signature terms of a text (no task_kind). */
export function signatureTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const t of analyze(text)) if (!isVolatileToken(t)) terms.add(t);
  return [...terms].sort().slice(0, MAX_TERMS);
}

export function taskSignature(text: string, taskKind?: string | null): TaskSignature {
  const kind = normaliseTaskKind(taskKind);
  const terms = signatureTerms(text);
  const hash = createHash('sha256')
    .update(`v${TASK_SIGNATURE_VERSION}|${kind ?? ''}|${terms.join(' ')}`)
    .digest('hex')
    .slice(0, 16);
  return { version: TASK_SIGNATURE_VERSION, task_kind: kind, terms, hash };
}

/**
 * Jaccard similarity of two signatures' terms (0..1); 1 for identical term sets. A differing
 * task_kind (both set) halves it: the same words in another kind of task are a weaker match.
 * The learning family may build a richer measure on the same terms.
 */
export function signatureSimilarity(a: Pick<TaskSignature, 'terms' | 'task_kind'>, b: Pick<TaskSignature, 'terms' | 'task_kind'>): number {
  if (a.terms.length === 0 && b.terms.length === 0) return a.task_kind === b.task_kind ? 1 : 0;
  const bs = new Set(b.terms);
  let inter = 0;
  for (const t of a.terms) if (bs.has(t)) inter += 1;
  const union = a.terms.length + b.terms.length - inter;
  const j = union === 0 ? 0 : inter / union;
  return a.task_kind && b.task_kind && a.task_kind !== b.task_kind ? j / 2 : j;
}
