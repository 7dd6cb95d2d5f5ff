import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Log } from '../log';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<ChildExit>;
  readonly alive: () => boolean;
  /** The last lines it wrote (for error messages). */
  readonly tail: () => string;
  /** SIGTERM, then SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<ChildExit>;
  /** Stop the event loop from waiting on this child (PDEATHSIG still ends it with us). */
  unref(): void;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  log: Log;
  /** Each stdout line (readiness markers); stderr lines go to the log at debug. */
  onStdoutLine?: (line: string) => void;
  /** Log child output at this level (default debug: quiet unless LORE_LOG_LEVEL=debug). */
  outputLevel?: 'debug' | 'info';
  /** Keep stdin as an open pipe (children that exit when it closes). */
  stdinPipe?: boolean;
  /** The child formats its own log lines (a Lore worker): pass them through unprefixed. */
  rawOutput?: boolean;
}

let setprivPath: string | null | undefined;
function setpriv(): string | null {
  if (setprivPath === undefined) {
    setprivPath = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p)) ?? null;
    if (setprivPath && spawnSync(setprivPath, ['--pdeathsig', 'KILL', '--', 'true']).status !== 0) setprivPath = null;
  }
  return setprivPath;
}

/**
 * Spawns a supervised child. Where util-linux setpriv exists, the child gets PR_SET_PDEATHSIG
 * so the kernel kills it if Lore dies, even by kill -9: a crashed Lore never leaves orphans.
 */
export function spawnChild(opts: SpawnOptions): Child {
  const guard = setpriv();
  const [command, args] = guard ? [guard, ['--pdeathsig', 'KILL', '--', opts.command, ...opts.args]] : [opts.command, opts.args];
  const proc: ChildProcess = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: [opts.stdinPipe ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    // Its own process group: a terminal Ctrl+C reaches only Lore, which then stops the children
    // in order. PDEATHSIG (above) still kills them if Lore dies.
    detached: true,
  });
  const lines: string[] = [];
  const remember = (line: string) => {
    lines.push(line);
    if (lines.length > 40) lines.shift();
  };
  const out = opts.log.child(opts.name);
  const emit = (line: string) => {
    if (opts.rawOutput) process.stderr.write(`${line}\n`);
    else if (opts.outputLevel === 'info') out.info(line);
    else out.debug(line);
  };
  const splitter = (onLine: (l: string) => void) => {
    let buf = '';
    return (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).replace(/\r$/, '');
        buf = buf.slice(i + 1);
        if (line) onLine(line);
      }
    };
  };
  proc.stdout?.on(
    'data',
    splitter((l) => {
      remember(l);
      // A raw child's stdout carries protocol lines (readiness markers), not logs.
      if (!opts.rawOutput) emit(l);
      opts.onStdoutLine?.(l);
    }),
  );
  proc.stderr?.on(
    'data',
    splitter((l) => {
      remember(l);
      emit(l);
    }),
  );
  let done = false;
  const exited = new Promise<ChildExit>((resolve) => {
    proc.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    proc.once('error', (err) => {
      remember(String(err.message));
      done = true;
      resolve({ code: -1, signal: null });
    });
  });
  return {
    name: opts.name,
    pid: proc.pid ?? -1,
    exited,
    alive: () => !done,
    tail: () => lines.join('\n'),
    unref() {
      proc.unref();
      for (const stream of [proc.stdin, proc.stdout, proc.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    },
    async stop(graceMs = 10_000) {
      if (done) return exited;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!done) proc.kill('SIGKILL');
      }, graceMs);
      const r = await exited;
      clearTimeout(timer);
      return r;
    },
  };
}
