import type { ScopeRef } from '../../store/scope';
import { loadVersion, replayStores, type ReplayStoreCtx } from './context';
import { planOf } from './plan';
import type { Json, PlaybookStatus, ReadinessTarget } from '../../model/replay/types';
import { effectiveStatus } from './views';

/**
 * playbooks/candidate: a readiness evaluation of one version (default latest), with a reason for
 * every check that fails (docs/replay.md, "Candidate"). Nothing changes.
 *
 * ready_for.shadow: the version can be run at all: steps present, every command allowed by the
 *   sandbox profile, every parameter resolvable, not rejected or disabled.
 * ready_for.active: that, plus evidence it works: a passed shadow validation, or (for a version
 *   compiled straight from a run, not a repair) a source run that succeeded.
 * ready_for.unattended: active-ready and no host steps, so strict runs, dispatch and automation
 *   can run it without a caller.
 */

export interface Check {
  name: string;
  passed: boolean;
  required_for: ReadinessTarget[];
  detail: string;
}

export async function evaluateCandidate(c: ReplayStoreCtx, ref: ScopeRef, input: { playbook_id: string; version?: number | undefined; params?: Json | undefined }) {
  const { playbooks, active, runs } = replayStores(c.db, ref);
  const doc = await loadVersion(playbooks, input.playbook_id, input.version);
  const pointer = await active.get(doc.playbook_id);
  const status = effectiveStatus(doc, pointer);
  const plan = planOf(doc, input.params ?? {});
  const checks: Check[] = [];
  const add = (name: string, passed: boolean, required_for: Check['required_for'], detail: string) => checks.push({ name, passed, required_for, detail });

  add('status_allows_running', status !== 'rejected' && status !== 'disabled', ['shadow', 'active'], `status is ${status}`);
  add('steps_present', doc.steps.length > 0, ['shadow', 'active'], `${doc.steps.length} step(s)`);

  const refused = plan.steps.filter((s) => s.kind === 'command' && s.problems.length > 0);
  const commands = plan.steps.filter((s) => s.kind === 'command').length;
  add(
    'commands_allowed',
    refused.length === 0,
    ['shadow', 'active'],
    refused.length === 0
      ? `${commands} command step(s), all allowed by the ${doc.sandbox_profile} profile`
      : refused.map((s) => `step ${s.step_index}: ${s.problems.join('; ')}`).join(' | '),
  );
  add(
    'parameters_resolvable',
    plan.issues.length === 0,
    ['shadow', 'active'],
    plan.issues.length === 0 ? `${doc.parameters.length} parameter(s), all with a value` : plan.issues.map((i) => i.message).join('; '),
  );

  const source = doc.source_run_id ? await runs.get(doc.source_run_id) : null;
  const sourceOk = source?.status === 'success';
  add(
    'source_run_succeeded',
    sourceOk,
    [],
    source ? `source run '${source.run_id}' ended ${source.status}` : doc.source_run_id ? `source run '${doc.source_run_id}' no longer exists` : 'no source run',
  );
  const sv = doc.shadow_validation;
  add('shadow_validation_passed', sv?.status === 'passed', [], sv ? `shadow validation (${sv.mode}) ${sv.status}: ${sv.summary}` : 'shadow validation has not run');
  const evidence = sv?.status === 'passed' || (doc.repair_of === null && sourceOk);
  add(
    'evidence_it_works',
    evidence,
    ['active'],
    evidence
      ? sv?.status === 'passed'
        ? 'shadow validation passed'
        : 'compiled from a successful run'
      : doc.repair_of !== null
        ? `a repair (of version ${doc.repair_of}) needs a passed shadow validation`
        : 'needs a successful source run or a passed shadow validation',
  );
  const hostSteps = plan.steps.filter((s) => s.kind === 'host');
  add(
    'no_host_steps',
    hostSteps.length === 0,
    ['unattended'],
    hostSteps.length === 0
      ? 'every step runs in the sandbox'
      : `host step(s) ${hostSteps.map((s) => `${s.step_index} (${s.tool_name})`).join(', ')}: only guided mode can run them`,
  );

  const readyFor = (target: 'shadow' | 'active') => checks.every((k) => k.passed || !k.required_for.includes(target));
  const ready_for = { shadow: readyFor('shadow'), active: readyFor('active'), unattended: false };
  ready_for.unattended = ready_for.active && hostSteps.length === 0;
  const reasons = checks.filter((k) => !k.passed && k.required_for.length > 0).map((k) => `${k.name}: ${k.detail}`);
  return {
    playbook_id: doc.playbook_id,
    version: doc.version,
    status,
    active_version: pointer,
    ready: ready_for.active,
    ready_for,
    recommended_status: recommend(status, ready_for),
    checks,
    reasons,
  };
}

/** The status the evidence supports (a repair in draft gets there through repair/review). */
function recommend(status: PlaybookStatus, ready: { shadow: boolean; active: boolean }): PlaybookStatus {
  if (status === 'rejected' || status === 'active') return status;
  if (ready.active) return 'active';
  if (ready.shadow) return 'shadow';
  return status === 'disabled' ? 'disabled' : 'draft';
}
