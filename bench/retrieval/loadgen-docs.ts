// @ts-nocheck
// Generator of loadgen-like execution-evidence texts, ported verbatim from
// ../shared/bench/loadgen.mjs (makeItem / makeNlQuery, seed-deterministic), so the
// scale benchmark indexes the same kind of text the HTTP load test writes.
/* eslint-disable */

const OPTS = { seed: Number(process.env.LOADGEN_SEED ?? 1) };

function mulberry32(seed) {
  let s = seed >>> 0;
  return function next() {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function hashSeed(...parts) {
  // FNV-1a over the joined parts: independent stream per (seed, purpose, index).
  let h = 0x811c9dc5;
  const s = parts.join('|');
  for (let i = 0; i < s.length; i += 1) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
const pick = (rnd, arr) => arr[Math.floor(rnd() * arr.length)];
const intIn = (rnd, lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const pascal = (s) => s.split(/[-_ ]/).map(cap).join('');

const AREAS = [
  'payments',
  'auth',
  'billing',
  'search',
  'export',
  'ingest',
  'scheduler',
  'notifications',
  'cache',
  'metrics',
  'cli',
  'parser',
  'storage',
  'sync',
  'webhooks',
  'migrations',
  'i18n',
  'uploads',
  'reporting',
  'ratelimit',
  'sessions',
  'graphql',
  'admin',
  'email',
  'inventory',
  'checkout',
  'flags',
  'audit',
  'geo',
  'pdf',
  'invoices',
  'accounts',
  'orders',
  'shipping',
  'analytics',
  'gateway',
];
const MODULES = [
  'handler',
  'service',
  'client',
  'retry',
  'config',
  'router',
  'serializer',
  'validator',
  'worker',
  'queue',
  'adapter',
  'middleware',
  'model',
  'repository',
  'utils',
  'schema',
  'controller',
  'mapper',
  'loader',
  'cursor',
  'formatter',
  'scheduler',
  'pool',
  'signer',
];
const LANGS = [
  { ext: 'ts', src: 'src/{a}/{m}.ts', test: 'tests/{a}/{m}.test.ts', cmd: 'npm test -- tests/{a}/{m}.test.ts', kind: 'js' },
  { ext: 'ts', src: 'packages/{a}/src/{m}.ts', test: 'packages/{a}/test/{m}.spec.ts', cmd: 'npx vitest run packages/{a}/test/{m}.spec.ts', kind: 'js' },
  { ext: 'js', src: 'lib/{a}/{m}.js', test: 'test/{a}/{m}.test.js', cmd: 'node --test test/{a}/{m}.test.js', kind: 'js' },
  { ext: 'py', src: 'app/{a}/{m}.py', test: 'tests/{a}/test_{m}.py', cmd: 'pytest tests/{a}/test_{m}.py -q', kind: 'py' },
  { ext: 'go', src: 'internal/{a}/{m}.go', test: 'internal/{a}/{m}_test.go', cmd: 'go test ./internal/{a}/...', kind: 'go' },
  { ext: 'rs', src: 'crates/{a}/src/{m}.rs', test: 'crates/{a}/tests/{m}.rs', cmd: 'cargo test -p {a} {m}', kind: 'rs' },
];
const PROBLEMS = [
  ['retry backoff', 'exponential backoff between retries', 'retry delay schedule'],
  ['pagination cursor', 'page cursor handling', 'next-page token'],
  ['CSV export encoding', 'UTF-8 BOM in spreadsheet output', 'character encoding of exported rows'],
  ['JWT refresh', 'access token renewal', 'expired token refresh flow'],
  ['cache invalidation', 'stale cached entries after update', 'cache eviction on writes'],
  ['webhook signature check', 'HMAC verification of incoming webhooks', 'signed payload validation'],
  ['rate limit headers', 'Retry-After response header', 'throttling headers'],
  ['timezone date parsing', 'UTC offset conversion', 'parsing timestamps across time zones'],
  ['unicode normalization', 'NFC versus NFD string comparison', 'accented character matching'],
  ['N+1 query', 'too many SQL queries per request', 'missing eager loading'],
  ['memory leak', 'heap growth over time', 'unbounded listener accumulation'],
  ['race condition', 'concurrent update conflict', 'nondeterministic ordering under load'],
  ['config defaults', 'missing default settings', 'environment variable fallback values'],
  ['upload size limit', 'large multipart body rejection', 'request body limit for uploads'],
  ['connection pool exhaustion', 'database pool starvation', 'too many open DB connections'],
  ['flaky integration test', 'intermittent CI failure', 'nondeterministic test run'],
  ['null dereference on empty list', 'crash on empty collection', 'missing nil guard'],
  ['migration ordering', 'out-of-order schema migrations', 'DDL dependency order'],
  ['locale fallback', 'missing translation fallback', 'default language selection'],
  ['idempotency keys', 'duplicate POST protection', 'replayed request deduplication'],
  ['graceful shutdown', 'draining in-flight requests on SIGTERM', 'clean exit of workers'],
  ['log redaction', 'masking secrets in logs', 'PII scrubbing in log lines'],
  ['currency rounding', 'decimal precision loss in totals', 'floating point rounding of amounts'],
  ['circular import', 'module import cycle', 'dependency loop between modules'],
  ['slow full-text search', 'search latency regression', 'unindexed text lookup'],
  ['duplicate email sends', 'notification sent twice', 'double delivery of messages'],
  ['permission check bypass', 'missing authorization guard', 'role check skipped'],
  ['broken CLI flag parsing', 'argument parsing bug', 'option not recognized by the command line'],
  ['PDF rendering overflow', 'text overflowing page margins', 'layout clipping in generated PDFs'],
  ['feature flag evaluation', 'flag targeting rules', 'rollout percentage check'],
];
const VERBS = [
  ['fix', 'repair', 'resolve', 'fixed'],
  ['add', 'implement', 'introduce', 'added'],
  ['refactor', 'restructure', 'clean up', 'refactored'],
  ['debug', 'investigate', 'diagnose', 'debugged'],
  ['speed up', 'optimize', 'make faster', 'sped up'],
  ['remove', 'drop', 'get rid of', 'removed'],
  ['upgrade', 'bump', 'update', 'upgraded'],
  ['harden', 'make robust', 'protect', 'hardened'],
];
const FIELDS = [
  'user_id',
  'amount',
  'cursor',
  'token',
  'locale',
  'created_at',
  'items',
  'headers',
  'payload',
  'retries',
  'config',
  'session',
  'currency',
  'offset',
  'signature',
  'tenant',
];
const FN_STEMS = [
  'parseDate',
  'buildQuery',
  'applyDiscount',
  'refreshToken',
  'verifySignature',
  'flushQueue',
  'loadConfig',
  'normalizeName',
  'encodeRow',
  'scheduleRetry',
  'resolveLocale',
  'acquireConnection',
  'renderPage',
  'checkPermission',
  'dedupeRequest',
  'computeTotal',
  'nextCursor',
  'sendEmail',
];
const ERRORS = {
  js: [
    "TypeError: Cannot read properties of undefined (reading '{f}')",
    'AssertionError: expected {n} to equal {n2}',
    'Error: Timeout of 5000ms exceeded',
    "SyntaxError: Unexpected token '}' in JSON at position {n}",
    'Error: connect ECONNREFUSED 127.0.0.1:{port}',
    "TS2345: Argument of type 'string' is not assignable to parameter of type 'number'",
    'RangeError: Maximum call stack size exceeded',
  ],
  py: [
    "KeyError: '{f}'",
    "AttributeError: 'NoneType' object has no attribute '{f}'",
    "ModuleNotFoundError: No module named '{a}_{m}'",
    'AssertionError: assert {n} == {n2}',
    'sqlalchemy.exc.OperationalError: database is locked',
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position {n}",
  ],
  go: [
    'panic: runtime error: index out of range [{n}] with length {n2}',
    'panic: assignment to entry in nil map',
    '--- FAIL: Test{M} ({n}.{n2}s)',
    'context deadline exceeded',
    'fatal error: all goroutines are asleep - deadlock!',
  ],
  rs: [
    'error[E0502]: cannot borrow `{f}` as mutable because it is also borrowed as immutable',
    "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value'",
    'error[E0308]: mismatched types: expected `u64`, found `i64`',
    'test {m}::tests::{f} ... FAILED',
  ],
};
const TOOL_SEQS = [
  ['read', 'edit', 'test'],
  ['bash', 'read', 'edit', 'test'],
  ['read', 'test', 'edit', 'test'],
  ['grep', 'read', 'edit', 'bash', 'test'],
  ['read', 'read', 'edit', 'test', 'bash'],
  ['bash', 'test', 'read', 'edit'],
];
const OUTCOMES = [
  ['success', 'all tests passed'],
  ['success', 'tests green after {n} attempts'],
  ['success', 'fixed; {n2} tests passing'],
  ['partial', 'partial fix: {n} of {n2} tests still failing'],
  ['failure', 'reverted: change broke {a} {m}'],
  ['failure', 'blocked: needs reviewer approval'],
  ['failure', 'abandoned: root cause is in an upstream dependency'],
  ['partial', 'workaround applied, follow-up ticket opened'],
];
const FIX_DESCS = [
  'guard against a missing {f}',
  'handle the empty {f} case',
  'pass {f} through explicitly',
  'clamp {f} to a valid range',
  'reorder the {f} initialisation',
  'cache {f} per request',
  'validate {f} before use',
  'retry only idempotent calls',
  'release the connection in a finally block',
  'normalise {f} before comparing',
];

function fill(tpl, v) {
  return tpl.replace(/\{(\w+)\}/g, (_, k) => (v[k] !== undefined ? String(v[k]) : `{${k}}`));
}

// One generated execution-evidence item. Deterministic in (seed, i).
function makeItem(i) {
  const rnd = mulberry32(hashSeed(OPTS.seed, 'item', i));
  const area = pick(rnd, AREAS);
  const module = pick(rnd, MODULES);
  const lang = pick(rnd, LANGS);
  const problem = pick(rnd, PROBLEMS);
  const verb = pick(rnd, VERBS);
  const field = pick(rnd, FIELDS);
  const fn = pick(rnd, FN_STEMS) + (rnd() < 0.5 ? pascal(module) : '');
  const n = intIn(rnd, 2, 9);
  const n2 = intIn(rnd, 10, 480);
  const vars = { a: area, m: module, M: pascal(module), f: field, n, n2, port: intIn(rnd, 3000, 9999) };
  const srcFile = fill(lang.src, vars);
  const testFile = fill(lang.test, vars);
  const cmd = fill(lang.cmd, vars);
  const error = fill(pick(rnd, ERRORS[lang.kind]), vars);
  const tools = pick(rnd, TOOL_SEQS);
  const [status, outcomeTpl] = pick(rnd, OUTCOMES);
  const outcome = fill(outcomeTpl, vars);
  const fix = fill(pick(rnd, FIX_DESCS), vars);
  const runId = `r${(hashSeed(OPTS.seed, 'run', i) >>> 0).toString(16).padStart(8, '0')}-${i.toString(36)}`;
  const title = `${cap(verb[0])} ${problem[0]} in ${area} ${module}`;
  const toolNarr = tools
    .map((t) => {
      if (t === 'read') return `read ${rnd() < 0.5 ? srcFile : testFile}`;
      if (t === 'edit') return `edited ${fn}() in ${srcFile}`;
      if (t === 'test') return `ran ${cmd}`;
      if (t === 'grep') return `grep for ${field} across ${area}/`;
      return `bash: git diff --stat ${srcFile}`;
    })
    .join(', then ');
  const summary =
    `Run ${runId}: ${verb[3]} ${problem[0]} in ${srcFile} (${area} ${module}). ` +
    `Steps: ${toolNarr}. First test run failed with: ${error}. ` +
    `Change: ${fn}() now does ${fix}. Outcome: ${outcome}.`;
  return {
    i,
    runId,
    area,
    module,
    lang: lang.ext,
    problem,
    verb,
    field,
    fn,
    srcFile,
    testFile,
    cmd,
    error,
    tools,
    status,
    outcome,
    title,
    summary,
    taskKind: `${verb[0].replace(/ /g, '_')}_${area}`,
    goal: `${verb[0]} ${problem[0]} in ${area}`,
  };
}

// A natural-language query that targets one item, using paraphrases instead of its exact wording.
function makeNlQuery(item, j) {
  const rnd = mulberry32(hashSeed(OPTS.seed, 'q', item.i, j));
  const probSyn = pick(rnd, item.problem.slice(1));
  const verbSyn = pick(rnd, item.verb.slice(1, 3));
  const errShort = item.error.split(/\s+/).slice(0, 5).join(' ');
  const base = item.srcFile.split('/').pop();
  const templates = [
    `How did we ${verbSyn} the ${probSyn} problem in the ${item.area} ${item.module}?`,
    `${item.cmd.split(' ').slice(0, 2).join(' ')} failed with "${errShort}" in ${item.area}; what was done last time?`,
    `previous attempt to ${verbSyn} ${probSyn} touching ${base}`,
    `Any prior evidence about ${errShort} while working on ${probSyn} (${item.area})?`,
    `what happened when the agent worked on ${probSyn} in ${item.module} for ${item.area}`,
  ];
  return pick(rnd, templates);
}

/** The slots loadgen.mjs writes for an item (`--payload plain`). */
function writeSlots(item: ReturnType<typeof makeItem>) {
  return {
    task_kind: item.taskKind,
    language: item.lang,
    file_path: item.srcFile,
    test_file: item.testFile,
    command: item.cmd,
    tool_sequence: item.tools,
    error_signature: item.error.slice(0, 120),
    outcome_status: item.status,
    run_ref: item.runId,
  };
}

export { makeItem, makeNlQuery, mulberry32, hashSeed, writeSlots, AREAS, MODULES };
