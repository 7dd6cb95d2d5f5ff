/**
 * Proof 4 of issue 29: a pack carries what continuing the work needs. A scope with an archived
 * node (its payload in the cold store), a playbook with two versions (one active, one demoted to
 * shadow) and an automation is exported and imported into another scope (through the pack-import
 * workflow): the archived node rehydrates there byte for byte, the playbook arrives with every
 * version, status and history and its active version runs, the automation arrives and runs. A
 * second import changes nothing; content that exists with other content, or a payload that does
 * not match its sha256, is reported as a conflict and never overwritten.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/model/clock';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import type { Identity } from '../helpers/isolation';
import { DAY, runOperator } from '../lifecycle/helpers';

let api: TestApi;
const clock = new ManualClock('2026-01-01T00:00:00.000Z');
before(async () => {
  api = await startTestApi({ worker: true, clock });
});
after(async () => api?.close());

const PAYLOAD = 'Release notes — résumé 東京 🚀\n\ttabs and  spaces \r\nthe last line has no newline';

async function call(path: string, who: Identity, body: Record<string, unknown> = {}) {
  const res = await api.post(path, { ...who, ...body });
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The source scope: an archived node, playbook pack-pb v1 (shadow) and v2 (active), automation ship. */
async function seed(src: Identity) {
  clock.set('2026-01-01T00:00:00.000Z');
  await call('/v1/memory/write', src, { client_id: 'notes', input_text: PAYLOAD, title: 'release notes' });
  clock.advance(100 * DAY);
  await runOperator(api, src);
  const archived = (await call('/v1/memory/resolve', src, { client_id: 'notes' })).node;
  assert.equal(archived.tier, 'archive');
  assert.equal(archived.text, '', 'the payload moved to the cold store');

  await call('/v1/memory/replay/run/start', src, { run_id: 'pack-rec', goal: 'say the word' });
  await call('/v1/memory/replay/step/before', src, { run_id: 'pack-rec', step_index: 0, tool_name: 'command', tool_input: { argv: ['echo', 'word=alpha'] } });
  await call('/v1/memory/replay/step/after', src, { run_id: 'pack-rec', step_index: 0, status: 'success', output_signature: { exit_code: 0, markers: ['word=alpha'] } });
  await call('/v1/memory/replay/run/end', src, { run_id: 'pack-rec', status: 'success' });
  await call('/v1/memory/replay/playbooks/compile_from_run', src, { run_id: 'pack-rec', playbook_id: 'pack-pb', parameters: { word: 'alpha' } });
  await call('/v1/memory/replay/playbooks/promote', src, { playbook_id: 'pack-pb', version: 1, target_status: 'active' });
  const v2 = await call('/v1/memory/replay/playbooks/repair', src, {
    playbook_id: 'pack-pb',
    patch: { parameters: { set: [{ name: 'word', default: 'beta' }] } },
    note: 'another default',
  });
  await call('/v1/memory/replay/playbooks/promote', src, { playbook_id: 'pack-pb', version: v2.version, target_status: 'active' });
  await call('/v1/automations/create', src, {
    automation_id: 'ship',
    name: 'ship it',
    graph: { nodes: [{ node_id: 'say', kind: 'playbook', playbook_id: 'pack-pb', version: 2, inputs: { word: 'gamma' } }], edges: [] },
  });
  await call('/v1/automations/status', src, { automation_id: 'ship', status: 'active', reason: 'ready' });
}

