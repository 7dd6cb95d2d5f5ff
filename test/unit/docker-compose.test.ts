import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;

it('docker-compose.yml is valid and wires Temporal, its database, the UI, MongoDB and Lore', (t) => {
  const probe = spawnSync('docker-compose', ['version'], { encoding: 'utf8' });
  if (probe.error) {
    // CI installs Debian's docker-compose (.ci/run sets LORE_REQUIRE_TOOLS=1 so this cannot be skipped there).
    if (process.env.LORE_REQUIRE_TOOLS === '1') assert.fail('docker-compose is not installed (apt-get install docker-compose)');
    t.skip('docker-compose is not installed');
    return;
  }
  const out = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], { cwd: root, encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const text = out.stdout;
  for (const service of ['temporal-db', 'temporal', 'temporal-ui', 'mongodb', 'lore-api', 'lore-worker']) {
    assert.match(text, new RegExp(`\\b${service}\\b`), `service ${service} missing`);
  }
  assert.match(text, /TEMPORAL_ADDRESS:? "?temporal:7233/);
  assert.match(text, /MONGODB_URI:? "?mongodb:\/\/mongodb:27017/);
  assert.match(text, /--role"?,?\s*-?\s*"?worker/);
  // The Host check stays on in the deployment, with the API's service name allowed (docs/security.md).
  assert.match(text, /LORE_ALLOWED_HOSTS:? "?lore-api/);
});
