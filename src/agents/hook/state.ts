import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What `lore hook` remembers between its invocations (each agent event is a separate process):
 * per agent session, the binding it recorded under, the replay run of the current prompt, the
 * step indexes handed out, which step each pending tool call is, and the steps seen so far (the
 * execution written at Stop). One small JSON file per session under
 * <data dir>/hooks/sessions/, written whole (temporary file + rename) under a lock file, because
 * an agent may run the hooks of parallel tool calls at once. Everything in it is redacted first.
 * docs/agents.md ("Where the session state lives") says why a file and not Lore.
 */

export interface StepState {
  index: number;
  tool: string;
  file_path: string | null;
  command: string | null;
  status: 'success' | 'failed' | null;
  error_signature: string | null;
}

export interface TaskState {
  /** 1 for the session's first prompt, 2 for the next … */
  n: number;
  run_id: string;
  goal: string;
  next_index: number;
  /** tool_use_id (or a fingerprint of the call) → its step index, until its PostToolUse. */
  pending: Record<string, number>;
  /** The first steps, for the execution write (a long turn keeps its first MAX_EVIDENCE_STEPS). */
  steps: StepState[];
  /** The result of the latest finished call: the turn's outcome. */
  last: { status: 'success' | 'failed'; error_signature: string | null } | null;
  started_at: string;
}

export interface SessionState {
  version: 1;
  session_id: string;
  tenant_id: string;
  scope: string;
  project_root: string;
  prompts: number;
  last_goal: string | null;
  task: TaskState | null;
  created_at: string;
  updated_at: string;
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
      const s = JSON.parse(readFileSync(this.fileOf(tenant, sessionId), 'utf8')) as SessionState;
      return s.version === 1 ? s : null;
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
