/** What a run's outcome says about its isolation: the kind, the uid, which limits are enforced and what is weaker. */
import type { HostState } from './host';
import type { RunIsolationReport, RunOutcome, RunSpec, RunStatus } from './types';

const NONE_WEAKER =
  "isolation 'none': no namespaces. The command sees the host filesystem (reads anything its uid may " +
  'read, writes anywhere world-writable such as /tmp), the network and other processes. Only rlimits, ' +
  'environment scrubbing, the workdir as cwd and process-tree kill apply.';

export const MEMORY_RLIMIT_NOTE =
  'memory is limited per process only (RLIMIT_DATA): shared anonymous mappings are not counted, and ' + 'each process of the run may use the full limit.';

export function makeReport(host: HostState, spec: RunSpec, uid: number | null, gid: number | null): RunIsolationReport {
  const r: RunIsolationReport = {
    kind: spec.isolation,
    uid_isolation: host.uidIsolation,
    uid,
    gid,
    memory_limit: host.memoryCgroup ? 'cgroup' : 'rlimit_data',
    enforced: {
      wall_time: true,
      cpu_time: true,
      memory: true,
      processes: host.uidIsolation,
      file_size: true,
      output_bytes: true,
    },
  };
  if (spec.isolation === 'bubblewrap' && host.bwrapVersion) r.version = host.bwrapVersion;
  const notes: string[] = [];
  if (spec.isolation === 'none') notes.push(NONE_WEAKER);
  if (!host.uidIsolation) {
    notes.push(
      'not running as root: the command runs as the runtime user, so the process limit is not enforced ' +
        '(RLIMIT_NPROC would count every process of that user) and stray processes cannot be swept by uid.',
    );
  }
  if (!host.memoryCgroup) notes.push(MEMORY_RLIMIT_NOTE);
  if (notes.length > 0) r.weaker = notes.join(' ');
  return r;
}

export function emptyOutcome(status: RunStatus, reason: string, isolation: RunIsolationReport): RunOutcome {
  return {
    status,
    exit_code: null,
    signal: null,
    duration_ms: 0,
    stdout_tail: '',
    stderr_tail: '',
    output_bytes: 0,
    dropped_bytes: 0,
    truncated: false,
    reason,
    isolation,
  };
}
