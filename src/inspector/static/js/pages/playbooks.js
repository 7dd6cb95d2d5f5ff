// Playbooks: every playbook with its latest version; one playbook with its versions, each
// version's status history and review, shadow validation (with its workflow in the Temporal UI).

import { scoped, temporalLink } from '../api.js';
import { badge, externalLink, facts, fill, h, json, link, muted, pagedList, section, table, time } from '../dom.js';

export async function renderPlaybooks(main) {
  main.append(
    h('h1', {}, 'Playbooks'),
    section(
      'Playbooks',
      pagedList(async (cursor) => {
        const r = await scoped('/v1/memory/replay/playbooks/list', { limit: 25, ...(cursor ? { cursor } : {}) });
        return {
          next_cursor: r.next_cursor,
          node: table(
            [
              { label: 'playbook', cell: (p) => link(`/playbook/${p.playbook_id}`, p.name) },
              { label: 'id', cell: (p) => h('code', {}, p.playbook_id) },
              { label: 'latest', cell: (p) => [`v${p.latest_version} `, badge(p.status)] },
              { label: 'active', cell: (p) => (p.active_version === null ? '—' : `v${p.active_version}`) },
              { label: 'updated', cell: (p) => time(p.updated_at) },
            ],
            r.playbooks,
            { testid: 'playbooks', empty: 'No playbooks in this scope.' },
          ),
        };
      }),
    ),
  );
}

export async function renderPlaybook(main, args, query) {
  const body = h('div');
  main.append(body);
  await fill(body, async () => {
    const version = query.get('version');
    const r = await scoped('/v1/memory/replay/playbooks/get', { playbook_id: args[0], ...(version ? { version: Number(version) } : {}) });
    const p = r.playbook;
    const shadow = p.shadow_validation;
    const shadowLink = shadow?.workflow_id ? await temporalLink(shadow.workflow_id) : null;
    return h(
      'div',
      {},
      h('h1', {}, p.name),
      h(
        'p',
        { class: 'row' },
        `version ${p.version} `,
        badge(p.status),
        r.active_version !== null ? h('span', { class: 'muted' }, ` active: v${r.active_version}`) : null,
        h('code', { class: 'muted' }, p.playbook_id),
      ),
      h(
        'div',
        { class: 'two' },
        section(
          'Versions',
          table(
            [
              {
                label: 'version',
                cell: (v) => (v.version === p.version ? h('strong', {}, `v${v.version}`) : link(`/playbook/${p.playbook_id}`, `v${v.version}`, { version: v.version })),
              },
              { label: 'status', cell: (v) => badge(v.status) },
              { label: 'repair of', cell: (v) => (v.repair_of === null ? '—' : `v${v.repair_of}`) },
              { label: 'created', cell: (v) => time(v.created_at) },
            ],
            r.versions,
            { testid: 'versions' },
          ),
        ),
        section(
          `Version ${p.version}`,
          facts([
            ['source run', p.source_run_id],
            ['sandbox profile', p.sandbox_profile],
            ['note', p.note],
            [
              'review',
              p.review ? h('span', {}, badge(p.review.action), ` by ${p.review.actor} at ${time(p.review.at)}${p.review.note ? `: ${p.review.note}` : ''}`) : 'not reviewed',
            ],
            [
              'shadow validation',
              shadow
                ? h(
                    'span',
                    {},
                    badge(shadow.status),
                    ` ${shadow.mode}: ${shadow.summary} `,
                    shadow.workflow_id ? externalLink(shadowLink, shadow.workflow_id, { 'data-testid': 'temporal-link' }) : null,
                  )
                : 'none',
            ],
            ['parameters', p.parameters.length ? p.parameters.map((x) => `${x.name}${x.required ? '' : ` = ${JSON.stringify(x.default)}`}`).join(', ') : null],
          ]),
        ),
      ),
      section(
        'Status history and review',
        table(
          [
            { label: 'at', cell: (e) => time(e.at) },
            { label: 'change', cell: (e) => h('span', {}, e.from ? badge(e.from) : '—', ' → ', badge(e.to)) },
            { label: 'via', cell: (e) => e.via },
            { label: 'by', cell: (e) => e.actor },
            { label: 'note', cell: (e) => e.note ?? '' },
          ],
          p.status_history,
          { testid: 'status-history' },
        ),
      ),
      section(
        `Steps (${p.steps.length})`,
        table(
          [
            { label: '#', cell: (s) => String(s.step_index), class: 'n' },
            { label: 'tool', cell: (s) => h('code', {}, s.tool_name) },
            { label: 'input', cell: (s) => json(s.tool_input) },
            { label: 'expected', cell: (s) => (s.expected_output_signature ? json(s.expected_output_signature) : muted('—')) },
            { label: 'attempts', cell: (s) => String(s.max_attempts), class: 'n' },
          ],
          p.steps,
        ),
      ),
    );
  });
}
