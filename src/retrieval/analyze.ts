// Text analysis shared by the lexical index, queries and other modules (task signatures).
//
// Pipeline: Unicode NFKD + Latin accent folding + NFC + lower-case -> tokens of letters/digits
// (apostrophes inside a word kept while tokenising) -> possessive "'s" dropped, other
// apostrophes removed ("don't" -> "dont") -> stop words dropped (surface form) ->
// English Porter2 stemming of a-z tokens. Joined forms are added for compounds:
// "de-stress" -> de, stress, destress; "parseDate" -> parse, date, parsedate;
// "user_id" -> user, id, userid. Han/Kana/Hangul runs become overlapping character
// bigrams (a run of one character stays a unigram), the usual trick for scripts
// written without spaces.

import { porter2 } from './stemmer';
import { DEFAULT_STOPWORDS } from './stopwords';

export interface AnalyzerOptions {
  /** Porter2 stemming of a-z tokens (default true). */
  stem?: boolean;
  /** Stop words matched on the folded surface form (default DEFAULT_STOPWORDS). */
  stopwords?: ReadonlySet<string>;
  /** Emit the joined form of hyphen/underscore/camelCase compounds (default true). */
  compounds?: boolean;
  /** Split camelCase / PascalCase identifiers (default true). */
  camelCase?: boolean;
  /** Tokens longer than this are dropped (default 64). */
  maxTokenLength?: number;
}

export type Analyzer = (text: string) => string[];

// Diacritics are dropped from Latin letters only ("café" -> "cafe"); other scripts are
// recomposed (NFC) so Hangul syllables and letters such as Cyrillic "й" stay intact.
const LATIN_DIACRITICS = /([A-Za-z])[\u0300-\u036f]+/g;
const APOSTROPHES = /[\u2018\u2019\u02bc\u2032`]/g;
// A "chunk" is letters/digits joined by apostrophes, hyphens, underscores or dots.
const CHUNK = /[\p{L}\p{N}\p{M}]+(?:['\-_.][\p{L}\p{N}\p{M}]+)*/gu;
// Han, Kana, Hangul, plus the prolonged-sound and iteration marks (script "Common").
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005\uff70]/u;
const CJK_RUNS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005\uff70]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005\uff70]+/gu;
const CAMEL = /([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])/g;
const HAS_CAMEL = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_CHUNK = /[A-Za-z0-9]+(?:['\-_.][A-Za-z0-9]+)*/g;
const LETTERS = /^[a-z']+$/;
const AZ = /^[a-z]+$/;

const stemCache = new Map<string, string>();
const STEM_CACHE_MAX = 50_000;

export function stem(token: string): string {
  if (token.length <= 2 || !AZ.test(token)) return token;
  const hit = stemCache.get(token);
  if (hit !== undefined) return hit;
  const s = porter2(token);
  if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
  stemCache.set(token, s);
  return s;
}

function fold(s: string): string {
  return s.normalize('NFKD').replace(LATIN_DIACRITICS, '$1').normalize('NFC').toLowerCase();
}

export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const doStem = options.stem ?? true;
  const stop = options.stopwords ?? DEFAULT_STOPWORDS;
  const compounds = options.compounds ?? true;
  const camel = options.camelCase ?? true;
  const maxLen = options.maxTokenLength ?? 64;

  const emit = (out: string[], raw: string): void => {
    let t = raw;
    if (t.includes("'")) {
      if (t.endsWith("'s")) t = t.slice(0, -2);
      t = t.replace(/'/g, '');
    }
    if (!t || t.length > maxLen || stop.has(t)) return;
    out.push(doStem ? stem(t) : t);
  };

  const cjkBigrams = (out: string[], run: string): void => {
    const chars = Array.from(run);
    if (chars.length === 1) {
      out.push(chars[0] as string);
      return;
    }
    for (let i = 0; i + 1 < chars.length; i += 1) out.push((chars[i] as string) + (chars[i + 1] as string));
  };

  const chunkTokens = (out: string[], chunkRaw: string, ascii: boolean): void => {
    // chunkRaw keeps its case so camelCase can be seen; fold per piece.
    const simple = !/[-_.]/.test(chunkRaw) && !(camel && HAS_CAMEL.test(chunkRaw));
    if (simple) {
      emit(out, ascii ? chunkRaw.toLowerCase() : fold(chunkRaw));
      return;
    }
    const pieces = chunkRaw.split(/[-_.]/).filter(Boolean);
    const parts: string[] = [];
    for (const piece of pieces) {
      if (camel && HAS_CAMEL.test(piece)) {
        for (const p of piece.replace(CAMEL, '$1$3 $2$4').split(' ')) if (p) parts.push(ascii ? p.toLowerCase() : fold(p));
      } else {
        parts.push(ascii ? piece.toLowerCase() : fold(piece));
      }
    }
    for (const p of parts) emit(out, p);
    // Joined form of letter-only compounds ("de-stress" -> "destress", "parseDate" ->
    // "parsedate"); identifiers with digits (run ids, versions) are matched by their parts.
    if (compounds && parts.length > 1 && parts.length <= 4 && !chunkRaw.includes('.') && parts.every((p) => LETTERS.test(p))) {
      const joined = parts.join('').replace(/'/g, '');
      if (joined.length <= maxLen && !stop.has(joined)) out.push(doStem ? stem(joined) : joined);
    }
  };

  return (text: string): string[] => {
    const out: string[] = [];
    if (!text) return out;
    if (!NON_ASCII.test(text)) {
      // Fast path: plain ASCII needs no Unicode folding.
      for (const m of text.replace(/`/g, "'").matchAll(ASCII_CHUNK)) chunkTokens(out, m[0], true);
      return out;
    }
    const src = text.replace(APOSTROPHES, "'");
    for (const m of src.matchAll(CHUNK)) {
      const chunk = m[0];
      if (CJK.test(chunk)) {
        for (const r of chunk.matchAll(CJK_RUNS)) {
          const run = r[0];
          if (CJK.test(run)) cjkBigrams(out, fold(run));
          else chunkTokens(out, run, false);
        }
      } else {
        chunkTokens(out, chunk, false);
      }
    }
    return out;
  };
}

const defaultAnalyzer = createAnalyzer();

/** Tokenise, normalise, drop stop words and stem `text` with the default settings. */
export function analyze(text: string): string[] {
  return defaultAnalyzer(text);
}
