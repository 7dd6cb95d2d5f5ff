/** What a run's exit means: its status, the limit it hit (if any) and the reason a person reads. */
import { constants as osConstants } from 'node:os';
import type { ResolvedLimits } from './spec';
import type { LimitName, RunOutcome, RunSpec } from './types';

/** What ended the run besides the command itself (null: it ended on its own). */
export type EndedBy = null | 'timeout' | 'cancel' | 'output' | 'hook_error';

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, num]) => [num as number, name]));

const MEMORY_PATTERN =
  /MemoryError|Out of memory|out of memory|Cannot allocate memory|std::bad_alloc|allocation (of \d+ bytes )?failed|failed to allocate|mmap\(\) failed|JavaScript heap|insufficient memory/;
const FORK_PATTERN = /Cannot fork|can't fork|fork: (retry|Resource temporarily unavailable)|BlockingIOError: \[Errno 11\]/i;
const FSIZE_PATTERN = /File too large|File size limit exceeded/;

export function interpretExit(
  o: RunOutcome,
  exit: { code: number | null; sig: NodeJS.Signals | null },
  mode: RunSpec['isolation'],
  limits: ResolvedLimits,
  endedBy: EndedBy,
  processesAtKill: number | null,
  oomKills: number,
): void {
  let code = exit.code;
  let sig: string | null = exit.sig;
  let inferred = false;
  // bwrap reports a command killed by signal N as exit status 128+N.
  if (mode === 'bubblewrap' && sig === null && code !== null && code > 128 && SIGNAL_NAMES.has(code - 128)) {
    sig = SIGNAL_NAMES.get(code - 128)!;
    code = null;
    inferred = true;
  }
  o.exit_code = code;
  o.signal = sig;
  const saturated =
    processesAtKill !== null && processesAtKill >= limits.maxProcesses ? ` The process limit was saturated (${processesAtKill} processes of the run uid at kill time).` : '';
  const oomNote = oomKills > 0 ? ` The kernel OOM killer ended ${oomKills} process(es) of the run at the memory limit of ${limits.memoryBytes} bytes (whole process tree).` : '';

  if (endedBy === 'cancel') {
    o.status = 'cancelled';
    o.reason = 'cancelled by the caller; process tree killed';
    return;
  }
  if (endedBy === 'timeout') {
    o.status = 'timed_out';
    o.limit_hit = 'wall_time';
    o.reason = `exceeded the wall time limit of ${limits.wallMs} ms; process tree killed.${saturated}${oomNote}`;
    return;
  }
  if (endedBy === 'output') {
    o.status = 'failed';
    o.limit_hit = 'output_bytes';
    o.reason = `output exceeded ${limits.maxOutputBytes} bytes; output truncated and process tree killed.${oomNote}`;
    return;
  }
  const truncatedNote = o.truncated ? ` Output was truncated at ${limits.maxOutputBytes} bytes.` : '';
  if (code === 0 && sig === null) {
    // The command's own verdict stands, but say what the limits did to it.
    o.status = 'succeeded';
    if (oomKills > 0) {
      o.limit_hit = 'memory';
      o.reason = `exited with code 0.${oomNote}${truncatedNote}`;
    } else if (o.truncated) {
      o.limit_hit = 'output_bytes';
      o.reason = `exited with code 0.${truncatedNote}`;
    }
    return;
  }
  o.status = 'failed';
  const stderr = o.stderr_tail;
  const how = sig !== null ? `killed by ${sig}${inferred ? ` (bubblewrap exit status ${exit.code} = 128+${exit.code! - 128})` : ''}` : `exited with code ${code}`;
  if (oomKills > 0) {
    o.limit_hit = 'memory';
    o.reason = `${how}.${oomNote}${truncatedNote}`;
    return;
  }
  let hit: LimitName | undefined;
  if (sig === 'SIGXCPU') hit = 'cpu_time';
  else if (sig === 'SIGXFSZ') hit = 'file_size';
  else if (sig === 'SIGKILL' && o.duration_ms >= limits.cpuSeconds * 1000)
    hit = 'cpu_time'; // hard RLIMIT_CPU
  else if (MEMORY_PATTERN.test(stderr)) hit = 'memory';
  else if (FSIZE_PATTERN.test(stderr)) hit = 'file_size';
  else if (FORK_PATTERN.test(stderr)) hit = 'processes';
  else if (o.truncated) hit = 'output_bytes';
  if (hit) o.limit_hit = hit;

  const notFound = mode === 'bubblewrap' && code === 1 ? /^bwrap: execvp (.*): (No such file or directory|Permission denied)$/m.exec(stderr) : null;
  if (notFound) {
    o.exit_code = notFound[2] === 'Permission denied' ? 126 : 127;
    o.reason = `${notFound[2] === 'Permission denied' ? 'command not executable' : 'command not found'}: ${notFound[1]}`;
    return;
  }
  if (mode === 'bubblewrap' && code === 1 && /^bwrap: /m.test(stderr) && o.output_bytes < 4096) {
    const line = /^bwrap: .*$/m.exec(stderr)![0];
    o.reason = `sandbox setup failed: ${line}`;
    return;
  }
  const limitText: Record<LimitName, string> = {
    cpu_time: `CPU time limit of ${limits.cpuSeconds} s`,
    file_size: `file size limit of ${limits.maxFileBytes} bytes`,
    memory: `memory limit of ${limits.memoryBytes} bytes (allocation failed)`,
    processes: `process limit of ${limits.maxProcesses}`,
    wall_time: `wall time limit of ${limits.wallMs} ms`,
    output_bytes: `output limit of ${limits.maxOutputBytes} bytes`,
  };
  o.reason = (hit ? `${how}: hit the ${limitText[hit]}` : how) + (hit !== 'output_bytes' ? truncatedNote : '');
}
