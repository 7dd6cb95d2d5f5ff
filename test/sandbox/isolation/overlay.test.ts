/**
 * Workspaces through the kernel overlay (src/sandbox/isolation/overlay.ts), with real commands:
 * the probe mounts one; a command reads the project (private, owned by someone else) as its own,
 * its writes land in the session workdir (the upper layer) and never in the project, and the
 * layer reads back as the changes (overlayDiff); the host's edits are seen by the next run at
 * once; concurrent runs of one session each mount it; the mounts exist in the run's namespace
 * only; a workspace reached through a symbolic link is refused. As root, the same again in a
 * child process of another uid: the unprivileged way, through a user namespace of its own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, promises as fsp, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { detectIsolation, opaqueDirs, overlayDiff, prepareWorkdir, type OverlayHelper } from '../../../src/sandbox/isolation/index';
import { treeDigest } from '../../helpers/tree';
import { isRoot, makeRoot, run, useIdRange, useOverlayHelper } from './helpers';

useIdRange(6);

let helper: OverlayHelper;
let root = '';
before(async () => {
  helper = await useOverlayHelper();
  root = await makeRoot('overlay');
});
after(async () => {
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

/** A small project, private to its owner (root here: the sandbox uids own nothing of it). */
async function makeProject(name: string): Promise<string> {
  const dir = path.join(root, name);
  await fsp.mkdir(path.join(dir, 'src'), { recursive: true });
  await fsp.mkdir(path.join(dir, 'deep'));
  writeFileSync(path.join(dir, 'src', 'a.txt'), 'original a\n');
  writeFileSync(path.join(dir, 'deep', 'x.txt'), 'x\n');
  for (const f of ['b.txt', 'c.txt', 'same.txt', 'moved.txt']) writeFileSync(path.join(dir, f), `${f}\n`);
  symlinkSync('b.txt', path.join(dir, 'link'));
  chmodSync(dir, 0o700);
  return dir;
}

const exclude = (rel: string) => rel === 'artifacts' || rel.startsWith('artifacts/');
const changesOf = async (workdir: string, project: string) =>
  (await overlayDiff({ upper: workdir, lower: project, opaque: await opaqueDirs(helper.path!, workdir, !isRoot), exclude })).changes.map((c) => `${c.change} ${c.kind} ${c.path}`);

const EDITS = [
  'cat src/a.txt',
  'echo more >> src/a.txt',
  'rm b.txt',
  'echo n > new.txt',
  'rm -rf deep && mkdir deep && echo y > deep/y',
  'chmod 600 c.txt',
  'ln -sfn src/a.txt link',
  'mkdir made && echo m > made/m',
  ': >> same.txt',
  'mv moved.txt renamed.txt',
  'echo done',
].join(' && ');

const EXPECTED_CHANGES = [
  'deleted file b.txt',
  'modified file c.txt',
  'modified directory deep',
  'deleted file deep/x.txt',
  'added file deep/y',
  'modified symlink link',
  'added directory made',
  'added file made/m',
  'deleted file moved.txt',
  'added file new.txt',
  'added file renamed.txt',
  'modified file src/a.txt',
];

test('the probe mounts an overlay through the full chain', async () => {
  assert.ok(helper.path, `the overlay helper could not be built: ${helper.problem}`);
  const info = await detectIsolation();
  assert.equal(info.kind, 'bubblewrap', info.reason);
  assert.equal(info.workspace_view, 'overlay', info.workspace_reason);
});

test('a command sees the project as its own; its writes land in the workdir, never the project; the layer reads back as the changes', async () => {
  const project = await makeProject('p1');
  const before = treeDigest(project);
  const wd = await prepareWorkdir(root, 'ws-1');
  const r = await run(['sh', '-c', EDITS], wd.hostPath, { workspace: project });
  assert.equal(r.outcome.status, 'succeeded', `${r.outcome.reason} ${r.stderr}`);
  assert.equal(r.stdout, 'original a\ndone\n');
  assert.deepEqual(treeDigest(project), before, 'the project is byte-identical, times and modes included');
  // The workdir on the host is the upper layer: only what the command changed.
  assert.equal(readFileSync(path.join(wd.hostPath, 'src', 'a.txt'), 'utf8'), 'original a\nmore\n');
  assert.deepEqual(await changesOf(wd.hostPath, project), EXPECTED_CHANGES);
  if (isRoot) {
    // Whatever the run's uid, what it wrote belongs to the session's home uid on disk (whiteouts are root's).
    const owners = new Set<string>();
    const walk = (rel: string) => {
      for (const name of readdirSync(path.join(wd.hostPath, rel))) {
        const p = path.join(wd.hostPath, rel, name);
        const st = lstatSync(p);
        if (!(st.isCharacterDevice() && st.rdev === 0) && !(rel === '' && name === 'artifacts')) owners.add(`${st.uid}:${st.gid}`);
        if (st.isDirectory()) walk(path.join(rel, name));
      }
    };
    walk('');
    assert.deepEqual([...owners], [`${wd.sessionId}:${wd.sessionId}`]);
  }
});

