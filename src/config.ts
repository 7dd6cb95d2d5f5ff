import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { ApiKey } from './model/api-key';
import { PROCESS_ROLES, type ProcessRole } from './model/system/vocabulary';
import { catalogModel, DEFAULT_ENCODER } from './retrieval/embedders/catalog';

/**
 * The only reader of process.env. Every variable is documented in docs/configuration.md with
 * its default; loadConfig() validates all of them at once and names each bad one with its fix.
 */

export type Role = ProcessRole;
export type EmbeddingsProvider = 'none' | 'local' | 'onnx' | 'openai' | 'ollama';
export type SandboxIsolationSetting = 'auto' | 'bubblewrap' | 'none';

export interface Config {
  readonly version: string;
  readonly role: Role;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly binDir: string;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  readonly bodyLimit: number;
  readonly apiKeys: readonly ApiKey[];
  readonly allowInsecureBind: boolean;
  /**
   * Host names (besides the loopback names and the bound address) the API answers under
   * (LORE_ALLOWED_HOSTS): lower case, IPv6 in brackets; a leading dot matches a domain and its
   * subdomains. Any other Host header is refused (src/http/request-guard.ts).
   */
  readonly allowedHosts: readonly string[];
  /**
   * Every request must carry the install token (<data dir>/api-token) as a bearer key
   * (LORE_REQUIRE_TOKEN); ignored when LORE_API_KEYS is set, which is then the only way in.
   */
  readonly requireToken: boolean;
  readonly validateResponses: boolean;
  readonly temporal: {
    /** null: Lore starts and supervises the local dev server. */
    readonly address: string | null;
    readonly namespace: string;
    readonly taskQueue: string;
    readonly localPort: number;
    readonly localUiPort: number;
    /**
     * The Temporal UI's base address for links (`temporal_ui_url`): LORE_TEMPORAL_UI_URL, else the
     * local dev server's UI when Lore runs it, else null (an external cluster whose UI Lore does not know).
     */
    readonly uiUrl: string | null;
  };
  readonly mongo: {
    /** null: Lore starts and supervises the local MongoDB wire-protocol server. */
    readonly uri: string | null;
    readonly database: string;
    readonly localPort: number;
    /** Hot reads over plain OP_MSG when the connection string allows (store/wire-reads.ts). */
    readonly wireReads: 'auto' | 'off';
    /** JVM flags of the local server (LORE_MONGO_JAVA_OPTS, space-separated); null: the launcher's defaults. */
    readonly javaOptions: readonly string[] | null;
  };
  readonly embeddings: {
    readonly provider: EmbeddingsProvider;
    /**
     * False when LORE_EMBEDDINGS is unset: the provider is then onnx if it can run here (the
     * optional onnxruntime-node is installed and the model is, or can be, installed), else none.
     */
    readonly explicit: boolean;
    readonly url: string | null;
    /** onnx: a model name of the catalog (src/retrieval/embedders/catalog.ts) or the path of a model file or folder; endpoints: the model name. */
    readonly model: string | null;
    readonly apiKey: string | null;
    /** A node_modules folder holding the optional local encoder packages, or onnxruntime-node for onnx (LORE_EMBEDDINGS_LOCAL_DIR). */
    readonly localModuleDir: string | null;
    /** Where catalog models are installed (LORE_MODELS_DIR). */
    readonly modelsDir: string;
    /** The Maven repository catalog models are downloaded from (LORE_MODELS_REPOSITORY). */
    readonly modelsRepository: string;
  };
  readonly sandbox: {
    readonly enabled: boolean;
    readonly isolation: SandboxIsolationSetting;
    /**
     * The bubblewrap binary (LORE_SANDBOX_BWRAP); null: the first bwrap found in the system
     * directories (/usr/bin, /bin, /usr/sbin, /sbin, /usr/local/bin). Never looked up on PATH.
     */
    readonly bwrapPath: string | null;
    readonly dir: string;
    /**
     * Host uid/gid range the worker hands to sandbox runs (root only). Each process that runs
     * sandbox commands must have a range of its own: the runner kills stray processes in its range.
     */
    readonly idRange: { readonly min: number; readonly max: number };
    /** A session workdir idle this long (no run created) is removed by the worker; 0 keeps workdirs. */
    readonly workdirTtlMs: number;
    /**
     * Absolute host directories under which a sandbox session (or a playbook run, or a shadow
     * validation) may name a workspace to see copy-on-write. Empty (the default): no workspaces.
     */
    readonly workspaceRoots: readonly string[];
    /** auto: workspaces through an overlay where the worker can mount one, else a copy; copy: always a copy. */
    readonly workspaceView: 'auto' | 'copy';
  };
  readonly replay: {
    /** How long a guided playbook run waits for the host to report a host step; 0 waits without a limit. */
    readonly hostStepTimeoutMs: number;
  };
  /**
   * How long a request waits for a start-up build it needs (a scope's learned state, the
   * forgetting counts) before it is answered without it: a task start from what has loaded, a
   * write with its learning in the background, a forgetting summary that says it is building.
   * 0 never waits (docs/design.md, "Start-up builds").
   */
  readonly buildWaitMs: number;
  /** Milliseconds between scheduled lifecycle (forgetting) runs; 0 turns the schedule off. */
  readonly lifecycleIntervalMs: number;
  /**
   * Snapshots of the in-process indexes in the data dir (LORE_INDEX_SNAPSHOTS, default on): a
   * restart loads them and catches up from the store instead of rebuilding from every node
   * (docs/memory.md, "Snapshots"). Off: every start rebuilds, as a read-only data dir needs.
   */
  readonly indexSnapshots: boolean;
  /** The cap, in characters, on what the HTTP hook route adds to an agent's context (LORE_HOOK_CONTEXT_CHARS). */
  readonly hookContextChars: number;
  /** OpenTelemetry tracing (docs/inspector.md, "Traces"): off unless an OTLP endpoint or LORE_TRACING=on is set. */
  readonly tracing: {
    readonly enabled: boolean;
    /** The OTLP/HTTP traces URL spans are sent to (…/v1/traces). */
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly serviceName: string;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

const port = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a port number` })
    .int()
    .min(1, `${name} must be 1-65535`)
    .max(65535, `${name} must be 1-65535`);

const bool = (name: string) =>
  z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .refine((v) => ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(v), `${name} must be true or false`)
    .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

/** A host uid/gid for sandbox runs: above the system and regular-user ranges, below 2^31. */
const sandboxId = (name: string) =>
  z.coerce
    .number({ error: `${name} must be an integer` })
    .int(`${name} must be an integer`)
    .min(100_000, `${name} must be at least 100000 (clear of system and user ids)`)
    .max(2_000_000_000, `${name} must be at most 2000000000`);

/** "2mb", "512kb", "1048576" → bytes. */
export function parseBytes(value: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?\s*$/i.exec(value);
  if (!m) return null;
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult = unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 ** 2 : unit.startsWith('g') ? 1024 ** 3 : 1;
  return Math.floor(Number(m[1]) * mult);
}

/** "90s", "15m", "6h", "1d", "off", "0", "5000" (ms) → milliseconds. */
export function parseDuration(value: string): number | null {
  const v = value.trim().toLowerCase();
  if (v === 'off' || v === '0' || v === 'false') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(v);
  if (!m) return null;
  const mult = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  return Math.floor(Number(m[1]) * mult);
}

const dataDirHash = (dataDir: string) => createHash('sha256').update(dataDir).digest();

/**
 * Sandbox workdirs live outside the data dir, somewhere the sandbox's unprivileged uids can
 * traverse: a data dir under /root (mode 0700) would make every run fail. One folder per data dir.
 */
function defaultSandboxDir(dataDir: string): string {
  return join('/var/tmp', `lore-sandbox-${dataDirHash(dataDir).toString('hex').slice(0, 12)}`);
}

/**
 * Each data dir gets its own block of 65,536 sandbox uids, so two Lore instances on one machine
 * never clean up each other's sandbox processes.
 */
function defaultIdRange(dataDir: string): { min: number; max: number } {
  const block = dataDirHash(dataDir).readUInt32BE(0) % 8000;
  const min = 1_000_000 + block * 65_536;
  return { min, max: min + 65_535 };
}

function expandHome(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return isAbsolute(p) ? p : resolve(p);
}

const expandHomeOrNull = (p: string | null): string | null => (p === null ? null : expandHome(p));

/**
 * Where the local servers' binaries are cached (LORE_BIN_DIR). This and mongoJavaOptions serve
 * callers that build or start a server without a whole Config (tests and benchmarks).
 */
export function localBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return expandHome(env.LORE_BIN_DIR || '~/.cache/lore/bin');
}

/** JVM flags of the local MongoDB-compatible server (LORE_MONGO_JAVA_OPTS, space-separated); null: the launcher's defaults. */
export function mongoJavaOptions(env: NodeJS.ProcessEnv = process.env): string[] | null {
  const raw = env.LORE_MONGO_JAVA_OPTS;
  return raw ? raw.split(/\s+/).filter(Boolean) : null;
}

/** An http(s) URL without a trailing slash, or null when it is not one. */
export function httpUrl(raw: string): string | null {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.toString().replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/** OTEL_EXPORTER_OTLP_HEADERS: `k=v,k2=v2` (values URL-encoded, as the OTLP exporter spec says). */
export function parseOtlpHeaders(raw: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
  }
  return out;
}

/**
 * LORE_ALLOWED_HOSTS: comma-separated host names or addresses, without scheme or port. Each is
 * normalised as a URL host (lower case, IPv6 in brackets); a leading dot (`.example.com`) matches
 * the domain and its subdomains. There is no wildcard: a name Lore answers under is named.
 */
export function parseAllowedHosts(raw: string, problems: string[]): string[] {
  const out: string[] = [];
  for (const entry of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const suffix = entry.startsWith('.');
    const name = suffix ? entry.slice(1) : entry;
    let host: string | null = null;
    try {
      const u = new URL(`http://${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}`);
      if (u.port === '' && u.pathname === '/' && u.username === '' && u.search === '' && u.hash === '') host = u.hostname.replace(/\.$/, '');
    } catch {
      host = null;
    }
    if (host === null || host === '' || /[*\s]/.test(name) || (suffix && host.startsWith('['))) {
      problems.push(
        `LORE_ALLOWED_HOSTS: ${JSON.stringify(entry)} is not a host name; list names or addresses without scheme or port, comma-separated (e.g. lore-api,lore.example.com,.internal.example)`,
      );
      continue;
    }
    out.push(suffix ? `.${host}` : host);
  }
  return out;
}

