import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/module';
import type { FamilyQuery } from './family-index';
import { observationOf } from './observe';
import { mergeScore, relevance, type Signals } from './score';
import type { ScopeLearning } from './scope-state';
import { baseName } from './similarity';
import type { Attempt, FamilySignature, Observation } from './types';

/**
 * Executions seen once are not stored as learned objects (that would double the store for every
 * one-off task); they are found again through the memory family's full-text index when a similar
 * task comes along, to pair a second execution into a new workflow (task start finds past tasks
 * its own way: past-tasks.ts). The full-text query is the task's words and its files' names; the
 * hits are then scored with learning's own similarity.
 */

export interface SimilarExecution {
  node_id: string;
  obs: Attempt;
  score: number;
  signals: Signals;
}

const CANDIDATES = 12;

/** The full-text query of a task: its words and the names of its files. */
function searchText(q: FamilyQuery, text: string | null): string {
  return [text ?? q.terms.join(' '), ...q.files.map(baseName)].join(' ');
}

export function observationSignature(o: Observation): FamilySignature {
  return {
    task_kind: o.task_kind,
    term_counts: Object.fromEntries(o.terms.map((t) => [t, 1])),
    samples: 1,
    files: [...new Set([...o.target_files, ...o.steps.map((s) => s.file_path).filter((f): f is string => !!f)])],
  };
}

export async function findSimilarExecutions(
  memory: MemoryServices,
  ref: ScopeRef,
  state: ScopeLearning,
  q: FamilyQuery & { text: string | null },
  opts: { exclude?: ReadonlySet<string>; minScore: number; merge: boolean; limit?: number },
): Promise<SimilarExecution[]> {
  const text = searchText(q, q.text);
  if (text.trim() === '') return [];
  // BM25 alone: the query already names the files, and the hits are re-scored
  // below, so recall's feedback expansion and sequence context would only cost time (the learning
  // quality benchmark gives the same figures without them; docs/benchmarks.md).
  const hits = memory.index.search(ref.tenant_id, ref.scope, { text, vector: null, limit: CANDIDATES, filter: {}, plain: true });
  const ids = hits.map((h) => h.docId).filter((id) => !opts.exclude?.has(id));
  if (ids.length === 0) return [];
  // Recently seen executions need no store read; the rest are loaded (one query).
  const known = ids.filter((i) => state.recentObservations.has(i));
  const loaded = await memory.nodes(ref).getMany(
    ids.filter((i) => !state.recentObservations.has(i)),
    { access: false },
  );
  const candidates: { id: string; obs: Observation | null }[] = [
    ...known.map((i) => ({ id: i, obs: state.recentObservations.get(i)! })),
    ...loaded.map((n) => ({ id: n.id, obs: observationOf(n, { tools: state.toolNames }) })),
  ];
  const out: SimilarExecution[] = [];
  for (const c of candidates) {
    if (!c.obs || c.obs.outcome !== 'success') continue;
    const signals = state.workflows.signals(q, observationSignature(c.obs), null);
    const score = opts.merge ? mergeScore(signals) : relevance(signals);
    if (score >= opts.minScore) out.push({ node_id: c.id, obs: { ...c.obs, outcome: c.obs.outcome }, score, signals });
  }
  out.sort((a, b) => b.score - a.score || (a.node_id < b.node_id ? 1 : -1));
  return out.slice(0, opts.limit ?? 5);
}
