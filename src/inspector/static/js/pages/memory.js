// Memory: counts by tier and lifecycle state (now and over time), search with the recall score
// breakdown per hit ("why recalled"), and the scope's nodes one page at a time.

import { scoped } from '../api.js';
import { stepChart } from '../chart.js';
import { badge, facts, fill, h, link, muted, num, pagedList, section, table, time } from '../dom.js';

const TIERS = [
  ['hot', 'hot', '#d9480f'],
  ['warm', 'warm', '#f59f00'],
  ['cold', 'cold', '#1c7ed6'],
  ['archive', 'archive', '#868e96'],
];
const STATES = [
  ['active', 'active', '#2b8a3e'],
  ['contested', 'contested', '#e8590c'],
  ['retired', 'retired', '#5f3dc4'],
  ['archived', 'archived', '#868e96'],
];
const KINDS = ['workflow', 'pattern', 'policy_memory', 'handoff', 'session', 'session_event', 'playbook_learning'];

export async function renderMemory(main, _args, query) {
  const overview = h('div');
  main.append(h('h1', {}, 'Memory'), overview, searchSection(query), nodesSection(query));
  await fill(overview, async () => {
    const [summary, history] = await Promise.all([scoped('/v1/memory/lifecycle/summary', { review_limit: 5 }), scoped('/v1/memory/lifecycle/history', { limit: 168 })]);
    const fs = summary.forgetting_summary;
    // The stored hourly samples, then the live counts as the last point.
    const points = [...history.points, history.current].map((p) => ({ at: p.at, values: { ...p.tier_counts, ...p.lifecycle_state_counts } }));
    const sw = (keys) => keys.map(([key, label, color]) => ({ key, label, color }));
    return h(
      'div',
      { class: 'two' },
      section(
        'Now',
        facts([
          ['nodes', String(fs.node_count)],
          ['by tier', TIERS.map(([k]) => `${k} ${fs.tier_counts[k]}`).join(' · ')],
          ['by lifecycle state', STATES.map(([k]) => `${k} ${fs.lifecycle_state_counts[k]}`).join(' · ')],
          [
            'decisions',
            Object.entries(fs.semantic_action_counts)
              .map(([k, v]) => `${k} ${v}`)
              .join(' · '),
          ],
          ['last lifecycle run', fs.last_run ? `${time(fs.last_run.decided_at)} (${fs.last_run.examined} examined)` : 'never'],
          ['recommended', fs.recommended_action],
        ]),
        summary.review_candidates.length > 0
          ? h(
              'div',
              {},
              h('h3', {}, 'Waiting for review'),
              h(
                'ul',
                {},
                summary.review_candidates.map((c) => h('li', {}, link(`/node/${c.id}`, c.title ?? c.summary), ' ', badge(c.lifecycle_state))),
              ),
            )
          : null,
      ),
      section(
        'Over time',
        h('p', { class: 'muted' }, `Hourly samples (the last counts seen in each hour that changed), then now. ${history.points.length} samples.`),
        h('h3', {}, 'Nodes by tier'),
        stepChart(points, sw(TIERS), { stacked: true, label: 'nodes by tier over time' }),
        h('h3', {}, 'Nodes by lifecycle state'),
        stepChart(points, sw(STATES), { stacked: false, label: 'nodes by lifecycle state over time' }),
      ),
    );
  });
}

/** One recall hit's "why": the lexical and dense signals, their fusion, and the importance/tier weight. */
export function whyRecalled(b, score) {
  const rows = [
    ['lexical (BM25)', b.bm25 ? `rank ${b.bm25.rank} · score ${num(b.bm25.score)} (bm25 ${num(b.bm25.bm25)} + context ${num(b.bm25.context)})` : 'no lexical match'],
    ['dense (vectors)', b.vector ? `rank ${b.vector.rank} · cosine ${num(b.vector.score)}` : b.strategy === 'hybrid_rrf' ? 'no dense match' : 'off (no embedding provider)'],
    ['fused', b.fused === null ? `— (${b.strategy})` : `${num(b.fused, 4)} (reciprocal rank fusion)`],
    ['base', num(b.base, 4)],
    ['weight', `× ${num(b.weight.factor)} (importance ${num(b.weight.importance, 2)}, tier ${b.weight.tier})`],
    ['score', num(score, 4)],
  ];
  return h(
    'table',
    { class: 'why', 'data-testid': 'why' },
    h(
      'tbody',
      {},
      rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v))),
    ),
  );
}

