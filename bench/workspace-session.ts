import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cli, numOr } from './cli';
import { startLocalLore } from './harness';

const USAGE = `What a sandbox command costs in a session with a workspace, against one without (docs/sandbox.md,
"Workspaces"): through the full path (HTTP → execute → Temporal workflow → activity → bubblewrap
→ run record), with an in-process worker, as the worker sees workspaces (LORE_SANDBOX_WORKSPACE_VIEW).

  node --import tsx bench/workspace-session.ts --workspace /work/main [--view auto|copy] [--later 5] [--argv ls]
  node --import tsx bench/workspace-session.ts --generate 200000 [--view auto|copy]

A fresh session without a workspace and one per --workspace: the first command of each, then
--later rounds of one command in each session in turn (so the machine's load weighs on each
alike); prints the first command and the median later one, in seconds, and their ratio to the
session without a workspace's median. --generate N first writes a synthetic tree of N files (100 bytes each, 25
per directory) into a temporary directory and uses it as the workspace (removed afterwards).`;

const { values: opts } = cli(USAGE, {
  workspace: { type: 'string', multiple: true },
  generate: { type: 'string' },
  view: { type: 'string' },
  later: { type: 'string' },
  argv: { type: 'string' },
});
const LATER = numOr(opts.later, 5);
const VIEW = opts.view ?? 'auto';
if (VIEW !== 'auto' && VIEW !== 'copy') throw new Error('--view is auto or copy');
const ARGV = (opts.argv ?? 'ls').split(' ');
class RunFailed extends Error {}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const workspaces = (opts.workspace ?? []).map((w) => realpathSync(w));
let generated: string | null = null;
if (opts.generate) {
  const n = numOr(opts.generate, 200_000);
  generated = mkdtempSync(join(tmpdir(), 'lore-ws-generated-'));
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const file = join(generated, `d${Math.floor(i / 25_000)}`, `d${Math.floor(i / 25) % 1000}`, `f${i % 25}.js`);
    if (i % 25 === 0) mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `// generated file ${i}\n${'x'.repeat(70)}\n`);
  }
  console.log(`generated ${n} files in ${generated} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  workspaces.push(generated);
}
if (workspaces.length === 0) throw new Error('name a --workspace or --generate N');
for (const w of workspaces) if (!existsSync(w)) throw new Error(`no such directory: ${w}`);

// One root above every workspace: the filesystem root's children would do, but name the parents.
const roots = [...new Set(workspaces.map((w) => dirname(w)))];
const api = await startLocalLore({ worker: true, env: { LORE_SANDBOX_WORKSPACE_ROOTS: roots.join(':'), LORE_SANDBOX_WORKSPACE_VIEW: VIEW } });
try {
  console.log(
    `command: ${JSON.stringify(ARGV)}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const once = async (sid: string) => {
    const t0 = performance.now();
    const res = await api.post('/v1/memory/sandbox/execute', { session_id: sid, mode: 'sync', action: { kind: 'command', argv: ARGV }, timeout_ms: 600_000 });
    const s = (performance.now() - t0) / 1000;
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    if (res.body.run.status !== 'succeeded') throw new RunFailed(res.body.run.reason ?? res.body.run.status);
    return s;
  };
  const session = async (workspace: string | null) => {
    const created = await api.post('/v1/memory/sandbox/sessions', workspace ? { workspace: { path: workspace } } : {});
    if (created.status !== 200) throw new Error(JSON.stringify(created.body));
    const w = created.body.session.workspace;
    return {
      sid: created.body.session_id as string,
      name: workspace ?? 'no workspace',
      view: w ? ` (${w.view}${w.detail ? `: ${w.detail}` : ''})` : '',
      first: 0,
      later: [] as number[],
      failed: null as string | null,
    };
  };
  // Warm-up: the workflow bundle, connections.
  const warm = await session(null);
  for (let i = 0; i < 3; i++) await once(warm.sid);
  const sessions = [await session(null), ...(await Promise.all(workspaces.map((w) => session(w))))];
  const attempt = async (s: (typeof sessions)[number], record: (t: number) => void) => {
    if (s.failed) return;
    try {
      record(await once(s.sid));
    } catch (err) {
      if (!(err instanceof RunFailed)) throw err;
      s.failed = err.message;
    }
  };
  for (const s of sessions) await attempt(s, (t) => (s.first = t));
  // Later commands round-robin over the sessions, so the machine's load weighs on each alike.
  for (let i = 0; i < LATER; i++) for (const s of sessions) await attempt(s, (t) => s.later.push(t));
  const base = median(sessions[0]!.later);
  for (const s of sessions) {
    if (s.failed) {
      console.log(`${s.name}${s.view}: the run failed: ${s.failed}`);
      continue;
    }
    const later = median(s.later);
    console.log(
      `${s.name}${s.view}: first ${s.first.toFixed(2)} s (${(s.first / base).toFixed(2)}× a later command without a workspace), ` +
        `later (median of ${LATER}) ${later.toFixed(2)} s (${(later / base).toFixed(2)}×)`,
    );
  }
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  await api.close();
  if (generated) rmSync(generated, { recursive: true, force: true });
}
process.exit(0);
