// One learned workflow: its steps, where it was distilled from (distillation origin and origin
// counts), its counts, the playbooks behind it, and its evidence (the executions it learned from).

import { scoped } from '../api.js';
import { badge, facts, fill, h, link, muted, num, section, table, time } from '../dom.js';
import { evidenceList } from './learning.js';

export async function renderWorkflow(main, args) {
  const body = h('div');
  main.append(body);
  await fill(body, async () => {
    const { workflow: w } = await scoped('/v1/memory/workflows/get', { workflow_id: args[0] });
    const evidence = h('div');
    void fill(evidence, () => evidenceList(w.provenance_ids));
    return h(
      'div',
      {},
      h('h1', {}, w.goal),
      h('p', { class: 'row' }, badge(w.promotion_state), w.promotion_ready ? badge('promotion ready', 'ready') : null, badge(w.tier), h('code', { class: 'muted' }, w.workflow_id)),
      h(
        'div',
        { class: 'two' },
        section(
          'Workflow',
          facts([
            ['task family', h('code', {}, w.task_family)],
            ['task kind', w.task_kind],
            ['promotion', `${w.promotion_state}${w.stable_reason ? ` (${w.stable_reason})` : ''}`],
            ['distillation origin', badge(w.distillation_origin, 'origin')],
            [
              'runs',
              `${w.counts.successes} succeeded, ${w.counts.failures} failed, ${w.counts.partials} partial of ${w.counts.observations} observed (${w.counts.unresolved_failures} unresolved failures)`,
            ],
            ['consistent first step', w.consistent_first_step ? 'yes' : 'no'],
            ['confidence', num(w.confidence, 2)],
            ['target files', w.target_files.join(', ')],
            ['node', link(`/node/${w.workflow_id}`, 'open the memory node')],
            ['updated', time(w.updated_at)],
          ]),
        ),
        section(
          'Where it was learned from',
          table(
            [
              { label: 'origin', cell: ([k]) => k },
              { label: 'observations', cell: ([, v]) => String(v), class: 'n' },
            ],
            Object.entries(w.origin_counts).filter(([, v]) => v > 0),
            { empty: 'No observations counted.' },
          ),
          w.playbook_ids.length
            ? h(
                'p',
                {},
                'Playbooks: ',
                w.playbook_ids.map((p, i) => [i ? ', ' : '', link(`/playbook/${p}`, p)]),
              )
            : null,
        ),
      ),
      section(
        'Steps',
        table(
          [
            { label: '#', cell: (s) => String(s.i + 1), class: 'n' },
            { label: 'tool', cell: (s) => s.tool ?? '—' },
            { label: 'file', cell: (s) => s.file_path ?? '—' },
            { label: 'next action', cell: (s) => s.next_action ?? '—' },
          ],
          w.steps.map((s, i) => ({ ...s, i })),
          { empty: 'No steps.' },
        ),
      ),
      section(`Evidence (${w.provenance_ids.length}${w.provenance_ids.length >= 50 ? ', the latest 50' : ''})`, muted('The executions this workflow was learned from.'), evidence),
    );
  });
}
