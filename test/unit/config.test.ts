import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseBytes, parseDuration } from '../../src/config';

describe('config', () => {
  it('has documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 3001);
    assert.equal(c.dataDir, join(homedir(), '.lore'));
    assert.equal(c.binDir, join(homedir(), '.cache/lore/bin'));
    assert.equal(c.temporal.address, null);
    assert.equal(c.mongo.uri, null);
    assert.equal(c.bodyLimit, 2 * 1024 * 1024);
    assert.equal(c.sandbox.enabled, true);
    assert.match(c.sandbox.dir, /^\/var\/tmp\/lore-sandbox-[0-9a-f]{12}$/);
    assert.equal(c.sandbox.idRange.max - c.sandbox.idRange.min, 65_535);
    assert.notDeepEqual(loadConfig({ LORE_DATA_DIR: '/srv/other' }).sandbox.idRange, c.sandbox.idRange);
    // The onnx encoder with the catalog's default model, where it can run (not chosen on purpose).
    assert.deepEqual([c.embeddings.provider, c.embeddings.explicit, c.embeddings.model], ['onnx', false, 'all-minilm-l6-v2-q']);
    assert.equal(c.embeddings.modelsDir, join(homedir(), '.cache/lore/models'));
    assert.equal(c.embeddings.modelsRepository, 'https://repo1.maven.org/maven2');
    assert.deepEqual([loadConfig({ LORE_EMBEDDINGS: 'none' }).embeddings.provider, loadConfig({ LORE_EMBEDDINGS: 'none' }).embeddings.explicit], ['none', true]);
    assert.equal(c.role, 'all');
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.temporal));
  });

  it('LORE_BUILD_WAIT: how long a request waits for a start-up build (500 ms; 0 never; at most 60 s)', () => {
    assert.equal(loadConfig({}).buildWaitMs, 500);
    assert.equal(loadConfig({ LORE_BUILD_WAIT: '2s' }).buildWaitMs, 2000);
    assert.equal(loadConfig({ LORE_BUILD_WAIT: '0' }).buildWaitMs, 0);
    for (const bad of ['soon', '2m']) assert.throws(() => loadConfig({ LORE_BUILD_WAIT: bad }), /LORE_BUILD_WAIT=.*up to 60s/);
  });

  it('LORE_HOOK_CONTEXT_CHARS: the cap on what the hook route adds to an agent’s context (2000; 200–20000)', () => {
    assert.equal(loadConfig({}).hookContextChars, 2000);
    assert.equal(loadConfig({ LORE_HOOK_CONTEXT_CHARS: '800' }).hookContextChars, 800);
    for (const bad of ['lots', '50', '50000']) assert.throws(() => loadConfig({ LORE_HOOK_CONTEXT_CHARS: bad }), /LORE_HOOK_CONTEXT_CHARS=/);
  });

  it('reports every bad variable at once, each with what to do', () => {
    let err: unknown;
    try {
      loadConfig({ LORE_PORT: '99999', LORE_EMBEDDINGS: 'magic', SANDBOX_ENABLED: 'maybe', LORE_BODY_LIMIT: 'lots' });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ConfigError);
    const text = err.problems.join('\n');
    for (const name of ['LORE_PORT', 'LORE_EMBEDDINGS', 'SANDBOX_ENABLED', 'LORE_BODY_LIMIT']) assert.match(text, new RegExp(name));
    assert.equal(err.problems.length, 4);
  });

  it('refuses a non-loopback bind without API keys unless told it is safe', () => {
    assert.throws(() => loadConfig({ LORE_HOST: '0.0.0.0' }), /LORE_API_KEYS/);
    assert.equal(loadConfig({ LORE_HOST: '0.0.0.0', LORE_API_KEYS: 'k1,k2=acme' }).apiKeys.length, 2);
    assert.equal(loadConfig({ LORE_HOST: '0.0.0.0', LORE_ALLOW_INSECURE_BIND: 'true' }).host, '0.0.0.0');
  });

  it('sandbox defaults to off on a non-loopback bind', () => {
    assert.equal(loadConfig({ LORE_HOST: '0.0.0.0', LORE_ALLOW_INSECURE_BIND: 'true' }).sandbox.enabled, false);
  });

  it('parses API keys bound to tenants', () => {
    assert.deepEqual(loadConfig({ LORE_API_KEYS: 'a, b=acme' }).apiKeys, [
      { key: 'a', tenant: null },
      { key: 'b', tenant: 'acme' },
    ]);
  });

  it('embedding providers that call out need a URL', () => {
    assert.throws(() => loadConfig({ LORE_EMBEDDINGS: 'openai' }), /LORE_EMBEDDINGS_URL/);
    assert.equal(loadConfig({ LORE_EMBEDDINGS: 'ollama', LORE_EMBEDDINGS_URL: 'http://127.0.0.1:11434' }).embeddings.provider, 'ollama');
  });

  it('the onnx encoder takes a model of the catalog by name, or a model file', () => {
    assert.deepEqual([loadConfig({ LORE_EMBEDDINGS: 'onnx' }).embeddings.model, loadConfig({ LORE_EMBEDDINGS: 'onnx' }).embeddings.explicit], ['all-minilm-l6-v2-q', true]);
    assert.equal(loadConfig({ LORE_EMBEDDINGS_MODEL: 'bge-small-en-v1.5-q' }).embeddings.model, 'bge-small-en-v1.5-q');
    assert.equal(loadConfig({ LORE_EMBEDDINGS_MODEL: '~/m/model.onnx' }).embeddings.model, join(homedir(), 'm/model.onnx'));
    assert.throws(() => loadConfig({ LORE_MODELS_REPOSITORY: 'not a url' }), /LORE_MODELS_REPOSITORY/);
    const c = loadConfig({ LORE_EMBEDDINGS: 'onnx', LORE_EMBEDDINGS_MODEL: '/models/all-minilm-l6-v2-q.onnx', LORE_EMBEDDINGS_LOCAL_DIR: '/opt/ort/node_modules' });
    assert.deepEqual([c.embeddings.provider, c.embeddings.model, c.embeddings.localModuleDir], ['onnx', '/models/all-minilm-l6-v2-q.onnx', '/opt/ort/node_modules']);
  });

  it('tracing is off unless an OTLP endpoint or LORE_TRACING=on says otherwise', () => {
    assert.equal(loadConfig({}).tracing.enabled, false);
    const base = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    assert.deepEqual([base.tracing.enabled, base.tracing.url, base.tracing.serviceName], [true, 'http://collector:4318/v1/traces', 'lore']);
    const full = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-key=a%20b,team=core',
      OTEL_SERVICE_NAME: 'lore-prod',
    });
    assert.deepEqual([full.tracing.url, full.tracing.headers, full.tracing.serviceName], ['https://b/otlp/traces', { 'x-key': 'a b', team: 'core' }, 'lore-prod']);
    assert.equal(loadConfig({ LORE_TRACING: 'on' }).tracing.url, 'http://localhost:4318/v1/traces');
    assert.equal(loadConfig({ LORE_TRACING: 'on' }).tracing.enabled, true);
    assert.equal(loadConfig({ LORE_TRACING: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }).tracing.enabled, false);
    assert.equal(loadConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' }).tracing.enabled, false);
    assert.throws(() => loadConfig({ LORE_TRACING: 'maybe' }), /LORE_TRACING/);
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /OTEL_EXPORTER_OTLP_ENDPOINT/);
    assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }), /OTEL_EXPORTER_OTLP_HEADERS/);
  });

  it('LORE_TEMPORAL_UI_URL is an http(s) URL', () => {
    assert.equal(loadConfig({}).temporal.uiUrl, null);
    assert.equal(loadConfig({ LORE_TEMPORAL_UI_URL: 'http://localhost:8080/' }).temporal.uiUrl, 'http://localhost:8080');
    assert.throws(() => loadConfig({ LORE_TEMPORAL_UI_URL: 'localhost:8080' }), /LORE_TEMPORAL_UI_URL/);
  });

  it('parses sizes and durations', () => {
    assert.equal(parseBytes('2mb'), 2 * 1024 * 1024);
    assert.equal(parseBytes('512 KiB'), 512 * 1024);
    assert.equal(parseBytes('nope'), null);
    assert.equal(parseDuration('6h'), 6 * 3_600_000);
    assert.equal(parseDuration('off'), 0);
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('soon'), null);
  });
});
