/**
 * The committed history recordings: one JSON file per scenario and set,
 * test/workflows/histories/<set>/<scenario>.json, each holding the histories of the workflows the
 * scenario ran (the root workflows and every child they started), in Temporal's JSON history format
 * (what `temporal workflow show --output json` prints), with where and when they were recorded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { History } from '@temporalio/common/lib/proto-utils';
import { historyFromJson } from './history-json';

export const HISTORIES_DIR = fileURLToPath(new URL('.', import.meta.url));

export interface RecordedWorkflow {
  workflow_id: string;
  workflow_type: string;
  /** Whether the workflow had closed when it was recorded (a paused run's history is open). */
  closed: boolean;
  history: unknown;
}

export interface Recording {
  scenario: string;
  covers: string;
  /** The set (directory) it belongs to: recordings of one code version, kept as long as that code's runs may exist. */
  set: string;
  recorded_at: string;
  /** The commit of the code that ran it (with -dirty when the tree had changes). */
  source: string;
  temporal_server: string | null;
  temporal_sdk: string;
  /** Recorded by a worker with tracing on (record-histories --traced): its workflow interceptors ran. */
  traced?: boolean;
  workflows: RecordedWorkflow[];
}

export interface LoadedHistory {
  file: string;
  set: string;
  scenario: string;
  workflowId: string;
  workflowType: string;
  history: History;
}

/** Every set directory (sorted) under the histories directory. */
export function recordingSets(dir = HISTORIES_DIR): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

export function readRecordings(dir = HISTORIES_DIR): { file: string; recording: Recording }[] {
  const out: { file: string; recording: Recording }[] = [];
  for (const set of recordingSets(dir)) {
    for (const name of fs.readdirSync(path.join(dir, set)).sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(dir, set, name);
      out.push({ file: path.relative(dir, file), recording: JSON.parse(fs.readFileSync(file, 'utf8')) as Recording });
    }
  }
  return out;
}

/** Every recorded history, parsed, ready for Worker.runReplayHistories. */
export function loadHistories(dir = HISTORIES_DIR): LoadedHistory[] {
  return readRecordings(dir).flatMap(({ file, recording }) =>
    recording.workflows.map((w) => ({
      file,
      set: recording.set,
      scenario: recording.scenario,
      workflowId: w.workflow_id,
      workflowType: w.workflow_type,
      history: historyFromJson(w.history),
    })),
  );
}

export function writeRecording(recording: Recording, dir = HISTORIES_DIR): string {
  const folder = path.join(dir, recording.set);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${recording.scenario}.json`);
  fs.writeFileSync(file, `${JSON.stringify(recording, null, 1)}\n`);
  return file;
}
