// Learning: workflows (candidate / stable, with their evidence and distillation origin), patterns
// (trusted, contested, suppressed), policy memories with their governance history, and a "try
// task start" box that shows the first action a typed task gets and the evidence behind it.

import { scoped } from '../api.js';
import { badge, facts, fill, h, href, link, muted, num, pagedList, section, table, time } from '../dom.js';

const TABS = [
  ['workflows', 'Workflows'],
  ['patterns', 'Patterns'],
  ['policies', 'Policy memory'],
  ['task', 'Try task start'],
];

export async function renderLearning(main, _args, query) {
  const tab = query.get('tab') ?? 'workflows';
  const filter = query.get('state') ?? '';
  main.append(
    h('h1', {}, 'Learning'),
    h(
      'nav',
      { class: 'tabs' },
      TABS.map(([t, label]) => h('a', { href: href('/learning', { tab: t }), class: t === tab ? 'active' : null }, label)),
    ),
  );
  if (tab === 'patterns') main.append(patterns(filter));
  else if (tab === 'policies') main.append(policies(filter));
  else if (tab === 'task') main.append(taskStart(query));
  else main.append(workflows(filter));
}

function filters(tab, current, values, counts) {
  return h(
    'div',
    { class: 'row filters' },
    [['', 'all'], ...values.map((v) => [v, v])].map(([v, label]) =>
      h('a', { href: href('/learning', { tab, state: v }), class: v === current ? 'chip active' : 'chip' }, counts && v ? `${label} ${counts[v] ?? 0}` : label),
    ),
  );
}

function workflows(state) {
  const counts = h('div');
  const list = pagedList(async (cursor) => {
    const r = await scoped('/v1/memory/workflows/list', { limit: 20, ...(cursor ? { cursor } : {}), ...(state ? { promotion_state: state } : {}) });
    counts.replaceChildren(filters('workflows', state, ['candidate', 'stable'], r.counts.workflows));
    return {
      next_cursor: r.next_cursor,
      node: table(
        [
          { label: 'workflow', cell: (w) => link(`/workflow/${w.workflow_id}`, w.goal) },
          { label: 'state', cell: (w) => [badge(w.promotion_state), w.promotion_ready ? badge('promotion ready', 'ready') : null] },
          { label: 'first step', cell: (w) => (w.steps[0] ? `${w.steps[0].tool ?? '?'}${w.steps[0].file_path ? ` ${w.steps[0].file_path}` : ''}` : '—') },
          { label: 'origin', cell: (w) => w.distillation_origin },
          { label: 'runs', cell: (w) => `${w.counts.successes}/${w.counts.observations}`, class: 'n' },
          { label: 'evidence', cell: (w) => String(w.provenance_ids.length), class: 'n' },
          { label: 'confidence', cell: (w) => num(w.confidence, 2), class: 'n' },
          { label: 'updated', cell: (w) => time(w.updated_at) },
        ],
        r.workflows,
        { testid: 'workflows', empty: 'No workflows learned in this scope yet.' },
      ),
    };
  });
  return section('Workflows', counts, list);
}

function history(entries, render) {
  if (!entries || entries.length === 0) return h('span', { class: 'muted' }, '—');
  return h(
    'details',
    { open: entries.length <= 4 },
    h('summary', {}, `${entries.length} change${entries.length === 1 ? '' : 's'}`),
    h(
      'ol',
      { class: 'history' },
      entries.map((e) => h('li', {}, render(e))),
    ),
  );
}

function patterns(state) {
  const counts = h('div');
  const list = pagedList(async (cursor) => {
    const r = await scoped('/v1/memory/patterns/list', { limit: 20, ...(cursor ? { cursor } : {}), ...(state ? { state } : {}) });
    counts.replaceChildren(filters('patterns', state, ['trusted', 'contested', 'suppressed', 'observed'], r.counts.patterns));
    return {
      next_cursor: r.next_cursor,
      node: table(
        [
          { label: 'tool', cell: (p) => h('code', {}, p.tool) },
          { label: 'task family', cell: (p) => p.task_family_label },
          { label: 'class', cell: (p) => badge(p.state) },
          { label: 'runs +/−', cell: (p) => `${p.distinct_positive_runs} / ${p.distinct_negative_runs}`, class: 'n' },
          { label: 'confidence', cell: (p) => num(p.confidence, 2), class: 'n' },
          { label: 'trusted · contested', cell: (p) => `${time(p.trusted_at)} · ${time(p.contested_at)}` },
          { label: 'suppressed', cell: (p) => (p.suppressed ? `${p.suppressed.reason} (${p.suppressed.actor})` : '—') },
          { label: 'history', cell: (p) => history(p.history, (e) => `${time(e.at)} ${e.from} → ${e.to} (${e.trigger}, ${e.actor}): ${e.reason}`) },
        ],
        r.patterns,
        { testid: 'patterns', empty: 'No patterns.' },
      ),
    };
  });
  return section('Patterns', counts, list);
}

