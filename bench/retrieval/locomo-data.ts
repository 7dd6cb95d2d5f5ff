// LoCoMo loading and metrics, mirroring ../shared/bench/locomo-recall.mjs exactly:
// one document per dialogue turn, text `[${date}] ${speaker}: ${text}` plus
// ` (image: ${blip_caption})`, evidence = normalised dia_ids, categories 1-4 only.
// The data is read at run time from the shared folder; nothing is copied into the repo.

import fs from 'node:fs';
import path from 'node:path';
import { sharedDir } from '../cli';

// The shared folder sits beside the repository (LORE_SHARED_DIR overrides it); LOCOMO_DIR overrides both.
export const defaultDataDir = (): string => process.env.LOCOMO_DIR ?? path.join(sharedDir(), 'data', 'locomo');

export interface Turn {
  dia_id: string;
  session: number;
  speaker: string;
  date: string;
  utterance: string;
  caption?: string;
  text: string;
}

export interface Question {
  idx: number;
  question: string;
  category: number;
  evidence: string[];
}

export interface Conversation {
  conv: string;
  turns: Turn[];
  questions: Question[];
}

export function normalizeEvidence(raw: unknown): string[] {
  const out: string[] = [];
  for (const item of Array.isArray(raw) ? raw : []) {
    for (const part of String(item).split(/[;,\s]+/)) {
      const m = /^D:?(\d+):(\d+)$/.exec(part.trim());
      if (m) out.push(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return Array.from(new Set(out));
}

export function loadConversation(convId: string, dataDir = defaultDataDir()): Conversation {
  const d = JSON.parse(fs.readFileSync(path.join(dataDir, `${convId}.json`), 'utf8')) as Record<string, unknown>;
  const sessionNums = Object.keys(d)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(d[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const turns: Turn[] = [];
  for (const n of sessionNums) {
    const date = String(d[`session_${n}_date_time`] ?? '');
    for (const t of d[`session_${n}`] as Array<Record<string, unknown>>) {
      const dia = normalizeEvidence([t.dia_id])[0] ?? String(t.dia_id);
      const speaker = String(t.speaker);
      const utterance = String(t.text);
      let text = `[${date}] ${speaker}: ${utterance}`;
      const caption = t.blip_caption ? String(t.blip_caption) : undefined;
      if (caption) text += ` (image: ${caption})`;
      turns.push({ dia_id: dia, session: n, speaker, date, utterance, caption, text });
    }
  }
  const turnIds = new Set(turns.map((t) => t.dia_id));
  const questions: Question[] = [];
  ((d.qa ?? []) as Array<Record<string, unknown>>).forEach((q, idx) => {
    if (q.category === 5) return;
    const valid = normalizeEvidence(q.evidence).filter((e) => turnIds.has(e));
    if (valid.length === 0) return;
    questions.push({ idx, question: String(q.question), category: Number(q.category), evidence: valid });
  });
  return { conv: convId, turns, questions };
}

export function listConversations(dataDir = defaultDataDir()): string[] {
  return fs
    .readdirSync(dataDir)
    .map((f) => /^(\w+)\.json$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => m[1] as string)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
}

export interface Agg {
  n: number;
  rr: number;
  hit: Record<number, number>;
  recall: Record<number, number>;
}

export function newAgg(ks: number[]): Agg {
  const a: Agg = { n: 0, rr: 0, hit: {}, recall: {} };
  for (const k of ks) {
    a.hit[k] = 0;
    a.recall[k] = 0;
  }
  return a;
}

/** Same definitions as locomo-recall.mjs: hit@k, recall@k, MRR with the cut at max k. */
export function scoreQuestion(q: Question, ranked: string[], ks: number[], agg: Agg): number | null {
  const maxK = Math.max(...ks);
  const first = new Map<string, number>();
  ranked.forEach((id, i) => {
    if (!first.has(id)) first.set(id, i + 1);
  });
  const ranks = q.evidence.map((e) => first.get(e) ?? null).filter((r): r is number => r !== null);
  const firstHit = ranks.length ? Math.min(...ranks) : null;
  agg.n += 1;
  agg.rr += firstHit !== null && firstHit <= maxK ? 1 / firstHit : 0;
  for (const k of ks) {
    agg.hit[k] = (agg.hit[k] ?? 0) + (firstHit !== null && firstHit <= k ? 1 : 0);
    agg.recall[k] = (agg.recall[k] ?? 0) + ranks.filter((r) => r <= k).length / q.evidence.length;
  }
  return firstHit;
}

export function mergeAgg(into: Agg, a: Agg): void {
  into.n += a.n;
  into.rr += a.rr;
  for (const k of Object.keys(a.hit)) {
    const kk = Number(k);
    into.hit[kk] = (into.hit[kk] ?? 0) + (a.hit[kk] ?? 0);
    into.recall[kk] = (into.recall[kk] ?? 0) + (a.recall[kk] ?? 0);
  }
}

export function finishAgg(a: Agg, ks: number[]): Record<string, number> {
  const r4 = (x: number): number => Math.round(x * 10000) / 10000;
  const out: Record<string, number> = { questions: a.n };
  for (const k of ks) out[`hit@${k}`] = a.n ? r4((a.hit[k] ?? 0) / a.n) : 0;
  for (const k of ks) out[`recall@${k}`] = a.n ? r4((a.recall[k] ?? 0) / a.n) : 0;
  out.mrr = a.n ? r4(a.rr / a.n) : 0;
  return out;
}

export const CAT_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
