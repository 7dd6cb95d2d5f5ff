import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionOutcome } from '../../model/memory/vocabulary';

/**
 * What `lore hook` remembers between its invocations (each agent event is a separate process):
 * per agent session, the binding it recorded under, the running task (its replay run, goal,
 * prompts, vocabulary, files, how its last turn ended), the step indexes handed out, which step
 * each pending tool call is, and the steps seen so far (the execution written when the task
 * ends). The HTTP hook route keeps the same files in the API's data dir. One small JSON file per
 * session under <data dir>/hooks/sessions/, written whole (temporary file + rename) under a lock
 * file, because an agent may run the hooks of parallel tool calls at once. Everything in it is redacted first.
 * docs/agents.md ("Where the session state lives") says why a file and not Lore.
 */

export interface StepState {
  index: number;
  tool: string;
  /** The file the call was about (project-relative when inside the project). */
  file_path: string | null;
  /** Every file it touched, when more than one (an apply_patch over several files). */
  files?: string[];
  command: string | null;
  status: 'success' | 'failed' | null;
  error_signature: string | null;
  /** Set when a subagent made the call (the host's agent_id). */
  agent_id?: string | null;
}

/** How a turn (one prompt and the work it started, up to Stop) ended. */
export type TurnEnd = ExecutionOutcome | 'no_tools';

export interface SubagentState {
  agent_id: string;
  agent_type: string | null;
  /** Calls it made (steps recorded with its agent_id). */
  calls: number;
  /** Set at SubagentStop. */
  status: 'success' | 'failed' | null;
  summary: string | null;
}

/**
 * One task: a prompt that started new work and the prompts that continued it (segment.ts), with
 * every tool call of their turns. One replay run and, when it ends, one execution write.
 */
export interface TaskState {
  /** 1 for the session's first task, 2 for the next … */
  n: number;
  run_id: string;
  /** The prompt that started it (or, when that had no subject, the first that did). */
  goal: string;
  /** Every prompt of the task, in order (redacted, first 300 characters; the first 30). */
  prompts: string[];
  /** Later prompts that added to the goal ("try again with the clock pinned"). */
  refinements: string[];
  /** Subject terms of its prompts, files, commands and errors: what "the same subject" means. */
  vocabulary: string[];
  /** Files its calls touched, project-relative, in first-seen order. */
  files: string[];
  next_index: number;
  /** tool_use_id (or a fingerprint of the call) → its step index, until its PostToolUse. */
  pending: Record<string, number>;
  /** The first steps, for the execution write (a long task keeps its first MAX_EVIDENCE_STEPS). */
  steps: StepState[];
  /** The result of the latest finished call. */
  last: { status: 'success' | 'failed'; error_signature: string | null; command: string | null } | null;
  /** Prompts seen (turns started). */
  turns: number;
  /** A turn is running: its prompt was seen, its Stop not yet. */
  turn_open: boolean;
  /** Tool calls in the running (or latest) turn. */
  turn_calls: number;
  /** How the latest finished turn ended. */
  last_turn: TurnEnd | null;
  /** The outcome so far: that of the latest turn that called tools. */
  outcome: ExecutionOutcome | null;
  subagents: SubagentState[];
  /** The latest handoff stored for it (PreCompact). */
  handoff_id: string | null;
  started_at: string;
}

export interface SessionState {
  version: 2;
  /** Which agent's hooks record this session (claude-code, codex). */
  agent: string;
  session_id: string;
  tenant_id: string;
  scope: string;
  project_root: string;
  /** Tasks started in this session (numbers the next one). */
  tasks: number;
  task: TaskState | null;
  created_at: string;
  updated_at: string;
}

/** A state file as an earlier version wrote it, read field by field. */
// biome-ignore lint/suspicious/noExplicitAny: the fields of an older format, copied into the current one
type Legacy = Record<string, any>;