function searchSection(query) {
  const input = h('input', { type: 'search', name: 'q', placeholder: 'what should memory recall?', value: query.get('q') ?? '', 'aria-label': 'recall query' });
  const archived = h('input', { type: 'checkbox', name: 'archived' });
  const results = h('div', { 'data-testid': 'recall-results' });
  const run = async (e) => {
    e?.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    await fill(results, async () => {
      // record_access: false: looking from the inspector is not a use (forgetting weighs uses).
      const r = await scoped('/v1/memory/recall_text', { query_text: text, limit: 20, include_archived: archived.checked, record_access: false });
      const head = muted(`${r.results.length} hits · ${r.query.strategy} · ${num(r.took_ms, 1)} ms${r.query.vector_error ? ` · vectors: ${r.query.vector_error}` : ''}`);
      if (r.results.length === 0) return h('div', {}, head, muted('No memory matches.'));
      return h(
        'div',
        {},
        head,
        h(
          'ol',
          { class: 'hits' },
          r.results.map((hit) =>
            h(
              'li',
              { class: 'hit', 'data-testid': 'hit' },
              h(
                'div',
                { class: 'hit-head' },
                link(`/node/${hit.id}`, hit.title ?? hit.summary.slice(0, 120)),
                ' ',
                badge(hit.tier),
                hit.kind ? badge(hit.kind, 'kind') : null,
                h('span', { class: 'score' }, num(hit.score, 4)),
              ),
              h('p', { class: 'snippet' }, (hit.text || hit.summary).slice(0, 280)),
              h('details', { open: true }, h('summary', {}, 'why recalled'), whyRecalled(hit.score_breakdown, hit.score)),
            ),
          ),
        ),
      );
    });
  };
  const form = h('form', { class: 'search', onsubmit: run }, input, h('label', { class: 'inline' }, archived, ' include archived'), h('button', { type: 'submit' }, 'Recall'));
  if (input.value) void run();
  return section('Search (recall_text)', form, results);
}

function nodesSection(query) {
  const tier = h(
    'select',
    { 'aria-label': 'tier' },
    h('option', { value: '' }, 'any tier'),
    TIERS.map(([t]) => h('option', { value: t, selected: query.get('tier') === t }, t)),
  );
  const kind = h(
    'select',
    { 'aria-label': 'kind' },
    h('option', { value: '' }, 'any kind'),
    KINDS.map((k) => h('option', { value: k, selected: query.get('kind') === k }, k)),
  );
  const holder = h('div');
  const load = () =>
    holder.replaceChildren(
      pagedList(
        async (cursor) => {
          const r = await scoped('/v1/memory/find', {
            limit: 25,
            include_text: false,
            ...(cursor ? { cursor } : {}),
            ...(tier.value ? { tiers: [tier.value] } : {}),
            ...(kind.value ? { kinds: [kind.value] } : {}),
          });
          return {
            next_cursor: r.next_cursor,
            node: table(
              [
                { label: 'node', cell: (n) => link(`/node/${n.id}`, n.title ?? (n.summary.slice(0, 80) || n.id)) },
                { label: 'type / kind', cell: (n) => [n.type, n.kind ? ` / ${n.kind}` : ''] },
                { label: 'tier', cell: (n) => badge(n.tier) },
                { label: 'lifecycle', cell: (n) => lifecycleOf(n) },
                { label: 'importance', cell: (n) => num(n.importance, 2), class: 'n' },
                { label: 'updated', cell: (n) => time(n.updated_at) },
              ],
              r.nodes,
              { testid: 'node-list', empty: 'No nodes match.' },
            ),
          };
        },
        { testid: 'nodes' },
      ),
    );
  tier.addEventListener('change', load);
  kind.addEventListener('change', load);
  load();
  return section('Nodes', h('div', { class: 'row' }, tier, kind, muted('id order, 25 per page')), holder);
}

export function lifecycleOf(n) {
  if (n.tier === 'archive') return badge('archived');
  const sem = n.slots?.semantic_forgetting_v1;
  return sem ? badge(sem.lifecycle_state) : h('span', { class: 'muted' }, 'not evaluated');
}
