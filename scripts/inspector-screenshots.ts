/**
 * The screenshots in docs/inspector.md, from a real run: a Lore API and worker (real Temporal and
 * MongoDB-compatible servers, started here) seeded through its HTTP routes with
 * test/helpers/inspector-seed.ts, then each inspector page opened in Debian's Chromium.
 *
 *   node --import tsx scripts/inspector-screenshots.ts [out-dir]     (default docs/inspector)
 *
 * The API runs on a manual clock (the seed spans six weeks of memory); Temporal runs on real time.
 * When pngquant is installed (apt-get install pngquant) the files are quantised to keep them small.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ManualClock } from '../src/model/clock';
import { startTestApi } from '../test/helpers/app';
import { launchBrowser } from '../test/helpers/browser';
import { seedInspectorScope } from '../test/helpers/inspector-seed';

const out = process.argv[2] ?? join(new URL('..', import.meta.url).pathname, 'docs', 'inspector');
mkdirSync(out, { recursive: true });
const clock = new ManualClock('2026-03-02T09:00:00.000Z');
const api = await startTestApi({ worker: true, clock, env: { LORE_TEMPORAL_UI_URL: 'http://127.0.0.1:8233' } });
await api.app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
const id = { tenant_id: 'acme', scope: 'payments-service' };
const seeded = await seedInspectorScope(api, id, clock);
const browser = await launchBrowser({ viewport: { width: 1280, height: 860 } });
const page = await browser.context.newPage();
const q = `tenant=${id.tenant_id}&scope=${id.scope}`;
const wf = (await api.post('/v1/memory/workflows/list', { ...id, promotion_state: 'stable' })).body.workflows[0];
const archivedNode = (await api.post('/v1/memory/resolve', { ...id, client_id: seeded.archived[0] })).body.node;
// [file, page, what to wait for, 'full' page or a selector to scroll to the top]
const shots: [string, string, string, string?][] = [
  ['memory', `#/memory?${q}&q=${encodeURIComponent('ledger proxy 502 retries')}`, '[data-testid=why]'],
  ['memory-search', `#/memory?${q}&q=${encodeURIComponent('ledger proxy 502 retries')}`, '[data-testid=why]', 'form.search'],
  ['node', `#/node/${archivedNode.id}?${q}`, '[data-testid=decisions]', 'full'],
  ['learning-workflows', `#/learning?${q}&tab=workflows`, '[data-testid=workflows]'],
  ['workflow', `#/workflow/${wf.workflow_id}?${q}`, '[data-testid=evidence]'],
  ['learning-patterns', `#/learning?${q}&tab=patterns`, '[data-testid=patterns]'],
  ['learning-policies', `#/learning?${q}&tab=policies`, '[data-testid=policies]'],
  ['task-start', `#/learning?${q}&tab=task&task=${encodeURIComponent('the job worker retry test is flaky again')}`, '[data-testid=first-action]'],
  ['playbooks', `#/playbooks?${q}`, '[data-testid=playbooks]'],
  ['playbook', `#/playbook/${seeded.playbookId}?${q}`, '[data-testid=status-history]'],
  ['runs', `#/runs?${q}`, '[data-testid=run-temporal-link]'],
  ['run', `#/run/${seeded.pausedRunId}?${q}`, '[data-testid=run-nodes]'],
  ['sandbox-run', `#/sandbox-run/${seeded.sandboxRunId}?${q}`, 'pre.payload'],
];
const quantise = spawnSync('pngquant', ['--version']).status === 0;
for (const [name, hash, ready, view] of shots) {
  await page.goto(`${base}/inspector/${hash}`);
  await page.locator(ready).first().waitFor({ timeout: 60_000 });
  await page.waitForLoadState('networkidle');
  const file = join(out, `${name}.png`);
  // The page's own scroll (lib.dom is not in this project's types: the browser-side code is a string).
  if (view && view !== 'full') {
    await page.evaluate(`(() => { const el = document.querySelector(${JSON.stringify(view)}); window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 110); })()`);
  }
  await page.screenshot({ path: file, fullPage: view === 'full' });
  if (quantise) spawnSync('pngquant', ['--force', '--skip-if-larger', '--quality', '65-90', '--output', file, file]);
  process.stdout.write(`wrote ${file}\n`);
}
await browser.close();
await api.close();
process.exit(0);
