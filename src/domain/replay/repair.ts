import { z } from 'zod';
import { LoreError, type Issue } from '../../contract/errors';
import { otherIssues, unknownKeyIssues } from '../../contract/keys';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { loadVersion, nowIso, replayStores, type ReplayStoreCtx } from './context';
import { sameJson } from './json';
import { MAX_ATTEMPTS, MAX_BACKOFF_MS, type Json, type PlaybookDoc, type PlaybookParameter, type PlaybookStep, type SandboxProfile } from '../../model/replay/types';
import { validateContent, validationFailed } from './validate';
import { playbookView } from './views';

/**
 * playbooks/repair: a patch of a version → a NEW version (status draft, repair_of = the patched
 * version). The patched version is left as it is (an active version stays active until the
 * repair is reviewed and promoted).
 *
 * Step operations name steps by their step_index in the patched version, never by positions in a
 * half-applied list: `replace` (merge the given fields into that step), `remove`, `insert` (before
 * that index; the step count appends). Several inserts at one index keep their patch order. Then
 * the steps are renumbered 0..n-1. Parameter changes: `set` (add, or change a default) and
 * `remove`. Every problem, in the patch or in the version it would produce, is reported at once
 * (validation_failed, details.issues).
 *
 * The forms existing clients send are read into the same operations: `step_patches
 * [{step_index, set: {...}}]` (a replace of each named step), `steps_override [step, ...]` (the
 * whole new step list) and `remove_step_indices [i, ...]` (a remove each). Their step fields are
 * read as Lore's: `tool_input_template` is the step's `tool_input`, and `retry_policy
 * {max_retries, backoff_ms}` its attempts (max_retries + 1) and the wait before each retry. Every
 * object in a patch is closed: a key Lore does not know is an issue naming it and the accepted
 * keys, never dropped (a dropped key once made a repair answer "the patch changes nothing").
 */

const ToolInput = z.record(z.string(), z.unknown());
const Backoff = z.number().int().min(0).max(MAX_BACKOFF_MS);
const RetryPolicy = z.strictObject({
  max_retries: z
    .number()
    .int()
    .min(0)
    .max(MAX_ATTEMPTS - 1)
    .optional(),
  backoff_ms: Backoff.optional(),
});
const StepFields = z.strictObject({
  tool_name: z.string().min(1).max(200).optional(),
  tool_input: ToolInput.optional(),
  tool_input_template: ToolInput.optional().describe('alias of tool_input'),
  expected_output_signature: z.record(z.string(), z.unknown()).nullable().optional(),
  max_attempts: z.number().int().min(1).max(MAX_ATTEMPTS).optional(),
  backoff_ms: Backoff.optional(),
  retry_policy: RetryPolicy.optional(),
});
type StepFieldsIn = z.infer<typeof StepFields>;
const FullStep = StepFields.extend({ tool_name: z.string().min(1).max(200) });

/**
 * A step's fields as Lore's, the aliases read (tool_input_template, retry_policy); giving a field
 * and its alias both is an issue. Fields not given stay undefined (a replace keeps them).
 */
function stepFields(f: StepFieldsIn, at: string, issues: Issue[]): Partial<PlaybookStep> {
  const both = (a: string, b: string) => issues.push({ path: at, message: `give ${a} or ${b}, not both (${b} is read as ${a})` });
  if (f.tool_input !== undefined && f.tool_input_template !== undefined) both('tool_input', 'tool_input_template');
  if (f.max_attempts !== undefined && f.retry_policy?.max_retries !== undefined) both('max_attempts', 'retry_policy.max_retries');
  if (f.backoff_ms !== undefined && f.retry_policy?.backoff_ms !== undefined) both('backoff_ms', 'retry_policy.backoff_ms');
  const retries = f.retry_policy?.max_retries;
  const out: Partial<PlaybookStep> = {
    tool_name: f.tool_name,
    tool_input: (f.tool_input ?? f.tool_input_template) as Json | undefined,
    expected_output_signature: f.expected_output_signature as Json | null | undefined,
    max_attempts: f.max_attempts ?? (retries !== undefined ? retries + 1 : undefined),
    backoff_ms: f.backoff_ms ?? f.retry_policy?.backoff_ms,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as Partial<PlaybookStep>;
}

/** A whole new step (insert, steps_override) from its fields: tool_input (or its alias) is required. */
function newStep(f: StepFieldsIn & { tool_name: string }, at: string, issues: Issue[]): PlaybookStep {
  const s = stepFields(f, at, issues);
  if (s.tool_input === undefined) issues.push({ path: `${at}.tool_input`, message: 'a new step needs tool_input (or tool_input_template)' });
  return {
    step_index: -1,
    tool_name: f.tool_name,
    tool_input: s.tool_input ?? {},
    expected_output_signature: s.expected_output_signature ?? null,
    max_attempts: s.max_attempts ?? 1,
    ...(s.backoff_ms ? { backoff_ms: s.backoff_ms } : {}),
    source_step_index: null,
  };
}
const Op = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('replace'), step_index: z.number().int().min(0), step: StepFields }),
  z.strictObject({ op: z.literal('remove'), step_index: z.number().int().min(0) }),
  z.strictObject({ op: z.literal('insert'), step_index: z.number().int().min(0), step: FullStep }),
]);
type Op = z.infer<typeof Op>;
const StepPatch = z.strictObject({ step_index: z.number().int().min(0), set: StepFields });
/** A step of steps_override: step_index may be given (the list order decides; steps are renumbered). */
const OverrideStep = FullStep.extend({ step_index: z.number().int().min(0).optional() });
const ParamSet = z.strictObject({ name: z.string().min(1).max(64), default: z.unknown().optional() });
const ParamChanges = z.strictObject({ set: z.array(ParamSet).max(100).optional(), remove: z.array(z.string().min(1).max(64)).max(100).optional() });

