import { descendants } from '../../src/local/process-tree';
import { spawn, type ChildProcess } from 'node:child_process';
import { NODE_MEMORY_ENV, NODE_MEMORY_FLAGS } from '../../src/local/node-flags';
import { freePort } from '../../src/local/ports';

/**
 * A real Lore (`node bin/lore.mjs start`) in its own data dir on free ports, for end-to-end
 * tests and benchmarks: started as a separate process tree, talked to over HTTP, killed with -9.
 */

export interface LorePorts {
  api: number;
  temporal: number;
  temporalUi: number;
  mongo: number;
}

export interface LoreProcess {
  pid: number;
  url: string;
  ports: LorePorts;
  output: () => string;
  exited: Promise<number | null>;
  /** SIGKILL to Lore and every process below it (the MongoDB-compatible server, Temporal, the worker). */
  killHard(): Promise<number[]>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

const ROOT = new URL('../../', import.meta.url).pathname;

export async function allocatePorts(): Promise<LorePorts> {
  return { api: await freePort(), temporal: await freePort(), temporalUi: await freePort(), mongo: await freePort() };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function startLore(opts: { dataDir: string; ports: LorePorts; env?: Record<string, string>; timeoutMs?: number }): Promise<LoreProcess> {
  const { ports } = opts;
  const env: NodeJS.ProcessEnv = {
    ...NODE_MEMORY_ENV,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.LORE_BIN_DIR ? { LORE_BIN_DIR: process.env.LORE_BIN_DIR } : {}),
    LORE_DATA_DIR: opts.dataDir,
    LORE_PORT: String(ports.api),
    LORE_TEMPORAL_PORT: String(ports.temporal),
    LORE_TEMPORAL_UI_PORT: String(ports.temporalUi),
    LORE_MONGO_PORT: String(ports.mongo),
    LORE_LIFECYCLE_INTERVAL: 'off',
    LORE_EMBEDDINGS: 'none', // lexical unless a test asks (the default encoder: test/memory/default-encoder.test.ts)
    LORE_BUILD_WAIT: '60s', // start-up builds are waited for, as in startTestApi (test/helpers/app.ts)
    ...opts.env,
  };
  const proc: ChildProcess = spawn(process.execPath, [...NODE_MEMORY_FLAGS, 'bin/lore.mjs', 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer) => {
    out += c.toString('utf8');
    if (out.length > 20_000) out = out.slice(-20_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${ports.api}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 240_000);
  let dead = false;
  void exited.then(() => (dead = true));
  for (;;) {
    if (dead) throw new Error(`lore exited before it was ready:\n${out.slice(-4000)}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`lore was not ready within the timeout:\n${out.slice(-4000)}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const pid = proc.pid!;
  return {
    pid,
    url,
    ports,
    output: () => out,
    exited,
    async killHard() {
      const tree = [pid, ...descendants(pid)];
      for (const p of tree) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      await exited;
      for (let i = 0; i < 100 && tree.some(alive); i += 1) await new Promise((r) => setTimeout(r, 100));
      return tree;
    },
    async stop() {
      if (dead) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** POST JSON to a running Lore. */
export async function post<T = any>(url: string, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
