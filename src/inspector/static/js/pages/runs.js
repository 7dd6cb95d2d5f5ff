// Runs: automation runs (with their node states and where they wait) and sandbox runs, each with
// a link to its workflow in the Temporal UI.

import { scoped, temporalLink } from '../api.js';
import { badge, errorBox, externalLink, facts, fill, h, json, link, muted, num, pagedList, pre, section, table, time } from '../dom.js';

/** A cell with the workflow's Temporal UI link (resolved once per page: /health is asked once); the id alone when the UI's address is unknown. */
function temporalCell(workflowId, testid) {
  const el = h('span', {}, h('code', {}, workflowId));
  void temporalLink(workflowId).then((url) => {
    if (url) el.replaceChildren(externalLink(url, 'Temporal UI ↗', { 'data-testid': testid, title: workflowId }));
  });
  return el;
}

/** The run page's link, or why there is none. */
const temporalButton = (url) =>
  url
    ? externalLink(url, 'Open in the Temporal UI ↗', { 'data-testid': 'run-temporal-link' })
    : h('span', { class: 'muted' }, '(no Temporal UI address: set LORE_TEMPORAL_UI_URL)');

export async function renderRuns(main) {
  main.append(
    h('h1', {}, 'Runs'),
    section(
      'Automation runs',
      pagedList(async (cursor) => {
        const r = await scoped('/v1/automations/runs/list', { limit: 20, ...(cursor ? { cursor } : {}) });
        return {
          next_cursor: r.next_cursor,
          node: table(
            [
              { label: 'run', cell: (x) => link(`/run/${x.run_id}`, x.run_id) },
              { label: 'automation', cell: (x) => x.automation_name },
              { label: 'status', cell: (x) => [badge(x.status), x.paused_nodes.length ? h('span', { class: 'muted' }, ` waits at ${x.paused_nodes.join(', ')}`) : null] },
              {
                label: 'nodes',
                cell: (x) =>
                  Object.entries(x.node_counts)
                    .filter(([, v]) => v > 0)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(' · '),
              },
              { label: 'created', cell: (x) => time(x.created_at) },
              { label: 'workflow', cell: (x) => temporalCell(x.workflow_id, 'run-temporal-link') },
            ],
            r.runs,
            { testid: 'automation-runs', empty: 'No automation runs in this scope.' },
          ),
        };
      }),
    ),
    section(
      'Sandbox runs',
      pagedList(async (cursor) => {
        try {
          const r = await scoped('/v1/memory/sandbox/runs/list', { limit: 20, ...(cursor ? { cursor } : {}) });
          return {
            next_cursor: r.next_cursor,
            node: table(
              [
                { label: 'run', cell: (x) => link(`/sandbox-run/${x.run_id}`, x.run_id) },
                { label: 'command', cell: (x) => h('code', {}, x.argv.join(' ').slice(0, 80)) },
                { label: 'status', cell: (x) => [badge(x.status), x.exit_code === null ? '' : ` exit ${x.exit_code}`] },
                { label: 'session', cell: (x) => h('code', {}, x.session_id) },
                { label: 'created', cell: (x) => time(x.created_at) },
                { label: 'workflow', cell: (x) => temporalCell(x.workflow_id, 'sandbox-temporal-link') },
              ],
              r.runs,
              { testid: 'sandbox-runs', empty: 'No sandbox runs in this scope.' },
            ),
          };
        } catch (err) {
          if (err.code === 'sandbox_disabled') return { next_cursor: null, node: muted('The sandbox is off on this Lore (SANDBOX_ENABLED).') };
          throw err;
        }
      }),
    ),
  );
}

