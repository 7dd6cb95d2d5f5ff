// One node: its content, revisions, edges, forgetting decisions (the current one and those it
// replaced) and archive state, with the inspector's one write action: rehydrate an archived node.

import { scoped } from '../api.js';
import { badge, errorBox, facts, fill, h, json, link, muted, num, pre, section, table, time } from '../dom.js';
import { lifecycleOf } from './memory.js';

export async function renderNode(main, args) {
  const id = args[0];
  const body = h('div');
  main.append(body);
  await fill(body, () => nodeView(id, body));
}

async function nodeView(id, body) {
  const r = await scoped('/v1/memory/resolve', { id });
  const n = r.node;
  const sem = n.slots.semantic_forgetting_v1 ?? null;
  const rel = n.slots.archive_relocation_v1 ?? null;
  const otherSlots = Object.fromEntries(Object.entries(n.slots).filter(([k]) => k !== 'semantic_forgetting_v1' && k !== 'archive_relocation_v1'));
  const note = h('div', { 'data-testid': 'rehydrate-result' });

  const rehydrate = async () => {
    // The one write the inspector makes, and only after the person says yes.
    if (!window.confirm(`Rehydrate “${n.title || n.id}” from the archive to the warm tier? Its payload is restored from the cold store.`)) return;
    try {
      const res = await scoped('/v1/memory/archive/rehydrate', { ids: [n.id], target_tier: 'warm', reason: 'rehydrated from the inspector' });
      const item = res.nodes[0];
      note.replaceChildren(
        h(
          'div',
          { class: 'ok', role: 'status' },
          item
            ? `Rehydrated: ${item.from_tier} → ${item.to_tier}${item.payload_restored ? `, ${item.payload_bytes} bytes restored` : ''}${item.detail ? ` (${item.detail})` : ''}.`
            : 'Nothing to rehydrate.',
        ),
      );
      await fill(body, () => nodeView(id, body).then((view) => (view.prepend(note), view)));
    } catch (err) {
      note.replaceChildren(errorBox(err));
    }
  };

  return h(
    'div',
    {},
    h('h1', {}, n.title || n.summary.slice(0, 100) || n.id),
    h('p', { class: 'row' }, badge(n.tier), lifecycleOf(n), n.kind ? badge(n.kind, 'kind') : null, n.pinned ? badge('pinned') : null, h('code', { class: 'muted' }, n.id)),
    note,
    h(
      'div',
      { class: 'two' },
      section(
        'Node',
        facts([
          ['id', h('code', {}, n.id)],
          ['client_id', n.client_id],
          ['uri', h('code', {}, n.uri)],
          ['type / kind', `${n.type}${n.kind ? ` / ${n.kind}` : ''}`],
          ['tier', n.tier],
          ['revision', String(n.revision)],
          ['importance · salience · confidence', `${num(n.importance, 2)} · ${num(n.salience, 2)} · ${num(n.confidence, 2)}`],
          ['feedback', `+${n.feedback.positive} / −${n.feedback.negative} (quality ${num(n.feedback.quality, 2)})`],
          ['access', `${n.access.count} (last ${time(n.access.last_at)})`],
          ['activation', `${n.activation.count} (last ${time(n.activation.last_activated_at)})`],
          ['tags', n.tags.join(', ')],
          ['created · updated', `${time(n.created_at)} · ${time(n.updated_at)}`],
          ['actor', n.actor],
        ]),
      ),
      section(
        'Archive state',
        n.tier === 'archive'
          ? h(
              'div',
              { class: 'row' },
              h('button', { type: 'button', class: 'danger', onclick: rehydrate, 'data-testid': 'rehydrate' }, 'Rehydrate to warm…'),
              muted('Brings the payload back from the cold store.'),
            )
          : null,
        rel
          ? facts([
              ['relocation', rel.relocation_state],
              ['target', rel.relocation_target],
              ['payload scope', rel.payload_scope],
              ['relocated at', time(rel.relocated_at)],
              ['payload', rel.payload_bytes === null ? null : `${rel.payload_bytes} bytes (${rel.stored_bytes} stored), revision ${rel.revision}`],
              ['cold key', rel.cold_key ? h('code', {}, rel.cold_key) : null],
              ['rehydrated at', time(rel.rehydrated_at)],
            ])
          : muted('The payload is on the node (never relocated).'),
      ),
    ),
    section(
      'Payload',
      n.tier === 'archive' && n.text === '' ? muted('Archived: the payload is in the cold store; the summary stays searchable.') : pre(n.text),
      h('h3', {}, 'Summary'),
      pre(n.summary),
    ),
    section('Forgetting decisions', decisions(sem)),
    section(
      `Revisions (${r.revisions.length} earlier)`,
      table(
        [
          { label: 'revision', cell: (v) => String(v.revision), class: 'n' },
          { label: 'created', cell: (v) => time(v.created_at) },
          { label: 'superseded', cell: (v) => time(v.superseded_at) },
          { label: 'by', cell: (v) => v.actor },
          { label: 'content', cell: (v) => h('details', {}, h('summary', {}, v.title ?? v.summary.slice(0, 80)), pre(v.text)) },
        ],
        r.revisions,
        { empty: 'No earlier revisions: this is the first content.', testid: 'revisions' },
      ),
    ),
    section(
      `Edges (${r.edges.length})`,
      table(
        [
          { label: 'type', cell: (e) => e.type },
          { label: 'from', cell: (e) => (e.src === n.id ? 'this node' : link(`/node/${e.src}`, e.src)) },
          { label: 'to', cell: (e) => (e.dst === n.id ? 'this node' : link(`/node/${e.dst}`, e.dst)) },
          { label: 'created', cell: (e) => time(e.created_at) },
        ],
        r.edges,
        { empty: 'No edges.', testid: 'edges' },
      ),
    ),
    section('Other slots', Object.keys(otherSlots).length ? json(otherSlots) : muted('None.')),
  );
}

function decisions(sem) {
  if (!sem) return muted('The lifecycle operator has not decided about this node yet.');
  const rows = [sem, ...(sem.history ?? [])];
  return h(
    'div',
    {},
    facts([
      ['latest', h('span', {}, badge(sem.action), ` ${sem.current_tier} → ${sem.target_tier}`)],
      ['retention score', num(sem.retention_score)],
      [
        'why',
        h(
          'ul',
          {},
          sem.rationale.map((x) => h('li', {}, x)),
        ),
      ],
      ['decided', `${time(sem.decided_at)} by ${sem.run_id}`],
      ['in this tier since', time(sem.tier_changed_at)],
      ['policy version', String(sem.policy)],
    ]),
    h('h3', {}, 'History (newest first)'),
    table(
      [
        { label: 'decided', cell: (d) => time(d.decided_at) },
        { label: 'action', cell: (d) => badge(d.action) },
        { label: 'tier', cell: (d) => `${d.current_tier} → ${d.target_tier}` },
        { label: 'state', cell: (d) => d.lifecycle_state },
        { label: 'score', cell: (d) => num(d.retention_score), class: 'n' },
        { label: 'why', cell: (d) => d.rationale.join('; ') },
      ],
      rows,
      { testid: 'decisions' },
    ),
  );
}
