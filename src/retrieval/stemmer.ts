// English (Porter2 / Snowball "english") stemmer.
//
// A direct implementation of the algorithm published at
// https://snowballstem.org/algorithms/english/stemmer.html (the classic Porter2
// rules, including its exceptional-forms lists). Input must be one lower-case
// token made of a-z and apostrophes; anything else is returned unchanged by
// `stem` in analyze.ts (numbers and non-Latin scripts are not stemmed).

const EXCEPTIONS: Record<string, string> = {
  skis: 'ski',
  skies: 'sky',
  dying: 'die',
  lying: 'lie',
  tying: 'tie',
  idly: 'idl',
  gently: 'gentl',
  ugly: 'ugli',
  early: 'earli',
  only: 'onli',
  singly: 'singl',
  sky: 'sky',
  news: 'news',
  howe: 'howe',
  atlas: 'atlas',
  cosmos: 'cosmos',
  bias: 'bias',
  andes: 'andes',
};

const EXCEPTIONS_AFTER_1A = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);

const isVowel = (c: string | undefined): boolean => c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y';

const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);
const LI_ENDING = new Set(['c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't']);

function regionAfter(w: string, start: number): number {
  // First non-vowel that follows a vowel, at or after `start`; region starts after it.
  for (let i = start + 1; i < w.length; i += 1) {
    if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  }
  return w.length;
}

function computeR1(w: string): number {
  for (const prefix of ['gener', 'commun', 'arsen']) {
    if (w.startsWith(prefix)) return prefix.length;
  }
  return regionAfter(w, 0);
}

// Short syllable ending at position `end` (exclusive).
function endsWithShortSyllable(w: string, end: number): boolean {
  if (end === 2) return isVowel(w[0]) && !isVowel(w[1]);
  if (end < 3) return false;
  const a = w[end - 3];
  const b = w[end - 2];
  const c = w[end - 1];
  return !isVowel(a) && isVowel(b) && !isVowel(c) && c !== 'w' && c !== 'x' && c !== 'Y';
}

function isShortWord(w: string, r1: number): boolean {
  return r1 >= w.length && endsWithShortSyllable(w, w.length);
}

function containsVowel(s: string): boolean {
  for (let i = 0; i < s.length; i += 1) if (isVowel(s[i])) return true;
  return false;
}

// Returns the longest suffix from `list` that `w` ends with, or "".
function longestSuffix(w: string, list: readonly string[]): string {
  let best = '';
  for (const s of list) if (s.length > best.length && w.endsWith(s)) best = s;
  return best;
}

const STEP2: Record<string, string> = {
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  abli: 'able',
  entli: 'ent',
  izer: 'ize',
  ization: 'ize',
  ational: 'ate',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  aliti: 'al',
  alli: 'al',
  fulness: 'ful',
  ousli: 'ous',
  ousness: 'ous',
  iveness: 'ive',
  iviti: 'ive',
  biliti: 'ble',
  bli: 'ble',
  ogi: 'og',
  fulli: 'ful',
  lessli: 'less',
  li: '',
};
const STEP2_KEYS = Object.keys(STEP2);

const STEP3: Record<string, string> = {
  tional: 'tion',
  ational: 'ate',
  alize: 'al',
  icate: 'ic',
  iciti: 'ic',
  ical: 'ic',
  ful: '',
  ness: '',
  ative: '',
};
const STEP3_KEYS = Object.keys(STEP3);

const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion'];

export function porter2(input: string): string {
  if (input.length <= 2) return input;
  // Own keys only: a word such as "constructor" must not find Object.prototype's members.
  const exception = Object.hasOwn(EXCEPTIONS, input) ? EXCEPTIONS[input] : undefined;
  if (exception !== undefined) return exception;

  let w = input.startsWith("'") ? input.slice(1) : input;
  if (w.length <= 2) return w;

  // Mark consonant-y.
  if (w[0] === 'y') w = 'Y' + w.slice(1);
  for (let i = 1; i < w.length; i += 1) {
    if (w[i] === 'y' && isVowel(w[i - 1])) w = w.slice(0, i) + 'Y' + w.slice(i + 1);
  }

  const r1 = computeR1(w);
  const r2 = regionAfter(w, r1);

  // Step 0: possessives.
  const s0 = longestSuffix(w, ["'s'", "'s", "'"]);
  if (s0) w = w.slice(0, -s0.length);

  // Step 1a.
  const s1a = longestSuffix(w, ['sses', 'ied', 'ies', 'us', 'ss', 's']);
  if (s1a === 'sses') {
    w = w.slice(0, -2);
  } else if (s1a === 'ied' || s1a === 'ies') {
    w = w.length > 4 ? w.slice(0, -2) : w.slice(0, -1);
  } else if (s1a === 's') {
    if (containsVowel(w.slice(0, -2))) w = w.slice(0, -1);
  }

  if (EXCEPTIONS_AFTER_1A.has(w)) return w;

  // Step 1b.
  const s1b = longestSuffix(w, ['eed', 'eedly', 'ed', 'edly', 'ing', 'ingly']);
  if (s1b === 'eed' || s1b === 'eedly') {
    if (w.length - s1b.length >= r1) w = w.slice(0, -s1b.length) + 'ee';
  } else if (s1b) {
    const stem = w.slice(0, -s1b.length);
    if (containsVowel(stem)) {
      w = stem;
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (DOUBLES.has(w.slice(-2))) w = w.slice(0, -1);
      else if (isShortWord(w, r1)) w += 'e';
    }
  }

  // Step 1c.
  if (w.length > 2 && (w.endsWith('y') || w.endsWith('Y')) && !isVowel(w[w.length - 2])) {
    w = w.slice(0, -1) + 'i';
  }

  // Step 2.
  const s2 = longestSuffix(w, STEP2_KEYS);
  if (s2 && w.length - s2.length >= r1) {
    if (s2 === 'ogi') {
      if (w[w.length - 4] === 'l') w = w.slice(0, -3) + 'og';
    } else if (s2 === 'li') {
      if (LI_ENDING.has(w[w.length - 3] ?? '')) w = w.slice(0, -2);
    } else {
      w = w.slice(0, -s2.length) + (Object.hasOwn(STEP2, s2) ? STEP2[s2]! : '');
    }
  }

  // Step 3.
  const s3 = longestSuffix(w, STEP3_KEYS);
  if (s3 && w.length - s3.length >= r1) {
    if (s3 === 'ative') {
      if (w.length - s3.length >= r2) w = w.slice(0, -s3.length);
    } else {
      w = w.slice(0, -s3.length) + (Object.hasOwn(STEP3, s3) ? STEP3[s3]! : '');
    }
  }

  // Step 4.
  const s4 = longestSuffix(w, STEP4);
  if (s4 && w.length - s4.length >= r2) {
    if (s4 === 'ion') {
      const prev = w[w.length - 4];
      if (prev === 's' || prev === 't') w = w.slice(0, -3);
    } else {
      w = w.slice(0, -s4.length);
    }
  }

  // Step 5.
  if (w.endsWith('e')) {
    const pos = w.length - 1;
    if (pos >= r2 || (pos >= r1 && !endsWithShortSyllable(w, pos))) w = w.slice(0, -1);
  } else if (w.endsWith('l')) {
    if (w.length - 1 >= r2 && w[w.length - 2] === 'l') w = w.slice(0, -1);
  }

  return w.replace(/Y/g, 'y');
}