describe('a pack carries what continuation needs', () => {
  it('archived payloads, playbooks with all versions and statuses, and automations move to another scope; a second import changes nothing', { timeout: 600_000 }, async () => {
    const src = { tenant_id: 'acme', scope: uniqueName('pack-src') };
    const dst = { tenant_id: 'acme', scope: uniqueName('pack-dst') };
    await seed(src);

    const { pack } = await call('/v1/memory/packs/export', src);
    assert.equal(pack.version, 2);
    assert.deepEqual([pack.counts.cold_payloads, pack.counts.playbook_versions, pack.counts.automations], [1, 2, 1]);
    assert.equal(pack.cold_payloads[0].text, PAYLOAD);
    assert.deepEqual(
      pack.playbooks[0].versions.map((v: any) => [v.version, v.status]),
      [
        [1, 'shadow'],
        [2, 'active'],
      ],
    );
    assert.equal(pack.playbooks[0].active_version, 2);
    assert.equal(pack.automations[0].automation_id, 'ship');

    const imp = await call('/v1/memory/packs/import', dst, { pack, wait_ms: 120_000 });
    assert.equal(imp.status, 'completed', JSON.stringify(imp));
    assert.equal(imp.remap_ids, true, 'the node ids belong to the source scope of this database');
    assert.deepEqual(imp.totals, { nodes: pack.nodes.length, revisions: pack.revisions.length, edges: pack.edges.length, cold_payloads: 1, playbook_versions: 2, automations: 1 });
    assert.equal(imp.counts.cold_payloads_written, 1);
    assert.equal(imp.counts.playbook_versions_created, 2);
    assert.equal(imp.counts.automations_created, 1);
    assert.equal(imp.counts.conflicts, 0, JSON.stringify(imp.conflicts));

    // The archived node rehydrates in the new scope, byte for byte.
    const before = (await call('/v1/memory/resolve', dst, { client_id: 'notes' })).node;
    assert.equal(before.tier, 'archive');
    assert.equal(before.text, '');
    const re = await call('/v1/memory/archive/rehydrate', dst, { client_ids: ['notes'], target_tier: 'warm', reason: 'continue the work' });
    assert.equal(re.nodes[0].payload_restored, true, JSON.stringify(re));
    assert.equal(re.nodes[0].payload_bytes, Buffer.byteLength(PAYLOAD, 'utf8'));
    const restored = (await call('/v1/memory/resolve', dst, { client_id: 'notes' })).node;
    assert.equal(restored.text, PAYLOAD);
    assert.ok(Buffer.from(restored.text, 'utf8').equals(Buffer.from(PAYLOAD, 'utf8')));

    // The playbook: every version with its status and history; the active one runs here.
    const srcPb = await call('/v1/memory/replay/playbooks/get', src, { playbook_id: 'pack-pb' });
    const dstPb = await call('/v1/memory/replay/playbooks/get', dst, { playbook_id: 'pack-pb' });
    assert.equal(dstPb.active_version, 2);
    assert.deepEqual(
      dstPb.versions.map((v: any) => [v.version, v.status, v.repair_of]),
      [
        [2, 'active', 1],
        [1, 'shadow', null],
      ],
    );
    assert.deepEqual(dstPb.versions, srcPb.versions);
    assert.deepEqual(dstPb.playbook, srcPb.playbook);
    const run = await call('/v1/memory/replay/playbooks/run', dst, { playbook_id: 'pack-pb', mode: 'strict' });
    assert.equal(run.version, 2);
    assert.equal(run.status, 'success', JSON.stringify(run.steps));
    assert.equal(run.outputs['0'], 'word=beta');

    // The automation: the same definition, and it runs.
    const srcAuto = (await call('/v1/automations/get', src, { automation_id: 'ship' })).automation;
    const dstAuto = (await call('/v1/automations/get', dst, { automation_id: 'ship' })).automation;
    assert.deepEqual({ ...dstAuto, tenant_id: undefined, scope: undefined }, { ...srcAuto, tenant_id: undefined, scope: undefined });
    const started = await call('/v1/automations/run', dst, { automation_id: 'ship', run_id: 'ship-1' });
    assert.equal(started.created, true);
    let done: any = null;
    for (let i = 0; i < 600 && !done; i++) {
      const r = (await call('/v1/automations/runs/get', dst, { run_id: 'ship-1', include_nodes: true })).run;
      if (['succeeded', 'failed', 'cancelled'].includes(r.status)) done = r;
      else await new Promise((res) => setTimeout(res, 200));
    }
    assert.equal(done?.status, 'succeeded', JSON.stringify(done));
    assert.equal(done.nodes[0].output.outputs['0'], 'word=gamma');

    // Import again: nothing changes.
    const again = await call('/v1/memory/packs/import', dst, { pack, wait_ms: 120_000 });
    assert.equal(again.status, 'completed');
    assert.equal(again.counts.playbook_versions_created, 0);
    assert.equal(again.counts.playbook_versions_unchanged, 2);
    assert.equal(again.counts.automations_created, 0);
    assert.equal(again.counts.automations_unchanged, 1);
    assert.equal(again.counts.nodes_created, 0);
    assert.equal(again.counts.conflicts, 0, JSON.stringify(again.conflicts));
    const after = await call('/v1/memory/replay/playbooks/get', dst, { playbook_id: 'pack-pb' });
    assert.deepEqual(after.versions, dstPb.versions);

    // What the target scope exports carries the same playbooks and automations.
    const back = (await call('/v1/memory/packs/export', dst, {})).pack;
    assert.deepEqual(back.playbooks, pack.playbooks);
    assert.deepEqual(back.automations, pack.automations);
    assert.equal(back.cold_payloads[0].text, PAYLOAD);
  });

  it('content that exists with other content, and a payload that fails its sha256, are conflicts and are not overwritten', { timeout: 300_000 }, async () => {
    const src = { tenant_id: 'acme', scope: uniqueName('pack-src2') };
    const dst = { tenant_id: 'acme', scope: uniqueName('pack-dst2') };
    await seed(src);
    const { pack } = await call('/v1/memory/packs/export', src);
    // The target already has its own version 1 of pack-pb, and its own automation 'ship'.
    await call('/v1/memory/replay/run/start', dst, { run_id: 'own-rec', goal: 'something else' });
    await call('/v1/memory/replay/step/before', dst, { run_id: 'own-rec', step_index: 0, tool_name: 'command', tool_input: { argv: ['echo', 'mine'] } });
    await call('/v1/memory/replay/step/after', dst, { run_id: 'own-rec', step_index: 0, status: 'success' });
    await call('/v1/memory/replay/run/end', dst, { run_id: 'own-rec', status: 'success' });
    await call('/v1/memory/replay/playbooks/compile_from_run', dst, { run_id: 'own-rec', playbook_id: 'pack-pb' });
    await call('/v1/automations/create', dst, { automation_id: 'ship', graph: { nodes: [{ node_id: 'a', kind: 'approval', approval_key: 'k' }], edges: [] } });
    const tampered = { ...pack, cold_payloads: [{ ...pack.cold_payloads[0], text: `${PAYLOAD} (edited)` }] };

    const imp = await call('/v1/memory/packs/import', dst, { pack: tampered, wait_ms: 120_000 });
    assert.equal(imp.status, 'completed');
    const kinds = imp.conflicts.map((c: any) => [c.kind, c.id]).sort();
    assert.deepEqual(
      kinds,
      [
        ['automation', 'ship'],
        ['cold_payload', kinds[1][1]],
        ['playbook_version', 'pack-pb@1'],
      ].sort(),
    );
    assert.ok(imp.conflicts.every((c: any) => typeof c.reason === 'string' && c.reason.length > 0));
    assert.equal(imp.counts.conflicts, 3);
    assert.equal(imp.counts.playbook_versions_created, 1, 'version 2 was free');
    const mine = await call('/v1/memory/replay/playbooks/get', dst, { playbook_id: 'pack-pb', version: 1 });
    assert.deepEqual(mine.playbook.steps[0].tool_input, { argv: ['echo', 'mine'] }, 'the target’s own version 1 is untouched');
    const auto = (await call('/v1/automations/get', dst, { automation_id: 'ship' })).automation;
    assert.equal(auto.graph.nodes[0].kind, 'approval');
    const re = await call('/v1/memory/archive/rehydrate', dst, { client_ids: ['notes'], target_tier: 'warm' });
    assert.equal(re.nodes[0].payload_restored, false, 'a payload that failed its check was not stored');
    assert.match(re.nodes[0].detail, /not in this scope's cold store/);
  });
});
