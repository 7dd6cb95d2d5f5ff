/**
 * Workspaces: a sandbox session that names a host directory under LORE_SANDBOX_WORKSPACE_ROOTS
 * sees it copy-on-write at /work, through an overlay mounted for each run where the worker can
 * mount one, else through a copy (LORE_SANDBOX_WORKSPACE_VIEW=copy forces it here). Both ways,
 * real commands through HTTP, the engine and bubblewrap: they read the project and the host's
 * latest edits, their own writes stay in the sandbox (and win over a later host change of the
 * same path), the workspace is byte-identical afterwards, and sessions/diff lists what they
 * changed with the contents. Anything outside the roots is invalid_request. Plus the copy itself
 * (syncWorkspace, copyDiff) without a sandbox.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWorkspace } from '../../src/domain/sandbox/workspace';
import { copyDiff, syncWorkspace, workspaceManifestPath } from '../../src/sandbox/isolation/workspace';
import { sessionsCollection } from '../../src/store/sandbox/sessions';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';
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
  // Private to its owner: the sandbox uids never need to read the project itself.
  chmodSync(dir, 0o700);
  return dir;
}

let root = '';
let outside = '';
before(() => {
  root = mkdtempSync(join(tmpdir(), 'lore-ws-root-'));
  outside = mkdtempSync(join(tmpdir(), 'lore-ws-outside-'));
});
after(() => {
  for (const d of [root, outside]) if (d) rmSync(d, { recursive: true, force: true });
});

/** What the first test's commands changed, as sessions/diff lists it. */
const EXPECTED_CHANGES = ['added file b.txt', 'deleted file c.txt', 'added directory out', 'added file out/y', 'modified file run.sh', 'modified file src/a.txt'];