function policies(state) {
  const counts = h('div');
  const list = pagedList(async (cursor) => {
    const r = await scoped('/v1/memory/policies/list', { limit: 20, ...(cursor ? { cursor } : {}), ...(state ? { state } : {}) });
    counts.replaceChildren(filters('policies', state, ['active', 'contested', 'retired'], r.counts.policies));
    return {
      next_cursor: r.next_cursor,
      node: table(
        [
          {
            label: 'policy memory',
            cell: (p) =>
              link(`/node/${p.node_id}`, `${p.policy_contract.selected_tool ?? '?'} for ${p.policy_contract.task_family_label ?? p.policy_contract.task_kind ?? 'a task family'}`),
          },
          { label: 'state', cell: (p) => badge(p.policy_contract.policy_memory_state ?? 'computed') },
          { label: 'applies as', cell: (p) => p.policy_contract.activation_mode },
          { label: 'source', cell: (p) => p.policy_contract.source ?? '—' },
          { label: 'why', cell: (p) => p.policy_contract.reason },
          { label: 'feedback +/−', cell: (p) => `${p.counts.positive} / ${p.counts.negative}`, class: 'n' },
          {
            label: 'governance history',
            cell: (p) =>
              history(p.policy_contract.history, (e) => h('span', {}, `${time(e.at)} `, badge(e.action), ` ${e.from} → ${e.to} by ${e.actor} (${e.trigger}): ${e.reason}`)),
          },
        ],
        r.policies,
        { testid: 'policies', empty: 'No policy memory has materialised in this scope.' },
      ),
    };
  });
  return section('Policy memory', counts, list);
}

/** Evidence ids as links, with each node's title (one find call for all of them). */
export async function evidenceList(ids) {
  if (!ids || ids.length === 0) return muted('No evidence.');
  const r = await scoped('/v1/memory/find', { ids: ids.slice(0, 100), include_text: false, limit: 100 });
  const byId = new Map(r.nodes.map((n) => [n.id, n]));
  return h(
    'ul',
    { class: 'evidence', 'data-testid': 'evidence' },
    ids.map((id) => {
      const n = byId.get(id);
      return h(
        'li',
        {},
        n
          ? [link(`/node/${id}`, n.title ?? n.summary.slice(0, 100)), ' ', badge(n.tier), h('span', { class: 'muted' }, ` ${n.kind ?? n.type} · ${time(n.created_at)}`)]
          : [h('code', {}, id), h('span', { class: 'muted' }, ' (not in this scope any more)')],
      );
    }),
  );
}

function taskStart(query) {
  const text = h('textarea', { name: 'task', rows: 3, placeholder: 'describe a task, as an agent would start it', 'aria-label': 'task' }, query.get('task') ?? '');
  const kind = h('input', { name: 'task_kind', placeholder: 'task kind (optional)', 'aria-label': 'task kind' });
  const file = h('input', { name: 'file_path', placeholder: 'file path (optional)', 'aria-label': 'file path' });
  const out = h('div', { 'data-testid': 'task-start' });
  const run = async (e) => {
    e?.preventDefault();
    if (!text.value.trim()) return;
    await fill(out, async () => {
      const r = await scoped('/v1/memory/kickoff/recommendation', {
        query_text: text.value.trim(),
        context: { goal: text.value.trim(), ...(kind.value.trim() ? { task_kind: kind.value.trim() } : {}), ...(file.value.trim() ? { file_path: file.value.trim() } : {}) },
      });
      const fa = r.first_action;
      const u = r.uncertainty;
      const head = facts([
        ['task family', r.task_family ? `${r.task_family.label}${r.task_family.known ? '' : ' (new)'}` : 'none matched'],
        ['uncertainty', `${u.level} (confidence ${num(u.confidence, 2)})${u.reasons.length ? `: ${u.reasons.join('; ')}` : ''}`],
      ]);
      if (!fa) return h('div', {}, head, muted('No first action: nothing learned in this scope applies to this task yet.'));
      return h(
        'div',
        {},
        head,
        h('h3', {}, 'First action'),
        facts([
          ['do', h('strong', { 'data-testid': 'first-action' }, fa.next_action)],
          ['tool · file', `${fa.selected_tool ?? '—'} · ${fa.file_path ?? '—'}`],
          ['source', h('span', {}, badge(fa.source_kind, 'kind'), fa.history_applied ? ' learned from history' : '')],
          ['confidence · relevance', `${num(fa.confidence, 2)} · ${num(fa.relevance, 2)}`],
          ['why', fa.rationale],
          ['workflow', fa.workflow_id ? link(`/workflow/${fa.workflow_id}`, fa.workflow_id) : null],
          ['pattern', fa.pattern_id ? link(`/node/${fa.pattern_id}`, fa.pattern_id) : null],
          ['policy memory', fa.policy_memory_id ? link(`/node/${fa.policy_memory_id}`, fa.policy_memory_id) : null],
        ]),
        h('h3', {}, `Evidence (${fa.evidence_ids.length})`),
        await evidenceList(fa.evidence_ids),
      );
    });
  };
  const form = h('form', { class: 'task', onsubmit: run }, text, h('div', { class: 'row' }, kind, file, h('button', { type: 'submit' }, 'Start task')));
  if (text.value) void run();
  return section('Try task start', muted('Asks /v1/memory/kickoff/recommendation as an agent starting this task would; nothing is written.'), form, out);
}
