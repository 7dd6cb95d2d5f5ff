import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Log } from '../log';
import { SEARCH_ATTRIBUTE_NAMES } from '../model/search-attributes';
import { progressTicker } from './build-progress';
import { spawnChild, type Child } from './child';
import { LocalServiceError } from './errors';
import { assertPortFree, waitForPort } from './ports';

/** Later CLI versions cannot be installed with `go install` (a replace directive in their go.mod). */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

interface BinaryInfo {
  path: string;
  version: string;
}

/** `temporal --version` → "temporal version 0.0.0-DEV (Server 1.29.1, UI 2.42.1)"; null if unusable. */
export function probeTemporalBinary(path: string): BinaryInfo | null {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) return null;
  const m = /Server (\d+)\.(\d+)\.(\d+)/.exec(r.stdout);
  if (!m) return null;
  // start-dev with --search-attribute and --db-filename: any server 1.20 or later will do.
  if (Number(m[1]) !== 1 || Number(m[2]) < 20) return null;
  return { path, version: r.stdout.trim().replace(/^temporal version /, '') };
}

export function findTemporalBinary(binDir: string): BinaryInfo | null {
  const candidates = [
    join(binDir, 'temporal'),
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((d) => join(d, 'temporal')),
  ];
  for (const c of candidates) {
    if (existsSync(c)) {
      const info = probeTemporalBinary(c);
      if (info) return info;
    }
  }
  return null;
}

/** Finds the Temporal CLI on PATH or in binDir, or builds it there once with `go install`. */
export async function ensureTemporalBinary(binDir: string, log: Log): Promise<BinaryInfo> {
  const found = findTemporalBinary(binDir);
  if (found) return found;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) {
    throw new LocalServiceError(
      'the Temporal CLI is not installed and Go is not available to build it',
      `install Go 1.22+ (https://go.dev/dl) and start again, or set TEMPORAL_ADDRESS to an existing Temporal server`,
    );
  }
  mkdirSync(binDir, { recursive: true });
  const staging = mkdtempSync(join(binDir, '.build-temporal-'));
  log.info(`building the Temporal CLI dev server (first start only): go install ${TEMPORAL_CLI_MODULE}`);
  log.info('this takes about 2-4 minutes and up to 2 GB of RAM; later starts reuse the binary in ' + binDir);
  const stopTicker = progressTicker(log, 'building Temporal');
  try {
    await new Promise<void>((resolve, reject) => {
      const proc = spawn('go', ['install', TEMPORAL_CLI_MODULE], {
        env: { ...process.env, GOBIN: staging, CGO_ENABLED: process.env.CGO_ENABLED ?? '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let downloads = 0;
      const tail: string[] = [];
      proc.stderr.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          tail.push(line);
          if (tail.length > 30) tail.shift();
          if (line.startsWith('go: downloading')) {
            downloads += 1;
            if (downloads % 25 === 0) log.info(`building Temporal: ${downloads} modules downloaded`);
          }
        }
      });
      proc.once('error', reject);
      proc.once('exit', (code) => (code === 0 ? resolve() : reject(new LocalServiceError(`go install ${TEMPORAL_CLI_MODULE} failed (exit ${code}):\n${tail.join('\n')}`))));
    });
    renameSync(join(staging, 'temporal'), join(binDir, 'temporal'));
  } finally {
    stopTicker();
    rmSync(staging, { recursive: true, force: true });
  }
  const built = probeTemporalBinary(join(binDir, 'temporal'));
  if (!built) throw new LocalServiceError(`the freshly built ${join(binDir, 'temporal')} does not run`);
  log.info(`Temporal CLI ready: ${built.version}`);
  return built;
}

export interface TemporalServer {
  child: Child;
  address: string;
  uiUrl: string;
  version: string;
}

export interface TemporalServerOptions {
  binary: BinaryInfo;
  host: string;
  port: number;
  uiPort: number;
  dbFile: string;
  namespace: string;
  log: Log;
}

/** Starts `temporal server start-dev` persisted to dbFile, with Lore's search attributes registered. */
export async function startTemporalServer(opts: TemporalServerOptions): Promise<TemporalServer> {
  await assertPortFree(opts.host, opts.port, 'Temporal dev server gRPC', 'LORE_TEMPORAL_PORT');
  await assertPortFree(opts.host, opts.uiPort, 'Temporal UI', 'LORE_TEMPORAL_UI_PORT');
  const args = [
    'server',
    'start-dev',
    '--ip',
    opts.host,
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--db-filename',
    opts.dbFile,
    '--log-level',
    'warn',
    // WAL with synchronous=NORMAL: a committed transaction survives a crash or kill -9 of the
    // server (only power loss can drop the last ones, as with the MongoDB-compatible server), and a
    // workflow start costs ~8 ms instead of ~48 ms (measured p50, docs/benchmarks.md).
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    ...(opts.namespace !== 'default' ? ['--namespace', opts.namespace] : []),
    ...SEARCH_ATTRIBUTE_NAMES.flatMap((n) => ['--search-attribute', `${n}=Keyword`]),
  ];
  const child = spawnChild({ name: 'temporal', command: opts.binary.path, args, log: opts.log });
  try {
    await waitForPort(opts.host, opts.port, 60_000, child.alive);
    await waitForPort(opts.host, opts.uiPort, 30_000, child.alive);
  } catch (err) {
    await child.stop(2000);
    throw new LocalServiceError(`the Temporal dev server did not start: ${(err as Error).message}\n${child.tail()}`);
  }
  return {
    child,
    address: `${opts.host}:${opts.port}`,
    uiUrl: `http://${opts.host}:${opts.uiPort}`,
    version: opts.binary.version,
  };
}
