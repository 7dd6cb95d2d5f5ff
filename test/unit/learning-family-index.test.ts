import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FamilyIndex, unitVector, type FamilyQuery } from '../../src/domain/learning/family-index';
import { DENSE_EXACT_LIMIT } from '../../src/domain/learning/family-dense';
import { MINILM_DENSE, THRESHOLDS, USE_DENSE } from '../../src/domain/learning/score';
import type { FamilySignature } from '../../src/domain/learning/types';
import { ReferenceFamilyIndex } from '../helpers/reference-family-index';

/**
 * The family index's search reads only the postings a request can match through, and stops once
 * no unseen family can reach the threshold or the top `limit` (docs/learning.md, "Learning
 * index"). Its answers must be exactly those of scoring every family: compared here with the
 * index as it was before (test/helpers/reference-family-index.ts) on random scopes, through puts,
 * replacements and removals, for every way the code searches.
 */

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A vocabulary with a few words every family uses (generic task words among them) and a long tail.
const COMMON = ['fix', 'test', 'add', 'bug', 'handler', 'service'];
const VOCAB = [...COMMON, ...Array.from({ length: 90 }, (_, i) => `w${i}`)];
const KINDS = ['bugfix', 'feature', 'refactor', 'deploy_api'];
const FILES = ['src/a/worker.ts', 'src/b/worker.ts', 'worker.ts', 'lib/x/retry.js', 'retry.js', 'app/main.py', 'README.md', 'src/a/config.ts', 'config.ts', 'docs/Guide.MD'];

interface Fam {
  moves: string;
  tier: 'live' | 'archive';
  state: 'stable' | 'candidate';
}
const classOf = (f: Fam) => `${f.tier}:${f.state}`;

function randomSig(r: () => number): FamilySignature {
  const samples = 1 + Math.floor(r() * 5);
  const counts: Record<string, number> = {};
  const n = 1 + Math.floor(r() * 14);
  for (let i = 0; i < n; i += 1) {
    const t = r() < 0.3 ? COMMON[Math.floor(r() * COMMON.length)]! : VOCAB[Math.floor(r() ** 1.6 * VOCAB.length)]!;
    counts[t] = Math.min(samples, (counts[t] ?? 0) + 1 + Math.floor(r() * 2));
  }
  if (r() < 0.05) counts.zero = 0; // a stored count of 0: a key, but no weight
  const files = r() < 0.3 ? [] : Array.from({ length: 1 + Math.floor(r() * 2) }, () => FILES[Math.floor(r() * FILES.length)]!);
  return { task_kind: r() < 0.2 ? null : KINDS[Math.floor(r() * KINDS.length)]!, term_counts: counts, samples, files: [...new Set(files)] };
}

function randomFam(r: () => number): Fam {
  return { moves: ['read|a', 'edit|b', 'bash|c'][Math.floor(r() * 3)]!, tier: r() < 0.15 ? 'archive' : 'live', state: r() < 0.4 ? 'stable' : 'candidate' };
}

function randomVector(r: () => number, dim: number, centre?: Float32Array): Float32Array {
  return unitVector(Array.from({ length: dim }, (_, i) => (centre ? centre[i]! : 0) + (r() - 0.5) * (centre ? 0.8 : 2)));
}

function randomQuery(r: () => number): FamilyQuery {
  const terms = Array.from({ length: Math.floor(r() * 7) }, () => (r() < 0.1 ? 'unseen' : VOCAB[Math.floor(r() ** 1.4 * VOCAB.length)]!));
  const kind = r() < 0.35 ? null : r() < 0.1 ? 'chore' : KINDS[Math.floor(r() * KINDS.length)]!;
  const files = r() < 0.5 ? [] : [r() < 0.8 ? FILES[Math.floor(r() * FILES.length)]! : 'src/c/worker.ts'];
  return { terms, task_kind: kind, files };
}

/** Every search the code runs (distillation, family resolution, feedback, planner, patterns), plus the unfiltered ones tests use. */
const SEARCHES: { name: string; opts: Parameters<FamilyIndex<Fam>['search']>[1] }[] = [
  { name: 'merge, best', opts: { minScore: THRESHOLDS.merge, merge: true, limit: 1 } },
  { name: 'merge, best 3', opts: { minScore: THRESHOLDS.merge, merge: true, limit: 3 } },
  { name: 'relevant, all', opts: { minScore: THRESHOLDS.relevant } },
  { name: 'relevant, top 20', opts: { minScore: THRESHOLDS.relevant, limit: 20 } },
  { name: 'action, all', opts: { minScore: THRESHOLDS.action } },
  { name: 'planner live', opts: { minScore: THRESHOLDS.relevant, limit: 10, include: (c) => c.startsWith('live'), boost: (c) => (c.endsWith('stable') ? 0.05 : 0) } },
  { name: 'planner archived', opts: { minScore: THRESHOLDS.relevant, limit: 10, include: (c) => c.startsWith('archive'), boost: (c) => (c.endsWith('stable') ? 0.05 : 0) } },
  { name: 'top 3 of 0.8', opts: { minScore: 0.8, limit: 3 } },
  { name: 'everything', opts: { minScore: 0 } },
];

