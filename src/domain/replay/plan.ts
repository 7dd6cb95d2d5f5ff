import type { Issue } from '../../contract/errors';
import { LoreError } from '../../contract/errors';
import { checkCommand } from '../sandbox/profiles';
import { resolveParams, substitute } from './params';
import { checkedCommand, commandOf, type CheckedCommand } from './steps';
import type { Json, PlaybookDoc, RunRequestMode, StepKind } from '../../model/replay/types';

/**
 * A version resolved for a run: parameter values substituted into every step, each command
 * checked against the playbook's sandbox profile. simulate returns this; strict and guided runs
 * execute it; candidate and dry-run shadow validation read its problems.
 */

export interface PlannedStep {
  step_index: number;
  kind: StepKind;
  tool_name: string;
  tool_input: Json;
  expected_output_signature: Json | null;
  max_attempts: number;
  backoff_ms: number;
  command: CheckedCommand | null;
  /** Why this step cannot run as it is (bad argv, not allowed by the profile). */
  problems: string[];
}

export interface Plan {
  params: Json;
  steps: PlannedStep[];
  /** Parameter problems (unknown names, values missing). */
  issues: Issue[];
}

export function planOf(doc: PlaybookDoc, given: Json): Plan {
  const { values, issues } = resolveParams(doc.parameters, given);
  const steps = doc.steps.map((s): PlannedStep => {
    const toolInput = substitute(s.tool_input, values);
    const expected = substitute(s.expected_output_signature, values);
    const spec = commandOf(s.tool_name, toolInput);
    if (!spec) {
      return {
        step_index: s.step_index,
        kind: 'host',
        tool_name: s.tool_name,
        tool_input: toolInput,
        expected_output_signature: expected,
        max_attempts: s.max_attempts,
        backoff_ms: s.backoff_ms ?? 0,
        command: null,
        problems: [],
      };
    }
    const { command, problems } = checkedCommand(spec);
    if (command) {
      try {
        checkCommand(doc.sandbox_profile, command.argv, command.env);
      } catch (err) {
        if (!(err instanceof LoreError)) throw err;
        problems.push(err.message);
      }
    }
    return {
      step_index: s.step_index,
      kind: 'command',
      tool_name: s.tool_name,
      tool_input: toolInput,
      expected_output_signature: expected,
      max_attempts: s.max_attempts,
      backoff_ms: s.backoff_ms ?? 0,
      command,
      problems,
    };
  });
  return { params: values, steps, issues };
}

/** Every reason a plan cannot run in `mode` (strict needs command steps only). */
export function planIssues(plan: Plan, mode: RunRequestMode): Issue[] {
  const issues = [...plan.issues];
  for (const s of plan.steps) {
    for (const p of s.problems) issues.push({ path: `steps.${s.step_index}`, message: p });
    if (mode === 'strict' && s.kind === 'host') {
      issues.push({ path: `steps.${s.step_index}`, message: `step ${s.step_index} (${s.tool_name}) needs the host; strict mode runs command steps only (use guided)` });
    }
  }
  return issues;
}

export function planView(plan: Plan) {
  return {
    params: plan.params,
    steps: plan.steps.map((s) => ({
      step_index: s.step_index,
      kind: s.kind,
      tool_name: s.tool_name,
      tool_input: s.tool_input,
      expected_output_signature: s.expected_output_signature,
      argv: s.command?.argv ?? null,
      max_attempts: s.max_attempts,
      backoff_ms: s.backoff_ms,
      runnable: s.kind === 'command' && s.problems.length === 0,
      problems: s.problems,
    })),
    issues: plan.issues,
  };
}
