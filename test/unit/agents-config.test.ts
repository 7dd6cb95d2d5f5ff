import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AGENT_SCOPE_PATTERN, AGENT_TENANT_PATTERN, AgentConfigError, loadAgentConfig } from '../../src/agents/config';
import { projectPath, projectRoot, projectScope } from '../../src/agents/project';
import { ScopeName, TENANT_PATTERN } from '../../src/contract/common';
import { ensureInstallToken, installTokenPath, readInstallToken } from '../../src/model/install-token';

describe('agent configuration', () => {
  it('defaults: the local Lore, tenant default, the scope left to the project', () => {
    const c = loadAgentConfig({ HOME: '/home/dev' });
    assert.equal(c.url, 'http://127.0.0.1:3001');
    // The install token of ~/.lore when a Lore has started there on this machine, else none.
    assert.equal(c.apiKey, readInstallToken(c.dataDir));
    assert.equal(c.tenant, 'default');
    assert.equal(c.scope, null);
    assert.equal(c.hookBudgetMs, 900);
    assert.equal(c.hookContextChars, 2000);
    assert.match(c.dataDir, /\.lore$/);
  });

  it('reads every variable and names each bad one', () => {
    const c = loadAgentConfig({
      LORE_URL: 'http://lore.internal:8080/',
      LORE_API_KEY: 'k',
      LORE_MCP_TENANT: 'acme',
      LORE_MCP_SCOPE: 'shop api',
      LORE_DATA_DIR: '/tmp/x',
      LORE_HOOK_BUDGET_MS: '2500',
      LORE_HOOK_CONTEXT_CHARS: '800',
    });
    assert.deepEqual({ ...c }, { url: 'http://lore.internal:8080', apiKey: 'k', tenant: 'acme', scope: 'shop api', dataDir: '/tmp/x', hookBudgetMs: 2500, hookContextChars: 800 });
    assert.throws(
      () => loadAgentConfig({ LORE_URL: 'ftp://x', LORE_MCP_TENANT: '-bad', LORE_MCP_SCOPE: 'a\u0001b', LORE_HOOK_BUDGET_MS: '5', LORE_HOOK_CONTEXT_CHARS: '50' }),
      (err: AgentConfigError) =>
        err.problems.length === 5 &&
        /LORE_URL/.test(err.problems[0]!) &&
        /LORE_MCP_TENANT/.test(err.message) &&
        /LORE_HOOK_BUDGET_MS/.test(err.message) &&
        /LORE_HOOK_CONTEXT_CHARS="50": characters between 200 and 20000/.test(err.message),
    );
  });

  it('picks up the install token of its data dir for a Lore on this machine; LORE_API_KEY wins; never sent elsewhere', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-token-'));
    try {
      assert.equal(loadAgentConfig({ LORE_DATA_DIR: dir }).apiKey, null, 'no Lore has started here yet');
      const { token } = ensureInstallToken(dir);
      assert.equal(statSync(installTokenPath(dir)).mode & 0o777, 0o600, 'readable by its owner only');
      for (const url of ['http://127.0.0.1:3001', 'http://localhost:4000', 'http://[::1]:3001']) {
        assert.equal(loadAgentConfig({ LORE_DATA_DIR: dir, LORE_URL: url }).apiKey, token, url);
      }
      assert.equal(loadAgentConfig({ LORE_DATA_DIR: dir, LORE_API_KEY: 'explicit' }).apiKey, 'explicit');
      assert.equal(loadAgentConfig({ LORE_DATA_DIR: dir, LORE_URL: 'http://lore.internal:3001' }).apiKey, null, 'not over the network');
      assert.equal(loadAgentConfig({ LORE_DATA_DIR: dir, LORE_URL: 'http://10.0.0.5:3001' }).apiKey, null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tenant and scope rules are the contract’s', () => {
    assert.equal(AGENT_TENANT_PATTERN.source, TENANT_PATTERN.source);
    for (const s of ['a', 'shop api', 'x'.repeat(256), 'x'.repeat(257), 'a\nb', '']) {
      assert.equal(AGENT_SCOPE_PATTERN.test(s), ScopeName.safeParse(s).success, JSON.stringify(s));
    }
  });
});

describe('the project of a working directory', () => {
  it('is the nearest directory with .git, or the directory itself', () => {
    const root = mkdtempSync(join(tmpdir(), 'lore-proj-'));
    try {
      const repo = join(root, 'shop-api');
      mkdirSync(join(repo, '.git'), { recursive: true });
      mkdirSync(join(repo, 'src', 'jobs'), { recursive: true });
      assert.equal(projectRoot(join(repo, 'src', 'jobs')), repo);
      assert.equal(projectScope(join(repo, 'src', 'jobs')), 'shop-api');
      assert.equal(projectScope(join(root, 'loose')), 'loose');
      assert.equal(projectScope('/'), 'default');
      assert.equal(projectPath(repo, join(repo, 'src/jobs/worker.ts')), 'src/jobs/worker.ts');
      assert.equal(projectPath(repo, 'src/a.ts'), 'src/a.ts');
      assert.equal(projectPath(repo, '/etc/hosts'), '/etc/hosts');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
