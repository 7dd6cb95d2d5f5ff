import { descendants } from '../src/local/process-tree';
import { spawn } from 'node:child_process';
import { NODE_MEMORY_ENV, NODE_MEMORY_FLAGS } from '../src/local/node-flags';
import { freePort } from '../src/local/ports';
import { repoRoot } from './cli';

/** A real Lore (`bin/lore.mjs start`) on a data dir, for the benchmarks that drive it over HTTP or restart it. */
export interface BenchLore {
  url: string;
  ports: LorePorts;
  /** The API process (for CPU and RSS from /proc). */
  pid: number;
  /** The last 200 kB of its output (API, worker, supervised servers). */
  output(): string;
  /** Resolves with the exit code when the process exits (on its own or after stop()). */
  exited: Promise<number | null>;
  /** SIGTERM (Lore stops the servers it supervises), SIGKILL after 30 s. */
  stop(): Promise<void>;
  /** SIGKILL to Lore and every process below it (the servers, the worker), as a crash would. */
  killHard(): Promise<void>;
}

export interface LorePorts {
  api: number;
  temporal: number;
  temporalUi: number;
  mongo: number;
}

/** Ports base..base+3 for the API, Temporal, its UI and the MongoDB-compatible server; free ones without a base. */
export async function lorePorts(base?: number): Promise<LorePorts> {
  if (base) return { api: base, temporal: base + 1, temporalUi: base + 2, mongo: base + 3 };
  return { api: await freePort(), temporal: await freePort(), temporalUi: await freePort(), mongo: await freePort() };
}

/** Starts Lore and resolves once GET /health answers (lexical unless `env` sets LORE_EMBEDDINGS). */
export async function startBenchLore(opts: {
  dataDir: string;
  env?: Record<string, string>;
  ports?: LorePorts;
  timeoutMs?: number;
  pollMs?: number;
  /** Further node flags for the API process (e.g. --cpu-prof). */
  nodeArgs?: string[];
}): Promise<BenchLore> {
  const ports = opts.ports ?? (await lorePorts());
  const proc = spawn(process.execPath, [...NODE_MEMORY_FLAGS, ...(opts.nodeArgs ?? []), 'bin/lore.mjs', 'start'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
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
      LORE_EMBEDDINGS: 'none',
      ...opts.env,
    },
  });
  let out = '';
  const keep = (c: Buffer) => {
    out = (out + c.toString('utf8')).slice(-200_000);
  };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  let dead = false;
  const exited = new Promise<number | null>((r) =>
    proc.once('exit', (code) => {
      dead = true;
      r(code);
    }),
  );
  const url = `http://127.0.0.1:${ports.api}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
  for (;;) {
    if (dead) throw new Error(`Lore exited before answering:\n${out.slice(-4000)}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`Lore did not answer /health in time:\n${out.slice(-4000)}`);
    }
    const up = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok || r.status === 503,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 250));
  }
  return {
    url,
    ports,
    pid: proc.pid!,
    output: () => out,
    exited,
    stop: async () => {
      if (dead) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(t);
    },
    killHard: async () => {
      const tree = [proc.pid!, ...descendants(proc.pid!)];
      for (const p of tree) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone already */
        }
      }
      await exited;
      const alive = (p: number) => {
        try {
          process.kill(p, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 100 && tree.some(alive); i += 1) await new Promise((r) => setTimeout(r, 100));
    },
  };
}
