/**
 * Recorded Temporal histories of the replay family's workflows, replayed against the current
 * workflow code (Worker.runReplayHistory): a change that alters the commands of a history already
 * running fails here. Two were recorded before guided runs waited for the host (a guided run that
 * stopped at its host step; a shadow validation that skipped one), three after (a guided run that
 * waited and got the host's report; one whose host step timed out; a shadow validation that
 * reports host steps not_run). docs/replay.md, "Versioning".
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import protoPkg from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { silentLog } from '../../src/log';
import { currentWorkflowBundle } from '../../src/worker';

const DIR = fileURLToPath(new URL('./histories', import.meta.url));
const { temporal } = protoPkg as unknown as { temporal: { api: { history: { v1: { History: { fromObject(o: unknown): unknown } } } } } };

describe('recorded replay histories replay against the current workflow code', () => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  it('has the histories it names', () => {
    assert.deepEqual(files, [
      'guided-host-step-stop.json',
      'guided-host-step-timeout.json',
      'guided-host-step-waits.json',
      'shadow-validation-host-not-run.json',
      'shadow-validation-host-skipped.json',
    ]);
  });
  for (const file of files) {
    it(file, { timeout: 120_000 }, async () => {
      const bundle = await currentWorkflowBundle(silentLog);
      const history = temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(join(DIR, file), 'utf8')));
      await Worker.runReplayHistory({ workflowBundle: bundle }, history as never, file);
    });
  }
});