export interface RepairInput {
  playbook_id: string;
  version?: number | undefined;
  patch: {
    steps?: unknown[] | undefined;
    step_patches?: unknown[] | undefined;
    steps_override?: unknown[] | undefined;
    remove_step_indices?: number[] | undefined;
    parameters?: unknown;
    name?: string | undefined;
    sandbox_profile?: SandboxProfile | undefined;
  };
  note?: string | undefined;
}

/** zod issues under prefix; unknown keys name the key and the accepted ones. */
const zodIssues = (err: z.ZodError, schema: z.ZodType, prefix: string): Issue[] => [...otherIssues(err, prefix), ...unknownKeyIssues(err, schema, prefix)];

function parseOps(raw: unknown[], issues: Issue[]): { op: Op; at: string }[] {
  const ops: { op: Op; at: string }[] = [];
  raw.forEach((r, i) => {
    const parsed = Op.safeParse(r);
    if (!parsed.success) issues.push(...zodIssues(parsed.error, Op, `patch.steps.${i}`));
    else ops.push({ op: parsed.data, at: `patch.steps.${i}` });
  });
  return ops;
}

/** step_patches as replace operations (same rules: the step must exist, once per step, at least one field). */
function opsFromStepPatches(raw: unknown[], issues: Issue[]): { op: Op; at: string }[] {
  const ops: { op: Op; at: string }[] = [];
  raw.forEach((r, i) => {
    const at = `patch.step_patches.${i}`;
    const parsed = StepPatch.safeParse(r);
    if (!parsed.success) issues.push(...zodIssues(parsed.error, StepPatch, at));
    else ops.push({ op: { op: 'replace', step_index: parsed.data.step_index, step: parsed.data.set }, at });
  });
  return ops;
}

function overrideSteps(raw: unknown[], issues: Issue[]): PlaybookStep[] {
  const out: PlaybookStep[] = [];
  if (raw.length === 0) issues.push({ path: 'patch.steps_override', message: 'steps_override needs at least one step' });
  raw.forEach((r, i) => {
    const at = `patch.steps_override.${i}`;
    const parsed = OverrideStep.safeParse(r);
    if (!parsed.success) return issues.push(...zodIssues(parsed.error, OverrideStep, at));
    const { step_index: _given, ...fields } = parsed.data;
    out.push({ ...newStep(fields, at, issues), step_index: i });
  });
  return out;
}

/** remove_step_indices as remove operations. */
const opsFromRemovals = (raw: number[]): { op: Op; at: string }[] => raw.map((step_index, i) => ({ op: { op: 'remove', step_index }, at: `patch.remove_step_indices.${i}` }));

function applySteps(base: PlaybookStep[], ops: { op: Op; at: string }[], issues: Issue[]): PlaybookStep[] {
  const n = base.length;
  const touched = new Map<number, string>();
  const inserts = new Map<number, PlaybookStep[]>();
  const replaced = new Map<number, Partial<PlaybookStep>>();
  const removed = new Set<number>();
  for (const { op, at } of ops) {
    if (op.op === 'insert') {
      if (op.step_index > n) issues.push({ path: `${at}.step_index`, message: `insert position ${op.step_index} is past the end (the version has ${n} steps; ${n} appends)` });
      const step = newStep(op.step, `${at}.step`, issues);
      inserts.set(op.step_index, [...(inserts.get(op.step_index) ?? []), step]);
      continue;
    }
    if (op.step_index >= n) {
      issues.push({ path: `${at}.step_index`, message: `step ${op.step_index} does not exist (the version has ${n} steps)` });
      continue;
    }
    const earlier = touched.get(op.step_index);
    if (earlier) {
      issues.push({ path: `${at}.step_index`, message: `step ${op.step_index} is already changed by ${earlier}` });
      continue;
    }
    touched.set(op.step_index, at);
    if (op.op === 'remove') removed.add(op.step_index);
    else {
      const fields = stepFields(op.step, `${at}.step`, issues);
      if (Object.keys(fields).length === 0)
        issues.push({ path: `${at}.step`, message: 'replace needs at least one of tool_name, tool_input, expected_output_signature, max_attempts, retry_policy, backoff_ms' });
      replaced.set(op.step_index, fields);
    }
  }
  const out: PlaybookStep[] = [];
  for (let i = 0; i <= n; i++) {
    out.push(...(inserts.get(i) ?? []));
    const s = base[i];
    if (!s || removed.has(i)) continue;
    out.push({ ...s, ...(replaced.get(i) ?? {}) });
  }
  return out.map((s, i) => ({ ...s, step_index: i }));
}

