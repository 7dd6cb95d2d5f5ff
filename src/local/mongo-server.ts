/**
 * Lore's local MongoDB wire-protocol server (embedded default when MONGODB_URI is unset).
 *
 * A small Java launcher (src/local/mongo-launcher, package dev.lore.mongo) around
 * de.bwaldvogel:mongo-java-server with its H2 (MVStore) backend persisted in one file. It
 * - reports MongoDB 7.0.0 / wire version 21 (the Node driver refuses wire versions below 9),
 * - acknowledges a write only after an MVStore commit that includes it (group commit), so every
 *   acknowledged write survives kill -9 of the server,
 * - implements real non-unique indexes (upstream ignores them) with range/sort support,
 * - prints `LORE_MONGO_READY port=N host=H version=V wire=W pid=P` on stdout once listening,
 * - exits when its stdin closes, so it never outlives a parent that was killed.
 *
 * Only node built-ins are used here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fsp, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localBinDir, mongoJavaOptions } from '../config';

export type Log = (message: string) => void;

/** Exit codes of the launcher (see Main.java). */
export const LAUNCHER_EXIT = { usage: 2, portInUse: 10, store: 11, commitFailed: 12 } as const;

/**
 * JVM flags. Documents live in the MVStore file plus a 64 MB page cache (--cache-mb); the heap holds
 * that cache, decoded query results and aggregation working sets. Measured at 100k documents: with
 * -Xmx512m and the serial GC, full scans triggered 200-700 ms full GCs; G1 with a 1 GB cap had none.
 * The heap starts at 64 MB and grows under scans (RSS reached ~1.2 GB in the 100k benchmark);
 * idle, a periodic GC returns it. Die on OOM instead of limping.
 *
 * What else the JVM may take is capped too, so the process as a whole stays within ~1.35 GB: direct
 * buffers (netty's) 128 MB, class metadata 128 MB, and the C1 code cache's 48 MB (G1's own tables
 * are ~4 % of the committed heap). Measured at a million nodes (native memory tracking): heap
 * committed 100-140 MB, direct buffers 2 MB, metaspace 1.5 MB, code 7 MB, G1 41-43 MB while serving
 * writes and recalls; RSS 1.07-1.13 GB only during a full start-up scan of the nodes, which snapshots
 * make rare (docs/design.md, "The embedded default").
 *
 * Only the C1 JIT (-XX:TieredStopAtLevel=1). Each command runs a deep stack of framework code
 * (netty, the wire codec, the command dispatch, the MVStore) once or twice per request, so those
 * methods reach C2's thresholds only after thousands of requests and are then compiled one by one,
 * at 0.1-0.6 s of CPU each. Measured at 100k documents (docs/benchmarks.md, "The local server
 * without C2"): C2 compiled for 1.1-2.7 s of every 1 000 recalls through the first 3 000, on the
 * same two cores as the API, and its code ran the server's own work no faster than C1's. Without
 * it, recall p95 and the server's CPU per write fell; the start-up scan of the nodes got slower.
 * Override with LORE_MONGO_JAVA_OPTS (space-separated, read by config.ts) or the javaOptions option.
 */
export const DEFAULT_JAVA_OPTIONS = [
  '-Xms64m',
  '-Xmx1g',
  '-XX:+UseG1GC',
  // when idle, a periodic GC gives unused heap back to the OS (the heap grows under scans)
  '-XX:G1PeriodicGCInterval=60000',
  '-XX:+ExitOnOutOfMemoryError',
  '-XX:TieredStopAtLevel=1',
  '-XX:MaxDirectMemorySize=128m',
  '-XX:MaxMetaspaceSize=128m',
  '-XX:ReservedCodeCacheSize=48m',
];

