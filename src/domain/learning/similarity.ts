import { normaliseTaskKind, signatureTerms } from '../memory/task-signature';

/**
 * Task identity and similarity (docs/learning.md, "Similarity").
 *
 * A task is described by its terms: the memory family's task-signature terms (analyzer stems,
 * stop words and volatile tokens such as ids and numbers removed), without file-extension and
 * path fragments. Two descriptions are compared by an IDF-weighted cosine over those terms, where
 * IDF comes from the scope's own corpus of learned task families (so a word every family uses
 * counts little). Paraphrases that share no words meet through the encoder's vectors, not
 * through word lists. task_kind and shared files are separate signals, combined in score.ts.
 */

/** Path and language tokens that ride along with file names ("worker.ts" → worker, ts). */
const STRUCTURAL: ReadonlySet<string> = new Set([
  'ts',
  'tsx',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'py',
  'rs',
  'rb',
  'go',
  'java',
  'kt',
  'md',
  'json',
  'yaml',
  'yml',
  'toml',
  'src',
  'lib',
  'dist',
  'pkg',
]);

/** Whether a term is a file-extension or path fragment (dropped from task identity). */
export const isStructuralTerm = (term: string): boolean => STRUCTURAL.has(term);

export type TermCounts = Record<string, number>;

/** Task terms of a text: sorted, unique. */
export function taskTerms(text: string | null | undefined): string[] {
  if (!text) return [];
  return [...new Set(signatureTerms(text).filter((t) => !isStructuralTerm(t)))].sort();
}

/** The terms of everything a request says about its task (query text, goal), unique. */
export function requestTerms(...texts: (string | null | undefined)[]): string[] {
  const out = new Set<string>();
  for (const t of texts) for (const term of taskTerms(t)) out.add(term);
  return [...out].sort();
}

export { normaliseTaskKind };

/**
 * Document frequencies of terms over a corpus of task families (one document per family). Kept
 * incrementally: a family's terms are added when it is learned and replaced when it changes.
 */
export class TermStats {
  private readonly df = new Map<string, number>();
  private n = 0;
  private v = 0;

  get documents(): number {
    return this.n;
  }

  /**
   * Changes whenever a weight may have changed (a document added or removed, a document frequency
   * moved): values derived from weights (a family's vector norm) are valid while it stays the same.
   */
  get version(): number {
    return this.v;
  }

  add(terms: Iterable<string>): void {
    this.n += 1;
    this.v += 1;
    for (const t of terms) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  remove(terms: Iterable<string>): void {
    this.n = Math.max(0, this.n - 1);
    this.v += 1;
    for (const t of terms) this.dec(t);
  }

  /**
   * One document's terms changed from `before` to `after` (both without duplicates): only the
   * terms that came or went move, so a document that keeps its words leaves every weight, and
   * the version, as they were.
   */
  replace(before: readonly string[], after: readonly string[]): void {
    const old = new Set(before);
    const now = new Set(after);
    for (const t of old) if (!now.has(t)) this.dec(t), (this.v += 1);
    for (const t of now) if (!old.has(t)) this.df.set(t, (this.df.get(t) ?? 0) + 1), (this.v += 1);
  }

  private dec(t: string): void {
    const d = (this.df.get(t) ?? 0) - 1;
    if (d <= 0) this.df.delete(t);
    else this.df.set(t, d);
  }

  docFreq(term: string): number {
    return this.df.get(term) ?? 0;
  }

  /**
   * Smoothed IDF. A term no family has yet counts like a term one family has: a query word the
   * scope never saw should not outweigh everything else (it still lowers the cosine).
   */
  idf(term: string): number {
    const df = Math.max(1, this.docFreq(term));
    return Math.log(1 + (this.n + 1) / df);
  }

  /** Term weight: IDF. */
  weight(term: string): number {
    return this.idf(term);
  }
}

export type Vector = Map<string, number>;

/** A query's vector: one weight per distinct term. */
export function queryVector(terms: readonly string[], stats: TermStats): Vector {
  const v: Vector = new Map();
  for (const t of terms) v.set(t, stats.weight(t));
  return v;
}

/**
 * A family's vector from how many of its observations used each term: the square root of the
 * share keeps one odd phrasing from counting like the words every run used, without letting a
 * long family description drown a short query.
 */
export function familyVector(counts: TermCounts, observations: number, stats: TermStats): Vector {
  const v: Vector = new Map();
  const n = Math.max(1, observations);
  for (const [t, c] of Object.entries(counts)) {
    if (c <= 0) continue;
    v.set(t, Math.sqrt(Math.min(1, c / n)) * stats.weight(t));
  }
  return v;
}

export function norm(v: Vector): number {
  let s = 0;
  for (const w of v.values()) s += w * w;
  return Math.sqrt(s);
}

/** Cosine of two sparse vectors (0 when either is empty). */
export function cosine(a: Vector, b: Vector, normA = norm(a), normB = norm(b)): number {
  if (normA === 0 || normB === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) {
    const o = large.get(t);
    if (o !== undefined) dot += w * o;
  }
  return dot / (normA * normB);
}

/** Adds `terms` to a count map (one per observation). */
export function addTerms(counts: TermCounts, terms: readonly string[]): TermCounts {
  const out = { ...counts };
  for (const t of terms) out[t] = (out[t] ?? 0) + 1;
  return out;
}

/** Keeps the most used terms so a long-lived family's stored signature stays bounded. */
export function capTerms(counts: TermCounts, max = 96): TermCounts {
  const entries = Object.entries(counts);
  if (entries.length <= max) return counts;
  entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return Object.fromEntries(entries.slice(0, max));
}

/** Base name of a path, lower-cased ("src/worker.ts" → "worker.ts"). */
export function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return path.slice(i + 1).toLowerCase();
}

/** Whether two file lists share a file (same path, or same base name when one side is bare). */
export function filesOverlap(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  const full = new Set(a.map((p) => p.toLowerCase()));
  const bases = new Set(a.map(baseName));
  for (const p of b) {
    if (full.has(p.toLowerCase())) return true;
    const bare = !p.includes('/') && !p.includes('\\');
    if (bare && bases.has(p.toLowerCase())) return true;
    if (a.some((x) => !x.includes('/') && !x.includes('\\') && baseName(p) === x.toLowerCase())) return true;
  }
  return false;
}
