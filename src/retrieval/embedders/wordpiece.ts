// BERT WordPiece tokenizer (uncased), read from a Hugging Face tokenizer.json: enough for the
// sentence encoders the onnx embedder runs (MiniLM, bge, e5: BertNormalizer lowercase,
// BertPreTokenizer, WordPiece with "##" continuations, [CLS] … [SEP]). No dependencies.

export interface WordPieceTokenizer {
  /** Token ids with [CLS] first and [SEP] last, at most maxTokens long. */
  encode(text: string, maxTokens?: number): number[];
  /** The vocabulary entry of a token id (e.g. "##er"), or "[UNK]". */
  piece(id: number): string;
  readonly padId: number;
}

interface TokenizerJson {
  normalizer?: { type?: string; lowercase?: boolean; strip_accents?: boolean | null } | null;
  model?: { type?: string; vocab?: Record<string, number>; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number };
}

function isPunctuation(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return /\p{P}/u.test(ch);
}

function isChinese(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x20000 && c <= 0x2a6df) ||
    (c >= 0x2a700 && c <= 0x2b73f) ||
    (c >= 0x2b740 && c <= 0x2b81f) ||
    (c >= 0x2b820 && c <= 0x2ceaf) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0x2f800 && c <= 0x2fa1f)
  );
}

/** Normalise and split a text into BERT "words" (whitespace, punctuation and CJK characters split). */
export function basicTokens(text: string, lowercase = true, stripAccents = lowercase): string[] {
  let s = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c === 0 || c === 0xfffd || (/\p{C}/u.test(ch) && ch !== '\t' && ch !== '\n' && ch !== '\r')) continue;
    if (/\s/u.test(ch)) s += ' ';
    else if (isChinese(c)) s += ` ${ch} `;
    else s += ch;
  }
  if (lowercase) s = s.toLowerCase();
  if (stripAccents) s = s.normalize('NFD').replace(/\p{Mn}/gu, '');
  const out: string[] = [];
  for (const word of s.split(' ')) {
    if (!word) continue;
    let cur = '';
    for (const ch of word) {
      if (isPunctuation(ch)) {
        if (cur) out.push(cur);
        out.push(ch);
        cur = '';
      } else cur += ch;
    }
    if (cur) out.push(cur);
  }
  return out;
}

export function wordPieceTokenizer(json: TokenizerJson): WordPieceTokenizer {
  const vocab = json.model?.vocab;
  if (!vocab || (json.model?.type && json.model.type !== 'WordPiece')) throw new Error('tokenizer.json: not a WordPiece model');
  const ids = new Map(Object.entries(vocab));
  const prefix = json.model?.continuing_subword_prefix ?? '##';
  const maxChars = json.model?.max_input_chars_per_word ?? 100;
  const need = (t: string) => {
    const id = ids.get(t);
    if (id === undefined) throw new Error(`tokenizer.json: no ${t} token`);
    return id;
  };
  const unk = need(json.model?.unk_token ?? '[UNK]');
  const cls = need('[CLS]');
  const sep = need('[SEP]');
  const pad = ids.get('[PAD]') ?? 0;
  const lowercase = json.normalizer?.lowercase ?? true;
  const strip = json.normalizer?.strip_accents ?? lowercase;
  const cache = new Map<string, number[]>();
  let pieces: Map<number, string> | null = null; // id → entry, built on first use (only diagnostics ask)

  const piece = (word: string): number[] => {
    const hit = cache.get(word);
    if (hit) return hit;
    const chars = [...word];
    let out: number[] = [];
    if (chars.length > maxChars) out = [unk];
    else {
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let found: number | undefined;
        while (start < end) {
          const sub = (start > 0 ? prefix : '') + chars.slice(start, end).join('');
          found = ids.get(sub);
          if (found !== undefined) break;
          end -= 1;
        }
        if (found === undefined) {
          out = [unk];
          break;
        }
        out.push(found);
        start = end;
      }
    }
    if (cache.size < 50_000) cache.set(word, out);
    return out;
  };

  return {
    padId: pad,
    piece: (id) => (pieces ??= new Map([...ids].map(([t, i]) => [i, t]))).get(id) ?? '[UNK]',
    encode(text: string, maxTokens = 256): number[] {
      const body: number[] = [];
      for (const w of basicTokens(text, lowercase, strip)) {
        body.push(...piece(w));
        if (body.length >= maxTokens - 2) break;
      }
      return [cls, ...body.slice(0, Math.max(0, maxTokens - 2)), sep];
    },
  };
}
