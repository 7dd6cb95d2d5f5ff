/**
 * Records the Temporal histories that test/workflows/histories.test.ts replays against the current
 * workflow code. Run it with the code whose histories you want to keep (docs/design.md, "Changing a
 * workflow"):
 *
 *   node --import tsx scripts/record-histories.ts --set <set> [--only a,b] [--traced] [--list]
 *
 * It starts its own MongoDB-compatible server and Temporal dev server (from LORE_BIN_DIR, as
 * `npm test` does) in a temporary directory, the API and a worker in this process, runs each
 * scenario of test/workflows/histories/scenarios.ts through the HTTP API, and writes
 * test/workflows/histories/<set>/<scenario>.json with the history of every workflow the scenario
 * ran, children included. Everything it started is thrown away at the end.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { History } from '@temporalio/common/lib/proto-utils';
import { loadConfig } from '../src/config';
import { createLog } from '../src/log';
import { startTestApi, uniqueName, type TestApi } from '../test/helpers/app';
import { startTestServices } from '../test/helpers/services';
import { historyToJson } from '../test/workflows/histories/history-json';
import { writeRecording, type RecordedWorkflow } from '../test/workflows/histories/recordings';
import { SCENARIOS } from '../test/workflows/histories/scenarios';

const HELP = `Usage: node --import tsx scripts/record-histories.ts --set <set> [--only <name,...>] [--traced] [--list]

Records the histories of test/workflows/histories/scenarios.ts into
test/workflows/histories/<set>/<scenario>.json (overwriting a scenario already recorded in that set).

  --set <set>     the directory to write: one per version of the workflow code whose runs may still
                  be open somewhere (e.g. v1-baseline); a new set never replaces an older one
  --only <names>  record only these scenarios (comma-separated)
  --traced        run the worker with tracing on (its workflow interceptors bundled in; the spans go
                  to a receiver in this process and are dropped): histories of a traced Lore
  --list          list the scenarios and exit
  --help          this text
`;

const { values } = parseArgs({
  options: { set: { type: 'string' }, only: { type: 'string' }, traced: { type: 'boolean' }, list: { type: 'boolean' }, help: { type: 'boolean' } },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (values.list) {
  for (const s of SCENARIOS) process.stdout.write(`${s.name}\n    ${s.covers}\n`);
  process.exit(0);
}
if (!values.set || !/^[A-Za-z0-9._-]+$/.test(values.set)) {
  process.stderr.write(`--set is required ([A-Za-z0-9._-]+)\n\n${HELP}`);
  process.exit(2);
}
const only = values.only ? values.only.split(',').map((s) => s.trim()) : null;
const unknown = (only ?? []).filter((n) => !SCENARIOS.some((s) => s.name === n));
if (unknown.length > 0) {
  process.stderr.write(`unknown scenario(s): ${unknown.join(', ')} (see --list)\n`);
  process.exit(2);
}
const chosen = SCENARIOS.filter((s) => !only || only.includes(s.name));

const root = new URL('..', import.meta.url).pathname;
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const source = `${git('rev-parse', '--short=12', 'HEAD')}${git('status', '--porcelain', '--', 'workflows', 'src', 'activities') ? '-dirty' : ''}`;
const sdk = (JSON.parse(readFileSync(join(root, 'node_modules/@temporalio/workflow/package.json'), 'utf8')) as { version: string }).version;

/** Accepts OTLP/HTTP trace exports and drops them. */
function startSpanSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, close: () => new Promise<void>((r) => server.close(() => r())) }),
    ),
  );
}

/** The workflow ids of the children a history started. */
function childrenOf(history: History): string[] {
  const ids: string[] = [];
  for (const e of history.events ?? []) {
    const id = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    if (id) ids.push(id);
  }
  return ids;
}

/** The workflow and every descendant, each once, parents first. */
async function collect(api: TestApi, rootIds: string[]): Promise<RecordedWorkflow[]> {
  const out: RecordedWorkflow[] = [];
  const seen = new Set<string>();
  const queue = [...rootIds];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const handle = api.engine.client.workflow.getHandle(id);
    const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
    out.push({ workflow_id: id, workflow_type: description.type, closed: description.status.name !== 'RUNNING', history: historyToJson(history) });
    queue.push(...childrenOf(history));
  }
  return out;
}

const log = createLog('warn', 'record-histories');
const scratch = mkdtempSync(join(tmpdir(), 'lore-record-histories-'));
const services = await startTestServices(loadConfig({ ...process.env, LORE_DATA_DIR: scratch }), log, scratch);
process.env.LORE_TEST_MONGODB_URI = services.mongoUri;
process.env.LORE_TEST_TEMPORAL_ADDRESS = services.temporalAddress;
let api: TestApi | null = null;
let failed = false;
// --traced: an OTLP receiver that takes the spans and drops them (tracing needs somewhere to send).
const receiver = values.traced ? await startSpanSink() : null;
try {
  api = await startTestApi({ worker: true, ...(receiver ? { env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url, LORE_TRACING: 'on' } } : {}) });
  const server = await api.engine.serverVersion();
  for (const scenario of chosen) {
    const t0 = Date.now();
    try {
      const ids = await scenario.record({ api, who: { tenant_id: 'recorder', scope: uniqueName(scenario.name) } });
      const workflows = await collect(api, ids);
      const file = writeRecording({
        scenario: scenario.name,
        covers: scenario.covers,
        set: values.set,
        recorded_at: new Date().toISOString(),
        source,
        temporal_server: server,
        temporal_sdk: sdk,
        ...(receiver ? { traced: true } : {}),
        workflows,
      });
      const types = workflows.map((w) => w.workflow_type).join(', ');
      process.stdout.write(`recorded ${scenario.name} (${workflows.length} workflows: ${types}) in ${Date.now() - t0} ms → ${file.slice(root.length)}\n`);
    } catch (err) {
      failed = true;
      process.stderr.write(`FAILED ${scenario.name}: ${(err as Error).stack ?? err}\n`);
    }
  }
} finally {
  await api?.close().catch(() => {});
  await services.stop().catch(() => {});
  await receiver?.close();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
