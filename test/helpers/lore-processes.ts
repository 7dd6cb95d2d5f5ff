/**
 * Real `lore start --role …` processes for the restart tests: they share a test API's MongoDB
 * database, Temporal and task queue, so a test can kill -9 them and start new ones while the test
 * process keeps reading the store. Each file passes its own reserved sandbox uid block
 * (docs/sandbox.md): a new worker reaps what a killed one left in that block, so two live
 * processes of different files must never share one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { NODE_MEMORY_ENV, NODE_MEMORY_FLAGS } from '../../src/local/node-flags';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/local/ports';
import { WORKER_READY_MARKER } from '../../src/worker-ready';
import { descendants } from '../../src/local/process-tree';
import type { TestApi } from './app';
import { pollFor } from './wait';

const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));

export type Role = 'worker' | 'api' | 'all';

export interface LoreChild {
  child: ChildProcess;
  role: Role;
  /** The API's base URL (roles api and all). */
  url: string | null;
  /** Everything the process printed so far. */
  output(): string;
}

export interface LoreProcessesOptions {
  api: TestApi;
  /** LORE_DATA_DIR of every process (holds nothing shared: the store and Temporal are the API's). */
  dataDir: string;
  /** This file's reserved sandbox uid block. */
  ids: { min: number; max: number };
  /** Extra environment for every process (e.g. another TEMPORAL_ADDRESS). */
  env?: Record<string, string>;
}

export class LoreProcesses {
  private readonly live = new Set<ChildProcess>();

  constructor(private readonly opts: LoreProcessesOptions) {}

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const { api } = this.opts;
    return {
      ...NODE_MEMORY_ENV,
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LORE_BIN_DIR: process.env.LORE_BIN_DIR ?? '',
      LORE_DATA_DIR: this.opts.dataDir,
      TEMPORAL_ADDRESS: api.config.temporal.address!,
      MONGODB_URI: api.config.mongo.uri!,
      MONGODB_DB: api.config.mongo.database,
      LORE_TASK_QUEUE: api.config.temporal.taskQueue,
      LORE_SANDBOX_DIR: api.config.sandbox.dir,
      LORE_SANDBOX_ID_MIN: String(this.opts.ids.min),
      LORE_SANDBOX_ID_MAX: String(this.opts.ids.max),
      LORE_LIFECYCLE_INTERVAL: 'off',
      LORE_LOG_LEVEL: 'warn',
      LORE_EMBEDDINGS: 'none', // lexical, as the API of startTestApi (test/helpers/app.ts)
      LORE_BUILD_WAIT: '60s', // start-up builds are waited for, as in startTestApi (test/helpers/app.ts)
      ...this.opts.env,
      ...extra,
    };
  }

  /**
   * Starts `lore start --role <role>` and resolves once it is ready (a worker polls; an API is up).
   * `loreBin` runs another source tree's Lore (test/helpers/variant-tree.ts: an upgrade).
   */
  async start(role: Role, extra: Record<string, string> = {}, timeoutMs = 180_000, loreBin = LORE_BIN): Promise<LoreChild> {
    const port = role === 'worker' ? null : (extra.LORE_PORT ?? String(await freePort()));
    const env = this.env(port ? { LORE_PORT: port, ...extra } : extra);
    const child = spawn(process.execPath, [...NODE_MEMORY_FLAGS, loreBin, 'start', '--role', role], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.live.add(child);
    child.once('exit', () => this.live.delete(child));
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    // Role all starts its worker child first and says "is up (role all)" once both are ready.
    const ready = role === 'worker' ? WORKER_READY_MARKER : `is up (role ${role})`;
    await pollFor(
      `lore ${role} to be ready`,
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`lore ${role} exited:\n${out}`);
        return out.includes(ready);
      },
      timeoutMs,
      100,
    );
    return { child, role, url: port ? `http://127.0.0.1:${port}` : null, output: () => out };
  }

  /** Sends `signal` to the process and, with `tree`, to everything below it. */
  signal(p: LoreChild | ChildProcess, signal: NodeJS.Signals, tree = true): void {
    const child = 'child' in p ? p.child : p;
    const pids = tree ? [child.pid!, ...descendants(child.pid!)] : [child.pid!];
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {
        /* gone */
      }
    }
  }

  /**
   * kill -9, as a crash would. `tree: false` kills only the process, so the test can check that its
   * children die with it by themselves (parent-death signal); `tree: true` kills them too.
   * Resolves with the signal the process died of.
   */
  async kill9(p: LoreChild | ChildProcess, opts: { tree: boolean }): Promise<NodeJS.Signals | null> {
    const child = 'child' in p ? p.child : p;
    const exited = new Promise<NodeJS.Signals | null>((r) => (child.exitCode !== null || child.signalCode !== null ? r(child.signalCode) : child.once('exit', (_c, s) => r(s))));
    this.signal(child, 'SIGKILL', opts.tree);
    return exited;
  }

  /**
   * A graceful stop, as an operator's: SIGTERM to the process alone (its supervisor stops its
   * children in order), then wait for it to exit; past timeoutMs the whole tree is killed.
   * Resolves with the exit code (null after the kill).
   */
  async stop(p: LoreChild, timeoutMs = 60_000): Promise<number | null> {
    const child = p.child;
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    this.signal(child, 'SIGTERM', false);
    const timer = setTimeout(() => this.signal(child, 'SIGKILL', true), timeoutMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills every process still running (the file's after hook). */
  killAll(): void {
    for (const c of this.live) this.signal(c, 'SIGKILL', true);
  }
}
