import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compactInput, hookRunId } from '../../src/agents/hook/handler';
import { parseHookEvent } from '../../src/agents/hook/payload';
import { errorSignature, isEvidenceTool, stepResult, toolCommand, toolFile } from '../../src/agents/hook/signature';
import { HookStateStore, type SessionState } from '../../src/agents/hook/state';

describe('hook input', () => {
  it('accepts Claude Code events and ignores unknown fields', () => {
    const p = parseHookEvent(
      JSON.stringify({
        session_id: 's',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_response: { stdout: '' },
        tool_use_id: 't',
        effort: { level: 'high' },
      }),
    );
    assert.ok(p.ok);
    assert.equal(p.event.tool_name, 'Bash');
    assert.equal(p.event.tool_use_id, 't');
    const other = parseHookEvent(JSON.stringify({ session_id: 's', hook_event_name: 'Notification', message: 'hi' }));
    assert.ok(other.ok, 'events Lore does not record are accepted (and ignored by the handler)');
  });

  it('refuses what cannot be recorded, saying why', () => {
    const bad: [string, RegExp][] = [
      ['{', /not JSON/],
      ['null', /JSON object/],
      ['{"session_id":"s"}', /hook_event_name/],
      ['{"hook_event_name":"Stop"}', /session_id/],
      ['{"hook_event_name":"PreToolUse","session_id":"s"}', /tool_name/],
      ['{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":[1]}', /tool_input/],
      ['{"hook_event_name":"UserPromptSubmit","session_id":"s"}', /prompt/],
    ];
    for (const [text, why] of bad) {
      const p = parseHookEvent(text);
      assert.equal(p.ok, false, text);
      if (!p.ok) assert.match(p.problem, why);
    }
  });
});

describe('what a tool call did', () => {
  it('files and commands of Claude Code tools', () => {
    assert.equal(toolFile('Edit', { file_path: '/p/a.ts' }), '/p/a.ts');
    assert.equal(toolFile('NotebookEdit', { notebook_path: '/p/n.ipynb' }), '/p/n.ipynb');
    assert.equal(toolFile('Bash', { file_path: '/p/a.ts' }), null);
    assert.equal(toolCommand('Bash', { command: 'TOKEN=abc npm publish' }), 'TOKEN=[REDACTED] npm publish');
    assert.equal(isEvidenceTool('TodoWrite'), false);
    assert.equal(isEvidenceTool('mcp__lore__recall_memory'), false);
    assert.equal(isEvidenceTool('Grep'), true);
  });

  it('exit status and error signature from a response or a failure', () => {
    assert.deepEqual(stepResult('Bash', false, { stdout: 'ok', stderr: '', interrupted: false }, null), {
      status: 'success',
      exit_code: 0,
      error_signature: null,
      error: null,
      interrupted: false,
    });
    assert.equal(stepResult('Read', false, { type: 'text' }, null).exit_code, null);
    const failed = stepResult('Bash', true, undefined, 'Exit code 1\n\n> shop test\nFAIL src/worker.test.ts\n  ● retries 3 times');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.exit_code, 1);
    assert.equal(failed.error_signature, 'FAIL src/worker.test.ts');
    assert.equal(stepResult('Bash', false, { stdout: '', stderr: 'killed', interrupted: true }, null).status, 'failed');
    assert.equal(stepResult('Bash', false, { exit_code: 2, stderr: 'error: bad flag' }, null).error_signature, 'error: bad flag');
    assert.equal(errorSignature('Exit code 3'), null);
  });

  it('tool inputs are kept under the step limit, redacted', () => {
    const big = compactInput({ file_path: 'a.ts', content: 'x'.repeat(10_000), password: 'p' });
    assert.equal(big.password, '[REDACTED]');
    assert.ok(String(big.content).length < 2100);
    const huge = compactInput({ file_path: 'a.ts', edits: Array.from({ length: 50 }, () => ({ old_string: 'y'.repeat(1999), new_string: 'z'.repeat(1999) })) });
    assert.ok(JSON.stringify(huge).length < 64 * 1024);
    assert.equal(huge.file_path, 'a.ts');
    assert.equal(huge.truncated, true);
  });

  it('run ids fit the contract’s id rule', () => {
    assert.match(hookRunId('5f1c…/ä b', 2), /^[A-Za-z0-9._:@/+=-]{1,200}$/);
  });
});

