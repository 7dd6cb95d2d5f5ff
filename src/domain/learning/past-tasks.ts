import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/module';
import { observationOf } from './observe';
import type { ScopeLearning } from './scope-state';
import type { Observation } from './types';

/**
 * The past tasks most like a new one (docs/learning.md, "Task start"): every execution the scope
 * remembers is evidence, found through the memory family's recall index — BM25 over what each
 * write said (its goal, its text, the files it names) and, when both sides have one, the sentence
 * encoder's vector — and read back as learning's observations (steps, files, outcome).
 *
 * Candidates are the recall index's best hits (BM25, and cosine when vectors exist); their
 * similarity is on a 0..1 scale that means the same in every scope:
 * - lexical: the share of the query's information the past task holds (Σ idf of the query terms it
 *   contains over Σ idf of them all; LexicalIndex.coverage);
 * - dense: how much closer the past task's vector is to the query than the background (the mean
 *   cosine of the query to a sample of the scope's vectors), on the rest of the way to 1. Encoders
 *   differ in where unrelated texts sit (0.1 for one, 0.5 for another); the background is read off
 *   the scope itself;
 * - sim = the lexical part, raised to the mean of both when the vectors agree more than the words:
 *   vectors improve an answer and never gate it (a past task whose vector is not computed yet, or
 *   a query right after a burst of writes, is found by its words alone, as well as it would be
 *   with vectors that add nothing).
 */

export interface PastTask {
  node_id: string;
  obs: Observation;
  /** 0..1, see above. */
  sim: number;
  lexical: number;
  dense: number | null;
}

export interface PastTaskQuery {
  text: string;
  vector: Float32Array | null;
}

/** Hits read from the recall index (each list, lexical and vector, when both are used). */
const CANDIDATES = 40;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Observations of the given nodes: from the scope's recent ones, the rest read from the store in one query. */
async function observationsOf(memory: MemoryServices, ref: ScopeRef, state: ScopeLearning, ids: string[]): Promise<Map<string, Observation>> {
  const out = new Map<string, Observation>();
  const missing: string[] = [];
  for (const id of ids) {
    const o = state.recentObservations.get(id);
    if (o) out.set(id, o);
    else if (!state.notObservations.has(id)) missing.push(id);
  }
  if (missing.length > 0) {
    for (const n of await memory.nodes(ref).getMany(missing, { access: false })) {
      const o = observationOf(n, { tools: state.toolNames });
      if (o) {
        out.set(n.id, o);
        state.rememberObservation(n.id, o);
      } else state.notObservations.add(n.id);
    }
  }
  return out;
}

export async function findPastTasks(memory: MemoryServices, ref: ScopeRef, state: ScopeLearning, q: PastTaskQuery): Promise<PastTask[]> {
  if (q.text.trim() === '') return [];
  const { tenant_id: tenant, scope } = ref;
  const terms = memory.index.queryTerms(tenant, scope, q.text);
  if (terms.length === 0) return [];
  const vector = q.vector && memory.index.vectorDim(tenant, scope) === q.vector.length ? q.vector : null;
  const hits = memory.index.search(tenant, scope, { text: q.text, vector, limit: CANDIDATES * (vector ? 2 : 1), filter: {}, plain: true });
  if (hits.length === 0) return [];
  const ids = hits.map((h) => h.docId);
  const { scores: cosines, background } = vector ? memory.index.cosines(tenant, scope, vector, ids) : { scores: new Map<string, number>(), background: 0 };
  const obs = await observationsOf(memory, ref, state, ids);
  const out: PastTask[] = [];
  for (const id of ids) {
    const o = obs.get(id);
    if (!o) continue;
    const lexical = memory.index.coverage(tenant, scope, id, terms);
    const cos = cosines.get(id);
    const dense = cos === undefined ? null : clamp01((cos - background) / (1 - background || 1));
    const sim = dense === null ? lexical : Math.max(lexical, (lexical + dense) / 2);
    if (sim > 0) out.push({ node_id: id, obs: o, sim, lexical, dense });
  }
  // Equal similarity: the more recent task first (node ids are time-ordered).
  out.sort((a, b) => b.sim - a.sim || (a.node_id < b.node_id ? 1 : -1));
  return out;
}

/** A file's name without its folders and extension ("lib/contentTypeParser.js" → "contentTypeParser"). */
const nameOf = (file: string) => (file.split(/[\\/]/).pop() ?? file).replace(/\.[A-Za-z0-9]+$/, '');

/**
 * How much of a file's name the task's words mention: Σ idf of the name's terms that are among
 * the task's terms over Σ idf of the name's terms (the recall index's analysis: stems, camelCase
 * and snake_case split), 0..1. "deprecate Reply#getResponseTime()" mentions all of reply.js.
 */
export function nameMatcher(memory: MemoryServices, ref: ScopeRef, text: string): (file: string) => number {
  const query = new Set(memory.index.queryTerms(ref.tenant_id, ref.scope, text).map((t) => t.term));
  const cache = new Map<string, number>();
  return (file) => {
    const name = nameOf(file);
    let share = cache.get(name);
    if (share === undefined) {
      const terms = memory.index.queryTerms(ref.tenant_id, ref.scope, name);
      const total = terms.reduce((s, t) => s + t.idf, 0);
      share = total > 0 ? terms.filter((t) => query.has(t.term)).reduce((s, t) => s + t.idf, 0) / total : 0;
      cache.set(name, share);
    }
    return share;
  };
}
