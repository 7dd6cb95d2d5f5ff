/**
 * Aggregate memory limit per run through the cgroup v1 memory controller, when it is mounted and
 * writable by us (root). Each run gets <our memory cgroup>/lore-sandbox/<run>/ with
 * memory.limit_in_bytes (and memory.memsw.limit_in_bytes when swap accounting exists) set to the
 * run's memory limit. The run's first process waits on a pipe until it has been moved into that
 * cgroup, so every descendant (bwrap, the command, its children) is charged to it: resident memory,
 * page cache and tmpfs (/tmp, /dev/shm) of the whole tree, not per process. Past the limit the
 * kernel's OOM killer kills a process of the run, which memory.oom_control reports (oom_kill).
 *
 * cgroup v2 is not handled here (it needs a delegated subtree); without a usable cgroup, memory is
 * limited per process by RLIMIT_DATA only (see run.ts).
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';

export interface MemoryCgroupHost {
  /** Directory under which run cgroups are created. */
  base: string;
  /** memory.memsw.limit_in_bytes exists (swap accounting). */
  memsw: boolean;
}

function memoryMountPoint(): string | null {
  let info: string;
  try {
    info = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return null;
  }
  for (const line of info.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    if (right[0] !== 'cgroup') continue;
    const opts = (right[2] ?? '').split(',');
    if (opts.includes('memory') && left[4]) return left[4];
  }
  return null;
}

function ownMemoryCgroup(): string | null {
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const [, controllers, p] = line.split(':');
      if (controllers !== undefined && controllers.split(',').includes('memory') && p !== undefined) return p;
    }
  } catch {
    /* no /proc */
  }
  return null;
}

/** Find and verify a writable cgroup v1 memory hierarchy. Returns null with a reason when unusable. */
export function detectMemoryCgroup(): { host: MemoryCgroupHost | null; reason?: string } {
  const mount = memoryMountPoint();
  if (!mount) return { host: null, reason: 'no cgroup v1 memory controller mounted' };
  const own = ownMemoryCgroup();
  if (own === null) return { host: null, reason: 'own memory cgroup not found in /proc/self/cgroup' };
  const base = path.join(mount, own, 'lore-sandbox');
  const probe = path.join(base, `probe-${process.pid}`);
  try {
    mkdirSync(base, { recursive: true });
    mkdirSync(probe);
    writeFileSync(path.join(probe, 'memory.limit_in_bytes'), String(64 * 1024 * 1024));
    const memsw = existsSync(path.join(probe, 'memory.memsw.limit_in_bytes'));
    if (memsw) writeFileSync(path.join(probe, 'memory.memsw.limit_in_bytes'), String(64 * 1024 * 1024));
    return { host: { base, memsw } };
  } catch (e) {
    return { host: null, reason: `cgroup v1 memory not writable: ${(e as Error).message}` };
  } finally {
    try {
      rmdirSync(probe);
    } catch {
      /* not created */
    }
  }
}

export class RunCgroup {
  private constructor(readonly dir: string) {}

  static create(host: MemoryCgroupHost, name: string, limitBytes: number): RunCgroup {
    const dir = path.join(host.base, name);
    mkdirSync(dir);
    const cg = new RunCgroup(dir);
    try {
      writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(limitBytes));
      if (host.memsw) writeFileSync(path.join(dir, 'memory.memsw.limit_in_bytes'), String(limitBytes));
    } catch (e) {
      cg.removeNow();
      throw e;
    }
    return cg;
  }

  /** Move a process (all its threads) into this cgroup. */
  add(pid: number): void {
    writeFileSync(path.join(this.dir, 'cgroup.procs'), String(pid));
  }

  pids(): number[] {
    try {
      return readFileSync(path.join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** Processes of this cgroup killed by the OOM killer (kernel ≥ 4.13). */
  oomKills(): number {
    try {
      const m = /^oom_kill (\d+)$/m.exec(readFileSync(path.join(this.dir, 'memory.oom_control'), 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }

  /** Highest memory use of the run, in bytes. */
  maxUsage(): number | null {
    try {
      return Number(readFileSync(path.join(this.dir, 'memory.max_usage_in_bytes'), 'utf8').trim());
    } catch {
      return null;
    }
  }

  private removeNow(): boolean {
    try {
      rmdirSync(this.dir);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }

  /** Kill whatever is left in the cgroup and remove it (retrying while exiting tasks drain). */
  async remove(): Promise<boolean> {
    for (let i = 0; i < 60; i++) {
      for (const pid of this.pids()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      if (this.removeNow()) return true;
      // Tasks that were just killed or just exited leave the cgroup within a few ms.
      await new Promise((r) => setTimeout(r, Math.min(1 + i * 2, 50)));
    }
    return false;
  }
}
