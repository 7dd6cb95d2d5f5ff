/**
 * A BERTScore-like token-alignment score between a query and a learned family's phrasings, tried
 * (2026-11-23) as a check on dense-led first actions and not kept (docs/benchmarks.md, "Learning",
 * "token alignment"). Each text is run alone through the onnx encoder; its word pieces' contextual
 * vectors (the model's last hidden state) are centred on the mean of every token of the query and
 * the family (contextual vectors share a large common direction, so raw cosines are all high) and
 * normalised. Recall: each query piece's best cosine to any family piece, weighted by the piece's
 * IDF over the scope's workflow phrasings; precision: the same from the family's side; the score
 * is their harmonic mean (F1). Punctuation and pieces every phrasing has weigh nothing.
 */
import { readFileSync } from 'node:fs';
import type { Embedder } from '../../src/retrieval/embedders/types';
import { resolveOnnxModel } from '../../src/retrieval/embedders/onnx';
import { wordPieceTokenizer, type WordPieceTokenizer } from '../../src/retrieval/embedders/wordpiece';

export interface TokenVectors {
  pieces: string[];
  vectors: Float32Array[];
}

const punctuation = (p: string) => /^[^\p{L}\p{N}#]+$/u.test(p);

export async function tokenizerOf(model: string): Promise<WordPieceTokenizer> {
  return wordPieceTokenizer(JSON.parse(readFileSync((await resolveOnnxModel(model)).tokenizer, 'utf8')));
}

/** IDF of word pieces over documents (each a set of phrasings): ln((N+1)/(df+1)); punctuation 0. */
export function pieceIdf(tok: WordPieceTokenizer, docs: string[][]): (piece: string) => number {
  const df = new Map<string, number>();
  for (const d of docs) for (const p of new Set(d.flatMap((t) => tok.encode(t, 128).slice(1, -1).map((id) => tok.piece(id))))) df.set(p, (df.get(p) ?? 0) + 1);
  return (p) => (punctuation(p) ? 0 : Math.log((docs.length + 1) / ((df.get(p) ?? 0) + 1)));
}

/** Token vectors of texts, each run alone through the encoder (cached by text). */
export function tokenCache(emb: Embedder): (text: string) => Promise<TokenVectors> {
  const cache = new Map<string, TokenVectors>();
  return async (text) => {
    let t = cache.get(text);
    if (!t) {
      const e = await emb.embedTokens!(text);
      cache.set(text, (t = { pieces: e.tokens.map((x) => x.piece), vectors: e.tokens.map((x) => x.vector) }));
    }
    return t;
  };
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
};

function centred(vs: Float32Array[], mean: Float32Array): Float32Array[] {
  return vs.map((v) => {
    const c = Float32Array.from(v, (x, i) => x - mean[i]!);
    const n = Math.sqrt(dot(c, c)) || 1;
    return c.map((x) => x / n);
  });
}

/** idf-weighted mean over `from` of each piece's best cosine to any vector of `to`. */
function directed(from: Float32Array[], pieces: string[], to: Float32Array[], idf: (p: string) => number): number {
  let s = 0;
  let w = 0;
  from.forEach((v, i) => {
    const wi = idf(pieces[i]!);
    if (wi <= 0) return;
    let best = -1;
    for (const u of to) best = Math.max(best, dot(v, u));
    s += wi * best;
    w += wi;
  });
  return w > 0 ? s / w : 0;
}

/** Centred, IDF-weighted token-alignment F1 of a query against a family's phrasings. */
export function tokenAlignment(query: TokenVectors, family: TokenVectors[], idf: (p: string) => number): number {
  const all = [...query.vectors, ...family.flatMap((f) => f.vectors)];
  if (query.vectors.length === 0 || all.length === query.vectors.length) return 0;
  const mean = new Float32Array(all[0]!.length);
  for (const v of all) for (let i = 0; i < v.length; i += 1) mean[i]! += v[i]! / all.length;
  const q = centred(query.vectors, mean);
  const f = centred(family.flatMap((x) => x.vectors), mean);
  const recall = directed(q, query.pieces, f, idf);
  const precision = directed(f, family.flatMap((x) => x.pieces), q, idf);
  return recall + precision > 0 ? (2 * recall * precision) / (recall + precision) : 0;
}
