import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ToolDef, ToolEnvironment } from './tool-def';

/**
 * Lore's MCP tools: a short list of what an agent actually needs, each one contract route
 * (docs/agents.md documents every tool). Adding a tool is adding an entry here.
 */

type Out = Record<string, any>;

const list = (items: unknown[] | undefined, max = 5) => {
  const xs = (items ?? []).map(String);
  return xs.length === 0 ? 'none' : xs.length > max ? `${xs.slice(0, max).join(', ')} (+${xs.length - max} more)` : xs.join(', ');
};

/** Whitespace collapsed, at most `max` characters. */
export function snippetOf(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const RecallHit = z.object({
  id: z.string(),
  title: z.string().nullable(),
  snippet: z.string().describe('the start of the node’s summary (or text); get_memory returns the whole node'),
  score: z.number(),
  type: z.string(),
  kind: z.string().nullable(),
  tags: z.array(z.string()),
  created_at: z.string(),
});
const RecallOutput = z.object({ results: z.array(RecallHit), strategy: z.string() });

const PlaybookStepOutput = z.object({
  run_id: z.string(),
  state: z.string(),
  status: z.string(),
  pending_step: z.record(z.string(), z.unknown()).nullable().describe('the host step the run waits for, or null'),
});

function describePending(runId: string, p: Out | null, otherwise: string): string {
  if (!p) return `Run ${runId} waits for no host step: ${otherwise}.`;
  return `Run ${runId} waits for step ${p.step_index}: ${p.tool_name} ${JSON.stringify(p.tool_input)}. Perform it, then call complete_playbook_step.`;
}

/** The session execute_command uses when the model names none: one per tenant+scope+actor. */
export function defaultSandboxSession(binding: { tenant_id: string; scope: string; actor: string }): string {
  const h = createHash('sha256').update(`${binding.tenant_id}\u0000${binding.scope}\u0000${binding.actor}`).digest('hex').slice(0, 16);
  return `mcp-${h}`;
}

const EXECUTE_USAGE =
  '`action` is {kind: "command", argv: [program, ...arguments]}; no shell unless argv[0] is one. Commands with the same `session_id` share a working directory; without one, every call of this connection uses the same session. Returns the exit code, the last few KiB of stdout and stderr, and how the run ended.';

/** What execute_command does on this Lore now: the isolation its worker reports, said plainly. */
export function describeExecuteCommand(env: ToolEnvironment): string {
  switch (env.sandbox.isolation) {
    case 'bubblewrap':
      return `Run a command in Lore’s sandbox and wait for it. It is isolated by bubblewrap: no network, a read-only system, a private working directory, time and memory limits. ${EXECUTE_USAGE}`;
    case 'none':
      return `Run a command on Lore’s host and wait for it. It is NOT isolated (the operator set LORE_SANDBOX_ISOLATION=none): it has the host’s network and sees its files as Lore’s user does; only a private working directory, a scrubbed environment and time and memory limits apply. Run only what you would run in a terminal yourself. ${EXECUTE_USAGE}`;
    default:
      return `Run a command in Lore’s sandbox and wait for it. Its worker has not reported yet which isolation it runs commands under; the run record’s \`isolation\` says (bubblewrap: no network, a read-only system, a private working directory, time and memory limits). ${EXECUTE_USAGE}`;
  }
}

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'write_memory',
    route: 'memory.write',
    title: 'Write memory',
    description:
      'Record what you did or learned so later tasks can reuse it. After finishing a piece of work, pass `execution` with the goal, the steps you took in order (tool, file_path, command, outcome), the target files and the outcome: that is what Lore learns first steps from. Plain notes go in `input_text`. A `client_id` makes a retry idempotent (the same id with new content supersedes). Returns the stored node ids and what was extracted (files, tools, commands, error signatures, outcome).',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: { pick: ['input_text', 'execution', 'title', 'tags', 'client_id', 'type', 'importance'] },
    output: { pick: ['deduplicated', 'commit_id', 'nodes', 'extracted', 'learning', 'warnings'] },
    summarize: (o: Out) => {
      const ids = (o.nodes as Out[]).map((n) => `${n.id} (${n.outcome})`);
      const x = o.extracted as Out;
      return [
        `Stored ${ids.length} node${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}.`,
        `Extracted: files ${list(x.file_paths)}; tools ${list(x.tools)}; commands ${list(x.commands)}; outcome ${x.outcome ?? 'none'}.`,
        (o.learning as Out).workflows_updated.length > 0 ? `Learning updated workflows: ${list((o.learning as Out).workflows_updated)}.` : '',
      ]
        .filter(Boolean)
        .join('\n');
    },
  },
  {
    name: 'recall_memory',
    route: 'memory.recallText',
    title: 'Recall memory',
    description:
      'Search this project’s memory in natural language (`query_text`). Returns the best matches first, each as an id, a title and a short snippet with its score: cheap to scan. Call get_memory with an id when you need the whole node. Use before unfamiliar work, or when the user refers to something done earlier.',
    annotations: READ,
    input: { pick: ['query_text', 'limit', 'types', 'kinds', 'tags', 'include_archived'], require: ['query_text'] },
    output: {
      schema: RecallOutput,
      shape: (r: Out) => ({
        strategy: (r.query as Out).strategy,
        results: (r.results as Out[]).map((n) => ({
          id: n.id,
          title: n.title,
          snippet: snippetOf(n.summary || n.text),
          score: Math.round(n.score * 1000) / 1000,
          type: n.type,
          kind: n.kind,
          tags: n.tags,
          created_at: n.created_at,
        })),
      }),
    },
    summarize: (o: Out) => {
      const hits = o.results as Out[];
      if (hits.length === 0) return 'No matches.';
      return hits.map((h, i) => `${i + 1}. ${h.id} (score ${h.score})${h.title ? ` ${h.title}` : ''}: ${h.snippet}`).join('\n');
    },
  },
  {
    name: 'get_memory',
    route: 'memory.resolve',
    title: 'Get memory',
    description:
      'Fetch one whole memory node by `id` (from recall_memory), by `client_id` or by `lore://` `uri`: its full text, slots, tags, feedback, its edges and its earlier revisions. Give exactly one of the three.',
    annotations: READ,
    input: { pick: ['id', 'client_id', 'uri', 'include_revisions', 'include_edges'] },
    summarize: (o: Out) => {
      const n = o.node as Out;
      return `${n.id} [${n.type}${n.kind ? `/${n.kind}` : ''}, revision ${n.revision}]${n.title ? ` ${n.title}` : ''}\n${snippetOf(n.text, 2000)}`;
    },
  },
  {
    name: 'start_task',
    route: 'learning.kickoffRecommendation',
    title: 'Start a task',
    description:
      'Call at the start of a task with the task in `query_text`. When similar tasks were done before, returns `first_action`: the tool and file to start with and the next action, with the evidence ids it was learned from and its confidence, plus `uncertainty` (level, reasons, what to do about it). `first_action` is null when nothing relevant was learned: then proceed as usual.',
    annotations: READ,
    input: { pick: ['query_text', 'context', 'tool_candidates'], require: ['query_text'] },
    summarize: (o: Out) => {
      const fa = o.first_action as Out | null;
      const u = o.uncertainty as Out;
      if (!fa) return `No learned first action for this task (uncertainty ${u.level}: ${list(u.reasons, 3)}). Proceed as usual.`;
      const what = [fa.selected_tool, fa.file_path].filter(Boolean).join(' on ');
      return [
        `Start with ${what || fa.next_action}: ${fa.next_action}`,
        `Learned from ${fa.source_kind} (confidence ${Number(fa.confidence).toFixed(2)}, uncertainty ${u.level}).`,
        `Evidence: ${list(fa.evidence_ids, 8)}.`,
      ].join('\n');
    },
  },
  {
    name: 'plan_task',
    route: 'learning.contextAssemble',
    title: 'Plan a task',
    description:
      'Prompt-ready planning context for a task (`query_text`) within a budget (`char_budget` or `token_budget`): the learned first action, workflows, patterns and policies, rules and supporting knowledge as one text (`context_text`), with the ids it used and what was dropped to fit. Use before a larger task when you want the whole picture; start_task is the cheaper question.',
    annotations: READ,
    input: { pick: ['query_text', 'context', 'tool_candidates', 'char_budget', 'token_budget', 'include_supporting_knowledge'], require: ['query_text'] },
    output: { pick: ['context_text', 'layers', 'sources', 'budget', 'dropped'] },
    summarize: (o: Out) => (String(o.context_text).trim() === '' ? 'Nothing learned applies to this task yet.' : String(o.context_text)),
  },
  {
    name: 'report_tool_outcome',
    route: 'learning.toolsFeedback',
    title: 'Report a tool outcome',
    description:
      'Tell Lore whether a tool helped with a task: `selected_tool`, `outcome` (positive, negative or neutral), the task in `query_text`, and a `run_id` (or the `decision_id` a recommendation gave) so one run counts once; `reason` says why. Consistent outcomes make a pattern trusted or contested and can create a policy that later recommendations follow. Returns the pattern as it now stands.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: { pick: ['query_text', 'context', 'selected_tool', 'outcome', 'reason', 'run_id', 'decision_id'], require: ['query_text'] },
    summarize: (o: Out) => {
      const p = o.pattern as Out;
      return `Recorded for ${p.tool} (${o.run_key}). Pattern ${p.pattern_id} is ${p.state}: ${p.distinct_positive_runs} positive, ${p.distinct_negative_runs} negative run(s).${o.policy_materialized ? ' A policy memory was created.' : ''}`;
    },
  },
  {
    name: 'store_handoff',
    route: 'handoff.store',
    title: 'Store a handoff',
    description:
      'Leave the state of unfinished work for whoever continues it (another agent, a later session), under an `anchor` such as a branch or ticket: `summary`, `target_files`, the `next_action`, `acceptance_checks` and `rollback_notes`. Storing again under the same anchor supersedes the handoff; earlier versions stay as revisions. The same content again changes nothing.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      pick: ['anchor', 'title', 'summary', 'handoff_text', 'target_files', 'next_action', 'acceptance_checks', 'rollback_notes', 'handoff_kind', 'session_id', 'run_id', 'tags'],
    },
    output: { pick: ['handoff'] },
    summarize: (o: Out) => {
      const h = o.handoff as Out;
      return `Stored handoff ${h.handoff_id} under '${h.anchor}' (revision ${h.revision}).`;
    },
  },
  {
    name: 'recover_handoff',
    route: 'handoff.recover',
    title: 'Recover a handoff',
    description:
      'Get the latest handoff stored under an `anchor` (or one handoff by `handoff_id`) when resuming work someone else started: its summary, target files, next action, acceptance checks and rollback notes. `include_history` adds the earlier versions.',
    annotations: READ,
    input: { pick: ['anchor', 'handoff_id', 'include_history'] },
    summarize: (o: Out) => {
      const h = o.handoff as Out;
      return [
        `Handoff ${h.handoff_id} under '${h.anchor}' (revision ${h.revision}, ${h.updated_at}): ${snippetOf(h.summary || h.handoff_text, 600)}`,
        h.next_action ? `Next action: ${h.next_action}` : '',
        `Target files: ${list(h.target_files, 10)}. Acceptance checks: ${list(h.acceptance_checks, 10)}.`,
      ]
        .filter(Boolean)
        .join('\n');
    },
  },
  {
    name: 'get_run',
    route: 'automations.runs.get',
    title: 'Get an automation run',
    description:
      'The state of an automation run by `run_id`: queued, running, paused (waiting at approval nodes, listed in paused_nodes), succeeded, failed or cancelled, with its error, timestamps and node counts. `include_nodes` adds every node with its state, inputs and output.',
    annotations: READ,
    input: { pick: ['run_id', 'include_nodes'] },
    summarize: (o: Out) => {
      const r = o.run as Out;
      const paused = (r.paused_nodes as string[]).length > 0 ? ` Waiting for approval at: ${list(r.paused_nodes, 10)}.` : '';
      return `Run ${r.run_id} of ${r.automation_id} is ${r.status}.${paused}${r.error ? ` Error: ${r.error.message}` : ''}${r.reason ? ` ${r.reason}` : ''}`;
    },
  },
  {
    name: 'resume_run',
    route: 'automations.runs.resume',
    title: 'Resume an automation run',
    description:
      'Approve a paused automation run so it continues: `run_id` and a `reason` (recorded with your identity); `node_id` or `approval_key` approves one waiting approval, otherwise all of them. Only call it when the user has approved. A run that is not paused is an error.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: { pick: ['run_id', 'reason', 'node_id', 'approval_key'] },
    summarize: (o: Out) => `Approved ${list(o.resumed_node_ids, 10)}; run ${(o.run as Out).run_id} is ${(o.run as Out).status}.`,
  },
  {
    name: 'next_playbook_step',
    route: 'replay.runs.get',
    title: 'Next playbook step',
    description:
      'The step a guided playbook run waits for you to perform (`run_id` of the run): its `pending_step` has the `step_index`, the `tool_name` and the `tool_input` with parameters filled in, and the expected output signature the result is judged against. Do that step yourself (read, edit, any tool of yours), then report it with complete_playbook_step. `pending_step` is null when the run waits for nothing (it is running a command, or it has ended: see `status`).',
    annotations: READ,
    input: { pick: ['run_id'], fixed: { include_steps: false } },
    output: {
      schema: PlaybookStepOutput,
      shape: (r: Out) => {
        const run = r.run as Out;
        return { run_id: run.run_id, state: run.state, status: run.status, pending_step: run.pending_step ?? null };
      },
    },
    summarize: (o: Out) => describePending(o.run_id as string, o.pending_step as Out | null, `the run is ${o.state} (${o.status})`),
  },
  {
    name: 'complete_playbook_step',
    route: 'replay.playbooks.completeStep',
    title: 'Complete a playbook step',
    description:
      'Report the result of the host step a guided playbook run waits for (from next_playbook_step): `run_id`, `step_index`, `status` (success or failed) and an `output_signature` with what you observed (exit_code, error_signature, markers, json values, artifacts written). Lore judges it against the expected signature and the run goes on; the answer comes when the run needs you again (`pending_step`) or has ended (`completed`). Report each step once.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: { pick: ['run_id', 'step_index', 'status', 'output_signature', 'error', 'wait_ms'] },
    output: { pick: ['run_id', 'step_index', 'completed', 'pending_step', 'message', 'step'] },
    summarize: (o: Out) => {
      const step = o.step as Out;
      const verdict = `Step ${o.step_index} recorded as ${step.status}.`;
      if (o.completed) return `${verdict} The run has ended.`;
      return `${verdict} ${describePending(o.run_id as string, o.pending_step as Out | null, 'the run is still working')}`;
    },
  },
  {
    name: 'execute_command',
    route: 'sandbox.execute',
    title: 'Execute a command in the sandbox',
    description: describeExecuteCommand,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    input: {
      pick: ['session_id', 'action', 'timeout_ms', 'limits', 'run_id'],
      defaults: { session_id: ({ binding }) => defaultSandboxSession(binding) },
      fixed: { mode: 'sync' },
    },
    // The session must exist; creating it again with the same id and profile returns it.
    before: async (args, { callRoute }) => {
      await callRoute('sandbox.createSession', { session_id: args.session_id });
    },
    summarize: (o: Out) => {
      const r = o.run as Out;
      const tail = (s: string) => (s.length > 1500 ? `…${s.slice(-1500)}` : s);
      return [
        `${r.status}${r.exit_code !== null ? ` with exit code ${r.exit_code}` : ''}${r.duration_ms !== null ? ` in ${r.duration_ms} ms` : ''} (run ${r.run_id}, session ${r.session_id}).${o.completed ? '' : ' Still running: get the run later.'}`,
        r.stdout_tail ? `stdout:\n${tail(r.stdout_tail)}` : '',
        r.stderr_tail ? `stderr:\n${tail(r.stderr_tail)}` : '',
      ]
        .filter(Boolean)
        .join('\n');
    },
    // Not listed where it cannot run: the sandbox is off, or its isolation is unavailable and Lore refuses commands.
    when: (env) => env.sandbox.enabled && env.sandbox.available !== false,
  },
];
