/**
 * Escape attempts through the full path (HTTP → workflow → activity → bubblewrap). Each must fail
 * and be reported as such, with the host unaffected.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { createSession, processesWith, run } from './helpers';

let api: TestApi;
let sid = '';
before(async () => {
  api = await startTestApi({ worker: true });
  sid = await createSession(api);
});
after(async () => api?.close());

const portOf = (uri: string) => Number(/:(\d+)(\/|$)/.exec(uri.replace(/^mongodb:\/\//, ''))?.[1]);

describe('escape attempts', () => {
  it('TCP to the runtime’s MongoDB port and to a listener of the test fails; no connection arrives', async () => {
    let connections = 0;
    const server = net.createServer((s) => {
      connections += 1;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const mongoPort = portOf(api.config.mongo.uri!);
    assert.ok(mongoPort > 0, api.config.mongo.uri!);
    try {
      for (const p of [port, mongoPort]) {
        const r = await run(api, sid, ['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${p} && echo CONNECTED`]);
        assert.equal(r.status, 'failed', `port ${p}: ${JSON.stringify(r)}`);
        assert.notEqual(r.exit_code, 0);
        assert.ok(!r.stdout_tail.includes('CONNECTED'));
        assert.match(r.stderr_tail, /Connection refused|Network is unreachable/);
      }
      const py = `import socket\ns=socket.socket()\ns.settimeout(3)\ns.connect(("127.0.0.1", ${port}))\nprint("CONNECTED")`;
      const viaPython = await run(api, sid, ['python3', '-c', py]);
      assert.equal(viaPython.status, 'failed');
      assert.ok(!viaPython.stdout_tail.includes('CONNECTED'));
      const outside = await run(api, sid, ['bash', '-c', 'exec 3<>/dev/tcp/1.1.1.1/80 && echo CONNECTED']);
      assert.equal(outside.status, 'failed');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(connections, 0, 'a connection from the sandbox reached the host listener');
    } finally {
      server.close();
    }
  });

  it('writing outside the workdir fails and the host is unchanged', async () => {
    const marker = `lore-escape-${process.pid}`;
    const targets = ['/etc', '/usr', '/root', '/var', '/', api.config.sandbox.dir, api.config.dataDir];
    const script = targets.map((d) => `echo x > ${d}/${marker} 2>/dev/null && echo WROTE ${d}`).join('; ') + '; true';
    const r = await run(api, sid, ['sh', '-c', script]);
    assert.equal(r.status, 'succeeded');
    assert.ok(!r.stdout_tail.includes('WROTE /etc') && !r.stdout_tail.includes('WROTE /usr') && !r.stdout_tail.includes('WROTE /root'), r.stdout_tail);
    // Whatever the sandbox thinks it wrote (its /tmp, /var are private), nothing reached the host.
    for (const d of targets) assert.equal(existsSync(`${d}/${marker}`), false, `${d}/${marker} exists on the host`);
    const tmp = await run(api, sid, ['sh', '-c', `echo x > /tmp/${marker} && echo ok`]);
    assert.equal(tmp.stdout_tail, 'ok\n', 'the private /tmp is writable');
    assert.equal(existsSync(`/tmp/${marker}`), false, 'the sandbox /tmp is not the host /tmp');
  });

  it('the runtime’s data directory and other sessions are not visible', async () => {
    const dirs = [api.config.dataDir, api.config.sandbox.dir, '/root', '/home'];
    for (const d of dirs) {
      const r = await run(api, sid, ['ls', '-la', d]);
      assert.equal(r.status, 'failed', `${d} was listable: ${r.stdout_tail}`);
      assert.match(r.stderr_tail, /No such file|Permission denied|cannot access|cannot open/);
    }
    const other = await createSession(api);
    await run(api, other, ['sh', '-c', 'echo secret > mine.txt']);
    const look = await run(api, sid, ['sh', '-c', 'ls /work; cat ../*/mine.txt 2>&1; true']);
    assert.ok(!look.stdout_tail.includes('secret'));
    // The host-side workdirs of both sessions exist, separately.
    assert.ok(readdirSync(api.config.sandbox.dir).length >= 2);
  });

  it('a fork bomb hits the process limit, ends, and leaves no process behind', async () => {
    const marker = 'lore-forkbomb-marker';
    const r = await run(api, sid, ['bash', '-c', `b() { b | b & }; b; sleep 2; exec -a ${marker} sleep 1`], { limits: { max_processes: 32, wall_ms: 20_000 } });
    assert.ok(['failed', 'timed_out', 'succeeded'].includes(r.status));
    assert.match(`${r.stderr_tail} ${r.reason}`, /fork|Resource temporarily unavailable|process limit/i);
    assert.deepEqual(await processesWith(marker), []);
    // The sandbox is still usable afterwards.
    assert.equal((await run(api, sid, ['echo', 'alive'])).stdout_tail, 'alive\n');
  });

  it('allocating 2 GiB fails at the memory limit and is reported', async () => {
    const r = await run(api, sid, ['python3', '-c', 'b = bytearray(2 * 1024 ** 3); print("ALLOCATED")']);
    assert.equal(r.status, 'failed');
    assert.ok(!r.stdout_tail.includes('ALLOCATED'));
    assert.equal(r.limit_hit, 'memory', JSON.stringify(r));
  });

  it('printing 100 MB is cut at the output limit, marked truncated, and the tree killed', async () => {
    const r = await run(api, sid, ['sh', '-c', 'head -c 100000000 /dev/zero | tr "\\000" a; echo FINISHED'], { limits: { max_output_bytes: 1024 * 1024 } });
    assert.equal(r.status, 'failed');
    assert.equal(r.truncated, true);
    assert.equal(r.limit_hit, 'output_bytes');
    assert.equal(r.output_bytes, 1024 * 1024);
    assert.ok(!r.stdout_tail.includes('FINISHED'));
    const logs = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: r.run_id, include_files: false });
    assert.equal(logs.body.output.stdout_bytes, 1024 * 1024, 'exactly the kept output is stored');
  });

  it('sleeping past the timeout is timed_out and killed', async () => {
    const marker = '1234.5678';
    const t0 = Date.now();
    const r = await run(api, sid, ['sleep', marker], { timeout_ms: 1500 });
    assert.equal(r.status, 'timed_out');
    assert.equal(r.limit_hit, 'wall_time');
    assert.match(r.reason, /wall time limit of 1500 ms/);
    assert.ok(Date.now() - t0 < 30_000);
    assert.deepEqual(await processesWith(`sleep ${marker}`), []);
  });
});
