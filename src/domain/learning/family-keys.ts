import { baseName } from './similarity';

/**
 * The keys the family index finds families by (docs/learning.md, "Learning index"), and the small
 * structures that hold them. Every key is an exact match, so a lookup answers exactly the families
 * a signal can be non-zero for:
 *
 * - `t:<term>`: every family that used the term; `kt:<kind>\x01<term>`: the same within one
 *   task_kind (`kt:\x01<term>` for families without one), so a request that names its kind reads
 *   only the postings of families it can match or merge with;
 * - `p:<path>` (every file, lower-cased), `b:<base name>` (every file) and `n:<name>` (files named
 *   without a directory): a request file shares a file with a family exactly when one of its keys
 *   is one of the family's (similarity.ts filesOverlap).
 *
 * A new evidence source adds its keys here (keysOf / fileKeysOf) and its bound in family-index.ts.
 */

export const termKey = (t: string) => `t:${t}`;
export const kindTermKey = (kind: string | null, t: string) => `kt:${kind ?? ''}\u0001${t}`;

const bare = (p: string) => !p.includes('/') && !p.includes('\\');

/** A family's file keys. */
export function fileKeysOf(files: readonly string[]): string[] {
  const out = new Set<string>();
  for (const f of files) {
    const lower = f.toLowerCase();
    out.add(`p:${lower}`);
    out.add(`b:${baseName(f)}`);
    if (bare(f)) out.add(`n:${lower}`);
  }
  return [...out];
}

/** The keys under which the families sharing a file with `files` (a request's) are found. */
export function fileQueryKeys(files: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of files) {
    out.add(`p:${p.toLowerCase()}`);
    if (bare(p)) out.add(`b:${p.toLowerCase()}`);
    out.add(`n:${baseName(p)}`);
  }
  return [...out];
}

/** Key → ids, each with a number (a term posting holds the family's share of the term). */
export class Postings {
  private readonly map = new Map<string, Map<string, number>>();

  get(key: string): ReadonlyMap<string, number> | undefined {
    return this.map.get(key);
  }

  private add(key: string, id: string, value: number): void {
    let m = this.map.get(key);
    if (!m) this.map.set(key, (m = new Map()));
    m.set(id, value);
  }

  private delete(key: string, id: string): void {
    const m = this.map.get(key);
    if (!m) return;
    m.delete(id);
    if (m.size === 0) this.map.delete(key);
  }

  /** Moves `id` from the keys in `before` to those in `after` (with their values), touching only the keys that differ or whose value changed. */
  replace(id: string, before: readonly string[], after: ReadonlyMap<string, number>): void {
    for (const k of before) if (!after.has(k)) this.delete(k, id);
    for (const [k, v] of after) if (this.map.get(k)?.get(id) !== v) this.add(k, id, v);
  }
}

/** Ids in ascending order (the order ties are broken in), for walks that need only the first few. */
export class SortedIds {
  private readonly ids: string[] = [];

  get size(): number {
    return this.ids.length;
  }

  private at(id: string): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(id: string): void {
    const i = this.at(id);
    if (this.ids[i] !== id) this.ids.splice(i, 0, id);
  }

  delete(id: string): void {
    const i = this.at(id);
    if (this.ids[i] === id) this.ids.splice(i, 1);
  }

  /** The first `n` ids not in `skip`. */
  first(n: number, skip: ReadonlySet<string>): string[] {
    const out: string[] = [];
    for (const id of this.ids) {
      if (out.length >= n) break;
      if (!skip.has(id)) out.push(id);
    }
    return out;
  }

  values(): readonly string[] {
    return this.ids;
  }
}

/**
 * Families of each task_kind by (whether they name files, class), in id order: what a request of
 * that kind lists when it shares nothing else with them (family-index.ts fillKind). Also counts
 * the families of each class (a search's boost and include are by class).
 */
export class KindBuckets {
  private readonly buckets = new Map<string, SortedIds>();
  private readonly ofKind = new Map<string, Set<string>>();
  private readonly classCounts = new Map<string, number>();

  static key(kind: string | null, hasFiles: boolean, cls: string): string | null {
    return kind ? `${kind}\u0001${hasFiles ? 1 : 0}\u0001${cls}` : null;
  }

  add(id: string, kind: string | null, bucket: string | null, cls: string): void {
    this.classCounts.set(cls, (this.classCounts.get(cls) ?? 0) + 1);
    if (!bucket || !kind) return;
    let ids = this.buckets.get(bucket);
    if (!ids) {
      this.buckets.set(bucket, (ids = new SortedIds()));
      let set = this.ofKind.get(kind);
      if (!set) this.ofKind.set(kind, (set = new Set()));
      set.add(bucket);
    }
    ids.add(id);
  }

  delete(id: string, kind: string | null, bucket: string | null, cls: string): void {
    const c = (this.classCounts.get(cls) ?? 1) - 1;
    if (c <= 0) this.classCounts.delete(cls);
    else this.classCounts.set(cls, c);
    const ids = bucket ? this.buckets.get(bucket) : undefined;
    if (!ids || !kind) return;
    ids.delete(id);
    if (ids.size === 0) {
      this.buckets.delete(bucket!);
      this.ofKind.get(kind)?.delete(bucket!);
    }
  }

  /** The classes of the indexed families. */
  classes(): IterableIterator<string> {
    return this.classCounts.keys();
  }

  /** The buckets of a kind: whether their families name files, their class, and their ids. */
  *of(kind: string): IterableIterator<{ files: boolean; cls: string; ids: SortedIds }> {
    for (const key of this.ofKind.get(kind) ?? []) {
      const [, files, cls] = key.split('\u0001') as [string, string, string];
      yield { files: files === '1', cls, ids: this.buckets.get(key)! };
    }
  }
}
