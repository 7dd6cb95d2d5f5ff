/**
 * bubblewrap argument building. Pure apart from reading which system paths exist on the host.
 *
 * Layout inside the sandbox:
 *   /usr (ro bind) and the /bin /sbin /lib* entries as on the host (symlinks into /usr on merged-/usr
 *   systems, ro binds otherwise); /etc is a fresh directory with an allowlist of harmless host files
 *   plus synthetic passwd/group/hosts/nsswitch.conf; /proc is a new procfs of the sandbox pid
 *   namespace; /dev is bubblewrap's minimal dev (null, zero, full, random, urandom, tty, pts), then
 *   made read-only; /tmp and /dev/shm are private size-capped tmpfs; /work is the session workdir
 *   (the only host path that is writable, and the cwd). The root tmpfs is made read-only at the end.
 *   Nothing else of the host is visible: no /root, /home, host /tmp, /var, /run, /opt, data dirs.
 */
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { SANDBOX_WORKDIR } from './workdir';

export const SANDBOX_HOSTNAME = 'lore-sandbox';
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';

/** Host /etc entries the sandbox may read. Anything that can hold credentials or host config is left out. */
const ETC_ALLOW = [
  'alternatives', // Debian: many /usr/bin tools are symlinks through /etc/alternatives
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'os-release',
  'protocols',
  'services',
  'mime.types',
  'perl',
];
const ETC_ALLOW_PATTERN = /^python3(\.\d+)?$/; // Debian python reads sitecustomize from /etc/python3.X

const TOP_LEVEL = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

export interface BwrapFeatures {
  disableUserns: boolean;
  tmpfsSize: boolean;
}

/** Synthetic /etc files, each passed to bwrap through its own pipe fd. */
export interface SyntheticEtc {
  passwd: string;
  group: string;
  hosts: string;
  'nsswitch.conf': string;
}

export function syntheticEtc(uid: number, gid: number): SyntheticEtc {
  return {
    passwd:
      'root:x:0:0:root:/root:/usr/sbin/nologin\n' +
      `sandbox:x:${uid}:${gid}:Lore sandbox:${SANDBOX_WORKDIR}:/bin/sh\n` +
      'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
    group: `root:x:0:\nsandbox:x:${gid}:\nnogroup:x:65534:\n`,
    hosts: `127.0.0.1\tlocalhost ${SANDBOX_HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
    'nsswitch.conf': 'passwd: files\ngroup: files\nshadow: files\nhosts: files\nnetworks: files\nprotocols: files\nservices: files\n',
  };
}

function hostEntry(p: string): { kind: 'dir' | 'file' | 'symlink'; target?: string } | null {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(p) };
    return { kind: st.isDirectory() ? 'dir' : 'file' };
  } catch {
    return null;
  }
}

let systemArgsCache: string[] | null = null;

/** Mounts of the read-only system: /usr, top-level links/dirs, allowlisted /etc entries. */
export function systemMountArgs(): string[] {
  if (systemArgsCache) return systemArgsCache;
  const a: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const name of TOP_LEVEL) {
    const e = hostEntry('/' + name);
    if (!e) continue;
    if (e.kind === 'symlink') a.push('--symlink', e.target!, '/' + name);
    else if (e.kind === 'dir') a.push('--ro-bind', '/' + name, '/' + name);
  }
  a.push('--perms', '0755', '--dir', '/etc');
  let etcNames: string[] = [];
  try {
    etcNames = readdirSync('/etc');
  } catch {
    /* no /etc */
  }
  const names = [...ETC_ALLOW, ...etcNames.filter((n) => ETC_ALLOW_PATTERN.test(n)).sort()];
  for (const name of names) {
    const p = '/etc/' + name;
    const e = hostEntry(p);
    if (!e) continue;
    if (e.kind === 'symlink') a.push('--symlink', e.target!, p);
    else a.push('--ro-bind', p, p);
  }
  systemArgsCache = a;
  return a;
}

export interface BwrapOptions {
  /** Host path bound read-write at /work. */
  workdir: string;
  env: Record<string, string>;
  tmpBytes: number;
  features: BwrapFeatures;
  /** fds (in the bwrap process) carrying the synthetic /etc files. */
  etcFds: Record<keyof SyntheticEtc, number>;
}

/**
 * bwrap options, to be passed through `--args FD` (so env values do not appear on the host's
 * process list). The command follows on the command line after `--`.
 */
export function buildBwrapArgs(o: BwrapOptions): string[] {
  const a: string[] = [];
  // Namespaces: user, ipc, pid, net, uts, cgroup. No network at all (only a loopback of its own).
  a.push('--unshare-all', '--unshare-user');
  // The command cannot make nested user namespaces (kernel attack surface, and a way around limits).
  if (o.features.disableUserns) a.push('--disable-userns');
  // SIGKILL the sandbox if bwrap or its parent (the runtime) dies; setsid() against TIOCSTI injection.
  a.push('--die-with-parent', '--new-session');
  a.push('--hostname', SANDBOX_HOSTNAME);
  // Environment: nothing of the runtime's, only what we set here.
  a.push('--clearenv');
  for (const [k, v] of Object.entries(o.env)) a.push('--setenv', k, v);
  a.push(...systemMountArgs());
  for (const [name, fd] of Object.entries(o.etcFds)) a.push('--perms', '0644', '--ro-bind-data', String(fd), '/etc/' + name);
  a.push('--proc', '/proc');
  a.push('--dev', '/dev');
  const size = (n: number) => (o.features.tmpfsSize ? ['--size', String(n)] : []);
  a.push('--perms', '01777', ...size(o.tmpBytes), '--tmpfs', '/dev/shm');
  a.push('--remount-ro', '/dev');
  a.push('--perms', '01777', ...size(o.tmpBytes), '--tmpfs', '/tmp');
  a.push('--perms', '0755', '--dir', '/var', '--symlink', '../tmp', '/var/tmp');
  a.push('--bind', o.workdir, SANDBOX_WORKDIR);
  a.push('--remount-ro', '/');
  a.push('--chdir', SANDBOX_WORKDIR);
  return a;
}
