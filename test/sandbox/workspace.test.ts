/**
 * Workspaces: a sandbox session that names a host directory under LORE_SANDBOX_WORKSPACE_ROOTS
 * sees it copy-on-write at /work. Real commands through HTTP, the engine and bubblewrap: they read
 * the project and the host's latest edits, their own writes stay in the sandbox (and win over a
 * later host change of the same path), and the workspace is byte-identical afterwards. Anything
 * outside the roots is invalid_request. Plus the copy itself (syncWorkspace) without a sandbox.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWorkspace } from '../../src/domain/sandbox/workspace';
import { syncWorkspace, workspaceManifestPath } from '../../src/sandbox/isolation/workspace';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { treeDigest } from '../helpers/tree';
import { createSession, run } from './helpers';

function makeProject(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.txt'), 'original a\n');
  writeFileSync(join(dir, 'c.txt'), 'c to be deleted by a command\n');
  writeFileSync(join(dir, 'e.txt'), 'e before the host edit\n');
  writeFileSync(join(dir, 'f.txt'), 'f to be deleted by the host\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho "script ran in $(pwd)"\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  symlinkSync('src/a.txt', join(dir, 'link'));
  // Only the worker (root) reads the project: the sandbox sees copies, so the project may stay private.
  chmodSync(dir, 0o700);
  return dir;
}

let api: TestApi;
let root = '';
let outside = '';
before(async () => {
  root = mkdtempSync(join(tmpdir(), 'lore-ws-root-'));
  outside = mkdtempSync(join(tmpdir(), 'lore-ws-outside-'));
  api = await startTestApi({ worker: true, env: { LORE_SANDBOX_WORKSPACE_ROOTS: root } });
});
after(async () => {
  await api?.close();
  for (const d of [root, outside]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('a session with a workspace', () => {
  it('commands read the project and the host’s latest edits; their writes stay in the sandbox; the project is byte-identical', async () => {
    const project = makeProject(root, 'proj');
    const before = treeDigest(project);
    const res = await api.post('/v1/memory/sandbox/sessions', { workspace: { path: project } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const s = res.body.session;
    assert.deepEqual(s.workspace, { path: realpathSync(project), view: 'copy' });
    assert.equal(s.workdir, '/work');

    const read = await run(api, s.session_id, ['sh', '-c', 'cat src/a.txt; ./run.sh; readlink link; cat link']);
    assert.equal(read.status, 'succeeded', JSON.stringify(read));
    assert.equal(read.stdout_tail, 'original a\nscript ran in /work\nsrc/a.txt\noriginal a\n');

    const write = await run(api, s.session_id, [
      'sh',
      '-c',
      'echo changed by a command > src/a.txt && echo new > b.txt && rm c.txt && mkdir out && echo y > out/y && chmod -x run.sh && echo wrote',
    ]);
    assert.equal(write.status, 'succeeded', JSON.stringify(write));
    assert.deepEqual(treeDigest(project), before, 'the command’s writes never reach the workspace');

    // The host edits the project: new file, changed file, deleted file, and a change to a path the command changed too.
    writeFileSync(join(project, 'd.txt'), 'd added by the host\n');
    writeFileSync(join(project, 'e.txt'), 'e after the host edit\n');
    rmSync(join(project, 'f.txt'));
    writeFileSync(join(project, 'src', 'a.txt'), 'a edited by the host after the command\n');
    const hostState = treeDigest(project);

    const again = await run(api, s.session_id, ['sh', '-c', 'cat d.txt e.txt src/a.txt b.txt out/y; ls; test -x run.sh && echo exec || echo noexec']);
    assert.equal(again.status, 'succeeded', JSON.stringify(again));
    const lines = again.stdout_tail.split('\n');
    assert.deepEqual(lines.slice(0, 5), ['d added by the host', 'e after the host edit', 'changed by a command', 'new', 'y'], 'host edits arrive; the command’s own changes win');
    const listed = lines.slice(5, -2);
    assert.ok(listed.includes('d.txt') && listed.includes('b.txt'), listed.join(','));
    assert.ok(!listed.includes('c.txt'), 'a file the command deleted stays deleted');
    assert.ok(!listed.includes('f.txt'), 'a file the host deleted is gone');
    assert.equal(lines.at(-2), 'noexec', 'the command’s chmod stays');
    assert.deepEqual(treeDigest(project), hostState, 'still only the host’s own edits in the workspace');
  });

  it('network stays off and limits stay on in a workspace session', async () => {
    const project = makeProject(root, 'proj-limits');
    const id = await createSession(api, {}, { workspace: { path: project } });
    const net = await run(api, id, ['cat', '/proc/net/dev']);
    const names = net.stdout_tail
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((l: string) => l.split(':')[0]!.trim());
    assert.deepEqual(names, ['lo'], 'only a loopback of its own');
    const big = await run(api, id, ['sh', '-c', 'head -c 100000 /dev/zero > big.bin'], { limits: { max_file_bytes: 1000 } });
    assert.equal(big.status, 'failed');
    assert.equal(big.limit_hit, 'file_size');
  });

  it('a workspace outside the roots, not absolute, missing, not a directory, or leading out through a link is invalid_request', async () => {
    const inside = makeProject(root, 'proj-bad');
    writeFileSync(join(root, 'plain-file'), 'x');
    symlinkSync(outside, join(root, 'escape'));
    const cases: unknown[] = [
      { path: outside },
      { path: 'relative/dir' },
      { path: join(root, 'missing') },
      { path: join(root, 'plain-file') },
      { path: join(root, 'escape') },
      { path: `${inside}/../../` },
      { path: '' },
      'a string',
    ];
    for (const workspace of cases) {
      const res = await api.post('/v1/memory/sandbox/sessions', { workspace });
      assertError(res, 400, 'invalid_request');
    }
    const out = await api.post('/v1/memory/sandbox/sessions', { workspace: { path: outside } });
    assert.match(out.body.error.message, /not under an allowed root/);
    assert.deepEqual(out.body.error.details.allowed_roots, [root]);
  });

  it('the same session_id with another workspace is conflict; with the same one it is the same session', async () => {
    const a = makeProject(root, 'proj-a');
    const b = makeProject(root, 'proj-b');
    const first = await api.post('/v1/memory/sandbox/sessions', { session_id: 'ws-1', workspace: { path: a } });
    assert.equal(first.status, 200);
    const again = await api.post('/v1/memory/sandbox/sessions', { session_id: 'ws-1', workspace: { path: a } });
    assert.equal(again.body.created, false);
    assertError(await api.post('/v1/memory/sandbox/sessions', { session_id: 'ws-1', workspace: { path: b } }), 409, 'conflict');
    assertError(await api.post('/v1/memory/sandbox/sessions', { session_id: 'ws-1' }), 409, 'conflict');
  });
});

describe('workspace roots', () => {
  it('none configured: every workspace is refused, saying how to allow one', () => {
    assert.throws(
      () => resolveWorkspace({ sandbox: { workspaceRoots: [] } } as never, { path: root }),
      (e: any) => e.code === 'invalid_request' && /LORE_SANDBOX_WORKSPACE_ROOTS/.test(e.message),
    );
  });
  it('the root itself and directories below it are allowed; a sibling whose name starts like the root is not', () => {
    const cfg = { sandbox: { workspaceRoots: [root] } } as never;
    assert.equal(resolveWorkspace(cfg, { path: root }).path, realpathSync(root));
    mkdirSync(`${root}-sibling`, { recursive: true });
    try {
      assert.throws(
        () => resolveWorkspace(cfg, { path: `${root}-sibling` }),
        (e: any) => e.code === 'invalid_request',
      );
    } finally {
      rmSync(`${root}-sibling`, { recursive: true, force: true });
    }
  });
});

describe('syncWorkspace (the copy, without a sandbox)', () => {
  it('copies, follows host edits, keeps the copy’s own changes, never writes the source', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'lore-ws-sync-'));
    try {
      const src = makeProject(scratch, 'src');
      const work = join(scratch, 'work');
      mkdirSync(work);
      const before = treeDigest(src);
      const first = await syncWorkspace(src, work, null);
      assert.equal(first.copied, Object.keys(before).length);
      const copy = treeDigest(work, false);
      for (const [rel, d] of Object.entries(treeDigest(src, false))) assert.equal(copy[rel], d, `${rel} is an exact copy (mode, bytes)`);
      const skew = Math.abs(lstatSync(join(work, 'e.txt')).mtimeMs - lstatSync(join(src, 'e.txt')).mtimeMs);
      assert.ok(skew < 2, `the copy keeps the file's modification time (to the millisecond; off by ${skew} ms)`);
      assert.ok(lstatSync(workspaceManifestPath(work)).isFile(), 'the manifest lives beside the workdir, not in it');

      const second = await syncWorkspace(src, work, null);
      assert.deepEqual([second.copied, second.removed, second.kept], [0, 0, 0], 'nothing changed: nothing copied');

      writeFileSync(join(work, 'e.txt'), 'changed in the copy\n');
      writeFileSync(join(src, 'e.txt'), 'changed on the host\n');
      writeFileSync(join(src, 'src', 'a.txt'), 'host edit of a\n');
      rmSync(join(work, 'c.txt'));
      writeFileSync(join(src, 'c.txt'), 'host rewrote c\n');
      mkdirSync(join(src, 'newdir', 'deep'), { recursive: true });
      writeFileSync(join(src, 'newdir', 'deep', 'n.txt'), 'n\n');
      const hostBefore = treeDigest(src);
      const third = await syncWorkspace(src, work, null);
      assert.equal(readFileSync(join(work, 'e.txt'), 'utf8'), 'changed in the copy\n');
      assert.equal(readFileSync(join(work, 'src', 'a.txt'), 'utf8'), 'host edit of a\n');
      assert.throws(() => lstatSync(join(work, 'c.txt')), 'deleted in the copy: stays deleted');
      assert.equal(readFileSync(join(work, 'newdir', 'deep', 'n.txt'), 'utf8'), 'n\n');
      assert.ok(third.kept >= 2 && third.copied >= 4, JSON.stringify(third));
      assert.deepEqual(treeDigest(src), hostBefore);

      rmSync(join(src, 'newdir'), { recursive: true });
      const fourth = await syncWorkspace(src, work, null);
      assert.throws(() => lstatSync(join(work, 'newdir')), 'what the host removed goes');
      assert.equal(fourth.removed, 3);
      await assert.rejects(syncWorkspace(src, work, null, 3), /more than 3 entries/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
