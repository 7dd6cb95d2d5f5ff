#!/usr/bin/env node
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const USAGE = `Learning performance driver (docs/benchmarks.md, "Learning: task start"): against a running Lore
('node bin/lore.mjs start'), teach N task families (2-3 successful executions each, so N
learned workflows), then time /v1/memory/kickoff/recommendation and /v1/memory/planning/context
for paraphrased tasks of those families at concurrency 1. Run it in the scope loadgen.mjs filled
(--scope) so the families sit among its nodes. Dependency-free, like loadgen.mjs.

  node bench/learning/perf.mjs --base-url http://127.0.0.1:3001 --scope S --families 1000 --queries 300 [--fill N] [--skip-learn]`;

// Dependency-free like loadgen.mjs, so node:util's parser directly rather than bench/cli.ts.
const S = { type: 'string' };
let args;
try {
  ({ values: args } = parseArgs({
    options: { 'base-url': S, scope: S, tenant: S, families: S, queries: S, fill: S, 'skip-learn': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  }));
} catch (err) {
  console.error(`${err.message}\n\n${USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const BASE = new URL(args['base-url'] ?? 'http://127.0.0.1:3001');
const SCOPE = args.scope ?? `perf-${Date.now().toString(36)}`;
const TENANT = args.tenant ?? 'default';
const FAMILIES = Number(args.families ?? 1000);
const QUERIES = Number(args.queries ?? 300);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function post(path, body) {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const t0 = performance.now();
    const req = http.request(
      { host: BASE.hostname, port: BASE.port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': data.length } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const VERBS = [
  ['fix', 'repair', 'resolve'],
  ['speed up', 'optimize', 'make faster'],
  ['add', 'implement', 'introduce'],
  ['refactor', 'restructure', 'clean up'],
  ['debug', 'investigate', 'diagnose'],
];
const OBJECTS = [
  'retry backoff',
  'pagination cursor',
  'csv encoding',
  'token refresh',
  'cache eviction',
  'signature check',
  'rate limit header',
  'date parsing',
  'name normalisation',
  'query batching',
  'heap growth',
  'lock ordering',
  'default settings',
  'upload limit',
  'pool sizing',
  'flaky test',
  'empty list guard',
  'migration order',
  'locale fallback',
  'idempotency key',
];
const PLACES = ['payments', 'auth', 'billing', 'search', 'export', 'ingest', 'scheduler', 'notifications', 'metrics', 'parser'];
const TOOLS = ['read', 'edit', 'grep', 'bash', 'test'];

function family(i) {
  const verb = VERBS[i % VERBS.length];
  const object = OBJECTS[Math.floor(i / VERBS.length) % OBJECTS.length];
  const place = PLACES[Math.floor(i / (VERBS.length * OBJECTS.length)) % PLACES.length];
  const variant = Math.floor(i / (VERBS.length * OBJECTS.length * PLACES.length));
  const file = `src/${place}/${object.replace(/ /g, '_')}${variant ? `_${variant}` : ''}.ts`;
  const kind = `${verb[0].replace(/ /g, '_')}_${place}`;
  return {
    kind,
    file,
    tool: TOOLS[i % TOOLS.length],
    goals: [0, 1, 2].map((k) => `${verb[k]} the ${object} in the ${place} module${variant ? ` (part ${variant})` : ''}`),
    query: `${verb[(i + 1) % 3]} ${object} problems in ${place}${variant ? ` part ${variant}` : ''}`,
  };
}

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 100) / 100;
  return { n: s.length, p50: q(0.5), p95: q(0.95), p99: q(0.99), max: Math.round(s[s.length - 1] * 100) / 100 };
}

// Filler shaped like loadgen.mjs's items (its vocabulary, one execution per node), 100 per write,
// to bring a scope to a node count quickly when loadgen's one-node writes would take too long.
const AREAS = [
  'payments',
  'auth',
  'billing',
  'search',
  'export',
  'ingest',
  'scheduler',
  'notifications',
  'cache',
  'metrics',
  'cli',
  'parser',
  'storage',
  'sync',
  'webhooks',
  'migrations',
  'i18n',
  'uploads',
  'reporting',
  'ratelimit',
];
const MODULES = ['handler', 'service', 'client', 'retry', 'config', 'router', 'serializer', 'validator', 'worker', 'queue', 'adapter', 'middleware'];
function fillNode(i) {
  const area = AREAS[(i * 7) % AREAS.length];
  const mod = MODULES[(i * 13) % MODULES.length];
  const object = OBJECTS[(i * 3) % OBJECTS.length];
  const verb = VERBS[i % VERBS.length][0];
  const file = `src/${area}/${mod}.ts`;
  const title = `${verb} ${object} in ${area} ${mod}`;
  return {
    client_id: `fill-${i}`,
    type: 'event',
    title,
    text_summary: `Run f${i}: ${verb} ${object} in ${file} (${area} ${mod}). Steps: read ${file}, then edited it, then ran npm test. Outcome: ${i % 4 === 0 ? 'failed' : 'all tests passed'}.`,
    slots: {
      task_kind: `${verb.replace(/ /g, '_')}_${area}`,
      file_path: file,
      tool_sequence: ['read', 'edit', 'test'],
      outcome_status: i % 4 === 0 ? 'failure' : 'success',
      run_ref: `f${i}`,
    },
  };
}

async function fill(id, n) {
  const t0 = performance.now();
  for (let b = 0; b < n; b += 100) {
    const nodes = Array.from({ length: Math.min(100, n - b) }, (_, k) => fillNode(b + k));
    const r = await post('/v1/memory/write', { ...id, nodes });
    if (r.status !== 200) throw new Error(`fill ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    if ((b / 100) % 50 === 49) process.stderr.write(`filled ${b + 100}/${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
}

async function main() {
  const id = { tenant_id: TENANT, scope: SCOPE };
  if (args.fill) await fill(id, Number(args.fill));
  if (!args['skip-learn']) {
    const t0 = performance.now();
    for (let i = 0; i < FAMILIES; i += 1) {
      const f = family(i);
      const runs = 2 + (i % 2);
      for (let k = 0; k < runs; k += 1) {
        const r = await post('/v1/memory/write', {
          ...id,
          execution: {
            goal: f.goals[k],
            task_kind: f.kind,
            run_id: `perf-${i}-${k}`,
            steps: [{ tool: f.tool, file_path: f.file }, { tool: 'test' }],
            target_files: [f.file],
            outcome: 'success',
          },
        });
        if (r.status !== 200) throw new Error(`write ${r.status}: ${JSON.stringify(r.body)}`);
      }
      if (i % 100 === 99) process.stderr.write(`learned ${i + 1}/${FAMILIES} families (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
    }
  }
  const intro = await post('/v1/memory/execution/introspect', { ...id, limit: 1 });
  const workflows = intro.body.execution_summary?.workflow_counts;
  const out = { bench: 'learning-perf', scope: SCOPE, families: FAMILIES, workflows, concurrency: 1 };
  for (const [name, path, body] of [
    [
      'kickoff',
      '/v1/memory/kickoff/recommendation',
      (f, withKind) => ({ ...id, query_text: f.query, context: withKind ? { task_kind: f.kind } : {}, candidates: ['read', 'edit', 'test', 'bash', 'grep'] }),
    ],
    [
      'planning',
      '/v1/memory/planning/context',
      (f, withKind) => ({
        ...id,
        query_text: f.query,
        context: withKind ? { task_kind: f.kind } : {},
        tool_candidates: ['read', 'edit', 'test', 'bash', 'grep'],
        return_layered_context: false,
      }),
    ],
  ]) {
    for (let w = 0; w < 20; w += 1) await post(path, body(family(w), true));
    const ms = [];
    let fileHit = 0;
    for (let q = 0; q < QUERIES; q += 1) {
      const i = (q * 7919) % FAMILIES;
      const f = family(i);
      const r = await post(path, body(f, q % 2 === 0));
      if (r.status !== 200) throw new Error(`${path} ${r.status}: ${JSON.stringify(r.body)}`);
      ms.push(r.ms);
      const fa = r.body.first_action;
      if (fa?.file_path === f.file) fileHit += 1;
    }
    out[name] = { ...stats(ms), first_action_file_at_1: Math.round((fileHit / QUERIES) * 1000) / 1000 };
  }
  console.log(JSON.stringify(out));
  agent.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