function applyParameters(base: PlaybookParameter[], raw: unknown, issues: Issue[]): PlaybookParameter[] {
  if (raw === undefined) return base;
  const parsed = ParamChanges.safeParse(raw);
  if (!parsed.success) {
    issues.push(...zodIssues(parsed.error, ParamChanges, 'patch.parameters'));
    return base;
  }
  let out = [...base];
  for (const name of parsed.data.remove ?? []) {
    if (!out.some((p) => p.name === name)) issues.push({ path: `patch.parameters.remove`, message: `parameter '${name}' is not declared` });
    out = out.filter((p) => p.name !== name);
  }
  for (const p of parsed.data.set ?? []) {
    const next = { name: p.name, default: p.default ?? null };
    const i = out.findIndex((q) => q.name === p.name);
    if (i >= 0) out[i] = next;
    else out.push(next);
  }
  return out;
}

export async function repairPlaybook(c: ReplayStoreCtx, ref: ScopeRef, input: RepairInput, actor: string) {
  const { playbooks, active } = replayStores(c.db, ref);
  const base = await loadVersion(playbooks, input.playbook_id, input.version);
  const issues: Issue[] = [];
  const p = input.patch;
  let steps: PlaybookStep[];
  if (p.steps_override !== undefined) {
    if (p.steps !== undefined || p.step_patches !== undefined || p.remove_step_indices !== undefined) {
      issues.push({ path: 'patch.steps_override', message: 'steps_override replaces every step: send it alone, without steps, step_patches or remove_step_indices' });
    }
    steps = overrideSteps(p.steps_override, issues);
  } else {
    const ops = [...parseOps(p.steps ?? [], issues), ...opsFromStepPatches(p.step_patches ?? [], issues), ...opsFromRemovals(p.remove_step_indices ?? [])];
    steps = applySteps(base.steps, ops, issues);
  }
  const parameters = applyParameters(base.parameters, input.patch.parameters, issues);
  const name = input.patch.name ?? base.name;
  const profile = input.patch.sandbox_profile ?? base.sandbox_profile;
  if (issues.length === 0 && sameJson(steps, base.steps) && sameJson(parameters, base.parameters) && name === base.name && profile === base.sandbox_profile) {
    issues.push({ path: 'patch', message: 'the patch changes nothing' });
  }
  if (issues.length === 0) issues.push(...validateContent(steps, parameters));
  if (issues.length > 0)
    throw validationFailed(`the patch of playbook '${base.playbook_id}' version ${base.version} is invalid`, issues, { playbook_id: base.playbook_id, version: base.version });

  const at = nowIso(c);
  // Versions are allocated as latest + 1; a writer that loses the race for a number takes the next.
  for (let attempt = 0; attempt < 8; attempt++) {
    const latest = (await playbooks.latest(base.playbook_id))!;
    const doc: PlaybookDoc = {
      _id: uuidv7(c.clock.now().getTime()),
      playbook_id: base.playbook_id,
      version: latest.version + 1,
      name,
      status: 'draft',
      steps,
      parameters,
      sandbox_profile: profile,
      source_run_id: base.source_run_id,
      repair_of: base.version,
      note: input.note ?? null,
      shadow_validation: null,
      review: null,
      status_history: [{ from: null, to: 'draft', via: 'repair', actor, note: input.note ?? null, at }],
      actor,
      created_at: at,
      updated_at: at,
    };
    const inserted = await playbooks.insert(doc);
    if (inserted) {
      return {
        playbook_id: doc.playbook_id,
        version: doc.version,
        repair_of: base.version,
        playbook: playbookView(inserted, await active.get(doc.playbook_id)),
      };
    }
  }
  throw new LoreError(
    'conflict',
    `could not allocate a new version of playbook '${base.playbook_id}' (too many concurrent repairs); retry`,
    { playbook_id: base.playbook_id },
    true,
  );
}
