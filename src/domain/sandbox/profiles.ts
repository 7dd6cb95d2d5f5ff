import { LoreError } from '../../contract/errors';
import { isShell } from '../../sandbox/isolation/index';
import type { Profile } from '../../model/sandbox/records';

/**
 * Session profiles (contract.md §8).
 *
 * - `default`: any program, shells included. Protection comes from the isolation (no network,
 *   read-only system, private workdir, limits), not from vetting argv; a shell is allowed because
 *   it can do nothing inside the sandbox that the programs it could run cannot do directly, and
 *   pipelines are what agents need most.
 * - `local-safe`: the same isolation plus a narrow allowlist of read-only tools, no shells, and
 *   the options of those tools that would write files or run other programs refused.
 */

export const LOCAL_SAFE_COMMANDS = ['cat', 'cut', 'diff', 'echo', 'false', 'find', 'grep', 'head', 'ls', 'pwd', 'sort', 'stat', 'tail', 'tr', 'true', 'uniq', 'wc'] as const;

/** Options that turn an allowlisted tool into a writer or a launcher. */
const REFUSED_OPTIONS: Record<string, RegExp> = {
  // find runs programs (-exec…), deletes, and writes files (-fprint…).
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
  // sort writes with -o/--output and runs --compress-program.
  sort: /^(-o.*|--output(=.*)?|--compress-program(=.*)?|-[a-zA-Z]*o.*)$/,
};

/** Where local-safe takes its tools from when argv[0] is a path. */
const SYSTEM_DIRS = ['/usr/bin', '/bin'];

/** Environment names a local-safe run may not set: they would change which code runs. */
const LOCAL_SAFE_RESERVED_ENV = /^(PATH|LD_.*|BASH_ENV|ENV|IFS|GCONV_PATH|LOCPATH|NLSPATH|MALLOC_.*|GLIBC_TUNABLES)$/;

export interface ProfileInfo {
  shell_allowed: boolean;
  allowed_commands: string[] | null;
}

export function profileInfo(profile: Profile): ProfileInfo {
  return profile === 'local-safe' ? { shell_allowed: false, allowed_commands: [...LOCAL_SAFE_COMMANDS] } : { shell_allowed: true, allowed_commands: null };
}

function notAllowed(argv0: string, profile: Profile, why: string): LoreError {
  return new LoreError('command_not_allowed', `'${argv0}' is not allowed in the ${profile} profile: ${why}`, {
    argv0,
    profile,
    allowed: profileInfo(profile).allowed_commands ?? [],
  });
}

/** Throws command_not_allowed when argv (or env) is outside the profile. */
export function checkCommand(profile: Profile, argv: string[], env: Record<string, string> | undefined): void {
  const argv0 = argv[0]!;
  if (profile === 'default') return;
  if (isShell(argv0)) throw notAllowed(argv0, profile, 'shells are not allowed');
  let name = argv0;
  if (argv0.includes('/')) {
    const slash = argv0.lastIndexOf('/');
    if (!SYSTEM_DIRS.includes(argv0.slice(0, slash))) throw notAllowed(argv0, profile, `a path must be in ${SYSTEM_DIRS.join(' or ')}`);
    name = argv0.slice(slash + 1);
  }
  if (!(LOCAL_SAFE_COMMANDS as readonly string[]).includes(name)) {
    throw notAllowed(argv0, profile, `allowed programs are ${LOCAL_SAFE_COMMANDS.join(', ')}`);
  }
  const refused = REFUSED_OPTIONS[name];
  const bad = refused ? argv.slice(1).find((a) => refused.test(a)) : undefined;
  if (bad !== undefined) throw notAllowed(argv0, profile, `option '${bad}' would write files or run programs`);
  if (name === 'uniq' && argv.slice(1).filter((a) => !a.startsWith('-')).length > 1) {
    throw notAllowed(argv0, profile, 'uniq with an OUTPUT file would write it');
  }
  const reserved = Object.keys(env ?? {}).find((k) => LOCAL_SAFE_RESERVED_ENV.test(k));
  if (reserved) throw notAllowed(argv0, profile, `environment variable ${reserved} may not be set`);
}
