import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDACTED, redactText, redactValue } from '../../src/agents/hook/redact';

describe('hook redaction', () => {
  const cases: [string, string][] = [
    ['curl -H "Authorization: Bearer sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4" https://x.test', `curl -H "Authorization: Bearer ${REDACTED}" https://x.test`],
    ["curl -H 'authorization: token abc123def' x", `curl -H 'authorization: token ${REDACTED}' x`],
    ['Authorization: Basic dXNlcjpwYXNz', `Authorization: Basic ${REDACTED}`],
    ['export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 && gh pr list', `export GITHUB_TOKEN=${REDACTED} && gh pr list`],
    ['DB_PASSWORD="s3cr3t pass" npm run migrate', `DB_PASSWORD=${REDACTED} npm run migrate`],
    ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG aws s3 ls', `AWS_SECRET_ACCESS_KEY=${REDACTED} aws s3 ls`],
    ['mysql --password=hunter2 -u root', `mysql --password=${REDACTED} -u root`],
    ['tool --api-key abc123 run', `tool --api-key ${REDACTED} run`],
    ['git clone https://bob:p4ssw0rd@github.com/acme/shop.git', `git clone https://bob:${REDACTED}@github.com/acme/shop.git`],
    ['{"password": "hunter2", "user": "bob"}', `{"password": "${REDACTED}", "user": "bob"}`],
    ['api_key: abc123def456', `api_key: "${REDACTED}"`],
    ['key AKIAIOSFODNN7EXAMPLE here', `key ${REDACTED} here`],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', `jwt ${REDACTED}`],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', REDACTED],
  ];
  for (const [input, expected] of cases) {
    it(`redacts: ${input.slice(0, 50)}`, () => assert.equal(redactText(input), expected));
  }

  it('leaves ordinary commands, paths and counts alone', () => {
    for (const s of [
      'npm test -- worker',
      'git commit -m "fix retry"',
      'sed -n 1,20p src/jobs/worker.ts',
      'max_tokens=512 python run.py',
      'NODE_ENV=test npm test',
      'see https://example.com/docs?page=2',
      'cd /home/dev/shop && ls',
    ]) {
      assert.equal(redactText(s), s);
    }
  });

  it('blanks secret-named fields of objects, recursively, and keeps the rest', () => {
    const out = redactValue({
      file_path: 'a.ts',
      headers: { Authorization: 'Bearer abc', Accept: 'json' },
      env: { API_KEY: 'k', PORT: '80' },
      token: 'x',
      total_tokens: 12,
      nested: [{ password: 'p' }],
    });
    assert.deepEqual(out, {
      file_path: 'a.ts',
      headers: { Authorization: REDACTED, Accept: 'json' },
      env: { API_KEY: REDACTED, PORT: '80' },
      token: REDACTED,
      total_tokens: 12,
      nested: [{ password: REDACTED }],
    });
  });
});