describe('hook session state', () => {
  it('concurrent updates from separate invocations are serialised by the lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-state-'));
    try {
      const store = new HookStateStore(dir);
      const seed = (): SessionState => ({
        version: 2,
        agent: 'claude-code',
        session_id: 's',
        tenant_id: 't',
        scope: 'x',
        project_root: '/',
        tasks: 0,
        task: null,
        created_at: '',
        updated_at: '',
      });
      await Promise.all(Array.from({ length: 25 }, () => store.update('t', 's', (s) => ({ ...(s ?? seed()), tasks: (s ?? seed()).tasks + 1 }))));
      assert.equal(store.read('t', 's')!.tasks, 25);
      assert.equal(store.read('other-tenant', 's'), null, 'keyed by tenant and session');
      await store.update('t', 's', () => null);
      assert.deepEqual(readdirSync(store.dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the context a prompt hook adds', () => {
  const kickoff = (fa: Record<string, unknown> | null) =>
    ({ tenant_id: 't', scope: 'shop', first_action: fa, uncertainty: { level: 'low', confidence: 0.8, reasons: [], recommended_actions: ['proceed'] } }) as any;
  const fa = {
    action_kind: 'file_step',
    selected_tool: 'read',
    file_path: 'src/a.ts',
    next_action: 'read src/a.ts',
    source_kind: 'stable_workflow',
    history_applied: true,
    confidence: 0.8,
    relevance: 0.9,
    evidence_ids: ['w1', 'e1'],
    rationale: '',
    workflow_id: 'w1',
    policy_memory_id: null,
    pattern_id: null,
  };

  it('names the file, the first tool and the evidence; says the next action only when it adds something', async () => {
    const { kickoffContext } = await import('../../src/agents/hook/context');
    const text = kickoffContext(kickoff(fa))!;
    assert.match(text, /Learned first step: read on src\/a\.ts\.\n/);
    assert.match(text, /Evidence ids: w1, e1\.$/);
    assert.match(text, /scope 'shop'/);
    assert.match(kickoffContext(kickoff({ ...fa, next_action: 'read the retry loop in src/a.ts' }))!, /Next: read the retry loop/);
  });

  it('says nothing when no history applies', async () => {
    const { kickoffContext } = await import('../../src/agents/hook/context');
    assert.equal(kickoffContext(kickoff(null)), null);
    assert.equal(kickoffContext(kickoff({ ...fa, history_applied: false })), null);
  });
});

describe('context within a budget', () => {
  it('never passes the cap, keeps each head and its evidence ids, drops the least important lines first', async () => {
    const { withinBudget, MIN_CONTEXT_CHARS } = await import('../../src/agents/hook/context');
    const handoff = {
      head: 'Lore (execution memory): the task this session was working on before its context was compacted.',
      lines: ['Task: fix the flaky checkout test', `Next step: ${'x'.repeat(300)}`, 'Files: src/a.ts', 'Done when: npm test passes'],
      evidence_ids: ['h1', 'claude-code:s:1'],
    };
    const kickoff = {
      head: 'Lore (execution memory of scope shop): similar tasks were done here before.',
      lines: ['Learned first step: read on src/a.ts.'],
      evidence_ids: ['w1', 'e1'],
    };
    const roomy = withinBudget([handoff, kickoff], 4000)!;
    assert.match(roomy, /Done when: npm test passes/);
    assert.match(roomy, /Evidence ids: h1, claude-code:s:1\.\n/);
    assert.match(roomy, /Evidence ids: w1, e1\.$/);
    for (const budget of [250, 400, 600]) {
      const text = withinBudget([handoff, kickoff], budget)!;
      assert.ok(text.length <= budget, `${text.length} > ${budget}`);
      assert.match(text, /^Lore \(execution memory\)/);
      assert.match(text, /Evidence ids: h1/, 'what is said always says where it came from');
      assert.match(text, /Task: fix the flaky checkout test/);
    }
    assert.match(withinBudget([handoff], 400)!, /…\n/, 'a line that does not fit is cut, and says so');
    assert.ok(withinBudget([handoff, kickoff], 10)!.length <= MIN_CONTEXT_CHARS);
    const many = withinBudget([{ head: 'h', lines: [], evidence_ids: Array.from({ length: 40 }, (_, i) => `id-${i}-0123456789`) }], 300)!;
    assert.ok(many.length <= 300);
    assert.match(many, /\(\+\d+ more\)\.$/);
    assert.equal(withinBudget([], 1000), null);
  });
});

describe('Codex tool calls', () => {
  it('files of an apply_patch envelope and of a viewing command; exit status from a text response', async () => {
    const { patchFiles, viewedFiles, toolFiles } = await import('../../src/agents/hook/signature');
    const patch = '*** Begin Patch\n*** Update File: src/billing/invoice.py\n@@\n-a\n+b\n*** Add File: tests/test_rounding.py\n+x\n*** Delete File: old.py\n*** End Patch\n';
    assert.deepEqual(patchFiles(patch), ['src/billing/invoice.py', 'tests/test_rounding.py', 'old.py']);
    assert.deepEqual(toolFiles('apply_patch', { command: patch }), ['src/billing/invoice.py', 'tests/test_rounding.py', 'old.py']);
    assert.deepEqual(viewedFiles("sed -n '1,120p' src/billing/invoice.py"), ['src/billing/invoice.py']);
    assert.deepEqual(viewedFiles('cat README.md | head -5'), ['README.md']);
    assert.deepEqual(viewedFiles('pytest -q tests/test_rounding.py'), [], 'a test run is not a read');
    const failed = stepResult('Bash', false, 'Process exited with code 1\nWall time: 0.8 seconds\nOutput:\nFAILED tests/test_rounding.py::test_half_up - AssertionError', null);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.exit_code, 1);
    assert.match(failed.error_signature!, /^FAILED tests\/test_rounding\.py/);
    assert.equal(stepResult('Bash', false, 'Exit code: 0\nWall time: 0.2 seconds\nOutput:\n3 passed', null).status, 'success');
    assert.equal(stepResult('apply_patch', false, 'apply_patch verification failed: no such line', null).status, 'failed');
    assert.equal(stepResult('apply_patch', false, 'Success. Updated the following files:\nM src/billing/invoice.py', null).status, 'success');
  });
});

describe('lore hook arguments', () => {
  it('the agent and --forward; anything else is reported and the defaults apply (a hook never fails)', async () => {
    const { parseHookArgs } = await import('../../src/agents/hook/cli');
    assert.deepEqual(parseHookArgs([]), { args: { agent: 'claude-code', forward: false }, problem: null });
    assert.deepEqual(parseHookArgs(['codex']), { args: { agent: 'codex', forward: false }, problem: null });
    assert.deepEqual(parseHookArgs(['claude-code', '--forward']), { args: { agent: 'claude-code', forward: true }, problem: null });
    const odd = parseHookArgs(['cursor', '--fast']);
    assert.deepEqual(odd.args, { agent: 'claude-code', forward: false });
    assert.match(odd.problem!, /unknown arguments cursor --fast/);
  });
});
