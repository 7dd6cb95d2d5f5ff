import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import type { TestApi } from '../helpers/app';
import type { Identity } from '../helpers/isolation';
import { pollFor } from '../helpers/wait';

/** Shared steps of the sandbox tests (every run is a real command through HTTP, the engine and bubblewrap). */

export async function createSession(api: TestApi, who: Partial<Identity> = {}, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api.post('/v1/memory/sandbox/sessions', { ...who, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.session_id as string;
}

export async function exec(api: TestApi, session_id: string, argv: string[], extra: Record<string, unknown> = {}, who: Partial<Identity> = {}) {
  return api.post('/v1/memory/sandbox/execute', { ...who, session_id, action: { kind: 'command', argv }, ...extra });
}

/** Runs argv in sync mode and returns the finished run record (fails the test otherwise). */
export async function run(api: TestApi, session_id: string, argv: string[], extra: Record<string, unknown> = {}, who: Partial<Identity> = {}) {
  const res = await exec(api, session_id, argv, extra, who);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.completed, true, `run did not complete: ${JSON.stringify(res.body)}`);
  return res.body.run;
}

export { sleep } from '../helpers/wait';

/** Polls fn until it returns a truthy value or the (generous) deadline passes. */
export const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 200): Promise<T> => pollFor(what, fn, timeoutMs, everyMs);

export async function getRun(api: TestApi, run_id: string, who: Partial<Identity> = {}) {
  const res = await api.post('/v1/memory/sandbox/runs/get', { ...who, run_id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.run;
}

export const TERMINAL = ['succeeded', 'failed', 'timed_out', 'cancelled'];

export async function waitForStatus(api: TestApi, run_id: string, statuses: string[], timeoutMs = 60_000, who: Partial<Identity> = {}) {
  return waitFor(
    `run ${run_id} to be ${statuses.join('|')}`,
    async () => {
      const r = await getRun(api, run_id, who);
      return statuses.includes(r.status) ? r : null;
    },
    timeoutMs,
  );
}

/** Live (not zombie) processes whose raw /proc cmdline (arguments NUL-terminated) passes `match`. */
async function liveProcesses(match: (cmdline: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const status = await fsp.readFile(`/proc/${e}/status`, 'latin1');
      const state = /\nState:\s+(\S)/.exec(status)?.[1];
      if (state === 'Z' || state === 'X') continue;
      const cmdline = await fsp.readFile(`/proc/${e}/cmdline`, 'latin1');
      if (match(cmdline)) out.push(`${e}: ${cmdline.replace(/\0/g, ' ')}`);
    } catch {
      /* exited */
    }
  }
  return out;
}

/** Live processes whose command line contains marker (how the tests find a run's processes). */
export function processesWith(marker: string): Promise<string[]> {
  return liveProcesses((cmdline) => cmdline.replace(/\0/g, ' ').includes(marker));
}

/**
 * Live processes whose argv is exactly `argv` (e.g. ['sleep', '321.654']): the command itself once
 * exec'd, not the bubblewrap or `sh -c` processes whose arguments merely contain the same text.
 * Waiting on processesWith(`sleep N`) for "the sleep runs" can return while bwrap is still
 * starting, before anything the shell does ahead of the sleep has happened.
 */
export function processesRunning(argv: string[]): Promise<string[]> {
  const want = argv.join('\0') + '\0';
  return liveProcesses((cmdline) => cmdline === want);
}
