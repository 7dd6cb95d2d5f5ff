import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { listSources } from '../bin/transpile.mjs';
import type { Log } from './log';

/**
 * The worker's workflow bundle, built once per source tree and reused by later worker starts.
 *
 * Temporal's bundler (webpack) takes about three seconds of CPU on a small machine, at every worker
 * start: `lore start`, a worker restart, and each test file that runs a worker. The bundle depends
 * only on Lore's sources and its installed packages, so it is cached under a name made of a hash of
 * both: every .ts file under src/, activities/ and workflows/, tsconfig.json, package-lock.json, the
 * Temporal SDK's and Node's versions. A changed source or package gives a new name; nothing stale is
 * ever loaded. The file is written under a temporary name and renamed into place, so concurrent
 * starts never read half of it. When the cache cannot be written (a read-only install), the worker
 * bundles in memory as before.
 */

const SOURCE_DIRS = ['src', 'activities', 'workflows'];
const KEEP_OTHER_BUNDLES = 4;

export interface WorkflowBundleSource {
  /** The workflows entry module (workflows/index.ts). */
  workflowsPath: string;
  /** The repository root: sources are hashed under it, the cache lives in its node_modules. */
  root: string;
  log: Log;
  /** Workflow interceptor modules bundled in (tracing's); a bundle with them is cached apart from one without. */
  interceptorModules?: readonly string[];
}

/** The cache key: a hash of everything the bundle is made of. */
export function workflowBundleKey(root: string, interceptorModules: readonly string[] = []): string {
  const h = createHash('sha256');
  const sdk = createRequire(path.join(root, 'package.json'))('@temporalio/worker/package.json') as { version: string };
  h.update(`${sdk.version}\0${process.version}\0${root}\0`);
  for (const m of interceptorModules) h.update(`\0interceptor\0${m}\0`);
  for (const f of ['tsconfig.json', 'package-lock.json']) {
    const p = path.join(root, f);
    h.update(`\0${f}\0`);
    if (fs.existsSync(p)) h.update(fs.readFileSync(p));
  }
  for (const s of listSources(root, SOURCE_DIRS)) h.update(`\0${s}\0`).update(fs.readFileSync(path.join(root, s)));
  return h.digest('hex').slice(0, 20);
}

function bundle(src: WorkflowBundleSource): Promise<{ code: string }> {
  const { log } = src;
  return bundleWorkflowCode({
    workflowsPath: src.workflowsPath,
    ...(src.interceptorModules && src.interceptorModules.length > 0 ? { workflowInterceptorModules: [...src.interceptorModules] } : {}),
    logger: { trace() {}, debug() {}, info() {}, log() {}, warn: (m: string) => log.debug(m), error: (m: string) => log.error(m) },
  });
}

/**
 * The bundle for this source tree: the cached file (built and written first when missing), or the
 * code itself when the cache cannot be written.
 */
export async function workflowBundle(src: WorkflowBundleSource): Promise<WorkflowBundleOption> {
  let dir: string;
  let file: string;
  try {
    dir = path.join(fs.realpathSync(path.join(src.root, 'node_modules')), '.cache', 'lore', 'workflow-bundles');
    file = path.join(dir, `${workflowBundleKey(src.root, src.interceptorModules)}.js`);
  } catch (err) {
    src.log.debug(`workflow bundle: no cache (${(err as Error).message}); bundling in memory`);
    return bundle(src);
  }
  if (fs.existsSync(file)) {
    try {
      const now = new Date();
      fs.utimesSync(file, now, now); // recently used: kept by prune()
    } catch {
      // a cache this process cannot write to: use the bundle as it is
    }
    return { codePath: file };
  }
  const built = await bundle(src);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = path.join(dir, `.tmp-${process.pid}-${path.basename(file)}`);
    fs.writeFileSync(tmp, built.code);
    fs.renameSync(tmp, file); // atomic: a concurrent start sees the whole file or none
    prune(dir, path.basename(file));
    return { codePath: file };
  } catch (err) {
    src.log.debug(`workflow bundle: not cached (${(err as Error).message})`);
    return built;
  }
}

/** Removes all but the most recently used few other bundles (and leftovers of interrupted writes). */
function prune(dir: string, current: string): void {
  try {
    const entries = fs.readdirSync(dir).map((name) => ({ name, at: fs.statSync(path.join(dir, name)).mtimeMs }));
    const stale = Date.now() - 10 * 60_000;
    for (const e of entries) if (e.name.startsWith('.tmp-') && e.at < stale) fs.rmSync(path.join(dir, e.name), { force: true });
    const others = entries.filter((e) => e.name !== current && e.name.endsWith('.js') && !e.name.startsWith('.tmp-')).sort((a, b) => b.at - a.at);
    for (const o of others.slice(KEEP_OTHER_BUNDLES)) fs.rmSync(path.join(dir, o.name), { force: true });
  } catch {
    // another process pruning at the same time; nothing to do
  }
}
