import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLore } from '../../src/sdk';
import { ensureInstallToken, installTokenFor, installTokenPath, readInstallToken } from '../../src/model/install-token';

/** The install token (docs/security.md): written once, owner-only, whole or not at all, read by the clients on this machine. */
describe('the install token', () => {
  const root = mkdtempSync(join(tmpdir(), 'lore-install-token-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const fresh = () => join(root, `d${n++}`);

  it('is created at the first start, mode 0600, and the same ever after', () => {
    const dir = fresh();
    const first = ensureInstallToken(dir);
    assert.equal(first.created, true);
    assert.match(first.token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes');
    assert.equal(statSync(installTokenPath(dir)).mode & 0o777, 0o600);
    const again = ensureInstallToken(dir);
    assert.deepEqual(again, { token: first.token, created: false });
    assert.equal(readInstallToken(dir), first.token);
    assert.deepEqual(readdirSync(dir), ['api-token'], 'no temporary file left behind');
    assert.notEqual(ensureInstallToken(fresh()).token, first.token, 'each install its own');
  });

  it('narrows a looser mode, and replaces a file that holds no token', () => {
    const dir = fresh();
    const { token } = ensureInstallToken(dir);
    chmodSync(installTokenPath(dir), 0o644);
    assert.equal(ensureInstallToken(dir).token, token);
    assert.equal(statSync(installTokenPath(dir)).mode & 0o777, 0o600);
    writeFileSync(installTokenPath(dir), 'not a token\n');
    assert.equal(readInstallToken(dir), null);
    const replaced = ensureInstallToken(dir);
    assert.equal(replaced.created, true);
    assert.equal(readInstallToken(dir), replaced.token);
    assert.equal(statSync(installTokenPath(dir)).mode & 0o777, 0o600);
  });

  it('four processes starting at once end up with one token', async () => {
    const dir = fresh();
    const module = fileURLToPath(new URL('../../src/model/install-token.ts', import.meta.url));
    const script = `import { ensureInstallToken } from ${JSON.stringify(module)}; process.stdout.write(ensureInstallToken(${JSON.stringify(dir)}).token);`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.once('error', reject);
        child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      });
    const tokens = await Promise.all([run(), run(), run(), run()]);
    assert.equal(new Set(tokens).size, 1, tokens.join(' '));
    assert.equal(readInstallToken(dir), tokens[0]);
  });

  it('goes to a Lore on this machine only', () => {
    const dir = fresh();
    const { token } = ensureInstallToken(dir);
    assert.equal(installTokenFor('http://127.0.0.1:3001', dir), token);
    assert.equal(installTokenFor('http://localhost:3001/', dir), token);
    assert.equal(installTokenFor('https://lore.example.com', dir), null);
    assert.equal(installTokenFor('not a url', dir), null);
    assert.equal(installTokenFor('http://127.0.0.1:3001', fresh()), null, 'no Lore started with that data dir');
  });

  it('the SDK sends it when given no key, and an explicit key instead of it', async () => {
    const dir = fresh();
    const { token } = ensureInstallToken(dir);
    const seen: (string | null)[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers).get('authorization'));
      return new Response(JSON.stringify({ ok: true }), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    await createLore({ dataDir: dir, fetch }).health({});
    await createLore({ dataDir: dir, fetch, apiKey: 'k1' }).health({});
    await createLore({ dataDir: dir, fetch, baseUrl: 'http://lore.example.com' }).health({});
    assert.deepEqual(seen, [`Bearer ${token}`, 'Bearer k1', null]);
  });
});
