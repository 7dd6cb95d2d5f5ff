/**
 * What the learning benchmarks share: their seeded generator and loadgen.mjs's vocabulary (areas,
 * modules, problems) for the noise writes around the task families.
 */
export function mulberry32(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const AREAS = [
  'payments',
  'auth',
  'billing',
  'search',
  'export',
  'ingest',
  'scheduler',
  'notifications',
  'cache',
  'metrics',
  'cli',
  'parser',
  'storage',
  'sync',
  'webhooks',
  'migrations',
  'i18n',
  'uploads',
  'reporting',
  'ratelimit',
  'sessions',
  'graphql',
  'admin',
  'email',
  'inventory',
  'checkout',
  'flags',
  'audit',
  'geo',
  'pdf',
];

export const MODULES = [
  'handler',
  'service',
  'client',
  'retry',
  'config',
  'router',
  'serializer',
  'validator',
  'worker',
  'queue',
  'adapter',
  'middleware',
  'model',
  'repository',
  'utils',
  'schema',
  'controller',
];

export const PROBLEMS = [
  'retry backoff',
  'pagination cursor',
  'CSV export encoding',
  'JWT refresh',
  'cache invalidation',
  'webhook signature check',
  'rate limit headers',
  'timezone date parsing',
  'unicode normalization',
  'N+1 query',
  'memory leak',
  'race condition',
  'config defaults',
  'upload size limit',
  'connection pool exhaustion',
  'flaky integration test',
  'null dereference on empty list',
  'migration ordering',
  'locale fallback',
  'idempotency keys',
  'graceful shutdown',
  'log redaction',
  'currency rounding',
  'slow full-text search',
  'duplicate email sends',
  'permission check bypass',
  'PDF rendering overflow',
  'feature flag evaluation',
];
