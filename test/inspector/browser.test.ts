import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ManualClock } from '../../src/model/clock';
import { startTestApi, type TestApi } from '../helpers/app';
import { chromiumInstalled, launchBrowser, type Browser } from '../helpers/browser';
import { seedInspectorScope, type Seeded } from '../helpers/inspector-seed';

/**
 * The inspector in a real browser (Debian's Chromium through playwright-core) against a real Lore
 * (API listening on a port, worker, Temporal, MongoDB) seeded through its routes: the key prompt,
 * search with the score breakdown, a node page, rehydrating an archived node, a workflow's
 * evidence, and a run's link into the Temporal UI. Every wait is Playwright's auto-wait on what
 * the page shows, with generous bounds: nothing here measures time.
 */

const KEY = 'inspector-test-key';
const TEMPORAL_UI = 'http://127.0.0.1:8233';
const WAIT = { timeout: 60_000 };

describe('inspector in the browser', {
  skip: !chromiumInstalled() && process.env.LORE_REQUIRE_TOOLS !== '1' ? 'chromium is not installed (apt-get install chromium)' : false,
}, () => {
  let api: TestApi;
  let browser: Browser;
  let base = '';
  let seeded: Seeded;
  const clock = new ManualClock('2026-03-02T09:00:00.000Z');
  const id = { tenant_id: 'acme', scope: 'payments-service' };
  /** Every API call the pages made: paths and bodies (to check that lists are paged). */
  const calls: { path: string; body: any }[] = [];

  before(async () => {
    assert.ok(chromiumInstalled(), 'chromium is not installed (apt-get install chromium)');
    api = await startTestApi({ worker: true, clock, env: { LORE_API_KEYS: KEY, LORE_TEMPORAL_UI_URL: TEMPORAL_UI } });
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
    seeded = await seedInspectorScope(api, id, clock, { apiKey: KEY });
    browser = await launchBrowser();
    // The Temporal UI is not running here: its pages are answered by a stub, so following a link proves where it goes.
    await browser.context.route(`${TEMPORAL_UI}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Temporal UI stub</title><p>temporal ui stub</p>' }),
    );
    browser.context.on('request', (req) => {
      const url = new URL(req.url());
      if (url.origin === base && (url.pathname.startsWith('/v1/') || url.pathname === '/health')) calls.push({ path: url.pathname, body: req.postDataJSON() });
    });
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const q = () => `tenant=${id.tenant_id}&scope=${encodeURIComponent(id.scope)}`;

  async function openWithKey(hash: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.goto(`${base}/inspector/#${hash}`);
    // LORE_API_KEYS is set: the first call is refused and the page asks for a key, once per tab.
    const dialog = page.locator('#key-dialog');
    await dialog.waitFor({ state: 'visible', ...WAIT });
    await page.fill('#key-input', KEY);
    await page.click('#key-save');
    await dialog.waitFor({ state: 'hidden', ...WAIT });
    return page;
  }

  it('serves the static files with a strict policy, and no data without a key', async () => {
    const res = await fetch(`${base}/inspector/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.match(await res.text(), /<script type="module" src="\/inspector\/js\/main.js">/);
    assert.equal((await fetch(`${base}/inspector/js/main.js`)).headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal((await fetch(`${base}/inspector/../package.json`)).status, 404);
    assert.equal((await fetch(`${base}/inspector/js/nope.js`)).status, 404);
    assert.equal((await fetch(`${base}/inspector`, { redirect: 'manual' })).status, 302);
    const data = await fetch(`${base}/v1/memory/find`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(id) });
    assert.equal(data.status, 401);
  });

  it('asks for the key, then searches and shows why each hit was recalled', async () => {
    const page = await openWithKey(`/memory?${q()}`);
    // The pickers list the seeded tenant and scope.
    await page
      .locator('#tenant option', { hasText: 'acme' })
      .first()
      .waitFor({ state: 'attached', ...WAIT });
    await page
      .locator('#scope option', { hasText: 'payments-service' })
      .first()
      .waitFor({ state: 'attached', ...WAIT });
    // The charts show the count history.
    await page.locator('svg.chart-svg path[data-series="archive"]').waitFor({ state: 'attached', ...WAIT });

    await page.fill('input[name=q]', 'ledger proxy 502 retries');
    await page.click('form.search button[type=submit]');
    const firstHit = page.locator('[data-testid=hit]').first();
    await firstHit.waitFor(WAIT);
    const why = firstHit.locator('[data-testid=why]');
    await why.waitFor(WAIT);
    const text = await why.innerText();
    for (const part of ['lexical (BM25)', 'dense (vectors)', 'fused', 'weight', 'importance', 'tier', 'score'])
      assert.ok(text.includes(part), `the breakdown shows ${part}: ${text}`);
    assert.match(text, /rank 1 · score \d/);
    // The inspector looks without counting a use.
    const recall = calls.find((c) => c.path === '/v1/memory/recall_text');
    assert.equal(recall?.body.record_access, false);
    await page.close();
  });

  it('opens a node from a hit: revisions, edges and forgetting decisions', async () => {
    const page = await openWithKey(`/memory?${q()}&q=${encodeURIComponent('ledger proxy pooled connections backoff')}`);
    const hit = page.locator('[data-testid=hit] a', { hasText: 'Ledger proxy pool size' }).first();
    await hit.click(WAIT);
    await page.locator('h1', { hasText: 'Ledger proxy pool size' }).waitFor(WAIT);
    await page.locator('[data-testid=revisions] tbody tr').first().waitFor(WAIT);
    assert.equal(await page.locator('[data-testid=revisions] tbody tr').count(), 1, 'one earlier revision');
    assert.match(await page.locator('[data-testid=edges]').innerText(), /derived_from/);
    assert.ok((await page.locator('[data-testid=decisions] tbody tr').count()) >= 2, 'the decision and the ones it replaced');
    await page.close();
  });

  it('rehydrates an archived node after the person confirms', async () => {
    assert.ok(seeded.archived.length > 0, 'the seed archived some notes');
    const node = (await api.post('/v1/memory/resolve', { ...id, client_id: seeded.archived[0] }, { authorization: `Bearer ${KEY}` })).body.node;
    assert.equal(node.tier, 'archive');
    const page = await openWithKey(`/node/${node.id}?${q()}`);
    const button = page.locator('[data-testid=rehydrate]');
    await button.waitFor(WAIT);
    // Declined: nothing happens.
    page.once('dialog', (d) => void d.dismiss());
    await button.click();
    assert.equal((await api.post('/v1/memory/resolve', { ...id, id: node.id }, { authorization: `Bearer ${KEY}` })).body.node.tier, 'archive');
    // Accepted: the node comes back warm with its payload.
    page.once('dialog', (d) => {
      assert.match(d.message(), /Rehydrate/);
      void d.accept();
    });
    await button.click();
    await page.locator('[data-testid=rehydrate-result]', { hasText: 'archive → warm' }).waitFor(WAIT);
    await page.locator('p.row .badge', { hasText: 'warm' }).first().waitFor(WAIT);
    const after = (await api.post('/v1/memory/resolve', { ...id, id: node.id }, { authorization: `Bearer ${KEY}` })).body.node;
    assert.equal(after.tier, 'warm');
    assert.ok(after.text.length > 0);
    assert.ok((await page.locator('pre.payload').first().innerText()).includes(after.text.slice(0, 40)));
    await page.close();
  });

  it('opens a stable workflow and its evidence', async () => {
    const page = await openWithKey(`/learning?${q()}&tab=workflows&state=stable`);
    const row = page.locator('[data-testid=workflows] tbody tr').first();
    await row.waitFor(WAIT);
    await row.locator('a').first().click();
    const evidence = page.locator('[data-testid=evidence] li');
    await evidence.first().waitFor(WAIT);
    assert.ok((await evidence.count()) >= 2, 'the executions it was learned from');
    assert.match(await page.locator('main').innerText(), /execution_write_projection/);
    // Each piece of evidence is a node page.
    const first = evidence.first().locator('a');
    const title = await first.innerText();
    await first.click();
    await page.locator('h1', { hasText: title }).waitFor(WAIT);
    await page.close();
  });

  it('learning pages show pattern classes and the policy governance history; task start shows its evidence', async () => {
    const page = await openWithKey(`/learning?${q()}&tab=patterns`);
    await page.locator('[data-testid=patterns] tbody tr').first().waitFor(WAIT);
    const patterns = await page.locator('[data-testid=patterns]').innerText();
    for (const cls of ['trusted', 'contested', 'suppressed']) assert.ok(patterns.includes(cls), `a ${cls} pattern: ${patterns}`);
    await page.click('nav.tabs a:has-text("Policy memory")');
    await page.locator('[data-testid=policies] tbody tr').first().waitFor(WAIT);
    const policies = await page.locator('[data-testid=policies]').innerText();
    assert.match(policies, /retire/);
    assert.match(policies, /migrations now go through the runbook/);
    await page.click('nav.tabs a:has-text("Try task start")');
    await page.fill('textarea[name=task]', 'the job worker retry test is flaky again');
    await page.click('form.task button[type=submit]');
    await page.locator('[data-testid=first-action]').waitFor(WAIT);
    assert.match(await page.locator('[data-testid=first-action]').innerText(), /src\/jobs\/worker\.ts/);
    assert.ok((await page.locator('[data-testid=task-start] [data-testid=evidence] li').count()) >= 1);
    await page.close();
  });

  it('follows a run to its node states and into the Temporal UI', async () => {
    const page = await openWithKey(`/runs?${q()}`);
    const runLink = page.locator('[data-testid=automation-runs] a', { hasText: seeded.pausedRunId });
    await runLink.click(WAIT);
    await page.locator('[data-testid=run-nodes] tbody tr').first().waitFor(WAIT);
    assert.match(await page.locator('[data-testid=run-nodes]').innerText(), /approve\s+approval\s+paused/);
    const link = page.locator('main [data-testid=run-temporal-link]');
    const workflowId = `automation/${id.tenant_id}/${id.scope}/${seeded.pausedRunId}`;
    const expected = `${TEMPORAL_UI}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;
    assert.equal(await link.getAttribute('href'), expected);
    const [popup] = await Promise.all([page.waitForEvent('popup', WAIT), link.click()]);
    await popup.waitForLoadState();
    assert.equal(popup.url(), expected);
    assert.match(await popup.content(), /temporal ui stub/);
    await popup.close();
    if (seeded.sandboxRunId) {
      await page.goto(`${base}/inspector/#/runs?${q()}`);
      const sandboxLink = page.locator('[data-testid=sandbox-temporal-link]').first();
      await sandboxLink.waitFor(WAIT);
      assert.match((await sandboxLink.getAttribute('href')) ?? '', /\/workflows\/sandbox-run-/);
    }
    await page.close();
  });

  it('switching scope shows that scope only; lists are always asked for one page', async () => {
    const page = await openWithKey(`/memory?tenant=acme&scope=${encodeURIComponent('empty-scope')}`);
    await page.locator('[data-testid=nodes]', { hasText: 'No nodes match.' }).waitFor(WAIT);
    await page.close();
    const lists = calls.filter((c) => /\/(find|list)$/.test(c.path));
    assert.ok(lists.length > 5);
    for (const c of lists) assert.ok(typeof c.body?.limit === 'number' && c.body.limit <= 200, `${c.path} asked for a bounded page: ${JSON.stringify(c.body)}`);
  });
});
