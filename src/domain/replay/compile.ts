import { LoreError, invalidState, type Issue } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { loadReplayRun, nowIso, replayStores, type ReplayStoreCtx } from './context';
import { sameJson } from './json';
import { placeholdersIn, templateLiterals } from './params';
import { deriveSignature } from './signature';
import type { PlaybookDoc, PlaybookParameter, PlaybookStep, SandboxProfile, StepDoc } from '../../model/replay/types';
import { validateContent, validationFailed } from './validate';
import { playbookView } from './views';

/**
 * playbooks/compile_from_run: version 1 (status draft) of a playbook from an ended run.
 *
 * Steps: the recorded steps whose result is `success` (and `partial` ones with allow_partial),
 * in step_index order, renumbered 0..n-1 (source_step_index keeps the recorded index). A failed
 * or skipped step in a run that still succeeded is usually a retried mistake, so it is left out
 * and listed in skipped_steps. The expected output signature is derived from what step/after
 * recorded (else what step/before expected): the checks it supports (exit status, error
 * signature, markers, JSON values, artifacts); a prose summary becomes its description (signature.ts).
 *
 * Parameters: `parameters {name: literal}` turns every occurrence of the literal in the steps'
 * inputs and expected signatures into `{{name}}` with the literal as default (params.ts); a
 * literal found nowhere is an issue. Placeholders already in the recorded inputs become
 * parameters without a default (a run must give them).
 */

export interface CompileInput {
  run_id: string;
  playbook_id?: string | undefined;
  name?: string | undefined;
  allow_partial: boolean;
  parameters?: Record<string, string | number | boolean> | undefined;
  sandbox_profile: SandboxProfile;
  max_attempts: number;
  note?: string | undefined;
}

const NAME_CHARS = 200;

function stepsFrom(recorded: StepDoc[], allowPartial: boolean, maxAttempts: number) {
  const kept: PlaybookStep[] = [];
  const skipped: { step_index: number; reason: string }[] = [];
  for (const s of recorded) {
    const ok = s.status === 'success' || (allowPartial && s.status === 'partial');
    if (!ok) {
      skipped.push({ step_index: s.step_index, reason: s.status === 'started' ? 'no step/after was recorded' : `its result was ${s.status}` });
      continue;
    }
    kept.push({
      step_index: kept.length,
      tool_name: s.tool_name,
      tool_input: s.tool_input,
      // What the recording supports: checks from its signature; its prose is the description only.
      expected_output_signature: deriveSignature(s.output_signature ?? s.expected_output_signature ?? null),
      max_attempts: maxAttempts,
      source_step_index: s.step_index,
    });
  }
  return { kept, skipped };
}

export async function compileFromRun(c: ReplayStoreCtx, ref: ScopeRef, input: CompileInput, actor: string) {
  const { runs, steps, playbooks, active } = replayStores(c.db, ref);
  const run = await loadReplayRun(runs, input.run_id);
  if (run.state !== 'ended') {
    throw invalidState(`replay run '${run.run_id}' is still open; end it (run/end) before compiling`, 'open', { run_id: run.run_id });
  }
  if (run.status !== 'success' && !(run.status === 'partial' && input.allow_partial)) {
    const hint = run.status === 'partial' ? ' (pass allow_partial: true to compile a partial run)' : '';
    throw invalidState(`replay run '${run.run_id}' ended ${run.status}; only a successful run compiles${hint}`, run.status, { run_id: run.run_id });
  }

  const { kept, skipped } = stepsFrom(await steps.list(run._id), input.allow_partial, input.max_attempts);
  const literals = input.parameters ?? {};
  const used = new Set<string>();
  const templated = kept.map((s) => ({
    ...s,
    tool_input: templateLiterals(s.tool_input, literals, used),
    expected_output_signature: templateLiterals(s.expected_output_signature, literals, used),
  }));
  const issues: Issue[] = [];
  for (const name of Object.keys(literals)) {
    if (!used.has(name)) issues.push({ path: `parameters.${name}`, message: `value ${JSON.stringify(literals[name])} does not occur in any compiled step's input` });
  }
  // Placeholders the recorded run already had become required parameters.
  const present = new Set<string>();
  for (const s of kept) {
    placeholdersIn(s.tool_input, present);
    placeholdersIn(s.expected_output_signature, present);
  }
  const parameters: PlaybookParameter[] = [
    ...Object.entries(literals).map(([name, value]) => ({ name, default: value as unknown })),
    ...[...present].filter((n) => !(n in literals)).map((name) => ({ name, default: null })),
  ];
  // A literal found nowhere is already reported; the content check would report it again as unused.
  for (const i of validateContent(templated, parameters)) if (!issues.some((j) => j.path === i.path)) issues.push(i);
  if (issues.length > 0) throw validationFailed(`replay run '${run.run_id}' does not compile`, issues, { run_id: run.run_id, skipped_steps: skipped });

  const at = nowIso(c);
  const playbookId = input.playbook_id ?? uuidv7(c.clock.now().getTime());
  const doc: PlaybookDoc = {
    _id: uuidv7(c.clock.now().getTime()),
    playbook_id: playbookId,
    version: 1,
    name: (input.name ?? run.goal).slice(0, NAME_CHARS),
    status: 'draft',
    steps: templated,
    parameters,
    sandbox_profile: input.sandbox_profile,
    source_run_id: run.run_id,
    repair_of: null,
    note: input.note ?? null,
    shadow_validation: null,
    review: null,
    status_history: [{ from: null, to: 'draft', via: 'compile', actor, note: input.note ?? null, at }],
    actor,
    created_at: at,
    updated_at: at,
  };
  const inserted = await playbooks.insert(doc);
  const answer = async (d: PlaybookDoc, created: boolean) => {
    const versions = await playbooks.versions(playbookId);
    return {
      playbook_id: playbookId,
      version: d.version,
      created,
      latest_version: versions[0]?.version ?? d.version,
      playbook: playbookView(d, await active.get(playbookId)),
      skipped_steps: skipped,
    };
  };
  if (inserted) return answer(inserted, true);

  // The playbook_id exists: the same compile again is answered with it, anything else conflicts.
  const first = (await playbooks.get(playbookId, 1))!;
  const same =
    first.source_run_id === doc.source_run_id &&
    first.name === doc.name &&
    first.sandbox_profile === doc.sandbox_profile &&
    sameJson(first.steps, doc.steps) &&
    sameJson(first.parameters, doc.parameters);
  if (!same) {
    throw new LoreError('conflict', `playbook '${playbookId}' exists with different content (compiled from run '${first.source_run_id}')`, {
      playbook_id: playbookId,
      source_run_id: first.source_run_id,
    });
  }
  return answer(first, false);
}