export async function renderRun(main, args) {
  const body = h('div');
  main.append(body);
  await fill(body, async () => {
    const { run } = await scoped('/v1/automations/runs/get', { run_id: args[0], include_nodes: true });
    const url = await temporalLink(run.workflow_id);
    return h(
      'div',
      {},
      h('h1', {}, `Run ${run.run_id}`),
      h('p', { class: 'row' }, badge(run.status), ` of `, h('strong', {}, run.automation_name), ' ', temporalButton(url)),
      section(
        'Run',
        facts([
          ['automation', h('code', {}, run.automation_id)],
          ['workflow', h('code', {}, run.workflow_id)],
          ['status', run.status],
          ['waits at', run.paused_nodes.length ? run.paused_nodes.join(', ') : null],
          ['reason', run.reason],
          ['error', run.error ? `${run.error.code}${run.error.node_id ? ` at ${run.error.node_id}` : ''}: ${run.error.message}` : null],
          ['options', `mode ${run.options.execution_mode}, record_run ${run.options.record_run}, stop_on_failure ${run.options.stop_on_failure}`],
          ['replay run', run.replay_run_id],
          ['created · started · finished', `${time(run.created_at)} · ${time(run.started_at)} · ${time(run.finished_at)}`],
          ['resumes', run.resumes.length ? run.resumes.map((r) => `${time(r.at)} ${r.actor}: ${r.reason}`).join('; ') : null],
        ]),
      ),
      section(
        'Nodes',
        table(
          [
            { label: 'node', cell: (n) => h('code', {}, n.node_id) },
            { label: 'kind', cell: (n) => n.kind },
            { label: 'state', cell: (n) => badge(n.state) },
            { label: 'started · finished', cell: (n) => `${time(n.started_at)} · ${time(n.finished_at)}` },
            {
              label: 'detail',
              cell: (n) =>
                n.error
                  ? h('span', { class: 'bad' }, `${n.error.code}: ${n.error.message}`)
                  : n.approval
                    ? `approval ${n.approval.approval_key}${n.approval.resumed_at ? ` resumed by ${n.approval.resumed_by}` : ' waiting'}`
                    : (n.skip_reason ?? (n.output === null || n.output === undefined ? '' : h('details', {}, h('summary', {}, 'output'), json(n.output)))),
            },
            { label: 'child workflow', cell: (n) => (n.child_workflow_id ? temporalCell(n.child_workflow_id, 'child-temporal-link') : '—') },
          ],
          run.nodes ?? [],
          { testid: 'run-nodes' },
        ),
      ),
    );
  });
}

export async function renderSandboxRun(main, args) {
  const body = h('div');
  main.append(body);
  await fill(body, async () => {
    const { run } = await scoped('/v1/memory/sandbox/runs/get', { run_id: args[0] });
    const url = await temporalLink(run.workflow_id);
    const logs = h('div');
    void fill(logs, async () => {
      const l = await scoped('/v1/memory/sandbox/runs/logs', { run_id: run.run_id, limit: 200 });
      return l.logs.length ? pre(l.logs.map((e) => `[${e.stream}] ${e.text}`).join('')) : muted('No output.');
    }).catch((err) => logs.replaceChildren(errorBox(err)));
    return h(
      'div',
      {},
      h('h1', {}, `Sandbox run ${run.run_id}`),
      h('p', { class: 'row' }, badge(run.status), ' ', temporalButton(url)),
      section(
        'Run',
        facts([
          ['command', h('code', {}, run.argv.join(' '))],
          ['session', h('code', {}, run.session_id)],
          ['profile · mode', `${run.profile} · ${run.mode}`],
          ['exit', run.exit_code === null ? (run.signal ? `signal ${run.signal}` : null) : String(run.exit_code)],
          ['duration', run.duration_ms === null ? null : `${num(run.duration_ms, 0)} ms`],
          ['limit hit', run.limit_hit],
          ['reason', run.reason],
          ['isolation', run.isolation ? `${run.isolation.kind}${run.isolation.weaker ? ` (${run.isolation.weaker})` : ''}` : null],
          ['artifacts', String(run.artifact_count)],
          ['workflow', h('code', {}, run.workflow_id)],
          ['created · finished', `${time(run.created_at)} · ${time(run.finished_at)}`],
        ]),
      ),
      section('Output', logs),
    );
  });
}
