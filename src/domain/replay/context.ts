import type { RunWaiter } from '../runs/wait';
import type { UiLink } from '../temporal-ui';
import { notFound } from '../../contract/errors';
import type { Engine } from '../../engine/engine';
import type { Log } from '../../log';
import type { Database } from '../../store/database';
import { familyStores } from '../../store/family-stores';
import { ReplayActive, ReplayPlaybooks, ReplayRuns, ReplaySteps } from '../../store/replay/index';
import type { Clock } from '../../model/clock';
import type { LearningServices } from '../learning/module';
import type { PlaybookDoc, RunDoc } from '../../model/replay/types';
import { loadRunRecord } from '../runs/index';
import type { SandboxSettings } from '../sandbox/context';

/** What the replay code that also runs in activities needs: the store and the clock. */
export interface ReplayStoreCtx {
  db: Database;
  clock: Clock;
}

/**
 * The settings the replay family reads, handed in by the app (src/app/settings.ts) or the worker:
 * the sandbox's (command steps run there, in a workspace it allows), and how long a guided run
 * waits for a host step (LORE_PLAYBOOK_HOST_STEP_TIMEOUT).
 */
export interface ReplaySettings extends SandboxSettings {
  readonly replay: { readonly hostStepTimeoutMs: number };
}

/** What the replay routes use (the API process). */
export interface ReplayCtx extends ReplayStoreCtx {
  /** The replay family's settings (named `config` where the worker's activities build a context). */
  config: ReplaySettings;
  engine: Engine;
  log: Log;
  learning: LearningServices;
  /** Long-polling reads of runs/get (wait_ms). */
  waiter: RunWaiter;
  uiLink: UiLink;
}

/** The replay stores of one tenant+scope. */
export const replayStores = familyStores({ runs: ReplayRuns, steps: ReplaySteps, playbooks: ReplayPlaybooks, active: ReplayActive });

export const nowIso = (c: ReplayStoreCtx) => c.clock.now().toISOString();

export function loadReplayRun(runs: ReplayRuns, runId: string): Promise<RunDoc> {
  return loadRunRecord(runs, 'replay run', runId);
}

/** A version of a playbook (latest when version is absent); not_found names what is missing. */
export async function loadVersion(playbooks: ReplayPlaybooks, playbookId: string, version?: number | null): Promise<PlaybookDoc> {
  const doc = version === undefined || version === null ? await playbooks.latest(playbookId) : await playbooks.get(playbookId, version);
  if (doc) return doc;
  if (version !== undefined && version !== null && (await playbooks.latest(playbookId))) {
    throw notFound('playbook version', `${playbookId}@${version}`, playbooks.ref.scope, { playbook_id: playbookId, version });
  }
  throw notFound('playbook', playbookId, playbooks.ref.scope, { playbook_id: playbookId });
}
