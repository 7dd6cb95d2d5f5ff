/**
 * The screenshots in docs/inspector.md, from a real run: a Lore API and worker (real Temporal and
 * MongoDB-compatible servers, started here) seeded through its HTTP routes with
 * test/helpers/inspector-seed.ts, then each inspector page opened in Debian's Chromium.
 *
 *   node --import tsx scripts/inspector-screenshots.ts [out-dir]     (default docs/inspector)
 *
 * The API runs on a manual clock (the seed spans six weeks of memory); Temporal runs on real time.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ManualClock } from '../src/domain/clock';
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
const shots: [string, string, string][] = [
  ['memory', `#/memory?${q}&q=${encodeURIComponent('ledger proxy 502 retries')}`, '[data-testid=why]'],
  ['node', `#/node/${archivedNode.id}?${q}`, '[data-testid=decisions]'],
  ['learning-workflows', `#/learning?${q}&tab=workflows`, '[data-testid=workflows]'],
  ['workflow', `#/workflow/${wf.workflow_id}?${q}`, '[data-testid=evidence]'],
  ['learning-patterns', `#/learning?${q}&tab=patterns`, '[data-testid=patterns]'],
  ['learning-policies', `#/learning?${q}&tab=policies`, '[data-testid=policies]'],
  ['task-start', `#/learning?${q}&tab=task&task=${encodeURIComponent('the job worker retry test is flaky again')}`, '[data-testid=first-action]'],
  ['playbook', `#/playbook/${seeded.playbookId}?${q}`, '[data-testid=status-history]'],
  ['runs', `#/runs?${q}`, '[data-testid=run-temporal-link]'],
  ['run', `#/run/${seeded.pausedRunId}?${q}`, '[data-testid=run-nodes]'],
];
for (const [name, hash, ready] of shots) {
  await page.goto(`${base}/inspector/${hash}`);
  await page.locator(ready).first().waitFor({ timeout: 60_000 });
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: false });
  process.stdout.write(`wrote ${join(out, `${name}.png`)}\n`);
}
await browser.close();
await api.close();
process.exit(0);
