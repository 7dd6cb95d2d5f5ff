import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { routes } from '../../src/contract';
import { ERROR_STATUS, ErrorEnvelope } from '../../src/contract/errors';
import { errorCodesOf } from '../../src/contract/openapi';
import { startTestApi, type TestApi } from '../helpers/app';
import { badInputCases, type Case } from '../helpers/bad-input';
import { pathsOf } from '../../src/contract/route';

/**
 * Bad input never reaches a 500 (issue 27). Every path of every route in the contract's route table
 * (aliases included) gets the mutation families below, generated from its input schema
 * (test/helpers/bad-input.ts): a route added later is covered without anyone listing it. Against
 * the real API with a worker (requests that turn out valid do real work). Each answer must be a 2xx,
 * or a 4xx in the error envelope with a code of the catalogue that the route declares; never a
 * 5xx, never a hang.
 *
 * The fixtures after it are the cases a fuzzer found answering 500, or accepted where the contract
 * rejects, before this was fixed.
 */

/** Not a timing assertion: a bound so that a hang fails with its case instead of stalling the suite. */
const HANG_MS = 120_000;

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => {
  await api?.close();
});

/** The test API has a database of its own: cases that turn out valid write there, nowhere else. */
async function send(c: Case) {
  const headers: Record<string, string> = c.contentType ? { 'content-type': c.contentType } : {};
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    const res = await Promise.race([api.app.inject({ method: c.method, url: c.url, headers, ...(c.payload !== undefined ? { payload: c.payload } : {}) }), hang]);
    return res;
  } finally {
    clearTimeout(timer);
  }
}

