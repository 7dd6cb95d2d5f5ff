import assert from 'node:assert/strict';
import type { TestApi } from './app';
import type { Identity } from './isolation';
import { pollFor } from './wait';

/**
 * A scope with something on every inspector page, written through the API as agents would:
 * notes over six weeks (so the lifecycle operator demotes and archives some, and the count
 * history has a shape), learned workflows, trusted / contested / suppressed patterns, an active
 * and a retired policy memory, a playbook with versions and a review, automation runs (one
 * waiting at an approval, one finished) and a sandbox run. The API must run a worker and a
 * ManualClock (the operator's decisions follow that clock).
 */

const DAY = 86_400_000;

export interface Seeded {
  id: Identity;
  /** client_ids of nodes the operator archived (rehydratable). */
  archived: string[];
  /** A client_id with two revisions and an edge. */
  revised: string;
  pausedRunId: string;
  finishedRunId: string;
  sandboxRunId: string | null;
  playbookId: string;
}

let authHeaders: Record<string, string> = {};

async function ok(api: TestApi, path: string, body: Record<string, unknown>, id: Identity) {
  const res = await api.post(path, { ...id, ...body }, authHeaders);
  assert.equal(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const NOTES = [
  [
    'Release train 42 rolled back',
    'The payments release train 42 was rolled back after the canary showed 3% 502s from the ledger proxy. Root cause: connection pool exhausted under retry storms.',
  ],
  ['Ledger proxy pool size', 'The ledger proxy keeps 64 pooled connections; retries multiply load. Bounded exponential backoff fixed the storm.'],
  ['Webhook signature check', 'Webhook signatures are HMAC-SHA256 over the raw body with the per-merchant secret; compare in constant time.'],
  ['Invoice CSV export is slow', 'The invoice CSV export streams 200k rows; the slow part was a per-row currency lookup. Caching the rates made it 9x faster.'],
  ['Flaky retry test', 'worker.retry.test.ts fails one run in twenty: the test waits on a real timer. Use the fake clock instead.'],
  ['Schema migration order', 'Billing schema migrations run before the API deploy; the migration job must be idempotent.'],
  ['Dark mode toggle', 'Settings > Appearance gained a dark mode toggle; the theme is stored per user.'],
  ['On-call runbook: 502s', 'When 502s rise on the ledger proxy: check the pool gauge, then the retry rate, then roll back the train.'],
  ['Rate limiter config', 'The public API limits to 100 requests per second per key; bursts of 200 are allowed.'],
  ['Card tokenisation vendor', 'Card data never reaches our services: the vendor tokenises in the browser.'],
  ['Refund idempotency', 'Refunds carry an idempotency key; a retried refund with the same key returns the first result.'],
  ['Old deploy checklist', 'The 2024 deploy checklist (superseded): manual smoke tests on staging before every release.'],
];

export async function seedInspectorScope(
  api: TestApi,
  id: Identity,
  clock: { set(iso: string): void; advance(ms: number): void; now(): Date },
  opts: { sandbox?: boolean; apiKey?: string } = {},
): Promise<Seeded> {
  authHeaders = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
  const start = Date.parse('2026-03-02T09:00:00.000Z');
  clock.set(new Date(start).toISOString());
  const record = () => api.modules.lifecycle.services.recordHistory();

  // Week 1: the notes, one a day or so.
  for (const [i, [title, text]] of NOTES.entries()) {
    await ok(api, '/v1/memory/write', { client_id: `note-${i}`, title, input_text: text, tags: ['payments'], importance: i === 7 ? 0.9 : 0.4 }, id);
    if (i % 2 === 1) {
      await record();
      clock.advance(DAY / 2);
    }
  }
  // A note rewritten (two revisions) and derived evidence linked to it.
  await ok(
    api,
    '/v1/memory/write',
    {
      client_id: 'note-1',
      title: 'Ledger proxy pool size',
      input_text: 'The ledger proxy keeps 128 pooled connections since train 43; retries use bounded exponential backoff with jitter.',
      tags: ['payments'],
    },
    id,
  );
  await ok(
    api,
    '/v1/memory/write',
    {
      nodes: [{ client_id: 'incident-42', type: 'evidence', title: 'Incident 42 timeline', text: 'Canary at 10:02, 502s at 10:05, rollback at 10:11, pool raised at 14:30.' }],
      edges: [{ src: 'incident-42', dst: 'note-1', type: 'derived_from' }],
    },
    id,
  );
  await record();

  // Executions: agents doing tasks (workflows are learned from them).
  const exec = (goal: string, task_kind: string, steps: { tool: string; file_path?: string }[], run_id: string) =>
    ok(
      api,
      '/v1/memory/write',
      {
        execution: {
          goal,
          task_kind,
          run_id,
          steps,
          target_files: steps.map((s) => s.file_path).filter(Boolean),
          outcome: 'success',
          next_action: `${steps[0]!.tool} ${steps[0]!.file_path ?? ''}`.trim(),
        },
      },
      id,
    );
  const retry = [{ tool: 'read', file_path: 'src/jobs/worker.ts' }, { tool: 'edit', file_path: 'src/jobs/worker.ts' }, { tool: 'test' }];
  for (const [i, g] of [
    'fix the flaky retry in the job worker',
    'repair flaky retries of the job worker',
    'flaky job worker retry fails again',
    'the job worker retry is flaky',
  ].entries()) {
    await exec(g, 'fix_flaky_test', retry, `exec-retry-${i}`);
    clock.advance(DAY / 4);
  }
  for (const [i, g] of ['speed up the invoice CSV export', 'make the invoice CSV export faster'].entries()) {
    await exec(
      g,
      'perf',
      [
        { tool: 'grep', file_path: 'src/reports/export.ts' },
        { tool: 'edit', file_path: 'src/reports/export.ts' },
      ],
      `exec-export-${i}`,
    );
  }
  for (const [i, g] of ['add a dark mode toggle to settings', 'dark mode switch for the settings page'].entries()) {
    await exec(g, 'ui', [{ tool: 'edit', file_path: 'web/settings/Theme.tsx' }, { tool: 'test' }], `exec-theme-${i}`);
  }
  await record();

  // Tool feedback: a trusted pattern with its policy; a pattern that went contested (its policy
  // then retired by an operator); a suppressed one.
  const feedback = (tool: string, run: string, outcome: string, text: string, kind: string) =>
    ok(
      api,
      '/v1/memory/tools/feedback',
      {
        outcome,
        selected_tool: tool,
        run_id: run,
        input_text: text,
        context: { task_kind: kind, goal: text, file_path: kind === 'fix_flaky_test' ? 'src/jobs/worker.ts' : undefined },
        candidates: ['read', 'edit', 'test'],
      },
      id,
    );
  for (const run of ['fb-1', 'fb-2', 'fb-3']) await feedback('edit', run, 'positive', 'fix flaky retry in worker.ts', 'fix_flaky_test');
  for (const run of ['fb-4', 'fb-5', 'fb-6']) await feedback('test', run, 'positive', 'migrate the billing schema', 'migration');
  for (const run of ['fb-7', 'fb-8']) await feedback('test', run, 'negative', 'migrate the billing schema', 'migration');
  const sup = await feedback('read', 'fb-9', 'positive', 'rename the logger module', 'refactor');
  await ok(api, '/v1/memory/patterns/suppress', { pattern_id: sup.pattern.pattern_id, reason: 'reads everything; not a real signal' }, id);
  const contested = (await ok(api, '/v1/memory/policies/list', { state: 'contested' }, id)).policies[0];
  if (contested)
    await ok(api, '/v1/memory/policies/governance/apply', { policy_memory_id: contested.node_id, action: 'retire', reason: 'migrations now go through the runbook' }, id);

  // A playbook: recorded run → compiled → promoted; a repair reviewed and rejected.
  const playbookId = 'rotate-webhook-secret';
  await ok(api, '/v1/memory/replay/run/start', { run_id: 'rec-rotate-1', goal: 'rotate the webhook signing secret' }, id);
  const steps = [
    ['edit_file', { file_path: 'config/webhooks.yaml', change: 'add the new secret next to the old one' }],
    ['run_tests', { target: 'webhooks' }],
    ['edit_file', { file_path: 'config/webhooks.yaml', change: 'remove the old secret' }],
  ] as const;
  for (const [i, [tool_name, tool_input]] of steps.entries()) {
    await ok(api, '/v1/memory/replay/step/before', { run_id: 'rec-rotate-1', step_index: i, tool_name, tool_input }, id);
    await ok(api, '/v1/memory/replay/step/after', { run_id: 'rec-rotate-1', step_index: i, status: 'success', output_signature: { kind: 'text', summary: 'ok' } }, id);
  }
  await ok(api, '/v1/memory/replay/run/end', { run_id: 'rec-rotate-1', status: 'success', summary: 'secret rotated with no failed deliveries' }, id);
  await ok(api, '/v1/memory/replay/playbooks/compile_from_run', { run_id: 'rec-rotate-1', playbook_id: playbookId, name: 'Rotate the webhook secret' }, id);
  await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: playbookId, version: 1, target_status: 'active', note: 'ran twice by hand without trouble' }, id);
  await ok(api, '/v1/memory/replay/playbooks/repair', { playbook_id: playbookId, version: 1, patch: { name: 'Rotate the webhook secret (skip tests)' }, note: 'faster' }, id);
  await ok(api, '/v1/memory/replay/playbooks/repair/review', { playbook_id: playbookId, version: 2, action: 'reject', note: 'the tests are the point' }, id);

  // Automation runs: one waits at its approval, one was approved and finished.
  await ok(
    api,
    '/v1/automations/create',
    {
      automation_id: 'nightly-ledger-check',
      name: 'Nightly ledger check',
      graph: {
        nodes: [
          { node_id: 'approve', kind: 'approval', approval_key: 'ops' },
          { node_id: 'check', kind: 'condition', condition: { left: '$nodes.approve.reason', op: 'eq', right: 'go' } },
        ],
        edges: [{ from: 'approve', to: 'check', type: 'on_success' }],
      },
    },
    id,
  );
  const finishedRunId = (await ok(api, '/v1/automations/run', { automation_id: 'nightly-ledger-check', run_id: 'ledger-check-1' }, id)).run_id as string;
  const waitFor = (runId: string, statuses: string[]) =>
    pollFor(
      `automation run ${runId} to be ${statuses.join('|')}`,
      async () => {
        const r = await ok(api, '/v1/automations/runs/get', { run_id: runId }, id);
        return statuses.includes(r.run.status) ? r.run : null;
      },
      120_000,
      200,
    );
  await waitFor(finishedRunId, ['paused']);
  await ok(api, '/v1/automations/runs/resume', { run_id: finishedRunId, reason: 'go' }, id);
  await waitFor(finishedRunId, ['succeeded']);
  const pausedRunId = (await ok(api, '/v1/automations/run', { automation_id: 'nightly-ledger-check', run_id: 'ledger-check-2' }, id)).run_id as string;
  await waitFor(pausedRunId, ['paused']);

  let sandboxRunId: string | null = null;
  if (opts.sandbox !== false) {
    const session = await ok(api, '/v1/memory/sandbox/sessions', { profile: 'default' }, id);
    const r = await ok(
      api,
      '/v1/memory/sandbox/execute',
      { session_id: session.session_id, mode: 'sync', action: { kind: 'command', argv: ['sh', '-c', 'echo ledger rows: 1204; echo checksum ok'] } },
      id,
    );
    sandboxRunId = r.run.run_id as string;
  }

  // Weeks later: the lifecycle operator runs; unused notes cool down, old ones are archived.
  for (const days of [9, 12, 24]) {
    clock.advance(days * DAY);
    await ok(api, '/v1/memory/nodes/activate', { client_ids: ['note-7', 'note-2', 'note-1'], outcome: 'positive', activate: true, reason: 'used during on-call' }, id);
    await ok(api, '/v1/memory/lifecycle/run', {}, id);
    await record();
  }
  const nodes = await ok(api, '/v1/memory/find', { tiers: ['archive'], limit: 100, include_text: false }, id);
  const archived = nodes.nodes.map((n: { client_id: string | null }) => n.client_id).filter((c: string | null): c is string => !!c);
  return { id, archived, revised: 'note-1', pausedRunId, finishedRunId, sandboxRunId, playbookId };
}