test('the host’s edits are seen by the next run at once; what the command changed keeps its version', async () => {
  const project = await makeProject('p2');
  const wd = await prepareWorkdir(root, 'ws-2');
  const first = await run(['sh', '-c', 'echo mine > c.txt'], wd.hostPath, { workspace: project });
  assert.equal(first.outcome.status, 'succeeded', first.stderr);
  writeFileSync(path.join(project, 'c.txt'), 'host edit after the command\n');
  writeFileSync(path.join(project, 'e.txt'), 'added by the host\n');
  await fsp.rm(path.join(project, 'b.txt'));
  const next = await run(['sh', '-c', 'cat c.txt e.txt; ls'], wd.hostPath, { workspace: project });
  assert.equal(next.outcome.status, 'succeeded', next.stderr);
  const lines = next.stdout.trim().split('\n');
  assert.deepEqual(lines.slice(0, 2), ['mine', 'added by the host']);
  assert.ok(!lines.includes('b.txt'), 'what the host deleted is gone');
});

test('concurrent runs of one session each mount it and share its layer; a run on a borrowed uid edits the project and the session’s files', async () => {
  const project = await makeProject('p3');
  const wd = await prepareWorkdir(root, 'ws-3');
  const made = await run(['sh', '-c', 'echo from-home > shared.txt'], wd.hostPath, { workspace: project });
  assert.equal(made.outcome.status, 'succeeded', made.stderr);
  const [slow, quick] = await Promise.all([
    run(['sh', '-c', 'sleep 1; cat src/a.txt; id -u'], wd.hostPath, { workspace: project }),
    run(['sh', '-c', 'sleep 0.2; echo edited >> src/a.txt && echo borrowed >> shared.txt && cat shared.txt && id -u'], wd.hostPath, { workspace: project }),
  ]);
  assert.equal(slow.outcome.status, 'succeeded', slow.stderr);
  assert.equal(quick.outcome.status, 'succeeded', quick.stderr);
  assert.match(quick.stdout, /^from-home\nborrowed\n/);
  if (isRoot) assert.notEqual(slow.outcome.isolation.uid, quick.outcome.isolation.uid, 'the second run had a uid of its own');
  const after = await run(['cat', 'src/a.txt', 'shared.txt'], wd.hostPath, { workspace: project });
  assert.equal(after.stdout, 'original a\nedited\nfrom-home\nborrowed\n');
  if (isRoot) {
    for (const f of ['src/a.txt', 'shared.txt']) assert.equal(lstatSync(path.join(wd.hostPath, f)).uid, wd.sessionId, `${f} is the session's on disk`);
  }
  assert.equal(readFileSync(path.join(project, 'src', 'a.txt'), 'utf8'), 'original a\n');
});

test('nothing is mounted on the host: the overlay and the project’s clone live in the run’s namespace only', async () => {
  const project = await makeProject('p4');
  const wd = await prepareWorkdir(root, 'ws-4');
  const seen = await run(['sh', '-c', 'cat /proc/self/mountinfo'], wd.hostPath, { workspace: project });
  assert.equal(seen.outcome.status, 'succeeded', seen.stderr);
  assert.match(seen.stdout, / \/work .* - overlay /, 'inside, /work is the overlay');
  assert.ok(!seen.stdout.includes(project), 'the project’s host path appears nowhere in the sandbox’s mounts');
  const host = readFileSync('/proc/self/mountinfo', 'utf8');
  assert.ok(!host.includes(root), `a mount under ${root} is left on the host:\n${host}`);
});

test('a workspace reached through a symbolic link is refused by the helper, and the command never runs', async () => {
  const project = await makeProject('p5');
  const link = path.join(root, 'p5-link');
  symlinkSync(project, link);
  const wd = await prepareWorkdir(root, 'ws-5');
  const r = await run(['sh', '-c', 'echo RAN'], wd.hostPath, { workspace: link });
  assert.equal(r.outcome.status, 'failed');
  assert.ok(!r.stdout.includes('RAN'));
  assert.match(r.stderr, /lore-overlay: open .*p5-link.*(symbolic links|too many levels)/i);
});