export function parseApiKeys(raw: string): ApiKey[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const eq = entry.lastIndexOf('=');
      return eq > 0 ? { key: entry.slice(0, eq), tenant: entry.slice(eq + 1) } : { key: entry, tenant: null };
    });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: { role?: Role } = {}): Config {
  const problems: string[] = [];
  const read = <T>(name: string, schema: z.ZodType<T>, fallback: string): T => {
    const raw = env[name] === undefined || env[name] === '' ? fallback : env[name]!;
    const r = schema.safeParse(raw);
    if (r.success) return r.data;
    problems.push(`${name}=${JSON.stringify(raw)}: ${r.error.issues[0]?.message ?? 'invalid'}`);
    return schema.parse(fallback);
  };
  const optional = (name: string) => (env[name] && env[name]!.trim() !== '' ? env[name]!.trim() : null);

  const host = read('LORE_HOST', z.string().min(1), '127.0.0.1');
  const dataDir = expandHome(read('LORE_DATA_DIR', z.string().min(1), '~/.lore'));
  const role = overrides.role ?? read('LORE_ROLE', z.enum(PROCESS_ROLES, { error: 'LORE_ROLE must be api, worker or all' }), 'all');

  const bodyLimitRaw = read('LORE_BODY_LIMIT', z.string(), '2mb');
  const bodyLimit = parseBytes(bodyLimitRaw);
  if (bodyLimit === null || bodyLimit < 1024) problems.push(`LORE_BODY_LIMIT=${JSON.stringify(bodyLimitRaw)}: use a size such as 2mb or 1048576 (at least 1kb)`);

  const lifecycleRaw = read('LORE_LIFECYCLE_INTERVAL', z.string(), '6h');
  const lifecycleIntervalMs = parseDuration(lifecycleRaw);
  if (lifecycleIntervalMs === null) problems.push(`LORE_LIFECYCLE_INTERVAL=${JSON.stringify(lifecycleRaw)}: use a duration such as 30m, 6h or off`);

  const workdirTtlRaw = read('LORE_SANDBOX_WORKDIR_TTL', z.string(), '7d');
  const workdirTtlMs = parseDuration(workdirTtlRaw);
  if (workdirTtlMs === null) problems.push(`LORE_SANDBOX_WORKDIR_TTL=${JSON.stringify(workdirTtlRaw)}: use a duration such as 7d, 12h or off`);

  const workspaceRoots = (optional('LORE_SANDBOX_WORKSPACE_ROOTS') ?? '')
    .split(':')
    .map((r) => r.trim())
    .filter((r) => r !== '')
    .map((r) => (r.startsWith('~') ? expandHome(r) : r));
  for (const r of workspaceRoots) {
    if (!isAbsolute(r)) problems.push(`LORE_SANDBOX_WORKSPACE_ROOTS: ${JSON.stringify(r)} is not an absolute path (list absolute directories separated by ':')`);
    else if (resolve(r) === '/') problems.push('LORE_SANDBOX_WORKSPACE_ROOTS: / would let a workspace be any directory of the host; name the directories that hold projects');
  }

  const buildWaitRaw = read('LORE_BUILD_WAIT', z.string(), '500ms');
  const buildWaitMs = parseDuration(buildWaitRaw);
  if (buildWaitMs === null || buildWaitMs > 60_000) problems.push(`LORE_BUILD_WAIT=${JSON.stringify(buildWaitRaw)}: use a duration up to 60s such as 500ms, 2s or 0`);

  const hostStepRaw = read('LORE_PLAYBOOK_HOST_STEP_TIMEOUT', z.string(), '24h');
  const hostStepTimeoutMs = parseDuration(hostStepRaw);
  if (hostStepTimeoutMs === null) problems.push(`LORE_PLAYBOOK_HOST_STEP_TIMEOUT=${JSON.stringify(hostStepRaw)}: use a duration such as 24h, 30m or off`);

  const apiKeys = parseApiKeys(env.LORE_API_KEYS ?? '');
  const allowInsecureBind = read('LORE_ALLOW_INSECURE_BIND', bool('LORE_ALLOW_INSECURE_BIND'), 'false');
  const loopback = LOOPBACK.has(host);
  if (!loopback && apiKeys.length === 0 && !allowInsecureBind) {
    problems.push(`LORE_HOST=${host} is not a loopback address and no LORE_API_KEYS are set: set LORE_API_KEYS, or LORE_ALLOW_INSECURE_BIND=true if the network is trusted`);
  }

  const allowedHosts = parseAllowedHosts(env.LORE_ALLOWED_HOSTS ?? '', problems);
  const requireToken = read('LORE_REQUIRE_TOKEN', bool('LORE_REQUIRE_TOKEN'), 'false');

  const embeddingsExplicit = optional('LORE_EMBEDDINGS') !== null;
  const embeddingsProvider = read(
    'LORE_EMBEDDINGS',
    z.enum(['none', 'local', 'onnx', 'openai', 'ollama'], { error: 'LORE_EMBEDDINGS must be none, local, onnx, openai or ollama' }),
    'onnx',
  );
  const embeddingsUrl = optional('LORE_EMBEDDINGS_URL');
  if ((embeddingsProvider === 'openai' || embeddingsProvider === 'ollama') && !embeddingsUrl) {
    problems.push(`LORE_EMBEDDINGS=${embeddingsProvider} needs LORE_EMBEDDINGS_URL (e.g. http://127.0.0.1:11434 for Ollama)`);
  }
  // onnx: a catalog name as it is; anything else is a path (a leading ~ is the home directory).
  const modelSetting = optional('LORE_EMBEDDINGS_MODEL');
  const embeddingsModel =
    embeddingsProvider !== 'onnx' ? modelSetting : modelSetting === null ? DEFAULT_ENCODER : catalogModel(modelSetting) ? modelSetting : expandHome(modelSetting);
  const modelsRepository = read('LORE_MODELS_REPOSITORY', z.url({ error: 'LORE_MODELS_REPOSITORY must be a URL (a Maven repository)' }), 'https://repo1.maven.org/maven2');

  const temporalUiRaw = optional('LORE_TEMPORAL_UI_URL');
  const temporalUiUrl = temporalUiRaw === null ? null : httpUrl(temporalUiRaw);
  if (temporalUiRaw !== null && temporalUiUrl === null)
    problems.push(`LORE_TEMPORAL_UI_URL=${JSON.stringify(temporalUiRaw)}: use the Temporal UI's http(s) URL, e.g. http://127.0.0.1:8233`);

  const tracing = readTracing(optional, problems);

  const config: Config = {
    version: LORE_VERSION,
    role,
    host,
    port: read('LORE_PORT', port('LORE_PORT'), '3001'),
    dataDir,
    binDir: expandHome(read('LORE_BIN_DIR', z.string().min(1), '~/.cache/lore/bin')),
    logLevel: read('LORE_LOG_LEVEL', z.enum(['debug', 'info', 'warn', 'error'], { error: 'LORE_LOG_LEVEL must be debug, info, warn or error' }), 'info'),
    bodyLimit: bodyLimit ?? 2 * 1024 * 1024,
    apiKeys,
    allowInsecureBind,
    allowedHosts,
    requireToken,
    validateResponses: read('LORE_VALIDATE_RESPONSES', bool('LORE_VALIDATE_RESPONSES'), 'false'),
    temporal: {
      address: optional('TEMPORAL_ADDRESS'),
      namespace: read('TEMPORAL_NAMESPACE', z.string().min(1), 'default'),
      taskQueue: read('LORE_TASK_QUEUE', z.string().min(1), 'lore'),
      localPort: read('LORE_TEMPORAL_PORT', port('LORE_TEMPORAL_PORT'), '7233'),
      localUiPort: read('LORE_TEMPORAL_UI_PORT', port('LORE_TEMPORAL_UI_PORT'), '8233'),
      uiUrl: temporalUiUrl,
    },
    mongo: {
      uri: optional('MONGODB_URI'),
      database: read('MONGODB_DB', z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'MONGODB_DB must be 1-63 chars of [A-Za-z0-9_-]'), 'lore'),
      localPort: read('LORE_MONGO_PORT', port('LORE_MONGO_PORT'), '27018'),
      wireReads: read('LORE_MONGO_WIRE_READS', z.enum(['auto', 'off'], { error: 'LORE_MONGO_WIRE_READS must be auto or off' }), 'auto'),
      javaOptions: mongoJavaOptions(env),
    },
    embeddings: {
      provider: embeddingsProvider,
      explicit: embeddingsExplicit,
      url: embeddingsUrl,
      model: embeddingsModel,
      apiKey: optional('LORE_EMBEDDINGS_API_KEY'),
      localModuleDir: expandHomeOrNull(optional('LORE_EMBEDDINGS_LOCAL_DIR')),
      modelsDir: expandHome(read('LORE_MODELS_DIR', z.string().min(1), '~/.cache/lore/models')),
      modelsRepository,
    },
    sandbox: {
      enabled: read('SANDBOX_ENABLED', bool('SANDBOX_ENABLED'), loopback ? 'true' : 'false'),
      isolation: read('LORE_SANDBOX_ISOLATION', z.enum(['auto', 'bubblewrap', 'none'], { error: 'LORE_SANDBOX_ISOLATION must be auto, bubblewrap or none' }), 'auto'),
      bwrapPath: optional('LORE_SANDBOX_BWRAP'),
      dir: expandHome(read('LORE_SANDBOX_DIR', z.string().min(1), defaultSandboxDir(dataDir))),
      idRange: {
        min: read('LORE_SANDBOX_ID_MIN', sandboxId('LORE_SANDBOX_ID_MIN'), String(defaultIdRange(dataDir).min)),
        max: read('LORE_SANDBOX_ID_MAX', sandboxId('LORE_SANDBOX_ID_MAX'), String(defaultIdRange(dataDir).max)),
      },
      workdirTtlMs: workdirTtlMs ?? 7 * 86_400_000,
      workspaceRoots: workspaceRoots.map((r) => resolve(r)),
      workspaceView: read('LORE_SANDBOX_WORKSPACE_VIEW', z.enum(['auto', 'copy'], { error: 'LORE_SANDBOX_WORKSPACE_VIEW must be auto or copy' }), 'auto'),
    },
    replay: { hostStepTimeoutMs: hostStepTimeoutMs ?? 86_400_000 },
    buildWaitMs: buildWaitMs ?? 500,
    lifecycleIntervalMs: lifecycleIntervalMs ?? 6 * 3_600_000,
    indexSnapshots: read('LORE_INDEX_SNAPSHOTS', z.enum(['on', 'off'], { error: 'LORE_INDEX_SNAPSHOTS must be on or off' }), 'on') === 'on',
    hookContextChars: read(
      'LORE_HOOK_CONTEXT_CHARS',
      z.coerce
        .number({ error: 'LORE_HOOK_CONTEXT_CHARS must be a number of characters' })
        .int()
        .min(200, 'LORE_HOOK_CONTEXT_CHARS must be 200-20000')
        .max(20_000, 'LORE_HOOK_CONTEXT_CHARS must be 200-20000'),
      '2000',
    ),
    tracing,
  };
  if (config.sandbox.bwrapPath !== null && !config.sandbox.bwrapPath.startsWith('/')) {
    problems.push(`LORE_SANDBOX_BWRAP must be an absolute path (got '${config.sandbox.bwrapPath}')`);
  }
  const ids = config.sandbox.idRange;
  if (ids.max - ids.min < 63) {
    problems.push(`LORE_SANDBOX_ID_MIN..LORE_SANDBOX_ID_MAX (${ids.min}..${ids.max}) must span at least 64 ids`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

const OTLP_DEFAULT_TRACES_URL = 'http://localhost:4318/v1/traces';

/**
 * Tracing is on when LORE_TRACING=on, or (auto, the default) when an OTLP endpoint is set;
 * OTEL_SDK_DISABLED=true and LORE_TRACING=off turn it off whatever else is set. The traces URL is
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces
 * (the OTLP exporter spec's rule), else the OTLP default on localhost.
 */
function readTracing(optional: (name: string) => string | null, problems: string[]): Config['tracing'] {
  const switchRaw = (optional('LORE_TRACING') ?? 'auto').toLowerCase();
  const mode = ['on', 'true', '1', 'yes'].includes(switchRaw) ? 'on' : ['off', 'false', '0', 'no'].includes(switchRaw) ? 'off' : switchRaw === 'auto' ? 'auto' : null;
  if (mode === null) problems.push(`LORE_TRACING=${JSON.stringify(switchRaw)}: use auto (on when OTEL_EXPORTER_OTLP_ENDPOINT is set), on or off`);
  const tracesRaw = optional('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseRaw = optional('OTEL_EXPORTER_OTLP_ENDPOINT');
  let url = OTLP_DEFAULT_TRACES_URL;
  if (tracesRaw !== null) {
    const u = httpUrl(tracesRaw);
    if (u === null)
      problems.push(`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${JSON.stringify(tracesRaw)}: use the collector's OTLP/HTTP traces URL, e.g. http://127.0.0.1:4318/v1/traces`);
    else url = u;
  } else if (baseRaw !== null) {
    const u = httpUrl(baseRaw);
    if (u === null) problems.push(`OTEL_EXPORTER_OTLP_ENDPOINT=${JSON.stringify(baseRaw)}: use the collector's OTLP/HTTP base URL, e.g. http://127.0.0.1:4318`);
    else url = `${u}/v1/traces`;
  }
  const headersRaw = optional('OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? optional('OTEL_EXPORTER_OTLP_HEADERS');
  const headers = headersRaw === null ? {} : parseOtlpHeaders(headersRaw);
  if (headers === null) problems.push('OTEL_EXPORTER_OTLP_HEADERS: use key=value pairs separated by commas (values URL-encoded)');
  const sdkDisabled = (optional('OTEL_SDK_DISABLED') ?? 'false').toLowerCase() === 'true';
  const endpointSet = tracesRaw !== null || baseRaw !== null;
  const enabled = !sdkDisabled && (mode === 'on' || (mode === 'auto' && endpointSet));
  return { enabled, url, headers: headers ?? {}, serviceName: optional('OTEL_SERVICE_NAME') ?? 'lore' };
}

/** Derived from package.json at build time would need a build; reading it once is enough. */
export const LORE_VERSION = '0.1.0';

function deepFreeze<T>(obj: T): T {
  if (obj && typeof obj === 'object') {
    for (const v of Object.values(obj)) deepFreeze(v);
    Object.freeze(obj);
  }
  return obj;
}
