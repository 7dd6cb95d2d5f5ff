// Small DOM helpers. Everything shown is built with text nodes and attributes, never innerHTML:
// memory text is whatever agents wrote, and must never become markup.

import { where } from './api.js';

/** h('a', { href, class, onclick }, child, [children], 'text'): an element; null/false children are skipped. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'data') for (const [dk, dv] of Object.entries(v)) el.dataset[dk] = dv;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** A link inside the inspector, keeping the picked tenant and scope. */
export function href(path, query = {}) {
  const q = new URLSearchParams({ tenant: where.tenant, scope: where.scope });
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  return `#${path}?${q}`;
}

export const link = (path, text, query = {}, attrs = {}) => h('a', { href: href(path, query), ...attrs }, text);

/** A link into the Temporal UI (a new tab), or the plain id when its address is unknown. */
export function externalLink(url, text, attrs = {}) {
  return url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'ext', ...attrs }, text) : h('code', {}, text);
}

/** Times in UTC, to the minute (the same for everyone looking at one scope). */
export function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : `${d.toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

export const num = (x, digits = 3) => (x === null || x === undefined ? '—' : Number.isInteger(x) ? String(x) : Number(x).toFixed(digits));

export const badge = (text, kind = text) => h('span', { class: `badge b-${String(kind).replace(/[^a-z0-9_-]/gi, '')}` }, text);

export const section = (title, ...children) => h('section', { class: 'card' }, h('h2', {}, title), ...children);

export const muted = (text) => h('p', { class: 'muted' }, text);

/** A table: columns [{ label, cell(row) → node | string, class? }]. */
export function table(columns, rows, opts = {}) {
  if (rows.length === 0) return muted(opts.empty ?? 'Nothing here.');
  return h(
    'table',
    { class: opts.class ?? 'grid', ...(opts.testid ? { 'data-testid': opts.testid } : {}) },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { class: c.class }, c.label)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          opts.rowAttrs ? opts.rowAttrs(r) : {},
          columns.map((c) => h('td', { class: c.class }, c.cell(r))),
        ),
      ),
    ),
  );
}

/** key: value pairs as a definition list; values may be nodes. */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null || v === undefined || v === '' ? '—' : v)]),
  );
}

export function errorBox(err) {
  const code = err?.code ? `${err.code}: ` : '';
  return h('div', { class: 'error', role: 'alert' }, `${code}${err?.message ?? String(err)}`);
}

/** Replaces el's content with a loading note, then with what render() resolves to (or the error). */
export async function fill(el, render) {
  el.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  try {
    el.replaceChildren(await render());
  } catch (err) {
    el.replaceChildren(errorBox(err));
  }
}

/**
 * A paged list: load(cursor) resolves { node, next_cursor }. Previous pages are remembered so
 * Back works; only one page is ever loaded at a time (large scopes stay fast).
 */
export function pagedList(load, opts = {}) {
  const root = h('div', { class: 'paged', ...(opts.testid ? { 'data-testid': opts.testid } : {}) });
  const stack = [];
  let current;
  const show = async (cursor) => {
    current = cursor;
    await fill(root, async () => {
      const page = await load(cursor);
      const prev = h('button', { type: 'button', class: 'quiet', disabled: stack.length === 0, onclick: () => show(stack.pop()) }, '← Previous');
      const next = h('button', { type: 'button', class: 'quiet', disabled: !page.next_cursor, onclick: () => (stack.push(current), show(page.next_cursor)) }, 'Next →');
      return h('div', {}, page.node, h('div', { class: 'pager' }, prev, h('span', { class: 'muted' }, `page ${stack.length + 1}`), next));
    });
  };
  void show(undefined);
  return root;
}

export const pre = (text) => h('pre', { class: 'payload' }, text);

export const json = (value) => h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