// The transpiled module of the runner, for a child process (npm test runs the tests transpiled; import.meta.url names the .ts source).
const SELF = process.argv[1] ?? '';
const BUILT_INDEX = SELF.endsWith('overlay.test.mjs') ? path.resolve(path.dirname(SELF), '../../../src/sandbox/isolation/index.mjs') : null;
const BUILT = BUILT_INDEX !== null && existsSync(BUILT_INDEX);
const OTHER_UID = 64_123;

test('unprivileged (a child of another uid): the same through a user namespace of its own', {
  skip: (!isRoot || !BUILT) && 'needs root to start a process of another uid, and the transpiled tree',
}, async () => {
  const scratch = await fsp.mkdtemp(path.join(root, 'unpriv-'));
  chmodSync(scratch, 0o755);
  const bin = path.join(scratch, 'bin');
  await fsp.mkdir(bin);
  await fsp.copyFile(helper.path!, path.join(bin, path.basename(helper.path!)));
  chmodSync(path.join(bin, path.basename(helper.path!)), 0o755);
  // The runner's transpiled modules (they import only each other and node builtins), copied where the other uid can read them.
  await fsp.cp(path.dirname(BUILT_INDEX!), path.join(scratch, 'isolation'), { recursive: true });
  const index = pathToFileURL(path.join(scratch, 'isolation', 'index.mjs')).href;
  const helperCopy = path.join(bin, path.basename(helper.path!));
  const script = path.join(scratch, 'child.mjs');
  writeFileSync(
    script,
    `
import { promises as fsp, writeFileSync, mkdirSync, symlinkSync } from 'node:fs';
const m = await import(${JSON.stringify(index)});
const root = ${JSON.stringify(scratch)};
const helper = { path: ${JSON.stringify(helperCopy)} };
m.configureOverlayHelper(helper);
const info = await m.detectIsolation();
const project = root + '/project';
mkdirSync(project + '/src', { recursive: true }); mkdirSync(project + '/deep');
writeFileSync(project + '/src/a.txt', 'original a\\n'); writeFileSync(project + '/deep/x.txt', 'x\\n');
for (const f of ['b.txt', 'c.txt', 'same.txt', 'moved.txt']) writeFileSync(project + '/' + f, f + '\\n');
symlinkSync('b.txt', project + '/link');
const sandbox = root + '/sandbox';
mkdirSync(sandbox, { mode: 0o700 });
const wd = await m.prepareWorkdir(sandbox, 'ws');
let out = '';
const limits = { wallMs: 60000, cpuSeconds: 10, memoryBytes: 512 * 1024 * 1024, maxProcesses: 32, maxFileBytes: 1 << 24, maxOutputBytes: 1 << 20 };
const r = await m.runIsolated({ argv: ['sh', '-c', ${JSON.stringify(EDITS)} + ' && id -u'], workdir: wd.hostPath, isolation: 'bubblewrap', workspace: project, limits }, { onOutput: (s, c) => (out += c) });
const opaque = await m.opaqueDirs(helper.path, wd.hostPath, true);
const diff = await m.overlayDiff({ upper: wd.hostPath, lower: project, opaque, exclude: (rel) => rel === 'artifacts' || rel.startsWith('artifacts/') });
const a = await fsp.readFile(project + '/src/a.txt', 'utf8');
console.log(JSON.stringify({ view: info.workspace_view, reason: info.workspace_reason, uid_isolation: info.uid_isolation, status: r.status, out, a, changes: diff.changes.map((c) => c.change + ' ' + c.kind + ' ' + c.path) }));
`,
  );
  const uid = String(OTHER_UID);
  spawnSync('chown', ['-R', `${uid}:${uid}`, scratch]);
  const child = spawnSync('setpriv', ['--reuid', uid, '--regid', uid, '--clear-groups', '--', process.execPath, script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch },
    timeout: 120_000,
  });
  assert.equal(child.status, 0, child.stderr);
  const res = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
  assert.equal(res.uid_isolation, false);
  assert.equal(res.view, 'overlay', res.reason);
  assert.equal(res.status, 'succeeded', res.out);
  assert.equal(res.out, `original a\ndone\n${uid}\n`, 'the command ran as the runtime user, in its own namespaces');
  assert.equal(res.a, 'original a\n', 'the project is untouched');
  assert.deepEqual(res.changes, EXPECTED_CHANGES);
  chownSync(scratch, 0, 0);
});