function check(c: Case, res: { statusCode: number; body: string; headers: Record<string, unknown> }): string | null {
  const what = `${c.route} ${c.method} ${c.url.slice(0, 120)} [${c.family}] ${String(c.payload ?? '').slice(0, 160)}`;
  if (res.statusCode >= 500) return `${what} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  if (res.statusCode < 400) return null;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `${what} → ${res.statusCode} without a JSON body`;
  }
  const env = ErrorEnvelope.safeParse(body);
  if (!env.success) return `${what} → ${res.statusCode} outside the envelope: ${res.body.slice(0, 300)}`;
  const { code } = env.data.error;
  if (ERROR_STATUS[code] !== res.statusCode) return `${what} → ${res.statusCode} with code ${code} (the catalogue says ${ERROR_STATUS[code]})`;
  if (env.data.request_id !== res.headers['x-request-id']) return `${what} → request_id does not match x-request-id`;
  const declared = code === 'not_found' && c.method === 'GET' ? true : errorCodesOf(routes[c.route as keyof typeof routes]).includes(code);
  if (!declared && code !== 'not_found') return `${what} → ${code}, which the route does not declare`;
  return null;
}

describe('bad input on every route of the contract: 2xx or a 4xx in the envelope, never 5xx, never a hang', () => {
  const cases = badInputCases(routes);
  const families = [...new Set(cases.map((c) => c.family))];

  it('the generated cases cover every route and every mutation family', () => {
    const covered = new Set(cases.map((c) => c.route));
    for (const name of Object.keys(routes)) assert.ok(covered.has(name), `no case for ${name}`);
    for (const f of [
      'malformed JSON',
      'wrong content type',
      'empty body',
      'null body',
      'wrong type',
      'unknown enum',
      'huge strings',
      'deep nesting',
      'prototype key',
      'prototype word',
      'duplicate keys',
      'path traversal',
      'unicode',
      'odd keys',
    ]) {
      assert.ok(families.includes(f), `no ${f} case`);
    }
  });

  for (const family of families) {
    it(`${family} (${cases.filter((c) => c.family === family).length} cases)`, async () => {
      const problems: string[] = [];
      for (const c of cases.filter((x) => x.family === family)) {
        const res = await send(c);
        const problem = check(c, res);
        if (problem) problems.push(problem);
      }
      assert.deepEqual(problems, [], `${problems.length} problem(s):\n${problems.slice(0, 30).join('\n')}`);
    });
  }
});

/**
 * The same cases over real sockets (issue 39): what inject() cannot show is a connection reset
 * instead of an answer. A sample of every family (the first cases of each, all of the huge ones),
 * and a body over LORE_BODY_LIMIT (2 MB in the tests) to every POST path of the contract, sent
 * by node:http while Lore answers: every one gets an answer in the envelope, no 5xx, no reset.
 */
describe('over real sockets: zero 5xx and zero resets', () => {
  let port = 0;
  let agent: http.Agent;
  before(async () => {
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    port = (api.app.server.address() as AddressInfo).port;
    agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  });
  after(() => agent?.destroy());

  type Answer = { statusCode: number; body: string; headers: Record<string, unknown> } | { reset: string };
  const overSocket = (c: Case, body?: Buffer): Promise<Answer> =>
    new Promise((resolve) => {
      const payload = body ?? (c.payload !== undefined ? Buffer.from(c.payload) : undefined);
      const headers: Record<string, string | number> = { ...(c.contentType ? { 'content-type': c.contentType } : {}) };
      if (payload) headers['content-length'] = payload.length;
      const req = http.request({ host: '127.0.0.1', port, method: c.method, path: c.url, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ statusCode: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ reset: e.code ?? e.message }));
      });
      req.setTimeout(HANG_MS, () => req.destroy(new Error(`no answer within ${HANG_MS} ms`)));
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ reset: e.code ?? e.message }));
      req.end(payload);
    });

  async function sendAll(cases: { c: Case; body?: Buffer }[]): Promise<string[]> {
    const problems: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < cases.length) {
        const { c, body } = cases[next++]!;
        const a = await overSocket(c, body);
        if ('reset' in a) problems.push(`${c.route} ${c.method} ${c.url.slice(0, 100)} [${c.family}] → ${a.reset} instead of an answer`);
        else {
          const problem = check(c, a);
          if (problem) problems.push(problem);
        }
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    return problems;
  }

  it('a sample of every mutation family', async () => {
    const all = badInputCases(routes);
    const perFamily = new Map<string, number>();
    const sample = all.filter((c) => {
      const n = perFamily.get(c.family) ?? 0;
      perFamily.set(c.family, n + 1);
      return n < 60 || c.family.startsWith('huge');
    });
    const problems = await sendAll(sample.map((c) => ({ c })));
    assert.deepEqual(problems, [], `${problems.length} problem(s) in ${sample.length} cases:\n${problems.slice(0, 30).join('\n')}`);
  });

  it('a body over the limit to every POST path: a 413 the client reads', async () => {
    const over = Buffer.from(JSON.stringify({ input_text: 'x'.repeat(api.config.bodyLimit + 512 * 1024) }));
    const cases: { c: Case; body: Buffer }[] = [];
    for (const [name, def] of Object.entries(routes)) {
      for (const { method, path } of pathsOf(def)) {
        if (method !== 'POST') continue;
        cases.push({ c: { route: name, family: 'body over the limit', method, url: path.replace(/:([A-Za-z_]+)/g, 'x'), contentType: 'application/json' }, body: over });
      }
    }
    const problems = await sendAll(cases);
    assert.deepEqual(problems, [], `${problems.length} problem(s) in ${cases.length} cases:\n${problems.slice(0, 30).join('\n')}`);
    const one = await overSocket(cases[0]!.c, over);
    assert.ok('statusCode' in one && one.statusCode === 413 && JSON.parse(one.body).error.code === 'payload_too_large', JSON.stringify(one).slice(0, 300));
  });
});

/**
 * What a fuzzer found before (issue 27): 500s on prototype words and deep metadata, and requests
 * accepted where the contract rejects them. Each with the answer it must get now.
 */
describe('the cases the fuzzer found', () => {
  const deep = (levels: number) => `${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const raw = (path: string, payload: string) => api.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload });
  const expectCode = async (res: { statusCode: number; body: string }, status: number, code: string) => {
    assert.equal(res.statusCode, status, res.body.slice(0, 500));
    const env = ErrorEnvelope.parse(JSON.parse(res.body));
    assert.equal(env.error.code, code);
    return env;
  };

  it('"constructor" as query_text (experience/intelligence, evolution review pack) and as session_id answers, never 500', async () => {
    for (const path of ['/v1/memory/experience/intelligence', '/v1/memory/evolution/review-pack']) {
      const res = await api.post(path, { query_text: 'constructor' });
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    const created = await api.post('/v1/memory/sessions/create', { session_id: 'constructor' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const appended = await api.post('/v1/memory/events', { session_id: 'constructor', input_text: 'an event of a session named constructor' });
    assert.equal(appended.status, 200, JSON.stringify(appended.body));
    const listed = await api.post('/v1/memory/sessions/events/list', { session_id: 'constructor' });
    assert.equal(listed.status, 200);
    assert.equal(listed.body.events.length, 1);
    const viaGet = await api.get('/v1/memory/sessions/constructor/events');
    assert.equal(viaGet.status, 200);
    assert.equal(viaGet.body.events.length, 1);
    // And the words really are plain strings: written and recalled as text.
    await api.post('/v1/memory/write', { input_text: 'the constructor of the toString prototype' });
    const recalled = await api.post('/v1/memory/recall_text', { query_text: 'constructor toString __proto__ prototype' });
    assert.equal(recalled.status, 200);
    assert.ok(recalled.body.results.some((r: { text: string }) => r.text.includes('constructor')));
  });

  it('10,000-deep metadata is invalid_request naming the limit (replay steps, dispatch, sessions create, delegation write)', async () => {
    const run = await api.post('/v1/memory/replay/run/start', { run_id: 'deep-run', goal: 'deep metadata' });
    assert.equal(run.status, 200);
    const bodies: [string, string][] = [
      ['/v1/memory/replay/step/before', `{"run_id": "deep-run", "step_index": 0, "tool_name": "t", "tool_input": {}, "metadata": ${deep(10_000)}}`],
      ['/v1/memory/replay/step/after', `{"run_id": "deep-run", "step_index": 0, "status": "success", "metadata": ${deep(10_000)}}`],
      ['/v1/memory/replay/playbooks/dispatch', `{"playbook_id": "p", "metadata": ${deep(10_000)}}`],
      ['/v1/memory/sessions/create', `{"session_id": "s", "metadata": ${deep(10_000)}}`],
      ['/v1/memory/sessions', `{"session_id": "s", "metadata": ${deep(10_000)}}`],
      ['/v1/memory/delegation/records/write', `{"to_agent": "a", "task": "t", "metadata": ${deep(10_000)}}`],
      ['/v1/memory/delegation/records', `{"route_role": "a", "summary": "t", "metadata": ${deep(10_000)}}`],
    ];
    for (const [path, payload] of bodies) {
      const env = await expectCode(await raw(path, payload), 400, 'invalid_request');
      assert.equal(env.error.details.limit_depth, 64, path);
    }
  });

  it('a JSON null body is invalid_request (rules/evaluate, planning/context, sessions/list, lifecycle/run)', async () => {
    for (const path of ['/v1/memory/rules/evaluate', '/v1/memory/planning/context', '/v1/memory/sessions/list', '/v1/memory/lifecycle/run']) {
      await expectCode(await raw(path, 'null'), 400, 'invalid_request');
    }
  });

  it('planning/context and experience/intelligence need query_text', async () => {
    for (const path of ['/v1/memory/planning/context', '/v1/memory/experience/intelligence']) {
      for (const body of [{}, { query_text: '   ' }, { context: { goal: 'fix the build' } }]) {
        const env = await expectCode(await raw(path, JSON.stringify(body)), 400, 'invalid_request');
        assert.ok(
          (env.error.details.issues as { path: string }[]).some((i) => i.path === 'query_text'),
          path,
        );
      }
    }
  });

  it('the events of an unknown session are not_found, on every path; appending to one too (issue 39)', async () => {
    await expectCode(await raw('/v1/memory/sessions/events/list', '{"session_id": "no-such-session"}'), 404, 'not_found');
    await expectCode(await raw('/v1/memory/events', '{"session_id": "no-such-session", "input_text": "x"}'), 404, 'not_found');
    await expectCode(await raw('/v1/memory/sessions/events/append', '{"session_id": "no-such-session", "input_text": "x"}'), 404, 'not_found');
    const viaGet = await api.app.inject({ method: 'GET', url: '/v1/memory/sessions/no-such-session/events' });
    await expectCode(viaGet, 404, 'not_found');
  });
});