const LAUNCHER_DIR = fileURLToPath(new URL('./mongo-launcher/', import.meta.url));
/** Measured: ~18 s with an empty ~/.m2 (downloads ~23 MB from Maven Central), 6-12 s with a warm one. */
const ESTIMATED_BUILD_SECONDS = 20;

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** Hash of pom.xml and every file under src/ of the launcher: a changed launcher gets a new jar name. */
export async function launcherSourceHash(launcherDir = LAUNCHER_DIR): Promise<string> {
  const files = [join(launcherDir, 'pom.xml'), ...(await listFiles(join(launcherDir, 'src')))];
  const rel = files.map((f) => relative(launcherDir, f).split('\\').join('/')).sort();
  const hash = createHash('sha256');
  for (const r of rel) {
    hash.update(r).update('\0');
    hash.update(await fsp.readFile(join(launcherDir, r))).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  error?: NodeJS.ErrnoException;
}

function run(command: string, args: string[], cwd?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    let output = '';
    let child: ChildProcess;
    try {
      child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ code: null, signal: null, output, error: error as NodeJS.ErrnoException });
      return;
    }
    const append = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    child.on('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, output, error }));
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

function tail(text: string, lines = 30): string {
  return text
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .join('\n');
}

/** Throws an Error that names Java (17+) or Maven when they are missing. */
async function checkBuildTools(): Promise<void> {
  const java = await run('java', ['-version']);
  if (java.error?.code === 'ENOENT') {
    throw new Error(
      "Java 17+ is required for Lore's local MongoDB-compatible server, but `java` was not found on PATH. " +
        'Install a JDK (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless maven) or set MONGODB_URI to an existing MongoDB.',
    );
  }
  const major = /version "(?:1\.)?(\d+)/.exec(java.output)?.[1];
  if (major && Number(major) < 17) {
    throw new Error(`Java 17+ is required for Lore's local MongoDB-compatible server; found Java ${major} (\`java -version\`).`);
  }
  const mvn = await run('mvn', ['-v']);
  if (mvn.error?.code === 'ENOENT') {
    throw new Error(
      "Apache Maven is required to build Lore's local MongoDB-compatible server once, but `mvn` was not found on PATH. " +
        'Install it (Debian/Ubuntu: apt-get install maven) or set MONGODB_URI to an existing MongoDB.',
    );
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Returns the path of the launcher's fat jar in binDir, building it once (`mvn -q -B package`, in a
 * temp copy of the module under binDir, never in the repository) when absent. The jar name carries
 * a hash of pom.xml + sources, so a changed launcher is rebuilt. Concurrent first starts: one builds
 * (lock file), the others wait; the jar is written under a temp name and renamed into place.
 */
export async function ensureMongoLauncherJar(options: { binDir?: string; log?: Log } = {}): Promise<string> {
  const binDir = options.binDir ?? localBinDir();
  const log = options.log ?? (() => {});
  const hash = await launcherSourceHash();
  const jarPath = join(binDir, `lore-mongo-launcher-${hash}.jar`);
  if (existsSync(jarPath)) return jarPath;

  await fsp.mkdir(binDir, { recursive: true });
  const lockPath = `${jarPath}.lock`;
  const deadline = Date.now() + 15 * 60_000;
  let announcedWait = false;
  // take the build lock, or wait for whoever holds it
  for (;;) {
    if (existsSync(jarPath)) return jarPath;
    try {
      const handle = await fsp.open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await fsp.readFile(lockPath, 'utf8').catch(() => '')).trim());
    if (!owner || !pidAlive(owner)) {
      // stale lock (builder died): remove and retry
      await fsp.rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for another process (pid ${owner}) to build ${jarPath}`);
    if (!announcedWait) {
      log(`waiting for another Lore process (pid ${owner}) to build the MongoDB-compatible server…`);
      announcedWait = true;
    }
    await sleep(500);
  }

  const workDir = await fsp.mkdtemp(join(binDir, '.build-mongo-launcher-'));
  try {
    if (existsSync(jarPath)) return jarPath;
    await checkBuildTools();
    log(`building the MongoDB-compatible server (first start only, ~${ESTIMATED_BUILD_SECONDS} s)…`);
    const started = Date.now();
    const moduleCopy = join(workDir, 'module');
    await fsp.mkdir(moduleCopy, { recursive: true });
    await fsp.copyFile(join(LAUNCHER_DIR, 'pom.xml'), join(moduleCopy, 'pom.xml'));
    await fsp.cp(join(LAUNCHER_DIR, 'src'), join(moduleCopy, 'src'), { recursive: true });
    const buildDir = join(workDir, 'target');
    const result = await run('mvn', ['-q', '-B', 'package', `-Dlore.buildDir=${buildDir}`, '-f', join(moduleCopy, 'pom.xml')], moduleCopy);
    const built = join(buildDir, 'lore-mongo-launcher.jar');
    if (result.code !== 0 || !existsSync(built)) {
      throw new Error(`building the MongoDB-compatible server failed (mvn exit ${result.code ?? result.signal ?? result.error?.message}):\n${tail(result.output)}`);
    }
    const temp = `${jarPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    await fsp.copyFile(built, temp);
    await fsp.rename(temp, jarPath);
    log(`built the MongoDB-compatible server in ${((Date.now() - started) / 1000).toFixed(1)} s: ${jarPath}`);
    return jarPath;
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true });
    await fsp.rm(lockPath, { force: true });
  }
}

export interface MongoServerHandle {
  /** mongodb://host:port/?directConnection=true */
  uri: string;
  host: string;
  port: number;
  /** Server version the launcher reports (e.g. 7.0.0). */
  version: string;
  pid: number;
  /** SIGTERM (the server commits and closes the store), SIGKILL after 15 s. Idempotent. */
  stop(): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Last lines the server wrote to stderr. */
  stderrTail(): string;
  /** Stop this process's event loop from waiting on the server (it still exits when we do: stdin closes). */
  unref(): void;
}

export interface StartMongoServerOptions {
  jarPath: string;
  host?: string;
  /** 0 picks a free port; the handle reports the actual one. */
  port: number;
  dbFile: string;
  log?: Log;
  /** JVM flags (default: LORE_MONGO_JAVA_OPTS through config.ts, else DEFAULT_JAVA_OPTIONS). */
  javaOptions?: readonly string[];
  /** Extra launcher flags, e.g. ['--fsync'] or ['--log-level', 'info']. */
  extraArgs?: string[];
  /** Every stderr line of the server (logs). */
  onStderr?: (line: string) => void;
  readyTimeoutMs?: number;
}

export async function startMongoServer(options: StartMongoServerOptions): Promise<MongoServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  const javaOptions = options.javaOptions ?? mongoJavaOptions() ?? DEFAULT_JAVA_OPTIONS;
  await fsp.mkdir(dirname(options.dbFile), { recursive: true });

  const args = [...javaOptions, '-jar', options.jarPath, '--host', host, '--port', String(options.port), '--db-file', options.dbFile, ...(options.extraArgs ?? [])];
  // stdin stays an open pipe: when this process dies, the pipe closes and the server exits
  // Own process group: a terminal Ctrl+C reaches only Lore, which stops its children in order.
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  child.stdin?.on('error', () => {});

  const stderrLines: string[] = [];
  let stderrPartial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const lines = (stderrPartial + chunk.toString('utf8')).split('\n');
    stderrPartial = lines.pop() ?? '';
    for (const line of lines) {
      stderrLines.push(line);
      if (stderrLines.length > 60) stderrLines.shift();
      options.onStderr?.(line);
    }
  });
  const stderrTail = () => [...stderrLines, stderrPartial].filter(Boolean).join('\n');

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });

  const ready = await new Promise<Record<string, string>>((resolve, reject) => {
    let stdout = '';
    let settled = false;
    const finish = (error: Error | null, fields?: Record<string, string>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(fields!);
    };
    const timeoutMs = options.readyTimeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new Error(`the MongoDB-compatible server did not become ready within ${timeoutMs} ms; stderr:\n${stderrTail()}`));
    }, timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (settled) return;
      stdout += chunk.toString('utf8');
      const match = /^LORE_MONGO_READY (.*)$/m.exec(stdout);
      if (match) {
        const fields: Record<string, string> = {};
        for (const pair of match[1]!.trim().split(/\s+/)) {
          const i = pair.indexOf('=');
          if (i > 0) fields[pair.slice(0, i)] = pair.slice(i + 1);
        }
        finish(null, fields);
      }
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(error.code === 'ENOENT' ? new Error("Java 17+ is required for Lore's local MongoDB-compatible server, but `java` was not found on PATH.") : error);
    });
    child.on('exit', (code, signal) => {
      // let the last stderr chunk arrive before reporting
      setImmediate(() => {
        const text = stderrTail();
        if (code === LAUNCHER_EXIT.portInUse || /already in use/.test(text)) {
          finish(new Error(`port ${options.port} on ${host} is already in use; cannot start the MongoDB-compatible server there`));
        } else {
          finish(new Error(`the MongoDB-compatible server exited before it was ready (exit ${code ?? signal}); stderr:\n${text}`));
        }
      });
    });
  });
  // keep draining stdout so the child never blocks on a full pipe
  child.stdout?.resume();

  const port = Number(ready.port);
  const version = ready.version ?? 'unknown';
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killTimer);
      child.stdin?.destroy();
    })();
    return stopping;
  };
  log(`MongoDB-compatible server ${version} listening on ${host}:${port} (pid ${child.pid}, ${options.dbFile})`);
  return {
    uri: `mongodb://${host}:${port}/?directConnection=true`,
    host,
    port,
    version,
    pid: child.pid!,
    stop,
    exited,
    stderrTail,
    unref() {
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    },
  };
}
