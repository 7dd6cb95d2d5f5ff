/**
 * Memory settings every Lore process runs with.
 *
 * V8 flags (`npm start` passes them to the API process, which passes
 * them on to its worker child). Lore's indexes make a large, long-lived heap of small objects; with
 * V8's defaults the old generation grows to about twice the live data after the start-up scans and
 * the young generation takes up to 3 × 16 MB, so a Lore holding 100k nodes sat at 440-510 MB RSS
 * with about 210 MB live. A 4 MB semi-space and a 25 % heap growing step keep it at 320-360 MB
 * (docs/notes/experiments.md, "A start-up without a peak"; the figures: the git history of
 * docs/benchmarks.md). Both are command-line only: V8 reads them when it sizes the heap.
 */
export const NODE_MEMORY_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=25'];

/**
 * glibc malloc settings (read when a process starts, so they are environment variables): at most two
 * malloc arenas (V8's and libuv's threads otherwise each keep an arena of freed memory), and blocks
 * of 128 KB and more mapped and unmapped on their own (glibc otherwise raises that threshold as
 * buffers are freed, and the freed memory stays in the process). On the same 100k-node data, with
 * the V8 flags: 267 MB right after start-up instead of 322 MB, 301-321 MB after recall and write
 * runs instead of 345-379 MB. Other C libraries ignore them.
 */
export const NODE_MEMORY_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_TRIM_THRESHOLD_: '131072',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

/** The memory flags this process was started with (for its children); others, e.g. --inspect, are not passed on. */
export function inheritedMemoryFlags(execArgv: readonly string[] = process.execArgv): string[] {
  const names = new Set(NODE_MEMORY_FLAGS.map((f) => f.split('=')[0]));
  return execArgv.filter((a) => names.has(a.split('=')[0]!));
}

/**
 * How the API process (role `all`) starts its worker child: this node binary with the memory flags
 * this process was started with (inheritedMemoryFlags), then `<loreBin> start --role worker`; its
 * environment is this process's with the malloc settings (values set by the operator win) and `set`
 * on top.
 */
export function workerChildCommand(o: { loreBin: string; env: NodeJS.ProcessEnv; set: NodeJS.ProcessEnv; execPath?: string; execArgv?: readonly string[] }): {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
} {
  return {
    command: o.execPath ?? process.execPath,
    args: [...inheritedMemoryFlags(o.execArgv), o.loreBin, 'start', '--role', 'worker'],
    env: { ...NODE_MEMORY_ENV, ...o.env, ...o.set },
  };
}