/** A state file of the previous version (one task per prompt): read as a session of version 2. */
function upgrade(raw: Legacy): SessionState | null {
  if (raw.version === 2) return raw as SessionState;
  if (raw.version !== 1) return null;
  const t = raw.task as Legacy | null;
  return {
    version: 2,
    agent: 'claude-code',
    session_id: raw.session_id,
    tenant_id: raw.tenant_id,
    scope: raw.scope,
    project_root: raw.project_root,
    tasks: raw.prompts ?? 0,
    task: t
      ? {
          n: t.n,
          run_id: t.run_id,
          goal: t.goal,
          prompts: [t.goal],
          refinements: [],
          vocabulary: [],
          files: [],
          next_index: t.next_index,
          pending: t.pending ?? {},
          steps: t.steps ?? [],
          last: t.last ? { ...t.last, command: null } : null,
          turns: 1,
          turn_open: true,
          turn_calls: t.next_index ?? 0,
          last_turn: null,
          outcome: null,
          subagents: [],
          handoff_id: null,
          started_at: t.started_at,
        }
      : null,
    created_at: raw.created_at,
    updated_at: raw.updated_at,
  };
}

const LOCK_STALE_MS = 3000;
const LOCK_WAIT_MS = 300;
/** Sessions untouched this long are forgotten (an agent that never sent SessionEnd). */
const SESSION_TTL_MS = 7 * 86_400_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class HookStateStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'hooks', 'sessions');
  }

  fileOf(tenant: string, sessionId: string): string {
    return join(this.dir, `${createHash('sha256').update(`${tenant}\u0000${sessionId}`).digest('hex').slice(0, 32)}.json`);
  }

  read(tenant: string, sessionId: string): SessionState | null {
    try {
      return upgrade(JSON.parse(readFileSync(this.fileOf(tenant, sessionId), 'utf8')));
    } catch {
      return null;
    }
  }

  /**
   * Read-modify-write under the session's lock. `fn` returns the new state, or null to forget the
   * session. A lock that cannot be had within LOCK_WAIT_MS is a hook stuck elsewhere: we go on
   * without it rather than stall the agent (the hooks fail open), and say so.
   */
  async update(tenant: string, sessionId: string, fn: (s: SessionState | null) => SessionState | null): Promise<{ state: SessionState | null; locked: boolean }> {
    mkdirSync(this.dir, { recursive: true });
    const file = this.fileOf(tenant, sessionId);
    const lock = `${file}.lock`;
    const locked = await acquire(lock);
    try {
      const next = fn(this.read(tenant, sessionId));
      if (next === null) rmSync(file, { force: true });
      else {
        const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
        writeFileSync(tmp, JSON.stringify(next), { mode: 0o600 });
        renameSync(tmp, file);
      }
      return { state: next, locked };
    } finally {
      if (locked) rmSync(lock, { force: true });
    }
  }

  /**
   * Sessions whose task has been idle longer than `idleMs` (an agent closed without SessionEnd):
   * at most `limit`, oldest first, for the caller to finish their tasks.
   */
  idleTasks(idleMs: number, limit: number, now = Date.now()): SessionState[] {
    let names: string[] = [];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const found: { s: SessionState; at: number }[] = [];
    for (const name of names) {
      try {
        const p = join(this.dir, name);
        const at = statSync(p).mtimeMs;
        if (now - at < idleMs) continue;
        const s = upgrade(JSON.parse(readFileSync(p, 'utf8')));
        if (s?.task) found.push({ s, at });
      } catch {
        // gone or half-written meanwhile
      }
    }
    return found
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((f) => f.s);
  }

  /** Removes the state of sessions idle for a week (and stray temporary files). */
  prune(now = Date.now()): number {
    let removed = 0;
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    for (const name of names) {
      const p = join(this.dir, name);
      try {
        const age = now - statSync(p).mtimeMs;
        if ((name.endsWith('.json') && age > SESSION_TTL_MS) || (name.endsWith('.tmp') && age > 60_000) || (name.endsWith('.lock') && age > LOCK_STALE_MS)) {
          rmSync(p, { force: true });
          removed += 1;
        }
      } catch {
        // gone already
      }
    }
    return removed;
  }
}

async function acquire(lock: string): Promise<boolean> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      try {
        // A hook killed while holding it (the agent's own timeout) leaves it behind.
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
      } catch {
        // released meanwhile
      }
      if (Date.now() > until) return false;
      await sleep(5);
    }
  }
}