function compare(index: FamilyIndex<Fam>, ref: ReferenceFamilyIndex<Fam>, q: FamilyQuery, label: string): number {
  let hits = 0;
  for (const s of SEARCHES) {
    const got = index.search(q, s.opts);
    const want = ref.search(q, s.opts);
    assert.deepEqual(
      got.map((h) => [h.id, h.score, h.signals]),
      want.map((h) => [h.id, h.score, h.signals]),
      `${label}, ${s.name}: ${JSON.stringify(q, (_k, v) => (v instanceof Float32Array ? '[vector]' : v))}`,
    );
    hits += got.length;
  }
  return hits;
}

function build(seed: number, n: number, dim = 0, profile = USE_DENSE) {
  const r = rng(seed);
  const moveKey = (f: Fam) => f.moves;
  const index = new FamilyIndex<Fam>(undefined, moveKey, classOf);
  const ref = new ReferenceFamilyIndex<Fam>(undefined, moveKey, classOf);
  index.denseProfile = profile;
  ref.denseProfile = profile;
  const centres = Array.from({ length: 12 }, () => randomVector(r, Math.max(1, dim)));
  const put = (id: string) => {
    const sig = randomSig(r);
    const fam = randomFam(r);
    const vectors = dim > 0 && r() < 0.8 ? Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomVector(r, dim, centres[Math.floor(r() * centres.length)])) : undefined;
    index.put(id, sig, fam, vectors);
    ref.put(id, sig, fam, vectors);
  };
  for (let i = 0; i < n; i += 1) put(`f${String(Math.floor(r() * 1e6)).padStart(6, '0')}-${i}`);
  return { r, index, ref, put, centres };
}

describe('learning: the family index search agrees with scoring every family', () => {
  it('lexical: random scopes, every kind of search, through replacements and removals', () => {
    for (const seed of [1, 2]) {
      const { r, index, ref, put } = build(seed, 400);
      let hits = 0;
      for (let i = 0; i < 100; i += 1) hits += compare(index, ref, randomQuery(r), `seed ${seed} query ${i}`);
      assert.equal(index.size, 400);
      // Families change (new observations, promotion, archiving) and go.
      const names = [...(index as unknown as { docs: Map<string, unknown> }).docs.keys()];
      for (let i = 0; i < 120; i += 1) put(names[Math.floor(r() * names.length)]!);
      for (let i = 0; i < 60; i += 1) {
        const id = names[Math.floor(r() * names.length)]!;
        index.remove(id);
        ref.remove(id);
      }
      for (let i = 0; i < 100; i += 1) hits += compare(index, ref, randomQuery(r), `seed ${seed} after changes, query ${i}`);
      assert.ok(hits > 1000, `the searches found something to compare (${hits} hits)`);
    }
  });

  it('dense (exact scan): every profile, with and without words', () => {
    for (const [seed, profile] of [
      [4, USE_DENSE],
      [5, MINILM_DENSE],
    ] as const) {
      const { r, index, ref, centres } = build(seed, 300, 8, profile);
      for (let i = 0; i < 80; i += 1) {
        const q = randomQuery(r);
        const vector = randomVector(r, 8, r() < 0.7 ? centres[Math.floor(r() * centres.length)] : undefined);
        compare(index, ref, { ...q, vector }, `seed ${seed} (${profile.name}) query ${i}`);
        compare(index, ref, { terms: [], task_kind: null, files: [], vector }, `seed ${seed} (${profile.name}) vector only ${i}`);
      }
    }
  });

  it('dense beyond the exact scan: inverted lists find the leader nearly always, and forget removed families', () => {
    const { r, index, ref, centres } = build(6, DENSE_EXACT_LIMIT + 600, 16);
    let same = 0;
    let total = 0;
    for (let i = 0; i < 200; i += 1) {
      const vector = randomVector(r, 16, centres[Math.floor(r() * centres.length)]);
      const q = { terms: [] as string[], task_kind: null, files: [] as string[], vector };
      const got = index.search(q, { minScore: 0.05, limit: 1 })[0]?.id;
      const want = ref.search(q, { minScore: 0.05, limit: 1 })[0]?.id;
      total += 1;
      if (got === want) same += 1;
    }
    assert.ok(same / total >= 0.9, `top family agrees in ${same} of ${total}`);
    const all = [...(index as unknown as { docs: Map<string, unknown> }).docs.keys()];
    for (const id of all.slice(0, 1500)) index.remove(id);
    for (let i = 0; i < 50; i += 1) {
      const vector = randomVector(r, 16, centres[Math.floor(r() * centres.length)]);
      for (const h of index.search({ terms: [], task_kind: null, files: [], vector }, { minScore: 0.01 })) assert.ok(!all.slice(0, 1500).includes(h.id));
    }
  });

  it('a family that keeps its words leaves the term statistics (and cached norms) as they were', () => {
    const index = new FamilyIndex<string>();
    const sig = (counts: Record<string, number>, samples = 1): FamilySignature => ({ task_kind: null, term_counts: counts, samples, files: [] });
    index.put('a', sig({ retry: 1, backoff: 1 }), 'a');
    index.put('b', sig({ retry: 1, cursor: 1 }), 'b');
    const v = index.stats.version;
    index.put('a', sig({ retry: 2, backoff: 1 }, 2), 'a');
    assert.equal(index.stats.version, v, 'same words: no new version');
    index.put('a', sig({ retry: 2, backoff: 1, jitter: 1 }, 3), 'a');
    assert.ok(index.stats.version > v, 'a new word moves the statistics');
    assert.equal(index.stats.docFreq('jitter'), 1);
    assert.equal(index.stats.documents, 2);
  });
});
