// The inspector's shell: hash routes (#/page/arg?tenant=…&scope=…), the tenant and scope pickers,
// and the API key prompt. Pages live in ./pages; each renders into <main> from the API.

import { call, getKey, onUnauthorized, setKey, where } from './api.js';
import { h, href } from './dom.js';
import { renderMemory } from './pages/memory.js';
import { renderNode } from './pages/node.js';
import { renderLearning } from './pages/learning.js';
import { renderWorkflow } from './pages/workflow.js';
import { renderPlaybooks, renderPlaybook } from './pages/playbooks.js';
import { renderRuns, renderRun, renderSandboxRun } from './pages/runs.js';

// A link carrying the install token (`lore start` prints one when LORE_REQUIRE_TOKEN is on): the
// token is kept in this tab like a typed key, and taken out of the address bar and history at once.
// It rides in the fragment, which the browser never sends to any server.
{
  const given = /^#token=([A-Za-z0-9_-]{16,256})$/.exec(location.hash);
  if (given) {
    setKey(given[1]);
    history.replaceState(null, '', `${location.pathname}${location.search}#/memory`);
  }
}

const routes = {
  memory: renderMemory,
  node: renderNode,
  learning: renderLearning,
  workflow: renderWorkflow,
  playbooks: renderPlaybooks,
  playbook: renderPlaybook,
  runs: renderRuns,
  run: renderRun,
  'sandbox-run': renderSandboxRun,
};
const NAV = [
  ['memory', 'Memory'],
  ['learning', 'Learning'],
  ['playbooks', 'Playbooks'],
  ['runs', 'Runs'],
];
const OTHER = '\u0000other';

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/memory';
  const [path, qs] = raw.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] ?? 'memory', args: parts.slice(1), query: new URLSearchParams(qs ?? '') };
}

// ---- API key ----------------------------------------------------------------------------------

const keyDialog = document.getElementById('key-dialog');
const keyInput = document.getElementById('key-input');
let keyWaiters = [];
function askKey(reason) {
  document.getElementById('key-reason').textContent = reason ?? 'This Lore asks for an API key (LORE_API_KEYS) or its install token (LORE_REQUIRE_TOKEN).';
  keyInput.value = '';
  if (!keyDialog.open) keyDialog.showModal();
  return new Promise((resolve) => keyWaiters.push(resolve));
}
const settleKey = (given) => {
  const waiting = keyWaiters;
  keyWaiters = [];
  for (const w of waiting) w(given);
};
document.getElementById('key-form').addEventListener('submit', () => {
  setKey(keyInput.value.trim());
  settleKey(true);
  void refreshPickers();
});
document.getElementById('key-clear').addEventListener('click', () => {
  setKey(null);
  keyDialog.close();
  settleKey(false);
});
keyDialog.addEventListener('cancel', () => settleKey(false));
document.getElementById('key-button').addEventListener('click', () => void askKey(getKey() ? 'A key is set for this tab; type another to replace it.' : undefined));
onUnauthorized((message) => askKey(message));

// ---- Tenant and scope pickers --------------------------------------------------------------------

const tenantSel = document.getElementById('tenant');
const scopeSel = document.getElementById('scope');

/** Asks for a tenant or scope name that is not in the list (a scope with no memory yet, say). */
function askOther(what) {
  const dialog = document.getElementById('other-dialog');
  const input = document.getElementById('other-input');
  document.getElementById('other-title').textContent = `Open another ${what}`;
  input.value = '';
  dialog.showModal();
  return new Promise((resolve) => {
    const done = (v) => {
      dialog.removeEventListener('close', onClose);
      resolve(v);
    };
    const onClose = () => done(dialog.returnValue === 'ok' && input.value.trim() ? input.value.trim() : null);
    dialog.addEventListener('close', onClose);
    document.getElementById('other-cancel').onclick = () => dialog.close('cancel');
  });
}

function options(sel, values, current, what) {
  const all = values.includes(current) ? values : [current, ...values];
  sel.replaceChildren(...all.map((v) => h('option', { value: v, selected: v === current }, v)), h('option', { value: OTHER }, `other ${what}…`));
}

async function refreshPickers() {
  try {
    const t = await call('/v1/memory/tenants/list', { limit: 200 });
    options(tenantSel, t.tenants, where.tenant, 'tenant');
    const s = await call('/v1/memory/scopes/list', { tenant_id: where.tenant, limit: 200 });
    options(
      scopeSel,
      s.scopes.map((x) => x.scope),
      where.scope,
      'scope',
    );
  } catch {
    options(tenantSel, [], where.tenant, 'tenant');
    options(scopeSel, [], where.scope, 'scope');
  }
}

async function pick(sel, field, what) {
  let value = sel.value;
  if (value === OTHER) value = await askOther(what);
  if (!value) {
    sel.value = where[field];
    return;
  }
  const { page } = parseHash();
  where[field] = value;
  if (field === 'tenant') where.scope = 'default';
  // Another scope: back to the list page (ids of the old scope mean nothing in the new one).
  location.hash = href(`/${pageSection(page)}`);
  await refreshPickers();
}
tenantSel.addEventListener('change', () => void pick(tenantSel, 'tenant', 'tenant'));
scopeSel.addEventListener('change', () => void pick(scopeSel, 'scope', 'scope'));

// ---- Router ------------------------------------------------------------------------------------

let shownWhere = '';
async function route() {
  const { page, args, query } = parseHash();
  where.tenant = query.get('tenant') || where.tenant;
  where.scope = query.get('scope') || where.scope;
  if (shownWhere !== `${where.tenant}\u0000${where.scope}`) {
    shownWhere = `${where.tenant}\u0000${where.scope}`;
    void refreshPickers();
  }
  const render = routes[page] ?? renderMemory;
  document
    .getElementById('nav')
    .replaceChildren(...NAV.map(([p, label]) => h('a', { href: href(`/${p}`), class: p === page || (routes[page] && pageSection(page) === p) ? 'active' : null }, label)));
  const main = document.getElementById('main');
  main.replaceChildren();
  document.title = `Lore inspector · ${page}`;
  await render(main, args, query);
}

const pageSection = (page) => ({ node: 'memory', workflow: 'learning', playbook: 'playbooks', run: 'runs', 'sandbox-run': 'runs' })[page] ?? page;

window.addEventListener('hashchange', () => void route());
void route();
