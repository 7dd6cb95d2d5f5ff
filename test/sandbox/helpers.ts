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
export const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 200): Promise<T> =>
  pollFor(what, fn, timeoutMs, everyMs);

export async function getRun(api: TestApi, run_id: string, who: Partial<Identity> = {}) {
  const res = await api.post('/v1/memory/sandbox/runs/get', { ...who, run_id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.run;
}

export const TERMINAL = ['succeeded', 'failed', 'timed_out', 'cancelled'];

export async function waitForStatus(api: TestApi, run_id: string, statuses: string[], timeoutMs = 60_000, who: Partial<Identity> = {}) {
  return waitFor(`run ${run_id} to be ${statuses.join('|')}`, async () => {
    const r = await getRun(api, run_id, who);
    return statuses.includes(r.status) ? r : null;
  }, timeoutMs);
}

/** Live processes whose command line contains marker (how the tests find a run's processes). */
export async function processesWith(marker: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const status = await fsp.readFile(`/proc/${e}/status`, 'latin1');
      const state = /\nState:\s+(\S)/.exec(status)?.[1];
      if (state === 'Z' || state === 'X') continue;
      const cmd = (await fsp.readFile(`/proc/${e}/cmdline`, 'latin1')).replace(/\0/g, ' ');
      if (cmd.includes(marker)) out.push(`${e}: ${cmd}`);
    } catch {
      /* exited */
    }
  }
  return out;
}
