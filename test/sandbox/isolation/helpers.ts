import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configureIdRange, configureOverlayHelper, ensureOverlayHelper, prepareWorkdir, runIsolated, type OverlayHelper } from '../../../src/sandbox/isolation/index';
import type { IsolationKind, OutputStream, RunLimits, RunOutcome, RunSpec } from '../../../src/sandbox/isolation/index';

/**
 * node --test runs test files in parallel processes. Each process has its own uid pool and kills
 * stray processes of its id range, so every test file must use a range of its own.
 */
export function useIdRange(slot: number): void {
  const min = 400000 + slot * 10000;
  configureIdRange({ min, max: min + 9999 });
}

export const LIMITS: RunLimits = {
  wallMs: 20_000,
  cpuSeconds: 10,
  memoryBytes: 512 * 1024 * 1024,
  maxProcesses: 32,
  maxFileBytes: 16 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
};

export async function makeRoot(tag: string): Promise<string> {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), `lore-iso-${tag}-`));
  await fsp.chmod(root, 0o711);
  return root;
}

export async function makeWorkdir(tag: string, id = 'session-1'): Promise<{ root: string; workdir: string; artifacts: string }> {
  const root = await makeRoot(tag);
  const wd = await prepareWorkdir(root, id);
  return { root, workdir: wd.hostPath, artifacts: wd.artifactsPath };
}

export interface Collected {
  outcome: RunOutcome;
  stdout: string;
  stderr: string;
  chunks: { stream: OutputStream; chunk: string; seq: number }[];
}

export async function run(
  argv: string[],
  workdir: string,
  opts: {
    isolation?: IsolationKind;
    limits?: Partial<RunLimits>;
    env?: Record<string, string>;
    signal?: AbortSignal;
    onStart?: (pid: number) => void;
    shell?: boolean;
    /** A workspace seen through the overlay (useOverlayHelper first). */
    workspace?: string;
  } = {},
): Promise<Collected> {
  const chunks: Collected['chunks'] = [];
  const spec: RunSpec = {
    argv,
    workdir,
    isolation: opts.isolation ?? 'bubblewrap',
    limits: { ...LIMITS, ...(opts.limits ?? {}) },
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.shell !== undefined ? { shell: opts.shell } : {}),
    ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
  };
  const outcome = await runIsolated(spec, {
    onOutput: (stream, chunk, seq) => chunks.push({ stream, chunk, seq }),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onStart ? { onStart: opts.onStart } : {}),
  });
  return {
    outcome,
    chunks,
    stdout: chunks
      .filter((c) => c.stream === 'stdout')
      .map((c) => c.chunk)
      .join(''),
    stderr: chunks
      .filter((c) => c.stream === 'stderr')
      .map((c) => c.chunk)
      .join(''),
  };
}

/** Live (non-zombie) processes whose real/effective/saved uid is `uid`, with their command lines. */
export async function processesOfUid(uid: number): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const status = await fsp.readFile(`/proc/${e}/status`, 'latin1');
      const m = /\nUid:\s+(\d+)\s+(\d+)\s+(\d+)/.exec(status);
      const state = /\nState:\s+(\S)/.exec(status)?.[1];
      if (!m || state === 'Z' || state === 'X') continue;
      if ([m[1], m[2], m[3]].map(Number).includes(uid)) {
        const cmd = await fsp.readFile(`/proc/${e}/cmdline`, 'latin1').catch(() => '');
        out.push(`${e}: ${cmd.replace(/\0/g, ' ')}`);
      }
    } catch {
      /* exited */
    }
  }
  return out;
}

/** Processes whose uid lies in [min, max]. */
export async function processesInRange(min: number, max: number): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const status = await fsp.readFile(`/proc/${e}/status`, 'latin1');
      const m = /\nUid:\s+(\d+)/.exec(status);
      const state = /\nState:\s+(\S)/.exec(status)?.[1];
      if (!m || state === 'Z' || state === 'X') continue;
      const u = Number(m[1]);
      if (u >= min && u <= max) out.push(`${e} uid=${u}`);
    } catch {
      /* exited */
    }
  }
  return out;
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Configures the workspace overlay's helper (npm test's set-up builds it into LORE_BIN_DIR); the next run probes again. */
export async function useOverlayHelper(): Promise<OverlayHelper> {
  const helper = await ensureOverlayHelper(process.env.LORE_BIN_DIR ?? path.join(os.homedir(), '.cache', 'lore', 'bin'));
  configureOverlayHelper(helper);
  return helper;
}