for (const view of ['overlay', 'copy'] as const) {
  describe(`a session with a workspace (${view})`, () => {
    let api: TestApi;
    before(async () => {
      api = await startTestApi({ worker: true, env: { LORE_SANDBOX_WORKSPACE_ROOTS: root, LORE_SANDBOX_WORKSPACE_VIEW: view === 'copy' ? 'copy' : 'auto' } });
    });
    after(async () => api?.close());

    it('commands read the project and the host’s latest edits; their writes stay in the sandbox; the project is byte-identical; sessions/diff lists the changes', async () => {
      const project = makeProject(root, `proj-${view}`);
      const before = treeDigest(project);
      const res = await api.post('/v1/memory/sandbox/sessions', { workspace: { path: project } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const s = res.body.session;
      assert.equal(s.workspace.path, realpathSync(project));
      assert.equal(s.workspace.view, view, s.workspace.detail);
      if (view === 'copy') assert.match(s.workspace.detail, /LORE_SANDBOX_WORKSPACE_VIEW=copy/);
      else assert.equal(s.workspace.detail, null);
      assert.match(s.isolation.filesystem, view === 'overlay' ? /through an overlay/ : /a copy of the workspace/);
      assert.equal(s.workdir, '/work');

      const read = await run(api, s.session_id, ['sh', '-c', 'cat src/a.txt; ./run.sh; readlink link; cat link']);
      assert.equal(read.status, 'succeeded', JSON.stringify(read));
      assert.equal(read.stdout_tail, 'original a\nscript ran in /work\nsrc/a.txt\noriginal a\n');
      assert.deepEqual(read.workspace_changes, { added: 0, modified: 0, deleted: 0, truncated: false }, 'reading changes nothing');

      const write = await run(api, s.session_id, [
        'sh',
        '-c',
        'echo changed by a command > src/a.txt && echo new > b.txt && rm c.txt && mkdir out && echo y > out/y && chmod -x run.sh && mkdir -p artifacts && echo bundle > artifacts/r.txt && echo wrote',
      ]);
      assert.equal(write.status, 'succeeded', JSON.stringify(write));
      assert.deepEqual(treeDigest(project), before, 'the command’s writes never reach the workspace');
      assert.deepEqual(write.workspace_changes, { added: 3, modified: 2, deleted: 1, truncated: false });

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

      // What the session changed, for a host to show or apply: the host's own edits are not in it.
      const diff = await api.post('/v1/memory/sandbox/sessions/diff', { session_id: s.session_id });
      assert.equal(diff.status, 200, JSON.stringify(diff.body));
      assert.deepEqual(diff.body.workspace, { path: realpathSync(project), view });
      assert.equal(diff.body.read.run_id, again.run_id);
      assert.deepEqual(
        diff.body.changes.map((c: any) => `${c.change} ${c.kind} ${c.path}`),
        EXPECTED_CHANGES,
      );
      assert.deepEqual(diff.body.summary, { added: 3, modified: 2, deleted: 1, truncated: false });
      const byPath = Object.fromEntries(diff.body.changes.map((c: any) => [c.path, c]));
      assert.deepEqual(
        [byPath['src/a.txt'].content, byPath['b.txt'].content, byPath['out/y'].content, byPath['run.sh'].content],
        ['changed by a command\n', 'new\n', 'y\n', readFileSync(join(project, 'run.sh'), 'utf8')],
      );
      assert.equal(parseInt(byPath['run.sh'].mode, 8) & 0o111, 0, `run.sh is no longer executable: mode ${byPath['run.sh'].mode}`);
      assert.match(byPath['b.txt'].sha256, /^[0-9a-f]{64}$/);
      assert.deepEqual([byPath['c.txt'].content, byPath['c.txt'].sha256, byPath['out'].content], [null, null, null]);

      const some = await api.post('/v1/memory/sandbox/sessions/diff', { session_id: s.session_id, paths: ['b.txt', 'no-such'], include_content: false });
      assert.deepEqual(
        some.body.changes.map((c: any) => [c.path, c.content, c.omitted]),
        [['b.txt', null, null]],
      );
      // The run bundle works as before, and is not part of the diff.
      const bundle = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: write.run_id });
      assert.deepEqual(
        bundle.body.files.map((f: any) => [f.path, f.content]),
        [['r.txt', 'bundle\n']],
      );
    });

    it('network stays off and limits stay on in a workspace session', async () => {
      const project = makeProject(root, `proj-limits-${view}`);
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

    it('GET /health says how workspaces are seen', async () => {
      const health = await api.get('/health');
      assert.equal(health.body.sandbox.workspaces.view, view, JSON.stringify(health.body.sandbox));
      if (view === 'copy') assert.match(health.body.sandbox.workspaces.detail, /copied before each run: LORE_SANDBOX_WORKSPACE_VIEW=copy/);
    });

    it('sessions/diff: unknown session not_found, a session without a workspace invalid_state, nothing changed before the first run, another tenant or scope sees nothing', async () => {
      assertError(await api.post('/v1/memory/sandbox/sessions/diff', { session_id: 'no-such-session' }), 404, 'not_found');
      const plain = await createSession(api);
      const res = assertError(await api.post('/v1/memory/sandbox/sessions/diff', { session_id: plain }), 409, 'invalid_state');
      assert.match(res.error.message, /has no workspace/);
      assertError(await api.post('/v1/memory/sandbox/sessions/diff', { session_id: plain, paths: 'b.txt' }), 400, 'invalid_request');
      const project = makeProject(root, `proj-diff-${view}`);
      const fresh = await createSession(api, {}, { workspace: { path: project } });
      const empty = await api.post('/v1/memory/sandbox/sessions/diff', { session_id: fresh });
      assert.equal(empty.status, 200);
      assert.deepEqual([empty.body.read, empty.body.changes], [null, []]);
      assert.match(empty.body.message, /no run of the session has ended yet/);
      await assertIsolated({
        what: 'a workspace session’s diff',
        seed: async (owner) => {
          const id = await createSession(api, owner, { session_id: `iso-${view}`, workspace: { path: project } });
          assert.equal((await run(api, id, ['sh', '-c', 'echo secret-edit > c.txt'], {}, owner)).status, 'succeeded');
        },
        sees: async (viewer) => {
          const r = await api.post('/v1/memory/sandbox/sessions/diff', { ...viewer, session_id: `iso-${view}` });
          if (r.status === 404) return false;
          assert.equal(r.status, 200, JSON.stringify(r.body));
          return r.body.changes.some((c: any) => c.content === 'secret-edit\n');
        },
      });
    });
  });
}

describe('a session whose view this worker cannot give', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ worker: true, env: { LORE_SANDBOX_WORKSPACE_ROOTS: root, LORE_SANDBOX_WORKSPACE_VIEW: 'copy' } });
  });
  after(async () => api?.close());

  it('a session made to see its workspace through an overlay is refused by a worker that copies, never copied into', async () => {
    const project = makeProject(root, 'proj-refused');
    const id = await createSession(api, {}, { workspace: { path: project } });
    // As if it had been made while the worker could mount overlays.
    await api.db.raw(sessionsCollection).updateOne({ session_id: id } as never, { $set: { 'workspace.view': 'overlay', 'workspace.view_detail': null } } as never);
    const r = await run(api, id, ['sh', '-c', 'echo RAN']);
    assert.equal(r.status, 'failed');
    assert.match(r.reason, /refused: the session sees its workspace through an overlay, which this worker cannot mount \(LORE_SANDBOX_WORKSPACE_VIEW=copy\): create a new session/);
    assert.equal(r.stdout_tail, '');
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

  it('copyDiff: what the copy’s commands added, changed and deleted, against the workspace as it is now', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'lore-ws-copydiff-'));
    try {
      const src = makeProject(scratch, 'src');
      const work = join(scratch, 'work');
      mkdirSync(work);
      await syncWorkspace(src, work, null);
      assert.deepEqual((await copyDiff(src, work)).changes, [], 'a fresh copy changed nothing');
      writeFileSync(join(work, 'src', 'a.txt'), 'changed in the copy\n');
      writeFileSync(join(work, 'e.txt'), 'e before the host edit\n'); // rewritten with the same bytes: not a change
      rmSync(join(work, 'c.txt'));
      rmSync(join(work, 'src'), { recursive: true });
      mkdirSync(join(work, 'made'));
      writeFileSync(join(work, 'made', 'm.txt'), 'm\n');
      rmSync(join(work, 'link'));
      symlinkSync('e.txt', join(work, 'link'));
      chmodSync(join(work, 'run.sh'), 0o644);
      writeFileSync(join(src, 'f.txt'), 'the host edits f: not a change of the copy\n');
      const d = await copyDiff(src, work);
      assert.deepEqual(
        d.changes.map((c) => `${c.change} ${c.kind} ${c.path}`),
        ['deleted file c.txt', 'modified symlink link', 'added directory made', 'added file made/m.txt', 'modified file run.sh', 'deleted directory src'],
      );
      assert.equal(d.changes.find((c) => c.path === 'link')!.link, 'e.txt');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
