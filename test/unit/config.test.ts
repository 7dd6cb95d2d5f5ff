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
    assert.equal(c.embeddings.provider, 'none');
    assert.equal(c.role, 'all');
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.temporal));
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

  it('the Temporal UI address for links: the local UI by default, LORE_TEMPORAL_UI_URL for a cluster', () => {
    assert.equal(loadConfig({}).temporal.uiUrl, 'http://127.0.0.1:8233');
    assert.equal(loadConfig({ LORE_TEMPORAL_UI_PORT: '9000' }).temporal.uiUrl, 'http://127.0.0.1:9000');
    assert.equal(loadConfig({ TEMPORAL_ADDRESS: 'temporal.internal:7233' }).temporal.uiUrl, null, 'an external server: Lore does not know its UI');
    assert.equal(loadConfig({ TEMPORAL_ADDRESS: 'temporal.internal:7233', LORE_TEMPORAL_UI_URL: 'https://temporal.example.com/' }).temporal.uiUrl, 'https://temporal.example.com');
    assert.throws(() => loadConfig({ LORE_TEMPORAL_UI_URL: 'temporal.example.com' }), /LORE_TEMPORAL_UI_URL/);
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

  it('the onnx encoder needs a model file', () => {
    assert.throws(() => loadConfig({ LORE_EMBEDDINGS: 'onnx' }), /LORE_EMBEDDINGS_MODEL/);
    const c = loadConfig({ LORE_EMBEDDINGS: 'onnx', LORE_EMBEDDINGS_MODEL: '/models/all-minilm-l6-v2-q.onnx', LORE_EMBEDDINGS_LOCAL_DIR: '/opt/ort/node_modules' });
    assert.deepEqual([c.embeddings.provider, c.embeddings.model, c.embeddings.localModuleDir], ['onnx', '/models/all-minilm-l6-v2-q.onnx', '/opt/ort/node_modules']);
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
