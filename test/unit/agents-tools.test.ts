import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { inputSchema, offeredFields, toolOutput, toStructured } from '../../src/agents/mcp/schemas';
import { toolsFor } from '../../src/agents/mcp/server';
import type { SandboxState } from '../../src/agents/mcp/tool-def';
import { TOOLS, defaultSandboxSession, snippetOf } from '../../src/agents/mcp/tools';
import { routes } from '../../src/contract';

const binding = { tenant_id: 'acme', scope: 'shop', actor: 'mcp' };

describe('MCP tool table', () => {
  it('one entry per tool, each on a route of the contract, offering only fields of that route', () => {
    assert.equal(new Set(TOOLS.map((t) => t.name)).size, TOOLS.length);
    for (const t of TOOLS) {
      assert.ok(routes[t.route], `${t.name}: unknown route ${t.route}`);
      const routeFields = Object.keys((z.toJSONSchema(routes[t.route].input, { io: 'input', unrepresentable: 'any' }) as any).properties);
      const offered = offeredFields(t);
      assert.ok(offered.length > 0);
      for (const f of offered) assert.ok(routeFields.includes(f), `${t.name} offers ${f}, not a field of ${t.route}`);
      for (const bound of ['tenant_id', 'scope', 'actor']) assert.equal(offered.includes(bound), false);
      for (const f of t.input?.require ?? []) assert.ok(offered.includes(f), `${t.name} requires ${f} it does not offer`);
    }
  });

  it('execute_command is listed only where the sandbox can run commands, and says which isolation they get', () => {
    const listed = (sandbox: SandboxState) => toolsFor({ sandbox }).find((t) => t.name === 'execute_command');
    const text = (sandbox: SandboxState) => {
      const d = listed(sandbox)!.description;
      return typeof d === 'function' ? d({ sandbox }) : d;
    };
    assert.equal(listed({ enabled: false, available: false, isolation: 'disabled' }), undefined, 'SANDBOX_ENABLED=false');
    assert.equal(listed({ enabled: true, available: false, isolation: 'unavailable' }), undefined, 'no working bubblewrap: Lore refuses commands');
    assert.match(text({ enabled: true, available: true, isolation: 'bubblewrap' }), /isolated by bubblewrap: no network/);
    const unisolated = text({ enabled: true, available: true, isolation: 'none' });
    assert.match(unisolated, /NOT isolated/);
    assert.match(unisolated, /host’s network/);
    assert.doesNotMatch(unisolated, /no network/);
    // No worker has reported yet: listed (the run waits for one), without claiming an isolation.
    const unknown = text({ enabled: true, available: null, isolation: 'unknown' });
    assert.match(unknown, /has not reported yet/);
    assert.doesNotMatch(unknown, /isolated by|NOT isolated/);
  });

  it('validation refuses arguments the tool does not take, naming them and the accepted ones', () => {
    const write = TOOLS.find((t) => t.name === 'write_memory')!;
    const validate = inputSchema(write, { binding })['~standard'].validate;
    const v = validate({ input_text: 'hi', tenant_id: 'evil', scope: 'elsewhere', nodes: [{ text: 'batch' }] });
    assert.ok(v.issues, 'not silently dropped');
    const byKey = new Map(v.issues.map((i) => [String(i.path?.[0]), i.message]));
    assert.deepEqual([...byKey.keys()].sort(), ['nodes', 'scope', 'tenant_id']);
    assert.match(byKey.get('tenant_id')!, /unknown argument 'tenant_id' \(set by the connection/);
    assert.match(byKey.get('nodes')!, /unknown argument 'nodes'; write_memory accepts: input_text, client_id, title, type, tags, importance, execution$/);
    const recall = TOOLS.find((t) => t.name === 'recall_memory')!;
    const typo = inputSchema(recall, { binding })['~standard'].validate({ query_text: 'q', limt: 3 });
    assert.match(typo.issues?.[0]?.message ?? '', /unknown argument 'limt'; recall_memory accepts: query_text, limit/);
    const exec = TOOLS.find((t) => t.name === 'execute_command')!;
    const fixed = inputSchema(exec, { binding })['~standard'].validate({ action: { kind: 'command', argv: ['ls'] }, mode: 'async' });
    assert.match(fixed.issues?.[0]?.message ?? '', /unknown argument 'mode' \(always "sync" for this tool\)/);
    // Undefined values are absent arguments, not unknown ones.
    assert.ok('value' in validate({ input_text: 'hi', nodes: undefined }));
  });

  it('validation checks the rest with the route’s own schema and fills what the tool fixes', () => {
    const write = TOOLS.find((t) => t.name === 'write_memory')!;
    const v = inputSchema(write, { binding })['~standard'].validate({ input_text: 'hi' });
    assert.deepEqual(v, { value: { input_text: 'hi' } });
    const bad = inputSchema(write, { binding })['~standard'].validate({ execution: { steps: [{ tool: 1 }] } });
    assert.ok(bad.issues?.some((i) => i.path?.join('.') === 'execution.steps.0.tool'));
    const exec = TOOLS.find((t) => t.name === 'execute_command')!;
    const e = inputSchema(exec, { binding })['~standard'].validate({ action: { kind: 'command', argv: ['ls'] } });
    assert.ok('value' in e);
    assert.equal(e.value.session_id, defaultSandboxSession(binding), 'one session per connection by default');
    assert.equal(e.value.mode, 'sync');
    const start = TOOLS.find((t) => t.name === 'start_task')!;
    const missing = inputSchema(start, { binding })['~standard'].validate({});
    assert.equal(missing.issues?.[0]?.path?.[0], 'query_text');
  });

  it('the JSON Schema a client sees is the route’s, narrowed', () => {
    const recall = TOOLS.find((t) => t.name === 'recall_memory')!;
    const json = inputSchema(recall, { binding })['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as any;
    const route = z.toJSONSchema(routes['memory.recallText'].input, { io: 'input', unrepresentable: 'any' }) as any;
    assert.deepEqual(json.properties.limit, route.properties.limit);
    assert.deepEqual(json.required, ['query_text']);
    assert.equal(json.properties.scope, undefined);
    assert.equal(json.additionalProperties, false, 'what it does not list, it refuses');
  });

  it('structured output: shaped, without the bound fields, valid against the output schema', () => {
    const recall = TOOLS.find((t) => t.name === 'recall_memory')!;
    const response = {
      tenant_id: 'acme',
      scope: 'shop',
      took_ms: 1,
      query: { text: 'q', strategy: 'bm25', limit: 10, vector_error: null },
      results: [
        {
          id: 'n1',
          uri: 'lore://n1',
          client_id: null,
          type: 'event',
          kind: null,
          tier: 'hot',
          archived: false,
          title: 't',
          text: 'long '.repeat(200),
          summary: '',
          tags: [],
          score: 0.12345,
          score_breakdown: {},
          created_at: 'x',
          updated_at: 'x',
        },
      ],
    };
    const out = toStructured(recall, response);
    assert.deepEqual(Object.keys(out).sort(), ['results', 'strategy']);
    const hit = (out.results as any[])[0];
    assert.equal(hit.score, 0.123);
    assert.ok(hit.snippet.length <= 240);
    assert.ok(toolOutput(recall).schema['~standard'].validate(out) && !('issues' in toolOutput(recall).schema['~standard'].validate(out)));
    assert.equal(snippetOf('a  b\n c'), 'a b c');
  });
});
