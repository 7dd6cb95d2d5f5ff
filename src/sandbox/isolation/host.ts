/**
 * What this host offers: helper binaries, bubblewrap version and features, uid isolation.
 * Helpers are looked up in fixed system directories only (never the runtime's PATH).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants as fsc } from 'node:fs';
import type { BwrapFeatures } from './bwrap';
import type { MemoryCgroupHost } from './cgroup';
import type { IsolationInfo } from './types';

const SYSTEM_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

export interface HostTools {
  sh: string;
  bash?: string;
  prlimit?: string;
  bwrap?: string;
  kill?: string;
  env?: string;
  unshare?: string;
}

export interface HostState {
  info: IsolationInfo;
  tools: HostTools;
  features: BwrapFeatures;
  uidIsolation: boolean;
  /** Where run cgroups are created, or null (memory then limited by RLIMIT_DATA only). */
  memoryCgroup: MemoryCgroupHost | null;
  bwrapVersion?: string;
  /** The workspace overlay's helper and unshare(1), when the probe mounted an overlay through them; else null. */
  overlay: { helper: string; unshare: string } | null;
}

export function findSystemBinary(name: string): string | undefined {
  for (const dir of SYSTEM_DIRS) {
    const p = `${dir}/${name}`;
    try {
      accessSync(p, fsc.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** An executable file at exactly this path, or undefined. */
export function executableAt(p: string): string | undefined {
  try {
    accessSync(p, fsc.X_OK);
    return p;
  } catch {
    return undefined;
  }
}

/** bwrapPath: the configured bubblewrap binary (LORE_SANDBOX_BWRAP), else the system directories are searched. */
export function findTools(bwrapPath: string | null = null): HostTools {
  return {
    sh: findSystemBinary('sh') ?? '/bin/sh',
    bash: findSystemBinary('bash'),
    prlimit: findSystemBinary('prlimit'),
    bwrap: bwrapPath ? executableAt(bwrapPath) : findSystemBinary('bwrap'),
    kill: findSystemBinary('kill'),
    env: findSystemBinary('env'),
    unshare: findSystemBinary('unshare'),
  };
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Run a helper with a clean env and collect its output (for --version / --help). */
export function capture(file: string, args: string[], timeoutMs = 5000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    } catch (e) {
      resolve({ code: null, out: String(e) });
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, out: String(e) });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

export async function bwrapDetails(bwrap: string): Promise<{ version?: string; features: BwrapFeatures }> {
  const v = await capture(bwrap, ['--version']);
  const version = /bubblewrap\s+([0-9][0-9.]*)/.exec(v.out)?.[1];
  const h = await capture(bwrap, ['--help']);
  return {
    version,
    features: {
      disableUserns: h.out.includes('--disable-userns'),
      tmpfsSize: h.out.includes('--size'),
    },
  };
}
