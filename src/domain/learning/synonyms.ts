import { analyze } from '../../retrieval';

/**
 * A small, general synonym map for words that describe software tasks (docs/learning.md,
 * "Similarity"). Each group collapses to one canonical term, applied to both sides of every
 * comparison, so "repair the intermittent retry failure" and "fix flaky retry" share
 * fix/flaky/retry. Groups are deliberately about generic task vocabulary (verbs of change, kinds of
 * defect, common subsystems) and never about one project's names: a wrong merge here would make
 * unrelated tasks meet everywhere.
 *
 * Words are written in surface form and stemmed with the same analyzer the task signature uses,
 * so the map cannot drift from the signature vocabulary.
 */
const GROUPS: readonly string[][] = [
  ['fix', 'repair', 'resolve', 'patch', 'correct', 'mend', 'remedy'],
  [
    'flaky',
    'flakey',
    'flakiness',
    'intermittent',
    'intermittently',
    'nondeterministic',
    'nondeterministically',
    'sporadic',
    'sporadically',
    'unstable',
    'unreliable',
    'erratic',
    'spurious',
  ],
  ['bug', 'defect', 'fault', 'glitch'],
  ['error', 'exception'],
  ['fail', 'failure', 'failing', 'broken', 'breakage'],
  ['crash', 'panic', 'segfault'],
  ['test', 'spec', 'unittest'],
  ['slow', 'sluggish', 'laggy', 'latency', 'performance', 'perf'],
  ['speed', 'accelerate', 'optimize', 'optimise', 'optimization', 'optimisation', 'faster'],
  ['add', 'introduce', 'create', 'implement'],
  ['remove', 'delete', 'drop', 'eliminate'],
  ['update', 'upgrade', 'bump'],
  ['refactor', 'restructure', 'reorganize', 'reorganise', 'rework', 'cleanup'],
  ['rename', 'relabel'],
  ['doc', 'docs', 'document', 'documentation', 'readme'],
  ['config', 'configuration', 'settings', 'setting', 'configure'],
  ['leak', 'leaking', 'leaky'],
  ['timeout', 'timeouts', 'deadline'],
  ['retry', 'retries', 'retrying', 'reattempt', 'backoff'],
  ['auth', 'authentication', 'authenticate', 'login', 'signin', 'logon'],
  ['authorization', 'authorisation', 'authorize', 'authorise', 'permission', 'permissions'],
  ['database', 'db', 'datastore'],
  ['dependency', 'dependencies', 'deps'],
  ['investigate', 'debug', 'diagnose', 'troubleshoot'],
  ['migrate', 'migration'],
  ['duplicate', 'duplicates', 'dedupe', 'dedup', 'deduplicate'],
  ['validate', 'validation', 'verify', 'verification'],
  ['parse', 'parser', 'parsing'],
  ['serialize', 'serialise', 'serialization', 'serialisation', 'encode', 'marshal'],
  ['deserialize', 'deserialise', 'decode', 'unmarshal'],
  ['cache', 'caching', 'memoize', 'memoise'],
  ['log', 'logs', 'logging', 'logger'],
  ['connection', 'connect', 'connections'],
  ['initialize', 'initialise', 'init', 'initialization', 'initialisation', 'bootstrap'],
  ['normalize', 'normalise', 'normalization', 'normalisation'],
  ['race', 'concurrency', 'concurrent'],
  ['queue', 'queues', 'enqueue'],
  ['upload', 'uploads', 'uploader'],
  ['pagination', 'paginate', 'paging', 'pager'],
  ['typo', 'misspelling', 'spelling'],
];

/**
 * Words that say "this is a task" rather than which task. Their weight is lowered (not removed):
 * in a small scope IDF cannot tell yet that "fix" is in every task.
 */
const GENERIC = [
  'fix',
  'bug',
  'issue',
  'problem',
  'error',
  'change',
  'make',
  'add',
  'update',
  'code',
  'file',
  'function',
  'task',
  'work',
  'improve',
  'handle',
  'support',
  'use',
  'new',
  'ensure',
  'properly',
  'correctly',
  'again',
  'help',
  'need',
  'want',
  'please',
  'thing',
  'stuff',
  'test',
  'fail',
  'case',
  'run',
  'agent',
  'previous',
  'attempt',
  'last',
  'time',
  'done',
  'happen',
];

/** Path and language tokens that ride along with file names ("worker.ts" → worker, ts). */
const STRUCTURAL = ['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'py', 'rs', 'rb', 'go', 'java', 'kt', 'md', 'json', 'yaml', 'yml', 'toml', 'src', 'lib', 'dist', 'pkg'];

const canonical = new Map<string, string>();
const surface = new Map<string, string[]>();
for (const group of GROUPS) {
  const stems = group.flatMap((w) => analyze(w));
  const head = stems[0];
  if (!head) continue;
  for (const s of stems) if (!canonical.has(s)) canonical.set(s, head);
  if (!surface.has(head)) surface.set(head, group);
}
const stemsOf = (words: string[]) => new Set(words.flatMap((w) => analyze(w)).map((s) => canonical.get(s) ?? s));
const generic = stemsOf(GENERIC);
const structural = new Set(STRUCTURAL.flatMap((w) => [w, ...analyze(w)]));

/** The canonical form of a stemmed term (itself when it belongs to no group). */
export function canonicalTerm(stem: string): string {
  return canonical.get(stem) ?? stem;
}

/** Whether a term only says "there is a task" (weighted down). */
export function isGenericTerm(term: string): boolean {
  return generic.has(term);
}

/** Whether a term is a file-extension or path fragment (dropped from task identity). */
export function isStructuralTerm(term: string): boolean {
  return structural.has(term);
}

/**
 * Surface words of a canonical term's group (empty when it has none): lets a full-text query
 * over raw evidence find a paraphrase that uses another word of the group.
 */
export function synonymWords(term: string): readonly string[] {
  return surface.get(term) ?? [];
}
