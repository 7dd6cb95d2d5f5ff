import { spawn } from 'node:child_process';
import { NODE_MEMORY_ENV, NODE_MEMORY_FLAGS } from '../src/local/node-flags';
import { freePort } from '../src/local/ports';
import { repoRoot } from './cli';

/** A real Lore (`bin/lore.mjs start`) on a data dir, on free ports, for benchmarks that restart it. */
export interface BenchLore {
  url: string;
  ports: { api: number; temporal: number; temporalUi: number; mongo: number };
  /** The last 200 kB of its output (API, worker, supervised servers). */
  output(): string;
  stop(): Promise<void>;
}

export async function startBenchLore(opts: { dataDir: string; env?: Record<string, string>; timeoutMs?: number }): Promise<BenchLore> {
  const ports = { api: await freePort(), temporal: await freePort(), temporalUi: await freePort(), mongo: await freePort() };
  const proc = spawn(process.execPath, [...NODE_MEMORY_FLAGS, 'bin/lore.mjs', 'start'], {
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
  const exited = new Promise<void>((r) => proc.once('exit', () => ((dead = true), r())));
  const url = `http://127.0.0.1:${ports.api}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
  for (;;) {
    if (dead) throw new Error(`Lore exited before answering:\n${out.slice(-4000)}`);
    if (Date.now() > deadline) {
      proc.kill('SIGTERM');
      throw new Error(`Lore did not answer /health in time:\n${out.slice(-4000)}`);
    }
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok || r.status === 503,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    ports,
    output: () => out,
    stop: async () => {
      if (!dead) proc.kill('SIGTERM');
      await exited;
    },
  };
}
