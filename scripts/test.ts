/**
 * `npm test`: builds or finds the local servers, starts one MongoDB-compatible server and one
 * Temporal dev server for the whole run, then runs every test/**\/*.test.ts file with node:test
 * (each file gets its own database and task queue). Unit tests need neither server.
 *
 *   npm test                      all tests
 *   npm test -- test/unit         only files under test/unit
 *   npm test -- --only-unit       skip starting servers and run test/unit only
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { transpiled } from '../bin/transpile.mjs';
import { loadConfig } from '../src/config';
import { createLog } from '../src/log';
import { startTestServices } from '../test/helpers/services';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const onlyUnit = args.includes('--only-unit');
const selectors = args.filter((a) => !a.startsWith('--'));

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out.sort();
}

/** execArgv without `--import tsx` (either spelling). */
function withoutTsx(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    if ((a === '--import' || a === '--loader' || a === '--require') && /^tsx(\/|$)/.test(argv[i + 1] ?? '')) i += 1;
    else if (!/^--(import|loader|require)=tsx(\/|$)/.test(a)) out.push(a);
  }
  return out;
}

/**
 * The longest files (30–90 s each on a 2-core machine, mostly waiting on real processes and
 * Temporal) start first, so the runner's lanes finish close together instead of one of them
 * running a long file alone at the end. Only an ordering hint: a file missing here runs in name
 * order after these.
 */
const LONGEST_FIRST = [
  'test/automation/parallel.test.ts',
  'test/automation/playbooks.test.ts',
  'test/automation/runs.test.ts',
  'test/workflows/packs-seam.test.ts',
  'test/e2e/durability.test.ts',
  'test/e2e/upgrade.test.ts',
  'test/replay/restart.test.ts',
  'test/automation/restart.test.ts',
  'test/sandbox/isolation/escape.test.ts',
  'test/learning/no-recency-window.test.ts',
  'test/sandbox/restart.test.ts',
  'test/e2e/installed-tool.test.ts',
  'test/unit/typecheck.test.ts',
];
const rank = (f: string) => {
  const i = LONGEST_FIRST.indexOf(f);
  return i < 0 ? LONGEST_FIRST.length : i;
};

// findTests lists by name and the sort is stable: files not in the list keep name order.
let files = findTests(join(root, 'test')).sort((a, b) => rank(a) - rank(b));
if (onlyUnit) files = files.filter((f) => f.startsWith('test/unit/'));
if (selectors.length > 0) files = files.filter((f) => selectors.some((s) => f.startsWith(s.replace(/^\.\//, ''))));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const log = createLog((process.env.LORE_LOG_LEVEL as 'info') ?? 'info', 'test');
const needsServers = files.some((f) => !f.startsWith('test/unit/'));
const scratch = mkdtempSync(join(tmpdir(), 'lore-test-'));
const config = loadConfig({ ...process.env, LORE_DATA_DIR: scratch });
const services = needsServers ? await startTestServices(config, log, scratch) : null;

// The test files run in child processes of node:test's runner, which inherit this environment
// (and this process's execArgv, set below).
process.env.LORE_BIN_DIR = config.binDir;
if (services) {
  process.env.LORE_TEST_MONGODB_URI = services.mongoUri;
  process.env.LORE_TEST_TEMPORAL_ADDRESS = services.temporalAddress;
}
const concurrency = Math.max(1, Number(process.env.LORE_TEST_CONCURRENCY ?? '2') || 2);
console.error(`running ${files.length} test files (concurrency ${concurrency})${services ? ` against MongoDB ${services.mongoUri} and Temporal ${services.temporalAddress}` : ''}`);

// run() keeps the order given above (`node --test <files>` would sort them by name).
const stop = async (code: number) => {
  await services?.stop();
  rmSync(scratch, { recursive: true, force: true });
  process.exit(code);
};
// A signal ends the test processes (run()'s children) before the servers they use.
const abort = new AbortController();
const onSignal = (code: number) => () => {
  abort.abort();
  void stop(code);
};
process.once('SIGINT', onSignal(130));
process.once('SIGTERM', onSignal(143));
let failed = false;
// The test files run as plain ES modules, transpiled once per source tree (bin/transpile.mjs, as
// `lore start` runs Lore): a test process then loads no transpiler, which was about a second of
// every file's start-up. node:test starts each file with this process's execArgv: tsx's loader is
// left out, source maps are turned on (stack traces name the .ts files).
const built = await transpiled({ root, dirs: ['src', 'activities', 'workflows', 'scripts', 'test'], cacheName: 'lore-tests' });
process.execArgv = [...withoutTsx(process.execArgv), '--enable-source-maps'];
const stream = run({ files: files.map((f) => join(built, f.replace(/\.ts$/, '.mjs'))), concurrency, signal: abort.signal });
stream.on('test:fail', () => {
  failed = true;
});
// A file that fails as a whole is reported by its path: the transpiled copy's, named back here as
// the source file (stack traces and test locations already are, through the source maps).
const builtFile = new RegExp(`${built.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/([^\\s'"]+?)\\.mjs\\b`, 'g');
const toSources = new Transform({
  transform(chunk, _encoding, done) {
    done(
      null,
      String(chunk).replace(builtFile, (_m, rel: string) => join(root, `${rel}.ts`)),
    );
  },
});
const report = stream.compose(tap).pipe(toSources);
report.pipe(process.stdout, { end: false });
await finished(report);
await stop(failed ? 1 : 0);
