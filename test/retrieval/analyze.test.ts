import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, createAnalyzer, stem } from '../../src/retrieval/analyze';
import { porter2 } from '../../src/retrieval/stemmer';

test('porter2 matches the Snowball English reference on sample words', () => {
  const cases: Record<string, string> = {
    consign: 'consign',
    consigned: 'consign',
    consigning: 'consign',
    consignment: 'consign',
    generously: 'generous',
    knightly: 'knight',
    running: 'run',
    hopping: 'hop',
    hoping: 'hope',
    caresses: 'caress',
    ponies: 'poni',
    ties: 'tie',
    cries: 'cri',
    happily: 'happili',
    relational: 'relat',
    conditional: 'condit',
    national: 'nation',
    abandoned: 'abandon',
    abilities: 'abil',
    agreed: 'agre',
    dying: 'die',
    gas: 'gas',
    gaps: 'gap',
    kiwis: 'kiwi',
    skies: 'sky',
    news: 'news',
    succeeded: 'succeed',
    controlling: 'control',
    sensational: 'sensat',
    hopefulness: 'hope',
    communication: 'communic',
    generate: 'generat',
    painted: 'paint',
    painting: 'paint',
    paints: 'paint',
    adoption: 'adopt',
    volunteering: 'volunt',
    cats: 'cat',
  };
  for (const [word, want] of Object.entries(cases)) assert.equal(porter2(word), want, word);
});

test('stem leaves numbers, short and non-Latin tokens alone', () => {
  assert.equal(stem('2023'), '2023');
  assert.equal(stem('go'), 'go');
  assert.equal(stem('бегущий'), 'бегущий');
  assert.equal(stem('running'), 'run');
});

test('analyze: lower-cases, drops stop words and possessives, stems', () => {
  assert.deepEqual(analyze("Melanie's kids PAINTED the sunrises"), ['melani', 'kid', 'paint', 'sunris']);
  assert.deepEqual(analyze("I'm sure they've been running"), ['sure', 'run']);
  assert.deepEqual(analyze(''), []);
  assert.deepEqual(analyze('the and of'), []);
});

test('analyze: compounds keep their parts and add the joined form', () => {
  assert.deepEqual(analyze('de-stress'), ['de', 'stress', 'destress']);
  assert.deepEqual(analyze('destress'), ['destress']);
  assert.deepEqual(analyze('parseDate'), ['pars', 'date', stem('parsedate')]);
  assert.deepEqual(analyze('user_id'), ['user', 'id', 'userid']);
  // identifiers with digits are matched by their parts only
  assert.deepEqual(analyze('rf1bfbec5-3f'), ['rf1bfbec5', '3f']);
  // file paths split on separators, no joined form across dots
  assert.deepEqual(analyze('src/auth/handler.test.ts'), ['src', 'auth', 'handler', 'test', 'ts']);
});

test('analyze: camelCase and acronyms split', () => {
  const toks = analyze('HTTPServer TypeError checkPermissionRepository');
  for (const t of ['http', 'server', 'httpserver', 'type', 'error', 'typeerror', 'check', 'permiss', 'repositori']) {
    assert.ok(toks.includes(t), `${t} in ${toks.join(' ')}`);
  }
});

test('analyze: unicode folding and scripts', () => {
  assert.deepEqual(analyze('Café naïve résumé Zürich'), ['cafe', 'naiv', 'resum', 'zurich']);
  assert.deepEqual(analyze('ﬁle Ｆｕｌｌ'), ['file', 'full']); // NFKD compatibility forms
  assert.deepEqual(analyze('Привет мир, бегущий'), ['привет', 'мир', 'бегущий']); // й kept
  assert.deepEqual(analyze('서울에 갔어요'), ['서울', '울에', '갔어', '어요']); // Hangul stays composed
  assert.deepEqual(analyze('東京タワー'), ['東京', '京タ', 'タワ', 'ワー']); // CJK bigrams
  assert.deepEqual(analyze('猫'), ['猫']);
  assert.deepEqual(analyze('I’ve got Melanie’s cat'), analyze("I've got Melanie's cat"));
});

test('createAnalyzer options: no stemming, custom stop words', () => {
  const a = createAnalyzer({ stem: false, stopwords: new Set(['cat']) });
  assert.deepEqual(a('The cats and the cat'), ['the', 'cats', 'and', 'the']);
});
