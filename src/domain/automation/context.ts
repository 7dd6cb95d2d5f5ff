import { createHash } from 'node:crypto';
import { notFound } from '../../contract/errors';
import type { Engine } from '../../engine/engine';
import type { Log } from '../../log';
import type { Database } from '../../store/database';
import { familyStores } from '../../store/family-stores';
import type { ScopeRef } from '../../store/scope';
import { AutomationDefinitions, AutomationRunNodes, AutomationRuns } from '../../store/automation/index';
import type { Clock } from '../../model/clock';
import type { RunWaiter } from '../runs/wait';
import type { UiLink } from '../temporal-ui';
import type { PlaybookCatalog } from './playbooks';
import type { DefinitionDoc, RunDoc } from '../../model/automation/records';
import { loadRunRecord } from '../runs/index';

/** What the automation routes use. */
export interface AutomationCtx {
  db: Database;
  engine: Engine;
  clock: Clock;
  log: Log;
  /** Resolves playbook nodes against the replay family (null: the replay family offers no resolver). */
  playbooks: PlaybookCatalog | null;
  /** Long-polling reads of runs/get (wait_ms). */
  waiter: RunWaiter;
  uiLink: UiLink;
}

/** The automation stores of one tenant+scope. */
export const automationStores = familyStores({ definitions: AutomationDefinitions, runs: AutomationRuns, nodes: AutomationRunNodes });

/**
 * One workflow per run, named from tenant, scope and run_id so an operator can find it in the
 * Temporal UI by name as well as by search attributes. Tenant ids cannot contain '/', the scope is
 * URI-encoded (hashed when long), so two (tenant, scope, run_id) never share a workflow id.
 */
export function automationWorkflowId(ref: ScopeRef, runId: string): string {
  const encoded = encodeURIComponent(ref.scope);
  const scopePart = encoded.length <= 200 ? encoded : `h-${createHash('sha256').update(ref.scope).digest('hex').slice(0, 32)}`;
  return `automation/${ref.tenant_id}/${scopePart}/${runId}`;
}

export async function loadDefinition(defs: AutomationDefinitions, automationId: string): Promise<DefinitionDoc> {
  const d = await defs.get(automationId);
  if (!d) throw notFound('automation', automationId, defs.ref.scope, { automation_id: automationId });
  return d;
}

export function loadAutomationRun(runs: AutomationRuns, runId: string): Promise<RunDoc> {
  return loadRunRecord(runs, 'automation run', runId);
}

/** Polls until fn returns a value (or the time is up, then returns the last value). */
export async function pollUntil<T>(fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs: number, everyMs = 100): Promise<T> {
  // Wall time, not the injected clock: a real polling deadline.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (done(v) || Date.now() >= deadline) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
